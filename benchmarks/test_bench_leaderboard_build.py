"""``agentgym leaderboard build``: the time to write the site from a demo's bundles.

Two sets of bundles, one per agent as ``scripts/demo.sh`` makes them:

* ``leaderboard-build-demo``: the demo's slice (every env but Terminal-v0, which needs Docker,
  each with the agents the demo plays, the first 3 test tasks; 26 runs in 8 bundles);
* ``leaderboard-build-games``: oracle and random over the four games' whole test splits (800
  episodes in 8 runs): the per-episode volume that made the old site slow.

Timed per set, each a whole build into a fresh folder:

* ours (primary): the site writer (:func:`~agentgym.leaderboard.site.build_site`);
* ours: what ``leaderboard build`` does after ``leaderboard validate`` accepted the bundles:
  every bundle checked again (safe unpack, sha256, schema, kwargs, manifest), its replay
  verdict reused (:mod:`agentgym.leaderboard.verdicts`), the site written;
* ours: ``build --replay``: every trace replayed again, then the site;
* reference (side ``peer``, no library): the site writer as it was before issue 35, one trace
  page per run and one indented JSON file per episode (kept below; the ratio is against it,
  like for like: it writes the trace pages, ours the whole site).

    .venv/bin/pytest benchmarks/test_bench_leaderboard_build.py \
        --benchmark-json=.benchmarks/lbb.json
    .venv/bin/python benchmarks/report.py .benchmarks/lbb.json
"""

from __future__ import annotations

import html
import json
import shutil
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest
from bench_common import describe, scaled

import agentgym
from agentgym.evaluation import evaluate
from agentgym.leaderboard.manifest import GitState
from agentgym.leaderboard.site import _ASSETS, _page, build_site, rows_of
from agentgym.leaderboard.submit import submit
from agentgym.leaderboard.validate import ValidationReport, validate_bundle
from agentgym.leaderboard.verdicts import VerdictCache

CLEAN = GitState("0" * 40, False, "checkout")
#: The demo's family baselines per env (scripts/demo.sh plays oracle and random everywhere).
BASELINES = {
    "agentgym/WebShop-v0": ["webshop-rule"],
    "agentgym/Negotiation-v0": ["negotiation-fair"],
    "agentgym/BazaarB2C-v0": ["bazaar-b2c-baseline"],
    "agentgym/BazaarC2C-v0": ["bazaar-c2c-baseline"],
    "agentgym/Household-v0": ["household-heuristic"],
    "agentgym/SearchQA-v0": ["searchqa-question"],
}
GAMES = ("agentgym/Sokoban-v0", "agentgym/Sudoku-v0", "agentgym/Minesweeper-v0",
         "agentgym/TicTacToe-v0")


def _demo_runs() -> list[tuple[str, str, int | None]]:
    # As scripts/demo.sh: 3 tasks each, 1 for BazaarB2C's oracle (it searches ~3 s per task).
    return [(entry.id, agent, 1 if (entry.id, agent) == ("agentgym/BazaarB2C-v0", "oracle")
             else 3)
            for entry in agentgym.ENVIRONMENTS if entry.family != "terminal"
            for agent in ("oracle", "random", *BASELINES.get(entry.id, []))]


def _games_runs() -> list[tuple[str, str, int | None]]:
    return [(env_id, agent, None) for env_id in GAMES for agent in ("oracle", "random")]


WORKLOADS = {"leaderboard-build-demo": _demo_runs, "leaderboard-build-games": _games_runs}


@pytest.fixture(scope="module", params=sorted(WORKLOADS))
def workload(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
             ) -> tuple[str, list[Path], VerdictCache, list[ValidationReport]]:
    group = request.param
    folder = tmp_path_factory.mktemp(group)
    by_agent: dict[str, list[Path]] = {}
    for env_id, agent, limit in WORKLOADS[group]():
        report = evaluate(env_id, agent, split="test", limit=limit, progress=False)
        name = env_id.split("/")[-1]
        by_agent.setdefault(agent, []).append(report.write(folder / f"{name}-{agent}.json"))
    bundles = [folder / f"{agent}.tar.gz" for agent in by_agent]
    for bundle, paths in zip(bundles, by_agent.values(), strict=True):
        submit(paths, bundle, git=CLEAN)
    verdicts = VerdictCache(folder / "verdicts")
    reports = [validate_bundle(b, verdicts=verdicts) for b in bundles]  # `leaderboard validate`
    return group, bundles, verdicts, reports


def _fresh(build: Callable[[Path], Any]) -> Callable[[], Any]:
    def run() -> Any:
        out = Path(tempfile.mkdtemp(prefix="agentgym-site-"))
        try:
            return build(out)
        finally:
            shutil.rmtree(out)
    return run


def _episodes(reports: Sequence[ValidationReport]) -> int:
    return sum(report.episodes for report in reports)


def test_build_reusing_verdicts(benchmark: Any, workload: Any) -> None:
    group, bundles, verdicts, reports = workload
    describe(benchmark, group=group, side="agentgym", variant="build", unit="episode",
             impl="leaderboard build after validate (checks, verdicts reused, site)",
             per_round=_episodes(reports))

    def build(out: Path) -> list[ValidationReport]:
        again = [validate_bundle(b, verdicts=verdicts, reuse=True) for b in bundles]
        build_site(again, out)
        return again

    again = benchmark.pedantic(_fresh(build), rounds=scaled(5), warmup_rounds=1)
    assert all(r.reused_from for r in again)


def test_site_writer(benchmark: Any, workload: Any) -> None:
    group, _, _, reports = workload
    describe(benchmark, group=group, side="agentgym", primary=True, unit="episode",
             impl="build_site (index, trace viewer, one data file per run)",
             per_round=_episodes(reports))
    benchmark.pedantic(_fresh(lambda out: build_site(reports, out)), rounds=scaled(5),
                       warmup_rounds=1)


def test_build_replaying(benchmark: Any, workload: Any) -> None:
    group, bundles, _, reports = workload
    describe(benchmark, group=group, side="agentgym", variant="--replay", unit="episode",
             impl="leaderboard build --replay (every trace replayed, site)",
             per_round=_episodes(reports))

    def build(out: Path) -> None:
        build_site([validate_bundle(b) for b in bundles], out)

    benchmark.pedantic(_fresh(build), rounds=scaled(3), warmup_rounds=0)


# ---- the site writer before issue 35 (reference) -----------------------------------------
def _old_trace_page(run: Any, row: dict[str, Any], run_id: str, out: Path) -> None:
    folder = out / "traces" / run_id
    folder.mkdir(parents=True, exist_ok=True)
    lines = []
    for i, (claimed, mine) in enumerate(zip(run.results["episodes"], run.episodes, strict=True)):
        name = f"episode-{i:04d}.json"
        (folder / name).write_text(json.dumps(claimed, indent=1) + "\n", encoding="utf-8")
        lines.append(
            f'<tr><td class="num" data-value="{i}">{i}</td><td class="num">{mine["task"]}</td>'
            f'<td class="num">{mine["trial"]}</td><td class="num">{mine["seed"]}</td>'
            f'<td data-value="{int(mine["success"])}">{"yes" if mine["success"] else "no"}</td>'
            f'<td class="num" data-value="{mine["episode_return"]!r}">'
            f'{mine["episode_return"]:.3f}</td><td class="num">{mine["steps"]}</td>'
            f'<td class="num">{mine["prompt_tokens"] + mine["completion_tokens"]}</td>'
            f'<td><a href="{name}">{name}</a></td></tr>')
    head = "".join(f"<th>{h}</th>" for h in ("episode", "task", "trial", "seed", "success",
                                               "return", "steps", "tokens", "trace"))
    body = (f'<table class="sortable"><thead><tr>{head}</tr></thead><tbody>\n'
            + "\n".join(lines) + "\n</tbody></table>")
    meta = (f"{html.escape(run.env_id)} &middot; kwargs {html.escape(json.dumps(run.env_kwargs))}"
            f" &middot; {row['episodes']} episodes, replayed and accepted")
    page = _page("index.html", "../../", title=html.escape(row["agent"]), meta=meta,
                 sections=body, rejected="")
    (folder / "index.html").write_text(page, encoding="utf-8")


def _old_site(reports: Sequence[ValidationReport], out: Path) -> None:
    for asset in ("style.css", "sort.js"):
        shutil.copyfile(str(_ASSETS / asset), out / asset)
    for run, row, run_id in rows_of(reports):
        _old_trace_page(run, row, run_id, out)


def test_old_site_writer(benchmark: Any, workload: Any) -> None:
    group, _, _, reports = workload
    describe(benchmark, group=group, side="peer", variant="site only", unit="episode",
             impl="the trace pages before issue 35 (a page per run, a JSON file per episode)",
             per_round=_episodes(reports))
    benchmark.pedantic(_fresh(lambda out: _old_site(reports, out)), rounds=scaled(5),
                       warmup_rounds=1)
