"""Breaks VIEW-7 on the reference engine. An in-place op through a view of a requiring leaf raises, with the message of the leaf
itself ('a leaf Variable that requires grad...'), not torch's 'a view of a leaf Variable...'."""

import autograd_conformance.reference.ops.inplace as inplace
from broken import _reference
from broken._reference import delegate as __getattr__  # noqa: F401 - the rest is reference

name = __name__.rpartition(".")[2]
version = _reference.version
capabilities = _reference.capabilities
to_numpy = _reference.to_numpy

inplace.VIEW_OF_LEAF_MESSAGE = inplace.LEAF_MESSAGE
