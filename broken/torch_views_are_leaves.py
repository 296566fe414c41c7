"""Breaks LEAF-3. `is_leaf` says True for views (reshape, transpose, indexing) of a tensor that
requires grad, as an engine might that decides leafness by "owns no storage of its own" confusion:
it treats a view as the leaf whose storage it shares."""

import torch

from broken import _torch
from broken._torch import delegate as __getattr__  # noqa: F401 - the rest is torch

name = __name__.rpartition(".")[2]
version = _torch.version
capabilities = _torch.capabilities

_VIEW_NODES = ("ViewBackward0", "TransposeBackward0", "SelectBackward0", "SliceBackward0",
               "UnsafeViewBackward0", "AsStridedBackward0", "TBackward0")
_torch.patch_property("is_leaf", getter=lambda get, t: get(t) or
                      type(t.grad_fn).__name__ in _VIEW_NODES)
