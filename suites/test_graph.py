"""The recorded graph: grad_fn is None exactly for leaves, next_functions lead to an AccumulateGrad
node for every leaf that requires grad, and torch's node class names (LEAF-2, GFN-*)."""

import numpy as np
import pytest
from hypothesis import event, given
from hypothesis import strategies as st

from autograd_conformance.harness.ops import OPS
from autograd_conformance.harness.script import Script, literal
from autograd_conformance.harness.strategies import (
    computed_output,
    engine_ops,
    float_dtypes,
    op_applications,
    programs,
    shapes,
    values,
)

behaviour = pytest.mark.behaviour
needs = pytest.mark.needs

# A script step: every node reachable from a grad_fn through next_functions.
WALK = '''\
def walk(root):
    """Every node reachable from `root` through next_functions (identity-deduplicated)."""
    seen, stack = {}, [root]
    while stack:
        node = stack.pop()
        if node is None or id(node) in seen:
            continue
        seen[id(node)] = node
        stack.extend(child for child, _ in node.next_functions)
    return list(seen.values())'''


@behaviour("LEAF-2")
@given(data=st.data())
def test_grad_fn_is_none_exactly_for_leaves(engine, data):
    """Every tensor is a leaf exactly when its grad_fn is None; op results that do not require
    grad are leaves too."""
    requires_grad = data.draw(st.sampled_from(["none", "some"]), label="leaves requiring grad")
    program = data.draw(programs(engine, output="any", requires_grad=requires_grad),
                        label="program")
    script = Script(engine)
    script.build(program)
    for name in program.variables():
        script.check(f"bool({name}.is_leaf) == ({name}.grad_fn is None)",
                     f"{name}: is_leaf does not say whether grad_fn is None",
                     show=(f"{name}.is_leaf", f"{name}.grad_fn"))
    for node in program.nodes:
        if not program.requires_grad(node.name):
            script.check(f"{node.name}.is_leaf",
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
    grad_leaves = {leaf.name for leaf in program.grad_leaves()}
    script = Script(engine, behaviour="GFN-4")
    script.build(program)
    script.check("out.grad_fn is not None",
                 "out is computed from a leaf that requires grad, but has no grad_fn",
                 behaviour="GFN-3")
    script.run(WALK, "accumulators = [node for node in walk(out.grad_fn) "
                     "if hasattr(node, 'variable')]")
    for leaf in program.leaves:
        count = f"sum(node.variable is {leaf.name} for node in accumulators)"
        if leaf.name in grad_leaves:
            script.check_equal(count, 1, why=f"{leaf.name} requires grad and feeds the output: "
                               "one AccumulateGrad node points at it")
        else:
            script.check(f"{count} == 0",
                         f"{leaf.name} does not take part or require grad, but has a node")
    script.check("all(tuple(node.next_functions) == () for node in accumulators)",
                 "an AccumulateGrad node has next_functions")


@behaviour("GFN-3")
@needs("graph")
@given(data=st.data())
def test_next_functions_point_at_the_inputs_nodes(engine, data):
    """A node's next_functions has one (node, index) pair per tensor input: the input's grad_fn
    for a non-leaf, an AccumulateGrad of the input for a leaf that requires grad, None for an
    input that does not require grad."""
    program = data.draw(programs(engine, output="any"), label="program")
    script = Script(engine)
    script.build(program)
    for node in program.nodes:
        if node.op == "reshape":
            continue  # torch's reshape of a non-contiguous input records a copy node in between
        # A result that records no node (it does not require grad: LEAF-2) has nothing to check.
        script.run(f"grad_fn = {node.name}.grad_fn")
        call = f"{node.name} = {node.op}({', '.join(node.args)})"
        script.check(f"grad_fn is None or len(grad_fn.next_functions) == {len(node.args)}",
                     f"{call}: next_functions should have one entry per input",
                     show=("len(grad_fn.next_functions)",))
        for index, arg in enumerate(node.args):
            child = f"grad_fn.next_functions[{index}][0]"
            if not program.requires_grad(arg):
                script.check(f"grad_fn is None or {child} is None",
                             f"{node.name}: input {arg} does not require grad")
            elif arg in {leaf.name for leaf in program.leaves}:
                script.check(f"grad_fn is None or ({child} is not None "
                             f"and {child}.variable is {arg})",
                             f"{node.name}: input {arg}'s entry is not an AccumulateGrad of {arg}")
            else:
                script.check(f"grad_fn is None or {child} is {arg}.grad_fn",
                             f"{node.name}: input {arg}'s entry is not its grad_fn")


@behaviour("GFN-1")
@needs("grad_fn_names")
@given(data=st.data())
def test_grad_fn_class_names(engine, data):
    """Each op of the op set, applied to leaves that require grad, records a node whose class
    name is torch's (AddBackward0, MmBackward0, SumBackward1, SelectBackward0, ...)."""
    op = data.draw(st.sampled_from(engine_ops(engine)), label="op")
    program = data.draw(op_applications(engine, op), label="program")
    (node,) = program.nodes
    event(f"{op} parameter: {node.param}")
    expected = OPS[node.op].grad_fn_name(node.param)
    script = Script(engine)
    script.build(program)
    script.check_equal(f"type({node.name}.grad_fn).__name__", expected,
                       why=f"torch's node of {node.name} = {node.op}(...)")
    if engine.has("graph"):
        script.check_equal(f"{node.name}.grad_fn.name()", expected,
                           why=f"torch's node of {node.name} = {node.op}(...)")


@behaviour("GFN-6")
@needs("grad_fn_names", "inplace")
def test_index_assignment_records_copy_slices(engine):
    """Assigning a value that requires grad into a slice of a plain tensor makes it a non-leaf
    whose grad_fn is CopySlices."""
    script = Script(engine)
    script.run("m = torch.tensor([[2.0, 3.0]], requires_grad=True)", "n = torch.zeros(1, 2)",
               "n[0, 0] = m[0, 0] ** 2")
    script.check("not n.is_leaf and n.requires_grad",
                 "n after n[0, 0] = m[0, 0] ** 2 has is_leaf={n.is_leaf}, "
                 "requires_grad={n.requires_grad}")
    script.check("type(n.grad_fn).__name__ == 'CopySlices'",
                 "n.grad_fn is {type(n.grad_fn).__name__}, torch's is CopySlices")


# What each op's node saves as a tensor, as torch names it (`_saved_<name>`): one of the op's
# inputs, or its result. The op set's other ops save no tensor (sizes and numbers at most).
SAVED_TENSORS = {
    "mul": {"self": "x0", "other": "x1"}, "div": {"self": "x0", "other": "x1"},
    "pow": {"self": "x0"}, "rpow": {"exponent": "x0", "result": "v2"},
    "pow_tensor": {"self": "x0", "exponent": "x1", "result": "v2"},
    "matmul": {"self": "x0", "mat2": "x1"}, "mv": {"self": "x0", "vec": "x1"},
    "dot": {"self": "x0", "tensor": "x1"}, "log": {"self": "x0"}, "abs": {"self": "x0"},
    "exp": {"result": "v2"}, "tanh": {"result": "v2"}, "sigmoid": {"result": "v2"},
    "relu": {"result": "v2"}, "sqrt": {"result": "v2"},
}


@behaviour("GFN-5")
@needs("saved_attributes")
@given(data=st.data())
def test_saved_tensors_are_visible_on_the_node(engine, data):
    """An op's node shows each tensor it saved as grad_fn._saved_<name>: a saved input is that
    input itself, a saved result holds the output's values; once backward freed the graph,
    reading one raises RuntimeError."""
    op = data.draw(st.sampled_from(engine_ops(engine, tuple(sorted(SAVED_TENSORS)))), label="op")
    program = data.draw(op_applications(engine, op), label="program")
    saved = SAVED_TENSORS[op]
    script = Script(engine)
    script.build(program)
    with script.control():
        for name, tensor in saved.items():
            attribute = f"v2.grad_fn._saved_{name}"
            if tensor == "v2":
                script.check(f"({attribute}.shape == v2.shape "
                             f"and (to_numpy({attribute}) == to_numpy(v2)).all())",
                             f"{attribute} does not hold the result's values",
                             show=(attribute, "v2"))
            else:
                script.check(f"{attribute} is {tensor}",
                             f"{attribute} is not the input {tensor} itself", show=(attribute,))
    script.run("out.sum().backward()")
    for name in saved:
        script.raises(f"v2.grad_fn._saved_{name}")


@behaviour("GFN-8")
@needs("tensor_repr")
@given(data=st.data())
def test_repr_shows_requires_grad_or_grad_fn(engine, data):
    """repr(t), whitespace aside (torch wraps long lines), ends with 'requires_grad=True)' for a
    leaf that requires grad, with 'grad_fn=<Name>)' (its grad_fn's class name) for a non-leaf,
    and names neither for a tensor that does not require grad, its detach() included."""
    program = data.draw(programs(engine, output="any", requires_grad="mixed"), label="program")
    script = Script(engine)
    script.build(program)
    leaves = [leaf.name for leaf in program.leaves]
    for name in leaves + [node.name for node in program.nodes]:
        shown = f"' '.join(repr({name}).split())"
        if program.requires_grad(name):
            suffix = ("', requires_grad=True)'" if name in leaves
                      else f"', grad_fn=<' + type({name}.grad_fn).__name__ + '>)'")
            script.check(f"{shown}.endswith({suffix})", f"repr({name}) does not end with {suffix}",
                         show=(shown,))
            shown = f"repr({name}.detach())"
        script.check(f"'requires_grad' not in {shown} and 'grad_fn' not in {shown}",
                     f"{shown} of a tensor that does not require grad names one of them",
                     show=(shown,))


@behaviour("GFN-8")
@needs("tensor_repr", "nn")
@given(requires_grad=st.booleans())
def test_parameter_repr(engine, requires_grad):
    """A Parameter's repr is 'Parameter containing:' and its tensor's repr on the next line."""
    script = Script(engine)
    script.run(f"p = torch.nn.Parameter(torch.ones(2), requires_grad={requires_grad})")
    script.check("repr(p).startswith('Parameter containing:\\n')", "repr(p) is {repr(p)!r}")
    suffix = ", requires_grad=True)" if requires_grad else "])"
    script.check(f"repr(p).endswith({suffix!r})", "repr(p) is {repr(p)!r}")


@behaviour("GFN-9")
@needs("graph", "autograd_grad", "higher_order")
@given(data=st.data())
def test_a_matrix_vector_product_s_gradient_is_recorded_as_torch_s_outer(engine, data):
    """ga = grad(a @ v, a, w, create_graph=True) is w.reshape(-1, 1) * v, as torch's outer
    records it: MulBackward0 with edges to w's view and to v's own AccumulateGrad node."""
    dtype = data.draw(float_dtypes(engine), label="dtype")
    rows, columns = data.draw(st.integers(1, 4), label="rows"), data.draw(st.integers(1, 4),
                                                                          label="columns")
    a = data.draw(values((rows, columns), dtype), label="a")
    v = data.draw(values((columns,), dtype), label="v")
    w = data.draw(values((rows,), dtype), label="w")
    script = Script(engine)
    for name, array in (("a", a), ("v", v), ("w", w)):
        script.run(f"{name} = torch.tensor({literal(array)}, dtype=torch.{dtype}, "
                   "requires_grad=True)")
    script.run("ga, = torch.autograd.grad(a @ v, a, w, create_graph=True)",
               "edges = [child for child, _ in ga.grad_fn.next_functions]")
    script.check_equal("ga.grad_fn.name()", "MulBackward0", why="torch's outer: a product")
    script.check_equal("[child.name() for child in edges]",
                       ["ViewBackward0", "torch::autograd::AccumulateGrad"],
                       why="w as a column (a view), times v itself")
    script.check("edges[1].variable is v", "the product's second edge does not lead to v",
                 show=("edges[1].variable",))
    script.check_close("ga", np.outer(w, v), dtype=dtype, oracle="the outer product w v^T")


@behaviour("GFN-10")
@needs("graph", "autograd_grad", "higher_order", "max_min")
@given(data=st.data(), op=st.sampled_from(["amax", "amin"]), keepdim=st.booleans())
def test_an_extreme_s_gradient_is_recorded_as_torch_s_scaled_mask(engine, data, op, keepdim):
    """g = grad(x.op(dim, keepdim), x, w, create_graph=True) is w (its reduced dims restored,
    by a view where keepdim=False dropped them) / the tie count * the tie mask: MulBackward0
    over DivBackward0 over w's node."""
    dtype = data.draw(float_dtypes(engine), label="dtype")
    shape = data.draw(shapes(min_dims=1), label="shape")
    dim = data.draw(st.integers(0, len(shape) - 1), label="dim")
    x = data.draw(values(shape, dtype), label="x")
    reduced = shape[:dim] + ((1,) if keepdim else ()) + shape[dim + 1:]
    w = data.draw(values(reduced, dtype), label="w")
    script = Script(engine)
    for name, array in (("x", x), ("w", w)):
        script.run(f"{name} = torch.tensor({literal(array)}, dtype=torch.{dtype}, "
                   "requires_grad=True)")
    script.run(f"g, = torch.autograd.grad(x.{op}({dim}, keepdim={keepdim}), x, w, "
               "create_graph=True)",
               "chain, node = [], g.grad_fn",
               "while node is not None and not hasattr(node, 'variable'):",
               "    chain.append(node.name())",
               "    node = node.next_functions[0][0]")
    expected = ["MulBackward0", "DivBackward0"] + ([] if keepdim else ["ViewBackward0"])
    script.check_equal("chain", expected, why="the restored gradient over the count, times the "
                       "mask" + ("" if keepdim else ", the dims restored by a view"))
    script.check("node is not None and node.variable is w", "the chain does not lead to w",
                 show=("node",))
    extreme = getattr(np, {"amax": "max", "amin": "min"}[op])(x, axis=dim, keepdims=True)
    tied = (x == extreme).astype(np.float64)
    script.check_close("g", np.reshape(w, extreme.shape) / tied.sum(axis=dim, keepdims=True)
                       * tied, dtype=dtype, oracle="w split evenly over the ties")
