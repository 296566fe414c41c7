"""Changing requires_grad: allowed on leaves (in place), refused on non-leaves; detach() then
requires_grad_() starts a new graph; backward on a leaf itself (REQ-5, REQ-6, REQ-7, REQ-13)."""

import numpy as np
import pytest
from hypothesis import event, given, strategies as st

from autograd_conformance.harness.checks import (build, engine_tensor, grad_or_none, held_constant,
                            raises_runtime_error, record_reproducer, run_transformed)
from autograd_conformance.harness.oracles import assert_close, finite_difference_grads
from autograd_conformance.harness.strategies import (computed_output, cotangents,
                                                     programs, shapes)

behaviour = pytest.mark.behaviour
needs = pytest.mark.needs

NON_LEAF_CHANGES = {
    "y.requires_grad = False": lambda y: setattr(y, "requires_grad", False),
    "y.requires_grad = True": lambda y: setattr(y, "requires_grad", True),
    "y.requires_grad_(False)": lambda y: y.requires_grad_(False),
}


def _recorded(program):
    """Nodes that require grad: non-leaves."""
    return [node for node in program.nodes if program.requires_grad(node.name)]


def _inner_nodes(program):
    """Names of nodes that feed the output and are not the output."""
    return [node.name for node in program.nodes
            if node.name in program.ancestors() and node.name != program.output]


@behaviour("REQ-5")
@given(data=st.data(), how=st.sampled_from(["requires_grad_()", "requires_grad = True"]))
def test_switching_leaves_to_require_grad(engine, data, how):
    """requires_grad_() (or assigning requires_grad = True) on a leaf turns it on in place: the
    same object, still a leaf, now recorded, and it receives its gradient."""
    program = data.draw(programs(engine, requires_grad="none"), label="program")
    used = [leaf for leaf in program.leaves if leaf.name in program.ancestors()]
    switched = data.draw(st.sets(st.sampled_from([leaf.name for leaf in used]), min_size=1),
                         label="switched on")
    record_reproducer(program.to_script(*[f"{name}.{how}  # before the ops"
                                          for name in sorted(switched)], "out.backward()"))
    leaves = {}
    for leaf in program.leaves:
        tensor = engine_tensor(engine, leaf.values, program.dtype)
        if leaf.name in switched:
            if how == "requires_grad_()":
                assert tensor.requires_grad_() is tensor, "requires_grad_() returned a new object"
            else:
                tensor.requires_grad = True
            assert tensor.requires_grad and tensor.is_leaf, f"{leaf.name}.{how} on a leaf"
        leaves[leaf.name] = tensor
    tensors = program.run_on(engine, given=leaves)
    tensors[program.output].backward()
    flagged = program.with_requires_grad({name: True for name in switched})
    expected = finite_difference_grads(flagged)
    for name in switched:
        assert_close(grad_or_none(engine, leaves[name]), expected[name], dtype=program.dtype,
                     oracle="finite-difference", what=f"{name}.grad")


@behaviour("REQ-5")
@given(data=st.data())
def test_switching_leaves_off(engine, data):
    """requires_grad_(False) on a leaf turns recording off: ops on it no longer require grad."""
    program = data.draw(programs(engine, requires_grad="all", max_ops=1), label="program")
    leaf = program.leaves[0]
    tensors = build(program, engine, f"{leaf.name}.requires_grad_(False)")
    tensor = tensors[leaf.name]
    assert tensor.requires_grad_(False) is tensor, "requires_grad_(False) returned a new object"
    assert not tensor.requires_grad and tensor.is_leaf
    assert not (tensor * 2).requires_grad, f"{leaf.name} * 2 requires grad after requires_grad_(False)"


@behaviour("REQ-6")
@given(data=st.data(), change=st.sampled_from(sorted(NON_LEAF_CHANGES)))
def test_changing_requires_grad_of_a_non_leaf_raises(engine, data, change):
    """Only leaves' flags can change: on a non-leaf, assigning requires_grad (either value) or
    calling requires_grad_(False) raises RuntimeError and leaves it recorded."""
    program = data.draw(programs(engine, output="any", candidates=_recorded), label="program")
    node = data.draw(st.sampled_from(_recorded(program)), label="non-leaf")
    event(f"changed the output itself: {node.name == program.output}")
    tensors = build(program, engine, f"y = {node.name}", f"{change}  # must raise")
    y = tensors[node.name]
    with raises_runtime_error():
        NON_LEAF_CHANGES[change](y)
    assert y.requires_grad and not y.is_leaf, f"{change} changed the non-leaf although it raised"


@behaviour("REQ-6")
@given(data=st.data())
def test_requires_grad_true_on_a_non_leaf_is_a_no_op(engine, data):
    """requires_grad_(True) on a non-leaf (which already requires grad) silently does nothing."""
    program = data.draw(programs(engine, candidates=computed_output), label="program")
    out = build(program, engine, "out.requires_grad_(True)", "out.backward()")[program.output]
    assert not out.is_leaf, "out is computed from a leaf that requires grad, but is a leaf"
    assert out.requires_grad_(True) is out
    assert out.requires_grad and not out.is_leaf and out.grad_fn is not None


@behaviour("MSG-5")
@needs("messages")
@given(data=st.data())
def test_non_leaf_requires_grad_message(engine, data):
    program = data.draw(programs(engine, requires_grad="all", candidates=computed_output),
                        label="program")
    out = build(program, engine, "out.requires_grad = False")[program.output]
    assert not out.is_leaf, "out is computed from leaves that require grad, but is a leaf"
    with raises_runtime_error("you can only change requires_grad flags of leaf variables."):
        out.requires_grad = False


@behaviour("REQ-7")
@given(data=st.data())
def test_detach_then_requires_grad_starts_a_new_graph(engine, data):
    """h.detach().requires_grad_() is a new leaf: the rest of the program differentiates into it
    (its grad is d out / d h) and nothing flows past it to h's inputs."""
    program = data.draw(programs(engine, candidates=_inner_nodes), label="program")
    cut = data.draw(st.sampled_from(_inner_nodes(program)), label="cut")
    event(f"the cut node requires grad: {program.requires_grad(cut)}")
    new_leaf = {}

    def around(name, compute):
        if name != cut:
            return compute()
        new_leaf[name] = compute().detach().requires_grad_()
        return new_leaf[name]

    tensors = run_transformed(program, engine, around,
                              f"# {cut} = {cut}.detach().requires_grad_() right after it is "
                              f"computed", "out.backward()")
    fresh = new_leaf[cut]
    assert fresh.is_leaf and fresh.grad_fn is None and fresh.requires_grad
    tensors[program.output].backward()
    expected = finite_difference_grads(program, wrt=[cut])[cut]
    assert_close(grad_or_none(engine, fresh), expected, dtype=program.dtype,
                 oracle="finite-difference with respect to the cut node", what=f"{cut}.grad")
    upstream = finite_difference_grads(held_constant(program, [cut]))
    for leaf in program.leaves:
        grad = grad_or_none(engine, tensors[leaf.name])
        if leaf.name in upstream:
            assert_close(grad, upstream[leaf.name], dtype=program.dtype,
                         oracle="finite-difference with the cut node held constant",
                         what=f"{leaf.name}.grad")
        else:
            assert grad is None, f"{leaf.name} is only behind the cut, but got .grad {grad}"


@behaviour("REQ-13")
@given(shape=st.sampled_from([(), (1,), (1, 1)]), passes=st.integers(1, 3))
def test_backward_on_a_one_element_leaf_accumulates_ones(engine, ag, shape, passes):
    """backward() on a leaf that requires grad adds 1 to its .grad per call; there is no graph to
    free, so it can be repeated without retain_graph."""
    record_reproducer(f"x = torch.zeros({shape}, requires_grad=True)\n"
                      + "x.backward()\n" * passes)
    x = ag.zeros(*shape, requires_grad=True) if shape else ag.tensor(0.0, requires_grad=True)
    for _ in range(passes):
        x.backward()
    grad = grad_or_none(engine, x)
    assert grad is not None and grad.shape == shape and np.all(grad == passes), (
        f"x.grad after {passes} x.backward() is {grad}, expected {passes} with shape {shape}")


@behaviour("REQ-13")
@given(shape=shapes(min_dims=1), data=st.data())
def test_backward_on_a_leaf_with_gradient_stores_the_gradient(engine, shape, data):
    """x.backward(v) on a leaf stores v itself in x.grad (the Jacobian is the identity)."""
    dtype = data.draw(st.sampled_from(["float32", "float64"] if engine.has("float64")
                                      else ["float32"]), label="dtype")
    v = data.draw(cotangents(shape, dtype), label="gradient")
    record_reproducer(f"x = torch.zeros({shape}, dtype=torch.{dtype}, requires_grad=True)\n"
                      f"x.backward(torch.tensor({v.tolist()!r}, dtype=torch.{dtype}))")
    x = engine_tensor(engine, np.zeros(shape), dtype, requires_grad=True)
    x.backward(engine_tensor(engine, v, dtype))
    assert_close(grad_or_none(engine, x), v, dtype=dtype, oracle="identity", what="x.grad")
