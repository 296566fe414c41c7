"""nn.Module's full backward hooks: `register_full_backward_pre_hook(fn(module, grad_output))` and
`register_full_backward_hook(fn(module, grad_input, grad_output))` (HOOK-12).

As the autograd note's "Special hooks" describes torch's: a call of a module that has such hooks
passes the module's tensor arguments through one identity node, and its tensor results through
another, so that one node sees the gradients of all its inputs and one those of all its outputs.
The post-hook (node_hooks.py) of the outputs' node runs the pre-hooks, which may replace
grad_output before it flows into the module; the post-hook of the inputs' node runs the full hooks,
which may replace grad_input before it flows out. grad_input and grad_output have one entry per
argument or result, None for one that is not a tensor or gets no gradient.
"""
import warnings

from . import graph
from .tensor import Tensor, make

NO_INPUT_WARNING = (
    "Full backward hook is firing when gradients are computed with respect to module outputs since no "
    "inputs require gradients. See https://docs.pytorch.org/docs/main/generated/torch.nn.Module.html"
    "#torch.nn.Module.register_full_backward_hook for more details.")


class BackwardHookFunctionBackward(graph.Node):
    """The identity on several tensors, one output each, named like torch's node."""

    def __init__(self, tensors):
        super().__init__(*tensors)
        self.outputs = len(tensors)

    def backward(self, grad):
        return tuple(grad) if self.outputs > 1 else (grad,)


def call_with_backward_hooks(module, args, kwargs):
    """`module.forward(*args, **kwargs)` with the module's backward hooks around it."""
    call = _HookedCall(module)
    args = call.wrap_inputs(args)
    return call.wrap_outputs(module.forward(*args, **kwargs))


class _HookedCall:
    """One call of a hooked module: where its tensors are among its arguments and results, and
    the grad_output that the full hooks receive, kept from the outputs' node to the inputs'."""

    def __init__(self, module):
        self.module = module
        self.inputs = self.outputs = None  # (count, positions of the tensors that go through a node)
        self.grad_output = None

    def wrap_inputs(self, args):
        self.inputs, wrapped = _through_node(args, self._on_inputs)
        return wrapped

    def wrap_outputs(self, result):
        single = isinstance(result, Tensor)
        self.outputs, wrapped = _through_node((result,) if single else tuple(result), self._on_outputs)
        return wrapped[0] if single else wrapped

    def _on_outputs(self, grad_inputs, grad_outputs):
        """The pre-hooks, on grad_output; where no input went through a node (none requires grad),
        the full hooks too, with grad_input all None, which they cannot replace."""
        grad_output = _run(self.module._backward_pre_hooks, self.outputs[0], _spread(self.outputs, grad_outputs),
                           lambda hook, grads: hook(self.module, grads),
                           "pre hook returned an invalid number of grad_output")
        self.grad_output = grad_output
        if self.inputs[1] is None:
            warnings.warn(NO_INPUT_WARNING, UserWarning, stacklevel=2)
            for hook in self.module._backward_hooks.values():
                returned = hook(self.module, (None,) * self.inputs[0], grad_output)
                if returned is not None and not (isinstance(returned, tuple) and all(g is None for g in returned)):
                    raise RuntimeError("Backward hook for Modules where no input requires gradient should always "
                                       "return None or None for all gradients.")
            self.grad_output = None
        return tuple(grad_output[i] for i in self.outputs[1])

    def _on_inputs(self, grad_inputs, grad_outputs):
        """The full hooks, on the grad_input that reached the inputs' node."""
        if self.grad_output is None:  # the gradient did not come through the module's outputs
            return None
        grad_input = _run(self.module._backward_hooks, self.inputs[0], _spread(self.inputs, grad_inputs),
                          lambda hook, grads: hook(self.module, grads, self.grad_output),
                          "hook returned an invalid number of grad_input")
        self.grad_output = None
        return tuple(grad_input[i] for i in self.inputs[1])


def _through_node(values, post_hook):
    """`values` with their tensors replaced by the outputs of a new identity node that has
    `post_hook`, and ((count, positions of those tensors) or (count, None) where nothing is
    recorded: grad mode is off, or no tensor requires grad)."""
    positions = [i for i, v in enumerate(values) if isinstance(v, Tensor)]
    tensors = [values[i] for i in positions]
    if not graph.recording(*tensors):
        return (len(values), None), values
    node = BackwardHookFunctionBackward(tensors)
    node.register_hook(post_hook)
    wrapped = list(values)
    for output_nr, (i, t) in enumerate(zip(positions, tensors)):
        wrapped[i] = _output(node, output_nr, t)
    return (len(values), positions), tuple(wrapped)


def _output(node, output_nr, tensor):
    """Output `output_nr` of the identity `node`: the tensor's values, in the graph if it requires
    grad (one that does not stays out of it, as torch marks it non-differentiable)."""
    out = make(tensor._array, tensor._requires_grad, node if tensor._requires_grad else None)
    out._output_nr, out._counter = output_nr, tensor._shared_counter()
    return out


def _spread(where, grads):
    """The node's gradients (one per tensor) at their places among the arguments or results."""
    count, positions = where
    spread = [None] * count
    for i, g in zip(positions, grads):
        spread[i] = g
    return tuple(spread)


def _run(table, count, grads, call, miscount):
    """Call each hook of `table` in turn; a result replaces `grads`, and must have `count` entries
    (else torch's RuntimeError, `miscount` naming what)."""
    for hook in table.values():
        returned = call(hook, grads)
        if returned is not None:
            if len(returned) != count:
                raise RuntimeError(f"Backward {miscount}, got {len(returned)}, but expected {count}")
            grads = tuple(returned)
    return grads
