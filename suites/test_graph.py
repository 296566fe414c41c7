"""The recorded graph: grad_fn is None exactly for leaves, next_functions lead to an AccumulateGrad
node for every leaf that requires grad, and torch's node class names (LEAF-2, GFN-*)."""

import pytest
from hypothesis import event, given, strategies as st

from autograd_conformance.harness.checks import build, record_reproducer
from autograd_conformance.harness.ops import OPS
from autograd_conformance.harness.strategies import (ALL_OPS, computed_output,
                                                     op_applications, programs)

behaviour = pytest.mark.behaviour
needs = pytest.mark.needs


def _walk(root):
    """Every node reachable from `root` through next_functions (identity-deduplicated)."""
    seen, stack = {}, [root]
    while stack:
        node = stack.pop()
        if node is None or id(node) in seen:
            continue
        seen[id(node)] = node
        stack.extend(child for child, _ in node.next_functions)
    return list(seen.values())


@behaviour("LEAF-2")
@given(data=st.data())
def test_grad_fn_is_none_exactly_for_leaves(engine, data):
    """Every tensor is a leaf exactly when its grad_fn is None; op results that do not require
    grad are leaves too."""
    requires_grad = data.draw(st.sampled_from(["none", "some"]), label="leaves requiring grad")
    program = data.draw(programs(engine, output="any", requires_grad=requires_grad),
                        label="program")
    tensors = build(program, engine)
    for name, tensor in tensors.items():
        assert bool(tensor.is_leaf) == (tensor.grad_fn is None), (
            f"{name}: is_leaf={tensor.is_leaf} but grad_fn={tensor.grad_fn!r}")
    for node in program.nodes:
        if not program.requires_grad(node.name):
            assert tensors[node.name].is_leaf, (
                f"{node.name} = {node.op}(...) does not require grad but is not a leaf")


@behaviour("GFN-3", "GFN-4")
@needs("graph")
@given(data=st.data())
def test_next_functions_reach_an_accumulate_grad_per_leaf(engine, data):
    """Walking next_functions from the output's grad_fn reaches one AccumulateGrad node for each
    leaf that requires grad and feeds the output, whose .variable is that leaf, and whose
    next_functions are empty; leaves that do not require grad have no node."""
    program = data.draw(programs(engine, output="any", candidates=computed_output),
                        label="program")
    tensors = build(program, engine, "# walk out.grad_fn.next_functions")
    out = tensors[program.output]
    assert out.grad_fn is not None, (
        "out is computed from a leaf that requires grad, but has no grad_fn")
    nodes = _walk(out.grad_fn)
    accumulators = [node for node in nodes if hasattr(node, "variable")]
    variables = [node.variable for node in accumulators]
    for leaf in program.leaves:
        tensor = tensors[leaf.name]
        count = sum(variable is tensor for variable in variables)
        if leaf.name in {grad_leaf.name for grad_leaf in program.grad_leaves()}:
            assert count == 1, (f"{leaf.name} requires grad and feeds the output, but "
                                f"{count} AccumulateGrad nodes point at it")
        else:
            assert count == 0, f"{leaf.name} does not take part or require grad, but has a node"
    for node in accumulators:
        assert tuple(node.next_functions) == (), "an AccumulateGrad node has next_functions"


@behaviour("GFN-3")
@needs("graph")
@given(data=st.data())
def test_next_functions_point_at_the_inputs_nodes(engine, data):
    """A node's next_functions has one (node, index) pair per tensor input: the input's grad_fn
    for a non-leaf, an AccumulateGrad of the input for a leaf that requires grad, None for an
    input that does not require grad."""
    program = data.draw(programs(engine, output="any"), label="program")
    tensors = build(program, engine)
    for node in program.nodes:
        grad_fn = tensors[node.name].grad_fn
        if grad_fn is None or node.op == "reshape":
            continue  # torch's reshape of a non-contiguous input records a copy node in between
        pairs = tuple(grad_fn.next_functions)
        assert len(pairs) == len(node.args), (
            f"{node.name} = {node.op}({', '.join(node.args)}): next_functions has {len(pairs)} "
            f"entries")
        for arg, (child, _) in zip(node.args, pairs):
            tensor = tensors[arg]
            if not program.requires_grad(arg):
                assert child is None, f"{node.name}: input {arg} does not require grad"
            elif tensor.grad_fn is not None:
                assert child is tensor.grad_fn, f"{node.name}: input {arg}'s entry is not its grad_fn"
            else:
                assert child is not None and child.variable is tensor, (
                    f"{node.name}: input {arg}'s entry is not an AccumulateGrad of {arg}")


@behaviour("GFN-1")
@needs("grad_fn_names")
@given(data=st.data(), op=st.sampled_from(ALL_OPS))
def test_grad_fn_class_names(engine, data, op):
    """Each op of the op set, applied to leaves that require grad, records a node whose class
    name is torch's (AddBackward0, MmBackward0, SumBackward1, SelectBackward0, ...)."""
    program = data.draw(op_applications(engine, op), label="program")
    (node,) = program.nodes
    event(f"{op} parameter: {node.param}")
    tensors = build(program, engine, f"type({node.name}.grad_fn).__name__")
    expected = OPS[node.op].grad_fn_name(node.param)
    got = type(tensors[node.name].grad_fn).__name__
    assert got == expected, f"{node.name} = {node.op}(...) has grad_fn {got}, torch's is {expected}"
    if engine.has("graph"):
        assert tensors[node.name].grad_fn.name() == expected, "grad_fn.name() differs"


@behaviour("GFN-6")
@needs("grad_fn_names", "inplace")
def test_index_assignment_records_copy_slices(ag):
    """Assigning a value that requires grad into a slice of a plain tensor makes it a non-leaf
    whose grad_fn is CopySlices."""
    record_reproducer("m = torch.tensor([[2., 3.]], requires_grad=True)\nn = torch.zeros(1, 2)\n"
                      "n[0, 0] = m[0, 0] ** 2\ntype(n.grad_fn).__name__")
    m = ag.tensor([[2.0, 3.0]], requires_grad=True)
    n = ag.zeros(1, 2)
    n[0, 0] = m[0, 0] ** 2
    assert not n.is_leaf and n.requires_grad
    assert type(n.grad_fn).__name__ == "CopySlices", type(n.grad_fn).__name__
