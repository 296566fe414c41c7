"""The reference engine: a readable NumPy autograd that behaves like torch's.

`import autograd_conformance.reference as torch` gives the torch-like namespace of the adapter
contract (docs/adapter-contract.md): the package is its own adapter. Module map:

- `tensor.py`   the Tensor and its autograd attributes (`conversions.py`: how it leaves autograd;
                `tensor_hooks.py`: its hooks; `grad_attribute.py`: `.grad`, `grad_dtype`,
                `retain_grad`; `layout.py`: strides and the layout of a first gradient)
- `graph.py`    nodes, saved tensors, and `record`, which decides whether an op is recorded
                (`saved.py`: refusals around saved tensors, allow_mutation_on_saved_tensors' copies)
- `walk.py`     the backward walk (`hooks.py`: where hooks are kept; `node_hooks.py`: hooks on nodes)
- `ops/`        the op set by family, each forward followed by its backward node
- `methods.py`  binds the ops to Tensor as methods and operators
- `dual.py`     forward-mode AD's open dual level and each tensor's tangent
- `grad_mode.py`, `anomaly.py`, `creation.py`, `printing.py`, `dtypes.py`
- `devices.py`  the meta device: tensors with a shape and a dtype and no values (ACC-12)
- `autograd/`   `gradients.py` (backward, grad), `functional.py` and `forward_jacobian.py` (the
                functional API), `forward_ad.py` (dual_level, make_dual, unpack_dual),
                `function.py` (custom Functions), `graph.py` (saved-tensor hooks, gradient edges,
                multi-grad hooks), `variable.py` (the legacy Variable)
- `nn.py` (`module_hooks.py`: its backward hooks), `optim.py`
- `utils/`     checkpoint: activation checkpointing

Modules import each other in one direction only (tests/test_reference_structure.py checks it).
"""
from . import autograd, methods, nn, optim, utils  # methods: binds the op set to Tensor
from .anomaly import is_anomaly_check_nan_enabled, is_anomaly_enabled
from .creation import arange, eye, full, manual_seed, ones, ones_like, rand, randn, tensor, zeros, zeros_like
from .dtypes import bool, cdouble, cfloat, complex64, complex128, double, dtype, float, float32, float64, int64, long
from .grad_mode import (
    enable_grad,
    inference_mode,
    is_grad_enabled,
    is_inference_mode_enabled,
    no_grad,
    set_grad_enabled,
)
from .ops import (
    abs,
    add,
    amax,
    amin,
    clone,
    complex,
    conj,
    div,
    exp,
    imag,
    log,
    matmul,
    max,
    mean,
    min,
    mul,
    neg,
    pow,
    real,
    relu,
    reshape,
    sigmoid,
    sqrt,
    sub,
    sum,
    tanh,
    transpose,
)
from .tensor import Tensor

name = "reference"
version = __version__ = "0.1.0"
capabilities = frozenset({
    "core", "float64", "dtype_conversion", "grad_mode", "inference_mode", "autograd_grad",
    "autograd_backward", "backward_inputs", "higher_order",
    "backward_create_graph", "functional", "graph", "grad_fn_names", "messages", "inplace", "hooks", "nn",
    "optim", "legacy", "custom_function", "saved_tensor_hooks", "saved_tensor_mutation", "views",
    "conversions", "anomaly",
    "grad_layout", "grad_assignment", "grad_dtype", "meta_device",
    "post_accumulate_hooks", "node_hooks", "node_metadata", "module_hooks", "multi_grad_hooks",
    "integer_outputs", "saved_attributes", "tensor_repr",
    "functional_api", "grads_batched", "gradient_edge",
    "forward_ad", "tensor_data",
    "complex", "checkpoint", "threads", "max_min",
})


def to_numpy(t):
    """A copy of t's values, never a graph."""
    return t._array.copy()


def mm(a, b):
    return matmul(a, b)
