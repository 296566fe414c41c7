"""`jacobian(func, inputs)`: one vector-Jacobian product per output element (JAC-8, JAC-9)."""
import numpy as np

from .. import grad_mode
from ..tensor import make
from .gradients import grad


def jacobian(func, inputs, create_graph=False, strict=False, vectorize=False, strategy="reverse-mode"):
    """The Jacobian of func at inputs, shaped out.shape + in.shape; tuples for tuple inputs/outputs.

    Outputs independent of an input give zeros (strict=True raises instead); the result does not
    require grad unless create_graph (JAC-9).
    """
    tuple_inputs = isinstance(inputs, tuple)
    inputs = inputs if tuple_inputs else (inputs,)
    inputs = tuple(x.detach().requires_grad_(True) if not create_graph or not x.requires_grad
                   else x.view(x.shape) for x in inputs)
    with grad_mode.enable_grad():
        outputs = func(*inputs)
    tuple_outputs = isinstance(outputs, tuple)
    outputs = outputs if tuple_outputs else (outputs,)
    result = []
    for i, out in enumerate(outputs):
        if strict and not out.requires_grad:
            raise RuntimeError(f"Output {i} of the user-provided function does not require gradients. The outputs "
                               "must be computed in a differentiable manner from the input when running in strict "
                               "mode.")
        rows = [[] for _ in inputs]
        for k in range(out.numel()):  # row k: the product with the unit vector e_k (JAC-6)
            if out.requires_grad:
                unit = np.zeros(out._array.size, out._array.dtype)
                unit[k] = 1
                grads = grad(out, inputs, make(unit.reshape(out.shape)), retain_graph=True,
                              create_graph=create_graph, allow_unused=True)
            else:
                grads = (None,) * len(inputs)
            for j, (x, g) in enumerate(zip(inputs, grads)):
                if g is None:
                    if strict:
                        raise RuntimeError(f"Output {i} of the user-provided function is independent of input {j}. "
                                           "This is not allowed in strict mode.")
                    g = make(np.zeros_like(x._array))
                rows[j].append(g)
        blocks = tuple(_stack(r, out.shape + x.shape, x, create_graph) for r, x in zip(rows, inputs))
        result.append(blocks if tuple_inputs else blocks[0])
    return tuple(result) if tuple_outputs else result[0]


def _stack(rows, shape, like, create_graph):
    """The rows as one tensor; under create_graph through index assignment, so it stays differentiable."""
    stacked = make(np.zeros((len(rows),) + like.shape, like._array.dtype))
    if create_graph:
        for k, row in enumerate(rows):
            stacked[k] = row
    else:
        for k, row in enumerate(rows):
            stacked._array[k] = row._array
    return stacked.reshape(shape)
