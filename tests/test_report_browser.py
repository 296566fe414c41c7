"""The HTML report in a real browser: headless Chromium (Debian's `chromium` package) opens the
report of a small run with a broken engine; the matrix and a failure's details are visible, the
filters work, nothing is logged to the console, the engine's <script> does not run, and a
screenshot is saved as reports/conformance-browser.png.

Chromium is driven over the DevTools protocol on a pipe (--remote-debugging-pipe: fd 3 in, fd 4
out, messages separated by NUL), so no port, no network and no Python browser package are needed.
"""

from __future__ import annotations

import base64
import json
import os
import select
import shutil
import signal
import subprocess
import time
from pathlib import Path

import pytest

from tests.support.run import ROOT, run_pytest

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
SCREENSHOT = ROOT / "reports" / "conformance-browser.png"

pytestmark = pytest.mark.skipif(
    CHROMIUM is None, reason="chromium is not installed (apt-get install -y chromium)")


class Browser:
    """One headless Chromium page, driven over the DevTools pipe."""

    def __init__(self, profile: Path):
        to_browser_r, self._to_browser = os.pipe()
        self._from_browser, from_browser_w = os.pipe()
        # Chromium wants the pipe on fds 3 and 4; bash puts it there, and the browser inherits
        # nothing else of this process (an inherited xdist channel could outlive the test). It
        # gets a session of its own, so that close() ends its helper processes too.
        self.process = subprocess.Popen(
            ["bash", "-c", f'exec "$0" "$@" 3<&{to_browser_r} 4>&{from_browser_w}', CHROMIUM,
             "--headless", "--no-sandbox", "--disable-gpu",
             "--disable-background-networking", "--disable-component-update", "--disable-sync",
             "--no-first-run", "--remote-debugging-pipe", f"--user-data-dir={profile}",
             "about:blank"],
            pass_fds=(to_browser_r, from_browser_w), start_new_session=True,
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.close(to_browser_r)
        os.close(from_browser_w)
        self._buffer = b""
        self._next_id = 0
        self.events: list[dict] = []
        target = self.call("Target.createTarget", url="about:blank")["targetId"]
        self.session = self.call("Target.attachToTarget", targetId=target,
                                 flatten=True)["sessionId"]
        for domain in ("Page", "Runtime", "Log"):
            self.call(f"{domain}.enable", session=self.session)

    def _read_message(self, deadline: float) -> dict:
        """The next message; a read never blocks past `deadline`, so a silent browser fails
        the test instead of hanging the run."""
        while b"\0" not in self._buffer:
            ready, _, _ = select.select([self._from_browser], [], [],
                                        max(0.0, deadline - time.monotonic()))
            if not ready:
                raise TimeoutError("chromium did not answer in time")
            chunk = os.read(self._from_browser, 1 << 16)
            if not chunk:
                raise RuntimeError("chromium closed the DevTools pipe")
            self._buffer += chunk
        message, self._buffer = self._buffer.split(b"\0", 1)
        return json.loads(message)

    def call(self, method: str, session: str | None = None, timeout: float = 30, **params):
        self._next_id += 1
        message = {"id": self._next_id, "method": method, "params": params}
        if session:
            message["sessionId"] = session
        os.write(self._to_browser, json.dumps(message).encode() + b"\0")
        deadline = time.monotonic() + timeout
        while True:
            answer = self._read_message(deadline)
            if answer.get("id") == self._next_id:
                if "error" in answer:
                    raise RuntimeError(f"{method}: {answer['error']}")
                return answer["result"]
            self.events.append(answer)

    def wait_for(self, event: str, since: int = 0, timeout: float = 30) -> None:
        """Wait until `event` has arrived, counting only events from index `since` on."""
        deadline = time.monotonic() + timeout
        while not any(e.get("method") == event for e in self.events[since:]):
            self.events.append(self._read_message(deadline))

    def navigate(self, url: str) -> None:
        start = len(self.events)
        self.page("Page.navigate", url=url)
        self.wait_for("Page.loadEventFired", since=start)

    def page(self, method: str, **params):
        return self.call(method, session=self.session, **params)

    def evaluate(self, expression: str):
        return self.page("Runtime.evaluate", expression=expression,
                         returnByValue=True)["result"].get("value")

    def console_errors(self, since: int = 0) -> list[str]:
        """The errors logged since event number `since`."""
        errors = []
        for event in self.events[since:]:
            method, params = event.get("method"), event.get("params", {})
            if method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "assert"):
                errors.append(json.dumps(params.get("args")))
            elif method == "Runtime.exceptionThrown":
                errors.append(json.dumps(params.get("exceptionDetails")))
            elif method == "Log.entryAdded" and params["entry"].get("level") == "error":
                errors.append(params["entry"].get("text", ""))
        return errors

    def close(self) -> None:
        try:
            self.call("Browser.close", timeout=5)
        except (RuntimeError, TimeoutError, OSError):
            pass
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            pass
        try:
            os.killpg(self.process.pid, signal.SIGKILL)  # what is left of the browser's session
        except ProcessLookupError:
            pass
        self.process.wait(timeout=10)
        os.close(self._to_browser)
        os.close(self._from_browser)


@pytest.fixture(scope="module")
def report(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("browser")
    path = out / "conformance.html"
    run = run_pytest("suites/test_leaves.py", "--engine", "torch",
                     "--engine", "tests.broken.hostile.script_errors", "--behaviour", "LEAF-3",
                     "--behaviour", "LEAF-8", "--behaviour", "LEAF-1", f"--report={path}")
    assert run.returncode == 1 and path.exists(), run.stdout + run.stderr
    return path


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    browser = Browser(tmp_path_factory.mktemp("chromium-profile"))
    yield browser
    browser.close()


VISIBLE = """(function (selector) {
  var el = document.querySelector(selector);
  if (!el) { return 'missing'; }
  var box = el.getBoundingClientRect(), style = getComputedStyle(el);
  return box.width > 0 && box.height > 0 && style.visibility !== 'hidden' ? 'visible' : 'hidden';
})(%s)"""


def test_the_report_shows_matrix_and_failure_details_without_console_errors(report, browser):
    browser.page("Emulation.setDeviceMetricsOverride", width=1400, height=2000,
                 deviceScaleFactor=1, mobile=False)
    browser.navigate(report.as_uri())
    for selector in ("#matrix", "#b-LEAF-3 .s-failed", "#b-LEAF-1 .s-passed",
                     "section.failure pre.error", "section.failure pre.reproducer",
                     "section.failure svg rect", "#durations"):
        assert browser.evaluate(VISIBLE % json.dumps(selector)) == "visible", selector
    assert browser.evaluate("document.title") == "autograd conformance report"
    error_text = browser.evaluate("Array.from(document.querySelectorAll('pre.error'))"
                                  ".map(function (e) { return e.textContent; }).join('\\n')")
    assert "<script>document.title='pwned';" in error_text  # shown as text, not run
    assert browser.evaluate("document.querySelectorAll('body script').length") == 1
    shot = browser.page("Page.captureScreenshot", format="png")["data"]
    SCREENSHOT.parent.mkdir(exist_ok=True)
    SCREENSHOT.write_bytes(base64.b64decode(shot))
    assert browser.console_errors() == []


def test_the_filters_work_in_the_page(report, browser):
    browser.navigate(report.as_uri())
    browser.evaluate("document.getElementById('failures-only').click()")
    assert browser.evaluate(VISIBLE % json.dumps("#b-LEAF-1")) == "hidden"
    assert browser.evaluate(VISIBLE % json.dumps("#b-LEAF-3")) == "visible"
    browser.evaluate("document.getElementById('failures-only').click()")
    assert browser.evaluate(VISIBLE % json.dumps("#b-LEAF-1")) == "visible"
    assert browser.console_errors() == []


def test_the_console_check_sees_errors(tmp_path, browser):
    """The check above is not vacuous: a page that logs an error is caught."""
    page = tmp_path / "bad.html"
    page.write_text("<!DOCTYPE html><title>bad</title><script>console.error('boom')</script>")
    browser.navigate(page.as_uri())
    assert any("boom" in error for error in browser.console_errors())


def test_the_dashboard_links_each_cell_to_the_engines_report(report, browser, tmp_path):
    """The dashboard of the run above (torch and the broken engine) in the browser: engines and
    chapters are shown, a failing cell links to that behaviour in the run's report, an engine's
    markup stays text, and the page runs no script at all."""
    from autograd_conformance.reports.dashboard import main as build_dashboard

    page = tmp_path / "dashboard.html"
    assert build_dashboard([str(report.with_suffix(".json")), "-o", str(page)]) == 0
    start = len(browser.events)
    browser.navigate(page.as_uri())
    for selector in ("#engines", "#matrix", "#b-LEAF-3 .s-failed a", "#b-LEAF-1 .s-passed"):
        assert browser.evaluate(VISIBLE % json.dumps(selector)) == "visible", selector
    assert browser.evaluate("document.title") == "autograd conformance dashboard"
    assert browser.evaluate("document.querySelectorAll('script').length") == 0
    cells = browser.evaluate("Array.from(document.querySelectorAll('#b-LEAF-8 td.cell'))"
                             ".map(function (c) { return c.textContent; }).join('|')")
    assert "<b>not</b> supported <script>" in cells  # the engine's message, as text
    link = browser.evaluate("document.querySelector('#b-LEAF-3 .s-failed a').href")
    assert link == report.as_uri() + "#b-LEAF-3"
    browser.navigate(link)
    assert browser.evaluate(VISIBLE % json.dumps("#b-LEAF-3 .s-failed")) == "visible"
    assert browser.console_errors(since=start) == []
