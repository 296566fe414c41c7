"""The engine's global state that the contract exposes, read and put back between tests.

A test may switch a mode and fail before it switches it back (or an engine's own bug may leave it
switched: a `@set_grad_enabled(False)` decorator that raises after the call switched the mode off).
Every test after it would then run in that mode and fail where the engine conforms. So the runner
checks each switch below after every example of a test: a switch left changed fails that test,
with a check written into its script (its reproducer ends at "the test left grad mode off"), and
is put back, so that the next example and the next test start from a clean engine.

Each switch is read with the contract's own names, as a script would (`probe`, source run with
`torch` bound to the engine's namespace), and only on engines that declare its capability; it is
put back by a call that a torch-like engine offers (`restore`): the opposite mode, or a context's
exit, since the contract has no setter for every mode.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any, Callable

_HELD: list = []   # contexts entered to put a mode back, never exited (see _leave_inference_mode)


def _leave_inference_mode(ns) -> None:
    """Torch has no setter for inference mode: entering `inference_mode(False)` and holding it
    turns it off (and grad mode on) until the test that left it on is long gone."""
    mode = ns.inference_mode(False)
    mode.__enter__()
    _HELD.append(mode)


def _exit_context(make: Callable[[Any], Any]) -> Callable[[Any], None]:
    """A restore that exits the innermost open context of a kind: torch's and the reference's
    `dual_level` and `saved_tensors_hooks` pop their state in `__exit__`, whichever object it is
    called on."""
    return lambda ns: make(ns).__exit__(None, None, None)


@dataclass(frozen=True)
class Switch:
    """One piece of an engine's global state: how a script reads it and how it is put back."""

    what: str                   # "grad mode"
    capability: str | None      # the capability that gives the names `probe` uses
    probe: str                  # source that leaves `clean` True when the state is as it starts
    left: str                   # what a test that changes it did: "left grad mode off"
    restore: Callable[[Any], None]
    names: tuple[str, ...] = ()  # namespace names an engine must have, beyond the capability

    def applies_to(self, engine) -> bool:
        return ((self.capability is None or engine.has(self.capability))
                and all(hasattr(engine.ns, name) for name in self.names))

    def is_clean(self, ns) -> bool:
        """Run the probe on the engine's namespace `ns` (nothing is recorded)."""
        scope = {"torch": ns}
        exec(_compiled(self.probe), scope)
        return bool(scope["clean"])

    def charge(self, script) -> None:
        """Write the probe and its check into `script` (a harness Script of the test that changed
        the state): the check fails, and the script is the test's reproducer."""
        __tracebackhide__ = True
        script.run(self.probe)
        script.check("clean", f"the test {self.left}: every test must leave the engine as it "
                              f"found it")


@functools.cache
def _compiled(source: str):
    return compile(source, "<engine state probe>", "exec")


def _context_probe(enter: str) -> str:
    return (f"try:\n    with {enter}:\n        pass\n    clean = True\n"
            f"except RuntimeError:\n    clean = False")


# In the order they are put back: leaving inference mode turns grad mode on, so it comes first.
SWITCHES = (
    Switch("inference mode", "inference_mode", "clean = not torch.ones(1).is_inference()",
           "left inference mode on", _leave_inference_mode),
    Switch("grad mode", "grad_mode", "clean = torch.is_grad_enabled()", "left grad mode off",
           lambda ns: ns.set_grad_enabled(True)),
    Switch("anomaly mode", "anomaly", "clean = not torch.is_anomaly_enabled()",
           "left anomaly mode on", lambda ns: ns.autograd.set_detect_anomaly(False)),
    # torch refuses to open a level inside another ("Nested forward mode AD is not supported")
    Switch("dual level", "forward_ad", _context_probe("torch.autograd.forward_ad.dual_level()"),
           "left a dual level open",
           _exit_context(lambda ns: ns.autograd.forward_ad.dual_level())),
    # torch refuses disable_saved_tensors_hooks while saved-tensor hooks are open (SAV-5)
    Switch("saved-tensor hooks", "saved_tensor_hooks",
           _context_probe("torch.autograd.graph.disable_saved_tensors_hooks('probe')"),
           "left saved-tensor hooks open",
           _exit_context(lambda ns: ns.autograd.graph.saved_tensors_hooks(None, None))),
    Switch("default dtype", None, "clean = torch.get_default_dtype() == torch.float32",
           "left the default dtype changed", lambda ns: ns.set_default_dtype(ns.float32),
           names=("get_default_dtype", "set_default_dtype")),
)
RESTORE_ATTEMPTS = 8    # contexts left open are exited one at a time


def switches_of(engine) -> tuple[Switch, ...]:
    """The switches an engine's contract exposes and whose probe runs on it (an engine whose
    probe raises is not checked for that switch: a broken reader must not fail every test)."""
    usable = []
    for switch in SWITCHES:
        if not switch.applies_to(engine):
            continue
        try:
            switch.is_clean(engine.ns)
        except Exception:  # noqa: BLE001 - the engine cannot be read this way
            continue
        usable.append(switch)
    return tuple(usable)


def changed(switches, ns) -> list[Switch]:
    """The switches whose state is not as a test found it; a probe that raises counts as changed
    (it ran before)."""
    found = []
    for switch in switches:
        try:
            clean = switch.is_clean(ns)
        except Exception:  # noqa: BLE001
            clean = False
        if not clean:
            found.append(switch)
    return found


def put_back(switches, ns) -> list[Switch]:
    """Restore each of `switches` (in SWITCHES' order); the ones that stay changed."""
    stuck = []
    for switch in sorted(switches, key=SWITCHES.index):
        for _ in range(RESTORE_ATTEMPTS):
            try:
                switch.restore(ns)
                if switch.is_clean(ns):
                    break
            except Exception:  # noqa: BLE001 - the engine cannot be put back this way
                pass
        else:
            stuck.append(switch)
    return stuck
