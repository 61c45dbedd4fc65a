"""Household vs TextWorld's PDDL engine, side by side in one run, when the peer lives elsewhere.

``benchmarks/test_bench_household.py`` times both sides in one process where the ``alfworld``
extra is installed. This script does the same comparison when TextWorld lives in another
Python (it pins NumPy 2.4 and spaCy, which agentgym's venv need not take)::

    .venv/bin/python benchmarks/household_textworld.py --peer-python /path/to/alfvenv/bin/python

Both sides play the same 30 generated tasks (5 seeds of each type) with the planner's plans;
both compute the admissible commands every step. The peer side runs this file with
``--peer CASES.json`` and imports only textworld and alfworld.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time


def _peer(path: str) -> None:
    import alfworld
    from textworld.core import EnvInfos
    from textworld.envs.pddl import PddlEnv

    data = os.path.join(os.path.dirname(alfworld.__file__), "data")
    with open(os.path.join(data, "alfred.pddl")) as f:
        domain = f.read()
    with open(os.path.join(data, "alfred.twl2")) as f:
        grammar = f.read()
    with open(path) as f:
        cases = json.load(f)
    reset_s = step_s = 0.0
    steps = 0
    for case in cases:
        start = time.perf_counter()
        env = PddlEnv(EnvInfos(admissible_commands=True))
        env.load({"pddl_domain": domain, "grammar": grammar, "pddl_problem": case["problem"]})
        env.reset()
        mid = time.perf_counter()
        for command in case["plan"]:
            env.step(command)
        reset_s += mid - start
        step_s += time.perf_counter() - mid
        steps += len(case["plan"])
    print(json.dumps({"reset_ms": 1e3 * reset_s / len(cases), "steps_per_s": steps / step_s}))


def _serve(path: str) -> None:
    """``--serve CASES.json``: answer one JSON line per request on stdin, for
    ``test_bench_household.py`` (``{"cmd": "steps"}`` plays every case's plan in a new env,
    ``{"cmd": "reset"}`` makes, loads and resets one env on the first case), with the time this
    process took (``inner_s``)."""
    import alfworld
    from textworld.core import EnvInfos
    from textworld.envs.pddl import PddlEnv

    data = os.path.join(os.path.dirname(alfworld.__file__), "data")
    with open(os.path.join(data, "alfred.pddl")) as f:
        domain = f.read()
    with open(os.path.join(data, "alfred.twl2")) as f:
        grammar = f.read()
    with open(path) as f:
        games = [({"pddl_domain": domain, "grammar": grammar, "pddl_problem": case["problem"]},
                  case["plan"]) for case in json.load(f)]
    print(json.dumps({"ready": True, "textworld": _version("textworld"),
                      "alfworld": _version("alfworld")}), flush=True)
    for line in sys.stdin:
        cmd = json.loads(line)["cmd"]
        start = time.perf_counter()
        for game, plan in games if cmd == "steps" else games[:1]:
            env = PddlEnv(EnvInfos(admissible_commands=True))
            env.load(game)
            env.reset()
            for command in plan if cmd == "steps" else []:
                env.step(command)
        print(json.dumps({"inner_s": time.perf_counter() - start}), flush=True)


def _version(dist: str) -> str:
    from importlib.metadata import version

    return version(dist)


def _ours(peer_python: str | None, repeats: int) -> None:
    import gymnasium as gym
    import numpy as np

    import agentgym  # noqa: F401  (registers the ids)
    from agentgym.environments.household.generator import generate
    from agentgym.environments.household.pddl import pddl_command, problem
    from agentgym.environments.household.planner import Planner
    from agentgym.environments.household.tasks import TASK_TYPES
    from agentgym.environments.household.world import command, start_state

    tasks, cases = [], []
    for task_type in TASK_TYPES:
        for seed in range(5):
            ep = generate(np.random.default_rng(seed), split="train", task_type=task_type)
            plan = [command(ep.scene, a)
                    for a in Planner(ep.scene, ep.task).plan(start_state(ep.scene, ep.where))]
            tasks.append((task_type, seed, plan))
            cases.append({"problem": problem(ep.scene, ep.where, ep.task),
                          "plan": [pddl_command(c) for c in plan]})
    for score_process in (True, False):
        envs = {t: gym.make("agentgym/Household-v0", task_type=t, score_process=score_process)
                for t in TASK_TYPES}
        reset_s = step_s = 0.0
        steps = 0
        for _ in range(repeats):
            for task_type, seed, plan in tasks:
                start = time.perf_counter()
                envs[task_type].reset(seed=seed)
                mid = time.perf_counter()
                for text in plan:
                    envs[task_type].step(text)
                reset_s += mid - start
                step_s += time.perf_counter() - mid
                steps += len(plan)
        print(f"agentgym score_process={score_process}: reset "
              f"{1e3 * reset_s / (repeats * len(tasks)):.3f} ms, {steps / step_s:,.0f} steps/s")
    if peer_python:
        with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
            json.dump(cases, f)
        out = subprocess.run([peer_python, __file__, "--peer", f.name], capture_output=True,
                             text=True, check=True)
        peer = json.loads(out.stdout.strip().splitlines()[-1])
        print(f"textworld PddlEnv: reset {peer['reset_ms']:.1f} ms, "
              f"{peer['steps_per_s']:.1f} steps/s ({len(cases)} tasks, one pass)")
        os.unlink(f.name)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--peer", help=argparse.SUPPRESS)
    parser.add_argument("--serve", help=argparse.SUPPRESS)
    parser.add_argument("--peer-python", help="a Python with alfworld and textworld")
    parser.add_argument("--repeats", type=int, default=20)
    args = parser.parse_args()
    if args.peer:
        _peer(args.peer)
    elif args.serve:
        _serve(args.serve)
    else:
        _ours(args.peer_python or os.environ.get("AGENTGYM_ALFWORLD_PYTHON"), args.repeats)


if __name__ == "__main__":
    sys.exit(main())
