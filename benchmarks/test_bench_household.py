"""Household: reset and step throughput against TextWorld's PDDL engine on the same tasks.

Both sides play the same generated tasks (:mod:`agentgym.environments.household.pddl`
writes each one as a problem for ALFWorld's own ``alfred.pddl``) and replay the same
planner plans; both compute the admissible commands every step. The peer needs alfworld and
textworld: imported here where this venv has the ``alfworld`` extra, else run in the Python
of ``$AGENTGYM_ALFWORLD_PYTHON`` or ``.venv-alfworld`` (``scripts/setup_alfworld.sh``, which
``scripts/bench.sh`` runs: alfworld pins numpy and pulls spaCy, so it gets a venv of its own)
as a subprocess (``household_textworld.py --serve``) timed per round trip, its own clock in
``peer_inner``. Without either it is skipped, saying so.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from bench_common import describe, make_ours, scaled

from agentgym.environments.household.generator import generate
from agentgym.environments.household.pddl import pddl_command, problem
from agentgym.environments.household.planner import Planner
from agentgym.environments.household.tasks import TASK_TYPES
from agentgym.environments.household.world import command, start_state

ENV_ID = "agentgym/Household-v0"
TASKS = [(t, s) for t in TASK_TYPES for s in range(2)]


def _plans() -> list[tuple[str, int, Any, list[str]]]:
    out = []
    for task_type, seed in TASKS:
        episode = generate(np.random.default_rng(seed), split="train", task_type=task_type)
        plan = Planner(episode.scene, episode.task).plan(start_state(episode.scene,
                                                                     episode.where))
        out.append((task_type, seed, episode, [command(episode.scene, a) for a in plan]))
    return out


PLANS = _plans()


_REPO = Path(__file__).resolve().parent.parent


def _alfworld_python() -> Path | None:
    explicit = os.environ.get("AGENTGYM_ALFWORLD_PYTHON")
    path = Path(explicit) if explicit else _REPO / ".venv-alfworld" / "bin" / "python"
    return path if path.is_file() else None


class _Peer:
    """TextWorld's ``PddlEnv`` on the cases: ``steps()`` plays every plan in a new env,
    ``reset()`` makes, loads and resets one env; in this process or in the alfworld venv."""

    def __init__(self, cases: list[dict[str, Any]]) -> None:
        self.inner: list[float] = []
        self.proc: subprocess.Popen[str] | None = None
        try:
            self._in_process(cases)
            return
        except ImportError as exc:
            missing = exc
        python = _alfworld_python()
        if python is None:
            pytest.skip(f"TextWorld peer: the alfworld extra is absent here ({missing}) and "
                        "there is no .venv-alfworld (scripts/setup_alfworld.sh, run by "
                        "scripts/bench.sh; or set AGENTGYM_ALFWORLD_PYTHON)")
        with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
            json.dump(cases, f)
        self.proc = subprocess.Popen(
            [str(python), str(Path(__file__).with_name("household_textworld.py")), "--serve",
             f.name], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        hello = self.proc.stdout.readline() if self.proc.stdout else ""
        os.unlink(f.name)
        if not hello:
            self.close()
            pytest.skip(f"TextWorld peer in {python} does not start (see its stderr above)")
        self.versions = json.loads(hello)
        self.steps = lambda: self._call("steps")
        self.reset = lambda: self._call("reset")

    def _in_process(self, cases: list[dict[str, Any]]) -> None:
        import alfworld
        from textworld.core import EnvInfos
        from textworld.envs.pddl import PddlEnv

        data = os.path.join(os.path.dirname(alfworld.__file__), "data")
        with open(os.path.join(data, "alfred.pddl")) as f:
            domain = f.read()
        with open(os.path.join(data, "alfred.twl2")) as f:
            grammar = f.read()
        games = [({"pddl_domain": domain, "grammar": grammar, "pddl_problem": c["problem"]},
                  c["plan"]) for c in cases]

        def run(plans: bool) -> None:
            for game, plan in games if plans else games[:1]:
                env = PddlEnv(EnvInfos(admissible_commands=True))
                env.load(game)
                env.reset()
                for text in plan if plans else []:
                    env.step(text)

        self.steps: Callable[[], None] = lambda: run(True)
        self.reset: Callable[[], None] = lambda: run(False)
        self.versions = {"where": "in process"}

    def _call(self, cmd: str) -> None:
        assert self.proc is not None and self.proc.stdin and self.proc.stdout
        self.proc.stdin.write(json.dumps({"cmd": cmd}) + "\n")
        self.proc.stdin.flush()
        self.inner.append(json.loads(self.proc.stdout.readline())["inner_s"])

    def close(self) -> None:
        if self.proc is not None:
            if self.proc.stdin:
                self.proc.stdin.close()
            self.proc.wait(timeout=30)

    def extra(self) -> dict[str, Any]:
        info: dict[str, Any] = {"peer_process": self.versions}
        if self.inner:
            info["peer_inner"] = {"median_s": statistics.median(self.inner),
                                  "min_s": min(self.inner), "n": len(self.inner)}
        return info


@pytest.fixture(scope="module")
def textworld() -> Iterator[Callable[[list[dict[str, Any]]], _Peer]]:
    peers: list[_Peer] = []

    def make(cases: list[dict[str, Any]]) -> _Peer:
        peers.append(_Peer(cases))
        return peers[-1]

    yield make
    for peer in peers:
        peer.close()


def _cases(plans: list[tuple[str, int, Any, list[str]]]) -> list[dict[str, Any]]:
    return [{"problem": problem(e.scene, e.where, e.task), "plan": [pddl_command(t) for t in p]}
            for *_, e, p in plans]


@pytest.mark.parametrize("score_process", [True, False], ids=["process", "outcome-only"])
def test_household_steps_agentgym(benchmark: Any, score_process: bool) -> None:
    """Replay the plans (reset untimed would need snapshots; a reset costs < 1 ms)."""
    envs = {t: make_ours(ENV_ID, task_type=t, score_process=score_process) for t in TASK_TYPES}
    steps = sum(len(p) for *_, p in PLANS)

    def play() -> None:
        for task_type, seed, _, plan in PLANS:
            env = envs[task_type]
            env.reset(seed=seed)
            for text in plan:
                env.step(text)

    describe(benchmark, group="household-steps", side="agentgym", impl="agentgym",
             unit="step", per_round=steps, primary=score_process,
             variant="" if score_process else "score_process=False")
    benchmark.pedantic(play, rounds=scaled(20), warmup_rounds=1)


def test_household_steps_textworld_pddl(benchmark: Any, textworld: Any) -> None:
    peer = textworld(_cases(PLANS))
    steps = sum(len(p) for *_, p in PLANS)
    describe(benchmark, group="household-steps", side="peer", impl="textworld PddlEnv",
             peer="textworld", unit="step", per_round=steps)
    benchmark.pedantic(peer.steps, rounds=3, warmup_rounds=0)
    benchmark.extra_info.update(peer.extra())


def test_household_reset_agentgym(benchmark: Any) -> None:
    env = make_ours(ENV_ID)
    seeds = iter(range(10**9))
    describe(benchmark, group="household-reset", side="agentgym", impl="agentgym",
             unit="reset", primary=True)
    benchmark(lambda: env.reset(seed=next(seeds)))


def test_household_reset_textworld_pddl(benchmark: Any, textworld: Any) -> None:
    peer = textworld(_cases(PLANS[:1]))
    describe(benchmark, group="household-reset", side="peer", impl="textworld PddlEnv",
             peer="textworld", unit="reset")
    benchmark.pedantic(peer.reset, rounds=3, warmup_rounds=0)
    benchmark.extra_info.update(peer.extra())
