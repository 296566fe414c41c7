"""Grad mode decides whether ops are recorded: no_grad, enable_grad, set_grad_enabled,
is_grad_enabled and inference_mode (MODE-*). Every test restores the mode it changes, so that a
failing engine cannot leak its mode into later tests."""

import numpy as np
import pytest
from hypothesis import event, given, strategies as st

from autograd_conformance.harness.checks import (assert_grads_with_nodes_held_constant,
                                                 assert_leaf_grads, build, grad_or_none,
                                                 raises_runtime_error, record_reproducer)
from autograd_conformance.harness.oracles import finite_difference_grads
from autograd_conformance.harness.strategies import (ALL_OPS, SHAPING, computed_output,
                                                     programs, recorded_intermediates, values)

behaviour = pytest.mark.behaviour
needs = pytest.mark.needs

NON_VIEW_OPS = tuple(op for op in ALL_OPS if op not in SHAPING)
MODES = ("no_grad", "enable_grad", "set_grad_enabled(True)", "set_grad_enabled(False)")


def _mode(ag, name):
    """The context manager called `name`, and whether grad is enabled inside it."""
    if name == "no_grad":
        return ag.no_grad(), False
    if name == "enable_grad":
        return ag.enable_grad(), True
    flag = name.endswith("(True)")
    return ag.set_grad_enabled(flag), flag


@behaviour("MODE-1")
@given(data=st.data())
def test_no_grad_results_do_not_require_grad(engine, data):
    """Under no_grad every op result is a leaf without grad_fn, even when its inputs require grad,
    and the inputs' flags do not change. Results of non-view ops do not require grad; views
    (reshape, transpose, indexing) of a tensor that requires grad keep requires_grad=True in torch,
    so their flag is not pinned here."""
    program = data.draw(programs(engine, requires_grad="all"), label="program")
    record_reproducer("with torch.no_grad():\n" + "\n".join(
        "    " + line for line in program.to_script().splitlines()))
    with engine.ns.no_grad():
        tensors = program.run_on(engine)
    for leaf in program.leaves:
        assert tensors[leaf.name].requires_grad, f"leaf {leaf.name} lost requires_grad in no_grad"
    for node in program.nodes:
        tensor = tensors[node.name]
        if node.op not in SHAPING:
            assert not tensor.requires_grad, (
                f"{node.name} = {node.op}(...) under no_grad requires grad")
        assert tensor.grad_fn is None, f"{node.name} = {node.op}(...) under no_grad has a grad_fn"
        assert tensor.is_leaf, f"{node.name} = {node.op}(...) under no_grad is not a leaf"


@behaviour("MODE-1")
@given(data=st.data())
def test_backward_from_a_no_grad_result_raises(engine, data):
    """A result computed under no_grad has no graph: backward on it raises RuntimeError, and the
    mode is on again after the block."""
    program = data.draw(programs(engine, ops=NON_VIEW_OPS, requires_grad="all", max_ops=3,
                                 candidates=computed_output), label="program")
    record_reproducer(program.to_script("# every op above under torch.no_grad()",
                                        "out.backward()  # must raise"))
    with engine.ns.no_grad():
        out = program.run_on(engine)[program.output]
    with raises_runtime_error():
        out.backward()
    again = program.run_on(engine)[program.output]
    assert again.requires_grad, "ops after the no_grad block are still not recorded"


@behaviour("MODE-2")
@given(shape=st.lists(st.integers(1, 3), max_size=2).map(tuple), data=st.data())
def test_factories_with_requires_grad_work_under_no_grad(engine, ag, shape, data):
    """no_grad affects op results, not explicit flags: a tensor created with requires_grad=True
    inside no_grad is a leaf that requires grad (and trains); ops on it inside do not."""
    array = data.draw(values(shape, "float32"), label="values")
    record_reproducer(f"with torch.no_grad():\n    t = torch.tensor({array.tolist()!r}, "
                      f"requires_grad=True)\n    u = t * 2\n(t * 3).sum().backward()")
    with ag.no_grad():
        t = ag.tensor(array.tolist(), requires_grad=True)
        u = t * 2
        ones = ag.ones(*(shape or (1,)), requires_grad=True)
    assert t.requires_grad and t.is_leaf, "tensor(..., requires_grad=True) under no_grad"
    assert ones.requires_grad and ones.is_leaf, "ones(..., requires_grad=True) under no_grad"
    assert not u.requires_grad, "t * 2 under no_grad requires grad"
    (t * 3).sum().backward()
    grad = grad_or_none(engine, t)
    assert grad is not None and np.allclose(grad, 3.0), f"t.grad is {grad}, expected all 3"


@behaviour("MODE-3")
@needs("inplace")
@given(data=st.data())
def test_in_place_update_of_a_leaf_under_no_grad(engine, ag, data):
    """The SGD idiom: under no_grad, w.add_(-lr * w.grad) on a leaf that requires grad is allowed;
    w stays a leaf that requires grad, without grad_fn, with the updated values."""
    shape = data.draw(st.lists(st.integers(1, 3), min_size=1, max_size=2).map(tuple), label="shape")
    start = data.draw(values(shape, "float64"), label="w")
    lr = data.draw(st.sampled_from([0.5, 0.25, 0.125]), label="lr")
    record_reproducer(f"w = torch.tensor({start.tolist()!r}, requires_grad=True)\n"
                      f"(w * w).sum().backward()\nwith torch.no_grad():\n"
                      f"    w.add_(w.grad * -{lr})")
    w = ag.tensor(start.tolist(), requires_grad=True)
    (w * w).sum().backward()
    with ag.no_grad():
        w.add_(w.grad * -lr)
    assert w.is_leaf and w.grad_fn is None, "w is no longer a leaf after the update in no_grad"
    assert w.requires_grad, "w no longer requires grad after the update in no_grad"
    got = engine.to_numpy(w)
    assert np.allclose(got, start - lr * 2 * start, rtol=1e-5, atol=1e-5), (
        f"w after the update is {got.tolist()}, expected {(start * (1 - 2 * lr)).tolist()}")


@behaviour("MODE-4", "MODE-5")
@needs("grad_mode")
@given(stack=st.lists(st.sampled_from(MODES), min_size=1, max_size=4), data=st.data())
def test_nested_grad_modes(engine, ag, stack, data):
    """Grad-mode context managers nest: inside each, is_grad_enabled() and whether new ops are
    recorded follow the innermost one (enable_grad re-enables inside no_grad), and leaving a block
    restores the enclosing mode."""
    program = data.draw(programs(engine, requires_grad="all", max_ops=2), label="program")
    record_reproducer(program.to_script(f"# nested: {' > '.join(stack)}; at each depth "
                                        f"(out * 2).requires_grad == torch.is_grad_enabled()"))
    x = program.run_on(engine)[program.output]

    def enter(depth, enclosing):
        manager, flag = _mode(ag, stack[depth])
        with manager:
            where = " > ".join(stack[:depth + 1])
            assert ag.is_grad_enabled() == flag, f"is_grad_enabled() inside {where}"
            assert (x * 2).requires_grad == flag, f"an op recorded or not inside {where}"
            if depth + 1 < len(stack):
                enter(depth + 1, flag)
            assert ag.is_grad_enabled() == flag, f"mode not restored on leaving into {where}"
        assert (x * 2).requires_grad == enclosing, f"mode not restored after leaving {where}"

    enter(0, True)
    assert ag.is_grad_enabled(), "grad mode is not restored after the nested blocks"


@behaviour("MODE-4")
@needs("grad_mode")
@given(data=st.data())
def test_leaving_a_block_restores_the_enclosing_mode(engine, ag, data):
    """Leaving an inner block restores the mode of the block around it, not the default."""
    outer, inner = data.draw(st.tuples(st.sampled_from(MODES), st.sampled_from(MODES)),
                             label="outer, inner")
    record_reproducer(f"with torch.{outer}:\n    with torch.{inner}:\n        pass\n"
                      f"    torch.is_grad_enabled()")
    x = ag.tensor([1.0, 2.0], requires_grad=True)
    outer_manager, outer_flag = _mode(ag, outer)
    with outer_manager:
        inner_manager, inner_flag = _mode(ag, inner)
        with inner_manager:
            assert ag.is_grad_enabled() == inner_flag, f"inside {inner} within {outer}"
        assert ag.is_grad_enabled() == outer_flag, f"back in {outer} after leaving {inner}"
        assert (x * 2).requires_grad == outer_flag, f"an op back in {outer} after {inner}"
    assert ag.is_grad_enabled()


@behaviour("MODE-4")
@needs("grad_mode")
@given(decorator=st.sampled_from(["no_grad", "enable_grad"]), outer=st.sampled_from(MODES))
def test_grad_modes_as_decorators(ag, decorator, outer):
    """@no_grad() and @enable_grad() set the mode for the whole call of the decorated function,
    whatever the caller's mode, and the caller's mode is restored afterwards."""
    record_reproducer(f"@torch.{decorator}()\ndef f(t):\n    return t * 2\n"
                      f"with torch.{outer}:\n    f(x).requires_grad")
    flag = decorator == "enable_grad"

    @getattr(ag, decorator)()
    def double(t):
        return t * 2, ag.is_grad_enabled()

    x = ag.tensor([1.0, 2.0], requires_grad=True)
    manager, outer_flag = _mode(ag, outer)
    with manager:
        result, inside = double(x)
        assert ag.is_grad_enabled() == outer_flag, f"@{decorator} leaked its mode into {outer}"
    assert inside == flag, f"is_grad_enabled() inside @{decorator} is {inside}"
    assert result.requires_grad == flag, f"@{decorator}: result requires_grad={result.requires_grad}"


@behaviour("MODE-5")
@needs("grad_mode")
@given(data=st.data())
def test_set_grad_enabled_as_a_function(engine, ag, data):
    """set_grad_enabled(False) called as a plain function switches recording off until
    set_grad_enabled(True) switches it back on."""
    program = data.draw(programs(engine, ops=NON_VIEW_OPS, requires_grad="all", max_ops=3),
                        label="program")
    record_reproducer(program.to_script().replace("import torch\n", "import torch\n"
                                                  "torch.set_grad_enabled(False)\n", 1))
    try:
        ag.set_grad_enabled(False)
        assert not ag.is_grad_enabled(), "is_grad_enabled() after set_grad_enabled(False)"
        off = program.run_on(engine)
    finally:
        ag.set_grad_enabled(True)
    assert ag.is_grad_enabled(), "is_grad_enabled() after set_grad_enabled(True)"
    on = program.run_on(engine)
    for node in program.nodes:
        assert not off[node.name].requires_grad, f"{node.name} recorded with grad disabled"
        assert on[node.name].requires_grad, f"{node.name} not recorded after re-enabling"


@behaviour("MODE-6")
@needs("inference_mode")
@given(data=st.data())
def test_inference_mode_results(engine, ag, data):
    """Under inference_mode results of (non-view) ops do not require grad, have no grad_fn and
    are inference tensors; the inputs created outside are not."""
    program = data.draw(programs(engine, ops=NON_VIEW_OPS, requires_grad="all", max_ops=3),
                        label="program")
    record_reproducer(program.to_script("# every op above under torch.inference_mode(), the "
                                        "leaves created outside it"))
    leaves = {leaf.name: ag.tensor(leaf.values.tolist(), dtype=getattr(ag, program.dtype),
                                   requires_grad=True) for leaf in program.leaves}
    with ag.inference_mode():
        tensors = program.run_on(engine, given=leaves)
    for leaf in program.leaves:
        assert not leaves[leaf.name].is_inference(), f"{leaf.name} became an inference tensor"
    for node in program.nodes:
        tensor = tensors[node.name]
        assert not tensor.requires_grad and tensor.grad_fn is None, (
            f"{node.name} = {node.op}(...) under inference_mode is recorded")
        assert tensor.is_inference(), f"{node.name} under inference_mode is not an inference tensor"


@behaviour("MODE-8")
@given(data=st.data())
def test_backward_inside_no_grad_still_works(engine, data):
    """no_grad only stops recording new ops: backward on a graph built before it gives the usual
    gradients."""
    program = data.draw(programs(engine), label="program")
    tensors = build(program, engine, "with torch.no_grad():", "    out.backward()")
    with engine.ns.no_grad():
        tensors[program.output].backward()
    expected = finite_difference_grads(program)
    assert_leaf_grads(engine, program, tensors, expected, oracle="finite-difference")


@behaviour("MODE-9")
@given(data=st.data())
def test_values_computed_under_no_grad_are_constants(engine, data):
    """A node computed under no_grad is a constant for the rest of the program: the gradients
    equal the finite differences of the program with that node held at its value, and leaves
    reached only through such nodes get no gradient."""
    program = data.draw(programs(engine, candidates=recorded_intermediates), label="program")
    frozen = data.draw(st.sets(st.sampled_from(recorded_intermediates(program)), min_size=1),
                       label="under no_grad")
    event(f"nodes under no_grad: {len(frozen)}")

    def around(name, compute):
        if name not in frozen:
            return compute()
        with engine.ns.no_grad():
            return compute()

    assert_grads_with_nodes_held_constant(engine, program, frozen, around,
                                          how="computed under torch.no_grad()")
