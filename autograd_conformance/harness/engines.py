"""Load engines from `--engine` specs and wrap them with the metadata the harness needs.

A spec is a short name from SHORT_NAMES or any importable `package.module[:attribute]`. Loading
fails with `EngineLoadError`, whose message is one readable line for the user; nothing here lets
an import traceback reach pytest.
"""

from __future__ import annotations

import contextlib
import functools
import importlib
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

from .contract import CAPABILITIES, REQUIRED_OPS, missing_core_names

if TYPE_CHECKING:
    import numpy as np


SHORT_NAMES = {
    "torch": "autograd_conformance.adapters.torch_adapter",
    "reference": "autograd_conformance.reference",
    "mygrad": "autograd_conformance.adapters.mygrad_adapter",
    "tinygrad": "autograd_conformance.adapters.tinygrad_adapter",
    "paddle": "autograd_conformance.adapters.paddle_adapter",
    "compiled-autograd": "autograd_conformance.adapters.compiled_autograd_adapter",
}
DEFAULT_ENGINES = ("torch", "reference")


class EngineLoadError(Exception):
    """An engine spec could not be turned into a usable adapter."""


@dataclass(frozen=True)
class Engine:
    """An engine under test: its torch-like namespace `ns` plus what the harness knows of it."""

    name: str
    spec: str
    ns: Any
    version: str
    capabilities: frozenset
    device: str
    missing_ops: frozenset = frozenset()   # ops of the op set the adapter declares it lacks
    # op -> its failed verdict, for the ops of the op set that failed their own quick verdict on
    # this engine, filled in by the runner before the engine's first test (runner/op_verdicts.py):
    # random programs do not draw them, as if missing, so that one broken op does not decide the
    # verdict of behaviours in every chapter
    set_aside: dict = field(default_factory=dict, compare=False, repr=False)
    _to_numpy: Callable | None = None
    _context: Callable | None = None
    _outside: Callable | None = None

    def to_numpy(self, tensor) -> np.ndarray:
        """A copy of `tensor`'s values as a NumPy array (a copy, so that later in-place
        accumulation in the engine cannot change what a test has read)."""
        import numpy as np
        if self._to_numpy is not None:
            return np.array(self._to_numpy(tensor), copy=True)
        return np.array(tensor.detach().numpy(), copy=True)

    def context(self):
        """What the harness enters around each of the engine's tests: the adapter's
        `engine_context()` (for an engine that is a mode of its host library), else nothing."""
        return self._context() if self._context is not None else contextlib.nullcontext()

    def outside_context(self):
        """Inside `context()`, a block that runs as if outside it (the adapter's
        `outside_engine_context()`): where a test computes an oracle on another engine."""
        return self._outside() if self._outside is not None else contextlib.nullcontext()

    @property
    def set_aside_ops(self) -> frozenset:
        return frozenset(self.set_aside)

    @property
    def unavailable_ops(self) -> frozenset:
        """The ops random programs never draw on this engine: missing or set aside."""
        return self.missing_ops | self.set_aside_ops

    def has(self, capability: str) -> bool:
        return capability in self.capabilities

    @functools.cached_property
    def binding(self) -> str:
        """One line of Python that binds `torch` to this engine in a fresh interpreter run from any
        directory (how a reproducer reaches the engine it failed on): the adapter's import, after
        putting the directory it was imported from on sys.path where such an interpreter would not
        search it (an adapter in the directory the suite ran in), then its device."""
        module_name, attribute = _module_of(self.spec)
        line = (f"from {module_name} import {attribute} as torch" if attribute
                else f"import {module_name} as torch")
        directory = _unsearched_directory(module_name.partition(".")[0])
        if directory is not None:
            line = f"import sys; sys.path.insert(0, {directory!r}); {line}"
        if self.device != "cpu":
            line += f"; torch = torch.on_device({self.device!r})"
        return line

    def __repr__(self) -> str:
        return f"<engine {self.name}>"

    def _repr_pretty_(self, printer, cycle) -> None:
        """Hypothesis prints the engine in a falsifying example by name only."""
        printer.text(repr(self))


def _valid_names() -> str:
    return ", ".join(SHORT_NAMES)


def _module_of(spec: str) -> tuple[str, str]:
    """The module a spec names (a short name's module) and the attribute of it, "" for none."""
    module_name, _, attribute = spec.partition(":")
    return SHORT_NAMES.get(module_name, module_name), attribute


# Prints where a fresh interpreter finds the top-level module named by its argument.
_FIND = "import importlib.util, sys; print(getattr(importlib.util.find_spec(sys.argv[1]), 'origin', None))"


def _unsearched_directory(top: str) -> str | None:
    """The directory the imported top-level module `top` came from, where a fresh interpreter
    (without the directory it runs in, -P, as a script saved elsewhere) would not find it there;
    None where it would (installed, or on PYTHONPATH) or `top` has no file."""
    origin = getattr(sys.modules[top], "__file__", None)
    if origin is None:
        return None
    origin = Path(origin).resolve()
    with tempfile.TemporaryDirectory() as elsewhere:
        try:
            found = subprocess.run([sys.executable, "-P", "-c", _FIND, top], cwd=elsewhere,
                                   capture_output=True, text=True, timeout=60).stdout.strip()
        except (OSError, subprocess.SubprocessError):
            found = "None"
    if found != "None" and Path(found).resolve() == origin:
        return None
    return str(origin.parent.parent if origin.name == "__init__.py" else origin.parent)


def _import_spec(spec: str):
    module_name, attribute = _module_of(spec)
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as error:
        if spec in SHORT_NAMES:
            raise EngineLoadError(
                f"engine {spec!r} is bundled but its package is not installed ({error}); "
                f"install it (see README) or choose another of: {_valid_names()}") from None
        if error.name and module_name.startswith(error.name):
            raise EngineLoadError(
                f"unknown engine {spec!r}: not a short name and no module {module_name!r} can be "
                f"imported; valid short names: {_valid_names()}") from None
        raise EngineLoadError(f"engine {spec!r} failed to import: {error}") from None
    except Exception as error:  # noqa: BLE001 - an adapter's own import error, shown in one line
        raise EngineLoadError(
            f"engine {spec!r} failed to import: {type(error).__name__}: {error}") from None
    if not attribute:
        return module
    try:
        return getattr(module, attribute)
    except AttributeError:
        raise EngineLoadError(f"engine {spec!r}: module {module_name!r} has no attribute "
                              f"{attribute!r}") from None


def load_engine(spec: str, device: str = "cpu") -> Engine:
    """Import `spec`, check its core surface and return it as an `Engine`."""
    adapter = _import_spec(spec)
    if device != "cpu":
        if not hasattr(adapter, "on_device"):
            raise EngineLoadError(f"engine {spec!r} cannot place tensors on device {device!r} "
                                  f"(its adapter has no on_device)")
        try:
            adapter = adapter.on_device(device)
        except Exception as error:  # noqa: BLE001
            raise EngineLoadError(f"engine {spec!r} on device {device!r}: "
                                  f"{type(error).__name__}: {error}") from None
    from .ops import OPS  # NumPy: the names of the op set, only once an engine is loaded
    missing_ops = frozenset(getattr(adapter, "missing_ops", ()))
    unknown_ops = sorted(missing_ops - set(OPS))
    if unknown_ops:
        raise EngineLoadError(f"engine {spec!r} declares missing ops that are not in the op set: "
                              f"{unknown_ops}; the op set: {', '.join(OPS)}")
    required = sorted(missing_ops & set(REQUIRED_OPS))
    if required:
        raise EngineLoadError(f"engine {spec!r} declares missing {required}, which every random "
                              f"program needs: {', '.join(REQUIRED_OPS)} cannot be missing")
    missing = missing_core_names(adapter, missing_ops)
    if missing:
        raise EngineLoadError(
            f"engine {spec!r} lacks the core tensor API ({', '.join(missing[:6])}); an adapter must "
            f"follow docs/adapter-contract.md; valid short names: {_valid_names()}")
    capabilities = frozenset(getattr(adapter, "capabilities", ())) | {"core"}
    unknown = capabilities - set(CAPABILITIES)
    if unknown:
        raise EngineLoadError(f"engine {spec!r} declares unknown capabilities {sorted(unknown)}; "
                              f"known: {', '.join(CAPABILITIES)}")
    version = getattr(adapter, "version", None) or getattr(adapter, "__version__", "unknown")
    return Engine(
        name=str(getattr(adapter, "name", None) or spec),
        spec=spec,
        ns=adapter,
        version=str(version),
        capabilities=capabilities,
        device=device,
        missing_ops=missing_ops,
        _to_numpy=getattr(adapter, "to_numpy", None),
        _context=getattr(adapter, "engine_context", None),
        _outside=getattr(adapter, "outside_engine_context", None),
    )


def specs_from(options: list[str] | None, environment: str | None) -> list[str]:
    """The engine specs selected by `--engine` options, else `AUTOGRAD_ENGINE`, else the defaults."""
    if options:
        return list(options)
    if environment:
        return [spec.strip() for spec in environment.split(",") if spec.strip()]
    return list(DEFAULT_ENGINES)
