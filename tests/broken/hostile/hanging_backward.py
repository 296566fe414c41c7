"""A broken engine: backward() never returns (it sleeps forever). With HANGING_BACKWARD_SIGNAL set
to a path, it first creates that file, so a test can tell when the run is stuck."""

import os
import time

import torch

from tests.broken.hostile._torch_subclass import engine_module

SIGNAL_PATH = os.environ.get("HANGING_BACKWARD_SIGNAL")


class HangingTensor(torch.Tensor):
    def backward(self, *args, **kwargs):
        if SIGNAL_PATH:
            open(SIGNAL_PATH, "w").close()
        while True:
            time.sleep(1)


engine_module(__name__, HangingTensor)
