"""The HTML report: one self-contained file (inline CSS and script, no network, no fonts to fetch),
rendered from templates/report.html.j2.

Jinja2's autoescaping (reports/render.py) escapes every string that reaches the page, whatever
its origin; engine messages, reprs and grad_fn names are never trusted. Only the report's own CSS
and script (files beside the template) and the graph pictures (templates/graph.svg.j2, itself
autoescaped) are inserted as markup. The page carries a Content-Security-Policy that allows only
its own script (by hash), so even a string that escaped escaping could not run. The script only
shows and hides rows (filters); all content is rendered here.
"""

from __future__ import annotations

import base64
import hashlib
import re
from dataclasses import dataclass

from markupsafe import Markup

from autograd_conformance.harness.catalog import LEVELS, load_catalog, load_deviations, load_seeds
from autograd_conformance.reports.render import TEMPLATES, environment

STATE_LABELS = {"passed": "pass", "failed": "FAIL", "error": "ENGINE ERROR (not judged)",
                "unjudged": "not judged (its test failed on another behaviour's check)",
                "op_set_aside": "not judged (its test failed using an op set aside)",
                "cancelled": "not run (engine unresponsive)", "xfailed": "known gap",
                "skipped": "skipped", "notrun": "not run"}
OUTCOME_LABELS = {"passed": "passed", "failed": "failed", "xfailed": "expected failure (baseline)",
                  "xpassed": "passed but listed in the baseline (remove it)",
                  "skipped": "skipped", "cancelled": "not run: its engine was unresponsive"}
CSS = (TEMPLATES / "report.css").read_text(encoding="utf-8")
SCRIPT = (TEMPLATES / "report.js").read_text(encoding="utf-8")


def render_report(run, results, matrix, summaries, durations, errors) -> str:
    """The page; `errors`: the failing reproducers grouped by root error (results.error_groups)."""
    script_hash = base64.b64encode(hashlib.sha256(SCRIPT.encode()).digest()).decode()
    records = list(results.records.values())
    areas = _areas(run, matrix)
    return environment().get_template("report.html.j2").render(
        run=run, info=_info(run), summaries=list(summaries.values()), levels=list(run["levels"]),
        engines=[e["name"] for e in run["engines"]], areas=areas, seeds=_cited_seeds(areas),
        deviations=[load_deviations()[row["id"]] for _, rows in areas for row in rows
                    if row["deviation"]],
        failed=[r for r in records if r.outcome == "failed"],
        fixed=[r for r in records if r.outcome == "xpassed"],
        gaps=[r for r in records if r.outcome == "xfailed"], errors=errors,
        missing_ops={e["name"]: e.get("missing_ops", []) for e in run["engines"]},
        set_aside_ops={e["name"]: e.get("set_aside_ops", {}) for e in run["engines"]},
        ops_not_judged={e["name"]: e.get("ops_not_judged", "") for e in run["engines"]},
        durations=sorted(durations.items(), key=lambda kv: -kv[1]),
        csp=(f"default-src 'none'; style-src 'unsafe-inline'; img-src data:; "
             f"script-src 'sha256-{script_hash}'"),
        css=Markup(CSS), script=Markup(SCRIPT), state_labels=STATE_LABELS,
        outcome_labels=OUTCOME_LABELS, card_kind=_card_kind, anchor=_anchor,
        record_level=_record_level, expected_got=_expected_got, graph_figures=_graph_figures,
        graph_svg=graph_svg)


def _info(run) -> list[tuple[str, str]]:
    """The run's details, one (label, value) row each."""
    workers = run["workers"]
    rows = [("date", run["date"]),
            ("engines", ", ".join(f"{e['name']} {e['version']}" for e in run["engines"])),
            ("torch", run["torch"] or "not installed"), ("hypothesis", run["hypothesis"]),
            ("level", run["level"]), ("device", run["device"]),
            ("duration", f"{run['duration_s']:.1f} s"
                         + (f" on {workers} worker{'s' * (workers > 1)}" if workers else "")),
            ("command line", run["command"])]
    if run["behaviours_selected"]:
        rows.append(("behaviours selected", ", ".join(run["behaviours_selected"])))
    if run["baseline"]:
        rows.append(("baseline", run["baseline"]))
    rows.append(("exit status", run["exit_status"]))
    return rows


def _card_kind(summary) -> str:
    if summary.states["failed"] or summary.states["error"] or summary.unresponsive:
        return "bad"
    return "gap" if summary.states["xfailed"] or summary.states["skipped"] else ""


@dataclass
class MatrixCell:
    state: str
    detail: str              # one line per test, for the tooltip
    anchor: str | None       # the first failure's section, if any
    reason: str              # why the tests were skipped or not run, or the first distinct error


def _areas(run, matrix) -> list[tuple[str, list[dict]]]:
    """The matrix's rows, grouped by catalog area: (area title, rows)."""
    catalog = load_catalog()
    engines = [e["name"] for e in run["engines"]]
    by_area: dict[str, list[dict]] = {}
    for behaviour, row in matrix.items():
        info = catalog.behaviours.get(behaviour)
        by_area.setdefault(info.area if info else "other", []).append({
            "id": behaviour, "level": info.level if info else LEVELS[-1],
            "rule": info.rule if info else "", "sources": _sources(info.source if info else ""),
            "deviation": behaviour in load_deviations(),
            "failing": any(cell.state in ("failed", "error", "unjudged", "op_set_aside",
                                          "cancelled", "xfailed") for cell in row.values()),
            "cells": [_cell(row.get(engine)) for engine in engines]})
    return [(catalog.areas.get(area, area), rows) for area, rows in by_area.items()]


def _cell(cell) -> MatrixCell | None:
    if cell is None:
        return None
    first_bad = next((t for t in cell.tests if t.outcome in ("failed", "xfailed")), None)
    reason = cell.error
    if cell.state in ("skipped", "cancelled"):
        reason = "; ".join(sorted({t.reason for t in cell.tests if t.outcome == cell.state}))
    return MatrixCell(cell.state, cell.detail,
                      _anchor(first_bad.nodeid) if first_bad is not None else None, reason)


def _sources(source: str) -> list[tuple[str | None, str]]:
    """A catalog source as (link or None, text) pieces: URLs link out, a seed post links to its
    entry in the report's list of seed posts (the posts are not shipped), the rest is text."""
    pieces = []
    for part in (piece.strip() for piece in source.split(";")):
        if re.match(r"https?://", part):
            pieces.append((part, part.rsplit("/", 1)[-1] or part))
        elif part.removeprefix("seeds/") in load_seeds():
            pieces.append((f"#seed-{part.removeprefix('seeds/')}", part))
        elif part:
            pieces.append((None, part))
    return pieces


def _cited_seeds(areas) -> list:
    """The seed posts the matrix's rows cite, in the order of their files."""
    cited = {href.removeprefix("#seed-") for _, rows in areas for row in rows
             for href, _ in row["sources"] if href and href.startswith("#seed-")}
    return [seed for file, seed in sorted(load_seeds().items()) if file in cited]


def _anchor(nodeid: str) -> str:
    return "t-" + hashlib.sha1(nodeid.encode()).hexdigest()[:12]


def _record_level(record) -> str:
    catalog = load_catalog().behaviours
    return max((catalog[b].level for b in record.behaviours if b in catalog),
               key=LEVELS.index, default=LEVELS[-1])


def _expected_got(error: str) -> str:
    lines = [line for line in error.splitlines()
             if re.search(r"expected|got|should|but |!=|==|differ", line, re.IGNORECASE)]
    return "\n".join(lines[:12])


# -- the graph picture ---------------------------------------------------------------------------
def _graph_figures(record) -> list[tuple[str, dict, dict | None]]:
    """(caption, graph, graph to compare it with) for the engine's picture and torch's."""
    engine_graph, torch_graph = record.graphs.get("engine"), record.graphs.get("torch")
    figures = []
    if engine_graph:
        figures.append((record.engine, engine_graph, torch_graph))
    if torch_graph:
        figures.append(("torch", torch_graph, None))
    return figures


BOX_W, BOX_H, GAP_X, GAP_Y = 196, 46, 44, 14


def graph_svg(graph: dict, compare: dict | None = None) -> Markup:
    """The graph as inline SVG: one column per depth (leaves at 0), arrows from inputs to ops.
    Variables whose structure differs from `compare` get a red outline (see _differs)."""
    variables = graph.get("variables") or []
    if not variables:
        return Markup("")
    names = bool(graph.get("grad_fn_names"))
    others = {v["name"]: v for v in (compare or {}).get("variables", [])}
    depth: dict[str, int] = {}
    for variable in variables:
        depth[variable["name"]] = 1 + max((depth.get(a, 0) for a in variable["args"]), default=-1)
    columns: dict[int, list[str]] = {}
    for variable in variables:
        columns.setdefault(depth[variable["name"]], []).append(variable["name"])
    position = {name: (d * (BOX_W + GAP_X) + 8, row * (BOX_H + GAP_Y) + 8)
                for d, column in columns.items() for row, name in enumerate(column)}
    edges = [(position[arg][0] + BOX_W, position[arg][1] + BOX_H / 2,
              position[variable["name"]][0], position[variable["name"]][1] + BOX_H / 2)
             for variable in variables for arg in variable["args"] if arg in position]
    boxes = []
    for variable in variables:
        other = others.get(variable["name"])
        boxes.append(_box(variable, position[variable["name"]],
                          other is not None and _differs(variable, other, names)))
    return Markup(environment().get_template("graph.svg.j2").render(
        width=(max(columns) + 1) * (BOX_W + GAP_X) - GAP_X + 16,
        height=max(len(column) for column in columns.values()) * (BOX_H + GAP_Y) - GAP_Y + 16,
        marker="arrow-" + hashlib.sha1(repr(variables).encode()).hexdigest()[:8],
        edges=edges, boxes=boxes, box_w=BOX_W, box_h=BOX_H))


def _differs(variable: dict, other: dict, names: bool) -> bool:
    """Whether a variable's structure differs from torch's: leaf or not, requires_grad, whether it
    has a grad_fn, and (where both engines read them) its next_functions edges; node names only
    when the engine declares grad_fn_names, since other engines' nodes have their own names."""
    if any(variable.get(key) != other.get(key) for key in ("is_leaf", "requires_grad")):
        return True
    if (variable.get("grad_fn") is None) != (other.get("grad_fn") is None):
        return True
    if other.get("uncertain"):
        return False   # torch's reshape node: only its presence is known (see expected_graph)
    edges, other_edges = variable.get("edges"), other.get("edges")
    if edges is not None and other_edges is not None and edges != other_edges:
        return True
    return names and variable.get("grad_fn") != other.get("grad_fn")


def _box(variable: dict, at: tuple[int, int], differs: bool) -> dict:
    """One variable's box: where, how it is drawn, and its three lines of text."""
    x, y = at
    requires_grad = variable.get("requires_grad") is True
    leaf = variable.get("is_leaf")
    op = variable.get("op")
    title = f"{variable['name']}" + (f" = {op}({', '.join(variable['args'])})" if op else " (input)")
    grad_fn = variable.get("grad_fn")
    second = ("leaf" if leaf is True else "non-leaf") + (", rg" if requires_grad else "")
    if isinstance(leaf, str):
        second = leaf
    third = "grad_fn: " + ("None" if grad_fn is None else str(grad_fn))
    stroke, stroke_width = ("#cf222e", 3) if differs else ("#57606a", 1)
    return {"x": x, "y": y, "radius": 0 if leaf is True else 12,
            "fill": "#ffd8b5" if requires_grad else "#ffffff", "stroke": stroke,
            "stroke_width": stroke_width, "lines": [_clip(title), _clip(second), _clip(third)],
            "tooltip": "\n".join([title, f"is_leaf: {leaf}",
                                  f"requires_grad: {variable.get('requires_grad')}", third])}


def _clip(text: str, limit: int = 28) -> str:
    return text if len(text) <= limit else text[:limit - 1] + "\u2026"
