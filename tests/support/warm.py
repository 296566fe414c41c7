"""A warm interpreter: `python ARGS` in a fresh process without paying for the imports each time.

A run against a broken engine must happen in a process of its own (a mutant patches torch or the
reference engine in the process that imports it), and most of such a run's time was the start-up:
importing torch, NumPy, hypothesis, pytest and the harness again for every mutant and every
reproducer. Here one server process imports them once and forks a child per run; the child is the
fresh process a run needs (the server itself never runs an op, a test or an engine, so nothing
but loaded modules is inherited), with its own environment, working directory, standard streams
and exit status.

    run_python(["-m", "pytest", ...], env=..., timeout=...) -> subprocess.CompletedProcess

is a drop-in for `subprocess.run([sys.executable, ...], capture_output=True, text=True)`. Each
calling process (each xdist worker) starts its own server on first use; the server ends when its
caller does (end of file on its standard input). AUTOGRAD_CONFORMANCE_COLD=1 runs every command in
a new interpreter instead (to compare, or where fork is not available).
"""

from __future__ import annotations

import json
import os
import runpy
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]   # the checkout: `tests` is importable from there
PRELOADED = ("numpy", "torch", "hypothesis", "pytest", "xdist", "execnet",
             "autograd_conformance.pytest_plugin", "autograd_conformance.runner.plugin",
             "autograd_conformance.reports.plugin", "autograd_conformance.reference")


def clean_environment(env: dict[str, str] | None = None) -> dict[str, str]:
    """This process's environment without what would change a run under test, plus `env`."""
    environment = {key: value for key, value in os.environ.items()
                   if key not in ("AUTOGRAD_ENGINE", "PYTEST_XDIST_WORKER", "PYTEST_ADDOPTS",
                                  "PYTEST_XDIST_TESTRUNUID")}
    environment.update(env or {})
    return environment


def _child(job: dict) -> int:
    """In the forked child: become `python ARGS` with the job's streams and environment."""
    os.setpgrp()  # a time-out kills the child's own subprocesses too
    for fd, path, flags in ((0, job["stdin"], os.O_RDONLY), (1, job["stdout"], os.O_WRONLY),
                            (2, job["stderr"], os.O_WRONLY)):
        os.dup2(os.open(path, flags), fd)
    sys.stdin, sys.stdout, sys.stderr = (open(0, closefd=False), open(1, "w", closefd=False),
                                         open(2, "w", closefd=False))
    os.environ.clear()
    os.environ.update(job["env"])
    os.chdir(job["cwd"])
    argv = job["argv"]
    try:
        if argv[0] == "-m":
            sys.argv = [argv[1], *argv[2:]]
            runpy.run_module(argv[1], run_name="__main__", alter_sys=True)
        elif argv[0] == "-c":
            sys.argv = ["-c", *argv[2:]]
            exec(compile(argv[1], "<string>", "exec"), {"__name__": "__main__"})
        else:
            raise ValueError(f"only -m and -c are served: {argv[:1]}")
        return 0
    except SystemExit as exit_:
        code = exit_.code
        if code is None or isinstance(code, int):
            return code or 0
        print(code, file=sys.stderr)
        return 1
    except BaseException:  # noqa: BLE001 - reported as an uncaught exception, as python would
        import traceback
        traceback.print_exc()
        return 1


def _wait(pid: int, timeout: float) -> int:
    """The child's exit status as subprocess reports it (negative: killed by that signal)."""
    deadline = time.monotonic() + timeout
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            return os.waitstatus_to_exitcode(status)
        if time.monotonic() > deadline:
            os.killpg(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            return None
        time.sleep(0.01)


def serve() -> None:
    """The server's loop: one JSON job per line on stdin, one JSON answer per line on stdout."""
    for module in PRELOADED:
        __import__(module)
    for line in sys.stdin:
        job = json.loads(line)
        sys.stdout.flush()
        sys.stderr.flush()
        pid = os.fork()
        if pid == 0:  # the child never returns to this loop, whatever happens
            code = 1
            try:
                code = _child(job)
                for stream in (sys.stdout, sys.stderr):
                    if not stream.closed:
                        stream.flush()
            finally:
                os._exit(code)
        print(json.dumps({"returncode": _wait(pid, job["timeout"])}), flush=True)


_server: subprocess.Popen | None = None


def _server_process() -> subprocess.Popen:
    global _server
    if _server is None or _server.poll() is not None:
        _server = subprocess.Popen([sys.executable, "-c", "from tests.support.warm import serve; serve()"],
                                   cwd=ROOT,
                                   stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                                   env=clean_environment())
    return _server


def run_python(argv: list[str], *, cwd, env: dict[str, str], input: str = "",
               timeout: float = 600) -> subprocess.CompletedProcess:
    """`python ARGV` (ARGV starting with -m or -c) in a fresh process; output captured as text.
    Raises subprocess.TimeoutExpired after `timeout` seconds, as subprocess.run does."""
    command = [sys.executable, *argv]
    if os.environ.get("AUTOGRAD_CONFORMANCE_COLD") == "1" or not hasattr(os, "fork"):
        return subprocess.run(command, cwd=cwd, env=env, input=input, capture_output=True,
                              text=True, timeout=timeout)
    with tempfile.TemporaryDirectory() as scratch:
        paths = {name: os.path.join(scratch, name) for name in ("stdin", "stdout", "stderr")}
        with open(paths["stdin"], "w") as stdin:
            stdin.write(input)
        for name in ("stdout", "stderr"):
            open(paths[name], "w").close()
        server = _server_process()
        server.stdin.write(json.dumps({"argv": argv, "cwd": str(cwd), "env": env,
                                       "timeout": timeout, **paths}) + "\n")
        server.stdin.flush()
        answer = json.loads(server.stdout.readline())
        with open(paths["stdout"]) as out, open(paths["stderr"]) as err:
            stdout, stderr = out.read(), err.read()
    if answer["returncode"] is None:
        raise subprocess.TimeoutExpired(command, timeout, output=stdout, stderr=stderr)
    return subprocess.CompletedProcess(command, answer["returncode"], stdout, stderr)
