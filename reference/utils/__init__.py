"""`reference.utils`: as in torch, the home of `checkpoint` (activation checkpointing)."""
from . import checkpoint  # noqa: F401 - reference.utils.checkpoint.checkpoint
