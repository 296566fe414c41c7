"""Tensor hooks see the gradient flowing into a tensor and may replace it; the replacement flows
on to the tensor's inputs (HOOK-*)."""

import numpy as np
import pytest
from hypothesis import event, given, strategies as st

from autograd_conformance.harness.checks import (build, grad_or_none, held_constant, raises_runtime_error,
                            run_transformed)
from autograd_conformance.harness.oracles import assert_close, finite_difference_grads
from autograd_conformance.harness.strategies import programs, recorded_intermediates

behaviour = pytest.mark.behaviour
needs = pytest.mark.needs

FACTORS = st.sampled_from([0.0, 2.0, -1.0, 10.0])


def _hooked_node(engine, data):
    """A program with a node to hook (one that requires grad, feeds the output and is not the
    output), and that node's name."""
    program = data.draw(programs(engine, candidates=recorded_intermediates), label="program")
    return program, data.draw(st.sampled_from(recorded_intermediates(program)), label="hooked node")


@behaviour("HOOK-1")
@needs("hooks")
@given(data=st.data(), factor=FACTORS)
def test_leaf_hook_sees_the_gradient_and_replaces_it(engine, data, factor):
    """A hook on a leaf receives d out / d leaf; the tensor it returns is stored in .grad."""
    program = data.draw(programs(engine), label="program")
    leaf = data.draw(st.sampled_from(program.grad_leaves()), label="leaf")
    tensors = build(program, engine, f"{leaf.name}.register_hook(lambda g: g * {factor})",
                    "out.backward()")
    seen = []

    def hook(grad):
        seen.append(engine.to_numpy(grad))
        return grad * factor

    tensors[leaf.name].register_hook(hook)
    tensors[program.output].backward()
    expected = finite_difference_grads(program)[leaf.name]
    assert len(seen) == 1, f"the hook ran {len(seen)} times in one backward"
    assert_close(seen[0], expected, dtype=program.dtype, oracle="finite-difference",
                 what=f"the gradient the hook on {leaf.name} saw")
    assert_close(grad_or_none(engine, tensors[leaf.name]), factor * expected,
                 dtype=program.dtype, oracle=f"finite-difference x {factor} (hook result)",
                 what=f"{leaf.name}.grad")


@behaviour("HOOK-2")
@needs("hooks")
@given(data=st.data(), factor=FACTORS)
def test_non_leaf_hook_result_flows_to_the_inputs(engine, data, factor):
    """A hook on an intermediate h that returns g * k scales what flows through h: leaf gradients
    are (paths around h) + k * (paths through h)."""
    program, hooked = _hooked_node(engine, data)

    def around(name, compute):
        tensor = compute()
        if name == hooked:
            tensor.register_hook(lambda grad: grad * factor)
        return tensor

    tensors = run_transformed(program, engine, around,
                              f"# {hooked}.register_hook(lambda g: g * {factor}) right after it "
                              f"is computed", "out.backward()")
    tensors[program.output].backward()
    full = finite_difference_grads(program)
    around_only = finite_difference_grads(held_constant(program, [hooked]))
    for leaf in program.grad_leaves():
        base = around_only.get(leaf.name, np.zeros_like(full[leaf.name]))
        assert_close(grad_or_none(engine, tensors[leaf.name]),
                     base + factor * (full[leaf.name] - base), dtype=program.dtype,
                     oracle=f"finite-difference, paths through {hooked} x {factor}",
                     what=f"{leaf.name}.grad")


@behaviour("HOOK-3")
@needs("hooks")
@given(data=st.data(), factor=FACTORS, retain_first=st.booleans())
def test_retained_grad_is_the_hook_result(engine, data, factor, retain_first):
    """retain_grad() on a hooked non-leaf stores the hook's result, whichever was called first."""
    program, hooked = _hooked_node(engine, data)
    tensors = build(program, engine, f"# {hooked}.retain_grad() and "
                    f"{hooked}.register_hook(lambda g: g * {factor}), "
                    f"{'retain_grad first' if retain_first else 'hook first'}", "out.backward()")
    h = tensors[hooked]
    if retain_first:
        h.retain_grad()
    h.register_hook(lambda grad: grad * factor)
    if not retain_first:
        h.retain_grad()
    tensors[program.output].backward()
    expected = finite_difference_grads(program, wrt=[hooked])[hooked]
    assert_close(grad_or_none(engine, h), factor * expected, dtype=program.dtype,
                 oracle=f"finite-difference x {factor}", what=f"{hooked}.grad")


@behaviour("HOOK-4")
@needs("hooks")
@given(data=st.data())
def test_removed_hooks_do_not_run(engine, data):
    """handle.remove() unregisters a hook: it neither runs nor changes the gradient."""
    program = data.draw(programs(engine), label="program")
    leaf = data.draw(st.sampled_from(program.grad_leaves()), label="leaf")
    tensors = build(program, engine, f"h = {leaf.name}.register_hook(lambda g: g * 10)",
                    "h.remove()", "out.backward()")
    calls = []
    handle = tensors[leaf.name].register_hook(lambda grad: calls.append(1) or grad * 10)
    handle.remove()
    tensors[program.output].backward()
    assert not calls, "a removed hook ran"
    assert_close(grad_or_none(engine, tensors[leaf.name]), finite_difference_grads(program)[leaf.name],
                 dtype=program.dtype, oracle="finite-difference", what=f"{leaf.name}.grad")


@behaviour("HOOK-5")
@needs("hooks")
@given(data=st.data())
def test_hooks_need_requires_grad(engine, data):
    """register_hook on a tensor that does not require grad raises RuntimeError."""
    program = data.draw(programs(engine, requires_grad="none", output="any"), label="program")
    name = data.draw(st.sampled_from([leaf.name for leaf in program.leaves]
                                     + [node.name for node in program.nodes]), label="tensor")
    tensors = build(program, engine, f"{name}.register_hook(lambda g: g)  # must raise")
    with raises_runtime_error():
        tensors[name].register_hook(lambda grad: grad)


@behaviour("HOOK-6")
@needs("hooks")
@given(data=st.data(), shift=st.sampled_from([1.0, -2.0]), factor=st.sampled_from([10.0, -3.0]),
       add_first=st.booleans())
def test_hooks_chain_in_registration_order(engine, data, shift, factor, add_first):
    """Several hooks run in registration order, each on the previous one's result."""
    program = data.draw(programs(engine), label="program")
    leaf = data.draw(st.sampled_from(program.grad_leaves()), label="leaf")
    hooks = [lambda grad: grad + shift, lambda grad: grad * factor]
    if not add_first:
        hooks.reverse()
    tensors = build(program, engine, f"# {leaf.name}: hooks g + {shift} and g * {factor}, "
                    f"{'add' if add_first else 'multiply'} first", "out.backward()")
    for hook in hooks:
        tensors[leaf.name].register_hook(hook)
    tensors[program.output].backward()
    g = finite_difference_grads(program)[leaf.name]
    expected = (g + shift) * factor if add_first else g * factor + shift
    assert_close(grad_or_none(engine, tensors[leaf.name]), expected, dtype=program.dtype,
                 oracle="finite-difference through both hooks in order", what=f"{leaf.name}.grad")


@behaviour("HOOK-7")
@needs("hooks")
@given(data=st.data(), passes=st.integers(2, 3))
def test_leaf_hooks_apply_per_backward_before_accumulation(engine, data, passes):
    """A leaf hook transforms each pass's gradient before it is added to .grad: k passes with
    hook g * 2 + 1 accumulate k * (2 g + 1)."""
    program = data.draw(programs(engine), label="program")
    leaf = data.draw(st.sampled_from(program.grad_leaves()), label="leaf")
    tensors = build(program, engine, f"{leaf.name}.register_hook(lambda g: g * 2 + 1)",
                    *["out.backward(retain_graph=True)"] * passes)
    tensors[leaf.name].register_hook(lambda grad: grad * 2 + 1)
    for _ in range(passes):
        tensors[program.output].backward(retain_graph=True)
    g = finite_difference_grads(program)[leaf.name]
    assert_close(grad_or_none(engine, tensors[leaf.name]), passes * (2 * g + 1),
                 dtype=program.dtype, oracle=f"{passes} x (2 g + 1)", what=f"{leaf.name}.grad")


@behaviour("HOOK-10")
@needs("hooks")
@given(data=st.data(), uses=st.integers(2, 4))
def test_a_tensor_used_several_times_fires_its_hook_once(engine, data, uses):
    """A hooked tensor used several times gets one hook call, with the summed gradient."""
    program = data.draw(programs(engine), label="program")
    tensors = build(program, engine, "calls = []", "out.register_hook(calls.append)",
                    f"sum(out * {list(range(1, uses + 1))}[i] for i in range({uses})).backward()")
    out = tensors[program.output]
    event(f"hooked output is a leaf: {program.output in {leaf.name for leaf in program.leaves}}")
    assert out.requires_grad, "out does not require grad, but a leaf on its path does"
    calls = []
    out.register_hook(lambda grad: calls.append(engine.to_numpy(grad)))
    total = out * 1.0
    for weight in range(2, uses + 1):
        total = total + out * float(weight)
    total.sum().backward()
    assert len(calls) == 1, f"the hook on a tensor used {uses} times ran {len(calls)} times"
    expected = uses * (uses + 1) / 2
    assert np.allclose(calls[0], expected), f"the hook saw {calls[0]}, expected {expected}"
