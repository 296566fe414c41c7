"""A broken engine with two gaps, each in its own behaviour:
- every tensor claims is_leaf == True (LEAF-3 fails; the graph picture shows the difference);
- retain_grad() raises a RuntimeError whose message carries HTML and a <script> (LEAF-8 fails,
  and the report must show the message as text).
SCRIPT_ERRORS_FIXED=is_leaf (comma-separated) fixes a gap: the baseline tests use it."""

import os

import torch

from tests.broken.hostile._torch_subclass import engine_module

FIXED = set(os.environ.get("SCRIPT_ERRORS_FIXED", "").split(","))
MESSAGE = ("retain_grad is <b>not</b> supported <script>document.title='pwned';"
           "console.error('pwned')</script><img src=x onerror=\"console.error('pwned')\">")


class ScriptErrorsTensor(torch.Tensor):
    if "is_leaf" not in FIXED:
        @property
        def is_leaf(self):
            return True

    if "retain_grad" not in FIXED:
        def retain_grad(self):
            raise RuntimeError(MESSAGE)


engine_module(__name__, ScriptErrorsTensor)
