"""Grad mode decides whether ops are recorded: no_grad, enable_grad, set_grad_enabled,
is_grad_enabled and inference_mode (MODE-*). Every test restores the mode it changes, so that a
failing engine cannot leak its mode into later tests: a script step that changes the mode ends
the change within the same step (a `with` block, or try/finally)."""

import pytest
from hypothesis import event, given
from hypothesis import strategies as st

from autograd_conformance.harness.checks import assert_grads_with_nodes_held_constant, assert_leaf_grads
from autograd_conformance.harness.counts import NESTING_DEPTH, counts
from autograd_conformance.harness.oracles import analytic_grads
from autograd_conformance.harness.script import Script, literal, tensor_literal
from autograd_conformance.harness.strategies import (
    ALL_OPS,
    SHAPING,
    computed_output,
    cotangents,
    programs,
    recorded_intermediates,
    values,
    view_chains,
)

behaviour = pytest.mark.behaviour
needs = pytest.mark.needs

NON_VIEW_OPS = tuple(op for op in ALL_OPS if op not in SHAPING)
MODES = ("no_grad", "enable_grad", "set_grad_enabled(True)", "set_grad_enabled(False)")


def _mode(name):
    """The context manager called `name` as script source, and whether grad is enabled inside."""
    if name in ("no_grad", "enable_grad"):
        return f"torch.{name}()", name == "enable_grad"
    return f"torch.{name}", name.endswith("(True)")


def _under(manager, lines):
    """`lines` as the body of `with <manager>:`."""
    return [f"with {manager}:", *("    " + line for line in lines)]


@behaviour("MODE-1")
@given(data=st.data())
def test_no_grad_results_do_not_require_grad(engine, data):
    """Under no_grad every op result is a leaf without grad_fn, even when its inputs require grad,
    and the inputs' flags do not change. Results of non-view ops do not require grad; views
    (reshape, transpose, indexing) of a tensor that requires grad keep requires_grad=True in torch,
    so their flag is not pinned here."""
    program = data.draw(programs(engine, requires_grad="all"), label="program")
    script = Script(engine)
    script.run(*_under("torch.no_grad()", program.script_lines()))
    for leaf in program.leaves:
        script.check(f"{leaf.name}.requires_grad",
                     f"leaf {leaf.name} lost requires_grad in no_grad")
    for node in program.nodes:
        what = f"{node.name} = {node.op}(...) under no_grad"
        if node.op not in SHAPING:
            script.check(f"not {node.name}.requires_grad", f"{what} requires grad")
        script.check(f"{node.name}.grad_fn is None", f"{what} has a grad_fn")
        script.check(f"{node.name}.is_leaf", f"{what} is not a leaf")


@behaviour("MODE-1")
@given(data=st.data())
def test_backward_from_a_no_grad_result_raises(engine, data):
    """A result computed under no_grad has no graph: backward on it raises RuntimeError, and the
    mode is on again after the block: built again there, it backpropagates."""
    program = data.draw(programs(engine, ops=NON_VIEW_OPS, requires_grad="all", max_ops=3,
                                 candidates=computed_output), label="program")
    script = Script(engine)
    script.run(*_under("torch.no_grad()", program.script_lines()))
    script.raises("out.backward()")
    with script.control():
        script.build(program)   # again, after the block
        script.check("out.requires_grad", "ops after the no_grad block are still not recorded")
        script.run("out.backward()")
        assert_leaf_grads(script, program, analytic_grads(program), oracle="analytic")


@behaviour("MODE-2")
@given(shape=st.lists(st.integers(1, 3), max_size=2).map(tuple), data=st.data())
def test_factories_with_requires_grad_work_under_no_grad(engine, shape, data):
    """no_grad affects op results, not explicit flags: a tensor created with requires_grad=True
    inside no_grad is a leaf that requires grad (and trains); ops on it inside do not."""
    array = data.draw(values(shape, "float32"), label="values")
    sizes = ", ".join(str(size) for size in shape or (1,))
    script = Script(engine)
    script.run(*_under("torch.no_grad()", [
        f"t = torch.tensor({array.tolist()!r}, requires_grad=True)",
        "u = t * 2",
        f"ones = torch.ones({sizes}, requires_grad=True)"]))
    script.check("t.requires_grad and t.is_leaf", "tensor(..., requires_grad=True) under no_grad")
    script.check("ones.requires_grad and ones.is_leaf",
                 "ones(..., requires_grad=True) under no_grad")
    script.check("not u.requires_grad", "t * 2 under no_grad requires grad")
    script.run("(t * 3).sum().backward()")
    script.check("t.grad is not None and np.allclose(to_numpy(t.grad), 3.0)",
                 "t.grad is {t.grad}, expected all 3")


@behaviour("MODE-3")
@needs("inplace")
@given(data=st.data())
def test_in_place_update_of_a_leaf_under_no_grad(engine, data):
    """The SGD idiom: under no_grad, w.add_(-lr * w.grad) on a leaf that requires grad is allowed;
    w stays a leaf that requires grad, without grad_fn, with the updated values."""
    shape = data.draw(st.lists(st.integers(1, 3), min_size=1, max_size=2).map(tuple), label="shape")
    start = data.draw(values(shape, "float64"), label="w")
    lr = data.draw(st.sampled_from([0.5, 0.25, 0.125]), label="lr")
    expected = literal(start - lr * 2 * start)      # d (w * w).sum() / dw = 2 w
    script = Script(engine)
    script.run(f"w = torch.tensor({start.tolist()!r}, requires_grad=True)",
               "(w * w).sum().backward()",
               *_under("torch.no_grad()", [f"w.add_(w.grad * -{lr})"]))
    script.check("w.is_leaf and w.grad_fn is None",
                 "w is no longer a leaf after the update in no_grad")
    script.check("w.requires_grad", "w no longer requires grad after the update in no_grad")
    script.check(f"np.allclose(to_numpy(w), {expected}, rtol=1e-5, atol=1e-5)",
                 f"w after the update is not {expected}", show=("to_numpy(w).tolist()",))


class _Level:
    """One of the nested modes: a grad-mode name of MODES, entered by `with` or by calling a
    function decorated with it, at `depth` (1 the outermost)."""

    def __init__(self, mode, how, depth):
        self.mode, self.how, self.depth = mode, how, depth

    def __repr__(self):
        return f"{self.mode} ({'decorated call' if self.how == 'call' else 'block'})"


def _entered(level, manager, body):
    """`body` run in the mode `manager`: as the body of a `with` block, or of a function decorated
    with it and called at once (the notes it makes, in nested blocks too, are globals that the
    checks read)."""
    if level.how == "with":
        return _under(manager, body)
    notes = [line.split(" = ")[0].strip() for line in body if " = " in line]
    function = f"level_{level.depth}"
    return [f"@{manager}", f"def {function}():", f"    global {', '.join(notes)}",
            *("    " + line for line in body), f"{function}()"]


def _observe_nested(levels, depth=0):
    """Script lines that enter the modes `levels[depth:]` one inside the other, noting in
    variables what is seen inside each and after leaving it, and the checks of those variables,
    in the order a newcomer reads them: (condition, message, the expressions a failure shows,
    behaviour)."""
    level = levels[depth]
    manager, flag = _mode(level.mode)
    number, where = depth + 1, " > ".join(map(repr, levels[:depth + 1]))
    # A set_grad_enabled block is MODE-5's (a context manager), a function decorated with it
    # MODE-11's; no_grad / enable_grad nested or as decorators, and restoring, MODE-4's.
    setting = level.mode.startswith("set_grad_enabled")
    inside = ("MODE-11" if level.how == "call" else "MODE-5") if setting else "MODE-4"
    body = [f"enabled_in_{number} = torch.is_grad_enabled()",
            f"recorded_in_{number} = (out * 2).requires_grad"]
    checks = [(f"enabled_in_{number} == {flag}",
               f"is_grad_enabled() inside {where} is not {flag}", (f"enabled_in_{number}",),
               inside),
              (f"recorded_in_{number} == {flag}",
               f"an op inside {where} should give requires_grad={flag}",
               (f"recorded_in_{number}",), inside)]
    if depth + 1 < len(levels):
        inner_lines, inner_checks = _observe_nested(levels, depth + 1)
        body += inner_lines
        checks += inner_checks
    body.append(f"enabled_at_end_of_{number} = torch.is_grad_enabled()")
    checks.append((f"enabled_at_end_of_{number} == {flag}",
                   f"at the end of {where}, is_grad_enabled() is not {flag}"
                   + (f" after leaving {levels[depth + 1]!r}" if depth + 1 < len(levels) else ""),
                   (f"enabled_at_end_of_{number}",), "MODE-4"))
    lines = _entered(level, manager, body) + [f"recorded_after_{number} = (out * 2).requires_grad"]
    enclosing = _mode(levels[depth - 1].mode)[1] if depth else True
    restoring = "MODE-11" if setting and level.how == "call" else "MODE-4"
    checks.append((f"recorded_after_{number} == {enclosing}",
                   f"mode not restored after leaving {where}", (f"recorded_after_{number}",),
                   restoring))
    return lines, checks


@behaviour("MODE-4", "MODE-5", "MODE-11")
@needs("grad_mode")
@given(depth=counts(NESTING_DEPTH), data=st.data())
def test_nested_grad_modes(engine, depth, data):
    """Grad modes nest, one to three deep, each entered by a `with` block or by calling a function
    decorated with it: inside each, is_grad_enabled() and whether new ops are recorded follow the
    innermost one (enable_grad re-enables inside no_grad), and leaving each (the block's end, the
    call's return) restores the mode of the one around it, checked at every level."""
    levels = [_Level(data.draw(st.sampled_from(MODES), label=f"mode {number}"),
                     data.draw(st.sampled_from(["with", "call"]), label=f"entered {number}"),
                     number) for number in range(1, depth + 1)]
    program = data.draw(programs(engine, requires_grad="all", max_ops=2), label="program")
    script = Script(engine)
    script.build(program)
    # One step runs the nested modes and notes what it sees, so that the mode is restored before
    # any check can fail; the checks then read the notes.
    lines, checks = _observe_nested(levels)
    script.run(*lines)
    for condition, message, shown, behaviour_id in checks:
        script.check(condition, message, show=shown, behaviour=behaviour_id)
    script.check("torch.is_grad_enabled()", "grad mode is not restored after the nested modes",
                 behaviour="MODE-4")


@behaviour("MODE-4")
@needs("grad_mode")
@given(data=st.data())
def test_leaving_a_block_restores_the_enclosing_mode(engine, data):
    """Leaving an inner block restores the mode of the block around it, not the default."""
    outer, inner = data.draw(st.tuples(st.sampled_from(MODES), st.sampled_from(MODES)),
                             label="outer, inner")
    (outer_manager, outer_flag), (inner_manager, inner_flag) = _mode(outer), _mode(inner)
    script = Script(engine)
    script.run("x = torch.tensor([1.0, 2.0], requires_grad=True)",
               *_under(outer_manager, [*_under(inner_manager, ["inner = torch.is_grad_enabled()"]),
                                       "outer = torch.is_grad_enabled()",
                                       "recorded = (x * 2).requires_grad"]))
    script.check(f"inner == {inner_flag}", f"inside {inner} within {outer}")
    script.check(f"outer == {outer_flag}", f"back in {outer} after leaving {inner}")
    script.check(f"recorded == {outer_flag}", f"an op back in {outer} after {inner}")
    script.check("torch.is_grad_enabled()", "grad mode is not restored after the blocks")


def _check_decorated(engine, decorator, flag, outer):
    """`decorator` (script source, e.g. `@torch.no_grad`) sets the mode `flag` for the whole call of
    the function it decorates, whatever the caller's mode `outer`; neither decorating nor calling
    changes the caller's mode."""
    __tracebackhide__ = True
    manager, outer_flag = _mode(outer)
    script = Script(engine)
    script.run("x = torch.tensor([1.0, 2.0], requires_grad=True)",
               *_under(manager, [decorator,
                                 "def double(t):",
                                 "    return t * 2, torch.is_grad_enabled()",
                                 "after_decorating = torch.is_grad_enabled()",
                                 "result, inside = double(x)",
                                 "after_call = torch.is_grad_enabled()"]))
    script.check(f"after_decorating == {outer_flag}", f"{decorator} changed the mode of {outer}")
    script.check(f"after_call == {outer_flag}", f"{decorator} leaked its mode into {outer}")
    script.check(f"inside == {flag}", f"is_grad_enabled() inside {decorator} is not {flag}",
                 show=("inside",))
    script.check(f"result.requires_grad == {flag}",
                 f"{decorator}: the result's requires_grad is not {flag}",
                 show=("result.requires_grad",))


@behaviour("MODE-4")
@needs("grad_mode")
@given(decorator=st.sampled_from(["no_grad", "enable_grad"]), outer=st.sampled_from(MODES))
def test_grad_modes_as_decorators(engine, decorator, outer):
    """@no_grad() and @enable_grad() set the mode for the whole call of the decorated function,
    whatever the caller's mode, and the caller's mode is restored afterwards."""
    _check_decorated(engine, f"@torch.{decorator}()", decorator == "enable_grad", outer)


@behaviour("MODE-10")
@needs("grad_mode")
@given(decorator=st.sampled_from(["no_grad", "enable_grad"]), outer=st.sampled_from(MODES))
def test_grad_mode_decorators_without_parentheses(engine, decorator, outer):
    """@no_grad and @enable_grad, without parentheses, work as they do with them."""
    _check_decorated(engine, f"@torch.{decorator}", decorator == "enable_grad", outer)


@behaviour("MODE-11")
@needs("grad_mode")
@given(flag=st.booleans(), outer=st.sampled_from(MODES))
def test_set_grad_enabled_as_a_decorator(engine, flag, outer):
    """@set_grad_enabled(flag) sets the mode for the calls of the decorated function only: although
    set_grad_enabled(flag) called as a function switches the mode at once (MODE-5), decorating
    with it leaves the caller's mode as it was."""
    _check_decorated(engine, f"@torch.set_grad_enabled({flag})", flag, outer)


@behaviour("MODE-5")
@needs("grad_mode")
@given(data=st.data())
def test_set_grad_enabled_as_a_function(engine, data):
    """set_grad_enabled(False) called as a plain function switches recording off until
    set_grad_enabled(True) switches it back on."""
    program = data.draw(programs(engine, ops=NON_VIEW_OPS, requires_grad="all", max_ops=3),
                        label="program")
    nodes = [node.name for node in program.nodes]
    script = Script(engine)
    # try/finally: the mode is switched back on even if building fails, not leaking into later
    # tests; the nodes built with grad disabled are kept in `off` (the program is built again).
    script.run("torch.set_grad_enabled(False)",
               "try:",
               "    enabled_while_off = torch.is_grad_enabled()",
               *("    " + line for line in program.script_lines()),
               "finally:",
               "    torch.set_grad_enabled(True)",
               "off = {" + ", ".join(f"{name!r}: {name}" for name in nodes) + "}")
    script.check("not enabled_while_off", "is_grad_enabled() after set_grad_enabled(False)")
    script.check("torch.is_grad_enabled()", "is_grad_enabled() after set_grad_enabled(True)")
    script.build(program)
    for name in nodes:
        script.check(f"not off[{name!r}].requires_grad", f"{name} recorded with grad disabled")
        script.check(f"{name}.requires_grad", f"{name} not recorded after re-enabling")


@behaviour("MODE-6")
@needs("inference_mode")
@given(data=st.data())
def test_inference_mode_results(engine, data):
    """Under inference_mode results of (non-view) ops do not require grad, have no grad_fn and
    are inference tensors; the inputs created outside are not."""
    program = data.draw(programs(engine, ops=NON_VIEW_OPS, requires_grad="all", max_ops=3),
                        label="program")
    script = Script(engine)
    script.build(program, wrap=lambda name, line: _under("torch.inference_mode()", [line]))
    for leaf in program.leaves:
        script.check(f"not {leaf.name}.is_inference()", f"{leaf.name} became an inference tensor")
    for node in program.nodes:
        script.check(f"not {node.name}.requires_grad and {node.name}.grad_fn is None",
                     f"{node.name} = {node.op}(...) under inference_mode is recorded")
        script.check(f"{node.name}.is_inference()",
                     f"{node.name} under inference_mode is not an inference tensor")


IN_PLACE_CHANGES = ("add_(1.0)", "mul_(2.0)", "zero_()")


@behaviour("MODE-6")
@needs("inference_mode", "views", "inplace")
@given(data=st.data(), change=st.sampled_from(IN_PLACE_CHANGES))
def test_views_and_in_place_results_of_normal_tensors_stay_normal(engine, data, change):
    """MODE-6's parenthetical: inside inference_mode, a view (chain) of a leaf made outside, and
    a copy made outside changed in place there, are normal tensors (is_inference() False), while
    a tensor made inside is an inference tensor."""
    program = data.draw(programs(engine, output="any", max_ops=3), label="program")
    leaf = data.draw(st.sampled_from(program.leaves), label="viewed leaf")  # contiguous
    name, chain = leaf.name, data.draw(view_chains(engine, leaf.values.shape), label="view chain")
    script = Script(engine)
    script.build(program)
    script.run(f"c = {name}.detach().clone()")
    script.run(*_under("torch.inference_mode()", [f"v = {name}{''.join(step.text for step in chain)}",
                                                  f"c.{change}", "made_inside = c * 1.0"]))
    script.check(f"not {name}.is_inference() and not v.is_inference()",
                 f"a view of {name} taken under inference_mode is an inference tensor")
    script.check("not c.is_inference()",
                 f"a normal tensor changed in place (c.{change}) under inference_mode became an "
                 "inference tensor")
    script.check("made_inside.is_inference()",
                 "c * 1.0 computed under inference_mode is not an inference tensor")


@behaviour("MODE-13")
@needs("inference_mode", "inplace")
@given(data=st.data(), change=st.sampled_from(IN_PLACE_CHANGES))
def test_inference_tensors_have_no_version_counter(engine, data, change):
    """Reading _version of an inference tensor raises RuntimeError, inside inference_mode and
    after it; a normal tensor keeps counting its in-place changes, also those made inside."""
    program = data.draw(programs(engine, output="any", max_ops=3), label="program")
    script = Script(engine)
    script.build(program)
    script.run("c = out.detach().clone()", "before = c._version",
               *_under("torch.inference_mode()", ["y = out * 1.0", f"c.{change}"]))
    script.raises("y._version")
    script.raises("with torch.inference_mode():\n    y._version")
    with script.control():
        script.check("c._version == before + 1",
                     f"c.{change} under inference_mode did not count in c's version counter",
                     show=("before", "c._version"))


# MODE-7: the uses of an inference tensor `y` that are refused outside inference_mode.
INFERENCE_REFUSALS = {
    "saved for backward (out * y)": "out * y",
    "saved for backward (y * out)": "y * out",
    "add_": "y.add_(1.0)",
    "mul_": "y.mul_(2.0)",
    "zero_": "y.zero_()",
    "requires_grad_()": "y.requires_grad_()",
    "requires_grad = True": "y.requires_grad = True",
}


@behaviour("MODE-7")
@needs("inference_mode", "inplace")
@given(data=st.data(), use=st.sampled_from(sorted(INFERENCE_REFUSALS)))
def test_inference_tensors_are_refused_where_autograd_would_track_them(engine, data, use):
    """Outside inference_mode, an inference tensor y cannot be saved for backward by a recorded op
    (out * y), modified in place, or made to require grad: each raises RuntimeError. An op that
    saves nothing of it may use it (out + y is recorded and differentiated), and inside
    inference_mode again it may be modified in place."""
    program = data.draw(programs(engine, output="any", max_ops=3), label="program")
    shape, dtype = program.output_shape(), program.dtype
    y = data.draw(values(shape, dtype), label="y")
    v = data.draw(cotangents(shape, dtype), label="gradient")
    script = Script(engine)
    script.build(program)
    script.run(*_under("torch.inference_mode()", [f"y = {tensor_literal(y, dtype)}"]))
    script.check("y.is_inference()", "a tensor made under inference_mode is not an inference tensor")
    script.raises(INFERENCE_REFUSALS[use])
    with script.control():
        script.run(*_under("torch.inference_mode()", ["y.mul_(2.0)"]))
        script.run("z = out + y", f"z.backward({tensor_literal(v, dtype)})")
        assert_leaf_grads(script, program, analytic_grads(program, v),
                          oracle="analytic (out + y saves nothing of y)")


INFERENCE_OFF = ("torch.inference_mode(False)", "torch.inference_mode(mode=False)")
# The blocks MODE-12's tests run in, and (recorded, inference tensor) for an op on x there.
ENCLOSING = {"": (True, False), "torch.inference_mode()": (False, True),
             "torch.no_grad()": (False, False)}
INFERENCE_DECORATORS = {"@torch.inference_mode": True, "@torch.inference_mode()": True,
                        "@torch.inference_mode(mode=True)": True,
                        "@torch.inference_mode(False)": False,
                        "@torch.inference_mode(mode=False)": False}


def _within(manager, lines):
    """`lines` inside `with <manager>:`, or as they are for no manager."""
    return _under(manager, lines) if manager else list(lines)


def _check_op_result(script, name, recorded, inference, where):
    """The script's `name`, x * 2 computed `where`, is recorded (requires grad) and an inference
    tensor as expected."""
    __tracebackhide__ = True
    script.check(f"{name}.requires_grad == {recorded}",
                 f"x * 2 {where}: requires_grad is not {recorded}",
                 show=(f"{name}.requires_grad",))
    script.check(f"{name}.is_inference() == {inference}",
                 f"x * 2 {where}: is_inference() is not {inference}",
                 show=(f"{name}.is_inference()",))


@behaviour("MODE-12")
@needs("inference_mode")
@given(outer=st.sampled_from(sorted(ENCLOSING)), off=st.sampled_from(INFERENCE_OFF))
def test_inference_mode_false_turns_grad_mode_on(engine, outer, off):
    """inference_mode(False) turns inference mode off and grad mode on, wherever it is entered
    (inside inference_mode, inside no_grad, at top level): x * 2 is recorded and is a normal
    tensor; leaving it restores the enclosing block's mode."""
    script = Script(engine)
    script.run("x = torch.tensor([1.0, 2.0], requires_grad=True)",
               *_within(outer, [*_under(off, ["inside = x * 2"]), "after = x * 2"]))
    where = f"inside {off}" + (f" within {outer}" if outer else "")
    _check_op_result(script, "inside", True, False, where)
    _check_op_result(script, "after", *ENCLOSING[outer], f"after leaving {where}")


@behaviour("MODE-12")
@needs("inference_mode")
@given(decorator=st.sampled_from(sorted(INFERENCE_DECORATORS)),
       outer=st.sampled_from(sorted(ENCLOSING)))
def test_inference_mode_as_a_decorator(engine, decorator, outer):
    """inference_mode decorates a function with or without parentheses, and with mode=False: the
    calls run in that mode whatever the caller's, and the caller's mode is restored after."""
    on = INFERENCE_DECORATORS[decorator]
    script = Script(engine)
    script.run("x = torch.tensor([1.0, 2.0], requires_grad=True)",
               *_within(outer, [decorator, "def double(t):", "    return t * 2",
                                "result = double(x)", "after = x * 2"]))
    where = f"in a function decorated {decorator}" + (f", called within {outer}" if outer else "")
    _check_op_result(script, "result", not on, on, where)
    _check_op_result(script, "after", *ENCLOSING[outer], f"after calling it within {outer or 'no block'}")


@behaviour("MODE-8")
@given(data=st.data())
def test_backward_inside_no_grad_still_works(engine, data):
    """no_grad only stops recording new ops: backward on a graph built before it gives the usual
    gradients."""
    program = data.draw(programs(engine), label="program")
    script = Script(engine)
    script.build(program)
    script.run(*_under("torch.no_grad()", ["out.backward()"]))
    assert_leaf_grads(script, program, analytic_grads(program),
                      oracle="analytic")


@behaviour("MODE-9")
@given(data=st.data())
def test_values_computed_under_no_grad_are_constants(engine, data):
    """A node computed under no_grad is a constant for the rest of the program: the gradients
    equal the analytic gradients of the program with that node held at its value, and leaves
    reached only through such nodes get no gradient."""
    program = data.draw(programs(engine, candidates=recorded_intermediates), label="program")
    frozen = data.draw(st.sets(st.sampled_from(recorded_intermediates(program)), min_size=1),
                       label="under no_grad")
    event(f"nodes under no_grad: {len(frozen)}")
    assert_grads_with_nodes_held_constant(
        Script(engine), program, frozen,
        lambda name, line: _under("torch.no_grad()", [line]), how="computed under torch.no_grad()")


# MODE-16: what a generator's body sees in each mode, and the caller's mode as a block to resume
# it from ("" for none), with the grad flag of each.
GENERATOR_DECORATORS = {"@torch.no_grad()": False, "@torch.enable_grad()": True,
                        "@torch.set_grad_enabled(False)": False,
                        "@torch.set_grad_enabled(True)": True}
CALLERS = {"": True, **dict(_mode(name) for name in MODES)}
GRAD_SEEN = "(torch.is_grad_enabled(), ({0} * 2).requires_grad)"
INFERENCE_SEEN = "(({0} * 2).requires_grad, ({0} * 2).is_inference())"


def _resume_decorated_generator(engine, decorator, callers, seen):
    """A script whose generator, decorated with `decorator`, yields `seen` of its argument at each
    resumption; it is resumed by next() once from within each block of `callers`, noting what it
    yields (`inside`) and `seen` of the caller's tensor right after (`between`), then exhausted."""
    resumptions = [line for caller in callers for line in _within(caller, [
        "inside.append(next(generator))", f"between.append({seen.format('x')})"])]
    script = Script(engine)
    script.run("x = torch.tensor([1.0, 2.0], requires_grad=True)",
               decorator, "def steps(t):", f"    for _ in range({len(callers)}):",
               f"        yield {seen.format('t')}",
               "generator = steps(x)", "inside, between = [], []", *resumptions,
               "leftover = list(generator)")
    return script


def _check_resumptions(script, decorator, callers, inside, between):
    """Each resumption saw `inside`; the caller, right after it, saw `between(caller)`."""
    __tracebackhide__ = True
    for i, caller in enumerate(callers):
        where = f"within {caller}" if caller else "at top level"
        script.check(f"inside[{i}] == {inside!r}",
                     f"resumption {i} ({where}) of a generator decorated {decorator} ran in the "
                     f"wrong mode", show=(f"inside[{i}]",))
        script.check(f"between[{i}] == {between(caller)!r}",
                     f"after resumption {i} ({where}) the caller is not in its own mode",
                     show=(f"between[{i}]",))
    script.check("leftover == [] and torch.is_grad_enabled()",
                 "the exhausted generator left the caller's mode changed or yielded more",
                 show=("leftover",))


@behaviour("MODE-16")
@needs("grad_mode")
@given(decorator=st.sampled_from(sorted(GENERATOR_DECORATORS)),
       callers=st.lists(st.sampled_from(sorted(CALLERS)), min_size=1, max_size=4))
def test_grad_mode_decorators_hold_across_generator_yields(engine, decorator, callers):
    """A generator decorated with no_grad(), enable_grad() or set_grad_enabled(flag) runs in that
    mode at every next(), whatever block the caller resumes it from, and between the calls the
    caller is in its own mode, not the generator's."""
    flag = GENERATOR_DECORATORS[decorator]
    script = _resume_decorated_generator(engine, decorator, callers, GRAD_SEEN)
    _check_resumptions(script, decorator, callers, (flag, flag),
                       lambda caller: (CALLERS[caller], CALLERS[caller]))


@behaviour("MODE-16")
@needs("grad_mode")
@given(decorator=st.sampled_from(sorted(GENERATOR_DECORATORS)),
       caller=st.sampled_from(sorted(CALLERS)))
def test_a_decorated_generator_closes_in_its_mode(engine, decorator, caller):
    """Closing a decorated generator before it ends runs its cleanup (a finally block) in the
    decorator's mode too, and the caller stays in its own."""
    where = f"within {caller}" if caller else "at top level"
    script = Script(engine)
    script.run(decorator, "def steps():", "    try:", "        while True:",
               "            yield torch.is_grad_enabled()", "    finally:",
               "        cleanup.append(torch.is_grad_enabled())",
               "cleanup = []", "generator = steps()", "first = next(generator)",
               *_within(caller, ["generator.close()", "after = torch.is_grad_enabled()"]))
    script.check_equal("cleanup", [GENERATOR_DECORATORS[decorator]],
                       why=f"close() {where} of a generator decorated {decorator}")
    script.check_equal("after", CALLERS[caller], why=f"the caller's own mode, {where}")


@behaviour("MODE-16")
@needs("grad_mode")
@given(decorator=st.sampled_from(sorted(GENERATOR_DECORATORS)),
       resumptions=st.lists(st.tuples(st.sampled_from(["send", "throw"]),
                                      st.sampled_from(sorted(CALLERS))), min_size=1, max_size=4))
def test_a_decorated_generator_resumed_by_send_or_throw_runs_in_its_mode(engine, decorator,
                                                                         resumptions):
    """After a first next(), a decorated generator is resumed by send(k), whose k its yield
    returns, or by throw(ValueError), raised at its yield and caught there: its body runs in the
    decorator's mode either way, and between resumptions the caller is in its own mode."""
    flag = GENERATOR_DECORATORS[decorator]
    steps = [line for k, (how, caller) in enumerate(resumptions) for line in _within(caller, [
        f"generator.send({k})" if how == "send" else f"generator.throw(ValueError('{k}'))",
        f"between.append({GRAD_SEEN.format('x')})"])]
    script = Script(engine)
    seen = GRAD_SEEN.format("t")
    script.run("x = torch.tensor([1.0, 2.0], requires_grad=True)",
               decorator, "def steps(t):", "    while True:", "        try:",
               "            sent = yield", f"            received.append((sent, {seen}))",
               "        except ValueError as error:",
               f"            received.append((str(error), {seen}))",
               "generator = steps(x)", "received, between = [], []", "next(generator)", *steps)
    for k, (how, caller) in enumerate(resumptions):
        where = f"within {caller}" if caller else "at top level"
        got = k if how == "send" else str(k)
        script.check(f"received[{k}] == {(got, (flag, flag))!r}",
                     f"{how}() {where} of a generator decorated {decorator}: the generator did "
                     f"not get {got!r} in its mode", show=(f"received[{k}:{k + 1}]",))
        script.check(f"between[{k}] == {(CALLERS[caller], CALLERS[caller])!r}",
                     f"after {how}() {where} the caller is not in its own mode",
                     show=(f"between[{k}]",))


@behaviour("MODE-16")
@needs("inference_mode")
@given(decorator=st.sampled_from(["@torch.inference_mode()", "@torch.inference_mode(False)"]),
       callers=st.lists(st.sampled_from(sorted(ENCLOSING)), min_size=1, max_size=4))
def test_inference_mode_decorator_holds_across_generator_yields(engine, decorator, callers):
    """A generator decorated with inference_mode(mode) makes results that are (or are not)
    inference tensors at every next(), and between the calls the caller's results are its own
    block's."""
    on = decorator == "@torch.inference_mode()"
    script = _resume_decorated_generator(engine, decorator, callers, INFERENCE_SEEN)
    _check_resumptions(script, decorator, callers, (not on, on),
                       lambda caller: ENCLOSING[caller])
