"""Which tensors require grad, and how the flag may change (REQ-*, MSG-5).

Only floating tensors can require grad, and an op's result requires grad iff an input does;
backward needs something that requires grad. The flag can be changed on leaves (in place, the same
object), not on non-leaves; detach() then requires_grad_() starts a new graph; backward on a leaf
itself stores the gradient in its own .grad.
"""

import pytest
from hypothesis import event, given
from hypothesis import strategies as st

from autograd_conformance.harness.checks import assert_grads_only_where_expected, assert_leaf_grads, held_constant
from autograd_conformance.harness.counts import BACKWARD_PASSES, FUNCTION_OUTPUTS, counts
from autograd_conformance.harness.oracles import analytic_grads
from autograd_conformance.harness.script import Script, literal
from autograd_conformance.harness.strategies import computed_output, cotangents, float_dtypes, programs, shapes

behaviour = pytest.mark.behaviour
needs = pytest.mark.needs
control = pytest.mark.control

int_lists = shapes(min_dims=1).flatmap(
    lambda shape: st.lists(st.integers(-5, 5), min_size=shape[0], max_size=shape[0]))

# What a test may try on a non-leaf y: each must raise (REQ-6).
NON_LEAF_CHANGES = ("y.requires_grad = False", "y.requires_grad = True", "y.requires_grad_(False)")


def _recorded(program):
    """Nodes that require grad: non-leaves."""
    return [node for node in program.nodes if program.requires_grad(node.name)]


def _inner_nodes(program):
    """Names of nodes that feed the output and are not the output."""
    return [node.name for node in program.nodes
            if node.name in program.ancestors() and node.name != program.output]


def _leaf_lines(program):
    """The lines that create `program`'s leaves (its script begins with them)."""
    return program.script_lines()[:len(program.leaves)]


# -- which tensors require grad ------------------------------------------------------------------
@behaviour("REQ-1")
@control("test_requires_grad.py::test_float_dtypes_can_require_grad")
@given(values=int_lists)
def test_integer_tensors_cannot_require_grad(engine, values):
    script = Script(engine)
    script.raises(f"torch.tensor({values!r}, dtype=torch.int64, requires_grad=True)")


@behaviour("REQ-1")
@control("test_requires_grad.py::test_float_dtypes_can_require_grad")
@given(values=int_lists)
def test_integer_tensors_cannot_be_switched_to_require_grad(engine, values):
    script = Script(engine)
    script.run(f"integers = torch.tensor({values!r}, dtype=torch.int64)")
    script.raises("integers.requires_grad_()")


@behaviour("REQ-8")
@given(data=st.data())
def test_results_require_grad_iff_an_input_does(engine, data):
    program = data.draw(programs(engine, output="any", requires_grad="mixed"), label="program")
    script = Script(engine)
    script.build(program)
    for node in program.nodes:
        expected = program.requires_grad(node.name)
        script.check(f"bool({node.name}.requires_grad) == {expected}",
                     f"{node.name} = {node.op}({', '.join(node.args)}): its inputs' flags make "
                     f"its requires_grad {expected}", show=(f"{node.name}.requires_grad",))


@behaviour("REQ-10")
@control("test_values.py::test_float64_gradients_are_exact_to_float64_precision")
@given(data=st.data())
def test_backward_when_nothing_requires_grad_raises(engine, data):
    program = data.draw(programs(engine, requires_grad="none"), label="program")
    script = Script(engine)
    script.build(program)
    script.raises("out.backward()")


@behaviour("REQ-10")
@control("test_values.py::test_float64_gradients_are_exact_to_float64_precision")
def test_seed_mean_of_plain_input_cannot_backward(engine):
    """Seed 003: loss = mean(tensor([1, 2, 3])) does not require grad, and backward raises."""
    script = Script(engine)
    script.run("loss = torch.tensor([1.0, 2.0, 3.0]).mean()")
    script.check("not loss.requires_grad", "the mean of a plain tensor requires grad")
    script.raises("loss.backward()")


# -- changing the flag ---------------------------------------------------------------------------
@behaviour("REQ-5")
@given(data=st.data(), how=st.sampled_from(["requires_grad_()", "requires_grad = True"]))
def test_switching_leaves_to_require_grad(engine, data, how):
    """requires_grad_() (or assigning requires_grad = True) on a leaf turns it on in place: the
    same object, still a leaf, now recorded, and it receives its gradient."""
    program = data.draw(programs(engine, requires_grad="none"), label="program")
    used = [leaf for leaf in program.leaves if leaf.name in program.ancestors()]
    switched = data.draw(st.sets(st.sampled_from([leaf.name for leaf in used]), min_size=1),
                         label="switched on")
    flagged = program.with_requires_grad({name: True for name in switched})
    expected = analytic_grads(flagged)
    script = Script(engine)
    script.run(*_leaf_lines(program))       # none requires grad yet
    for name in sorted(switched):           # switched before the ops run
        if how == "requires_grad_()":
            script.run(f"switched = {name}.requires_grad_()")
            script.check(f"switched is {name}", "requires_grad_() returned a new object")
        else:
            script.run(f"{name}.requires_grad = True")
        script.check(f"{name}.requires_grad and {name}.is_leaf",
                     f"after {name}.{how} on a leaf, it is not a leaf that requires grad",
                     show=(f"{name}.requires_grad", f"{name}.is_leaf"))
    script.build(flagged, given=[leaf.name for leaf in program.leaves])
    script.run("out.backward()")
    for name in sorted(switched):
        script.check_close(f"{name}.grad", expected[name], dtype=program.dtype,
                           oracle="analytic", magnitude=expected.magnitude)


@behaviour("REQ-5")
@given(data=st.data())
def test_switching_leaves_off(engine, data):
    """requires_grad_(False) on a leaf turns recording off: ops on it no longer require grad."""
    program = data.draw(programs(engine, requires_grad="all", max_ops=1), label="program")
    name = program.leaves[0].name
    script = Script(engine)
    script.build(program)
    script.run(f"switched = {name}.requires_grad_(False)")
    script.check(f"switched is {name}", "requires_grad_(False) returned a new object")
    script.check(f"not {name}.requires_grad and {name}.is_leaf",
                 f"after {name}.requires_grad_(False), it is not a leaf without requires_grad",
                 show=(f"{name}.requires_grad", f"{name}.is_leaf"))
    script.check(f"not ({name} * 2).requires_grad",
                 f"{name} * 2 requires grad after requires_grad_(False)")


@behaviour("REQ-6")
@control("test_requires_grad.py::test_requires_grad_true_on_a_non_leaf_is_a_no_op")
@given(data=st.data(), change=st.sampled_from(sorted(NON_LEAF_CHANGES)))
def test_changing_requires_grad_of_a_non_leaf_raises(engine, data, change):
    """Only leaves' flags can change: on a non-leaf, assigning requires_grad (either value) or
    calling requires_grad_(False) raises RuntimeError and leaves it recorded."""
    program = data.draw(programs(engine, output="any", candidates=_recorded), label="program")
    node = data.draw(st.sampled_from(_recorded(program)), label="non-leaf")
    event(f"changed the output itself: {node.name == program.output}")
    script = Script(engine)
    script.build(program)
    script.run(f"y = {node.name}")
    script.raises(change)
    script.check("y.requires_grad and not y.is_leaf",
                 f"{change} changed the non-leaf although it raised")


@behaviour("REQ-6")
@given(data=st.data())
def test_requires_grad_true_on_a_non_leaf_is_a_no_op(engine, data):
    """requires_grad_(True) on a non-leaf (which already requires grad) silently does nothing."""
    program = data.draw(programs(engine, candidates=computed_output), label="program")
    script = Script(engine)
    script.build(program)
    script.check("not out.is_leaf", "out is computed from a leaf that requires grad, but is a leaf")
    script.run("same = out.requires_grad_(True)")
    script.check("same is out", "requires_grad_(True) on a non-leaf returned a new object")
    script.check("out.requires_grad and not out.is_leaf and out.grad_fn is not None",
                 "after out.requires_grad_(True): requires_grad={out.requires_grad}, "
                 "is_leaf={out.is_leaf}, grad_fn={out.grad_fn!r}")


@behaviour("MSG-5")
@control("test_requires_grad.py::test_requires_grad_true_on_a_non_leaf_is_a_no_op")
@needs("messages")
@given(data=st.data())
def test_non_leaf_requires_grad_message(engine, data):
    program = data.draw(programs(engine, requires_grad="all", candidates=computed_output),
                        label="program")
    script = Script(engine)
    script.build(program)
    script.check("not out.is_leaf", "out is computed from leaves that require grad, but is a leaf")
    script.raises("out.requires_grad = False",
                  "you can only change requires_grad flags of leaf variables.")


@behaviour("REQ-7")
@given(data=st.data())
def test_detach_then_requires_grad_starts_a_new_graph(engine, data):
    """h.detach().requires_grad_() is a new leaf: the rest of the program differentiates into it
    (its grad is d out / d h) and nothing flows past it to h's inputs."""
    program = data.draw(programs(engine, candidates=_inner_nodes), label="program")
    cut = data.draw(st.sampled_from(_inner_nodes(program)), label="cut")
    event(f"the cut node requires grad: {program.requires_grad(cut)}")
    expected = analytic_grads(program, wrt=[cut])
    upstream = analytic_grads(held_constant(program, [cut]))

    def cut_here(name, line):
        """The cut node is replaced by a new leaf right after it is computed."""
        return [line, f"{name} = {name}.detach().requires_grad_()"] if name == cut else [line]

    script = Script(engine)
    script.build(program, wrap=cut_here)
    script.check(f"{cut}.is_leaf and {cut}.grad_fn is None and {cut}.requires_grad",
                 f"{cut}.detach().requires_grad_() is not a leaf that requires grad",
                 show=(f"{cut}.is_leaf", f"{cut}.grad_fn", f"{cut}.requires_grad"))
    script.run("out.backward()")
    script.check_close(f"{cut}.grad", expected[cut], dtype=program.dtype,
                       oracle="analytic with respect to the cut node",
                       magnitude=expected.magnitude)
    assert_grads_only_where_expected(script, program, upstream,
                                     oracle="analytic with the cut node held constant",
                                     why_none="is only behind the cut")


@behaviour("REQ-13")
@given(shape=st.sampled_from([(), (1,), (1, 1)]), passes=counts(BACKWARD_PASSES))
def test_backward_on_a_one_element_leaf_accumulates_ones(engine, shape, passes):
    """backward() on a leaf that requires grad adds 1 to its .grad per call (checked after each
    of up to four calls); there is no graph to free, so it can be repeated without
    retain_graph."""
    script = Script(engine)
    if shape:
        script.run(f"x = torch.zeros({', '.join(map(str, shape))}, requires_grad=True)")
    else:
        script.run("x = torch.tensor(0.0, requires_grad=True)")
    for done in range(1, passes + 1):
        script.run("x.backward()")
        script.check(f"x.grad is not None and to_numpy(x.grad).shape == {shape!r} "
                     f"and (to_numpy(x.grad) == {done}).all()",
                     f"x.grad after {done} x.backward() is not {done} with shape {shape}",
                     show=("x.grad",))


@behaviour("REQ-13")
@given(shape=shapes(min_dims=1), data=st.data())
def test_backward_on_a_leaf_with_gradient_stores_the_gradient(engine, shape, data):
    """x.backward(v) on a leaf stores v itself in x.grad (the Jacobian is the identity)."""
    dtype = data.draw(st.sampled_from(["float32", "float64"] if engine.has("float64")
                                      else ["float32"]), label="dtype")
    v = data.draw(cotangents(shape, dtype), label="gradient")
    script = Script(engine)
    script.run(f"x = torch.tensor(np.zeros({shape!r}).tolist(), dtype=torch.{dtype}, "
               f"requires_grad=True)",
               f"x.backward(torch.tensor({literal(v)}, dtype=torch.{dtype}))")
    script.check_close("x.grad", v, dtype=dtype, oracle="identity")


# -- which dtypes may require grad ---------------------------------------------------------------
NON_FLOAT_DTYPES = ["int64", pytest.param("bool", marks=needs("integer_outputs"))]
# The three ways to ask a tensor `t` (or its values) to require grad.
ASKING = ("torch.tensor({values!r}, dtype=torch.{dtype}, requires_grad=True)",
          "t.requires_grad_()", "t.requires_grad = True")


def _values_of(dtype, integers):
    return [bool(n % 2) for n in integers] if dtype == "bool" else integers


@behaviour("REQ-2")
@control("test_requires_grad.py::test_float_dtypes_can_require_grad")
@pytest.mark.parametrize("dtype", NON_FLOAT_DTYPES)
@given(integers=int_lists, asking=st.sampled_from(ASKING))
def test_non_float_dtypes_cannot_require_grad(engine, dtype, integers, asking):
    """bool and int64 tensors cannot require grad, whichever way it is asked for: the factory's
    requires_grad=True, requires_grad_() and assigning requires_grad = True raise RuntimeError,
    and the tensor stays a tensor that does not require grad."""
    values = _values_of(dtype, integers)
    script = Script(engine)
    script.run(f"t = torch.tensor({values!r}, dtype=torch.{dtype})")
    step = asking.format(values=values, dtype=dtype)
    script.raises(step)
    script.check("not t.requires_grad", f"{step} raised but t now requires grad")


@behaviour("REQ-2")
@given(data=st.data(), asking=st.sampled_from(ASKING))
def test_float_dtypes_can_require_grad(engine, data, asking):
    """float32 and float64 tensors can require grad, whichever way it is asked for."""
    dtype = data.draw(float_dtypes(engine), label="dtype")
    values = [float(n) for n in data.draw(int_lists, label="values")]
    script = Script(engine)
    step = asking.format(values=values, dtype=dtype)
    script.run(f"t = torch.tensor({values!r}, dtype=torch.{dtype})",
               f"t = {step}" if step.startswith("torch.") else step)
    script.check("t.requires_grad and t.is_leaf",
                 f"after {step} on a {dtype} tensor, t is not a leaf that requires grad",
                 show=("t.requires_grad", "t.is_leaf"))


@behaviour("REQ-3")
@pytest.mark.parametrize("dtype", NON_FLOAT_DTYPES)
@given(integers=int_lists)
def test_requires_grad_false_is_allowed_on_any_dtype(engine, dtype, integers):
    """Asking a non-float tensor not to require grad is fine: the factory's
    requires_grad=False, requires_grad_(False) and assigning requires_grad = False."""
    values = _values_of(dtype, integers)
    script = Script(engine)
    script.run(f"t = torch.tensor({values!r}, dtype=torch.{dtype}, requires_grad=False)",
               "same = t.requires_grad_(False)", "t.requires_grad = False")
    script.check("same is t and not t.requires_grad and t.is_leaf",
                 "after requires_grad_(False): same is t: {same is t}, requires_grad="
                 "{t.requires_grad}, is_leaf={t.is_leaf}")


@behaviour("REQ-3")
@needs("nn")
@given(integers=int_lists)
def test_integer_parameters_need_requires_grad_false(engine, integers):
    """nn.Parameter of an int64 tensor raises RuntimeError with its default requires_grad=True,
    and is a parameter that does not require grad with requires_grad=False."""
    script = Script(engine)
    script.run(f"t = torch.tensor({integers!r}, dtype=torch.int64)")
    script.raises("torch.nn.Parameter(t)")
    with script.control():
        script.run("p = torch.nn.Parameter(t, requires_grad=False)")
        script.check("not p.requires_grad and p.dtype == torch.int64",
                     "nn.Parameter(t, requires_grad=False) of int64 t has requires_grad="
                     "{p.requires_grad} and dtype {p.dtype}")


# What gives a tensor that is not floating point (`{}` is the tensor), each never requiring grad.
NON_FLOAT_RESULTS = ("{} > 0", "{} <= {}", "{} == {}", "{}.argmax()", "{}.to(torch.int64)",
                     "{}.to(torch.bool)")


@behaviour("REQ-4")
@needs("integer_outputs")
@given(data=st.data())
def test_integer_and_bool_results_never_require_grad(engine, data):
    """Comparisons, argmax() and conversions to int64 or bool of tensors that require grad give
    tensors that do not require grad and have no grad_fn."""
    program = data.draw(programs(engine, output="any", candidates=_recorded), label="program")
    names = [leaf.name for leaf in program.grad_leaves()] + [node.name for node in
                                                               _recorded(program)]
    script = Script(engine)
    script.build(program)
    for name in names:
        for form in NON_FLOAT_RESULTS:
            result = form.format(name, name)
            script.check(f"not ({result}).requires_grad and ({result}).grad_fn is None",
                         f"{result} of {name}, which requires grad, is recorded",
                         show=(f"({result}).requires_grad", f"({result}).grad_fn"))


@behaviour("REQ-11")
@needs("autograd_backward", "messages")
@given(data=st.data(), roots=counts(FUNCTION_OUTPUTS, low=2))
def test_the_root_that_does_not_require_grad_is_named(engine, data, roots):
    """Among several roots of autograd.backward, one that does not require grad raises
    RuntimeError naming its index: 'element i of tensors does not require grad and does not
    have a grad_fn'; with out in its place, the leaves get the gradients of every root."""
    program = data.draw(programs(engine), label="program")
    index = data.draw(st.integers(0, roots - 1), label="index of the constant root")
    listed = ["torch.tensor(3.0)" if position == index else "out" for position in range(roots)]
    script = Script(engine)
    with script.control():
        script.build(program)
        script.run(f"torch.autograd.backward([{', '.join(['out'] * roots)}])")
        assert_leaf_grads(script, program, analytic_grads(program), scale=roots,
                          oracle=f"analytic x {roots} roots")
    script.build(program)
    script.raises(f"torch.autograd.backward([{', '.join(listed)}])",
                  f"element {index} of tensors does not require grad and does not have a grad_fn")


@behaviour("REQ-11")
@needs("autograd_grad", "messages")
@given(data=st.data(), outputs=counts(FUNCTION_OUTPUTS))
def test_autograd_grad_names_the_output_that_does_not_require_grad(engine, data, outputs):
    """autograd.grad says the same of its outputs: 'element i of tensors does not require grad
    and does not have a grad_fn' for output i; with out in its place, the gradients of every
    output."""
    program = data.draw(programs(engine), label="program")
    index = data.draw(st.integers(0, outputs - 1), label="index of the constant output")
    listed = ["torch.tensor(3.0)" if position == index else "out" for position in range(outputs)]
    leaves = ", ".join(leaf.name for leaf in program.grad_leaves())
    expected = analytic_grads(program)
    script = Script(engine)
    script.build(program)
    with script.control():
        script.run(f"grads = torch.autograd.grad([{', '.join(['out'] * outputs)}], [{leaves}], "
                   "retain_graph=True)")
        for position, leaf in enumerate(program.grad_leaves()):
            script.check_close(f"grads[{position}]", outputs * expected[leaf.name],
                               dtype=program.dtype, oracle=f"analytic x {outputs} outputs",
                               magnitude=outputs * expected.magnitude)
    script.raises(f"torch.autograd.grad([{', '.join(listed)}], [{leaves}])",
                  f"element {index} of tensors does not require grad and does not have a grad_fn")
