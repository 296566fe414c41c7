"""A broken engine: backward() never returns (it sleeps forever)."""

import time

import torch

from tests.engines._torch_subclass import engine_module


class HangingTensor(torch.Tensor):
    def backward(self, *args, **kwargs):
        while True:
            time.sleep(1)


engine_module(__name__, HangingTensor)
