"""A broken engine: backward() raises KeyboardInterrupt, as if the user pressed Ctrl-C there."""

import torch

from tests.broken.hostile._torch_subclass import engine_module


class InterruptingTensor(torch.Tensor):
    def backward(self, *args, **kwargs):
        raise KeyboardInterrupt


engine_module(__name__, InterruptingTensor)
