"""The verl adapter, through verl's own agent-loop machinery: ``AgentgymAgentLoop`` registered
from an agent-loop config file and built by ``hydra.utils.instantiate`` as verl's
``AgentLoopWorker`` builds it, ``run(sampling_params, **row)`` with a scripted LLM server and
agentgym's byte tokenizer, in verl's venv. Scripted episodes of TicTacToe and WebShop (text):
the turn scores equal the local env's rewards step for step, with the env in that process and
on ``agentgym serve``; the reward score is their sum; the response mask covers exactly the
model's tokens.

verl 0.9 needs Python < 3.13 and pins transformers < 5.11 (agentgym's dev tools have 5.24), so
it runs in its own venv (scripts/setup_frameworks.sh verl, which scripts/test.sh runs), on
torch 2.13.0's CPU wheel; skipped, saying so, without it.
"""

from __future__ import annotations

import pytest
from framework_venvs import (
    CASES,
    TICTACTOE,
    WEBSHOP,
    framework_python,
    run_driver,
    scripted_episode,
)
from server_support import ServerProcess

from agentgym.integrations.verl import AGENT_NAME, dataset_rows, episode_options


@pytest.fixture(scope="module")
def python():
    return framework_python("verl")


@pytest.fixture(scope="module")
def records():
    return [scripted_episode(*case) for case in CASES]


@pytest.mark.slow  # a driver in another venv: importing verl alone takes 10-40 s
def test_turn_scores_equal_the_local_env_step_for_step_in_process_and_served(python, records):
    # One driver run plays every case twice: the env in verl's process, then on agentgym serve.
    proc = ServerProcess(env_ids=(TICTACTOE, WEBSHOP)).start()
    try:
        cases = [{"env_id": r["env_id"], "seed": r["seed"], "reward": r["reward"],
                  "actions": r["actions"]} for r in records]
        result = run_driver(python, "verl_driver.py",
                            {"server_urls": [None, proc.url], "cases": cases})
    finally:
        proc.stop()
    assert result["version"] == "0.9.1" and result["torch"] == "2.13.0+cpu"
    assert result["cuda"] is False  # the whole check runs without a GPU
    assert sorted(result["runs"]) == sorted(["local", proc.url])
    for run, played_cases in result["runs"].items():
        _check_run(records, played_cases, run)


def _check_run(records, played_cases, run):
    for record, played in zip(records, played_cases, strict=True):
        where = (record["env_id"], record["seed"], record["reward"], run)
        rewards = [s["reward"] for s in record["steps"]]
        assert played["class"] == "AgentgymAgentLoop"
        assert played["turn_scores"] == rewards, where
        assert played["reward_score"] == pytest.approx(sum(rewards)), where
        assert played["rm_scores_sum"] == pytest.approx(sum(rewards), abs=1e-6)
        assert played["moves_left"] == 0  # one generation per env step, no more
        info = played["reward_extra_info"]
        assert info["success"] == 1.0 and info["invalid_actions"] == 1.0
        assert info["steps"] == len(rewards)
        for part in ("process", "outcome"):
            assert info[part] == pytest.approx(
                sum(s["reward_components"][part] for s in record["steps"]))
        assert played["last_info"]["success"] is True
        # Each generation saw the env's latest observation; the first saw the first one.
        assert record["first_observation"] in played["prompts"][0]
        for prompt, step in zip(played["prompts"][1:], record["steps"], strict=False):
            assert step["observation"] in prompt, where
        # The mask marks the model's moves and nothing of the env's text.
        assert played["model_text"] == "".join(f"{a}<|im_end|>" for a in record["actions"])
        assert played["mask_len"] == played["response_len"]
        assert record["steps"][0]["observation"] in played["response_text"]


def test_rows_name_the_episode_and_bad_rows_are_refused():
    rows = dataset_rows(TICTACTOE, [5, 5], reward="process")
    assert [r["agent_name"] for r in rows] == [AGENT_NAME] * 2
    assert episode_options(rows[0]) == {"env_id": TICTACTOE, "seed": 5, "reward": "process"}
    # verl's own dataset columns (index, split) may sit in extra_info beside ours.
    assert episode_options({"extra_info": {"env_id": TICTACTOE, "index": 3}}) == {
        "env_id": TICTACTOE}
    with pytest.raises(ValueError, match="must name the env"):
        episode_options({"extra_info": {"seed": 1}})
    with pytest.raises(ValueError, match="must name the env"):
        episode_options({})
    with pytest.raises(ValueError, match="unknown extra_info keys"):
        episode_options({"extra_info": {"env_id": TICTACTOE, "reward_mode": "outcome"}})
    with pytest.raises(TypeError, match="seed must be an int"):
        episode_options({"extra_info": {"env_id": TICTACTOE, "seed": 1.5}})
    with pytest.raises(ValueError, match="reward must be one of"):
        dataset_rows(TICTACTOE, [1], reward="score")
