"""Shared plumbing for the mutants built on torch.

A torch mutant's function patches torch *in its own process* (the conformance run against a mutant
always runs in a process of its own, see tests/support/run.py, so nothing leaks into other runs);
its adapter is the torch adapter with the names the function returns in front (registry.engine).
Patches go on the Python class `torch.Tensor` (which shadows the C base class
`torch._C.TensorBase`), or into a `TorchFunctionMode` entered for the whole process.
"""

from __future__ import annotations

import functools

import torch
from torch.overrides import TorchFunctionMode

_TensorBase = torch._C.TensorBase
_ORIGINAL_BACKWARD = torch.Tensor.backward


def patch_backward(wrapper):
    """Replace `Tensor.backward` by `wrapper(original, tensor, gradient, retain_graph,
    create_graph, inputs)`, with torch's defaults filled in."""
    original = torch.Tensor.backward

    @functools.wraps(original)
    def backward(self, gradient=None, retain_graph=None, create_graph=False, inputs=None):
        return wrapper(original, self, gradient, retain_graph, create_graph, inputs)

    torch.Tensor.backward = backward


class ListedHook:
    """The handle of a hook a mutant keeps in a list of its own: remove() takes it out."""

    def __init__(self, hooks, hook):
        self.hooks, self.hook = hooks, hook

    def remove(self):
        if self.hook in self.hooks:
            self.hooks.remove(self.hook)


def base_property(name):
    return _TensorBase.__dict__[name]


def patch_property(name, getter=None, setter=None):
    """Shadow the C attribute `name` of every tensor with a Python property; `getter(base_get,
    tensor)` and `setter(base_set, tensor, value)` default to the original behaviour."""
    descriptor = base_property(name)

    def get(self):
        return getter(descriptor.__get__, self) if getter else descriptor.__get__(self)

    def set_(self, value):
        if setter:
            setter(descriptor.__set__, self, value)
        else:
            descriptor.__set__(self, value)

    setattr(torch.Tensor, name, property(get, set_))


def graph_leaves(tensor) -> list:
    """The leaves that `tensor`'s backward would accumulate into (its AccumulateGrad nodes)."""
    found, seen, stack = [], set(), [tensor.grad_fn]
    while stack:
        node = stack.pop()
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        variable = getattr(node, "variable", None)
        if variable is not None:
            found.append(variable)
        stack.extend(next_node for next_node, _ in getattr(node, "next_functions", ()))
    if tensor.grad_fn is None and tensor.requires_grad:
        found.append(tensor)
    return found


class ResultMode(TorchFunctionMode):
    """A torch-function mode that passes every op's result through `self.on_result(func, args,
    result)`; enter it for the process with `install()`."""

    def on_result(self, func, args, result):
        return result

    def __torch_function__(self, func, types_, args=(), kwargs=None):
        result = func(*args, **(kwargs or {}))
        return self.on_result(func, args, result)

    def install(self):
        self.__enter__()
        return self


def tensors_in(args):
    return [arg for arg in args if isinstance(arg, torch.Tensor)]


class ArgsMode(TorchFunctionMode):
    """A torch-function mode that rewrites every op's positional arguments with
    `self.on_args(func, args)` before the op runs."""

    def on_args(self, func, args):
        return args

    def __torch_function__(self, func, types_, args=(), kwargs=None):
        return func(*self.on_args(func, tuple(args)), **(kwargs or {}))

    def install(self):
        self.__enter__()
        return self


class NodeProxy:
    """Stands in for a torch graph node (what `grad_fn` returns), so that a mutant can change what
    the graph looks like (class name, next_functions, AccumulateGrad) without changing what
    backward does. Attributes it does not override are the node's own."""

    def __init__(self, node, view):
        object.__setattr__(self, "_node", node)
        object.__setattr__(self, "_view", view)

    def __getattr__(self, attribute):
        return getattr(self._node, attribute)

    @property
    def next_functions(self):
        return self._view.next_functions(self._node)

    def name(self):
        return type(self).__name__


class GraphView:
    """How a mutant shows the graph: override `class_name`, `next_functions` or `proxy_key`.
    Proxies are cached, so that the same node is the same object (`is`) on every access."""

    def __init__(self):
        self._proxies = {}
        self._classes = {}

    def class_name(self, node) -> str:
        return type(node).__name__

    def proxy_key(self, node, parent=None, index=None):
        return id(node)

    def proxy(self, node, parent=None, index=None):
        if node is None:
            return None
        key = self.proxy_key(node, parent, index)
        if key not in self._proxies:
            name = self.class_name(node)
            cls = self._classes.setdefault(name, type(name, (NodeProxy,), {}))
            self._proxies[key] = (node, cls(node, self))  # the node is kept, so ids stay unique
        return self._proxies[key][1]

    def next_functions(self, node):
        return tuple((self.proxy(child, node, index), index)
                     for index, (child, _) in enumerate(node.next_functions))

    def install(self):
        patch_property("grad_fn", getter=lambda get, tensor: self.proxy(get(tensor)))
        return self


class ReplaceOps(TorchFunctionMode):
    """A torch-function mode that routes some torch functions (operators, methods) to a mutant's
    replacement while grad mode is on; a replacement returning NotImplemented falls back to
    torch. Inside the replacement the mode is off, so it computes with plain torch. The table is
    keyed by function name: `a + b` reaches the mode as `TensorBase.add`, `2 - a` as
    `Tensor.__rsub__`, `a ** 2` as `TensorBase.pow`, `a[i]` as `__getitem__`."""

    def __init__(self, table):
        super().__init__()
        self.table = table

    def __torch_function__(self, func, types_, args=(), kwargs=None):
        kwargs = kwargs or {}
        replacement = self.table.get(getattr(func, "__name__", None))
        if replacement is not None and torch.is_grad_enabled():
            result = replacement(*args, **kwargs)
            if result is not NotImplemented:
                return result
        return func(*args, **kwargs)

    def install(self):
        self.__enter__()
        return self


def reduce_to(grad, shape, how="sum"):
    """`grad` reduced over the dimensions broadcasting added or stretched to reach `shape`."""
    reduce = torch.sum if how == "sum" else torch.mean
    extra = grad.dim() - len(shape)
    if extra:
        grad = reduce(grad, dim=tuple(range(extra)))
    stretched = tuple(i for i, size in enumerate(shape) if size == 1 and grad.shape[i] != 1)
    if stretched:
        grad = reduce(grad, dim=stretched, keepdim=True)
    return grad.reshape(shape)


def both_tensors(*args):
    return len(args) == 2 and all(isinstance(arg, torch.Tensor) for arg in args)
