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

Each test's ops are noted too: the ops of the random programs' op set (harness/ops.py OPS) that
its own code applies, so that where one is set aside on an engine (it failed its own verdict,
runner/op_verdicts.py) a failure it may explain judges none of the test's behaviours. An op is
noted where test code calls one of its spellings (`applied_op`): the torch function or Tensor
method of its name (`torch.exp`, `x.mean()`, `x.transpose(0, 1)`; `mm` is matmul), its operator
(`+ - * / @`, unary `-`, `**`, indexing) reflected or not (`2.0 * x`, `1 / x`), and their in-place
forms (`x.div_(c)`, `x /= c`: torch records the same node). Where one spelling applies several
ops, the operands tell which, as harness/ops.py writes each: `**` is pow (tensor ** number),
pow_tensor (tensor ** tensor) or rpow (number ** tensor); `@` is dot (1-D @ 1-D), mv (2-D @ 1-D)
or else matmul; indexing is index_list with a list or tensor key, else index; max() and min() are
max_dim and min_dim given a dim. Other functions (`.t()`, `.view()`, index assignment, `nn`
modules) are not the op that the verdict judged, and the engine's internals are not test code.

The op applications that the harness writes for a test are not its own: its programs' nodes
(harness/ops.py `render`, which notes them in RENDERED) and its view chains' steps (ViewStep),
which strategies draw without any op set aside; an application is left out where it ends inside
such a text, in the line that runs it. A test may still add a node of its choice to a
program, or build one, which a set-aside op does not keep out: the runner notes those where they
run (RENDERED). A Function's backward written from the op table's formulas
(suites/test_custom_function.py) is the test's own: no strategy chose the ops it applies.

Each test runs on the engine declaring exactly the capabilities it needs (core and its `needs`
marks): what a test does only on an engine that declares more (test_sequences' grad-mode steps,
float64 programs) is not what it needs. The names of a test (the union over its examples) leave
each worker on its teardown report, as a user property that the tool reads; its ops likewise.
"""

from __future__ import annotations

import functools
import itertools
import linecache
import re
import sys
import types

import numpy as np
import pytest

from autograd_conformance import reference
from autograd_conformance.harness.ops import OPS, RENDERED
from autograd_conformance.harness.strategies import VIEW_STEP_OPS, ViewStep
from autograd_conformance.reference.graph import Node
from autograd_conformance.reference.nn import Module
from autograd_conformance.reference.tensor import Tensor
from autograd_conformance.runner.needs import needed_capabilities
from autograd_conformance.runner.plugin import item_engine
from autograd_conformance.suites import SUITES_DIR

NAMES = "names used"             # the user property of a teardown report that carries them
OPS_APPLIED = "ops applied"      # and the one that carries its ops
ROOTS = {Tensor: "Tensor", Node: "grad_fn", Module: "nn.Module"}   # as contract.CONTRACT_NAMES
_SUITE_FILES = str(SUITES_DIR) + "/"

_PLAIN = object()                # what every object has is no name of the contract
used: set[str] = set()           # the names the running test's code has used so far
applied: set[str] = set()        # the ops it has applied so far
view_steps: set[str] = set()     # the text of every view step drawn for it (`.t()`, `[0]`)


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
        return (_noting_call(path, value, spelling=None if "." in path else path)
                if noted and isinstance(value, types.FunctionType) else value)


torch = Namespace(reference)     # the engine: --engine tools.names_recorder:torch


def _noting_call(name: str, function, spelling: str | None):
    """`function`, noting each keyword that test code passes it by name as `name(keyword=)` (an
    adapter's function may lack an argument it does not lack the name of), and the op that test
    code applies calling it, a torch function or a Tensor's method named `spelling`."""
    tensor = getattr(function, "__self__", None)     # a method's own tensor, its first operand

    @functools.wraps(function)
    def call(*args, **kwargs):
        frame = sys._getframe(1)
        for keyword in kwargs:
            _note(f"{name}({keyword}=)", frame)
        if spelling is not None:
            _note_op(spelling, args if tensor is None else (tensor, *args), kwargs, frame)
        return function(*args, **kwargs)
    return call


def _noting_getattribute(root: str):
    def __getattribute__(self, attribute):
        if hasattr(_PLAIN, attribute):   # what every object has (`__class__`) is no name
            return object.__getattribute__(self, attribute)
        name = f"{root}.{attribute}"
        noted = _note(name, sys._getframe(1))
        value = object.__getattribute__(self, attribute)
        return (_noting_call(name, value, spelling=attribute if root == "Tensor" else None)
                if noted and isinstance(value, types.MethodType) else value)
    return __getattribute__


def _noting_special(attribute: str, method):
    @functools.wraps(method)
    def special(*args, **kwargs):
        frame = sys._getframe(1)
        _note(f"Tensor.{attribute}", frame)
        _note_op(attribute, args, kwargs, frame)
        return method(*args, **kwargs)
    return special


# -- ops ------------------------------------------------------------------------------------------
# The spellings that are not the op's own name (or its in-place form's, `div_`): a Tensor's
# operators, and torch.mm.
_SPELLINGS = {"__add__": "add", "__radd__": "add", "__iadd__": "add", "__sub__": "sub",
              "__rsub__": "sub", "__isub__": "sub", "__mul__": "mul", "__rmul__": "mul",
              "__imul__": "mul", "__truediv__": "div", "__rtruediv__": "div",
              "__itruediv__": "div", "__neg__": "neg", "__pow__": "pow", "__rpow__": "rpow",
              "__matmul__": "matmul", "__rmatmul__": "matmul", "__getitem__": "index",
              "mm": "matmul"}


def _ndim(operand) -> int:
    return len(operand.shape) if isinstance(operand, Tensor) else np.ndim(operand)


def applied_op(spelling: str, args: tuple, kwargs: dict) -> str | None:
    """The op of the op set that calling `spelling` (a torch function's or a Tensor method's name,
    or a Tensor's special method) with `args` (the tensor first) and `kwargs` applies; None if
    none (see the module's docstring)."""
    op = _SPELLINGS.get(spelling, spelling.removesuffix("_"))
    if op == "pow":
        base, exponent = args[0], args[1] if len(args) > 1 else kwargs.get("exponent")
        return ("rpow" if not isinstance(base, Tensor)
                else "pow_tensor" if isinstance(exponent, Tensor) else "pow")
    if op == "matmul":
        left, right = args[::-1] if spelling == "__rmatmul__" else args[:2]
        return {(1, 1): "dot", (2, 1): "mv"}.get((_ndim(left), _ndim(right)), "matmul")
    if op == "index":
        key = args[1]
        keys = key if isinstance(key, tuple) else (key,)
        return "index_list" if any(isinstance(k, (list, Tensor)) for k in keys) else "index"
    if op in ("max", "min"):
        dim = args[1] if len(args) > 1 else kwargs.get("dim")
        return op if dim is None else f"{op}_dim"
    return op if op in OPS else None


def _note_op(spelling: str, args: tuple, kwargs: dict, frame) -> None:
    """Note the op that test code's `frame` applies calling `spelling`, unless the harness wrote
    that application."""
    if not _is_test_code(frame.f_code.co_filename):
        return
    op = applied_op(spelling, args, kwargs)
    if op is not None and op not in applied and not _written_by_the_harness(op, frame):
        applied.add(op)


def _written_by_the_harness(op: str, frame) -> bool:
    """Whether the application of `op` that `frame` is running ends inside a text that the
    harness wrote for it, in that line: a program's node (RENDERED), or a view chain's step."""
    line, end_line, _, end = next(itertools.islice(frame.f_code.co_positions(),
                                                   frame.f_lasti // 2, None))
    if line is None or line != end_line:
        return False             # programs and view chains write each application on one line
    source = linecache.getline(frame.f_code.co_filename, line).encode()   # columns count bytes
    texts = RENDERED.get(op, set()) | (view_steps if op in VIEW_STEP_OPS.values() else set())
    return any(found.start() < end <= found.end()
               for text in texts for found in re.finditer(re.escape(text.encode()), source))


def _noting_view_steps(init):
    @functools.wraps(init)
    def __init__(self, text, apply):
        init(self, text, apply)
        view_steps.add(text)
    return __init__


def install() -> None:
    """Note the test code's attribute reads on the reference's tensors, nodes and modules, and
    its uses of a tensor's special methods that `object` does not have (operators, index
    assignment, int() and bool(): they run without an attribute read). A tensor is the one object
    whose special methods the contract names; a module's `__call__`, found on every class, would
    say nothing. Note the text of every view step drawn, too."""
    special = {attribute for klass in Tensor.__mro__ for attribute in vars(klass)
               if attribute.startswith("__") and not hasattr(_PLAIN, attribute)}
    for attribute in special:
        method = getattr(Tensor, attribute)
        if isinstance(method, types.FunctionType):
            setattr(Tensor, attribute, _noting_special(attribute, method))
    for cls, root in ROOTS.items():
        cls.__getattribute__ = _noting_getattribute(root)
    ViewStep.__init__ = _noting_view_steps(ViewStep.__init__)


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
    applied.clear()
    view_steps.clear()
    try:
        return (yield)
    finally:
        object.__setattr__(engine, "capabilities", declared)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item, call):
    if call.when == "teardown" and item_engine(item) is not None:
        item.user_properties += [(NAMES, sorted(used)), (OPS_APPLIED, sorted(applied))]
    return (yield)
