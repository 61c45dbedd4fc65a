"""The leaderboard's static site, written from accepted bundles (``agentgym leaderboard build``).

``DIR/index.html`` has one sortable table per env family (agent, env, split, episodes, success,
score, pass^k, mean steps, tokens) and per env a chart of score against mean steps (and
against mean tokens where a run used any), drawn here as inline SVG. Each row links to
``trace.html#RUN``, one static page that renders a run on demand: it loads
``DIR/traces/RUN.js`` (the run's episodes, with the validator's numbers and the submitted step
traces, as one compact JSON literal) and draws the episode table and, for the episode clicked,
its steps. One small file per run and no page per episode keep the build to seconds and the
site small. Everything is local (``style.css``, ``sort.js``, ``trace.html``, ``trace.js``
copied from ``site_assets/``): the site works offline, from ``file://`` (a ``<script>`` tag,
unlike ``fetch``, may load a local file). Every number comes from the validator's recomputed
summary; each cell also carries the full-precision value as ``data-value`` (what sorting uses).

The index is filled with :class:`string.Template` (stdlib) and :func:`html.escape`; the trace
viewer builds its DOM with ``textContent`` only, so nothing a bundle says is parsed as HTML.

>>> svg = scatter_svg([("oracle", 3.0, 100.0), ("random", 7.5, 12.5)], "mean steps", "score")
>>> svg.count('class="point"')
2
>>> import tempfile
>>> index = build_site([], tempfile.mkdtemp())  # accepted reports from validate_bundle
>>> "No accepted submissions yet" in index.read_text()
True
"""

from __future__ import annotations

import html
import json
import math
import re
import shutil
from collections.abc import Sequence
from datetime import UTC, datetime
from importlib.resources import files
from pathlib import Path
from string import Template
from typing import Any

from agentgym.audit import recorded_audit
from agentgym.envinfo import entry_for

from .validate import RunReport, ValidationReport

__all__ = ["COLUMNS", "Row", "build_site", "nice_top", "rows_of", "scatter_svg"]

_ASSETS = files("agentgym.leaderboard") / "site_assets"
#: Files copied into the site as they are.
_COPIED = ("style.css", "sort.js", "trace.html", "trace.js")
#: The table's columns: (header, how a cell shows its value; None: text as is).
COLUMNS: tuple[tuple[str, str | None], ...] = (
    ("agent", None), ("env", None), ("split", None), ("episodes", "{:d}"),
    ("success", "{:.1%}"), ("score", "{:.1f}"), ("pass^k", "{:.3f}"),
    ("mean steps", "{:.2f}"), ("tokens", "{:,.0f}"), ("traces", None),
)


class Row(dict[str, Any]):
    """One table row: column name -> value (numbers as the validator recomputed them)."""


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-") or "run"


def _env_label(run: RunReport) -> str:
    entry = entry_for(run.env_id)
    pinned: dict[str, Any] = {}
    if run.split is not None and entry is not None:
        pinned = entry.split(run.split).kwargs
    extra = {k: v for k, v in run.env_kwargs.items() if pinned.get(k, object()) != v}
    name = run.env_id.split("/")[-1]
    return name + (" (" + ", ".join(f"{k}={json.dumps(v)}" for k, v in extra.items()) + ")"
                   if extra else "")


def _agent_label(agent: dict[str, Any]) -> str:
    """The agent column: its name, with its model and a decoding other than sampling.

    >>> _agent_label({"name": "llm", "model": "smollm2", "decoding": "choice"})
    'llm (smollm2, choice decoding)'
    """
    details = [str(agent["model"])] if agent.get("model") else []
    if agent.get("decoding"):
        details.append(f"{agent['decoding']} decoding")
    return agent["name"] + (f" ({', '.join(details)})" if details else "")


def rows_of(reports: Sequence[ValidationReport]) -> list[tuple[RunReport, Row, str]]:
    """(run, row, run id) for every run of every accepted bundle, in bundle order."""
    out = []
    for b, report in enumerate(reports):
        agent = report.manifest["agent"]
        for f, run in enumerate(report.runs):
            s = run.summary
            env_name = run.env_id.split("/")[-1]
            run_id = f"{b:02d}-{f:03d}-{_slug(run.agent['name'])}-{_slug(env_name)}"
            row = Row({
                "agent": _agent_label(run.agent),
                "description": agent.get("description", ""),
                "prompt": agent.get("prompt", "standard"), "env": _env_label(run),
                "split": run.split or "custom", "episodes": int(s["episodes"]),
                "success": float(s["success_rate"]), "score": float(s["score"]),
                "k": run.trials, "pass^k": float(s[f"pass^{run.trials}"]),
                "mean steps": float(s["mean_steps"]), "tokens": float(s["mean_tokens"]),
                "traces": f"trace.html#{run_id}",
            })
            out.append((run, row, run_id))
    return out


def _cell(column: str, fmt: str | None, row: Row) -> str:
    value = row[column]
    if column == "traces":
        return f'<td><a href="{html.escape(value)}">traces</a></td>'
    if column == "agent":
        tags = '<span class="tag">custom prompt</span>' if row["prompt"] == "custom" else ""
        title = f' title="{html.escape(row["description"])}"' if row["description"] else ""
        return f'<td data-value="{html.escape(value)}"{title}>{html.escape(value)}{tags}</td>'
    if fmt is None:
        return f'<td data-value="{html.escape(str(value))}">{html.escape(str(value))}</td>'
    shown = fmt.format(value)
    if column == "pass^k":
        shown += f' <span class="tag">k={row["k"]}</span>'
    return f'<td class="num" data-value="{value!r}">{shown}</td>'


def _table(rows: Sequence[Row], family: str) -> str:
    num = ' class="num"'
    head = "".join(f'<th{num if fmt else ""} scope="col">{html.escape(name)}</th>'
                   for name, fmt in COLUMNS)
    body = "\n".join("<tr>" + "".join(_cell(name, fmt, row) for name, fmt in COLUMNS) + "</tr>"
                     for row in rows)
    return (f'<table class="sortable" id="table-{_slug(family)}">\n<thead><tr>{head}</tr></thead>'
            f"\n<tbody>\n{body}\n</tbody>\n</table>")


def audit_line(env_ids: Sequence[str], audits: dict[str, dict[str, Any]]) -> str:
    """One paragraph: each env's recorded ``agentgym audit`` status, the agentgym version and
    the budget it ran at, so a reader sees whether the rewards ranked here held up.

    >>> print(audit_line(["agentgym/Sokoban-v0"], {"agentgym/Sokoban-v0": {
    ...     "status": "pass", "agentgym_version": "0.1", "episodes": 3, "budget_s": 2.0}}))
    <p class="audit">Reward audit: Sokoban-v0 <b>pass</b> (agentgym 0.1, 3 seeds, 2 s of search)</p>
    """
    parts = []
    for env_id in env_ids:
        name = html.escape(env_id.split("/")[-1])
        audit = audits.get(env_id)
        if audit is None:
            parts.append(f"{name} <b>not audited</b>")
            continue
        parts.append(f"{name} <b>{html.escape(audit['status'])}</b> (agentgym "
                     f"{html.escape(str(audit['agentgym_version']))}, {audit['episodes']} seeds, "
                     f"{audit['budget_s']:g} s of search)")
    return f'<p class="audit">Reward audit: {"; ".join(parts)}</p>'


def _ticks(low: float, high: float, count: int = 5) -> list[float]:
    step = (high - low) / (count - 1)
    return [low + i * step for i in range(count)]


def nice_top(value: float, intervals: int = 4) -> float:
    """The smallest ``intervals * step`` >= ``value`` with a round step (1, 2, 2.5 or 5 x 10^n).

    >>> nice_top(5.1), nice_top(11.3), nice_top(0.0), nice_top(730)
    (8.0, 20.0, 1.0, 800.0)
    """
    if value <= 0:
        return 1.0
    raw = value / intervals
    magnitude = 10 ** math.floor(math.log10(raw))
    step = next(m * magnitude for m in (1, 2, 2.5, 5, 10) if m * magnitude >= raw)
    return float(step * intervals)


def tick_text(value: float) -> str:
    """A short axis label: ``2500`` is ``2.5k``, ``0.25`` stays ``0.25``.

    >>> [tick_text(v) for v in (0, 2.5, 800, 2000, 2500, 1_500_000)]
    ['0', '2.5', '800', '2k', '2.5k', '1.5M']
    """
    for scale, suffix in ((1e6, "M"), (1e3, "k")):
        if abs(value) >= scale:
            return f"{value / scale:.3g}{suffix}"
    return f"{value:.3g}"


#: Pixels a label character takes at the charts' font size (for the overlap test).
_CHAR_PX = 6.2
_LINE_PX = 12


def place_labels(anchors: Sequence[tuple[float, float, int, bool]], *, top: float = 0.0,
                 bottom: float = float("inf")) -> list[float]:
    """A baseline ``y`` for each label so that no two overlap: the first free slot of above
    its point, higher, higher still, then below, each kept between ``top`` and ``bottom``.

    ``anchors``: ``(x, y, characters, left)`` per label, ``left`` when it is drawn to the left
    of its point. Labels are placed in the order given.

    >>> place_labels([(100, 50, 10, False), (102, 51, 10, False), (300, 50, 4, False)])
    [43.0, 30.0, 43.0]
    """
    step = _LINE_PX + 2
    placed: list[tuple[float, float, float, float]] = []
    out = []
    for x, y, chars, left in anchors:
        width = chars * _CHAR_PX
        x0 = x - 7 - width if left else x + 7
        slots = [y - 7 - i * step for i in range(4)] + [y + 16 + i * step for i in range(2)]
        boxes = [(x0, base - _LINE_PX, x0 + width, base) for base in slots]
        inside = [b for b in boxes if b[1] >= top and b[3] <= bottom] or boxes[:1]
        box = next((b for b in inside
                    if not any(b[0] < p[2] and p[0] < b[2] and b[1] < p[3] and p[1] < b[3]
                               for p in placed)), inside[0])
        placed.append(box)
        out.append(float(box[3]))
    return out


def scatter_svg(points: Sequence[tuple[str, float, float]], x_label: str, y_label: str, *,
                width: int = 360, height: int = 240, y_range: tuple[float, float] = (0, 100)
                ) -> str:
    """An inline SVG scatter plot of ``(label, x, y)`` points, labelled, with axes and ticks."""
    left, right, top, bottom = 44, 24, 20, 36
    xs = [p[1] for p in points] or [0.0]
    x_low, x_high = 0.0, nice_top(max(xs))
    y_low, y_high = y_range

    def px(x: float) -> float:
        return left + (x - x_low) / (x_high - x_low) * (width - left - right)

    def py(y: float) -> float:
        return height - bottom - (y - y_low) / (y_high - y_low) * (height - top - bottom)

    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
             f'viewBox="0 0 {width} {height}" role="img" '
             f'aria-label="{html.escape(y_label)} against {html.escape(x_label)}">']
    for y in _ticks(y_low, y_high):
        parts.append(f'<line class="grid" x1="{left}" x2="{width - right}" y1="{py(y):.1f}" '
                     f'y2="{py(y):.1f}"/><text x="{left - 6}" y="{py(y) + 4:.1f}" '
                     f'text-anchor="end">{y:g}</text>')
    for x in _ticks(x_low, x_high):
        parts.append(f'<text x="{px(x):.1f}" y="{height - bottom + 14}" '
                     f'text-anchor="middle">{tick_text(x)}</text>')
    parts.append(f'<line class="axis" x1="{left}" x2="{width - right}" y1="{height - bottom}" '
                 f'y2="{height - bottom}"/><line class="axis" x1="{left}" x2="{left}" '
                 f'y1="{top}" y2="{height - bottom}"/>')
    parts.append(f'<text x="{(left + width - right) / 2}" y="{height - 4}" '
                 f'text-anchor="middle">{html.escape(x_label)}</text>')
    parts.append(f'<text transform="translate(12 {(top + height - bottom) / 2}) rotate(-90)" '
                 f'text-anchor="middle">{html.escape(y_label)}</text>')
    # Labels right of the middle go left of their point, to stay inside; crowded points get
    # their labels stacked so none covers another.
    lefts = [px(x) > width / 2 for _, x, _ in points]
    baselines = place_labels([(px(x), py(y), len(label), on_left)
                              for (label, x, y), on_left in zip(points, lefts, strict=True)],
                             top=0.0, bottom=height - bottom - 1)
    for (label, x, y), on_left, base in zip(points, lefts, baselines, strict=True):
        parts.append(f'<circle class="point" cx="{px(x):.1f}" cy="{py(y):.1f}" r="5">'
                     f"<title>{html.escape(label)}: {y:.1f} at {x:.3g}</title></circle>"
                     + (f'<text x="{px(x) - 7:.1f}" y="{base:.1f}" text-anchor="end">'
                        if on_left else f'<text x="{px(x) + 7:.1f}" y="{base:.1f}">')
                     + f"{html.escape(label)}</text>")
    parts.append("</svg>")
    return "".join(parts)


def _charts(rows: Sequence[Row]) -> str:
    by_env: dict[str, list[Row]] = {}
    for row in rows:
        by_env.setdefault(row["env"], []).append(row)
    figures = []
    for env, env_rows in by_env.items():
        axes = [("mean steps", "mean steps")]
        if any(r["tokens"] > 0 for r in env_rows):
            axes.append(("tokens", "mean tokens per episode"))
        for column, label in axes:
            points = [(f'{r["agent"]} ({r["split"]})', r[column], r["score"]) for r in env_rows]
            figures.append(f"<figure>{scatter_svg(points, label, 'score')}<figcaption>"
                           f"{html.escape(env)}: score against {html.escape(label)}"
                           "</figcaption></figure>")
    return '<div class="charts">' + "\n".join(figures) + "</div>"


def _page(template: str, root: str, **values: str) -> str:
    text = (_ASSETS / template).read_text(encoding="utf-8")
    return Template(text).substitute(root=root, **values)


def _run_data(run: RunReport, row: Row, run_id: str) -> dict[str, Any]:
    """What the trace viewer shows of a run: its header, the validator's per-episode numbers
    (``records``) and the submitted episodes with their step traces (``episodes``)."""
    meta = (f"{run.env_id} \u00b7 kwargs {json.dumps(run.env_kwargs)} \u00b7 "
            f"{row['episodes']} episodes ({run.trials} trial{'s' * (run.trials != 1)} per "
            "task), replayed and accepted")
    records = [{"task": mine["task"], "trial": mine["trial"], "seed": mine["seed"],
                "success": bool(mine["success"]), "episode_return": mine["episode_return"],
                "steps": mine["steps"],
                "tokens": mine["prompt_tokens"] + mine["completion_tokens"]}
               for mine in run.episodes]
    return {"id": run_id, "title": f"{row['agent']} on {row['env']}", "meta": meta,
            "records": records, "episodes": run.results["episodes"]}


def _trace_data(run: RunReport, row: Row, run_id: str, folder: Path) -> None:
    # One script per run, loaded by trace.html only when that run is opened: a <script> tag
    # works from file:// where fetch() of a JSON file does not. ASCII-only JSON (\u escapes)
    # is a valid JavaScript expression (U+2028/U+2029 included; NaN and Infinity are JS too).
    text = json.dumps(_run_data(run, row, run_id), separators=(",", ":"))
    (folder / f"{run_id}.js").write_text(f"agentgymRun({text});\n", encoding="ascii")


def build_site(reports: Sequence[ValidationReport], out: str | Path, *,
               rejected: Sequence[tuple[str, str]] = ()) -> Path:
    """Write the site for accepted ``reports`` into ``out``; return ``out/index.html``.

    ``rejected``: (bundle name, reason) of bundles left out, listed at the bottom of the page.
    """
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    for asset in _COPIED:
        with (_ASSETS / asset).open("rb") as src, open(out / asset, "wb") as dst:
            shutil.copyfileobj(src, dst)
    traces = out / "traces"
    if traces.is_dir():  # the build's own folder: no run of an earlier build lingers
        shutil.rmtree(traces)
    traces.mkdir()
    runs = rows_of(reports)
    families: dict[str, list[Row]] = {}
    family_ids: dict[str, list[str]] = {}
    for run, row, run_id in runs:
        families.setdefault(run.family, []).append(row)
        ids = family_ids.setdefault(run.family, [])
        if run.env_id not in ids:
            ids.append(run.env_id)
        _trace_data(run, row, run_id, traces)
    sections = []
    audits = recorded_audit()
    for family in sorted(families):
        rows = families[family]
        sections.append(f'<section id="family-{_slug(family)}"><h2>{html.escape(family)}</h2>\n'
                        f"{audit_line(family_ids[family], audits)}\n"
                        f"{_table(rows, family)}\n<h3>Score against cost</h3>\n{_charts(rows)}"
                        "</section>")
    if not sections:
        sections.append("<p>No accepted submissions yet.</p>")
    gone = ""
    if rejected:
        items = "".join(f"<li><b>{html.escape(name)}</b>: {html.escape(why)}</li>"
                        for name, why in rejected)
        gone = f'<section class="rejected"><h2>Rejected bundles</h2><ul>{items}</ul></section>'
    meta = (f"{len(reports)} accepted bundle{'s' * (len(reports) != 1)}, {len(runs)} runs; "
            f"built {datetime.now(UTC):%Y-%m-%d %H:%M} UTC")
    page = _page("index.html", "", title="agentgym leaderboard", meta=html.escape(meta),
                 sections="\n".join(sections), rejected=gone)
    index = out / "index.html"
    index.write_text(page, encoding="utf-8")
    return index
