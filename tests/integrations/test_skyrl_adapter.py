"""The SkyRL-Gym adapter, through skyrl_gym's own ``register`` / ``make`` / ``init`` / ``step``:
scripted episodes of TicTacToe and WebShop (text) give the local env's rewards step for step,
with the env in this process and on ``agentgym serve``."""

from __future__ import annotations

import uuid

import pytest

skyrl_gym = pytest.importorskip("skyrl_gym", reason="needs skyrl-gym (pip install agentgym[skyrl])")

from framework_venvs import CASES, TICTACTOE, WEBSHOP, assert_same_steps, scripted_episode  # noqa: E402
from server_support import ServerProcess  # noqa: E402

from agentgym.integrations.skyrl import ENTRY_POINT, AgentgymTextEnv, register  # noqa: E402


@pytest.fixture(scope="module")
def server():
    proc = ServerProcess(env_ids=(TICTACTOE, WEBSHOP)).start()
    yield proc
    proc.stop()


def _play(name: str, record: dict, extras: dict) -> tuple[list[dict], dict, list]:
    """One trajectory the way SkyRL's generator runs it: make, init, step each turn, metrics."""
    env = skyrl_gym.make(name, env_config={}, extras=extras)
    try:
        chat, _ = env.init([{"role": "user", "content": "Play."}])
        steps, turns = [], []
        for action in record["actions"]:
            out = env.step(action)
            meta = out["metadata"]
            steps.append({"reward": out["reward"], "terminated": meta["terminated"],
                          "truncated": meta["truncated"], "success": meta["success"],
                          "reward_components": meta["reward_components"]})
            turns.append(out)
            if out["done"]:
                break
        return steps, env.get_metrics(), [chat, turns]
    finally:
        env.close()


@pytest.mark.parametrize("remote", [False, True], ids=["in-process", "served"])
@pytest.mark.parametrize(("env_id", "seed", "reward"), CASES)
def test_rewards_equal_the_local_env_step_for_step(env_id, seed, reward, remote, request):
    record = scripted_episode(env_id, seed, reward)
    options = {"server_url": request.getfixturevalue("server").url} if remote else {}
    name = register(env_id, name=f"agentgym-test-{uuid.uuid4().hex[:8]}", reward=reward,
                    **options)
    assert skyrl_gym.spec(name).entry_point == ENTRY_POINT
    # The seed travels in the row (extras), as SkyRL hands each trajectory its row.
    steps, metrics, (chat, turns) = _play(name, record, {"extra_info": {"seed": seed}})
    assert_same_steps(record, steps, "skyrl remote" if remote else "skyrl")
    assert chat[0]["role"] == "system" and chat[1] == {"role": "user", "content": "Play."}
    assert chat[-1] == {"role": "user", "content": record["first_observation"]}
    # Every turn but the last brings the env's next observation; the last brings none.
    for turn, want in zip(turns[:-1], record["steps"][:-1], strict=True):
        assert turn["observations"] == [{"role": "user", "content": want["observation"]}]
    assert turns[-1]["observations"] == [] and turns[-1]["done"] is True
    assert metrics["return"] == pytest.approx(sum(s["reward"] for s in record["steps"]))
    assert metrics["success"] == float(record["steps"][-1]["success"]) == 1.0
    assert metrics["invalid_actions"] == 1.0 and metrics["steps"] == len(record["steps"])
    for part in ("process", "outcome"):
        assert metrics[part] == pytest.approx(
            sum(s["reward_components"][part] for s in record["steps"]))
    # SkyRL averages the metrics of many episodes with the env class's aggregate_metrics.
    assert AgentgymTextEnv.aggregate_metrics([metrics, metrics])["return"] == metrics["return"]


def test_a_group_of_rollouts_plays_the_same_task():
    """SkyRL makes one env per trajectory from the same row: the row's seed makes them one task."""
    name = register(TICTACTOE, name="agentgym-test-group")
    replies = set()
    for _ in range(3):
        env = skyrl_gym.make(name, env_config={}, extras={"seed": 11})
        env.init([])
        replies.add(env.step("1 1")["observations"][0]["content"])  # the opponent's answer
    assert len(replies) == 1
    webshop = register(WEBSHOP, name="agentgym-test-group-webshop")
    goals = {skyrl_gym.make(webshop, extras={"seed": s}).init([])[0][-1]["content"]
             for s in (7, 7, 8)}
    assert len(goals) == 2  # seeds 7 and 7 are one goal, 8 another


def test_env_config_carries_the_options_and_contradictions_are_refused():
    env = AgentgymTextEnv(env_config={"env_id": TICTACTOE, "reward": "outcome",
                                      "env_kwargs": {"max_steps": 4}})
    assert env.env.unwrapped.reward_mode == "outcome" and env.max_turns == 4
    with pytest.raises(ValueError, match="contradicts"):
        AgentgymTextEnv(env_config={"reward": "process"}, env_id=TICTACTOE, reward="outcome")
    with pytest.raises(ValueError, match="unknown env_config keys"):
        AgentgymTextEnv(env_config={"env_id": TICTACTOE, "rewrd": "outcome"})
    with pytest.raises(ValueError, match="reward must be one of"):
        AgentgymTextEnv(env_id=TICTACTOE, reward="score")
    with pytest.raises(ValueError, match="contradicts reward"):
        # A second way to set the reward mode could silently train on the other signal.
        AgentgymTextEnv(env_id=TICTACTOE, reward="outcome", env_kwargs={"reward_mode": "both"})
    with pytest.raises(ValueError, match="env_id is required"):
        AgentgymTextEnv(env_config={})


def test_bad_seeds_and_misuse_are_refused():
    with pytest.raises(TypeError, match="seed must be an int"):
        AgentgymTextEnv(env_id=TICTACTOE, extras={"seed": "3"})
    with pytest.raises(ValueError, match="non-negative"):
        AgentgymTextEnv(env_id=TICTACTOE, extras={"extra_info": {"seed": -1}})
    env = AgentgymTextEnv(env_id=TICTACTOE, extras={"seed": 0})
    with pytest.raises(RuntimeError, match="init"):
        env.step("1 1")
    env.init([])
    with pytest.raises(TypeError, match="string"):
        env.step(None)
    # Text that is no move is the env's to refuse: penalised and counted, never raised.
    out = env.step("x" * 70_000)
    assert out["metadata"]["valid_action"] is False and out["reward"] < 0
    while not out["done"]:
        out = env.step(env.episode.info["available_actions"][0])
    with pytest.raises(RuntimeError, match="episode is over"):
        env.step("1 1")
    env.close()
    env.close()  # idempotent


def test_register_checks_options_once():
    with pytest.raises(TypeError, match="unknown options"):
        register(TICTACTOE, name="agentgym-test-bad", rewards="outcome")
    with pytest.raises(ValueError, match="must be JSON"):
        register(TICTACTOE, name="agentgym-test-bad", env_kwargs={"max_steps": object()})
    with pytest.raises(Exception, match="NoSuch"):
        register("agentgym/NoSuch-v0", name="agentgym-test-bad")
    assert "agentgym-test-bad" not in skyrl_gym.registry
    assert register(TICTACTOE, name="agentgym-test-twice") == "agentgym-test-twice"
    assert register(TICTACTOE, name="agentgym-test-twice") == "agentgym-test-twice"
    with pytest.raises(ValueError, match="already registered with other options"):
        register(TICTACTOE, name="agentgym-test-twice", reward="process")


def test_the_readme_example_runs_and_pays_the_local_envs_reward():
    """The README's frameworks block is run as written; its step pays what the local env pays."""
    import re
    from pathlib import Path

    import gymnasium as gym

    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text()
    block = next(b for b in re.findall(r"```python\n(.*?)```", readme, re.DOTALL)
                 if "agentgym.integrations.skyrl" in b)
    scope: dict = {}
    exec(compile(block, "README.md frameworks", "exec"), scope)
    local = gym.make("agentgym/TicTacToe-v0")
    local.reset(seed=3)
    _, reward, terminated, truncated, info = local.step("<action>2 2</action>")
    out = scope["out"]
    assert out["reward"] == reward and out["done"] == (terminated or truncated)
    assert out["metadata"]["success"] == info["success"]
