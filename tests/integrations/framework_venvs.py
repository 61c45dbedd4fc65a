"""Shared by the framework adapter tests: scripted episodes played locally, the frameworks'
venvs (made by scripts/setup_frameworks.sh) and the drivers that run in them.

A scripted episode is played on a local ``gym.make`` in this process first; its actions are
then replayed through a framework's own API (in this process, or by a driver in the
framework's venv), locally and on ``agentgym serve``, and every step's reward must be equal.
The script mixes the oracle's move with an invalid action and a legal non-oracle move, so the
rewards are not all equal and the invalid-action penalty is exercised.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import gymnasium as gym
import pytest

import agentgym  # noqa: F401  (registers the ids)

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT / "tests" / "server"))

TICTACTOE, WEBSHOP = "agentgym/TicTacToe-v0", "agentgym/WebShop-v0"
#: (env id, seed, reward mode): two ids, each reward mode at least once.
CASES = (
    (TICTACTOE, 3, "both"),
    (TICTACTOE, 4, "outcome"),
    (WEBSHOP, 2, "both"),
    (WEBSHOP, 5, "process"),
)
#: Framework venvs: name -> (venv folder in the agentgym cache, variable naming another python).
VENVS = {
    "nemo-gym": ("nemo-gym-0.7.0", "AGENTGYM_NEMO_GYM_PYTHON"),
    "verl": ("verl-0.9.1", "AGENTGYM_VERL_PYTHON"),
}


def scripted_episode(env_id: str, seed: int, reward: str) -> dict[str, Any]:
    """Play ``env_id`` locally: step 1 invalid, step 2 a seeded random legal move, then the
    oracle's moves to the end. Returns the actions and what the env answered to each."""
    env = gym.make(env_id, reward_mode=reward)
    rng = random.Random(seed)
    try:
        observation, info = env.reset(seed=seed)
        record: dict[str, Any] = {"env_id": env_id, "seed": seed, "reward": reward,
                                  "first_observation": observation, "actions": [], "steps": []}
        done = False
        while not done:
            n = len(record["actions"])
            legal = info.get("available_actions") or []
            if n == 0:
                action = "<action>not a move at all</action>"
            elif n == 1 and legal:
                action = rng.choice(legal)
            else:
                oracle = env.unwrapped.oracle_actions()
                action = oracle[0] if oracle else (legal[0] if legal else "nothing")
            observation, r, terminated, truncated, info = env.step(action)
            done = terminated or truncated
            record["actions"].append(action)
            record["steps"].append({
                "observation": observation, "reward": float(r), "terminated": terminated,
                "truncated": truncated, "success": bool(info["success"]),
                "reward_components": info["reward_components"],
            })
        return record
    finally:
        env.close()


def framework_python(name: str) -> str:
    """The framework venv's python: ``$AGENTGYM_<NAME>_PYTHON``, else the cached venv; skips,
    saying why, when neither exists."""
    folder, variable = VENVS[name]
    if os.environ.get(variable):
        return os.environ[variable]
    from agentgym.cache import cache_dir

    venv = cache_dir("venvs", folder)
    python = venv / "bin" / "python"
    if python.exists() and (venv / ".complete").exists():  # .complete: the build finished
        return str(python)
    pytest.skip(f"SKIPPED {name} adapter check: no {python} (run bash scripts/setup_frameworks.sh "
                f"{name}, or set {variable})")


def run_driver(python: str, driver: str, payload: dict[str, Any], timeout: float = 600) -> Any:
    """Run ``tests/integrations/<driver>`` with ``python``, ``payload`` as JSON on stdin; its
    last stdout line is the JSON answer."""
    out = subprocess.run([python, str(HERE / driver)], input=json.dumps(payload),
                         capture_output=True, text=True, timeout=timeout, cwd=ROOT, check=False)
    assert out.returncode == 0, out.stderr[-4000:]
    return json.loads(out.stdout.strip().splitlines()[-1])


def assert_same_steps(expected: dict[str, Any], got: list[dict[str, Any]], where: str) -> None:
    """Step for step: the same reward, ending and success as the local episode."""
    steps = expected["steps"]
    assert len(got) == len(steps), (where, len(got), len(steps))
    for i, (want, have) in enumerate(zip(steps, got, strict=True)):
        context = (where, expected["env_id"], expected["seed"], i, expected["actions"][i])
        assert have["reward"] == want["reward"], context
        assert have["terminated"] == want["terminated"], context
        assert have["truncated"] == want["truncated"], context
        assert have["success"] == want["success"], context
        assert have["reward_components"] == want["reward_components"], context
