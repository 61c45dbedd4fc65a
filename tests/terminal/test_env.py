"""TerminalEnv against real Docker: observations, rewards, budget, snapshots, agents, bad input."""

from __future__ import annotations

import json

import gymnasium as gym
import pytest
from terminal_support import FIXTURES, needs_docker

from agentgym.agents import make_agent
from agentgym.environments.terminal.env import TerminalEnv
from agentgym.environments.terminal.task import tasks_in_split

pytestmark = needs_docker
SUM = str(FIXTURES / "sum-numbers")


@pytest.fixture(scope="module")
def env():
    env = TerminalEnv(task=SUM, backend="docker")
    yield env
    env.close()


def test_reset_shows_instruction_workdir_and_budget(env):
    obs, info = env.reset(seed=0)
    assert "/app/numbers.txt holds one integer per line" in obs
    assert "You are in /app" in obs and "You have 8 steps" in obs
    assert info["task_id"] == "sum-numbers" and info["steps_left"] == 8
    assert info["available_actions"][-1] == "submit"
    assert "cat numbers.txt" in info["available_actions"]
    assert env.observation_space.contains(obs)


def test_a_command_shows_output_exit_code_cwd_and_steps_left(env):
    env.reset(seed=0)
    obs, reward, terminated, truncated, info = env.step("cat numbers.txt; echo oops >&2; exit 3")
    assert obs.splitlines() == ["$ cat numbers.txt; echo oops >&2; exit 3", "3", "4", "5", "30",
                                "[stderr]", "oops", "exit code 3", "cwd /app", "steps left 7"]
    assert (reward, terminated, truncated) == (0.0, False, False)
    assert info["exit_code"] == 3 and info["valid_action"]
    obs, *_ = env.step("cd /tmp")
    obs, *_ = env.step("pwd")
    assert "/tmp\n" in obs and "cwd /tmp" in obs


def test_potential_shaping_telescopes_to_the_outcome(env):
    env.reset(seed=0)
    rewards = []
    _, r, *_ , info = env.step("echo 41 > answer.txt")  # exists: one of two milestones
    rewards.append(r)
    assert r == pytest.approx(0.5) and info["reward_components"]["milestones"] == 0.5
    _, r, *_ = env.step("ls")  # nothing changes: no reward
    rewards.append(r)
    assert r == 0.0
    _, r, *_ = env.step("echo 42 > answer.txt")
    rewards.append(r)
    assert r == pytest.approx(0.5)
    obs, r, terminated, truncated, info = env.step("<action> SUBMIT </action>")
    rewards.append(r - info["reward_components"]["outcome"])
    parts = info["reward_components"]
    assert (terminated, truncated, info["success"]) == (True, False, True)
    assert (parts["tests_passed"], parts["tests_total"], parts["outcome"]) == (3.0, 3.0, 1.0)
    assert parts["process"] == pytest.approx(0.0)  # phi: 1 (milestones) -> 1 (outcome)
    assert sum(rewards) == pytest.approx(parts["outcome"] - 0.0)  # outcome - phi(s0)
    assert "Submitted: 3 of 3 hidden tests passed" in obs
    assert info["verdict"]["stripped"] == []


def test_a_partial_answer_gets_the_share_of_tests_and_gives_back_the_potential(env):
    env.reset(seed=0)
    env.step("echo 41 > answer.txt")
    _, r, terminated, _, info = env.step("submit")
    parts = info["reward_components"]
    assert terminated and not info["success"]
    assert parts["outcome"] == pytest.approx(2 / 3)  # exists + one line, wrong sum
    assert parts["process"] == pytest.approx(2 / 3 - 0.5)


def _play(env, actions):
    """(return, last info, last obs, terminated, truncated) of ``actions`` from seed 0."""
    env.reset(seed=0)
    total = 0.0
    for action in actions:
        obs, reward, terminated, truncated, info = env.step(action)
        total += reward
        if terminated or truncated:
            break
    return total, info, obs, terminated, truncated


def test_work_never_submitted_earns_nothing():
    """The audit's exploit (issue 34): run the solution, never submit, until the steps run
    out. It was graded anyway: outcome 1.0 and the oracle's return 2.0, with no success."""
    env = TerminalEnv(task=SUM, backend="docker", max_steps=3)
    try:
        env.reset(seed=0)
        solve = env.oracle_actions()[0]
        oracle, info, obs, terminated, _ = _play(env, [solve, "submit"])
        assert terminated and info["success"] and oracle == pytest.approx(2.0)
        ret, info, obs, terminated, truncated = _play(env, [solve, "ls", "ls"])
        assert (terminated, truncated, info["truncated_by"]) == (False, True, "max_steps")
        assert info["reward_components"]["outcome"] == 0.0 and info["success"] is False
        assert ret == pytest.approx(0.0) and ret < oracle  # outcome 0 - phi(s0) 0
        assert info["reward_components"]["milestones"] == 1.0  # the work was done
        assert "verdict" not in info and info["reward_components"]["tests_total"] == 0.0
        assert "No steps left before submit: the hidden tests did not run" in obs
        assert env.config()["max_steps"] == 3
        # The same work cut by invalid actions instead: no grade either.
        cut = TerminalEnv(task=SUM, backend="docker", max_invalid=2)
        try:
            ret, info, obs, _, truncated = _play(cut, [solve, "", ""])
            assert truncated and info["truncated_by"] == "max_invalid"
            assert info["reward_components"]["outcome"] == 0.0
            assert ret == pytest.approx(2 * -0.1)  # the work's shaping given back
            assert "Too many invalid actions before submit" in obs
        finally:
            cut.close()
    finally:
        env.close()


def test_scoring_the_last_step_unsubmitted_matches_the_step():
    env = TerminalEnv(task=SUM, backend="docker", max_steps=2)
    try:
        env.reset(seed=0)
        env.step("echo 42 > answer.txt")
        scored = env.score_actions(["ls"])
        _, _, _, truncated, info = env.step("ls")
        assert truncated and scored == [info["reward_components"]["process"]]
        assert scored[0] == pytest.approx(-1.0)  # phi 1 (both milestones) back to 0
    finally:
        env.close()


def test_invalid_actions_are_counted_and_explained(env):
    env.reset(seed=0)
    for action, error in [("", "empty"), ("<action></action>", "empty"),
                          ("echo \x00", "NUL"), (123, "must be a string"),
                          ("x" * 40_000, "limit is 32768"), ("y" * 1_048_576, "limit is 65536")]:
        obs, reward, terminated, truncated, info = env.step(action)
        assert not info["valid_action"] and error in info["action_error"], info["action_error"]
        assert reward == pytest.approx(-0.1)
        if truncated:
            assert info["truncated_by"] == "max_invalid"
            assert "Too many invalid actions before submit" in obs
            break
        assert "Invalid action" in obs
    assert info["invalid_actions"] == 5


def test_a_command_after_submit_is_answered(env):
    env.reset(seed=0)
    env.step("submit")
    obs, reward, terminated, truncated, info = env.step("ls")
    assert terminated and reward == 0.0 and "reset" in info["action_error"]


def test_bad_output_is_capped_and_shown_as_text(task_copy):
    root = task_copy("sum-numbers")
    toml = root / "task.toml"
    toml.write_text(toml.read_text().replace("command_timeout_sec = 5.0",
                                             "command_timeout_sec = 1.0"))
    env = TerminalEnv(task=str(root), backend="docker")
    try:
        env.reset(seed=0)
        obs, *_ , info = env.step("head -c 3000 /dev/urandom; printf 'caf\\xc3\\xa9'")
        assert env.observation_space.contains(obs) and "exit code 0" in obs
        assert "caf\\xe9" in obs
        obs, *_ , info = env.step("yes")  # endless output: capped, drained, killed
        assert "[... output truncated:" in obs and "bytes dropped ...]" in obs
        assert "[timed out after 1 s" in obs and info["timed_out"]
        assert env.observation_space.contains(obs)
        obs, *_ , info = env.step("sleep 1000")  # never returns
        assert info["exit_code"] == 124 and "timed out" in obs
        obs, *_ , info = env.step("echo still here")  # the env stays usable
        assert "still here" in obs and info["exit_code"] == 0
    finally:
        env.close()


def test_snapshots_replay_the_history_in_a_fresh_sandbox(env):
    env.reset(seed=0)
    env.step("echo 42 > answer.txt")
    env.step("cd /tmp")
    snapshot = env.get_state()
    obs_before = env.render() if env.render_mode else env._observe()
    after = [env.step(a) for a in ("cat /app/answer.txt", "submit")]
    fresh = TerminalEnv(task=SUM, backend="docker")
    try:
        fresh.set_state(snapshot)
        assert fresh._observe() == obs_before
        replayed = [fresh.step(a) for a in ("cat /app/answer.txt", "submit")]
        assert [(o, r, te, tr) for o, r, te, tr, _ in replayed] == [
            (o, r, te, tr) for o, r, te, tr, _ in after]
        assert "cwd /tmp" in replayed[0][0] and "\n42\n" in replayed[0][0]
    finally:
        fresh.close()
    json.loads(snapshot)


def test_score_actions_match_step_and_leave_the_state_alone(env):
    env.reset(seed=0)
    env.step("echo 41 > answer.txt")
    before = env.get_state()
    actions = ["submit", "echo 42 > answer.txt", "ls", ""]
    scores = env.score_actions(actions)
    assert env.get_state() == before
    for action, score in zip(actions, scores, strict=True):
        env.set_state(before)
        *_, info = env.step(action)
        assert info["reward_components"]["process"] == pytest.approx(score), action
    assert scores[:3] == pytest.approx([2 / 3 - 0.5, 0.5, 0.0])


def test_oracle_and_random_agents_through_gym_make():
    gym.register("agentgym-test/Terminal-v0",
                 entry_point="agentgym.environments.terminal.env:TerminalEnv")
    try:
        env = gym.make("agentgym-test/Terminal-v0", task=SUM, backend="docker")
        for name, want in (("oracle", 1.0), ("random", 0.0)):
            agent = make_agent(name)
            for seed in range(2 if name == "oracle" else 3):
                obs, info = env.reset(seed=seed)
                agent.reset(env, seed=seed)
                done, steps = False, 0
                while not done:
                    obs, reward, terminated, truncated, info = env.step(agent.act(obs, info))
                    done, steps = terminated or truncated, steps + 1
                assert info["reward_components"]["outcome"] == want, (name, seed)
                if name == "oracle":
                    assert steps == 2 and info["success"]
        env.close()
    finally:
        del gym.registry["agentgym-test/Terminal-v0"]


def test_split_mode_plays_task_seed_mod_n():
    tasks = tasks_in_split("test")
    env = TerminalEnv(split="test", backend="docker", score_process=False)
    try:
        _, info = env.reset(seed=len(tasks) + 1)
        assert info["task_id"] == tasks[1].id
        assert env.max_steps == tasks[1].max_steps and env.config()["max_steps"] is None
    finally:
        env.close()


def test_kwargs_are_checked():
    with pytest.raises(ValueError, match="split must be"):
        TerminalEnv(split="dev")
    with pytest.raises(ValueError, match="backend must be"):
        TerminalEnv(task=SUM, backend="podman")
    with pytest.raises(ValueError, match="gamma"):
        TerminalEnv(task=SUM, gamma=0)
    with pytest.raises(ValueError, match="unknown task"):
        TerminalEnv(task="no-such-task")
    with pytest.raises(ValueError, match="max_steps"):
        TerminalEnv(task=SUM, max_steps=0)
