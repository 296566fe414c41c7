"""Complex autograd: torch's convention that a complex leaf z = x + iy of a real loss L gets
z.grad = dL/dx + i dL/dy (twice the conjugate Wirtinger derivative dL/dz*), what that means for
holomorphic and non-holomorphic ops, for real inputs on complex paths, and for the gradients
backward and autograd.grad accept (CPLX-*, JAC-4). The random programs' oracle
(harness.complex_programs) runs the same program on the real and imaginary parts as real leaves;
torch running the same program is the differential oracle."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from autograd_conformance.harness.checks import differential_oracle
from autograd_conformance.harness.complex_programs import REAL_DTYPE, complex_literal, complex_programs, complex_values
from autograd_conformance.harness.oracles import analytic_grads
from autograd_conformance.harness.script import Script, tensor_literal
from autograd_conformance.harness.strategies import shapes, values

behaviour = pytest.mark.behaviour
needs = pytest.mark.needs
control = pytest.mark.control
pytestmark = needs("complex")

COMPLEX_DTYPES = st.sampled_from(("complex64", "complex128"))
REAL_LOSS = "loss = (out.conj() * v).real.sum()"    # Re(sum(conj(out) * v)): out.backward(v)'s L


def _complex_tensor(array, dtype, requires_grad=False) -> str:
    flag = ", requires_grad=True" if requires_grad else ""
    return f"torch.tensor({complex_literal(array)}, dtype=torch.{dtype}{flag})"


def _check_complex_grad(script, expression, expected, dtype, oracle, magnitude=0.0):
    """`expression` (a complex tensor) matches the complex array `expected`, part by part, within
    the tolerance of its real dtype."""
    __tracebackhide__ = True
    for part, take in (("real", np.real), ("imag", np.imag)):
        script.check_close(f"to_numpy({expression}).{part}", take(expected),
                           dtype=REAL_DTYPE[dtype], oracle=oracle, magnitude=magnitude)


def _check_against_split(script, program, names):
    """Each complex leaf's gradient (`names[leaf]`, a script expression) has the complex program's
    dtype and equals dL/dx + i dL/dy from the real program on its parts."""
    __tracebackhide__ = True
    expected = analytic_grads(program.split())
    for leaf, _ in program.leaves:
        script.check(f"{names[leaf]}.dtype == torch.{program.dtype}",
                     f"{names[leaf]} does not have the program's dtype {program.dtype}",
                     show=(f"{names[leaf]}.dtype",))
        _check_complex_grad(script, names[leaf], expected[f"{leaf}_re"] + 1j * expected[f"{leaf}_im"],
                            program.dtype, "dL/dx + i dL/dy (real and imaginary parts)",
                            expected.magnitude)


@behaviour("CPLX-1")
@given(dtype=COMPLEX_DTYPES, shape=shapes(), data=st.data(), flag_by=st.sampled_from(
    ("requires_grad=True", "requires_grad_()")))
def test_complex_leaves_require_grad_and_get_grads_of_their_dtype(engine, dtype, shape, data,
                                                                  flag_by):
    """complex64 and complex128 tensors may require grad (only integer and bool ones may not), and
    a real loss's backward leaves a .grad of the leaf's complex dtype and shape."""
    z = data.draw(complex_values(shape, dtype), label="z")
    script = Script(engine)
    made = _complex_tensor(z, dtype, flag_by == "requires_grad=True")
    script.run(f"z = {made}" + ("" if flag_by == "requires_grad=True" else ".requires_grad_()"))
    script.check("z.requires_grad and z.is_leaf", "z should be a leaf requiring grad")
    script.run("(z * z.conj()).real.sum().backward()")
    script.check(f"z.grad.dtype == torch.{dtype} and tuple(z.grad.shape) == {shape!r}",
                 f"z.grad does not have z's dtype {dtype} and shape {shape}",
                 show=("z.grad.dtype", "tuple(z.grad.shape)"))
    _check_complex_grad(script, "z.grad", 2 * z, dtype, "d|z|^2 = 2z")


@behaviour("CPLX-2")
@given(program=complex_programs())
def test_complex_gradients_are_dL_dx_plus_i_dL_dy(engine, program):
    """For a real loss of random complex programs, each complex leaf's .grad is dL/dx + i dL/dy,
    checked against the same program run on the real and imaginary parts."""
    script = Script(engine)
    script.run(*program.script_lines(), REAL_LOSS, "loss.backward()")
    _check_against_split(script, program, {leaf: f"{leaf}.grad" for leaf, _ in program.leaves})


@behaviour("CPLX-2")
@given(dtype=COMPLEX_DTYPES, shape=shapes(), data=st.data())
def test_abs_squared_has_gradient_two_z(engine, dtype, shape, data):
    """The docs' example: L = sum(|z|^2) gives z.grad = 2z, exactly (|z|^2 = z * conj(z))."""
    z = data.draw(complex_values(shape, dtype), label="z")
    script = Script(engine)
    script.run(f"z = {_complex_tensor(z, dtype, True)}", "(z.abs() ** 2).sum().backward()")
    _check_complex_grad(script, "z.grad", 2 * z, dtype, "2z (autograd notes)")


@behaviour("CPLX-2")
@given(program=complex_programs())
def test_complex_gradients_match_torch(engine, program):
    """Differential oracle: torch, running the same complex program, gives the same gradients."""
    torch_engine = differential_oracle(engine)
    with engine.outside_context():
        oracle = Script(torch_engine)
        oracle.run(*program.script_lines(), REAL_LOSS, "loss.backward()")
        grads = {leaf: oracle.value(f"to_numpy({leaf}.grad)") for leaf, _ in program.leaves}
    magnitude = analytic_grads(program.split()).magnitude
    script = Script(engine)
    script.run(*program.script_lines(), REAL_LOSS, "loss.backward()")
    for leaf, _ in program.leaves:
        _check_complex_grad(script, f"{leaf}.grad", grads[leaf], program.dtype,
                            "torch (differential)", magnitude)


@behaviour("CPLX-3")
@given(program=complex_programs(holomorphic=True))
def test_backward_of_a_holomorphic_program_is_conjugate_derivative_times_v(engine, program):
    """For a holomorphic program y = f(z) and a complex v, y.backward(v) gives each leaf
    conj(df/dz) * v (summed over uses), the gradient of L = Re(sum(conj(y) * v))."""
    script = Script(engine)
    script.run(*program.script_lines(), "out.backward(v)")
    _check_against_split(script, program, {leaf: f"{leaf}.grad" for leaf, _ in program.leaves})


# f(z) (a torch expression of z and a second leaf w), and f'(z) in NumPy.
HOLOMORPHIC_FUNCTIONS = {
    "z * z": lambda z, w: 2 * z,
    "z * w": lambda z, w: w,
    "z ** 3": lambda z, w: 3 * z ** 2,
    "torch.exp(z)": lambda z, w: np.exp(z),
    "z / w": lambda z, w: 1 / w,
}


@behaviour("CPLX-3")
@given(dtype=COMPLEX_DTYPES, shape=shapes(max_dims=2), data=st.data(),
       function=st.sampled_from(sorted(HOLOMORPHIC_FUNCTIONS)))
def test_holomorphic_op_gradient_is_conjugate_derivative_times_v(engine, dtype, shape, data,
                                                                 function):
    """z.grad == conj(f'(z)) * v for the holomorphic ops z*z, z*w, z**3, exp(z), z/w."""
    z = data.draw(complex_values(shape, dtype), label="z")
    w = data.draw(complex_values(shape, dtype).filter(lambda a: np.all(np.abs(a) >= 0.5)),
                  label="w")
    v = data.draw(complex_values(shape, dtype), label="v")
    script = Script(engine)
    script.run(f"z = {_complex_tensor(z, dtype, True)}", f"w = {_complex_tensor(w, dtype)}",
               f"v = {_complex_tensor(v, dtype)}", f"({function}).backward(v)")
    _check_complex_grad(script, "z.grad", np.conj(HOLOMORPHIC_FUNCTIONS[function](z, w)) * v,
                        dtype, "conj(f'(z)) * v")


# A real loss through one non-holomorphic op of z, with a real a and a complex c as weights; its
# gradient dL/dx + i dL/dy in NumPy.
NON_HOLOMORPHIC = {
    "(z.real * a).sum()": lambda z, a, c: a + 0j,
    "(z.imag * a).sum()": lambda z, a, c: 1j * a,
    "(z.conj() * c).real.sum()": lambda z, a, c: c,
    "(z.abs() * a).sum()": lambda z, a, c: a * z / np.abs(z),
}


@behaviour("CPLX-4")
@given(dtype=COMPLEX_DTYPES, shape=shapes(max_dims=2), data=st.data(),
       loss=st.sampled_from(sorted(NON_HOLOMORPHIC)))
def test_non_holomorphic_ops_follow_the_convention(engine, dtype, shape, data, loss):
    """.real passes a real gradient g as g, .imag as i*g, conj() conjugates it, abs() gives
    g * z/|z|: each dL/dx + i dL/dy of its real loss."""
    z = data.draw(complex_values(shape, dtype).filter(lambda a: np.all(np.abs(a) >= 0.1)),
                  label="z")
    a = data.draw(values(shape, REAL_DTYPE[dtype]), label="a")
    c = data.draw(complex_values(shape, dtype), label="c")
    script = Script(engine)
    script.run(f"z = {_complex_tensor(z, dtype, True)}", f"a = {tensor_literal(a, REAL_DTYPE[dtype])}",
               f"c = {_complex_tensor(c, dtype)}", f"{loss}.backward()")
    _check_complex_grad(script, "z.grad", NON_HOLOMORPHIC[loss](z, a, c), dtype,
                        "dL/dx + i dL/dy")


@behaviour("CPLX-6")
@given(dtype=st.sampled_from(("float32", "float64")), shape=shapes(), data=st.data(),
       requiring=st.sampled_from(("x", "y", "both")),
       loss=st.sampled_from(("u.real * 3 + u.imag * 2", "u.real * 3", "u.imag * 2")))
def test_the_parts_of_a_complex_of_real_leaves_reach_each_leaf(engine, dtype, shape, data,
                                                               requiring, loss):
    """u = torch.complex(x, y), L = sum(3 u.real + 2 u.imag) or one of its terms: the real
    gradient comes back through .real and .imag, and complex() gives x 3 and y 2 (0 for a term
    left out), whichever of them requires grad (the other keeps grad None)."""
    script = Script(engine)
    for name in ("x", "y"):
        array = data.draw(values(shape, dtype), label=name)
        script.run(f"{name} = {tensor_literal(array, dtype, requiring in (name, 'both'))}")
    script.run("u = torch.complex(x, y)", f"({loss}).sum().backward()")
    for name, expected in (("x", 3.0 * ("real" in loss)), ("y", 2.0 * ("imag" in loss))):
        if requiring in (name, "both"):
            script.check_close(f"{name}.grad", np.full(shape, expected), dtype=dtype,
                               oracle=f"d(3 x + 2 y)/d{name}")
        else:
            script.check(f"{name}.grad is None", f"{name} does not require grad, yet has a .grad")


@behaviour("CPLX-5")
@given(dtype=st.sampled_from(("float32", "float64")), shape=shapes(), data=st.data(),
       through=st.sampled_from(("torch.complex(x, y)", "x * c", "x * (1.5 - 2j)")))
def test_real_function_through_complex_internals_gets_the_real_gradient(engine, dtype, shape,
                                                                        data, through):
    """L = sum(|u|^2) of a complex u made from real leaves x (and y): x.grad keeps x's real dtype
    and is the real derivative, 2x|c|^2 for u = x * c, 2x (and 2y) for u = complex(x, y). The
    real part of the real x is x itself (no copy, no node that could change its gradient)."""
    x = data.draw(values(shape, dtype), label="x")
    y = data.draw(values(shape, dtype), label="y")
    complex_dtype = {"float32": "complex64", "float64": "complex128"}[dtype]
    c = data.draw(complex_values((), complex_dtype), label="c")
    script = Script(engine)
    script.run(f"x = {tensor_literal(x, dtype, True)}", f"y = {tensor_literal(y, dtype, True)}",
               f"c = {_complex_tensor(c, complex_dtype)}")
    script.check("x.real is x", "x is real, but x.real is another tensor: {x.real!r}")
    script.run(f"u = {through}", "(u.abs() ** 2).sum().backward()")
    script.check(f"x.grad.dtype == torch.{dtype}",
                 f"x.grad has dtype {{x.grad.dtype}}, expected the real {dtype}")
    scale = {"torch.complex(x, y)": 1.0, "x * c": abs(complex(c)) ** 2,
             "x * (1.5 - 2j)": abs(1.5 - 2j) ** 2}[through]
    script.check_close("x.grad", 2 * x * scale, dtype=dtype, oracle="real derivative")
    if through == "torch.complex(x, y)":
        script.check_close("y.grad", 2 * y, dtype=dtype, oracle="real derivative")


@behaviour("CPLX-6")
@pytest.mark.parametrize("through", ["torch.complex(x, y)", "x * c",
                                     pytest.param("x.to(c.dtype)", marks=needs("dtype_conversion"))])
@given(dtype=st.sampled_from(("float32", "float64")), shape=shapes(), data=st.data())
def test_real_leaf_of_a_complex_output_gets_the_real_part(engine, dtype, shape, data, through):
    """R -> C: u(x) complex, u.backward(v): x.grad is real, Re(conj(du/dx) * v): Re(v) (and
    y.grad Im(v)) for u = complex(x, y), Re(conj(c) * v) for u = x * c, Re(v) for x cast to
    the complex dtype of x's precision (in full precision: no float32 step in float64), and
    backward warns of no complex cast: the imaginary part is no value lost in a cast but the
    derivative along a direction x cannot move in (warnings of anything else are the engine's
    business)."""
    x = data.draw(values(shape, dtype), label="x")
    y = data.draw(values(shape, dtype), label="y")
    complex_dtype = {"float32": "complex64", "float64": "complex128"}[dtype]
    c = data.draw(complex_values((), complex_dtype), label="c")
    v = data.draw(complex_values(shape, complex_dtype), label="v")
    script = Script(engine)
    script.run(f"x = {tensor_literal(x, dtype, True)}", f"y = {tensor_literal(y, dtype, True)}",
               f"c = {_complex_tensor(c, complex_dtype)}", f"v = {_complex_tensor(v, complex_dtype)}",
               f"u = {through}", "import warnings",
               "with warnings.catch_warnings(record=True) as caught:\n"
               "    warnings.simplefilter('always')\n"
               "    u.backward(v)")
    script.run("dropped = [str(w.message) for w in caught\n"
               "           if 'imaginary' in str(w.message) or 'complex' in str(w.message)]")
    script.check("not dropped", "u.backward(v) warned of a complex cast: {dropped}")
    script.check(f"x.grad.dtype == torch.{dtype}",
                 f"x.grad does not have x's real dtype {dtype}", show=("x.grad.dtype",))
    if through == "x * c":
        script.check_close("x.grad", np.real(np.conj(c) * v), dtype=dtype, oracle="Re(conj(c) v)")
    else:
        script.check_close("x.grad", v.real, dtype=dtype, oracle="Re(v)")
    if through == "torch.complex(x, y)":
        script.check_close("y.grad", v.imag, dtype=dtype, oracle="Im(v)")


@behaviour("JAC-4")
@control("test_complex.py::test_backward_of_a_holomorphic_program_is_conjugate_derivative_times_v")
@given(dtype=COMPLEX_DTYPES, shape=st.sampled_from([(), (1,), (1, 1)]), data=st.data())
def test_complex_one_element_output_needs_an_explicit_gradient(engine, dtype, shape, data):
    """backward() without a gradient on a complex one-element output raises RuntimeError: the
    implicit 1 is only created for real outputs (JAC-3 is the real case)."""
    z = data.draw(complex_values(shape, dtype), label="z")
    script = Script(engine)
    script.run(f"z = {_complex_tensor(z, dtype, True)}", "out = z * z")
    script.raises("out.backward()")


# (the output, a gradient for it of the other kind) on z complex and x real leaves of `dtype`.
MISMATCHED = {
    "a real gradient for a complex output": ("z * z", "torch.ones({shape}, dtype=torch.{real})"),
    "a complex gradient for a real output": ("x * x", "torch.ones({shape}, dtype=torch.{dtype})"),
}


@behaviour("CPLX-7")
@given(dtype=COMPLEX_DTYPES, shape=shapes(min_dims=1, max_dims=2), data=st.data(),
       case=st.sampled_from(sorted(MISMATCHED)))
def test_gradient_must_be_complex_exactly_when_the_output_is(engine, dtype, shape, data, case):
    """backward(v) raises RuntimeError when v is real and the output complex or the other way
    round, while a complex gradient of the other precision is accepted and cast."""
    real = REAL_DTYPE[dtype]
    other = {"complex64": "complex128", "complex128": "complex64"}[dtype]
    z = data.draw(complex_values(shape, dtype), label="z")
    x = data.draw(values(shape, real), label="x")
    output, gradient = MISMATCHED[case]
    script = Script(engine)
    script.run(f"z = {_complex_tensor(z, dtype, True)}", f"x = {tensor_literal(x, real, True)}")
    script.raises(f"({output}).backward({gradient.format(shape=shape, real=real, dtype=dtype)})")
    with script.control():
        script.run(f"(z * z).backward(torch.ones({shape}, dtype=torch.{other}))")
        script.check(f"z.grad.dtype == torch.{dtype}",
                     f"z.grad does not have z's dtype {dtype} (a {other} gradient is cast)",
                     show=("z.grad.dtype",))
        _check_complex_grad(script, "z.grad", 2 * np.conj(z), dtype, "conj(2z) * 1")


@behaviour("CPLX-8")
@needs("autograd_grad")
@given(program=complex_programs(), data=st.data())
def test_autograd_grad_returns_complex_gradients_by_the_same_convention(engine, program, data):
    """autograd.grad(L, complex leaves) returns dL/dx + i dL/dy of each, in its complex dtype,
    and fills no .grad; with create_graph=True too, where the backward formulas (the conjugates
    of holomorphic derivatives among them) run as recorded ops."""
    create_graph = engine.has("higher_order") and data.draw(st.booleans(), label="create_graph")
    leaves = [leaf for leaf, _ in program.leaves]
    script = Script(engine)
    script.run(*program.script_lines(), REAL_LOSS,
               f"grads = torch.autograd.grad(loss, [{', '.join(leaves)}]"
               f"{', create_graph=True' if create_graph else ''})")
    _check_against_split(script, program, {leaf: f"grads[{i}]" for i, leaf in enumerate(leaves)})
    script.check(" and ".join(f"{leaf}.grad is None" for leaf in leaves),
                 "autograd.grad filled a .grad")


@behaviour("FWD-6")
@needs("forward_ad")
@given(dtype=st.sampled_from(("float32", "float64")), shape=shapes(), data=st.data(),
       dual=st.sampled_from(("x", "y", "both")))
def test_complex_of_dual_real_tensors_has_the_tangent_vx_plus_i_vy(engine, dtype, shape, data,
                                                                   dual):
    """u = torch.complex(x, y) is x + iy, so its tangent is vx + i vy, an input that is not dual
    adding 0: a complex tangent of u's dtype also where only x is dual (a real tangent would
    drop the imaginary direction). Full-mantissa float64 tangents show one rounded through
    float32."""
    complex_dtype = {"float32": "complex64", "float64": "complex128"}[dtype]
    arrays = {name: data.draw(values(shape, dtype), label=name) for name in ("x", "y", "vx", "vy")}
    script = Script(engine)
    script.run(*(f"{name} = {tensor_literal(array, dtype)}" for name, array in arrays.items()),
               "fwAD = torch.autograd.forward_ad", "with fwAD.dual_level():",
               f"    a = {'fwAD.make_dual(x, vx)' if dual != 'y' else 'x'}",
               f"    b = {'fwAD.make_dual(y, vy)' if dual != 'x' else 'y'}",
               "    tangent = fwAD.unpack_dual(torch.complex(a, b)).tangent")
    script.check("tangent is not None", "torch.complex of a dual tensor has no tangent")
    script.check(f"tangent.dtype == torch.{complex_dtype}",
                 f"the tangent does not have u's dtype {complex_dtype}", show=("tangent.dtype",))
    expected = arrays["vx"] * (dual != "y") + 1j * arrays["vy"] * (dual != "x")
    _check_complex_grad(script, "tangent", expected, complex_dtype, "vx + i vy")
