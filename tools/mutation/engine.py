"""The engine that `python -m tools.mutation run` tests (`--engine tools.mutation.engine`): the
reference engine's namespace, named `mutant_engine` for the control and every mutant alike (the
control's test IDs select a mutant's tests).

The session imports it unmutated; each run's child, forked from the session, installs its mutant
into the reference engine it inherited (`install`). A test that runs the engine in a fresh process
of its own (marked `fresh_process`) imports this module anew there: it installs the mutant that
the environment variable `MUTANT_VARIABLE` names, which the child sets for its tests; and it
records which functions of the reference engine ran there (`executed`), for the cache.
"""

import os as _os

from tools.mutation import executed as _executed

if _os.environ.get(_executed.RAN_FILE):
    _executed.record()  # before the engine is imported

from autograd_conformance import reference as _reference  # noqa: E402
from tools.mutation import mutants as _mutants  # noqa: E402

name = _mutants.ENGINE_NAME
version = _reference.version
capabilities = _reference.capabilities
to_numpy = _reference.to_numpy


def __getattr__(attribute):
    """Every other name is the reference engine's."""
    if attribute.startswith("__"):
        raise AttributeError(attribute)
    return getattr(_reference, attribute)


if _os.environ.get(_mutants.MUTANT_VARIABLE):
    _mutants.install(_mutants.find(_os.environ[_mutants.MUTANT_VARIABLE]))
