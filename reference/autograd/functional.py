"""`torch.autograd.functional`: derivatives of a function at a point, each built from `grad`.

Every function calls `func` on its own copies of the inputs, which require grad (under
create_graph, views of the caller's tensors that require grad, so that the results stay connected
to the caller's graph), and asks `grad` for vector-Jacobian products:

- `vjp`: one backward pass from the outputs with v: v^T J (FUNC-1).
- `jvp`: J v by the double-vjp trick, as torch does: g(u) = u^T J, a backward pass with
  create_graph from a dummy u, is linear in u, and its own vjp with v is J v (FUNC-2). Forward-mode
  AD would be the fast way; this one needs nothing but backward.
- `jacobian`: one vjp per output element, the unit vector e_k giving row k (JAC-6, JAC-8, JAC-9);
  vectorize=True asks for all the rows in one batched `grad` call (JAC-10, FUNC-8);
  strategy="forward-mode" builds it column by column instead (forward_jacobian.py, FUNC-9).
- `hessian`: the jacobian of the gradient, itself taken with create_graph (FUNC-4); `vhp`: the
  vjp of the gradient with v; `hvp`: the double-vjp trick on the gradient (FUNC-5).

v may be left out only where it would be a single number (FUNC-3). Results are detached unless
create_graph (FUNC-7). A derivative with no path through the graph is zeros, or with strict=True a
RuntimeError (FUNC-6). The messages are torch's.
"""
import numpy as np

from .. import grad_mode
from ..creation import zeros_like
from ..tensor import make
from . import forward_jacobian
from .gradients import grad, stack

STRICT = " This is not allowed in strict mode."
INDEPENDENT_OUTPUT = "The output of the user-provided function is independent of input {}." + STRICT
LINEAR = ("While computing the hessian, found that the jacobian of the user-provided function with respect to "
          "input {} is independent of the input." + STRICT + " You should ensure that your function is twice "
          "differentiable and that the jacobian depends on the inputs (this would be violated by a linear "
          "function for example).")
OUTPUT_RETURNS = "user-provided function returns"       # whose v may be left out: vjp's output ...
INPUT_IS = "input to the user-provided function is"     # ... the others' input


def _as_tuple(x):
    """(whether x is a tuple, x as a tuple): a tensor given alone comes back alone."""
    return (True, x) if isinstance(x, tuple) else (False, (x,))


def _unpack(results, was_tuple):
    return results if was_tuple else results[0]


def _own(tensors, create_graph, requires_grad=True):
    """The tensors as the function sees them: new leaves (requiring grad for inputs, not for vectors
    v), or under create_graph views of those that require grad, so that gradients reach them (FUNC-7)."""
    return tuple(t.view(t.shape) if create_graph and t.requires_grad else t.detach().requires_grad_(requires_grad)
                 for t in tensors)


def _call(func, inputs, strict):
    """func(*inputs) in grad mode, as (whether it returned a tuple, the outputs); strict refuses an
    output that does not require grad: nothing can be differentiated through it (FUNC-6)."""
    with grad_mode.enable_grad():
        was_tuple, outputs = _as_tuple(func(*inputs))
    for i, out in enumerate(outputs):
        if strict and not out.requires_grad:
            raise RuntimeError(f"Output {i} of the user-provided function does not require gradients. The "
                               "outputs must be computed in a differentiable manner from the input when running "
                               "in strict mode.")
    return was_tuple, outputs


def _vectors(v, like, like_is_tuple, whose, create_graph):
    """v as a tuple of tensors shaped like `like`; None only where `like` is one tensor of one
    element, whose v is then the number 1 (FUNC-3)."""
    if v is None:
        if len(like) != 1 or like[0].numel() != 1:
            raise RuntimeError(f"The vector v can only be None if the {whose} a single Tensor with a single element.")
        return None
    _, v = _as_tuple(v)
    if len(v) != len(like):
        raise RuntimeError(f"v is a tuple of invalid length: should be {len(like)} but got {len(v)}."
                           if like_is_tuple else "The given v should contain a single Tensor.")
    for i, (vector, t) in enumerate(zip(v, like)):
        if vector.shape != t.shape:
            entry = f"Entry {i} in " if like_is_tuple else ""
            raise RuntimeError(f"{entry}v has invalid size: should be torch.Size({list(t.shape)}) but got "
                               f"torch.Size({list(vector.shape)}).")
    return _own(v, create_graph, requires_grad=False)


def _vjps(outputs, inputs, vectors, create_graph, retain_graph=None, batched=False):
    """One vjp per input from the outputs that require grad, each with its vector (None: the
    implicit 1 of a one-element output); None for an input that no path reaches."""
    vectors = (None,) * len(outputs) if vectors is None else vectors
    pairs = [(out, v) for out, v in zip(outputs, vectors) if out is not None and out.requires_grad]
    if not pairs:
        return (None,) * len(inputs)
    roots, given = zip(*pairs)
    return grad(roots, inputs, given, retain_graph=retain_graph,
                create_graph=create_graph, allow_unused=True, is_grads_batched=batched)


def _zeros_where_none(grads, like, strict, message, lead=()):
    """Each None (no path) as zeros of lead + like's shape: the derivative's value; strict=True
    raises `message` instead (FUNC-6)."""
    filled = []
    for i, (g, t) in enumerate(zip(grads, like)):
        if g is None:
            if strict:
                raise RuntimeError(message.format(i))
            g = make(np.zeros(lead + t.shape, t._array.dtype))
        filled.append(g)
    return tuple(filled)


def _finish(tensors, create_graph):
    """What the caller gets: tensors without history, unless create_graph (FUNC-7)."""
    return tuple(t if create_graph else t.detach() for t in tensors)


def _finish_derivatives(derivatives, create_graph, strict, what="jacobian"):
    """The derivatives as _finish gives them; strict=True with create_graph=True refuses one that
    does not depend on the inputs (a linear function's jacobian, a quadratic one's hessian), as
    its graph would be empty (FUNC-6)."""
    for i, d in enumerate(derivatives):
        if strict and create_graph and not d.requires_grad:
            raise RuntimeError(f"The {what} of the user-provided function is independent of input {i}. "
                               "This is not allowed in strict mode when create_graph=True.")
    return _finish(derivatives, create_graph)


def vjp(func, inputs, v=None, create_graph=False, strict=False):
    """(func(inputs), v^T J): one backward pass from the outputs with v (FUNC-1)."""
    inputs_tuple, inputs = _as_tuple(inputs)
    inputs = _own(inputs, create_graph)
    outputs_tuple, outputs = _call(func, inputs, strict)
    vectors = _vectors(v, outputs, outputs_tuple, OUTPUT_RETURNS, create_graph)
    vjps = _zeros_where_none(_vjps(outputs, inputs, vectors, create_graph), inputs, strict, INDEPENDENT_OUTPUT)
    return (_unpack(_finish(outputs, create_graph), outputs_tuple),
            _unpack(_finish_derivatives(vjps, create_graph, strict), inputs_tuple))


def jvp(func, inputs, v=None, create_graph=False, strict=False):
    """(func(inputs), J v), by the double-vjp trick: the dummies u may hold any value, as
    g(u) = u^T J is linear in them (FUNC-2)."""
    inputs_tuple, inputs = _as_tuple(inputs)
    inputs = _own(inputs, create_graph)
    vectors = _vectors(v, inputs, inputs_tuple, INPUT_IS, create_graph)
    outputs_tuple, outputs = _call(func, inputs, strict)
    dummies = tuple(zeros_like(out, requires_grad=True) for out in outputs)
    g = _vjps(outputs, inputs, dummies, create_graph=True)
    for i, g_i in enumerate(g):
        if strict and g_i is None:
            raise RuntimeError(INDEPENDENT_OUTPUT.format(i))
        if strict and not g_i.requires_grad:
            raise RuntimeError(f"The gradient with respect to input {i} is independent of the inputs of the "
                               "user-provided function." + STRICT)
    jvps = _zeros_where_none(_vjps(g, dummies, vectors, create_graph), outputs, strict,
                             "The gradient with respect to the input is independent of entry {} in the grad_outputs "
                             "when using the double backward trick to compute forward mode gradients." + STRICT)
    return (_unpack(_finish(outputs, create_graph), outputs_tuple),
            _unpack(_finish_derivatives(jvps, create_graph, strict), outputs_tuple))


def jacobian(func, inputs, create_graph=False, strict=False, vectorize=False, strategy="reverse-mode"):
    """[i][j] = d output_i / d input_j, shaped output_i.shape + input_j.shape, nested as func's
    outputs and the inputs are: one level of tuple for each tuple (JAC-9)."""
    forward_jacobian.check_strategy(strategy, create_graph, strict, vectorize)
    inputs_tuple, inputs = _as_tuple(inputs)
    if strategy == "forward-mode":  # column by column, with forward-mode AD (FUNC-9)
        outputs_tuple, blocks = forward_jacobian.jacobian(func, inputs)
        return _unpack(tuple(_unpack(row, inputs_tuple) for row in blocks), outputs_tuple)
    if strict and vectorize:
        raise RuntimeError("torch.autograd.functional.jacobian: `strict=True` and `vectorized=True` are not "
                           "supported together. Please either set `strict=False` or `vectorize=False`.")
    inputs = _own(inputs, create_graph)
    outputs_tuple, outputs = _call(func, inputs, strict)
    rows = tuple(_unpack(_blocks(i, out, inputs, create_graph, strict, vectorize), inputs_tuple)
                 for i, out in enumerate(outputs))
    return _unpack(rows, outputs_tuple)


def _reverse_mode_only(strategy):
    """hessian's outer Jacobian is built from vector-Jacobian products only: this engine does not
    pretend to honour forward-over-reverse."""
    if strategy != "reverse-mode":
        raise NotImplementedError(f"the reference engine computes a hessian's outer Jacobian in reverse mode "
                                  f"only, not with strategy={strategy!r}")


def _blocks(i, out, inputs, create_graph, strict, vectorize):
    """d out / d input_j for every input j: row k is the vjp with the unit vector e_k (JAC-6), one
    backward pass per row, or every row in one batched call (vectorize, JAC-10)."""
    size = out.numel()
    units = np.eye(size, dtype=out._array.dtype).reshape((size,) + out.shape)
    if vectorize:
        rows = _vjps((out,), inputs, (make(units),), create_graph, retain_graph=True, batched=True)
    else:
        passes = [_vjps((out,), inputs, (make(unit),), create_graph, retain_graph=True) for unit in units]
        rows = tuple(None if passes[0][j] is None else stack([row[j] for row in passes], create_graph)
                     for j in range(len(inputs)))
    message = f"Output {i} of the user-provided function is independent of input {{}}." + STRICT
    rows = _zeros_where_none(rows, inputs, strict, message, lead=(size,))
    return _finish_derivatives(tuple(r.reshape(out.shape + x.shape) for r, x in zip(rows, inputs)), create_graph,
                               strict)


def _scalar_output(func, inputs, strict, who):
    """func(*inputs), which must be one tensor of one element: the functions of second
    derivatives differentiate a number."""
    was_tuple, outputs = _call(func, inputs, strict)
    if was_tuple:
        raise RuntimeError(f"The function given to {who} should return a single Tensor")
    if outputs[0].numel() != 1:
        raise RuntimeError(f"The Tensor returned by the function given to {who} should contain a single element")
    return outputs[0]


def _check_gradient(gradient, strict):
    """strict=True refuses a gradient with no path back to the inputs: the function is linear in that
    input (or does not use it), so its second derivatives are not computed but known zero (FUNC-6)."""
    for i, g in enumerate(gradient):
        if strict and g is None:
            raise RuntimeError(INDEPENDENT_OUTPUT.format(i))
        if strict and not g.requires_grad:
            raise RuntimeError(LINEAR.format(i))


def hessian(func, inputs, create_graph=False, strict=False, vectorize=False, outer_jacobian_strategy="reverse-mode"):
    """[i][j] = d^2 func / d input_i d input_j, shaped input_i.shape + input_j.shape: the jacobian
    of the gradient, which is taken with create_graph so that the outer jacobian can differentiate
    it (FUNC-4)."""
    _reverse_mode_only(outer_jacobian_strategy)
    inputs_tuple, _ = _as_tuple(inputs)

    def number(*xs):
        return _scalar_output(func, xs, strict, "hessian").reshape(())

    def gradient(*xs):
        first = jacobian(number, xs, create_graph=True)
        _check_gradient(first, strict)
        return first

    rows = jacobian(gradient, inputs, create_graph=create_graph, strict=strict, vectorize=vectorize)
    return _unpack(rows, inputs_tuple)  # the outer jacobian has unpacked each row already


def _gradient(func, inputs, strict, who):
    """(func(*inputs), its gradient with create_graph): the first derivatives, differentiable again."""
    out = _scalar_output(func, inputs, strict, who)
    gradient = _vjps((out,), inputs, None, create_graph=True)
    _check_gradient(gradient, strict)
    return out, gradient


def vhp(func, inputs, v=None, create_graph=False, strict=False):
    """(func(inputs), v^T H): the vjp of the gradient with v (FUNC-5)."""
    inputs_tuple, inputs = _as_tuple(inputs)
    inputs = _own(inputs, create_graph)
    vectors = _vectors(v, inputs, inputs_tuple, INPUT_IS, create_graph)
    out, gradient = _gradient(func, inputs, strict, "vhp")
    vhps = _zeros_where_none(_vjps(gradient, inputs, vectors, create_graph), inputs, strict,
                             "The jacobian of the user-provided function is independent of input {}." + STRICT)
    return (_finish((out,), create_graph)[0],
            _unpack(_finish_derivatives(vhps, create_graph, strict, "hessian"), inputs_tuple))


def hvp(func, inputs, v=None, create_graph=False, strict=False):
    """(func(inputs), H v), by the double-vjp trick on the gradient: u^T H, the vjp of the gradient
    with dummies u taken with create_graph, is linear in u, and its vjp with v is H v (FUNC-5).
    Where H is symmetric (a twice continuously differentiable func) it equals vhp; torch computes
    it this way all the same."""
    inputs_tuple, inputs = _as_tuple(inputs)
    inputs = _own(inputs, create_graph)
    vectors = _vectors(v, inputs, inputs_tuple, INPUT_IS, create_graph)
    out, gradient = _gradient(func, inputs, strict, "hvp")
    dummies = tuple(zeros_like(x, requires_grad=True) for x in inputs)
    u_h = _vjps(gradient, inputs, dummies, create_graph=True)
    hvps = _zeros_where_none(_vjps(u_h, dummies, vectors, create_graph), inputs, strict,
                             "The hessian of the user-provided function is independent of entry {} in the "
                             "grad_jacobian. This is not allowed in strict mode as it prevents from using the "
                             "double backward trick to replace forward mode AD.")
    return (_finish((out,), create_graph)[0],
            _unpack(_finish_derivatives(hvps, create_graph, strict, "hessian"), inputs_tuple))
