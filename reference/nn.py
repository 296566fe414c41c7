"""`reference.nn`: Module with parameter registration, Parameter, Linear, Sequential, activations, MSELoss.

Parameters are leaves that require grad (MOD-1), so a module's output requires grad even for a
plain input (MOD-3); parameterless modules only propagate their input's flag (MOD-4).
"""
import math
from collections import OrderedDict

from . import creation, dtypes, grad_mode, hooks, module_hooks, ops
from .tensor import Tensor, as_array, init


class Parameter(Tensor):
    """A leaf tensor that requires grad by default (MOD-1), registered by the Module it is assigned
    to (MOD-2). Like any such leaf it is modified in place only under no_grad, where it stays a
    leaf (MOD-12, inplace.py); an integer one needs requires_grad=False (REQ-3)."""

    __slots__ = ()

    def __new__(cls, data=None, requires_grad=True):
        p = Tensor.__new__(cls)
        array = data._array if data is not None else as_array([])
        if requires_grad and array.dtype.kind != "f":
            raise RuntimeError("Only Tensors of floating point and complex dtype can require gradients")
        init(p, array, bool(requires_grad))
        return p

    def __init__(self, data=None, requires_grad=True):
        pass

    def __repr__(self):
        return "Parameter containing:\n" + super().__repr__()


class Module:
    """Base class: attributes that are Parameters or Modules are registered in assignment order."""

    def __init__(self):
        object.__setattr__(self, "_parameters", OrderedDict())
        object.__setattr__(self, "_buffers", OrderedDict())
        object.__setattr__(self, "_modules", OrderedDict())
        object.__setattr__(self, "training", True)
        object.__setattr__(self, "_backward_hooks", hooks.HookDict())
        object.__setattr__(self, "_backward_pre_hooks", hooks.HookDict())

    def __setattr__(self, name, value):
        for registry in ("_parameters", "_modules", "_buffers"):
            self.__dict__.get(registry, {}).pop(name, None)
        if isinstance(value, Parameter):
            self._parameters[name] = value
        elif isinstance(value, Module):
            self._modules[name] = value
        else:
            object.__setattr__(self, name, value)

    def __getattr__(self, name):
        for registry in ("_parameters", "_modules", "_buffers"):
            found = self.__dict__.get(registry, {})
            if name in found:
                return found[name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __delattr__(self, name):
        for registry in ("_parameters", "_modules", "_buffers"):
            if name in self.__dict__.get(registry, {}):
                del self.__dict__[registry][name]
                return
        object.__delattr__(self, name)

    def register_parameter(self, name, param):
        if param is None:
            self._parameters[name] = None
        else:
            self.__setattr__(name, param)

    def register_buffer(self, name, tensor):
        """Buffers are plain tensors that do not require grad (MOD-10)."""
        self._buffers[name] = tensor

    def add_module(self, name, module):
        self._modules[name] = module

    def forward(self, *args, **kwargs):
        raise NotImplementedError(f'Module [{type(self).__name__}] is missing the required "forward" function')

    def __call__(self, *args, **kwargs):
        if self._backward_hooks or self._backward_pre_hooks:
            return module_hooks.call_with_backward_hooks(self, args, kwargs)
        return self.forward(*args, **kwargs)

    def register_full_backward_hook(self, hook):
        """`hook(module, grad_input, grad_output)` once the gradients of the module's inputs are
        computed; a tuple it returns replaces grad_input (HOOK-12, module_hooks.py)."""
        return self._backward_hooks.add(hook)

    def register_full_backward_pre_hook(self, hook):
        """`hook(module, grad_output)` before gradients flow into the module; a tuple it returns
        replaces grad_output (HOOK-12)."""
        return self._backward_pre_hooks.add(hook)

    def named_modules(self, prefix=""):
        seen, stack = set(), [(prefix, self)]
        while stack:
            name, module = stack.pop(0)
            if id(module) in seen:
                continue
            seen.add(id(module))
            yield name, module
            stack[0:0] = [((name + "." if name else "") + child_name, child)
                          for child_name, child in module._modules.items() if child is not None]

    def modules(self):
        for _, module in self.named_modules():
            yield module

    def named_children(self):
        for name, child in self._modules.items():
            if child is not None:
                yield name, child

    def children(self):
        for _, child in self.named_children():
            yield child

    def named_parameters(self, prefix="", recurse=True):
        seen = set()
        modules = self.named_modules(prefix) if recurse else [(prefix, self)]
        for module_name, module in modules:
            for name, p in module._parameters.items():
                if p is not None and id(p) not in seen:
                    seen.add(id(p))
                    yield (module_name + "." if module_name else "") + name, p

    def parameters(self, recurse=True):
        for _, p in self.named_parameters(recurse=recurse):
            yield p

    def named_buffers(self, prefix=""):
        for module_name, module in self.named_modules(prefix):
            for name, b in module._buffers.items():
                if b is not None:
                    yield (module_name + "." if module_name else "") + name, b

    def buffers(self):
        for _, b in self.named_buffers():
            yield b

    def zero_grad(self, set_to_none=True):
        """Clear every parameter's grad, frozen ones included; None by default (ACC-10, MOD-9), else
        zeros in place, a grad that is None staying None (OPT-3)."""
        for p in self.parameters():
            if p._grad is None:
                continue
            if set_to_none:
                p._grad = None
            else:
                p._grad._array[...] = 0

    def requires_grad_(self, requires_grad=True):
        """Set every parameter's flag and return the module (MOD-8)."""
        for p in self.parameters():
            p.requires_grad_(requires_grad)
        return self

    def train(self, mode=True):
        """Layer behaviour only; autograd is unaffected (MOD-11)."""
        for module in self.modules():
            object.__setattr__(module, "training", mode)
        return self

    def eval(self):
        return self.train(False)

    def extra_repr(self):
        return ""

    def __repr__(self):
        lines = [f"  ({name}): " + repr(child).replace("\n", "\n  ") for name, child in self._modules.items()]
        if not lines:
            return f"{type(self).__name__}({self.extra_repr()})"
        return f"{type(self).__name__}(\n" + "\n".join(lines) + "\n)"


class Linear(Module):
    """y = x @ weight.T + bias, initialised like torch: U(-1/sqrt(in), 1/sqrt(in)) for both. Its
    parameters make the output require grad even for a plain input (MOD-3). Frozen ones do not:
    its ops record only what requires grad, so with all of them frozen a plain input gives a plain
    output (MOD-6), and an input that requires grad still gets its gradient (MOD-7)."""

    def __init__(self, in_features, out_features, bias=True, device=None, dtype=None):
        super().__init__()
        creation.on_cpu(device)
        self.in_features, self.out_features = in_features, out_features
        numpy_dtype = (dtype or dtypes.float32).numpy
        bound = 1 / math.sqrt(in_features) if in_features > 0 else 0
        with grad_mode.no_grad():
            self.weight = Parameter(Tensor(creation.uniform((out_features, in_features), -bound, bound, numpy_dtype)))
            if bias:
                self.bias = Parameter(Tensor(creation.uniform((out_features,), -bound, bound, numpy_dtype)))
            else:
                self.register_parameter("bias", None)

    def forward(self, x):
        return ops.linear(x, self.weight, self.bias)

    def extra_repr(self):
        bias = self._parameters["bias"] is not None
        return f"in_features={self.in_features}, out_features={self.out_features}, bias={bias}"


class Sequential(Module):
    """Its modules in order: the graph starts at the first one whose output requires grad (MOD-7)."""

    def __init__(self, *modules):
        super().__init__()
        if len(modules) == 1 and isinstance(modules[0], OrderedDict):
            modules = modules[0].items()
        else:
            modules = ((str(i), m) for i, m in enumerate(modules))
        for name, module in modules:
            self.add_module(name, module)

    def __getitem__(self, index):
        items = list(self._modules.values())
        if isinstance(index, slice):
            return Sequential(*items[index])
        return items[index]

    def __len__(self):
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules.values())

    def append(self, module):
        self.add_module(str(len(self._modules)), module)
        return self

    def forward(self, x):
        for module in self._modules.values():
            x = module(x)
        return x


class ReLU(Module):
    def forward(self, x):
        return ops.relu(x)


class Tanh(Module):
    def forward(self, x):
        return ops.tanh(x)


class Sigmoid(Module):
    def forward(self, x):
        return ops.sigmoid(x)


class Identity(Module):
    def forward(self, x):
        return x


class MSELoss(Module):
    def __init__(self, reduction="mean"):
        super().__init__()
        self.reduction = reduction

    def forward(self, input, target):
        return ops.mse_loss(input, target, self.reduction)
