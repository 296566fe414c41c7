"""Mutants of the catalog's chapter 'reuse' (suites/test_reuse.py): Diamonds and reuse:
contributions of several uses are summed."""

import inspect
import textwrap
import weakref

import torch

from autograd_conformance import reference
from autograd_conformance.reference import node_hooks
from tests.broken import _reference, _torch
from tests.broken.registry import mutant


@mutant("MISC-2")
def torch_same_operand_counted_once():
    """When both operands of * or + are the same tensor, backward credits only one slot (x * x
    gives x, x + x gives 1), as an engine that keys input gradients by tensor would."""
    class _Square(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        def backward(ctx, grad):
            (x,) = ctx.saved_tensors
            return grad * x

    class _Double(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x + x

        @staticmethod
        def backward(ctx, grad):
            return grad.clone()

    def _same(function):
        def apply(a, b=None, *rest, **kwargs):
            if isinstance(a, torch.Tensor) and b is a and not rest and not kwargs:
                return function.apply(a)
            return NotImplemented
        return apply

    _torch.ReplaceOps({"mul": _same(_Square), "__mul__": _same(_Square), "add": _same(_Double),
                       "__add__": _same(_Double)}).install()


@mutant("ACC-2")
def torch_new_graph_resets_grads():
    """A backward from a different output than the previous one starts the leaves' grads afresh
    (the engine tags .grad with the graph that produced it), so gradients of separately built
    outputs do not add up."""
    def _backward(original, tensor, *args):
        for leaf in _torch.graph_leaves(tensor):
            if getattr(leaf, "_mutant_last_output", None) not in (None, id(tensor)):
                leaf.grad = None
            leaf._mutant_last_output = id(tensor)
        return original(tensor, *args)

    _torch.patch_backward(_backward)


@mutant("MISC-1", "LEAF-5")
def reference_last_contribution_wins():
    """When several edges deliver gradient to the same node in one backward pass, the walk keeps
    the last contribution instead of their sum (a dict assignment where an addition was meant),
    so diamonds and shared subexpressions lose gradient."""
    _SUM = "pending[node] = pending[node] + grad if node in pending else grad"
    _source = textwrap.dedent(inspect.getsource(reference.walk._arrive))
    if _SUM not in _source:
        raise ImportError("reference.walk._arrive changed: update this mutant's patch")
    exec(compile(_source.replace(_SUM, "pending[node] = grad"), reference.walk.__file__,
                 "exec"), reference.walk.__dict__)


@mutant("MISC-15")
def reference_slots_delivered_last_first():
    """A node hands its inputs their gradients last slot first: every sum is right up to rounding,
    but (x0 - x0) after a later use of x0 adds -e before +e and rounds to 1 instead of 1 - e."""
    _ZIP = "zip(node.next_functions, outputs or _NOTHING_ARRIVED)"
    _source = textwrap.dedent(inspect.getsource(reference.walk.run_backward))
    if _ZIP not in _source:
        raise ImportError("reference.walk.run_backward changed: update this mutant's patch")
    namespace = dict(reference.walk.__dict__)
    exec(compile(_source.replace(_ZIP, f"reversed(list({_ZIP}))"), reference.walk.__file__,
                 "exec"), namespace)
    _reference.replace(reference.walk, "run_backward", lambda original: namespace["run_backward"])


@mutant("MISC-16")
def reference_prehooks_fire_once_per_edge():
    """The walk visits a node once per edge that reaches it and fires its pre-hooks on every visit,
    though it runs the node only once (a memo answers the later visits): the gradients are right,
    but in y = y + y each doubling's node, reached by both operand edges of the next, hears its
    pre-hooks twice."""
    edges = weakref.WeakKeyDictionary()

    def _counting(count_dependents):
        def count_and_keep(roots):
            dependents = count_dependents(roots)
            edges.update(dependents)    # a copy: the walk counts its own down to 0
            return dependents
        return count_and_keep

    def _visiting(call):
        def call_per_edge(node, grad):
            if node._node_hooks is not None:
                for _ in range(edges.get(node, 1) - 1):
                    node_hooks.call_prehooks(node, grad)
            return call(node, grad)
        return call_per_edge

    _reference.replace(reference.walk, "_count_dependents", _counting)
    _reference.replace(reference.walk, "_call", _visiting)
