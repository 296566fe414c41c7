"""PyTorch itself, as the engine every other engine is compared with.

The adapter is the `torch` namespace; only the factories are wrapped, so that `--device` can place
every tensor the suites create on a device (`cuda`, or an out-of-tree backend's device string).
"""

import numpy as np
import torch

name = "torch"
version = torch.__version__
capabilities = frozenset({
    "core", "float64", "dtype_conversion", "grad_mode", "inference_mode", "autograd_grad", "autograd_backward",
    "backward_inputs",
    "higher_order", "backward_create_graph", "functional", "graph", "grad_fn_names", "messages",
    "inplace", "hooks", "nn", "optim", "legacy", "custom_function",
    "saved_tensor_hooks", "saved_tensor_mutation", "views", "conversions", "anomaly", "grad_layout",
    "grad_assignment", "grad_dtype", "meta_device",
    "post_accumulate_hooks", "node_hooks", "node_metadata", "module_hooks", "multi_grad_hooks",
    "integer_outputs", "saved_attributes", "tensor_repr",
    "functional_api", "grads_batched", "gradient_edge",
    "forward_ad", "tensor_data",
    "complex", "threads", "checkpoint", "max_min",
})
_FACTORIES = ("tensor", "zeros", "ones", "rand", "randn", "full", "arange", "empty")


class TorchOnDevice:
    """The torch namespace with factories that default to one device."""

    def __init__(self, device: str):
        self.device = torch.device(device)
        torch.empty(0, device=self.device)  # fail now, not in the first test
        self.name = f"torch[{device}]"
        self.version = version
        self.capabilities = capabilities

    def __getattr__(self, attribute):
        value = getattr(torch, attribute)
        if attribute in _FACTORIES:
            return lambda *args, **kwargs: value(*args, **{"device": self.device, **kwargs})
        return value

    def to_numpy(self, tensor):
        return to_numpy(tensor)


def __getattr__(attribute):
    """Everything not defined here is torch's own."""
    return getattr(torch, attribute)


def to_numpy(tensor) -> np.ndarray:
    return tensor.detach().cpu().numpy(force=True)  # force: a ZeroTensor (e.g. a second derivative of abs) too


def on_device(device: str):
    return TorchOnDevice(device)
