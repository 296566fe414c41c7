"""The project's tests end in bounded time, whatever hangs.

A test that runs past `LIMIT_S` has every thread's traceback written to the terminal and its
process ended (faulthandler's watchdog, which needs no signal handler and no cooperation from
the hung code). Under xdist that is one crashed worker, reported against the test, and the run
goes on; alone, the run stops there. Either way CI ends naming what hung instead of running into
its own time limit. The slowest test takes about 3 minutes on 2 cores.
"""

import faulthandler
import os
import sys

import pytest

from autograd_conformance.runner.plugin import empty_local_constants

LIMIT_S = 900


def pytest_configure(config):
    global terminal  # stderr as the process got it, before pytest captures output (as pytest's
    terminal = os.dup(sys.__stderr__.fileno())  # own faulthandler plugin takes it)
    empty_local_constants()  # as in a conformance run: examples independent of what is loaded


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item, nextitem):
    faulthandler.dump_traceback_later(LIMIT_S, exit=True, file=terminal)
    try:
        return (yield)
    finally:
        faulthandler.cancel_dump_traceback_later()
