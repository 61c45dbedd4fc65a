"""Household: reset and step throughput against TextWorld's PDDL engine on the same tasks.

Both sides play the same generated tasks (:mod:`agentgym.environments.household.pddl`
writes each one as a problem for ALFWorld's own ``alfred.pddl``) and replay the same
planner plans; both compute the admissible commands every step. The peer needs the
``alfworld`` extra (``pip install "agentgym[alfworld]"``) and is skipped without it.
"""

from __future__ import annotations

import os
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


def _textworld() -> tuple[Any, Any, str, str]:
    pddl = pytest.importorskip("textworld.envs.pddl", reason="the alfworld extra is absent")
    alfworld = pytest.importorskip("alfworld", reason="the alfworld extra is absent")
    from textworld.core import EnvInfos

    data = os.path.join(os.path.dirname(alfworld.__file__), "data")
    with open(os.path.join(data, "alfred.pddl")) as f:
        domain = f.read()
    with open(os.path.join(data, "alfred.twl2")) as f:
        grammar = f.read()
    return pddl.PddlEnv, EnvInfos, domain, grammar


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


def test_household_steps_textworld_pddl(benchmark: Any) -> None:
    PddlEnv, EnvInfos, domain, grammar = _textworld()
    games = [{"pddl_domain": domain, "grammar": grammar,
              "pddl_problem": problem(e.scene, e.where, e.task)} for *_, e, _ in PLANS]
    steps = sum(len(p) for *_, p in PLANS)

    def play() -> None:
        for game, (*_, plan) in zip(games, PLANS, strict=True):
            env = PddlEnv(EnvInfos(admissible_commands=True))
            env.load(game)
            env.reset()
            for text in plan:
                env.step(pddl_command(text))

    describe(benchmark, group="household-steps", side="peer", impl="textworld PddlEnv",
             peer="textworld", unit="step", per_round=steps)
    benchmark.pedantic(play, rounds=3, warmup_rounds=0)


def test_household_reset_agentgym(benchmark: Any) -> None:
    env = make_ours(ENV_ID)
    seeds = iter(range(10**9))
    describe(benchmark, group="household-reset", side="agentgym", impl="agentgym",
             unit="reset", primary=True)
    benchmark(lambda: env.reset(seed=next(seeds)))


def test_household_reset_textworld_pddl(benchmark: Any) -> None:
    PddlEnv, EnvInfos, domain, grammar = _textworld()
    _, _, episode, _ = PLANS[0]
    game = {"pddl_domain": domain, "grammar": grammar,
            "pddl_problem": problem(episode.scene, episode.where, episode.task)}

    def reset() -> None:
        env = PddlEnv(EnvInfos(admissible_commands=True))
        env.load(game)
        env.reset()

    describe(benchmark, group="household-reset", side="peer", impl="textworld PddlEnv",
             peer="textworld", unit="reset")
    benchmark.pedantic(reset, rounds=3, warmup_rounds=0)
