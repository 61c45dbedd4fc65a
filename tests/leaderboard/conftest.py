"""Fixtures of the leaderboard tests: honest results files and bundles of them.

Results files come from ``agentgym.evaluation.evaluate`` (schema ``agentgym.eval/2``) on fast
envs: TicTacToe, Sudoku 4x4, Sokoban 6x6 with one box, two trials per task.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from lb_helpers import CLEAN, RUNS, TRIALS, Edit, forge_bundle

from agentgym.evaluation import evaluate
from agentgym.leaderboard.submit import submit


@pytest.fixture(scope="session")
def results_files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[Path]]:
    """agent -> its results files (one per run of :data:`RUNS`)."""
    folder = tmp_path_factory.mktemp("results")
    out: dict[str, list[Path]] = {}
    for agent in ("oracle", "random"):
        for env_id, kwargs, tasks in RUNS:
            report = evaluate(env_id, agent, split="test", limit=tasks, trials=TRIALS,
                              env_kwargs=kwargs, progress=False)
            name = f"{agent}-{env_id.split('/')[-1]}.json"
            out.setdefault(agent, []).append(report.write(folder / name))
    return out


@pytest.fixture(scope="session")
def bundles(results_files: dict[str, list[Path]],
            tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """agent -> an honest bundle of all its results files, from a clean tree."""
    folder = tmp_path_factory.mktemp("bundles")
    return {
        agent: _bundle(paths, folder / f"{agent}.tar.gz", f"the {agent} baseline")
        for agent, paths in results_files.items()
    }


def _bundle(paths: list[Path], out: Path, description: str) -> Path:
    submit(paths, out, agent_description=description, git=CLEAN)
    return out


@pytest.fixture(autouse=True)
def verdict_cache(tmp_path_factory: pytest.TempPathFactory,
                  monkeypatch: pytest.MonkeyPatch) -> Path:
    """Each test's own cache root: `leaderboard validate` records verdicts under it."""
    root = tmp_path_factory.mktemp("cache")
    monkeypatch.setenv("AGENTGYM_CACHE", str(root))
    return root / "leaderboard" / "verdicts"


@pytest.fixture
def forge(tmp_path: Path) -> Callable[[Path, Edit], Path]:
    """``forge(bundle, edit)``: a copy of ``bundle`` after ``edit(manifest, results)``."""
    return lambda bundle, edit: forge_bundle(bundle, edit, tmp_path / "forged.tar.gz")
