"""Factories: tensors made by the user are leaves (LEAF-1); only floating-point ones may require grad (REQ-1).

Also the global random generator (`manual_seed`, `rand`, `randn`): NumPy's, so values differ from torch's.
"""
import warnings

import numpy as np

from . import dtypes
from .devices import placed
from .tensor import Tensor, as_array, make

_random = np.random.default_rng(0)


def _leaf(array, requires_grad):
    """A user-made tensor: a leaf (LEAF-1) that requires grad when asked, grad mode or not (MODE-2);
    only floating-point and complex ones may (REQ-1, REQ-2, MSG-4, CPLX-1); False suits any dtype
    (REQ-3)."""
    if requires_grad and array.dtype.kind not in "fc":
        raise RuntimeError("Only Tensors of floating point and complex dtype can require gradients")
    return make(array, bool(requires_grad))


def on_cpu(device):
    """Where the engine's factories take a meta tensor, a module is on the CPU only (devices.py)."""
    if device is not None and str(device) != "cpu":
        raise RuntimeError(f"the reference engine's modules have only the device 'cpu', not {device!r}")


def tensor(data, dtype=None, requires_grad=False, device=None):
    """A new leaf holding a copy of data; copying a tensor warns and drops its graph (MISC-8)."""
    if isinstance(data, Tensor):
        warnings.warn(
            "To copy construct from a tensor, it is recommended to use sourceTensor.detach().clone() or "
            "sourceTensor.detach().clone().requires_grad_(True), rather than torch.tensor(sourceTensor).",
            UserWarning, stacklevel=2)
    return _leaf(placed(as_array(data, dtype), device), requires_grad)


def _shape(size):
    return tuple(size[0]) if len(size) == 1 and isinstance(size[0], (tuple, list)) else tuple(size)


def zeros(*size, dtype=None, requires_grad=False, device=None):
    return _leaf(placed(np.zeros(_shape(size), (dtype or dtypes.float32).numpy), device), requires_grad)


def ones(*size, dtype=None, requires_grad=False, device=None):
    return _leaf(placed(np.ones(_shape(size), (dtype or dtypes.float32).numpy), device), requires_grad)


def full(size, fill_value, dtype=None, requires_grad=False, device=None):
    array = np.full(_shape((size,)), fill_value, (dtype or dtypes.float32).numpy)
    return _leaf(placed(array, device), requires_grad)


def zeros_like(t, dtype=None, requires_grad=False):
    return _leaf(np.zeros(t.shape, (dtype or t.dtype).numpy), requires_grad)


def ones_like(t, dtype=None, requires_grad=False):
    return _leaf(np.ones(t.shape, (dtype or t.dtype).numpy), requires_grad)


def eye(n, dtype=None, requires_grad=False):
    return _leaf(np.eye(n, dtype=(dtype or dtypes.float32).numpy), requires_grad)


def arange(*args, dtype=None, requires_grad=False):
    array = np.arange(*args)
    if dtype is not None:
        array = array.astype(dtype.numpy)
    elif array.dtype.kind == "f":
        array = array.astype(np.float32)
    return _leaf(array, requires_grad)


def manual_seed(seed):
    global _random
    _random = np.random.default_rng(seed)


def random_state():
    """Where the global generator is now: checkpointing replays it for its recomputation (CKPT-5)."""
    return _random.bit_generator.state


def set_random_state(state):
    _random.bit_generator.state = state


def rand(*size, dtype=None, requires_grad=False):
    return _leaf(_random.random(_shape(size)).astype((dtype or dtypes.float32).numpy), requires_grad)


def randn(*size, dtype=None, requires_grad=False):
    return _leaf(_random.standard_normal(_shape(size)).astype((dtype or dtypes.float32).numpy), requires_grad)


def uniform(shape, low, high, dtype):
    """Samples for nn.Linear's initialisation, from the same generator."""
    return _random.uniform(low, high, shape).astype(dtype)
