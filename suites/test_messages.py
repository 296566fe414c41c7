"""Torch's exact error texts (strict level): engines that mimic torch's messages are checked here,
so that users porting code see the errors they know (MSG-*)."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from autograd_conformance.harness.script import Script, tensor_literal
from autograd_conformance.harness.strategies import float_dtypes, programs, shapes, values

behaviour = pytest.mark.behaviour
needs = pytest.mark.needs
control = pytest.mark.control
pytestmark = needs("messages")


@behaviour("MSG-1")
@control("test_retain_graph.py::test_retain_graph_allows_another_backward")
@given(data=st.data())
def test_second_backward_message(engine, data):
    program = data.draw(programs(engine, saves_tensors=True), label="program")
    script = Script(engine)
    script.build(program)
    script.run("out.backward()")
    script.raises("out.backward()", "Trying to backward through the graph a second time")


@behaviour("MSG-2")
@control("test_jacobian.py::test_backward_with_gradient_is_the_vjp")
@given(data=st.data())
def test_non_scalar_backward_message(engine, data):
    program = data.draw(programs(engine, output="vector"), label="program")
    script = Script(engine)
    script.build(program)
    script.raises("out.backward()", "grad can be implicitly created only for scalar outputs")


@behaviour("MSG-3")
@control("test_values.py::test_float64_gradients_are_exact_to_float64_precision")
@given(data=st.data())
def test_nothing_requires_grad_message(engine, data):
    program = data.draw(programs(engine, requires_grad="none"), label="program")
    script = Script(engine)
    script.build(program)
    script.raises("out.backward()", "element 0 of tensors does not require grad and does not have "
                                    "a grad_fn")


@behaviour("MSG-4")
@control("test_requires_grad.py::test_float_dtypes_can_require_grad")
def test_integer_requires_grad_message(engine):
    script = Script(engine)
    script.raises("torch.tensor([1, 2], dtype=torch.int64, requires_grad=True)",
                  "Only Tensors of floating point and complex dtype can require gradients")


@behaviour("MSG-8")
@control("test_jacobian.py::test_backward_with_gradient_is_the_vjp")
@given(data=st.data())
def test_gradient_shape_message(engine, data):
    program = data.draw(programs(engine, output="vector"), label="program")
    wrong = program.output_shape() + (1,)
    script = Script(engine)
    script.build(program)
    sizes = ", ".join(str(size) for size in wrong)
    script.raises(f"out.backward(torch.ones({sizes}, dtype=torch.{program.dtype}))",
                  "Mismatch in shape: grad_output[0] has a shape of")


@behaviour("MSG-9")
@pytest.mark.parametrize("op", ["sum", pytest.param("mean", marks=pytest.mark.op("mean")),
                                pytest.param("amax", marks=needs("max_min")),
                                pytest.param("max", marks=needs("max_min"))])
@given(shape=shapes(), data=st.data())
def test_a_dim_out_of_range_message(engine, op, shape, data):
    """A dim just or well outside the range raises IndexError naming the range, which is [-1, 0]
    for a 0-dim tensor; dim=-1 gives the result of dim=ndim - 1 (of max(dim), its values)."""
    ndim = len(shape)
    low, high = (-1, 0) if ndim == 0 else (-ndim, ndim - 1)
    dim = data.draw(st.sampled_from((low - 1, high + 1, low - 2, high + 2)), label="dim")
    dtype = data.draw(float_dtypes(engine), label="dtype")
    keepdim = data.draw(st.booleans(), label="keepdim")
    script = Script(engine)
    script.run(f"x = {tensor_literal(data.draw(values(shape, dtype), label='x'), dtype, True)}")
    script.raises(f"x.{op}(dim={dim})", "Dimension out of range (expected to be in range of "
                                        f"[{low}, {high}], but got {dim})", error="IndexError")
    pick = "[0]" if op == "max" else ""
    with script.control():
        script.run(f"last = x.{op}(dim=-1, keepdim={keepdim}){pick}",
                   f"counted = x.{op}(dim={high}, keepdim={keepdim}){pick}")
        script.check("tuple(last.shape) == tuple(counted.shape) and "
                      "(to_numpy(last) == to_numpy(counted)).all()",
                      f"dim=-1 and dim={high} give different results",
                      show=("to_numpy(last)", "to_numpy(counted)"))


@behaviour("MSG-9")
@pytest.mark.parametrize("op", ["sum", pytest.param("mean", marks=pytest.mark.op("mean")),
                                pytest.param("amax", marks=needs("max_min"))])
@given(shape=shapes(), data=st.data())
def test_a_dim_named_twice_message(engine, op, shape, data):
    """A list of dims that names one dim d twice, once as d and once counted from the end
    (d - ndim; 0 and -1 of a 0-dim tensor), in either order: RuntimeError 'dim d appears multiple
    times in the list of dims', d counted from the start."""
    ndim = len(shape)
    dim = data.draw(st.integers(0, max(ndim - 1, 0)), label="dim")
    twice = [dim, dim - max(ndim, 1)]
    if data.draw(st.booleans(), label="negative first"):
        twice.reverse()
    dtype = data.draw(float_dtypes(engine), label="dtype")
    script = Script(engine)
    script.run(f"x = {tensor_literal(data.draw(values(shape, dtype), label='x'), dtype, True)}")
    script.raises(f"x.{op}(dim={tuple(twice)})", f"dim {dim} appears multiple times in the list of dims")
    with script.control():
        script.run(f"once = x.{op}(dim=({twice[0]},))", f"counted = x.{op}(dim={dim})")
        script.check("tuple(once.shape) == tuple(counted.shape) and "
                     "(to_numpy(once) == to_numpy(counted)).all()",
                     f"dim=({twice[0]},) and dim={dim} give different results",
                     show=("to_numpy(once)", "to_numpy(counted)"))


TYPE_NAMES = {"float32": "torch.FloatTensor", "float64": "torch.DoubleTensor",
              "complex64": "CPUComplexFloatType", "complex128": "CPUComplexDoubleType"}


@behaviour("MSG-10")
@needs("hooks", "dtype_conversion", "float64")
@pytest.mark.parametrize("received, returned", [
    ("float64", "float32"), ("float32", "float64"),
    pytest.param("complex128", "float64", marks=needs("complex")),
    pytest.param("complex64", "complex128", marks=needs("complex")),
    pytest.param("float64", "complex128", marks=needs("complex"))])
@given(shape=shapes(min_dims=1), data=st.data())
def test_a_hook_that_changes_the_dtype_message(engine, received, returned, shape, data):
    """A tensor hook `changer` that returns its gradient in another dtype: backward raises
    RuntimeError "hook 'changer' has changed the type of value (was A got B)", a real dtype named
    torch.DoubleTensor, a complex one by its legacy name CPUComplexDoubleType."""
    x = data.draw(values(shape, "float64"), label="x")
    convert = "g.real" if returned.startswith("float") and received.startswith("complex") else "g"
    # A complex loss is made real by abs() (backward needs a real scalar); a real one needs none.
    loss = "(y * 1).sum()" + (".abs()" if "complex" in received + returned else "")
    script = Script(engine)
    script.run(f"x = {tensor_literal(x, 'float64')}.to(torch.{received}).requires_grad_()",
               "y = x * 1",
               "def changer(g):",
               f"    return {convert}.to(torch.{returned})",
               "y.register_hook(changer)")
    script.raises(f"{loss}.backward()",
                  f"hook 'changer' has changed the type of value (was {TYPE_NAMES[received]} got "
                  f"{TYPE_NAMES[returned]})")
    with script.control():
        script.run("x.grad = None", "z = x * 1", f"{loss.replace('y', 'z')}.backward()")
        script.check("x.grad is not None and x.grad.dtype == x.dtype",
                     "backward without the hook gives x no gradient of its dtype")


@behaviour("MSG-11")
@pytest.mark.parametrize("how", ["reshape", pytest.param("view", marks=needs("views"))])
@given(shape=shapes(min_dims=1), data=st.data())
def test_a_size_below_minus_one_message(engine, shape, data, how):
    """-1 is the one size reshape and view infer: another negative size raises 'invalid shape
    dimension', a second -1 'only one dimension can be inferred'; the shape with one -1 works."""
    dtype = data.draw(float_dtypes(engine), label="dtype")
    index = data.draw(st.integers(0, len(shape) - 1), label="inferred dim")
    inferred = list(shape[:index]) + [-1] + list(shape[index + 1:])
    wrong = list(inferred)
    if len(shape) > 1 and data.draw(st.booleans(), label="two -1s"):
        other = data.draw(st.sampled_from([i for i in range(len(shape)) if i != index]),
                          label="second -1")
        wrong[other] = -1
        message = "only one dimension can be inferred"
    else:
        size = data.draw(st.integers(-3, -2), label="negative size")
        wrong[index] = size
        message = f"invalid shape dimension {size} at index {index} of shape {wrong}"
    script = Script(engine)
    script.run(f"x = {tensor_literal(data.draw(values(shape, dtype), label='x'), dtype, True)}")
    script.raises(f"x.{how}({', '.join(map(str, wrong))})", message)
    with script.control():
        script.run(f"y = x.{how}({', '.join(map(str, inferred))})")
        script.check_equal("tuple(y.shape)", tuple(shape), why=f"-1 at index {index} is inferred")
