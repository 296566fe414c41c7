"""A broken engine: backward() ends the interpreter (os._exit), as a crashing C extension would."""

import os

import torch

from tests.broken.hostile._torch_subclass import engine_module


class ExitingTensor(torch.Tensor):
    def backward(self, *args, **kwargs):
        os._exit(3)


engine_module(__name__, ExitingTensor)
