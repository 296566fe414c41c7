"""Views and in-place operations on views: what shares storage, version counter and graph with
its base, as the tensor-views page and the autograd note's "In-place operations" describe
(VIEW-*). A view chain is drawn (harness.strategies.view_chains) with, for every element of the
view, the position in its base that it shares: the oracle of an in-place op on a view is the
same program written out of place, with those positions of the base replaced."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from autograd_conformance.harness.checks import assert_leaf_grads
from autograd_conformance.harness.counts import VIEW_CHAIN, counts
from autograd_conformance.harness.oracles import analytic_grads
from autograd_conformance.harness.script import Script, tensor_literal
from autograd_conformance.harness.strategies import cotangents, programs, shapes, values, view_chains, view_positions

behaviour = pytest.mark.behaviour
needs = pytest.mark.needs
control = pytest.mark.control
pytestmark = needs("views")

INFERENCE_VIEW_MESSAGE = ("A view was created in inference mode and is being modified inplace in "
                          "normal mode.")
VIEW_OF_LEAF_MESSAGE = ("a view of a leaf Variable that requires grad is being used in an "
                        "in-place operation.")
NO_GRAD_VIEW_MESSAGE = ("A view was created in no_grad mode and is being modified inplace with "
                        "grad mode enabled.")
OVERLAP_MESSAGE = ("unsupported operation: more than one element of the written-to tensor "
                   "refers to a single memory location.")
# VIEW-15: an in-place write into an expanded view, and what it writes (None: it raises).
OVERLAP_CHANGES = {"add_": ("e.add_(1.0)", None), "mul_": ("e.mul_(2.0)", None),
                   "div_": ("e.div_(2.0)", None), "copy_": ("e.copy_(torch.ones({sizes}))", None),
                   "zero_": ("e.zero_()", 0.0), "fill_": ("e.fill_(2.0)", 2.0),
                   "index assignment": ("e[{index}] = 7.0", 7.0)}
BASE_VALUE = 3.0    # what x holds before VIEW-15's write: none of the writes leaves it
VERSION_MESSAGE = ("one of the variables needed for gradient computation has been modified by an "
                   "inplace operation")


class Change:
    """An in-place op on a view `v`, with `w` a constant of v's shape: its line, the values it
    leaves (`new(old, w)`) and their derivative with respect to the old values (`slope(old, w)`)."""

    def __init__(self, line: str, new, slope):
        self.line, self.new, self.slope = line, new, slope


CHANGES = {
    "mul_(-1.5)": Change("v.mul_(-1.5)", lambda old, w: old * -1.5, lambda old, w: -1.5),
    "div_(2.0)": Change("v.div_(2.0)", lambda old, w: old / 2.0, lambda old, w: 0.5),
    "add_(w)": Change("v.add_(w)", lambda old, w: old + w, lambda old, w: 1.0),
    "mul_(w)": Change("v.mul_(w)", lambda old, w: old * w, lambda old, w: w),
    "copy_(w)": Change("v.copy_(w)", lambda old, w: w + 0 * old, lambda old, w: 0.0),
    "zero_()": Change("v.zero_()", lambda old, w: 0 * old, lambda old, w: 0.0),
}


def _chain(chain) -> str:
    return "".join(step.text for step in chain)


def _check_all(script, name: str, value: float, what: str) -> None:
    """Every element of the tensor `name` is `value` (`what` it holds)."""
    script.check(f"(to_numpy({name}) == {value!r}).all()", f"{name} does not hold {what}: {{{name}}}")


def _views_one_of_another(base, chain) -> list[str]:
    """Script lines that take each view of `chain` of the one before, from `base`: view1 is a view
    of the base, view2 of view1, and so on (v1, v2, ... name a program's nodes)."""
    return [f"view{k} = {f'view{k - 1}' if k > 1 else base}{step.text}"
            for k, step in enumerate(chain, start=1)]


@st.composite
def _viewed_programs(draw, engine, *, writable: bool = True):
    """A random program whose output `out` is copied to the contiguous non-leaf
    `y = out.contiguous() + 0.0` (no node saves y; `out` may be a transposed view, and `out + 0.0`
    keeps its layout), a view chain of y, and the chain's positions in y."""
    program = draw(programs(engine, output="any"), label="program")
    chain = draw(view_chains(engine, program.output_shape(), writable=writable), label="view chain")
    return program, chain, view_positions(program.output_shape(), chain)


def _scattered(shape, positions, values) -> np.ndarray:
    """Zeros of `shape` with `values` added at the flat `positions` (repeated ones add up)."""
    out = np.zeros(int(np.prod(shape, dtype=int)))
    np.add.at(out, positions.ravel(), np.broadcast_to(values, positions.shape).ravel())
    return out.reshape(shape)


# ----- storage, _base, version counter ----------------------------------------------------------
@behaviour("VIEW-1")
@needs("inplace")
@given(data=st.data())
def test_a_view_shares_storage_with_its_base(engine, data):
    """Every view op, chained: the view holds the base's elements at its positions; a change
    through the base shows in the view, and one through the view (not expanded) in the base."""
    shape = data.draw(shapes(), label="shape")
    chain = data.draw(view_chains(engine, shape, writable=False), label="view chain")
    positions = view_positions(shape, chain)
    base = data.draw(values(shape, "float64"), label="base")
    script = Script(engine)
    script.run(f"x = {tensor_literal(base, 'float64')}", f"v = x{_chain(chain)}")
    script.check_close("v", base.ravel()[positions], dtype="float64", oracle="the base's elements")
    script.run("x.mul_(-2.0)")
    script.check_close("v", -2.0 * base.ravel()[positions], dtype="float64",
                       oracle="the base's elements after x.mul_(-2.0)")
    writable = data.draw(view_chains(engine, shape), label="writable view chain")
    positions = view_positions(shape, writable)
    script.run(f"u = x{_chain(writable)}", "u.mul_(-0.5)")
    expected = -2.0 * base.ravel()
    expected[positions.ravel()] *= -0.5
    script.check_close("x", expected.reshape(shape), dtype="float64",
                       oracle="the base after u.mul_(-0.5) through its view u")


@behaviour("VIEW-1")
@needs("inplace")
def test_the_tensor_views_page_example(engine):
    """The tensor-views page's example: b = t.view(2, 8); b[0][0] = 3.14 changes t[0][0]."""
    script = Script(engine)
    script.run("t = torch.rand(4, 4)", "b = t.view(2, 8)", "b[0][0] = 3.14")
    script.check("abs(t[0][0].item() - 3.14) < 1e-6",
                 "after b[0][0] = 3.14 through the view b, t[0][0] is {t[0][0].item()}")


@behaviour("VIEW-1")
@given(size=st.integers(1, 5), requires_grad=st.booleans())
def test_flatten_of_a_1d_tensor_is_the_tensor_itself(engine, size, requires_grad):
    """flatten() returns its input itself where it has no dimensions to flatten (a 1-D tensor),
    not a view of it (torch.flatten's documentation); the view ops' test draws it elsewhere."""
    script = Script(engine)
    script.run(f"x = torch.zeros({size}, requires_grad={requires_grad})")
    script.check("x.flatten() is x", "flatten() of the 1-D tensor x returned another tensor",
                 show=("x.flatten()",))


@behaviour("VIEW-2")
@given(data=st.data(), length=counts(VIEW_CHAIN))
def test_a_view_names_its_base(engine, data, length):
    """x._base is the tensor a view was ultimately taken from, also for a view of a view, and
    _is_view() says so: in a chain of one to four views, each taken of the one before, every one
    names x; a tensor that is not a view has _base None."""
    shape = data.draw(shapes(), label="shape")
    chain = data.draw(view_chains(engine, shape, writable=False, length=length), label="view chain")
    script = Script(engine)
    script.run(f"x = torch.zeros({shape})", *_views_one_of_another("x", chain))
    script.check("x._base is None and not x._is_view()",
                 "x is not a view, but x._base is {x._base} and x._is_view() {x._is_view()}")
    for k in range(1, length + 1):
        script.check(f"view{k}._base is x and view{k}._is_view()",
                     f"view{k} = x{_chain(chain[:k])} is not a view of x",
                     show=(f"view{k}._base is x", f"view{k}._is_view()"))


@behaviour("VIEW-3")
@given(data=st.data())
def test_copies_do_not_alias(engine, data):
    """reshape of a transposed tensor, indexing with a list and clone() return copies: a change to
    the input after them does not show in them."""
    rows, columns = data.draw(st.integers(2, 3), label="rows"), data.draw(st.integers(2, 3),
                                                                         label="columns")
    base = data.draw(values((rows, columns), "float64"), label="base")
    copies = {"x.t().reshape(-1)": base.T.reshape(-1), "x[[1, 0]]": base[[1, 0]],
              "x.clone()": base}
    copy = data.draw(st.sampled_from(sorted(copies)), label="copy")
    script = Script(engine)
    script.run(f"x = {tensor_literal(base, 'float64')}", f"c = {copy}", "x.add_(1.0)")
    script.check_close("c", copies[copy], dtype="float64",
                       oracle=f"{copy} before x changed (a copy)")


@behaviour("VIEW-4")
@needs("inplace")
@given(data=st.data(), length=counts(VIEW_CHAIN), writes=st.integers(1, 4))
def test_a_view_shares_the_version_counter(engine, data, length, writes):
    """An in-place op through any view of a chain (each view taken of the one before) or through
    the base increments the one counter all of them read: after each, x and every view report the
    same _version, and it has grown."""
    shape = data.draw(shapes(), label="shape")
    chain = data.draw(view_chains(engine, shape, length=length), label="view chain")
    names = ["x", *(f"view{k}" for k in range(1, length + 1))]
    script = Script(engine)
    script.run(f"x = torch.zeros({shape})", *_views_one_of_another("x", chain))
    for i in range(writes):
        target = data.draw(st.sampled_from(names), label=f"write {i + 1} through")
        script.run("before = x._version", f"{target}.add_(1.0)")
        script.check(" == ".join(f"{name}._version" for name in names) + " > before",
                     f"after {target}.add_(1.0), x and its views do not share a raised version",
                     show=(*(f"{name}._version" for name in names), "before"))


@behaviour("VIEW-5")
@given(rows=st.integers(2, 3), columns=st.integers(2, 3))
def test_view_of_a_transposed_tensor_raises_and_reshape_copies(engine, rows, columns):
    """view() cannot read a transposed tensor's elements in the new shape from its strides: it
    raises; reshape() copies them."""
    script = Script(engine)
    script.run(f"x = torch.arange({rows * columns}.0).reshape({rows}, {columns})")
    script.raises("x.t().view(-1)")
    expected = np.arange(rows * columns, dtype=float).reshape(rows, columns).T.reshape(-1)
    with script.control():
        script.check_close("x.t().reshape(-1)", expected, dtype="float32", oracle="NumPy")


@behaviour("VIEW-15")
@control("test_views.py::test_in_place_on_a_view_is_recorded_in_its_base")
@needs("inplace")
@given(shape=shapes(), under_no_grad=st.booleans(), change=st.sampled_from(sorted(OVERLAP_CHANGES)))
def test_writing_into_an_expanded_view(engine, shape, under_no_grad, change):
    """Elements of an expanded tensor e = x.expand(2, ...) share memory with x (which requires no
    grad): the in-place ops that check for overlap refuse e, in no_grad too, while zero_(),
    fill_() and index assignment write through to x (e[0, ...] = 7.0 changes both rows). x starts
    at 3.0, a value none of the writes leaves, so that each write shows in x."""
    sizes = (2,) + shape
    script = Script(engine)
    script.run(f"x = {tensor_literal(np.full(shape, BASE_VALUE), 'float32')}",
               f"e = x.expand({sizes})")
    code, written = OVERLAP_CHANGES[change]
    code = code.format(index=(0,) * len(sizes), sizes=sizes)
    block = "with torch.no_grad():\n    " + code if under_no_grad else code
    if written is None:
        script.raises(block, OVERLAP_MESSAGE)
    else:
        script.run(block)
        expected = np.full(shape, BASE_VALUE if change == "index assignment" else written)
        expected.flat[:1] = written     # an array, 0-d ones too: the first element is written
        script.check_close("x", expected, dtype="float32", oracle=f"x after e.{code}")
        script.check_close("e", np.broadcast_to(expected, sizes), dtype="float32",
                           oracle=f"e after e.{code}")


# ----- in-place through views of leaves and of views taken under no_grad ----------------------
@behaviour("VIEW-6", "VIEW-7")
@control("test_views.py::test_in_place_on_a_view_is_recorded_in_its_base")
@needs("inplace")
@given(data=st.data(), change=st.sampled_from(sorted(CHANGES)))
def test_in_place_through_a_view_of_a_requiring_leaf_raises(engine, data, change):
    """Any view of a leaf that requires grad refuses in-place ops in grad mode, with the 'view of
    a leaf' message (VIEW-7)."""
    shape = data.draw(shapes(), label="shape")
    chain = data.draw(view_chains(engine, shape), label="view chain")
    script = Script(engine, behaviour="VIEW-6")
    view_shape = view_positions(shape, chain).shape
    script.run(f"x = torch.zeros({shape}, requires_grad=True)", f"v = x{_chain(chain)}",
               f"w = torch.ones({view_shape})")
    script.raises(CHANGES[change].line)
    script.raises(CHANGES[change].line, VIEW_OF_LEAF_MESSAGE, behaviour="VIEW-7")


@behaviour("VIEW-13", "VIEW-14")
@needs("inplace")
@given(data=st.data(), requiring=st.sampled_from(["base", "operand"]))
def test_a_view_taken_under_no_grad_refuses_recorded_in_place_ops(engine, data, requiring):
    """A view taken under no_grad, of a base that requires grad or written with an operand that
    does, refuses in-place ops in grad mode (with the message of VIEW-14); under no_grad the
    same op runs, adding 1 to each element."""
    shape = data.draw(shapes(), label="shape")
    chain = data.draw(view_chains(engine, shape), label="view chain")
    view_shape = view_positions(shape, chain).shape
    script = Script(engine, behaviour="VIEW-13")
    if requiring == "base":
        script.run(f"x = torch.ones({shape}, requires_grad=True) * 2.0",
                   f"w = torch.ones({view_shape})")
    else:
        script.run(f"x = torch.ones({shape})", f"w = torch.ones({view_shape}, requires_grad=True)")
    script.run("with torch.no_grad():", f"    v = x{_chain(chain)}")
    script.raises("v.add_(w)")
    script.raises("v.add_(w)", NO_GRAD_VIEW_MESSAGE, behaviour="VIEW-14")
    with script.control():
        script.run("with torch.no_grad():", "    v.add_(w)")
        _check_all(script, "v", 3.0 if requiring == "base" else 2.0, "the ones w added to v")


@behaviour("VIEW-19", "VIEW-20")
@needs("inplace", "inference_mode")
@given(data=st.data(), requiring=st.sampled_from(["base", "operand", "neither"]))
def test_a_view_taken_in_inference_mode_refuses_recorded_in_place_ops(engine, data, requiring):
    """A view taken under inference_mode of a normal tensor is no inference tensor; when its
    base or the operand requires grad it refuses in-place ops in grad mode (with the message of
    VIEW-20), while under no_grad and inside inference_mode the same op runs; when neither
    requires grad it runs in grad mode too."""
    shape = data.draw(shapes(), label="shape")
    chain = data.draw(view_chains(engine, shape), label="view chain")
    view_shape = view_positions(shape, chain).shape
    script = Script(engine, behaviour="VIEW-19")
    base_flag, operand_flag = requiring == "base", requiring == "operand"
    script.run(f"x = torch.ones({shape}, requires_grad={base_flag}) * 2.0",
               f"w = torch.ones({view_shape}, requires_grad={operand_flag})")
    script.run("with torch.inference_mode():", f"    v = x{_chain(chain)}")
    script.check("not v.is_inference()", "a view of a normal tensor taken under inference_mode "
                 "is an inference tensor")
    if requiring == "neither":
        script.run("v.add_(w)")
    else:
        script.raises("v.add_(w)")
        script.raises("v.add_(w)", INFERENCE_VIEW_MESSAGE, behaviour="VIEW-20")
    with script.control():
        script.run("with torch.no_grad():", "    v.add_(w)")
        script.run("with torch.inference_mode():", "    v.add_(w)")
        _check_all(script, "v", 2.0 + 2 + (requiring == "neither"), "the ones w added to v")


# split, chunk and unbind of a tensor of `shape` along `dim`: the call and how many views it gives.
def _several_views_calls(shape, dim):
    size = shape[dim]
    return {f"split({k}, {dim})": -(-size // k) for k in range(1, size + 1)} | \
        {f"split({[1, size - 1] if size > 1 else [1]}, {dim})": min(size, 2)} | \
        {f"chunk({k}, {dim})": len(range(0, size, -(-size // k))) for k in range(1, size + 1)} | \
        {f"unbind({dim})": size}


@behaviour("VIEW-18")
@needs("inplace")
@given(data=st.data(), requiring=st.sampled_from(["leaf base", "base", "operand", "neither"]),
       view=st.sampled_from(["", ".unsqueeze(0)", "[None][0]"]))
def test_the_views_of_split_chunk_and_unbind_refuse_recorded_in_place_ops(engine, data, requiring,
                                                                          view):
    """p = x.split(...), x.chunk(...) or x.unbind(...): when x or the operand requires grad, an
    in-place op on one of the views p[i], or on a view of it (views that need no contiguous
    input: p[i] may have gaps), raises RuntimeError in grad mode and runs under no_grad; when
    neither requires grad it runs in grad mode too."""
    shape = data.draw(shapes(min_dims=1), label="shape")
    dim = data.draw(st.integers(0, len(shape) - 1), label="dim")
    calls = _several_views_calls(shape, dim)
    call = data.draw(st.sampled_from(sorted(calls)), label="call")
    i = data.draw(st.integers(0, calls[call] - 1), label="which view")
    x = {"leaf base": "torch.ones({shape}, requires_grad=True)",
         "base": "torch.ones({shape}, requires_grad=True) * 2.0"}.get(requiring, "torch.ones({shape})")
    script = Script(engine)
    script.run(f"x = {x.format(shape=shape)}", f"p = x.{call}", f"v = p[{i}]{view}")
    script.run(f"w = torch.ones(tuple(v.shape), requires_grad={requiring == 'operand'})")
    if requiring == "neither":
        script.run("v.add_(w)")
    else:
        script.raises("v.add_(w)")
    with script.control():
        script.run("with torch.no_grad():", "    v.add_(w)")
        _check_all(script, "v", (2.0 if requiring == "base" else 1.0) + 1 + (requiring == "neither"),
                   "the ones w added to v")


# ----- gradients through in-place ops on views ---------------------------------------------
@behaviour("VIEW-8")
@needs("inplace")
@given(data=st.data(), change=st.sampled_from(sorted(CHANGES)))
def test_in_place_on_a_view_is_recorded_in_its_base(engine, data, change):
    """y = a contiguous copy of out; v = a view of y; an in-place op on v changes y's elements
    at v's positions, and the gradients of (y * g).sum() are those of the program written out of
    place: g, times the op's slope at those positions."""
    program, chain, positions = data.draw(_viewed_programs(engine))
    shape, dtype = program.output_shape(), program.dtype
    w = data.draw(values(positions.shape, dtype, bound=2.0), label="w")
    g = data.draw(cotangents(shape, dtype), label="g")
    y = program.evaluate()[program.output].astype(float).reshape(-1)
    old = y[positions]
    y[positions.ravel()] = np.broadcast_to(CHANGES[change].new(old, w), positions.shape).ravel()
    slope = np.ones(y.size)
    slope[positions.ravel()] = np.broadcast_to(CHANGES[change].slope(old, w),
                                               positions.shape).ravel()
    script = Script(engine)
    script.build(program)
    script.run(f"w = {tensor_literal(w, dtype)}", "y = out.contiguous() + 0.0",
               f"v = y{_chain(chain)}", CHANGES[change].line)
    script.check("y.requires_grad and not y.is_leaf",
                 "after an in-place op on its view, y is a leaf or does not require grad")
    script.check_close("y", y.reshape(shape), dtype=dtype, oracle="the program out of place")
    script.run(f"(y * {tensor_literal(g, dtype)}).sum().backward()")
    expected = analytic_grads(program, g * slope.reshape(shape))
    assert_leaf_grads(script, program, expected, oracle="analytic, out of place")


@behaviour("VIEW-9")
@needs("inplace")
@given(data=st.data(), change=st.sampled_from(sorted(CHANGES)))
def test_a_view_carries_its_in_place_change_into_the_graph(engine, data, change):
    """After an in-place op on the view v of y, gradients of (v * h).sum() are h times the op's
    slope, at v's positions of y; retain_grad() on v, then, keeps h."""
    program, chain, positions = data.draw(_viewed_programs(engine))
    shape, dtype = program.output_shape(), program.dtype
    w = data.draw(values(positions.shape, dtype, bound=2.0), label="w")
    h = data.draw(cotangents(positions.shape, dtype), label="h")
    old = program.evaluate()[program.output].astype(float).reshape(-1)[positions]
    script = Script(engine)
    script.build(program)
    script.run(f"w = {tensor_literal(w, dtype)}", "y = out.contiguous() + 0.0",
               f"v = y{_chain(chain)}",
               CHANGES[change].line, "v.retain_grad()",
               f"(v * {tensor_literal(h, dtype)}).sum().backward()")
    script.check_close("v.grad", h, dtype=dtype, oracle="h, the gradient of (v * h).sum()")
    cotangent = _scattered(shape, positions, h * CHANGES[change].slope(old, w))
    assert_leaf_grads(script, program, analytic_grads(program, cotangent),
                      oracle="analytic, out of place")


@behaviour("VIEW-10")
@needs("inplace")
@given(data=st.data(), factor=st.sampled_from([-1.5, 0.5, 0.0]))
def test_views_see_an_in_place_change_of_their_base(engine, data, factor):
    """v = a view of y (expanded ones included), then y.mul_(c): v holds c times its old values,
    and gradients of (v * h).sum() are c times those through the unchanged view."""
    program, chain, positions = data.draw(_viewed_programs(engine, writable=False))
    shape, dtype = program.output_shape(), program.dtype
    h = data.draw(cotangents(positions.shape, dtype), label="h")
    y = program.evaluate()[program.output].astype(float).reshape(-1)
    script = Script(engine)
    script.build(program)
    script.run("y = out.contiguous() + 0.0", f"v = y{_chain(chain)}", f"y.mul_({factor})")
    script.check_close("v", factor * y[positions], dtype=dtype, oracle="the base's new values")
    script.run(f"(v * {tensor_literal(h, dtype)}).sum().backward()")
    cotangent = factor * _scattered(shape, positions, h)
    assert_leaf_grads(script, program, analytic_grads(program, cotangent),
                      oracle=f"analytic x {factor}")


@behaviour("VIEW-10")
@needs("inplace")
@given(data=st.data(), length=counts(VIEW_CHAIN), change=st.sampled_from(sorted(CHANGES)))
def test_every_view_of_a_chain_sees_a_write_through_the_last(engine, data, length, change):
    """y = a contiguous copy of out; view1 a view of y, view2 of view1, ... up to four; an in-place
    op on the last changes y, and every view before it sees the change too: each holds y's new
    elements at its positions, and the gradients of (y * g).sum() plus each (viewk * hk).sum() are
    those of the program written out of place, through every view."""
    program = data.draw(programs(engine, output="any"), label="program")
    shape, dtype = program.output_shape(), program.dtype
    chain = data.draw(view_chains(engine, shape, length=length), label="view chain")
    positions = [view_positions(shape, chain[:k]) for k in range(1, length + 1)]
    written = positions[-1]
    w = data.draw(values(written.shape, dtype, bound=2.0), label="w")
    g = data.draw(cotangents(shape, dtype), label="g")
    h = [data.draw(cotangents(each.shape, dtype), label=f"h{k}")
         for k, each in enumerate(positions, start=1)]
    y = program.evaluate()[program.output].astype(float).reshape(-1)
    old = y[written]
    y[written.ravel()] = np.broadcast_to(CHANGES[change].new(old, w), written.shape).ravel()
    slope = np.ones(y.size)
    slope[written.ravel()] = np.broadcast_to(CHANGES[change].slope(old, w), written.shape).ravel()
    script = Script(engine)
    script.build(program)
    script.run(f"w = {tensor_literal(w, dtype)}", "y = out.contiguous() + 0.0",
               *_views_one_of_another("y", chain),
               CHANGES[change].line.replace("v.", f"view{length}."))
    for k, each in enumerate(positions, start=1):
        script.check_close(f"view{k}", y[each], dtype=dtype,
                           oracle=f"y's new elements, after the write through view{length}")
    script.run("(" + " + ".join([f"(y * {tensor_literal(g, dtype)}).sum()",
                                 *(f"(view{k} * {tensor_literal(hk, dtype)}).sum()"
                                   for k, hk in enumerate(h, start=1))]) + ").backward()")
    cotangent = g + sum(_scattered(shape, each, hk) for each, hk in zip(positions, h))
    assert_leaf_grads(script, program, analytic_grads(program, cotangent * slope.reshape(shape)),
                      oracle="analytic, out of place, through every view")


@behaviour("VIEW-12")
@needs("inplace")
@given(data=st.data())
def test_writing_a_requiring_operand_into_a_view_joins_the_base_to_the_graph(engine, data):
    """p = zeros; p's view takes out's elements at the same positions (add_ of out's view): p
    becomes a non-leaf that requires grad, and (p * g).sum() sends out g at those positions."""
    program, chain, positions = data.draw(_viewed_programs(engine))
    shape, dtype = program.output_shape(), program.dtype
    g = data.draw(cotangents(shape, dtype), label="g")
    script = Script(engine)
    script.build(program)
    script.run(f"p = torch.zeros({shape}, dtype=torch.{dtype})",
               f"p{_chain(chain)}.add_(out.contiguous(){_chain(chain)})")
    script.check("p.requires_grad and not p.is_leaf",
                 "p took a requiring operand through its view, yet p.requires_grad is "
                 "{p.requires_grad} and p.is_leaf {p.is_leaf}")
    script.run(f"(p * {tensor_literal(g, dtype)}).sum().backward()")
    kept = _scattered(shape, positions, 1.0) > 0
    assert_leaf_grads(script, program, analytic_grads(program, g * kept),
                      oracle="analytic at the view's positions")


@behaviour("VIEW-11")
@needs("inplace", "grad_fn_names")
@given(data=st.data())
def test_in_place_on_a_view_names_copy_slices_and_as_strided(engine, data):
    """After an in-place op on a view of a non-leaf, the base's grad_fn is CopySlices and the
    view's AsStridedBackward0."""
    shape = data.draw(shapes(), label="shape")
    chain = data.draw(view_chains(engine, shape), label="view chain")
    script = Script(engine)
    script.run(f"y = torch.ones({shape}, requires_grad=True) * 2.0", f"v = y{_chain(chain)}",
               "v.mul_(3.0)")
    script.check("type(y.grad_fn).__name__ == 'CopySlices'",
                 "y.grad_fn is {type(y.grad_fn).__name__}, torch's is CopySlices")
    script.check("type(v.grad_fn).__name__ == 'AsStridedBackward0'",
                 "v.grad_fn is {type(v.grad_fn).__name__}, torch's is AsStridedBackward0")


@behaviour("VIEW-16")
@given(data=st.data())
def test_detaching_the_base_in_place_keeps_its_views_in_the_graph(engine, data):
    """y.detach_() makes y a leaf, but a view of y taken before keeps requires_grad and its
    grad_fn: gradients through it still reach the program's leaves."""
    program, chain, positions = data.draw(_viewed_programs(engine, writable=False))
    shape, dtype = program.output_shape(), program.dtype
    h = data.draw(cotangents(positions.shape, dtype), label="h")
    script = Script(engine)
    script.build(program)
    script.run("y = out.contiguous() + 0.0", f"v = y{_chain(chain)}", "y.detach_()")
    script.check("v.requires_grad and v.grad_fn is not None",
                 "after y.detach_(), its view v has requires_grad {v.requires_grad} and grad_fn "
                 "{v.grad_fn}")
    script.run(f"(v * {tensor_literal(h, dtype)}).sum().backward()")
    assert_leaf_grads(script, program, analytic_grads(program, _scattered(shape, positions, h)),
                      oracle="analytic through the view")


@behaviour("VIEW-17")
@control("test_inplace.py::test_modifying_a_saved_tensor_makes_backward_raise")
@needs("inplace")
@given(data=st.data())
def test_a_change_through_a_view_under_no_grad_is_version_checked(engine, data):
    """z = y * y saves y; changing y through a view under no_grad still counts as a change of
    y: backward through z raises."""
    shape = data.draw(shapes(), label="shape")
    chain = data.draw(view_chains(engine, shape), label="view chain")
    script = Script(engine)
    script.run(f"y = torch.ones({shape}, requires_grad=True) * 2.0", "z = y * y",
               "with torch.no_grad():", f"    y{_chain(chain)}.mul_(3.0)")
    script.raises("z.sum().backward()", VERSION_MESSAGE)
