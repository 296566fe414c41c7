"""Anomaly detection, the debugging mode of backward (the autograd page's "Anomaly detection",
torch/autograd/anomaly_mode.py): the mode's switches, the NaN check it runs on every node's
gradients, and what it tells about a failing backward (GRAD-7, ANOM-*, INP-18).

A NaN is made where the test knows it appears: `y = (out * c).sum()` (or `c * out`, `out / c`,
`c / out`) with a constant `c` holding NaN, so that last op's node, MulBackward0 or DivBackward0, is
the first whose gradient is NaN, in the output that is out's, whatever program made `out`. Every
test leaves the mode off; a fixture switches it off after a test that failed midway.
"""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from autograd_conformance.harness.script import Script, tensor_literal
from autograd_conformance.harness.strategies import float_dtypes, programs, shapes, values

behaviour = pytest.mark.behaviour
needs = pytest.mark.needs
control = pytest.mark.control
pytestmark = [needs("anomaly"),
              pytest.mark.filterwarnings("ignore:Anomaly Detection has been enabled:UserWarning"),
              pytest.mark.filterwarnings("ignore:Error detected in:UserWarning")]

ENABLED_WARNING = ("Anomaly Detection has been enabled. This mode will increase the runtime and "
                   "should only be enabled for debugging.")
ANOMALY_HINT = ("Hint: the backtrace further above shows the operation that failed to compute its "
                "gradient. The variable in question was changed in there or anywhere later. "
                "Good luck!")
FORWARD_TRACE = "Traceback of forward call that caused the error:"
NO_TRACE = "No forward pass information available."
STATE = "(torch.is_anomaly_enabled(), torch.is_anomaly_check_nan_enabled())"


@pytest.fixture(autouse=True)
def _anomaly_mode_off_afterwards(engine):
    yield
    engine.ns.autograd.set_detect_anomaly(False)


def _mode(how: str, check_nan: bool = True) -> str:
    """The line that opens anomaly mode for a with-block."""
    if how == "detect_anomaly":
        return f"torch.autograd.detect_anomaly(check_nan={check_nan})"
    return f"torch.autograd.set_detect_anomaly(True, check_nan={check_nan})"


modes = st.sampled_from(["detect_anomaly", "set_detect_anomaly"])
SLOPES_AT_1 = {  # op'(1) of the ops whose saved result the version hint's test changes
    "exp": np.e, "tanh": 1 - np.tanh(1.0) ** 2,
    "sigmoid": 1 / (1 + np.exp(-1.0)) * (1 - 1 / (1 + np.exp(-1.0)))}


def _in_block(header: str, lines) -> list[str]:
    return [f"{header}:", *(f"    {line}" for line in lines)]


@st.composite
def _constants(draw, shape, dtype, *, nan: bool):
    """Finite non-zero values of `shape` (a divisor too), with NaN at one or more drawn positions
    if `nan`."""
    constant = draw(values(shape, dtype, bound=2.0), label="c").astype(float).reshape(-1)
    constant[constant == 0] = 1.0
    if nan:
        where = draw(st.lists(st.integers(0, constant.size - 1), min_size=1, unique=True),
                     label="NaN positions")
        constant[where] = np.nan
    return constant.reshape(shape)


# The last op before the sum, with a constant c: its node, and which of its outputs is out's
# gradient (the first NaN gradient where c holds NaN).
LAST_OPS = {"out * c": ("MulBackward0", 0), "c * out": ("MulBackward0", 1),
            "out / c": ("DivBackward0", 0), "c / out": ("DivBackward0", 1)}


@st.composite
def _product_programs(draw, engine, *, nan: bool = True):
    """A random program ended by `y = (<last op>).sum()`, the last op one of LAST_OPS with a
    constant c, holding NaN if `nan`: its lines, the last op's node name and which of its outputs
    is out's gradient."""
    program = draw(programs(engine, output="any"), label="program")
    c = draw(_constants(program.output_shape(), program.dtype, nan=nan))
    last = draw(st.sampled_from(sorted(LAST_OPS)), label="last op")
    lines = [*program.script_lines(), f"c = {tensor_literal(c, program.dtype)}",
             f"y = ({last}).sum()"]
    return program, lines, *LAST_OPS[last]


# ----- inf and NaN at singular points ---------------------------------------------------------
@behaviour("GRAD-7")
@given(data=st.data())
def test_singular_points_give_inf_and_nan_and_anomaly_mode_flags_the_nan(engine, data):
    """x >= 0 with zeros at drawn positions: sqrt(x).sum() gives x.grad inf there and 0.5/sqrt(x)
    elsewhere; (sqrt(x) * 0).sum() gives NaN there (0 * inf) and 0 elsewhere. Under
    detect_anomaly() the first still runs and the second raises."""
    shape = data.draw(shapes(), label="shape")
    dtype = data.draw(float_dtypes(engine), label="dtype")
    x = np.abs(data.draw(values(shape, dtype), label="x")).reshape(-1) + 0.5
    zeros = sorted(data.draw(st.sets(st.integers(0, x.size - 1), min_size=1), label="zeros"))
    x[zeros] = 0.0
    others = [i for i in range(x.size) if i not in zeros]
    script = Script(engine)
    script.run(f"x = {tensor_literal(x.reshape(shape), dtype, requires_grad=True)}",
               "x.sqrt().sum().backward()")
    script.check(f"np.isposinf(values(x.grad).reshape(-1)[{zeros}]).all()",
                 f"sqrt'(0) is not inf: x.grad at the zeros {zeros} is not inf", show=("x.grad",))
    script.check_close(f"values(x.grad).reshape(-1)[{others}]", 0.5 / np.sqrt(x[others]),
                       dtype=dtype, oracle="0.5 / sqrt(x) where x > 0")
    with script.control():
        script.run("x.grad = None", "(x.sqrt() * 0).sum().backward()")
        script.check(f"np.isnan(values(x.grad).reshape(-1)[{zeros}]).all() and "
                     f"(values(x.grad).reshape(-1)[{others}] == 0).all()",
                     f"0 * sqrt'(x) is not NaN at the zeros {zeros} and 0 elsewhere: x.grad is "
                     "{x.grad}")
    script.run("x.grad = None", "with torch.autograd.detect_anomaly():",
               "    x.sqrt().sum().backward()")
    script.check(f"np.isposinf(values(x.grad).reshape(-1)[{zeros}]).all()",
                 "under detect_anomaly() the inf gradient changed: x.grad is {x.grad}")
    script.run("x.grad = None")
    script.raises("with torch.autograd.detect_anomaly():\n    (x.sqrt() * 0).sum().backward()")


@behaviour("GRAD-7")
def test_the_fact_sheet_example(engine):
    """sqrt at [0, 4] has the gradient [inf, 0.25]; 0 * sqrt(x) at 0 has the gradient NaN, and the
    same backward under detect_anomaly() raises."""
    script = Script(engine)
    script.run("x = torch.tensor([0.0, 4.0], requires_grad=True)", "x.sqrt().sum().backward()")
    script.check("values(x.grad).tolist() == [float('inf'), 0.25]", "sqrt's gradient is {x.grad}")
    with script.control():
        script.run("x2 = torch.tensor([0.0], requires_grad=True)",
                   "(x2.sqrt() * 0).sum().backward()")
        script.check("np.isnan(values(x2.grad)).all()", "0 * sqrt(x)'s gradient at 0 is {x2.grad}")
    script.run("x2.grad = None")
    script.raises("with torch.autograd.detect_anomaly():\n    (x2.sqrt() * 0).sum().backward()")


# ----- the switches ---------------------------------------------------------------------------
def _nested(steps, state, indent=""):
    """The lines of `steps` (each a plain call or a with-block holding the steps after it), each
    followed by a line that records the state, and the states those lines must record."""
    if not steps:
        return [], []
    (kind, mode, check_nan), rest = steps[0], steps[1:]
    record = "states.append(" + STATE + ")"
    if kind == "call":
        new = (mode, check_nan)
        lines, states = _nested(rest, new, indent)
        return [f"{indent}torch.autograd.set_detect_anomaly({mode}, check_nan={check_nan})",
                indent + record, *lines], [new, *states]
    opening = (f"torch.autograd.detect_anomaly(check_nan={check_nan})" if kind == "detect"
               else f"torch.autograd.set_detect_anomaly({mode}, check_nan={check_nan})")
    new = (True, check_nan) if kind == "detect" else (mode, check_nan)
    inner = indent + "    "
    lines, states = _nested(rest, new, inner)
    return ([f"{indent}with {opening}:", inner + record, *lines, indent + record],
            [new, *states, state])


@behaviour("ANOM-1")
@given(steps=st.lists(st.tuples(st.sampled_from(["detect", "set", "call"]), st.booleans(),
                                st.booleans()), min_size=1, max_size=4))
def test_the_mode_is_set_by_blocks_and_calls_and_read_back(engine, steps):
    """Off with check_nan on by default; each with-block sets the mode (detect_anomaly: on) and
    restores on exit what it found, plain set_detect_anomaly(mode, check_nan) calls included;
    is_anomaly_enabled() and is_anomaly_check_nan_enabled() read the state after every step."""
    lines, expected = _nested(steps, (False, True))
    script = Script(engine)
    script.check_equal(STATE, (False, True), why="the mode is off, check_nan on, by default")
    script.run("states = []", *lines)
    script.check_equal("states", expected, why="the states read after each step")
    script.run("torch.autograd.set_detect_anomaly(False)")
    script.check(f"{STATE}[0] == False", "set_detect_anomaly(False) left the mode on")


# ----- the NaN check --------------------------------------------------------------------------
@behaviour("ANOM-2")
@given(data=st.data(), how=modes, check_nan=st.booleans(), recorded_inside=st.booleans())
def test_a_nan_gradient_raises_exactly_when_check_nan_is_on(engine, data, how, check_nan,
                                                             recorded_inside):
    """y = (out * c).sum() with NaN in c: backward without the mode gives NaN gradients; under
    the mode (the graph recorded inside it or not) it raises when check_nan is on, and otherwise
    gives the same gradients bit for bit."""
    program, lines, _, _ = data.draw(_product_programs(engine))
    leaves = [leaf.name for leaf in program.grad_leaves()]
    script = Script(engine)
    script.run(*(_in_block(f"with {_mode(how, check_nan)}", lines) if recorded_inside
                 else lines))
    script.run("y.backward(retain_graph=True)",
               f"plain = [to_numpy(t.grad) for t in [{', '.join(leaves)}]]",
               *(f"{name}.grad = None" for name in leaves))
    backward = "\n".join(_in_block(f"with {_mode(how, check_nan)}", ["y.backward()"]))
    if check_nan:
        script.raises(backward)
    else:
        with script.control():
            script.run(backward)
            script.check(f"all(np.array_equal(to_numpy(t.grad), p, equal_nan=True) "
                         f"for t, p in zip([{', '.join(leaves)}], plain))",
                         "with check_nan=False the mode changed the gradients",
                         show=(f"[t.grad for t in [{', '.join(leaves)}]]", "plain"))


@behaviour("ANOM-3")
@control("test_anomaly.py::test_a_nan_gradient_raises_exactly_when_check_nan_is_on")
@needs("messages", "grad_fn_names")
@given(data=st.data(), how=modes)
def test_the_nan_error_names_the_node_and_the_output(engine, data, how):
    _, lines, node, output = data.draw(_product_programs(engine))
    script = Script(engine)
    script.run(*_in_block(f"with {_mode(how)}", lines))
    script.raises("\n".join(_in_block(f"with {_mode(how)}", ["y.backward()"])),
                  f"Function '{node}' returned nan values in its {output}th output.")


# ----- what a failing backward tells ----------------------------------------------------------
def _run_recording_warnings(script: Script, code: str) -> None:
    """Run `code`, which raises RuntimeError, keeping its UserWarnings' texts in `messages`."""
    script.run("import warnings", "with warnings.catch_warnings(record=True) as caught:",
               "    warnings.simplefilter('always')", "    try:",
               *(f"        {line}" for line in code.splitlines()),
               "    except RuntimeError:", "        pass",
               "messages = [str(w.message) for w in caught if issubclass(w.category, UserWarning)]")


@behaviour("ANOM-4")
@needs("messages", "grad_fn_names")
@given(data=st.data(), how=modes, failure=st.sampled_from(["NaN", "second backward"]),
       recorded_inside=st.booleans())
def test_a_failing_backward_warns_with_the_forward_traceback(engine, data, how, failure,
                                                              recorded_inside):
    """The node that fails is the last op's, MulBackward0 or DivBackward0 (the NaN check, or its
    saved tensors freed by the first backward): the warning names it and shows the line
    `y = (out * c).sum()` (or another last op) that recorded it, or says that no forward pass
    information is available."""
    _, lines, node, _ = data.draw(_product_programs(engine, nan=failure == "NaN"))
    script = Script(engine)
    script.run(*(_in_block(f"with {_mode(how)}", lines) if recorded_inside else lines))
    if failure == "second backward":
        script.run("y.backward()")
    _run_recording_warnings(script, "\n".join(_in_block(f"with {_mode(how)}", ["y.backward()"])))
    header = f"Error detected in {node}. " + (FORWARD_TRACE if recorded_inside else NO_TRACE)
    forward_line = lines[-1] if recorded_inside else ""
    script.check(f"any(m.startswith({header!r}) and {forward_line!r} in m for m in messages)",
                 f"no UserWarning starts with {header!r} and shows {forward_line!r}: "
                 "the warnings are {messages}")


@behaviour("ANOM-5")
@needs("messages")
@given(check_nan=st.booleans())
def test_detect_anomaly_warns_that_it_is_slow(engine, check_nan):
    script = Script(engine)
    script.warns(f"mode = torch.autograd.detect_anomaly(check_nan={check_nan})", ENABLED_WARNING)


@behaviour("INP-18")
@needs("inplace", "messages")
@given(shape=shapes(), how=modes, op=st.sampled_from(["exp", "tanh", "sigmoid"]),
       change=st.sampled_from(["y.add_(1.0)", "y.mul_(2.0)"]), recorded_inside=st.booleans())
def test_the_version_error_hint_points_at_the_warning(engine, shape, how, op, change,
                                                      recorded_inside):
    """y = op(x) saves y; changing y in place makes backward raise the version error, whose hint
    under the mode points at the traceback above (the graph recorded inside the mode or not).
    Unchanged, y gives x the gradient op'(1)."""
    forward = [f"x = torch.ones({shape}, requires_grad=True)", f"y = torch.{op}(x)"]
    backward = "\n".join(_in_block(f"with {_mode(how)}", ["y.sum().backward()"]))
    script = Script(engine)
    with script.control():
        script.run(*forward, backward)
        script.check_close("x.grad", np.full(shape, SLOPES_AT_1[op]), dtype="float32",
                           oracle=f"{op}'(1)")
    forward.append(change)
    script.run(*(_in_block(f"with {_mode(how)}", forward) if recorded_inside else forward))
    script.raises(backward, ANOMALY_HINT)
