"""Leaderboard validation: replaying a results file against the env, per step of trace.

Ours (primary): :func:`agentgym.leaderboard.validate.validate_results` on one results file --
the schema's type checks, the task-set and episode-set checks, every episode replayed with
every step compared, totals and the summary recomputed. Peer: the plain Gymnasium loop on the
same env, ``reset(seed)`` then ``step`` of the very same actions, nothing checked. Both make
their env inside the timed call. The ratio is the validator's overhead over just stepping the
env; ``validate bundle`` adds the archive work (safe unpack, sha256, JSON parse) on top.

    .venv/bin/pytest benchmarks/test_leaderboard_validate.py --benchmark-json=.benchmarks/lb.json
    .venv/bin/python benchmarks/report.py .benchmarks/lb.json
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import gymnasium as gym
import pytest
from bench_common import describe, scaled

from agentgym.evaluation import evaluate
from agentgym.leaderboard.manifest import GitState
from agentgym.leaderboard.submit import submit
from agentgym.leaderboard.validate import validate_bundle, validate_results

#: (group, env id, kwargs, agent, tasks): workloads of about 1,000 steps each.
WORKLOADS = [
    ("leaderboard-validate-sokoban", "agentgym/Sokoban-v0", {"size": 6, "boxes": 1}, "random",
     140),
    ("leaderboard-validate-tictactoe", "agentgym/TicTacToe-v0", {}, "random", 300),
]
CLEAN = GitState("0" * 40, False, "checkout")


@pytest.fixture(scope="module", params=WORKLOADS, ids=[w[0] for w in WORKLOADS])
def workload(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
             ) -> tuple[str, dict[str, Any], Path]:
    group, env_id, kwargs, agent, tasks = request.param
    folder = tmp_path_factory.mktemp(group)
    report = evaluate(env_id, agent, seed=0, episodes=tasks, env_kwargs=kwargs, progress=False)
    path = report.write(folder / "results.json")
    submit([path], folder / "bundle.tar.gz", git=CLEAN)
    return group, json.loads(path.read_text()), folder / "bundle.tar.gz"


def _steps(data: dict[str, Any]) -> int:
    return sum(len(ep["trace"]) for ep in data["episodes"])


def test_validate_replay(benchmark: Any, workload: tuple[str, dict[str, Any], Path]) -> None:
    group, data, _ = workload
    describe(benchmark, group=group, side="agentgym", impl="validate_results (replay + checks)",
             unit="step", per_round=_steps(data), primary=True)
    run = benchmark.pedantic(validate_results, args=(data, "results.json"),
                             rounds=scaled(5), warmup_rounds=1)
    assert run.summary == data["summary"]


def test_plain_env_stepping(benchmark: Any, workload: tuple[str, dict[str, Any], Path]) -> None:
    group, data, _ = workload
    describe(benchmark, group=group, side="peer", impl="plain gym loop, same actions",
             unit="step", per_round=_steps(data))
    plays = [(ep["seed"], [s["action"] for s in ep["trace"]]) for ep in data["episodes"]]

    def play() -> int:
        env = gym.make(data["env_id"], **data["env_kwargs"])
        n = 0
        for seed, actions in plays:
            env.reset(seed=seed)
            for action in actions:
                env.step(action)
                n += 1
        env.close()
        return n

    assert benchmark.pedantic(play, rounds=scaled(5), warmup_rounds=1) == _steps(data)


def test_validate_whole_bundle(benchmark: Any,
                               workload: tuple[str, dict[str, Any], Path]) -> None:
    group, data, bundle = workload
    describe(benchmark, group=group, side="agentgym", variant="whole bundle",
             impl="validate_bundle (unpack, sha256, JSON, replay)", unit="step",
             per_round=_steps(data))
    report = benchmark.pedantic(validate_bundle, args=(bundle,), rounds=scaled(5),
                                warmup_rounds=1)
    assert report.steps == _steps(data)
