"""Mutants of the catalog's chapter 'graph' (suites/test_graph.py): Graph structure: grad_fn,
next_functions, AccumulateGrad and node names."""

import inspect
import re
import textwrap

import torch

from autograd_conformance.reference.graph import Node
from autograd_conformance.reference.ops import extrema, linalg
from autograd_conformance.reference.ops.common import conj
from autograd_conformance.reference.tensor import Tensor, make
from tests.broken import _reference, _torch
from tests.broken.registry import mutant


@mutant("LEAF-2")
def torch_op_results_never_leaves():
    """Every op result reports is_leaf False (the engine marks tensors made by ops), even when it
    does not require grad and has no grad_fn."""
    class _MarkResults(_torch.ResultMode):
        def on_result(self, func, args, result):
            if isinstance(result, torch.Tensor) and _torch.tensors_in(args) and result is not args[0]:
                try:
                    result._mutant_op_result = True
                except (AttributeError, RuntimeError):
                    pass
            return result

    _MarkResults().install()
    _torch.patch_property("is_leaf", getter=lambda get, t: get(t) and
                          not getattr(t, "_mutant_op_result", False))


@mutant("GFN-3")
def torch_next_functions_skip_constants():
    """grad_fn.next_functions lists only the inputs that require grad (no None entries for
    constants), as engines that store only differentiable parents do."""
    class _SkipConstants(_torch.GraphView):
        def next_functions(self, node):
            return tuple(pair for pair in super().next_functions(node) if pair[0] is not None)

    _SkipConstants().install()


@mutant("GFN-4")
def torch_accumulator_per_use():
    """Each use of a leaf gets its own AccumulateGrad node, so a leaf used twice is reached through
    two accumulators instead of one."""
    class _AccumulatorPerUse(_torch.GraphView):
        def proxy_key(self, node, parent=None, index=None):
            if type(node).__name__ == "AccumulateGrad" and parent is not None:
                return (id(node), id(parent), index)
            return id(node)

    _AccumulatorPerUse().install()


@mutant("GFN-1")
def torch_grad_fn_names_unnumbered():
    """Backward nodes are named without torch's overload number (MulBackward instead of
    MulBackward0)."""
    class _Unnumbered(_torch.GraphView):
        def class_name(self, node):
            return type(node).__name__.rstrip("0123456789")

    _Unnumbered().install()


@mutant("GFN-6")
def torch_setitem_node_named_index_put():
    """Index assignment records a node named IndexPutBackward0 instead of torch's CopySlices."""
    class _IndexPut(_torch.GraphView):
        def class_name(self, node):
            name = type(node).__name__
            return "IndexPutBackward0" if name == "CopySlices" else name

    _IndexPut().install()


@mutant("GFN-5")
def reference_saved_tensors_copied():
    """grad_fn._saved_<name> gives a copy of what the node saved, so a saved input is no longer the
    input itself."""
    _saved = Node.__getattr__

    def _copied(self, attribute):
        value = _saved(self, attribute)
        return make(value._array.copy()) if isinstance(value, Tensor) else value

    Node.__getattr__ = _copied


@mutant("GFN-8")
def reference_repr_flag_only():
    """repr() shows requires_grad=True for every tensor that requires grad, non-leaves included,
    instead of their grad_fn=<Name>."""
    _repr = Tensor.__repr__

    def _flag_only(self):
        return re.sub(r"grad_fn=<\w+>", "requires_grad=True", _repr(self))

    Tensor.__repr__ = _flag_only


@mutant("GFN-9")
def reference_outer_of_two_views():
    """The gradient of a @ v with respect to a is computed as grad's column times v's row,
    grad.reshape(-1, 1) * v.reshape(1, -1): the right values, but under create_graph the
    product's second edge leads to a view of v instead of v's own node."""
    def _column_times_row(self, grad):
        a, v = self.saved(grad)
        return (grad.reshape(-1, 1) * conj(v).reshape(1, -1) if self.needs_grad(0) else None,
                conj(a).T @ grad if self.needs_grad(1) else None)

    linalg.MvBackward0.backward = _column_times_row


@mutant("GFN-10")
def reference_extreme_mask_before_count():
    """amax and amin split a tie's gradient as grad times the mask, then divided by the count: the
    same values, but under create_graph the gradient is DivBackward0 over MulBackward0 instead of
    torch's MulBackward0 over DivBackward0."""
    _SPLIT = "return restored / count * tied.astype(a.dtype)"
    _source = textwrap.dedent(inspect.getsource(extrema.even_split))
    if _SPLIT not in _source:
        raise ImportError("reference.ops.extrema.even_split changed: update this mutant's patch")
    namespace = dict(extrema.__dict__)
    exec(compile(_source.replace(_SPLIT, "return restored * tied.astype(a.dtype) / count"),
                 extrema.__file__, "exec"), namespace)
    _reference.replace(extrema, "even_split", lambda original: namespace["even_split"])
