"""agentgym envs through verifiers' own API (``agentgym.integrations.verifiers``), in-process and
through ``agentgym serve``, rewards equal to the local env's step for step.

verifiers 0.4 cannot share the project's .venv (it pins mcp==2.0.0 and openai<3), so it runs
in ``.venv-verifiers``, made by ``scripts/setup_verifiers.sh`` (which CI's ``scripts/test.sh``
runs; cached under the agentgym cache between runs). ``verifiers_driver.py`` plays the episodes
there with ``Env.run_episode`` against a scripted OpenAI-compatible model; this side computes
the scripts and the expected rewards with the local env in the project's venv.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import gymnasium as gym
import pytest

import agentgym  # noqa: F401 (registers the ids)

ROOT = Path(__file__).resolve().parents[2]
VENV_PYTHON = ROOT / ".venv-verifiers" / "bin" / "python"
DRIVER = Path(__file__).with_name("verifiers_driver.py")
TTT, WEBSHOP = "agentgym/TicTacToe-v0", "agentgym/WebShop-v0"
MAX_TURNS = 20
TOKEN = "verifiers-test-token"

pytestmark = pytest.mark.slow


def _python() -> str:
    if not VENV_PYTHON.exists():
        pytest.skip("SKIPPED verifiers adapter: no .venv-verifiers (bash scripts/setup_verifiers.sh"
                    "; scripts/test.sh runs it)")
    return str(VENV_PYTHON)


def _pick(step: int, info: dict[str, Any]) -> str:
    """A scripted move: mostly legal (buying when the page offers it), now and then invalid."""
    legal = info.get("available_actions") or []
    if step == 5:  # an oversized reply: the env refuses it the same way on both sides
        return "<action>" + "9" * 5000 + "</action>"
    if step % 4 == 3 or not legal:
        return "not a move"
    for action in legal:
        if "buy now" in action.lower():
            return action
    return legal[-1] if step % 2 else legal[0]


def _script(env_id: str, seed: int, reward: str) -> tuple[list[str], list[float], dict[str, Any]]:
    """The moves, the local env's rewards for them and its last info."""
    env = gym.make(env_id, reward_mode=reward)
    _, info = env.reset(seed=seed)
    actions, rewards = [], []
    for step in range(MAX_TURNS):
        action = _pick(step, info)
        _, reward_value, terminated, truncated, info = env.step(action)
        actions.append(action)
        rewards.append(float(reward_value))
        if terminated or truncated:
            break
    env.close()
    return actions, rewards, info


def _drive(runs: list[tuple[str, str, list[int]]], tmp_path: Path, server_url: str | None = None,
           env: dict[str, str] | None = None, via: str = "adapter") -> list[tuple[dict, dict]]:
    """(expected, got) per episode of each (env id, reward mode, seeds) run, played twice."""
    python = _python()
    expected: dict[tuple[str, str, int], dict] = {}
    spec_runs = []
    for env_id, reward, seeds in runs:
        scripts = {}
        for seed in seeds:
            actions, rewards, info = _script(env_id, seed, reward)
            scripts[str(seed)] = actions
            expected[(env_id, reward, seed)] = {"rewards": rewards, "info": info}
        spec_runs.append({"env_id": env_id, "reward": reward, "scripts": scripts, "via": via})
    spec = tmp_path / "spec.json"
    spec.write_text(json.dumps({"server_url": server_url, "max_turns": MAX_TURNS, "rollouts": 2,
                                "runs": spec_runs}))
    out = subprocess.run([python, str(DRIVER), str(spec)], capture_output=True, text=True,
                         timeout=600, check=False, env={**os.environ, **(env or {})})
    assert out.returncode == 0, out.stderr[-3000:]
    report = json.loads(out.stdout.strip().splitlines()[-1])
    assert report["verifiers"].startswith("0.4.")
    return [(expected[(e["env_id"], e["reward_mode"], e["seed"])], e)
            for e in report["episodes"]]


def _check(pairs: list[tuple[dict, dict]], n: int) -> None:
    assert len(pairs) == n
    for want, got in pairs:
        assert got["ok"] and got["errors"] == [], got["errors"]
        assert got["rewards"] == want["rewards"], (got["env_id"], got["seed"])
        assert got["turns"] == len(want["rewards"])
        assert got["reward_names"] == ["agentgym_reward"]
        assert got["trace_reward"] == pytest.approx(sum(want["rewards"]))
        assert got["metrics"]["success"] == float(bool(want["info"]["success"]))
        assert got["metrics"]["steps"] == len(want["rewards"])
        assert got["metrics"]["invalid_actions"] == want["info"]["invalid_actions"]
        assert {"reward_process", "reward_outcome"} <= set(got["metrics"])
        assert got["system"], "the env's rules are the system turn"
    # A group (two rollouts of one task) plays the same seeded episode.
    by_task: dict[tuple, set[str]] = {}
    for _, got in pairs:
        by_task.setdefault((got["env_id"], got["seed"]), set()).add(got["first_user_turn"])
    assert all(len(turns) == 1 for turns in by_task.values())


def test_in_process_episodes_equal_the_local_env(tmp_path):
    pairs = _drive([(TTT, "outcome", [0, 1]), (WEBSHOP, "process", [0])], tmp_path)
    _check(pairs, n=6)
    assert any(sum(want["rewards"]) != 0 for want, _ in pairs)  # the rewards say something
    webshop = [got for _, got in pairs if got["env_id"] == WEBSHOP]
    assert all(got["metrics"]["reward_outcome"] == 0.0 or got["reward_mode"] != "outcome"
               for got in webshop)


def test_served_episodes_equal_the_local_env(tmp_path):
    sys.path.insert(0, str(ROOT / "tests" / "server"))
    from server_support import ServerProcess

    server = ServerProcess(env_ids=(TTT, WEBSHOP), args=("--token", TOKEN)).start()
    try:
        pairs = _drive([(TTT, "both", [2]), (WEBSHOP, "both", [1])], tmp_path,
                       server_url=server.url, env={"AGENTGYM_TOKEN": TOKEN})
        _check(pairs, n=4)
    finally:
        server.stop()


def test_verifiers_openenv_taskset_plays_agentgym_unchanged(tmp_path):
    # verifiers' own OpenEnv taskset on /openenv/<id>: it reads the action schema's title
    # ("TextAction", not OpenEnv's generic "Action") and sends {"text": reply} per turn.
    sys.path.insert(0, str(ROOT / "tests" / "server"))
    from server_support import ServerProcess

    server = ServerProcess(env_ids=(TTT, WEBSHOP)).start()
    try:
        pairs = _drive([(TTT, "both", [0, 3]), (WEBSHOP, "both", [2])], tmp_path,
                       server_url=server.url, via="openenv")
    finally:
        server.stop()
    assert len(pairs) == 6
    for want, got in pairs:
        assert got["ok"] and got["errors"] == [], got["errors"]
        assert got["reward_names"] == ["openenv_reward"]
        assert got["trace_reward"] == pytest.approx(sum(want["rewards"]))
        assert got["turns"] == len(want["rewards"])


def test_config_refuses_bad_input_and_module_examples_hold():
    # Runs in the verifiers venv: the taskset config's checks and the module's doctest.
    code = r"""
import doctest, sys
import agentgym.integrations.verifiers as m
from pydantic import ValidationError
bad = [dict(env_id="agentgym/Nope-v0"), dict(seeds=[]), dict(seeds=[-1]),
       dict(env_kwargs={"reward_mode": "process"}), dict(reward="shaped"), dict(num_tasks=0)]
for kwargs in bad:
    try:
        m.AgentgymTasksetConfig(id=m.TASKSET_ID, **kwargs)
    except ValidationError as exc:
        assert "\n" in str(exc) or str(exc)
    else:
        sys.exit(f"accepted {kwargs}")
try:
    m.environment("agentgym/TicTacToe-v0", reward="everything")
except ValueError:
    pass
else:
    sys.exit("accepted reward='everything'")
r = doctest.testmod(m, optionflags=doctest.ELLIPSIS)
assert r.failed == 0 and r.attempted > 0, r
print("ok")
"""
    out = subprocess.run([_python(), "-c", code], capture_output=True, text=True, timeout=300,
                         check=False, cwd="/")
    assert out.returncode == 0 and out.stdout.strip().endswith("ok"), out.stderr[-3000:]
