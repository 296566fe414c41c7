"""The pytest plugin and engine with which `python -m tools.test_names` records the names each
suite test uses (loaded in every process of that run with `-p tools.names_recorder`, the engine
given as `--engine tools.names_recorder:torch`).

The engine is the reference engine. What a test uses is noted where the test's own code touches
it: the namespace through a proxy (`Namespace`: `torch.autograd.function.once_differentiable` is
noted as `autograd.function.once_differentiable`), and the reference's tensor, node and module
classes through an attribute hook installed for the run, and a tensor's special methods through
wrappers (`Tensor.register_hook`, `Tensor.__setitem__`, `grad_fn.next_functions`,
`nn.Module.register_full_backward_hook`). A function or method that test code reads there is
handed back wrapped, to note the keywords it is called with (`autograd.grad(materialize_grads=)`;
not a class's, which a wrapper could not stand in for). The test's own code is the steps of its
scripts (code named `<step at test_x.py:42>`, autograd_conformance/harness/script.py) and the
suite modules' Python code (hooks and modules written there); the reference's internals, the
harness's oracles and checks, and the prelude of the scripts are not, so their accesses are never
noted.

Each test runs on the engine declaring exactly the capabilities it needs (core and its `needs`
marks): what a test does only on an engine that declares more (test_sequences' grad-mode steps,
float64 programs) is not what it needs. The names of a test (the union over its examples) leave
each worker on its teardown report, as a user property that the tool reads.
"""

from __future__ import annotations

import functools
import sys
import types

import pytest
from autograd_conformance.reference.graph import Node
from autograd_conformance.reference.nn import Module
from autograd_conformance.reference.tensor import Tensor
from autograd_conformance.suites import SUITES_DIR

from autograd_conformance import reference
from autograd_conformance.runner.needs import needed_capabilities
from autograd_conformance.runner.plugin import item_engine

NAMES = "names used"             # the user property of a teardown report that carries them
ROOTS = {Tensor: "Tensor", Node: "grad_fn", Module: "nn.Module"}   # as contract.CONTRACT_NAMES
_SUITE_FILES = str(SUITES_DIR) + "/"

_PLAIN = object()                # what every object has is no name of the contract
used: set[str] = set()           # the names the running test's code has used so far


@functools.cache
def _is_test_code(filename: str) -> bool:
    return filename.startswith("<step at ") or filename.startswith(_SUITE_FILES)


def _note(name: str, frame) -> bool:
    """Note `name` if `frame` is test code's; whether it was."""
    if _is_test_code(frame.f_code.co_filename):
        used.add(name)
        return True
    return False


class Namespace:
    """The reference namespace (or one of its modules, at `path`), noting each attribute that test
    code reads from it; a module is returned as a Namespace of its own, anything else as it is."""

    def __init__(self, target, path: str = ""):
        object.__setattr__(self, "_target", target)
        object.__setattr__(self, "_path", path)

    def __getattribute__(self, attribute):
        target = object.__getattribute__(self, "_target")
        value = getattr(target, attribute)
        if attribute.startswith("__"):
            return value
        path = object.__getattribute__(self, "_path") + attribute
        if isinstance(value, types.ModuleType):
            return Namespace(value, path + ".")     # a step on the way to a name
        noted = _note(path, sys._getframe(1))
        return (_noting_keywords(path, value) if noted and isinstance(value, types.FunctionType)
                else value)


torch = Namespace(reference)     # the engine: --engine tools.names_recorder:torch


def _noting_keywords(name: str, function):
    """`function`, noting each keyword that test code passes it by name as `name(keyword=)`: an
    adapter's function may lack an argument it does not lack the name of."""
    @functools.wraps(function)
    def call(*args, **kwargs):
        for keyword in kwargs:
            _note(f"{name}({keyword}=)", sys._getframe(1))
        return function(*args, **kwargs)
    return call


def _noting_getattribute(root: str):
    def __getattribute__(self, attribute):
        if hasattr(_PLAIN, attribute):   # what every object has (`__class__`) is no name
            return object.__getattribute__(self, attribute)
        name = f"{root}.{attribute}"
        noted = _note(name, sys._getframe(1))
        value = object.__getattribute__(self, attribute)
        return (_noting_keywords(name, value) if noted and isinstance(value, types.MethodType)
                else value)
    return __getattribute__


def _noting_special(attribute: str, method):
    @functools.wraps(method)
    def special(*args, **kwargs):
        _note(f"Tensor.{attribute}", sys._getframe(1))
        return method(*args, **kwargs)
    return special


def install() -> None:
    """Note the test code's attribute reads on the reference's tensors, nodes and modules, and
    its uses of a tensor's special methods that `object` does not have (operators, index
    assignment, int() and bool(): they run without an attribute read). A tensor is the one object
    whose special methods the contract names; a module's `__call__`, found on every class, would
    say nothing."""
    special = {attribute for klass in Tensor.__mro__ for attribute in vars(klass)
               if attribute.startswith("__") and not hasattr(_PLAIN, attribute)}
    for attribute in special:
        method = getattr(Tensor, attribute)
        if isinstance(method, types.FunctionType):
            setattr(Tensor, attribute, _noting_special(attribute, method))
    for cls, root in ROOTS.items():
        cls.__getattribute__ = _noting_getattribute(root)


def pytest_configure(config):
    install()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item, nextitem):
    """Run the test on the engine declaring only what it needs, noting what it uses."""
    engine = item_engine(item)
    if engine is None:
        return (yield)
    declared = engine.capabilities
    needed = frozenset(needed_capabilities(item)) | {"core"}
    object.__setattr__(engine, "capabilities", needed)   # Engine is frozen: only for this test
    used.clear()
    try:
        return (yield)
    finally:
        object.__setattr__(engine, "capabilities", declared)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item, call):
    if call.when == "teardown" and item_engine(item) is not None:
        item.user_properties.append((NAMES, sorted(used)))
    return (yield)
