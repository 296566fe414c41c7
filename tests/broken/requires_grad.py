"""Mutants of the catalog's chapter 'requires_grad' (suites/test_requires_grad.py): requires_grad
rules and propagation."""

import inspect
import re

import torch

from autograd_conformance.harness.counts import FUNCTION_OUTPUTS
from autograd_conformance.reference.autograd import gradients
from autograd_conformance.reference.ops import elementwise
from autograd_conformance.reference.tensor import Tensor
from tests.broken import _reference, _torch
from tests.broken.registry import Namespace, mutant


@mutant("REQ-1")
def torch_int_requires_grad_ignored():
    """Asking an integer tensor to require grad is silently ignored instead of raising
    RuntimeError."""
    _INTEGER = (torch.int8, torch.int16, torch.int32, torch.int64, torch.uint8, torch.bool)

    def tensor(data, dtype=None, requires_grad=False, **kwargs):
        result = torch.tensor(data, dtype=dtype, **kwargs)
        if requires_grad and result.dtype not in _INTEGER:
            result.requires_grad_()
        return result

    _requires_grad_ = torch.Tensor.requires_grad_

    def _quiet_requires_grad_(self, requires_grad=True):
        if self.dtype in _INTEGER:
            return self
        return _requires_grad_(self, requires_grad)

    torch.Tensor.requires_grad_ = _quiet_requires_grad_
    return {"tensor": tensor}


@mutant("REQ-8")
def torch_requires_grad_from_first_input():
    """A binary operator's result requires grad only if its *first* operand does (the engine checks
    `self.requires_grad` only), so `c * x` with only x requiring grad is cut from the graph."""
    _OPERATORS = {"add", "sub", "mul", "div", "matmul", "__add__", "__sub__", "__mul__",
                  "__truediv__", "__matmul__"}

    class _FirstOperandOnly(_torch.ResultMode):
        def on_result(self, func, args, result):
            if (getattr(func, "__name__", None) in _OPERATORS and isinstance(result, torch.Tensor) and len(args) == 2
                    and isinstance(args[0], torch.Tensor) and not args[0].requires_grad
                    and result.requires_grad):
                return result.detach()
            return result

    _FirstOperandOnly().install()


@mutant("REQ-10")
def torch_backward_without_grad_is_noop():
    """backward() on a result that does not require grad returns silently instead of raising
    RuntimeError."""
    def _backward(original, tensor, *args):
        if not tensor.requires_grad:
            return None
        return original(tensor, *args)

    _torch.patch_backward(_backward)


@mutant("REQ-5")
def torch_requires_grad_returns_copy():
    """requires_grad_() returns a new tensor that requires grad (functional style) and leaves the
    tensor itself unchanged; assigning .requires_grad still works."""
    _requires_grad_ = torch._C.TensorBase.requires_grad_

    def _copying(self, requires_grad=True):
        if self.is_leaf and bool(self.requires_grad) != bool(requires_grad):
            return _requires_grad_(torch._C.TensorBase.detach(self).clone(), requires_grad)
        return _requires_grad_(self, requires_grad)

    torch.Tensor.requires_grad_ = _copying


@mutant("REQ-6", "MSG-5")
def torch_non_leaf_flag_change_ignored():
    """Changing requires_grad of a non-leaf is silently ignored instead of raising RuntimeError."""
    _requires_grad_ = torch._C.TensorBase.requires_grad_

    def _quiet(self, requires_grad=True):
        if not self.is_leaf:
            return self
        return _requires_grad_(self, requires_grad)

    def _set(set_, tensor, value):
        if tensor.is_leaf:
            set_(tensor, value)

    torch.Tensor.requires_grad_ = _quiet
    _torch.patch_property("requires_grad", setter=_set)


@mutant("REQ-7")
def torch_detach_remembers_source():
    """detach() keeps a back-pointer to the tensor it came from, and requires_grad_() on the
    detached tensor re-attaches it: gradients reaching the new leaf also flow on into the old
    graph."""
    def to_numpy(tensor):
        return torch._C.TensorBase.detach(tensor).cpu().numpy()

    _detach = torch._C.TensorBase.detach
    _requires_grad_ = torch._C.TensorBase.requires_grad_

    def _remembering_detach(self):
        alias = _detach(self)
        if self.requires_grad:
            alias._mutant_source = self
        return alias

    def _reattaching(self, requires_grad=True):
        result = _requires_grad_(self, requires_grad)
        source = getattr(self, "_mutant_source", None)
        if requires_grad and source is not None:
            self.register_hook(lambda grad: source.backward(grad, retain_graph=True))
        return result

    torch.Tensor.detach = _remembering_detach
    torch.Tensor.requires_grad_ = _reattaching
    return {"to_numpy": to_numpy}


@mutant("REQ-13")
def torch_backward_on_leaf_raises():
    """backward() on a leaf raises (the engine starts the backward pass from grad_fn and has none
    for a leaf) instead of storing the gradient in the leaf's own .grad."""
    def _backward(original, tensor, *args):
        if tensor.grad_fn is None and tensor.requires_grad:
            raise RuntimeError("element 0 of tensors does not require grad and does not have a grad_fn")
        return original(tensor, *args)

    _torch.patch_backward(_backward)


@mutant("REQ-2")
def reference_bool_may_require_grad():
    """Assigning requires_grad = True checks for integer dtypes only, so a bool tensor is accepted."""
    _set = Tensor.requires_grad.fset

    def _integers_refused(self, flag):
        if self.dtype.name == "bool" and self.is_leaf:
            self._requires_grad = bool(flag)
        else:
            _set(self, flag)

    Tensor.requires_grad = property(Tensor.requires_grad.fget, _integers_refused)


@mutant("REQ-3")
def reference_requires_grad_false_checks_dtype():
    """requires_grad_() checks the dtype whatever the flag, so requires_grad_(False) on an integer
    tensor raises."""
    _requires_grad_ = Tensor.requires_grad_

    def _checked_always(self, requires_grad=True):
        if not self.is_floating_point():
            raise RuntimeError("only Tensors of floating point dtype can require gradients")
        return _requires_grad_(self, requires_grad)

    Tensor.requires_grad_ = _checked_always


@mutant("REQ-4")
def reference_comparisons_require_grad():
    """A comparison's bool result takes requires_grad from its operands, as an arithmetic op's
    result does."""
    def _flag_passed_on(compare):
        def compare_flagged(ufunc, a, b):
            result = compare(ufunc, a, b)
            result._requires_grad = any(getattr(x, "requires_grad", False) for x in (a, b))
            return result
        return compare_flagged

    _reference.replace(elementwise, "compare", _flag_passed_on)


@mutant("REQ-11")
def reference_root_index_unnamed():
    """The error for a root that does not require grad always says 'element 0', whichever root it
    is."""
    def _first_named(root_edges):
        def edges(outputs):
            try:
                return root_edges(outputs)
            except RuntimeError as error:
                raise RuntimeError(re.sub(r"element \d+", "element 0", str(error))) from None
        return edges

    _reference.replace(gradients, "_root_edges", _first_named)


@mutant("REQ-11", corner=FUNCTION_OUTPUTS)
def torch_constant_roots_past_the_second_dropped():
    """autograd.backward and autograd.grad check the first two roots; a later one that does not
    require grad is silently left out instead of raising 'element i of tensors does not require
    grad'."""
    def _checking_two(function, roots, grads):
        signature = inspect.signature(function)

        def checked(*args, **kwargs):
            bound = signature.bind(*args, **kwargs)
            listed = bound.arguments[roots]
            if isinstance(listed, (list, tuple)) and bound.arguments.get(grads) is None:
                bound.arguments[roots] = [t for i, t in enumerate(listed)
                                          if i < 2 or t.requires_grad]
            return function(*bound.args, **bound.kwargs)
        return checked

    autograd = Namespace(
        torch.autograd,
        backward=_checking_two(torch.autograd.backward, "tensors", "grad_tensors"),
        grad=_checking_two(torch.autograd.grad, "outputs", "grad_outputs"))
    return {"autograd": autograd}
