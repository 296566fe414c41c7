"""Every broken engine of the project, in one place that the tests and the tools share:

- the mutants, one module per chapter of the catalog (`leaves`, `views`, ...), each declared once
  with the behaviours it breaks (`registry.py`); `--engine tests.broken:<mutant>` loads one,
  built on torch (process-local patches, `_torch.py`) or on the reference engine (patches of its
  modules in the process, `_reference.py`);
- `hostile/`: engines that hang, crash, interrupt or raise, for the gate's robustness tests;
- `adapters/`: adapters that fail to load or declare what they lack, for the loading tests.

Reading the registry (`mutants()`) imports the chapter modules and torch, and patches nothing: a
mutant's bug is installed only when its engine is loaded, in the process that runs it.
"""

from __future__ import annotations

import importlib
import pkgutil

from tests.broken.registry import MUTANTS, Mutant, engine

_NOT_CHAPTERS = ("registry", "adapters", "hostile")


def mutants() -> dict[str, Mutant]:
    """Every mutant by name, in chapter order."""
    for module in pkgutil.iter_modules(__path__):
        if not module.name.startswith("_") and module.name not in _NOT_CHAPTERS:
            importlib.import_module(f"{__name__}.{module.name}")
    return MUTANTS


def __getattr__(name: str):
    """`tests.broken:<mutant>`, an engine spec: the mutant's adapter, its bug installed."""
    if name.startswith("__") or name not in mutants():
        raise AttributeError(f"module {__name__!r} has no mutant {name!r}")
    return engine(name)
