"""Gradient layout and dtype: the strides of a leaf's .grad (the autograd page's "Default gradient
layouts"), accumulation into it in place, what becomes of a gradient the caller passes, and
assigning .grad by hand (BC-4, LAYOUT-*, ACC-3, ACC-5, ACC-12).

Strides are compared on the dims of size > 1 only: a size-1 dim's stride is never used to find an
element, and torch itself leaves it arbitrary (a (3, 1) leaf with strides (1, 3) gets a .grad with
strides (1, 1)). A strided leaf is made as users make one: a view of a tensor (`transpose`,
`expand`, `narrow`), then `.detach().requires_grad_()`.
"""

import numpy as np
import pytest
from hypothesis import event, given
from hypothesis import strategies as st

from autograd_conformance.harness.checks import assert_leaf_grads
from autograd_conformance.harness.counts import BACKWARD_PASSES, counts
from autograd_conformance.harness.oracles import analytic_grads
from autograd_conformance.harness.script import Script, literal, tensor_literal
from autograd_conformance.harness.strategies import cotangents, float_dtypes, programs, shapes, values

behaviour = pytest.mark.behaviour
needs = pytest.mark.needs

LEAF = ".detach().requires_grad_()"


def _same_strides(a: str, b: str) -> str:
    """A check that tensors `a` and `b` (of one shape) have the same strides on dims of size > 1."""
    return f"all(s == t for s, t, n in zip({a}.stride(), {b}.stride(), {b}.shape) if n > 1)"


@st.composite
def _transposes(draw, ndim: int) -> list[tuple[int, int]]:
    """0 to 3 swaps of two different dims (none below 2 dims)."""
    if ndim < 2:
        return []
    pair = st.lists(st.integers(0, ndim - 1), min_size=2, max_size=2, unique=True).map(tuple)
    return draw(st.lists(pair, min_size=1, max_size=3), label="transposes")


def _transposed(values_: np.ndarray, swaps) -> tuple[np.ndarray, str]:
    """A block of values and the transposes that make `values_` of it as a strided view: the
    block is `values_` with the swaps undone, so the view holds `values_` exactly."""
    block = values_
    for dim0, dim1 in reversed(swaps):
        block = np.swapaxes(block, dim0, dim1)
    return block, "".join(f".transpose({dim0}, {dim1})" for dim0, dim1 in swaps)


# ----- the first gradient's layout --------------------------------------------------------------
@behaviour("BC-4")
@needs("grad_layout")
@given(data=st.data())
def test_a_dense_strided_leaf_gets_a_grad_with_its_strides(engine, data):
    """The program's leaf of most dims is made a transposed block (a permutation of a row-major
    array): after backward its .grad has the leaf's strides, and the program's gradients."""
    program = data.draw(programs(engine), label="program")
    leaf = max(program.grad_leaves(), key=lambda candidate: candidate.values.ndim)
    swaps = data.draw(_transposes(leaf.values.ndim))
    block, views = _transposed(leaf.values, swaps)
    script = Script(engine)
    event(f"transposes of the leaf: {len(swaps)}")
    script.run(f"{leaf.name} = {tensor_literal(block, program.dtype)}{views}{LEAF}")
    script.build(program, given=(leaf.name,))
    script.run("out.backward()")
    script.check(_same_strides(f"{leaf.name}.grad", leaf.name),
                 f"{leaf.name}.grad does not have the strides of {leaf.name}{views}",
                 show=(f"{leaf.name}.grad.stride()", f"{leaf.name}.stride()"))
    assert_leaf_grads(script, program, analytic_grads(program), oracle="analytic")


@st.composite
def _overlapping_or_gapped(draw, dtype: str):
    """Values of a leaf whose elements overlap or leave gaps, and the line that makes it: an
    expand of a block (a new leading dim, and maybe size-1 dims stretched) or a narrow along a dim
    after a first dim of size >= 2."""
    if draw(st.sampled_from(["expanded", "narrowed"]), label="layout") == "expanded":
        block_shape = draw(shapes(max_dims=3), label="block shape")
        sizes = (draw(st.integers(2, 3), label="new leading size"),) + tuple(
            draw(st.sampled_from([1, 2, 3]), label="stretched size") if size == 1 else size
            for size in block_shape)
        block = draw(values(block_shape, dtype), label="block")
        return (np.broadcast_to(block, sizes),
                f"{tensor_literal(block, dtype)}.expand{sizes}")
    shape = (draw(st.integers(2, 3), label="rows"),) + draw(shapes(min_dims=1, max_dims=2),
                                                           label="row shape")
    dim = draw(st.integers(1, len(shape) - 1), label="narrowed dim")
    extra, start = draw(st.integers(1, 2), label="extra"), draw(st.integers(0, 2), label="start")
    start = min(start, extra)
    wider = shape[:dim] + (shape[dim] + extra,) + shape[dim + 1:]
    block = draw(values(wider, dtype), label="block")
    leaf = np.take(block, range(start, start + shape[dim]), axis=dim)
    return leaf, f"{tensor_literal(block, dtype)}.narrow({dim}, {start}, {shape[dim]})"


@behaviour("LAYOUT-1")
@needs("grad_layout")
@given(data=st.data(), use=st.sampled_from(["(x * w).sum().backward()", "x.backward(w)",
                                            "(x.transpose(0, -1) * w.transpose(0, -1)).sum()"
                                            ".backward()"]))
def test_an_overlapping_or_gapped_leaf_gets_a_contiguous_grad(engine, data, use):
    """An expanded or narrowed leaf is not contiguous; its first .grad is, whatever the layout of
    the gradient that reaches it, and holds that gradient (w)."""
    dtype = data.draw(float_dtypes(engine), label="dtype")
    leaf, line = data.draw(_overlapping_or_gapped(dtype))
    w = data.draw(values(leaf.shape, dtype), label="w")
    script = Script(engine)
    script.run(f"x = {line}{LEAF}", f"w = {tensor_literal(w, dtype)}")
    script.check("not x.is_contiguous()",
                 f"setup: x = {line}{LEAF} is contiguous", show=("x.stride()",))
    script.run(use)
    script.check("x.grad.is_contiguous()",
                 "x.grad is not contiguous: strides {x.grad.stride()} for shape "
                 "{tuple(x.grad.shape)}")
    script.check_close("x.grad", w, dtype=dtype, oracle="w, exactly")


# ----- accumulation and assignment ------------------------------------------------------------
@behaviour("ACC-3")
@given(data=st.data(), passes=counts(BACKWARD_PASSES, low=2))
def test_later_passes_add_into_the_same_grad(engine, data, passes):
    """After the first pass each leaf's .grad is kept by reference; each later pass (without
    create_graph, up to the fourth) adds into that very tensor, which then holds the sum."""
    program = data.draw(programs(engine), label="program")
    leaves = [leaf.name for leaf in program.grad_leaves()]
    expected = analytic_grads(program)
    script = Script(engine)
    script.build(program)
    script.run("out.backward(retain_graph=True)",
               f"first = [{', '.join(f'{name}.grad' for name in leaves)}]")
    for done in range(2, passes + 1):
        script.run("out.backward(retain_graph=True)")
        for index, name in enumerate(leaves):
            script.check(f"{name}.grad is first[{index}]",
                         f"pass {done} replaced {name}.grad instead of adding into it")
            script.check_close(f"first[{index}]", done * expected[name], dtype=program.dtype,
                               oracle=f"analytic x {done} passes (the first pass's .grad, kept)",
                               magnitude=done * expected.magnitude)


@behaviour("ACC-5")
@given(data=st.data(), later=st.sampled_from(["x.backward(g)", "(x * 2.0).sum().backward()"]))
def test_backward_on_a_leaf_stores_a_copy_of_the_gradient(engine, data, later):
    """x.backward(g): x.grad is not g; accumulating a later pass into x.grad leaves g as it was."""
    shape = data.draw(shapes(), label="shape")
    dtype = data.draw(float_dtypes(engine), label="dtype")
    g = data.draw(cotangents(shape, dtype), label="g")
    script = Script(engine)
    script.run(f"x = torch.zeros({shape}, dtype=torch.{dtype}, requires_grad=True)",
               f"g = {tensor_literal(g, dtype)}", "x.backward(g)")
    script.check("x.grad is not g", "x.backward(g) stored g itself as x.grad")
    script.run(later)
    second = g if later == "x.backward(g)" else np.full(shape, 2.0)
    script.check_close("x.grad", g + second, dtype=dtype, oracle="the sum of both passes")
    script.check_close("g", g, dtype=dtype, oracle="g as the caller made it")


@behaviour("ACC-5")
@given(data=st.data())
def test_the_operands_of_a_sum_get_copies_of_its_gradient(engine, data):
    """out = x + y hands the one gradient g to both leaves: each stores its own copy, so a later
    pass into x changes neither y.grad nor g."""
    shape = data.draw(shapes(), label="shape")
    dtype = data.draw(float_dtypes(engine), label="dtype")
    g = data.draw(cotangents(shape, dtype), label="g")
    w = data.draw(values(shape, dtype), label="w")
    script = Script(engine)
    script.run(*(f"{name} = torch.zeros({shape}, dtype=torch.{dtype}, requires_grad=True)"
                 for name in "xy"),
               f"g = {tensor_literal(g, dtype)}", "(x + y).backward(g)",
               f"(x * {tensor_literal(w, dtype)}).sum().backward()")
    script.check_close("x.grad", g + w, dtype=dtype, oracle="g + w")
    script.check_close("y.grad", g, dtype=dtype, oracle="g (y took no later pass)")
    script.check_close("g", g, dtype=dtype, oracle="g as the caller made it")


# ----- a path from the caller's gradient to the leaf: where torch copies it, where it keeps a view
class Step:
    """An op on the path from a leaf x to the tensor that backward(g) starts from: its text, and
    the same op on a NumPy array (for the oracle: the gradient reaching x is the path's J^T g)."""

    def __init__(self, text: str, on_numpy):
        self.text, self.on_numpy = text, on_numpy


def _reshaping_steps(shape: tuple[int, ...], contiguous: bool) -> list[Step]:
    """The steps that change a tensor's shape but keep its elements in reading order: reshaping
    views, and sums over a dim of size 1 (where torch 2.13 keeps a view of g: ACC-14); after a
    copying step, reshape where view may raise (of a transposed or expanded tensor)."""
    steps = [Step(f".unsqueeze({dim})", lambda a, dim=dim: np.expand_dims(a, dim))
             for dim in range(len(shape) + 1)]
    if len(shape) != 1:
        steps += [Step(".view(-1)" if contiguous else ".reshape(-1)", lambda a: a.reshape(-1)),
                  Step(".flatten()", np.ravel)]
    if shape[::-1] != shape:
        steps.append(Step(f".reshape({shape[::-1]})", lambda a: a.reshape(shape[::-1])))
    for dim in (dim for dim, size in enumerate(shape) if size == 1):
        steps += [Step(f".squeeze({dim})", lambda a, dim=dim: np.squeeze(a, dim)),
                  Step(f".sum({dim})", lambda a, dim=dim: np.sum(a, dim)),
                  Step(f".sum({dim}, keepdim=True)",
                       lambda a, dim=dim: np.sum(a, dim, keepdims=True))]
    return steps


def _copying_steps(shape: tuple[int, ...]) -> list[Step]:
    """Steps whose backward gives the leaf other memory than g's, or g's elements in another order
    (where torch 2.13 stores a copy): an expand, x[0], a full sum() of two elements or more, a
    transpose of two dims of size > 1."""
    steps = [Step(f".expand({(2, *shape)})", lambda a: np.broadcast_to(a, (2, *shape)))]
    if shape:
        steps.append(Step("[0]", lambda a: a[0]))
    if int(np.prod(shape)) > 1:
        steps.append(Step(".sum()", np.sum))
    steps += [Step(f".transpose({i}, {j})", lambda a, i=i, j=j: np.swapaxes(a, i, j))
              for i in range(len(shape)) for j in range(i + 1, len(shape))
              if shape[i] > 1 and shape[j] > 1]
    return steps


@st.composite
def _gradient_paths(draw, shape: tuple[int, ...], copying: bool) -> list[Step]:
    """One to three steps from a tensor of `shape`: reshaping ones, and with `copying` one copying
    step among them, at a drawn place."""
    length = draw(st.integers(1, 3), label="steps")
    copy_at = draw(st.integers(0, length - 1), label="copying step") if copying else None
    path, contiguous = [], True
    for place in range(length):
        choices = (_copying_steps(shape) if place == copy_at
                   else _reshaping_steps(shape, contiguous))
        step = draw(st.sampled_from(choices), label="step")
        path.append(step)
        shape = np.shape(step.on_numpy(np.zeros(shape)))
        contiguous = contiguous and place != copy_at   # a transpose or expand is not
    return path


def _run_path(path: list[Step], array: np.ndarray) -> np.ndarray:
    for step in path:
        array = step.on_numpy(array)
    return array


def _through(path: list[Step], g: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    """The gradient that backward(g) from x<path> gives x, of `shape`: the path's J^T g, entry by
    entry (each step is linear, so entry i is the path of the i-th unit array, dotted with g)."""
    units = np.eye(int(np.prod(shape))).reshape(-1, *shape)
    return np.array([np.sum(_run_path(path, unit) * g) for unit in units]).reshape(shape)


def _backward_through_a_path(engine, data, copying: bool):
    """x (zeros, requiring grad), x<path>.backward(g) with the caller holding g, then a later pass
    (x * w).sum().backward(): returns the Script, the dtype, g, the gradient the path gives x, and
    w."""
    shape = data.draw(shapes(), label="shape")
    dtype = data.draw(float_dtypes(engine), label="dtype")
    path = data.draw(_gradient_paths(shape, copying), label="path")
    g = data.draw(cotangents(np.shape(_run_path(path, np.zeros(shape))), dtype), label="g")
    w = data.draw(values(shape, dtype), label="w")
    script = Script(engine)
    script.run(f"x = torch.zeros({shape}, dtype=torch.{dtype}, requires_grad=True)",
               f"g = {tensor_literal(g, dtype)}",
               f"x{''.join(step.text for step in path)}.backward(g)",
               f"(x * {tensor_literal(w, dtype)}).sum().backward()")
    return script, dtype, g, _through(path, g, shape), w


@behaviour("ACC-5")
@needs("views")
@given(data=st.data())
def test_a_path_that_copies_stores_a_copy_of_the_gradient(engine, data):
    """x<path>.backward(g), the path one op whose backward gives x other memory than g's or g's
    elements in another order (an expand, x[0], a full sum(), a transpose), among reshaping ops:
    x.grad is J^T g in memory of its own, so a later pass into x.grad leaves g as it was."""
    script, dtype, g, through, w = _backward_through_a_path(engine, data, copying=True)
    script.check_close("x.grad", through + w, dtype=dtype, oracle="J^T g + w, both passes")
    script.check_close("g", g, dtype=dtype, oracle="g as the caller made it")


@behaviour("ACC-14")
@needs("views")
@given(data=st.data())
def test_a_reshaping_path_stores_a_view_of_the_gradient(engine, data):
    """x<path>.backward(g), the path one to three reshaping views (view, reshape, flatten,
    unsqueeze, squeeze of a size-1 dim) and sums over a dim of size 1: torch 2.13 stores a view of
    g as x.grad (g's elements in x's shape), so a later pass into x.grad adds into g too."""
    script, dtype, g, through, w = _backward_through_a_path(engine, data, copying=False)
    script.check_close("x.grad", through + w, dtype=dtype, oracle="g in x's shape + w")
    script.check_close("g", (through + w).reshape(g.shape), dtype=dtype,
                       oracle="g + w: the later pass added into g, which x.grad is a view of")


@behaviour("ACC-14")
@needs("views")
@given(data=st.data(), y_first=st.booleans())
def test_of_two_leaves_given_one_gradient_the_last_accumulated_keeps_it(engine, data, y_first):
    """(a + b)<path>.backward(g), {a, b} = {x, y} in a drawn order and the path reshaping views:
    add hands one view of g to both leaves, and torch 2.13 copies it into the .grad of the first
    operand (its accumulation runs while the second's still holds the view) and keeps it as the
    second's, so a later pass into the second's .grad adds into g, one into the first's does not."""
    shape = data.draw(shapes(), label="shape")
    dtype = data.draw(float_dtypes(engine), label="dtype")
    path = data.draw(_gradient_paths(shape, copying=False), label="path")
    g = data.draw(cotangents(np.shape(_run_path(path, np.zeros(shape))), dtype), label="g")
    w, u = (data.draw(values(shape, dtype), label=label) for label in ("w", "u"))
    first, second = ("y", "x") if y_first else ("x", "y")
    through = _through(path, g, shape)
    script = Script(engine)
    script.run(f"x = torch.zeros({shape}, dtype=torch.{dtype}, requires_grad=True)",
               f"y = torch.zeros({shape}, dtype=torch.{dtype}, requires_grad=True)",
               f"g = {tensor_literal(g, dtype)}",
               f"({first} + {second}){''.join(step.text for step in path)}.backward(g)",
               f"({first} * {tensor_literal(w, dtype)}).sum().backward()",
               f"({second} * {tensor_literal(u, dtype)}).sum().backward()")
    script.check_close(f"{first}.grad", through + w, dtype=dtype, oracle="J^T g + w: a copy")
    script.check_close(f"{second}.grad", through + u, dtype=dtype, oracle="J^T g + u")
    script.check_close("g", (through + u).reshape(g.shape), dtype=dtype,
                       oracle=f"g + u: only the later pass into {second}.grad added into g")


@behaviour("ACC-14")
@needs("hooks", "views")
@given(data=st.data(), returned=st.sampled_from(["a new view of k", "a view the caller holds",
                                                 "k itself", "the gradient it received"]))
def test_a_leaf_keeps_a_hook_s_tensor_that_nothing_else_holds(engine, data, returned):
    """x.reshape(shape).backward(g), a hook on leaf x returning, in place of its gradient (a view
    of g), a view of a tensor k that the caller holds, or that gradient itself: torch 2.13 keeps
    as x.grad a tensor that nothing else references, a view made in the hook or the gradient the
    hook received, so that a later pass into x.grad, the hook removed, adds into k or g; it copies
    a view or a tensor that the caller holds too."""
    shape = data.draw(shapes(), label="shape")
    dtype = data.draw(float_dtypes(engine), label="dtype")
    k, g, w = (data.draw(values(shape, dtype), label=label) for label in ("k", "g", "w"))
    hook = {"a new view of k": f"k.view({shape})", "a view the caller holds": "v",
            "k itself": "k", "the gradient it received": "grad"}[returned]
    script = Script(engine)
    script.run(f"x = torch.zeros({shape}, dtype=torch.{dtype}, requires_grad=True)",
               f"k = {tensor_literal(k, dtype)}", f"v = k.view({shape})",
               f"g = {tensor_literal(g, dtype)}",
               f"hook = x.register_hook(lambda grad: {hook})", f"x.reshape({shape}).backward(g)",
               "hook.remove()", f"(x * {tensor_literal(w, dtype)}).sum().backward()")
    first = g if returned == "the gradient it received" else k
    script.check_close("x.grad", first + w, dtype=dtype, oracle="the hook's tensor, then + w")
    into = {"a new view of k": "k", "the gradient it received": "g"}.get(returned)
    for name, array in (("k", k), ("g", g)):
        script.check_close(name, array + w if name == into else array, dtype=dtype,
                           oracle=f"{name} + w: x.grad is a view of {name}" if name == into
                           else f"{name} as the caller made it")


@behaviour("ACC-12")
@needs("grad_assignment")
@given(data=st.data())
def test_assigning_grad_is_checked(engine, data):
    """x.grad = t raises RuntimeError for t of another shape or dtype, or t = x, and TypeError
    for a t that is no tensor (a list, a number, an array, of x's shape); t of x's shape and dtype
    is kept as x.grad, and backward adds into it."""
    shape = data.draw(shapes(), label="shape")
    dtype = data.draw(float_dtypes(engine), label="dtype")
    other_shape = data.draw(shapes().filter(lambda drawn: drawn != shape), label="other shape")
    other_dtype = data.draw(st.sampled_from(
        ["int64"] + [name for name in ("float32", "float64") if name != dtype
                     and engine.has("float64")]), label="other dtype")
    start, w = (data.draw(values(shape, dtype), label=label) for label in ("start", "w"))
    script = Script(engine)
    script.run(f"x = torch.zeros({shape}, dtype=torch.{dtype}, requires_grad=True)")
    script.raises(f"x.grad = torch.zeros({other_shape}, dtype=torch.{dtype})")
    script.raises(f"x.grad = torch.zeros({shape}, dtype=torch.{other_dtype})")
    script.raises("x.grad = x")
    not_a_tensor = data.draw(st.sampled_from([literal(start), "1.0", f"np.zeros({shape})"]),
                             label="not a tensor")
    script.raises(f"import numpy as np\nx.grad = {not_a_tensor}", error="TypeError")
    script.check("x.grad is None", "a refused assignment left x.grad = {x.grad}")
    with script.control():
        script.run(f"start = {tensor_literal(start, dtype)}", "x.grad = start",
                   f"(x * {tensor_literal(w, dtype)}).sum().backward()")
        script.check("x.grad is start", "backward replaced the assigned .grad")
        script.check_close("x.grad", start + w, dtype=dtype, oracle="the assigned values + w")


@behaviour("ACC-12")
@needs("grad_assignment", "meta_device")
@given(shape=shapes(), data=st.data())
def test_assigning_a_grad_on_another_device_raises(engine, shape, data):
    """x.grad = t for t of x's shape and dtype on another device, torch's meta device (which every
    build has, so that a CPU run has one to try), raises RuntimeError, and x.grad stays None; the
    same assignment on x's own device is taken (the control)."""
    dtype = data.draw(float_dtypes(engine), label="dtype")
    script = Script(engine)
    script.run(f"x = torch.zeros({shape}, dtype=torch.{dtype}, requires_grad=True)")
    with script.control():
        script.run(f"x.grad = torch.ones({shape}, dtype=torch.{dtype})")
        script.check_close("x.grad", np.ones(shape), dtype=dtype, oracle="the assigned ones")
    script.run("x.grad = None")
    script.raises(f"x.grad = torch.zeros({shape}, dtype=torch.{dtype}, device='meta')")
    script.check("x.grad is None", "a refused assignment left a .grad on {x.grad.device}")


# ----- the layout is kept ---------------------------------------------------------------------
@behaviour("LAYOUT-2")
@needs("grad_layout", "grad_assignment")
@pytest.mark.filterwarnings("ignore:grad and param do not obey the gradient layout contract")
@given(data=st.data(), steps=st.lists(st.sampled_from(["backward", "zero_"]), min_size=1,
                                      max_size=4))
def test_an_assigned_zeroed_grad_keeps_its_strides(engine, data, steps):
    """x.grad = zeros laid out by drawn transposes (any layout, not only x's): backward passes
    and grad.zero_() keep those strides, and the values are w per pass since the last zeroing."""
    shape = data.draw(shapes(min_dims=2), label="shape")
    dtype = data.draw(float_dtypes(engine), label="dtype")
    swaps = data.draw(_transposes(len(shape)))
    block, views = _transposed(np.zeros(shape), swaps)
    w = data.draw(values(shape, dtype), label="w")
    script = Script(engine)
    script.run(f"x = torch.zeros({shape}, dtype=torch.{dtype}, requires_grad=True)",
               f"x.grad = torch.zeros({block.shape}, dtype=torch.{dtype}){views}",
               "layout = x.grad", f"w = {tensor_literal(w, dtype)}")
    passes = 0
    for step in steps:
        script.run("(x * w).sum().backward()" if step == "backward" else "x.grad.zero_()")
        passes = passes + 1 if step == "backward" else 0
        script.check(_same_strides("x.grad", "layout"),
                     f"after {step}, x.grad does not have the strides it was assigned with",
                     show=("x.grad.stride()", "layout.stride()"))
        script.check_close("x.grad", passes * w, dtype=dtype, oracle=f"{passes} x w")


@behaviour("LAYOUT-2")
@needs("grad_layout", "nn", "optim")
@given(data=st.data(), zeroing=st.sampled_from(["net.zero_grad(set_to_none=False)",
                                                "optimizer.zero_grad(set_to_none=False)"]))
def test_zero_grad_keeps_a_parameters_grad_layout(engine, data, zeroing):
    """A parameter made of a transposed block gets a .grad with its strides (BC-4); zero_grad with
    set_to_none=False and the next backward keep the strides of that first .grad."""
    shape = data.draw(shapes(min_dims=2), label="shape")
    swaps = data.draw(_transposes(len(shape)))
    block, views = _transposed(np.zeros(shape), swaps)
    script = Script(engine)
    script.run("net = torch.nn.Module()",
               f"net.w = torch.nn.Parameter(torch.zeros({block.shape}){views})",
               "optimizer = torch.optim.SGD(net.parameters(), lr=0.1)",
               "(net.w * 2.0).sum().backward()", "layout = net.w.grad", zeroing,
               "(net.w * 3.0).sum().backward()")
    script.check(_same_strides("net.w.grad", "layout"),
                 f"after {zeroing} and backward net.w.grad does not have the first .grad's strides",
                 show=("net.w.grad.stride()", "layout.stride()"))
    script.check_close("net.w.grad", np.full(shape, 3.0), dtype="float32",
                       oracle="one pass of 3 after zeroing")


@behaviour("LAYOUT-3")
@needs("views")
@given(data=st.data())
def test_an_expanded_leaf_gets_a_grad_of_its_own_shape(engine, data):
    """y = x.expand(*sizes) with a new leading dim and size-1 dims stretched (-1 keeps a size):
    x.grad has x's shape, the gradient of y summed over what the expansion added."""
    shape = data.draw(shapes(max_dims=3), label="shape")
    dtype = data.draw(float_dtypes(engine), label="dtype")
    lead = tuple(data.draw(st.lists(st.integers(1, 3), min_size=0 if shape else 1, max_size=1),
                           label="new leading sizes"))  # torch refuses expand() without sizes
    kept = tuple(data.draw(st.sampled_from([1, 2, 3, -1]), label="size") if size == 1
                 else data.draw(st.sampled_from([size, -1]), label="size") for size in shape)
    sizes = lead + tuple(size if wanted == -1 else wanted for size, wanted in zip(shape, kept))
    w = data.draw(values(sizes, dtype), label="w")
    expected = w.sum(axis=tuple(range(len(lead)))) if lead else w
    stretched = tuple(dim for dim, size in enumerate(shape)
                      if size == 1 and expected.shape[dim] > 1)
    expected = expected.sum(axis=stretched, keepdims=True)
    script = Script(engine)
    script.run(f"x = torch.zeros({shape}, dtype=torch.{dtype}, requires_grad=True)",
               f"(x.expand{lead + kept} * {tensor_literal(w, dtype)}).sum().backward()")
    script.check_close("x.grad", expected, dtype=dtype, oracle="w summed over the expansion")


# ----- grad_dtype: the dtype a leaf's .grad takes ------------------------------------------------
@behaviour("BC-6")
@needs("grad_dtype", "float64")
@given(data=st.data(), passes=counts(BACKWARD_PASSES))
def test_grad_dtype_casts_the_gradients_a_leaf_accumulates(engine, data, passes):
    """A leaf's grad_dtype set to the other float dtype: each backward's gradient is cast to it,
    so its .grad has that dtype after every pass and accumulates the passes in it; the other
    leaves keep their own dtype (BC-3)."""
    program = data.draw(programs(engine), label="program")
    target = data.draw(st.sampled_from([leaf.name for leaf in program.grad_leaves()]),
                       label="leaf with grad_dtype")
    other = "float32" if program.dtype == "float64" else "float64"
    expected = analytic_grads(program)
    script = Script(engine)
    script.build(program)
    script.run(f"{target}.grad_dtype = torch.{other}")
    for done in range(1, passes + 1):
        script.run("out.backward(retain_graph=True)")
        for leaf in program.grad_leaves():
            grad, dtype = f"{leaf.name}.grad", other if leaf.name == target else program.dtype
            script.check(f"{grad} is not None and {grad}.dtype == torch.{dtype}",
                         f"{grad} is not {dtype} after pass {done}", show=(grad,))
            script.check_close(grad, done * expected[leaf.name], dtype="float32",
                               oracle=f"analytic, {done} pass(es)",
                               magnitude=done * expected.magnitude)


@behaviour("BC-6")
@needs("grad_dtype", "float64", "grad_assignment")
@given(shape=shapes(), dtype=st.sampled_from(["float32", "float64"]))
def test_grad_dtype_is_the_leafs_own_until_set(engine, shape, dtype):
    """grad_dtype reads a leaf's dtype until set; an assigned .grad must have the grad_dtype (the
    tensor's own dtype is then refused), any dtype once it is None; a non-leaf has none to set."""
    other = "float32" if dtype == "float64" else "float64"
    script = Script(engine)
    script.run(f"x = torch.zeros({shape}, dtype=torch.{dtype}, requires_grad=True)")
    script.check(f"x.grad_dtype == torch.{dtype}", f"x is {dtype}, its grad_dtype before it is set "
                 "{x.grad_dtype}")
    script.run(f"x.grad_dtype = torch.{other}", f"x.grad = torch.ones({shape}, dtype=torch.{other})")
    script.check(f"x.grad_dtype == torch.{other}", f"grad_dtype set to {other} reads "
                 "{x.grad_dtype}")
    script.raises(f"x.grad = torch.ones({shape}, dtype=torch.{dtype})")
    with script.control():
        script.run("x.grad_dtype = None", f"x.grad = torch.ones({shape}, dtype=torch.{dtype})")
        script.check(f"x.grad.dtype == torch.{dtype}",
                     f"with grad_dtype None, the {dtype} .grad assigned reads {{x.grad.dtype}}")
    script.raises(f"(x * 2).grad_dtype = torch.{other}")
