"""The NeMo Gym adapter, through NeMo Gym's own server: ``AgentgymGymnasiumServer``'s FastAPI app
(``/reset``, ``/step``, its session cookie) in NeMo Gym's venv plays scripted episodes of
TicTacToe and WebShop (text); every step's reward equals the local env's, with the env in the
server's process and on ``agentgym serve``.

NeMo Gym 0.7 pins packages agentgym's dev tools conflict with (openai 2.44, mlflow, ray) and
needs Python 3.13, so it runs in its own venv (scripts/setup_frameworks.sh nemo-gym, which
scripts/test.sh runs); skipped, saying so, without it. The rewards are compared here, against
this process's local env.
"""

from __future__ import annotations

import gymnasium as gym
import pytest
from framework_venvs import (
    CASES,
    TICTACTOE,
    WEBSHOP,
    assert_same_steps,
    framework_python,
    run_driver,
    scripted_episode,
)
from server_support import ServerProcess

from agentgym.integrations.nemo_gym import dataset_rows, step_info


@pytest.fixture(scope="module")
def python():
    return framework_python("nemo-gym")


@pytest.fixture(scope="module")
def records():
    return [scripted_episode(*case) for case in CASES]


@pytest.mark.slow  # a driver in another venv: 10-30 s
def test_rewards_equal_the_local_env_step_for_step_in_process_and_served(python, records):
    # One driver run plays every case twice: the env in NeMo Gym's server process, then on
    # agentgym serve.
    proc = ServerProcess(env_ids=(TICTACTOE, WEBSHOP)).start()
    try:
        cases = [{"env_id": r["env_id"], "seed": r["seed"], "reward": r["reward"],
                  "actions": r["actions"]} for r in records]
        result = run_driver(python, "nemo_gym_driver.py", {
            "server_urls": [None, proc.url], "cases": cases, "checks": TICTACTOE})
    finally:
        proc.stop()
    assert result["version"] == "0.7.0"
    assert sorted(result["runs"]) == sorted(["local", proc.url])
    for run, played_cases in result["runs"].items():
        _check_run(records, played_cases, f"nemo-gym {run}")
        assert result["checks"][run] == {"step_before_reset": 400, "string_seed": 422,
                                         "negative_seed": 422, "b_first_move_valid": True}


def _check_run(records, played_cases, where):
    for record, played in zip(records, played_cases, strict=True):
        assert_same_steps(record, played["steps"], where)
        assert played["reset"]["observation"] == record["first_observation"]
        assert played["reset"]["info"]["seed"] == record["seed"]
        for step, want in zip(played["steps"], record["steps"], strict=True):
            assert step["observation"] == want["observation"]
        # Episode metrics ride on the last step's info, which gymnasium_agent returns.
        assert [s["episode"] is not None for s in played["steps"]] == (
            [False] * (len(played["steps"]) - 1) + [True])
        episode = played["steps"][-1]["episode"]
        assert episode["return"] == pytest.approx(sum(s["reward"] for s in record["steps"]))
        assert episode["success"] == 1.0 and episode["invalid_actions"] == 1.0
        # GymnasiumServer closes a session's env when its episode ends.
        assert played["after_end_status"] == 400


def test_rows_carry_the_seed_and_the_rules():
    rows = dataset_rows(TICTACTOE, [3, 3, 4])
    assert [r["seed"] for r in rows] == [3, 3, 4]
    env = gym.make(TICTACTOE)
    assert rows[0]["responses_create_params"]["input"] == [
        {"role": "system", "content": env.unwrapped.system_prompt()}]
    with pytest.raises(TypeError, match="seed must be an int"):
        dataset_rows(TICTACTOE, ["3"])
    with pytest.raises(ValueError, match="must not be empty"):
        dataset_rows(TICTACTOE, [])
    info = step_info({"success": False, "reward_components": {"process": -1.0, "outcome": 0.0},
                      "secret": 1})
    assert "secret" not in info and "episode" not in info
