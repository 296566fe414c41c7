"""The HTML report: one self-contained file (inline CSS and JS, no network, no fonts to fetch).

Every string that reaches the page goes through `esc` (html.escape), whatever its origin; engine
messages, reprs and grad_fn names are never trusted. The page carries a Content-Security-Policy
that allows only its own script (by hash), so even a string that escaped escaping could not run.
The page's script only shows and hides rows (filters); all content is rendered here.
"""

from __future__ import annotations

import base64
import hashlib
import html
import re

from .catalog import LEVELS, load_catalog
from .watchdog import NOT_RUN

STATE_LABELS = {"passed": "pass", "failed": "FAIL", "cancelled": "not run (engine unresponsive)",
                "xfailed": "known gap", "skipped": "skipped", "notrun": "not run"}
OUTCOME_LABELS = {"passed": "passed", "failed": "failed", "xfailed": "expected failure (baseline)",
                  "xpassed": "passed but listed in the baseline (remove it)",
                  "skipped": "skipped", "cancelled": "not run: its engine was unresponsive"}


def esc(value) -> str:
    return html.escape(str(value), quote=True)


CSS = """
:root { --pass:#1a7f37; --fail:#cf222e; --xfail:#9a6700; --skip:#6e7781; --bg:#f6f8fa; }
* { box-sizing: border-box; }
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; margin: 0; color: #1f2328; }
header, main { padding: 12px 24px; }
header { background: var(--bg); border-bottom: 1px solid #d0d7de; }
h1 { font-size: 22px; margin: 4px 0 8px; } h2 { font-size: 18px; margin: 24px 0 8px; }
h3 { font-size: 15px; margin: 0 0 6px; word-break: break-all; }
.partial { background: #ffebe9; border: 1px solid var(--fail); color: #82071e; padding: 8px 12px;
  border-radius: 6px; margin: 8px 0; font-weight: 600; }
table { border-collapse: collapse; }
.info td { padding: 1px 12px 1px 0; vertical-align: top; } .info td:first-child { color: #59636e; }
.cards { display: flex; flex-wrap: wrap; gap: 12px; margin-top: 12px; }
.card { background: #fff; border: 1px solid #d0d7de; border-left: 6px solid var(--pass);
  border-radius: 6px; padding: 8px 14px; min-width: 220px; }
.card.bad { border-left-color: var(--fail); } .card.gap { border-left-color: var(--xfail); }
.card .big { font-size: 22px; font-weight: 700; }
.muted { color: #59636e; font-size: 12px; }
.filters { position: sticky; top: 0; background: #fff; padding: 8px 0; border-bottom: 1px solid #d0d7de;
  z-index: 1; }
.filters label { margin-right: 18px; }
.matrix th, .matrix td { border: 1px solid #d0d7de; padding: 3px 8px; text-align: left; }
.matrix thead th { background: var(--bg); position: sticky; top: 41px; }
.matrix .area th { background: #eaeef2; font-weight: 600; }
.matrix td.rule { max-width: 520px; }
.cell { text-align: center !important; font-weight: 600; white-space: nowrap; }
.cell .muted { white-space: normal; max-width: 200px; font-size: 11px; margin: 0 auto; }
.cell a { color: inherit; }
.s-passed { background: #dafbe1; color: var(--pass); }
.s-failed { background: #ffebe9; color: var(--fail); }
.s-xfailed { background: #fff8c5; color: var(--xfail); }
.s-skipped { background: #eaeef2; color: var(--skip); font-weight: 400; }
.s-cancelled { background: #ffebe9; color: var(--fail); font-weight: 400; }
.unresponsive { color: var(--fail); font-weight: 700; }
.s-notrun { color: #afb8c1; font-weight: 400; }
.hidden { display: none !important; }
.failure { border: 1px solid #d0d7de; border-left: 6px solid var(--fail); border-radius: 6px;
  padding: 10px 14px; margin: 12px 0; }
.failure.xfailed { border-left-color: var(--xfail); }
pre { background: var(--bg); padding: 8px; border-radius: 4px; overflow-x: auto; margin: 4px 0 10px;
  font: 12px/1.4 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; white-space: pre-wrap; }
.label { font-weight: 600; margin-top: 6px; }
.graphs { display: flex; flex-wrap: wrap; gap: 16px; }
.graphs figure { margin: 0; } .graphs figcaption { font-weight: 600; }
svg text { font: 11px ui-monospace, Menlo, Consolas, monospace; }
.durations td { padding: 1px 12px 1px 0; } .durations td.num { text-align: right; }
.legend span { display: inline-block; padding: 0 8px; margin-right: 6px; border-radius: 4px; }
"""

SCRIPT = """
(function () {
  var failuresOnly = document.getElementById('failures-only');
  var level = document.getElementById('level-filter');
  var levels = JSON.parse(document.body.getAttribute('data-levels'));
  function apply() {
    var maxRank = levels.indexOf(level.value);
    document.querySelectorAll('[data-level]').forEach(function (el) {
      var rank = levels.indexOf(el.getAttribute('data-level'));
      var hide = (rank > maxRank) || (failuresOnly.checked && el.getAttribute('data-failing') !== '1');
      el.classList.toggle('hidden', hide);
    });
    document.querySelectorAll('tr.area').forEach(function (row) {
      var next = row.nextElementSibling, visible = false;
      while (next && !next.classList.contains('area')) {
        if (!next.classList.contains('hidden')) { visible = true; }
        next = next.nextElementSibling;
      }
      row.classList.toggle('hidden', !visible);
    });
  }
  failuresOnly.addEventListener('change', apply);
  level.addEventListener('change', apply);
  apply();
})();
"""


def render_report(run, results, matrix, summaries, durations) -> str:
    script_hash = base64.b64encode(hashlib.sha256(SCRIPT.encode()).digest()).decode()
    csp = (f"default-src 'none'; style-src 'unsafe-inline'; img-src data:; "
           f"script-src 'sha256-{script_hash}'")
    title = "autograd conformance report" + (" (PARTIAL)" if run["partial"] else "")
    body = "\n".join([
        _header(run, summaries),
        "<main>",
        _filters(run),
        _matrix(run, matrix),
        _failures(results),
        _durations(durations),
        "</main>",
    ])
    return (f"<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<meta http-equiv=\"Content-Security-Policy\" content=\"{esc(csp)}\">"
            f"<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
            f"<link rel=\"icon\" href=\"data:,\">"
            f"<title>{esc(title)}</title><style>{CSS}</style></head>\n"
            f"<body data-levels=\"{esc(_json_list(run['levels']))}\">\n{body}\n"
            f"<script>{SCRIPT}</script></body></html>\n")


def _json_list(items) -> str:
    return "[" + ",".join('"' + re.sub(r"[^a-z]", "", item) + '"' for item in items) + "]"


def _header(run, summaries) -> str:
    parts = ["<header>", "<h1>autograd conformance report</h1>"]
    if run["partial"]:
        parts.append("<div class=\"partial\" id=\"partial\">PARTIAL RUN: "
                     + "; ".join(esc(reason) for reason in run["partial"]) + "</div>")
    engines = ", ".join(f"{esc(e['name'])} {esc(e['version'])}" for e in run["engines"])
    rows = [("date", run["date"]), ("engines", None), ("torch", run["torch"] or "not installed"),
            ("hypothesis", run["hypothesis"]), ("level", run["level"]), ("device", run["device"]),
            ("duration", f"{run['duration_s']:.1f} s"
                         + (f" on {run['workers']} worker{'s' * (run['workers'] > 1)}"
                            if run["workers"] else "")),
            ("command line", run["command"])]
    if run["behaviours_selected"]:
        rows.append(("behaviours selected", ", ".join(run["behaviours_selected"])))
    if run["baseline"]:
        rows.append(("baseline", run["baseline"]))
    rows.append(("exit status", run["exit_status"]))
    parts.append("<table class=\"info\">")
    for key, value in rows:
        shown = engines if key == "engines" else esc(value)
        parts.append(f"<tr><td>{esc(key)}</td><td id=\"run-{esc(key.replace(' ', '-'))}\">"
                     f"{shown}</td></tr>")
    parts.append("</table><div class=\"cards\">")
    for summary in summaries.values():
        kind = ("bad" if summary.states["failed"] or summary.unresponsive else
                "gap" if summary.states["xfailed"] or summary.states["skipped"] else "")
        levels = " &middot; ".join(f"{esc(level)} {p}/{t}"
                                   for level, (p, t) in summary.by_level.items())
        tests = ", ".join(f"{n} {esc(outcome)}" for outcome, n in sorted(summary.tests.items()))
        why = summary.unresponsive.removeprefix(NOT_RUN).strip()
        unresponsive = (f"<div class=\"unresponsive\">UNRESPONSIVE: {esc(why)}</div>"
                        if summary.unresponsive else "")
        parts.append(f"<div class=\"card {kind}\"><div><b>{esc(summary.engine)}</b></div>"
                     f"<div class=\"big\">{summary.passed} / {summary.total}</div>"
                     f"<div>behaviours conform at level {esc(run['level'])}</div>{unresponsive}"
                     f"<div class=\"muted\">{esc(summary.extra)}</div>"
                     f"<div class=\"muted\">by level: {levels}</div>"
                     f"<div class=\"muted\">tests: {tests}</div></div>")
    parts.append("</div></header>")
    return "\n".join(parts)


def _filters(run) -> str:
    options = "".join(f"<option value=\"{esc(level)}\"{' selected' if level == run['level'] else ''}"
                      f">up to {esc(level)}</option>" for level in run["levels"])
    legend = "".join(f"<span class=\"s-{state}\">{esc(label)}</span>"
                     for state, label in STATE_LABELS.items())
    return ("<div class=\"filters\"><label><input type=\"checkbox\" id=\"failures-only\"> "
            "failures only</label><label>level <select id=\"level-filter\">"
            f"{options}</select></label><span class=\"legend\">{legend}</span></div>")


def _source_links(source: str) -> str:
    links = []
    for part in (piece.strip() for piece in source.split(";")):
        if re.match(r"https?://", part):
            links.append(f"<a href=\"{esc(part)}\">{esc(part.rsplit('/', 1)[-1] or part)}</a>")
        elif part:
            links.append(esc(part))
    return "; ".join(links)


def _matrix(run, matrix) -> str:
    catalog = load_catalog()
    engines = [e["name"] for e in run["engines"]]
    head = "".join(f"<th>{esc(engine)}</th>" for engine in engines)
    parts = ["<h2>Behaviours &times; engines</h2>",
             f"<table class=\"matrix\" id=\"matrix\"><thead><tr><th>ID</th><th>level</th>"
             f"<th>rule</th><th>source</th>{head}</tr></thead><tbody>"]
    by_area: dict[str, list[str]] = {}
    for behaviour in matrix:
        area = catalog.behaviours[behaviour].area if behaviour in catalog.behaviours else "other"
        by_area.setdefault(area, []).append(behaviour)
    for area, behaviours in by_area.items():
        title = catalog.areas.get(area, area)
        parts.append(f"<tr class=\"area\"><th colspan=\"{4 + len(engines)}\">{esc(title)}</th></tr>")
        for behaviour in behaviours:
            info = catalog.behaviours.get(behaviour)
            row = matrix[behaviour]
            failing = any(cell.state in ("failed", "cancelled", "xfailed") for cell in row.values())
            cells = "".join(_cell(row.get(engine)) for engine in engines)
            level = info.level if info else LEVELS[-1]
            parts.append(
                f"<tr data-level=\"{esc(level)}\" data-failing=\"{int(failing)}\" "
                f"id=\"b-{esc(behaviour)}\"><td><b>{esc(behaviour)}</b></td><td>{esc(level)}</td>"
                f"<td class=\"rule\">{esc(info.rule if info else '')}</td>"
                f"<td class=\"muted\">{_source_links(info.source) if info else ''}</td>{cells}</tr>")
    parts.append("</tbody></table>")
    return "\n".join(parts)


def _cell(cell) -> str:
    if cell is None:
        return "<td class=\"cell s-notrun\">not run</td>"
    label = esc(STATE_LABELS[cell.state])
    first_bad = next((t for t in cell.tests if t.outcome in ("failed", "xfailed")), None)
    if first_bad is not None:
        label = f"<a href=\"#{_anchor(first_bad.nodeid)}\">{label}</a>"
    reason = ""
    if cell.state in ("skipped", "cancelled"):
        reasons = sorted({t.reason for t in cell.tests if t.outcome == cell.state})
        reason = f"<div class=\"muted\">{esc('; '.join(reasons))[:160]}</div>"
    return (f"<td class=\"cell s-{cell.state}\" title=\"{esc(cell.detail)}\">{label}{reason}</td>")


def _anchor(nodeid: str) -> str:
    return "t-" + hashlib.sha1(nodeid.encode()).hexdigest()[:12]


def _expected_got(error: str) -> str:
    lines = [line for line in error.splitlines()
             if re.search(r"expected|got|should|but |!=|==|differ", line, re.IGNORECASE)]
    return "\n".join(lines[:12])


def _failures(results) -> str:
    failed = [r for r in results.records.values() if r.outcome == "failed"]
    gaps = [r for r in results.records.values() if r.outcome == "xfailed"]
    fixed = [r for r in results.records.values() if r.outcome == "xpassed"]
    parts = [f"<h2 id=\"failures\">Failures ({len(failed)})</h2>"]
    if not failed:
        parts.append("<p>No failures outside the baseline.</p>")
    parts += [_failure(record) for record in failed]
    if fixed:
        parts.append(f"<h2>Listed in the baseline but passing ({len(fixed)}): remove them</h2><ul>")
        parts += [f"<li><code>{esc(r.nodeid)}</code> &mdash; {esc(r.reason)}</li>" for r in fixed]
        parts.append("</ul>")
    if gaps:
        parts.append(f"<h2>Known gaps: expected failures from the baseline ({len(gaps)})</h2>")
        parts += [_failure(record) for record in gaps]
    return "\n".join(parts)


def _failure(record) -> str:
    catalog = load_catalog().behaviours
    level = max((catalog[b].level for b in record.behaviours if b in catalog),
                key=LEVELS.index, default=LEVELS[-1])
    behaviours = ", ".join(f"<a href=\"#b-{esc(b)}\">{esc(b)}</a>" for b in record.behaviours)
    parts = [f"<section class=\"failure {esc(record.outcome)}\" id=\"{_anchor(record.nodeid)}\" "
             f"data-level=\"{esc(level)}\" data-failing=\"1\">",
             f"<h3>{esc(record.nodeid)}</h3>",
             f"<div class=\"muted\">engine <b>{esc(record.engine)}</b> &middot; behaviours "
             f"{behaviours or 'none'} &middot; {esc(OUTCOME_LABELS[record.outcome])} &middot; "
             f"{record.duration:.2f} s</div>"]
    if record.reason:
        parts.append(f"<div class=\"muted\">{esc(record.reason)}</div>")
    if record.crashed:
        parts.append("<div class=\"label\">The test took its worker process down</div>")
    parts.append(f"<div class=\"label\">Error</div><pre class=\"error\">{esc(record.error)}</pre>")
    expected_got = _expected_got(record.error)
    if expected_got:
        parts.append(f"<div class=\"label\">Expected and got</div>"
                     f"<pre class=\"expected\">{esc(expected_got)}</pre>")
    if record.reproducer:
        parts.append("<div class=\"label\">Reproducer (the shrunk counterexample, as a torch "
                     f"script)</div><pre class=\"reproducer\">{esc(record.reproducer)}</pre>")
    if record.graphs:
        parts.append(_graph_pair(record))
    if record.traceback:
        parts.append(f"<details><summary>full failure text</summary>"
                     f"<pre>{esc(record.traceback)}</pre></details>")
    parts.append("</section>")
    return "\n".join(parts)


# -- the graph picture ---------------------------------------------------------------------------
def _graph_pair(record) -> str:
    engine_graph, torch_graph = record.graphs.get("engine"), record.graphs.get("torch")
    figures = []
    if engine_graph:
        figures.append(_figure(f"{record.engine}", engine_graph, torch_graph))
    if torch_graph:
        figures.append(_figure("torch", torch_graph, None))
    legend = ("leaves: square corners; non-leaves: round; filled orange: requires_grad; "
              "red outline: differs from torch in structure (leaf or not, requires_grad, a "
              "grad_fn or none, the edges of next_functions) or, only where the engine declares "
              "grad_fn_names, in the node's name")
    return (f"<div class=\"label\">The counterexample's graph</div><div class=\"muted\">"
            f"{legend}</div><div class=\"graphs\">{''.join(figures)}</div>")


def _figure(caption: str, graph: dict, compare: dict | None) -> str:
    error = (f"<div class=\"muted\">building it raised: {esc(graph['error'])}</div>"
             if graph.get("error") else "")
    return (f"<figure><figcaption>{esc(caption)}</figcaption>{graph_svg(graph, compare)}{error}"
            f"</figure>")


BOX_W, BOX_H, GAP_X, GAP_Y = 196, 46, 44, 14


def graph_svg(graph: dict, compare: dict | None = None) -> str:
    """The graph as inline SVG: one column per depth (leaves at 0), arrows from inputs to ops.
    Variables whose structure differs from `compare` get a red outline (see _differs)."""
    variables = graph.get("variables") or []
    names = bool(graph.get("grad_fn_names"))
    if not variables:
        return ""
    others = {v["name"]: v for v in (compare or {}).get("variables", [])}
    depth: dict[str, int] = {}
    for variable in variables:
        depth[variable["name"]] = 1 + max((depth.get(a, 0) for a in variable["args"]), default=-1)
    columns: dict[int, list[str]] = {}
    for variable in variables:
        columns.setdefault(depth[variable["name"]], []).append(variable["name"])
    position = {name: (d * (BOX_W + GAP_X) + 8, row * (BOX_H + GAP_Y) + 8)
                for d, names in columns.items() for row, name in enumerate(names)}
    width = (max(columns) + 1) * (BOX_W + GAP_X) - GAP_X + 16
    height = max(len(names) for names in columns.values()) * (BOX_H + GAP_Y) - GAP_Y + 16
    marker = "arrow-" + hashlib.sha1(repr(variables).encode()).hexdigest()[:8]
    parts = [f"<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{width}\" height=\"{height}\" "
             f"viewBox=\"0 0 {width} {height}\" role=\"img\">",
             f"<defs><marker id=\"{marker}\" viewBox=\"0 0 10 10\" refX=\"10\" refY=\"5\" "
             f"markerWidth=\"7\" markerHeight=\"7\" orient=\"auto-start-reverse\">"
             f"<path d=\"M 0 0 L 10 5 L 0 10 z\" fill=\"#57606a\"/></marker></defs>"]
    for variable in variables:
        x2, y2 = position[variable["name"]]
        for arg in variable["args"]:
            if arg in position:
                x1, y1 = position[arg]
                parts.append(f"<line x1=\"{x1 + BOX_W}\" y1=\"{y1 + BOX_H / 2}\" x2=\"{x2}\" "
                             f"y2=\"{y2 + BOX_H / 2}\" stroke=\"#8c959f\" "
                             f"marker-end=\"url(#{marker})\"/>")
    for variable in variables:
        other = others.get(variable["name"])
        parts.append(_box(variable, position[variable["name"]],
                          other is not None and _differs(variable, other, names)))
    parts.append("</svg>")
    return "".join(parts)


def _differs(variable: dict, other: dict, names: bool) -> bool:
    """Whether a variable's structure differs from torch's: leaf or not, requires_grad, whether it
    has a grad_fn, and (where both engines read them) its next_functions edges; node names only
    when the engine declares grad_fn_names, since other engines' nodes have their own names."""
    if any(variable.get(key) != other.get(key) for key in ("is_leaf", "requires_grad")):
        return True
    if (variable.get("grad_fn") is None) != (other.get("grad_fn") is None):
        return True
    edges, other_edges = variable.get("edges"), other.get("edges")
    if edges is not None and other_edges is not None and edges != other_edges:
        return True
    return names and variable.get("grad_fn") != other.get("grad_fn")


def _box(variable: dict, at: tuple[int, int], differs: bool) -> str:
    x, y = at
    requires_grad = variable.get("requires_grad") is True
    leaf = variable.get("is_leaf")
    fill = "#ffd8b5" if requires_grad else "#ffffff"
    stroke, stroke_width = ("#cf222e", 3) if differs else ("#57606a", 1)
    radius = 0 if leaf is True else 12
    op = variable.get("op")
    title = f"{variable['name']}" + (f" = {op}({', '.join(variable['args'])})" if op else " (input)")
    grad_fn = variable.get("grad_fn")
    second = ("leaf" if leaf is True else "non-leaf") + (", rg" if requires_grad else "")
    if isinstance(leaf, str):
        second = leaf
    third = "grad_fn: " + ("None" if grad_fn is None else str(grad_fn))
    tooltip = "\n".join([title, f"is_leaf: {leaf}", f"requires_grad: "
                         f"{variable.get('requires_grad')}", third])
    return (f"<g><title>{esc(tooltip)}</title>"
            f"<rect x=\"{x}\" y=\"{y}\" width=\"{BOX_W}\" height=\"{BOX_H}\" rx=\"{radius}\" "
            f"fill=\"{fill}\" stroke=\"{stroke}\" stroke-width=\"{stroke_width}\"/>"
            f"<text x=\"{x + 8}\" y=\"{y + 14}\" font-weight=\"bold\">{esc(_clip(title))}</text>"
            f"<text x=\"{x + 8}\" y=\"{y + 27}\">{esc(_clip(second))}</text>"
            f"<text x=\"{x + 8}\" y=\"{y + 40}\">{esc(_clip(third))}</text></g>")


def _clip(text: str, limit: int = 28) -> str:
    return text if len(text) <= limit else text[:limit - 1] + "\u2026"


def _durations(durations: dict[str, float]) -> str:
    rows = "".join(f"<tr><td><code>{esc(module)}</code></td><td class=\"num\">{seconds:.2f} s</td>"
                   f"</tr>" for module, seconds in sorted(durations.items(),
                                                           key=lambda kv: -kv[1]))
    return (f"<h2>Time per suite</h2><table class=\"durations\" id=\"durations\">{rows}</table>"
            f"<p class=\"muted\">setup, call and teardown of every test, summed per module (across "
            f"workers, so it can exceed the run's duration)</p>")
