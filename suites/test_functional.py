"""The functional API, torch.autograd.functional: vjp, jvp, jacobian, hessian, vhp and hvp of a
random program seen as a function of some of its leaves (FUNC-*, JAC-9), and autograd.grad's
batched vector-Jacobian products (JAC-10).

First derivatives are checked against the analytic float64 Jacobian (autograd_conformance/harness/oracles.py), second
derivatives against central differences of the analytic gradient, at FINITE_DIFFERENCE, on float64
programs only; the engine's results are also compared with each other where the rule says they are
equal (vjp and backward, jvp and jacobian, hvp and vhp, hessian and the jacobian of the gradient).
"""

import dataclasses
import textwrap

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from autograd_conformance.harness.counts import FUNCTION_INPUTS, FUNCTION_OUTPUTS, counts
from autograd_conformance.harness.oracles import (
    FINITE_DIFFERENCE,
    analytic_grads,
    analytic_jacobian,
    finite_difference_hessian,
    finite_difference_hvp,
)
from autograd_conformance.harness.program import Leaf, Node, Program
from autograd_conformance.harness.script import Script, tensor_literal
from autograd_conformance.harness.strategies import ALL_OPS, CURVED_OPS, cotangents, programs, shapes, values

behaviour = pytest.mark.behaviour
needs = pytest.mark.needs
control = pytest.mark.control
FUNCTIONAL = ("functional", "functional_api")
F = "torch.autograd.functional"
SECOND_ORDER = ("hessian", "hvp", "vhp")
APIS = ("vjp", "jvp", "jacobian") + SECOND_ORDER
ONE_ELEMENT_SHAPES = [(), (1,), (1, 1), (1, 1, 1)]
SEVERAL_ELEMENT_SHAPES = [(2,), (1, 3), (2, 2), (3, 1, 2)]
# Ops whose gradients are constants: the second derivatives of a program of them are zero, and its
# gradient has no path back to the inputs (matmul, mv and dot are bilinear, so left out).
LINEAR_OPS = ("add", "sub", "neg", "clone", "sum", "mean", "reshape", "transpose", "index",
              "index_list")


# -- a program seen as a function ----------------------------------------------------------------

@dataclasses.dataclass(frozen=True)
class Function:
    """`program` as the script's `function`: its parameters are the leaves `inputs` (and an
    argument `unused` that it ignores, if given values), which the script's `inputs` passes as a
    tuple when `packed`, else as one tensor; it returns `out`, or when `returns_tuple` a tuple of
    the variables `outputs`."""
    program: Program
    inputs: tuple[str, ...]
    packed: bool
    outputs: tuple[str, ...] = ("out",)
    returns_tuple: bool = False
    unused: np.ndarray | None = None

    @property
    def params(self) -> tuple[str, ...]:
        return self.inputs + (("unused",) if self.unused is not None else ())

    def shape(self, name: str) -> tuple[int, ...]:
        return self.unused.shape if name == "unused" else self.program.leaf(name).values.shape

    def jacobians(self) -> list:
        """The analytic Jacobian of each output with respect to the inputs."""
        return [analytic_jacobian(dataclasses.replace(
            self.program, output=self.program.output if name == "out" else name), list(self.inputs))
            for name in self.outputs]


@st.composite
def functions(draw, program: Program, *, several_outputs: bool = False, unused: bool = False,
              joined_by: str = "mul") -> Function:
    """`program` as a function of one to four of the leaves its output depends on (fresh leaves
    `joined_by` its output where it has too few: Program.fed_by), passed as a tuple, always when
    several; with `several_outputs`, returning one to four of its variables, its output first
    (as a tuple, always when several; distinct where it has enough); with `unused`, of one more
    argument it ignores. Tests use `fn.program`, which may have the fresh leaves."""
    count = draw(counts(FUNCTION_INPUTS), label="number of inputs")
    program = program.fed_by(count, joined_by)
    used = program.ancestors()
    candidates = [leaf.name for leaf in program.leaves if leaf.name in used]
    chosen = draw(st.lists(st.sampled_from(candidates), min_size=count, max_size=count,
                           unique=True), label="inputs")
    inputs = tuple(name for name in candidates if name in chosen)
    packed = len(inputs) > 1 or unused or draw(st.booleans(), label="inputs as a tuple")
    outputs, returns_tuple = ("out",), False
    if several_outputs:
        returned = draw(counts(FUNCTION_OUTPUTS), label="number of outputs")
        returns_tuple = returned > 1 or draw(st.booleans(), label="returns a tuple")
        others = [name for name in program.variables()[:-1] if name != program.output] or ["out"]
        outputs += tuple(draw(st.lists(st.sampled_from(others), min_size=returned - 1,
                                       max_size=returned - 1, unique=len(others) >= returned - 1),
                              label="other outputs"))
    extra = (draw(values(draw(shapes(), label="unused shape"), program.dtype), label="unused")
             if unused else None)
    return Function(program, inputs, packed, outputs, returns_tuple, extra)


def _define(script: Script, fn: Function, *, requires_grad: bool = False,
            detached: bool = False) -> None:
    """The script's input tensors, `inputs` as the function takes them, and `function` (its other
    leaves made afresh on each call; its output detached if `detached`)."""
    program = fn.program
    lines = [f"{name} = {tensor_literal(program.leaf(name).values, program.dtype, requires_grad)}"
             for name in fn.inputs]
    if fn.unused is not None:
        lines.append(f"unused = {tensor_literal(fn.unused, program.dtype, requires_grad)}")
    lines.append(f"inputs = ({', '.join(fn.params)},)" if fn.packed else f"inputs = {fn.params[0]}")
    returned = [f"{name}.detach()" if detached else name for name in fn.outputs]
    body = program.script_lines(given=fn.inputs) + [
        f"return ({', '.join(returned)},)" if fn.returns_tuple else f"return {returned[0]}"]
    lines.append(f"def function({', '.join(fn.params)}):\n"
                 + textwrap.indent("\n".join(body), "    "))
    script.run(*lines)


def _at(expression: str, index: int, packed: bool) -> str:
    """The part of a result for `index`: `expression[index]` where the result is a tuple."""
    return f"{expression}[{index}]" if packed else expression


def _block(expression: str, fn: Function, i: int, j: int) -> str:
    """jacobian's d output_i / d input_j (JAC-9)."""
    return _at(_at(expression, i, fn.returns_tuple), j, fn.packed)


def _check_nesting(script: Script, expression: str, count: int, packed: bool, what: str,
                   level: str = "tuple") -> None:
    """`expression` is a `level` (a tuple, or "(tuple, list)" for either) of `count` items where
    it should be (`packed`), else neither."""
    if packed:
        script.check(f"isinstance({expression}, {level}) and len({expression}) == {count}",
                     f"{what} should be a {level} of {count}",
                     show=(f"type({expression}).__name__",))
    else:
        script.check(f"not isinstance({expression}, {level})",
                     f"{what} should be one tensor, not a {level}: one was given or returned")


def _input_vectors(data, fn: Function) -> tuple[str, dict[str, np.ndarray]]:
    """A v for each parameter of the function, as the text of `inputs`' form and as arrays."""
    vectors = {name: data.draw(cotangents(fn.shape(name), fn.program.dtype), label=f"v for {name}")
               for name in fn.params}
    texts = [tensor_literal(v, fn.program.dtype) for v in vectors.values()]
    return (f"({', '.join(texts)},)" if fn.packed else texts[0]), vectors


def _call(data, which: str, fn: Function) -> tuple[str, dict[str, np.ndarray]]:
    """A call of `which` on `function` and `inputs`, with a drawn v where it takes one: its text,
    whose `{options}` takes keyword arguments (", strict=True"), and v's arrays by parameter."""
    args, vectors = "function, inputs", {}
    if which == "vjp":
        vectors = {"out": data.draw(cotangents(fn.program.output_shape(), fn.program.dtype),
                                    label="v")}
        args += ", " + tensor_literal(vectors["out"], fn.program.dtype)
    elif which in ("jvp", "hvp", "vhp"):
        text, vectors = _input_vectors(data, fn)
        args += ", " + text
    return f"{F}.{which}({args}{{options}})", vectors


@st.composite
def twice_differentiable(draw, engine, output: str = "scalar") -> Program:
    """A float64 program for second derivatives: mostly of ops with curvature (a linear program's
    are zero, which an engine that drops them would also give), or with kinks (abs, relu: zero
    second derivatives away from the kink)."""
    ops = draw(st.sampled_from([CURVED_OPS, CURVED_OPS + ("abs", "relu"), ALL_OPS]), label="ops")
    return draw(programs(engine, ops=ops, max_ops=4, output=output, dtype="float64"),
                label="program")


def _check_close_fd(script: Script, expression: str, expected, oracle: str) -> None:
    """A second derivative against its finite-difference oracle (or the engine's own, equal by
    the rule) at that oracle's tolerance."""
    __tracebackhide__ = True
    script.check_close(expression, expected, dtype="float64", oracle=oracle,
                       tolerance=FINITE_DIFFERENCE)


# -- FUNC-1, FUNC-2: vjp and jvp ---------------------------------------------------------------

@behaviour("FUNC-1")
@needs(*FUNCTIONAL)
@given(data=st.data())
def test_vjp_returns_the_output_and_v_transposed_j(engine, data):
    """vjp(function, inputs, v) returns the function's value and, for each input, v^T J: the
    analytic one, and what backward(v) accumulates into that input of the program built anew."""
    program = data.draw(programs(engine, output="any"), label="program")
    fn = data.draw(functions(program), label="function")
    program = fn.program
    v = data.draw(cotangents(program.output_shape(), program.dtype), label="v")
    v_text = tensor_literal(v, program.dtype)
    expected = analytic_grads(program, v, wrt=list(fn.inputs))
    script = Script(engine)
    _define(script, fn)
    script.run(f"output, vjps = {F}.vjp(function, inputs, {v_text})")
    _check_nesting(script, "vjps", len(fn.inputs), fn.packed, "vjp's v^T J")
    for j, name in enumerate(fn.inputs):
        script.check_close(_at("vjps", j, fn.packed), expected[name], dtype=program.dtype,
                           oracle="analytic v^T J", magnitude=expected.magnitude)
    script.run("# The program built with the inputs requiring grad: backward(v)")
    script.build(program.with_requires_grad(dict.fromkeys(fn.inputs, True)))
    script.check_agrees("output", "out", dtype=program.dtype, oracle="the program's own output")
    script.run(f"out.backward({v_text})")
    for j, name in enumerate(fn.inputs):
        script.check_agrees(_at("vjps", j, fn.packed), f"{name}.grad", dtype=program.dtype,
                            oracle="backward(v)", magnitude=expected.magnitude)


@behaviour("FUNC-1", "FUNC-2")
@needs(*FUNCTIONAL)
def test_vjp_and_jvp_of_a_small_function(engine):
    """f(x) = x ** 2 * x.sum() at x = [1, 2, 3] has J = [[13, 1, 1], [4, 28, 4], [9, 9, 45]]:
    with v = [1, 0.5, 0.25], v^T J = [17.25, 17.25, 14.25] and J v = [13.75, 19, 24.75]."""
    script = Script(engine)
    script.run("x = torch.tensor([1.0, 2.0, 3.0], dtype=torch.float64)",
               "v = torch.tensor([1.0, 0.5, 0.25], dtype=torch.float64)",
               "def f(x):\n    return x ** 2 * x.sum()",
               f"output, vjp = {F}.vjp(f, x, v)",
               f"_, jvp = {F}.jvp(f, x, v)")
    script.check_close("output", [6.0, 24.0, 54.0], dtype="float64", oracle="f(x)")
    script.check_close("vjp", [17.25, 17.25, 14.25], dtype="float64", oracle="exact v^T J",
                       behaviour="FUNC-1")
    script.check_close("jvp", [13.75, 19.0, 24.75], dtype="float64", oracle="exact J v",
                       behaviour="FUNC-2")


@behaviour("FUNC-2")
@needs(*FUNCTIONAL)
@given(data=st.data())
def test_jvp_returns_the_output_and_j_v(engine, data):
    """jvp(function, inputs, v) returns the function's value and J v, the sum over the inputs of
    each Jacobian block times that input's v: the analytic one, and the engine's own jacobian
    times v."""
    program = data.draw(programs(engine, output="any"), label="program")
    fn = data.draw(functions(program), label="function")
    program = fn.program
    v_text, vectors = _input_vectors(data, fn)
    (jacobian,) = fn.jacobians()
    expected, magnitude = jacobian.times(vectors)
    script = Script(engine)
    _define(script, fn)
    script.run(f"v = {v_text}",
               f"output, jvp = {F}.jvp(function, inputs, v)")
    script.check_close("jvp", expected, dtype=program.dtype, oracle="analytic J v",
                       magnitude=magnitude)
    script.check_agrees("output", f"function({'*' if fn.packed else ''}inputs)",
                        dtype=program.dtype, oracle="the function's value")
    pairs = "zip(jacobian, v)" if fn.packed else "[(jacobian, v)]"
    script.run(f"jacobian = {F}.jacobian(function, inputs)",
               f"jacobian_times_v = sum(np.tensordot(to_numpy(block), to_numpy(vector), "
               f"axes=to_numpy(vector).ndim) for block, vector in {pairs})")
    script.check_agrees("jvp", "jacobian_times_v", dtype=program.dtype,
                        oracle="the engine's jacobian times v", magnitude=magnitude)


# -- FUNC-3: v left out --------------------------------------------------------------------------

def _scaled(program: Program, leaf: str, shape: tuple[int, ...]) -> Program:
    """`program` as a function of a new leaf s of `shape`, all ones, that scales `leaf`: the
    leaf becomes its values times s.sum(), so that the program's value is unchanged and its
    derivatives with respect to s are those along the leaf's values."""
    values_leaf = Leaf(f"{leaf}_values", program.leaf(leaf).values, False)
    s = Leaf("s", np.ones(shape), True)
    nodes = (Node("s_total", "sum", ("s",)), Node(leaf, "mul", (values_leaf.name, "s_total")))
    leaves = tuple(other for other in program.leaves if other.name != leaf) + (values_leaf, s)
    return Program(program.dtype, leaves, nodes + program.nodes, program.output)


@behaviour("FUNC-3")
@needs(*FUNCTIONAL)
@given(data=st.data())
def test_vjp_takes_v_as_1_for_a_one_element_output(engine, data):
    """Without v, vjp of a function returning one tensor of one element, of any shape, gives
    its gradient (v = 1)."""
    program = data.draw(programs(engine), label="program")
    fn = data.draw(functions(program), label="function")
    program = fn.program
    shape = data.draw(st.sampled_from(ONE_ELEMENT_SHAPES), label="output shape")
    expected = analytic_grads(program, wrt=list(fn.inputs))
    script = Script(engine)
    _define(script, fn)
    script.run(f"output, vjps = {F}.vjp(lambda *args: function(*args).reshape({shape}), "
               f"{'inputs' if fn.packed else '(inputs,)'})")
    for j, name in enumerate(fn.inputs):
        script.check_close(f"vjps[{j}]", expected[name], dtype=program.dtype,
                           oracle="analytic gradient", magnitude=expected.magnitude)


@behaviour("FUNC-3")
@control("test_functional.py::test_vjp_takes_v_as_1_for_a_one_element_output")
@needs(*FUNCTIONAL)
@given(data=st.data(), how=st.sampled_from(["several elements", "a tuple of two"]))
def test_vjp_without_v_raises_unless_the_output_is_one_element(engine, data, how):
    """vjp without v raises RuntimeError for an output of several elements, and for a tuple of
    two outputs even of one element each."""
    program = data.draw(programs(engine, output="vector" if how == "several elements"
                                 else "scalar"), label="program")
    fn = data.draw(functions(program), label="function")
    script = Script(engine)
    _define(script, fn)
    returned = "function" if how == "several elements" else "lambda *args: (function(*args),) * 2"
    script.raises(f"{F}.vjp({returned}, {'inputs' if fn.packed else '(inputs,)'})")


@behaviour("FUNC-3")
@needs(*FUNCTIONAL)
@pytest.mark.parametrize("which", ["jvp", pytest.param("hvp", marks=needs("float64")),
                                   pytest.param("vhp", marks=needs("float64"))])
@given(data=st.data())
def test_v_is_1_for_one_input_of_one_element(engine, which, data):
    """Without v, jvp, hvp and vhp of a function of one input of one element, of any shape, take
    v = 1: jvp gives d out / ds, hvp and vhp d2 out / ds2 (the function is a program whose leaf is
    scaled by s, so that they are the derivatives along the leaf's values)."""
    program = data.draw(twice_differentiable(engine) if which != "jvp"
                        else programs(engine, output="any"), label="program")
    leaf = data.draw(st.sampled_from(sorted(program.ancestors() & {
        leaf.name for leaf in program.leaves})), label="scaled leaf")
    shape = data.draw(st.sampled_from(ONE_ELEMENT_SHAPES), label="shape of s")
    scaled = _scaled(program, leaf, shape)
    script = Script(engine)
    _define(script, Function(scaled, ("s",), packed=False))
    script.run(f"output, derivative = {F}.{which}(function, inputs)")
    if which == "jvp":
        (jacobian,) = Function(scaled, ("s",), packed=False).jacobians()
        script.check_close("derivative", jacobian.blocks["s"].reshape(program.output_shape()),
                           dtype=program.dtype, oracle="analytic d out / ds",
                           magnitude=jacobian.magnitude)
    else:
        second = finite_difference_hessian(scaled, ["s"])["s", "s"]
        _check_close_fd(script, "derivative", second.reshape(shape),
                        "finite differences of d out / ds")


@behaviour("FUNC-3")
@control("test_functional.py::test_v_is_1_for_one_input_of_one_element")
@needs(*FUNCTIONAL)
@pytest.mark.parametrize("which", ["jvp", "hvp", "vhp"])
@given(data=st.data(), how=st.sampled_from(["several elements", "a tuple of two"]))
def test_v_left_out_raises_unless_one_input_of_one_element(engine, which, data, how):
    """jvp, hvp and vhp without v raise RuntimeError for an input of several elements, and for a
    tuple of two inputs even of one element each."""
    program = data.draw(programs(engine, output="any" if which == "jvp" else "scalar"),
                        label="program")
    leaf = data.draw(st.sampled_from(sorted(program.ancestors() & {
        leaf.name for leaf in program.leaves})), label="scaled leaf")
    several = how == "several elements"
    shape = data.draw(st.sampled_from(SEVERAL_ELEMENT_SHAPES if several else ONE_ELEMENT_SHAPES),
                      label="shape of s")
    scaled = _scaled(program, leaf, shape)
    script = Script(engine)
    _define(script, Function(scaled, ("s",), packed=not several,
                             unused=None if several else np.ones(shape)))
    script.raises(f"{F}.{which}(function, inputs)")


# -- FUNC-4, FUNC-5: hessian, hvp and vhp --------------------------------------------------------

def _transposed(expression: str, fn: Function, a: str, b: str) -> str:
    """The block d2 / d b d a (b.shape + a.shape) as NumPy, transposed to a.shape + b.shape."""
    first, second = len(fn.shape(b)), len(fn.shape(a))
    axes = list(range(first, first + second)) + list(range(first))
    return f"np.transpose(to_numpy({expression}), {axes})"


@behaviour("FUNC-4")
@needs(*FUNCTIONAL, "float64")
@given(data=st.data())
def test_hessian_is_symmetric_and_the_jacobian_of_the_gradient(engine, data):
    """hessian(function, inputs) of a one-element function: block [i][j] = d2 out / d in_i d in_j,
    shaped in_i.shape + in_j.shape (tuples where inputs is one), equal to central differences of
    the analytic gradient, to the transpose of block [j][i], and to the engine's jacobian of the
    gradient (itself a jacobian taken with create_graph)."""
    program = data.draw(twice_differentiable(engine), label="program")
    fn = data.draw(functions(program), label="function")
    program = fn.program
    expected = finite_difference_hessian(program, list(fn.inputs))
    star = "*" if fn.packed else ""
    script = Script(engine)
    _define(script, fn)
    script.run(f"hessian = {F}.hessian(function, inputs)",
               f"def gradient({star}xs):\n"
               f"    return {F}.jacobian(lambda {star}a: function({star}a).sum(), xs, "
               "create_graph=True)",
               f"jacobian_of_gradient = {F}.jacobian(gradient, inputs)")
    _check_nesting(script, "hessian", len(fn.inputs), fn.packed, "hessian")
    for i, a in enumerate(fn.inputs):
        _check_nesting(script, _at("hessian", i, fn.packed), len(fn.inputs), fn.packed,
                       f"hessian's row for {a}")
        for j, b in enumerate(fn.inputs):
            block = _at(_at("hessian", i, fn.packed), j, fn.packed)
            _check_close_fd(script, block, expected[a, b], "finite differences of the gradient")
            transposed = _transposed(_at(_at("hessian", j, fn.packed), i, fn.packed), fn, a, b)
            script.check_agrees(block, transposed, dtype="float64", oracle="its transpose",
                                tolerance=FINITE_DIFFERENCE)
            script.check_agrees(block, _at(_at("jacobian_of_gradient", i, fn.packed), j,
                                           fn.packed),
                                dtype="float64", oracle="the jacobian of the gradient",
                                tolerance=FINITE_DIFFERENCE)


@behaviour("FUNC-5")
@needs(*FUNCTIONAL, "float64")
@given(data=st.data())
def test_hvp_and_vhp_are_the_hessian_times_v(engine, data):
    """hvp(function, inputs, v) and vhp(function, inputs, v) of a one-element function return its
    value and, per input, H v and v^T H: equal to each other (H is symmetric) and to central
    differences of the analytic gradient's product with v."""
    program = data.draw(twice_differentiable(engine), label="program")
    fn = data.draw(functions(program), label="function")
    program = fn.program
    v_text, vectors = _input_vectors(data, fn)
    expected = finite_difference_hvp(program, vectors)
    script = Script(engine)
    _define(script, fn)
    script.run(f"v = {v_text}",
               f"output, hvp = {F}.hvp(function, inputs, v)",
               f"output_of_vhp, vhp = {F}.vhp(function, inputs, v)")
    for result in ("hvp", "vhp"):
        _check_nesting(script, result, len(fn.inputs), fn.packed, result)
        for j, name in enumerate(fn.inputs):
            _check_close_fd(script, _at(result, j, fn.packed), expected[name],
                            "finite differences of the gradient times v")
    for j, name in enumerate(fn.inputs):
        script.check_agrees(_at("hvp", j, fn.packed), _at("vhp", j, fn.packed),
                            dtype="float64", oracle="vhp", tolerance=FINITE_DIFFERENCE)
    for output in ("output", "output_of_vhp"):
        script.check_agrees(output, f"function({'*' if fn.packed else ''}inputs)",
                            dtype="float64", oracle="the function's value")


@behaviour("FUNC-5")
@needs(*FUNCTIONAL, "float64")
@pytest.mark.parametrize("which", ["hvp", "vhp"])
def test_hvp_and_vhp_of_two_inputs_keep_the_mixed_derivatives(engine, which):
    """f(a, b) = sum(a ** 2) * sum(b ** 3) at a = [1, 2, 3], b = [[0.5, -1]], v = ones: H v has the
    blocks d2f/da2 = 2 sum(b ** 3) I, d2f/da db = 2a (3b ** 2)^T, d2f/db2 = 6 sum(a ** 2) diag(b),
    giving ([5.75, 13.25, 20.75], [[51, -48]]), and f = -12.25."""
    script = Script(engine)
    script.run("a = torch.tensor([1.0, 2.0, 3.0], dtype=torch.float64)",
               "b = torch.tensor([[0.5, -1.0]], dtype=torch.float64)",
               "def f(a, b):\n    return (a ** 2).sum() * (b ** 3).sum()",
               f"output, (for_a, for_b) = {F}.{which}(f, (a, b), "
               "(torch.ones(3, dtype=torch.float64), torch.ones(1, 2, dtype=torch.float64)))")
    script.check_close("output", -12.25, dtype="float64", oracle="f(a, b)")
    script.check_close("for_a", [5.75, 13.25, 20.75], dtype="float64", oracle="exact (H v) for a")
    script.check_close("for_b", [[51.0, -48.0]], dtype="float64", oracle="exact (H v) for b")

# -- FUNC-6: strict --------------------------------------------------------------------------------

def _derivatives(which: str, fn: Function, result: str) -> list[tuple[str, tuple, str | None]]:
    """Where the derivatives are in `which`'s result: (expression, shape, the parameter it is for,
    or None for jvp's, which is output-shaped)."""
    if which == "jvp":
        return [(f"{result}[1]", fn.program.output_shape(), None)]
    if which in ("vjp", "hvp", "vhp"):
        return [(_at(f"{result}[1]", j, fn.packed), fn.shape(name), name)
                for j, name in enumerate(fn.params)]
    if which == "jacobian":
        return [(_at(result, j, fn.packed), fn.program.output_shape() + fn.shape(name), name)
                for j, name in enumerate(fn.params)]
    return [(_at(_at(result, i, fn.packed), j, fn.packed), fn.shape(a) + fn.shape(b), a + "/" + b)
            for i, a in enumerate(fn.params) for j, b in enumerate(fn.params)]


@behaviour("FUNC-6")
@needs(*FUNCTIONAL)
@pytest.mark.parametrize("which", APIS)
@given(data=st.data(), how=st.sampled_from(["an unused input", "a detached output"]))
def test_strict_refuses_an_output_that_does_not_depend_on_an_input(engine, which, data, how):
    """With strict=True, a function that ignores one of its inputs, or whose output does not
    require grad, raises RuntimeError; with strict=False the derivatives with respect to what the
    output does not depend on are zeros (jvp's: what the other inputs give)."""
    program = data.draw(programs(engine, output="scalar" if which in SECOND_ORDER else "any"),
                        label="program")
    unused = how == "an unused input"
    fn = data.draw(functions(program, unused=unused), label="function")
    program = fn.program
    call, vectors = _call(data, which, fn)
    script = Script(engine)
    _define(script, fn, detached=not unused)
    script.raises(call.format(options=", strict=True"))
    with script.control():
        script.run(f"result = {call.format(options=', strict=False')}")
        for expression, shape, name in _derivatives(which, fn, "result"):
            if name is None and unused:  # jvp: the unused input's v adds nothing
                (jacobian,) = fn.jacobians()
                expected, magnitude = jacobian.times({key: vectors[key] for key in fn.inputs})
                script.check_close(expression, expected, dtype=program.dtype,
                                   oracle="analytic J v of the used inputs", magnitude=magnitude)
            elif not unused or "unused" in name.split("/"):
                script.check_close(expression, np.zeros(shape), dtype=program.dtype,
                                   oracle="zeros: no dependence")


@behaviour("FUNC-6")
@needs(*FUNCTIONAL)
@pytest.mark.parametrize("which", SECOND_ORDER)
@given(data=st.data())
def test_strict_refuses_second_derivatives_of_a_linear_function(engine, which, data):
    """For a function of linear ops only, whose gradient has no path back to the inputs, strict
    hessian, hvp and vhp raise RuntimeError; without strict its second derivatives are zeros."""
    program = data.draw(programs(engine, ops=LINEAR_OPS), label="linear program")
    fn = data.draw(functions(program, joined_by="add"), label="function")
    program = fn.program
    call, _ = _call(data, which, fn)
    script = Script(engine)
    _define(script, fn)
    script.raises(call.format(options=", strict=True"))
    with script.control():
        script.run(f"result = {call.format(options='')}")
        for expression, shape, _ in _derivatives(which, fn, "result"):
            script.check_close(expression, np.zeros(shape), dtype=program.dtype,
                               oracle="zeros: a linear function")


@behaviour("FUNC-6")
@needs(*FUNCTIONAL)
@given(data=st.data())
def test_strict_refuses_a_constant_jacobian_under_create_graph(engine, data):
    """A function of linear ops has a Jacobian that does not depend on its inputs: strict
    jacobian gives it, the analytic one, while strict jacobian with create_graph=True raises
    RuntimeError, as create_graph could not differentiate it."""
    program = data.draw(programs(engine, ops=LINEAR_OPS, output="any"), label="linear program")
    fn = data.draw(functions(program, joined_by="add"), label="function")
    script = Script(engine)
    _define(script, fn)
    script.raises(f"{F}.jacobian(function, inputs, strict=True, create_graph=True)")
    with script.control():
        script.run(f"jacobian = {F}.jacobian(function, inputs, strict=True)")
        _check_jacobian(script, "jacobian", fn)


@behaviour("FUNC-6")
@control("test_functional.py::test_vectorize_gives_the_same_jacobian")
@needs(*FUNCTIONAL)
@pytest.mark.parametrize("which", ("jacobian", "hessian"))
@given(data=st.data())
def test_strict_and_vectorize_are_refused_together(engine, which, data):
    """strict=True together with vectorize=True raises RuntimeError for any function, one that
    strict accepts too (its derivatives depend on every input)."""
    program = data.draw(twice_differentiable(engine) if which == "hessian"
                        else programs(engine, output="any"), label="program")
    fn = data.draw(functions(program), label="function")
    script = Script(engine)
    _define(script, fn)
    script.run(f"accepted = {F}.{which}(function, inputs, strict=False, vectorize=True)")
    script.raises(f"{F}.{which}(function, inputs, strict=True, vectorize=True)")


# -- FUNC-7: create_graph --------------------------------------------------------------------------

# Every tensor of a (nested) result.
TENSORS_IN = ("def tensors_in(result):\n"
              "    if isinstance(result, tuple):\n"
              "        return [t for part in result for t in tensors_in(part)]\n"
              "    return [result]")


@behaviour("FUNC-7")
@needs(*FUNCTIONAL)
@pytest.mark.parametrize("which", APIS)
@given(data=st.data())
def test_without_create_graph_no_result_requires_grad(engine, which, data):
    """Without create_graph, whatever the API returns, the function's outputs included, has no
    history, although the inputs require grad."""
    program = data.draw(programs(engine, output="scalar" if which in SECOND_ORDER else "any"),
                        label="program")
    fn = data.draw(functions(program), label="function")
    call, _ = _call(data, which, fn)
    script = Script(engine)
    _define(script, fn, requires_grad=True)
    script.run(TENSORS_IN, f"result = {call.format(options='')}")
    script.check("all(not t.requires_grad and t.grad_fn is None for t in tensors_in(result))",
                 "a result requires grad without create_graph: "
                 "{[t.requires_grad for t in tensors_in(result)]}")


@behaviour("FUNC-7")
@needs(*FUNCTIONAL, "autograd_grad", "float64")
@pytest.mark.parametrize("which", ["vjp", "jvp", "jacobian"])
@given(data=st.data())
def test_create_graph_makes_first_derivatives_differentiable(engine, which, data):
    """With create_graph=True and an input x that requires grad, vjp's v^T J, jvp's J v and the
    jacobian of a one-element function keep their values and are differentiable: the gradient of
    sum(w * derivative) with respect to x equals central differences of the analytic one (a
    derivative without history must be a constant: zero)."""
    program = data.draw(twice_differentiable(engine, "scalar" if which == "jacobian" else "any"),
                        label="program")
    fn = data.draw(functions(program), label="function")
    program = fn.program
    x = fn.inputs[0]
    call, vectors = _call(data, which, fn)
    script = Script(engine)
    _define(script, fn, requires_grad=True)
    result = "derivative" if which == "jacobian" else "_, derivative"
    script.run(f"{result} = {call.format(options=', create_graph=True')}")
    (jacobian,) = fn.jacobians()
    if which == "vjp":
        first = analytic_grads(program, vectors["out"], wrt=list(fn.inputs))
        expected, magnitude, cotangent = first[x], first.magnitude, vectors["out"]
    elif which == "jvp":
        (expected, magnitude), cotangent = jacobian.times(vectors), None
    else:
        expected, magnitude, cotangent = jacobian.blocks[x], jacobian.magnitude, None
    own = _at("derivative", 0, fn.packed and which != "jvp")
    script.check_close(own, expected, dtype="float64", oracle="analytic", magnitude=magnitude)
    w = data.draw(cotangents(expected.shape, "float64"), label="w")
    if which == "jvp":  # d(w . J v)/dx = d(v . J^T w)/dx
        second = finite_difference_hvp(program, {name: vectors[name] for name in fn.inputs}, w)
    else:
        second = finite_difference_hvp(program, {x: w.reshape(fn.shape(x))}, cotangent)
    script.run(f"w = {tensor_literal(w, 'float64')}",
               "second = None",
               f"if {own}.requires_grad:  # else a constant: a zero derivative",
               f"    (second,) = torch.autograd.grad(({own} * w).sum(), [{x}], allow_unused=True)",
               f"second = torch.zeros_like({x}) if second is None else second")
    _check_close_fd(script, "second", second[x], "finite differences of the analytic derivative")


@behaviour("FUNC-7")
@needs(*FUNCTIONAL, "autograd_grad", "float64")
@pytest.mark.parametrize("which", SECOND_ORDER)
def test_create_graph_makes_second_derivatives_differentiable(engine, which):
    """f(x) = sum(x ** 3) at x = [1, 2, 3] requiring grad: with create_graph=True, its Hessian
    diag(6 x) (and H v, v^T H with v = 1: 6 x) is differentiable, with the derivative of the sum
    of its entries 6 for each x."""
    script = Script(engine)
    call = {"hessian": f"{F}.hessian(f, x, create_graph=True)",
            "hvp": f"{F}.hvp(f, x, torch.ones(3, dtype=torch.float64), create_graph=True)[1]",
            "vhp": f"{F}.vhp(f, x, torch.ones(3, dtype=torch.float64), create_graph=True)[1]"}
    script.run("x = torch.tensor([1.0, 2.0, 3.0], dtype=torch.float64, requires_grad=True)",
               "def f(x):\n    return (x ** 3).sum()",
               f"second = {call[which]}")
    exact = np.diag([6.0, 12.0, 18.0]) if which == "hessian" else np.array([6.0, 12.0, 18.0])
    script.check_close("second", exact, dtype="float64", oracle="exact diag(6 x)")
    script.check("second.requires_grad", f"{which}(create_graph=True) has no history")
    script.run("(third,) = torch.autograd.grad(second.sum(), [x])")
    script.check_close("third", [6.0, 6.0, 6.0], dtype="float64", oracle="exact d sum / dx")


# -- JAC-9, FUNC-8, FUNC-9: jacobian's layout, vectorize and forward mode --------------------

def _check_jacobian(script: Script, expression: str, fn: Function, *, against: str | None = None,
                    level: str = "tuple"):
    """`expression` is jacobian's result for `fn`: nested output first (each level a `level`),
    each block d output_i / d input_j equal to the analytic one (and to the blocks of
    `against`)."""
    __tracebackhide__ = True
    dtype = fn.program.dtype
    if fn.returns_tuple:  # else the outputs add no level
        _check_nesting(script, expression, len(fn.outputs), True, "jacobian's outputs", level)
    for i, jacobian in enumerate(fn.jacobians()):
        _check_nesting(script, _at(expression, i, fn.returns_tuple), len(fn.inputs), fn.packed,
                       f"jacobian's row for output {fn.outputs[i]}", level)
        for j, name in enumerate(fn.inputs):
            block = _block(expression, fn, i, j)
            script.check_close(block, jacobian.blocks[name], dtype=dtype, oracle="analytic",
                               magnitude=jacobian.magnitude)
            if against is not None:
                script.check_agrees(block, _block(against, fn, i, j), dtype=dtype,
                                    oracle=against, magnitude=jacobian.magnitude)


@behaviour("JAC-9")
@needs(*FUNCTIONAL)
@given(data=st.data())
def test_jacobian_nests_its_blocks_output_first(engine, data):
    """jacobian(function, inputs) for one or several inputs and outputs: result[i][j] is
    d output_i / d input_j, shaped output_i.shape + input_j.shape, with a level of tuple for the
    outputs only where the function returns a tuple, and for the inputs only where they are one."""
    program = data.draw(programs(engine, output="any", max_ops=4), label="program")
    fn = data.draw(functions(program, several_outputs=True), label="function")
    script = Script(engine)
    _define(script, fn)
    script.run(f"jacobian = {F}.jacobian(function, inputs)")
    _check_jacobian(script, "jacobian", fn)


@behaviour("FUNC-8")
@needs(*FUNCTIONAL)
@given(data=st.data())
def test_vectorize_gives_the_same_jacobian(engine, data):
    """jacobian(..., vectorize=True) has the layout and values of jacobian(...): the analytic
    ones, for one or several inputs and outputs."""
    program = data.draw(programs(engine, output="any", max_ops=4), label="program")
    fn = data.draw(functions(program, several_outputs=True), label="function")
    script = Script(engine)
    _define(script, fn)
    script.run(f"jacobian = {F}.jacobian(function, inputs)",
               f"vectorized = {F}.jacobian(function, inputs, vectorize=True)")
    _check_jacobian(script, "vectorized", fn, against="jacobian")


@behaviour("FUNC-8")
@needs(*FUNCTIONAL, "float64")
@given(data=st.data())
def test_vectorize_gives_the_same_hessian(engine, data):
    """hessian(..., vectorize=True) has the layout and values of hessian(...): central
    differences of the analytic gradient."""
    program = data.draw(twice_differentiable(engine), label="program")
    fn = data.draw(functions(program), label="function")
    program = fn.program
    expected = finite_difference_hessian(program, list(fn.inputs))
    script = Script(engine)
    _define(script, fn)
    script.run(f"hessian = {F}.hessian(function, inputs)",
               f"vectorized = {F}.hessian(function, inputs, vectorize=True)")
    for expression, _, pair in _derivatives("hessian", fn, "vectorized"):
        _check_close_fd(script, expression, expected[tuple(pair.split("/"))],
                        "finite differences of the gradient")
        script.check_agrees(expression, expression.replace("vectorized", "hessian", 1),
                            dtype="float64", oracle="hessian", tolerance=FINITE_DIFFERENCE)


@behaviour("FUNC-9")
@needs(*FUNCTIONAL)
@given(data=st.data())
def test_forward_mode_gives_the_same_jacobian(engine, data):
    """jacobian(..., vectorize=True, strategy="forward-mode") has the values and the nesting of
    jacobian(...) in reverse mode: the analytic ones, for one or several inputs and outputs.
    Its levels may be lists (torch 2.13 builds them so where the inputs are a tuple)."""
    program = data.draw(programs(engine, output="any", max_ops=4), label="program")
    fn = data.draw(functions(program, several_outputs=True), label="function")
    script = Script(engine)
    _define(script, fn)
    script.run(f"jacobian = {F}.jacobian(function, inputs)",
               f"forward = {F}.jacobian(function, inputs, vectorize=True, "
               "strategy='forward-mode')")
    _check_jacobian(script, "forward", fn, against="jacobian", level="(tuple, list)")


@behaviour("FUNC-9")
@needs(*FUNCTIONAL)
@given(data=st.data(), dtype=st.sampled_from(["float32", "float64"]))
def test_forward_mode_jacobian_of_a_tensor_passed_twice(engine, data, dtype):
    """jacobian(f, (x, x), vectorize=True, strategy="forward-mode") with f(a, b) = a * b + a has
    one block per argument, though both are x: diag(x + 1) for a and diag(x) for b (as in reverse
    mode); an engine that merges the repeated input loses a block."""
    shape = data.draw(shapes(), label="shape")
    x = data.draw(values(shape, dtype), label="x")
    script = Script(engine)
    script.run(f"x = {tensor_literal(x, dtype)}",
               f"forward = {F}.jacobian(lambda a, b: a * b + a, (x, x), vectorize=True, "
               "strategy='forward-mode')")
    script.check("len(forward) == 2", "jacobian gave {len(forward)} blocks for the inputs (x, x)")
    for index, (diagonal, oracle) in enumerate(((x + 1, "diag(x + 1)"), (x, "diag(x)"))):
        block = np.diag(diagonal.reshape(-1)).reshape(shape + shape)
        script.check_close(f"forward[{index}]", block, dtype=dtype, oracle=f"analytic {oracle}")


# -- JAC-10: is_grads_batched ----------------------------------------------------------------------

@behaviour("JAC-10")
@needs("autograd_grad", "grads_batched")
@given(data=st.data(), batch=st.integers(1, 3))
def test_batched_grad_outputs_give_one_vjp_per_vector(engine, data, batch):
    """autograd.grad(out, leaves, V, is_grads_batched=True) with V of shape (batch,) + out.shape:
    each result has shape (batch,) + leaf.shape, row b being the analytic V[b]^T J."""
    program = data.draw(programs(engine, output="vector"), label="program")
    leaves = program.grad_leaves()
    shape = (batch,) + program.output_shape()
    batched = data.draw(cotangents(shape, program.dtype), label="V")
    expected = [analytic_grads(program, row) for row in batched]
    script = Script(engine)
    script.build(program)
    script.run(f"grads = torch.autograd.grad(out, [{', '.join(leaf.name for leaf in leaves)}], "
               f"{tensor_literal(batched, program.dtype)}, is_grads_batched=True)")
    for index, leaf in enumerate(leaves):
        script.check_close(f"grads[{index}]", np.stack([row[leaf.name] for row in expected]),
                           dtype=program.dtype, oracle="analytic V[b]^T J, stacked",
                           magnitude=max(row.magnitude for row in expected))


@behaviour("JAC-10")
@needs("autograd_grad", "grads_batched")
def test_batched_unit_vectors_give_the_jacobian(engine):
    """Fact sheet JAC-10: x = [1, 2, 3], autograd.grad(x ** 2, x, I, is_grads_batched=True) with
    I the 3 x 3 identity is the Jacobian diag(2, 4, 6), in one call."""
    script = Script(engine)
    script.run("x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)",
               "identity = torch.tensor([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]])",
               "(jacobian,) = torch.autograd.grad(x ** 2, x, identity, is_grads_batched=True)")
    script.check_close("jacobian", np.diag([2.0, 4.0, 6.0]), dtype="float32",
                       oracle="exact diag(2 x)")
