"""Agents, the evaluation harness and the CLI, as a user drives them."""

from __future__ import annotations

import io
import json

import gymnasium as gym
import pytest

import agentgym
from agentgym import cli
from agentgym.agents import Agent, agent_names, make_agent
from agentgym.evaluation import evaluate, observation_digest, run_episode


def test_agent_registry_and_unknown_names():
    assert agent_names() == ["oracle", "random", "webshop-rule"]
    assert isinstance(make_agent("oracle"), Agent)
    with pytest.raises(ValueError, match="choose from"):
        make_agent("genius")


@pytest.mark.parametrize("env_id", agentgym.env_ids())
def test_oracle_agent_only_plays_top_scored_actions(env_id):
    env = gym.make(env_id)
    result = run_episode(env, make_agent("oracle"), seed=4)
    assert result.invalid_actions == 0
    assert result.steps == len(result.trace) >= 1
    assert result.trace[-1].terminated or result.trace[-1].truncated
    env.close()


@pytest.mark.parametrize("env_id", agentgym.env_ids())
def test_random_agent_is_repeatable_and_plays_listed_actions(env_id):
    env = gym.make(env_id)
    a = run_episode(env, make_agent("random"), seed=9)
    b = run_episode(env, make_agent("random"), seed=9)
    assert [s.action for s in a.trace] == [s.action for s in b.trace]
    assert a.invalid_actions == 0
    env.close()


def test_evaluate_traces_add_up_and_seeds_are_consecutive():
    report = evaluate("agentgym/TicTacToe-v0", "random", episodes=5, seed=10, progress=False)
    assert [e.seed for e in report.episodes] == [10, 11, 12, 13, 14]
    for episode in report.episodes:
        assert episode.episode_return == pytest.approx(sum(s.reward for s in episode.trace))
        assert episode.process_return == pytest.approx(
            sum(s.reward_components["process"] for s in episode.trace)
        )
    s = report.summary
    assert s["episodes"] == 5
    assert s["success_rate"] == sum(e.success for e in report.episodes) / 5
    assert s["mean_steps"] == sum(e.steps for e in report.episodes) / 5


def test_evaluate_is_deterministic_and_traces_replay():
    a = evaluate("agentgym/Sudoku-v0", "oracle", episodes=2, seed=0, progress=False,
                 env_kwargs={"size": 4})
    b = evaluate("agentgym/Sudoku-v0", "oracle", episodes=2, seed=0, progress=False,
                 env_kwargs={"size": 4})
    assert a.to_json()["episodes"] == b.to_json()["episodes"]
    # The actions alone reproduce every reward and observation.
    env = gym.make("agentgym/Sudoku-v0", size=4)
    for episode in a.episodes:
        obs, _ = env.reset(seed=episode.seed)
        assert observation_digest(obs) == episode.initial_observation_sha
        for step in episode.trace:
            obs, reward, *_ = env.step(step.action)
            assert reward == step.reward and observation_digest(obs) == step.observation_sha


@pytest.mark.parametrize("bad", [0, -3, 2.5, True])
def test_evaluate_refuses_bad_episode_counts(bad):
    with pytest.raises(ValueError, match="episodes"):
        evaluate("agentgym/TicTacToe-v0", "random", episodes=bad, progress=False)


def test_cli_eval_writes_json_with_traces(tmp_path, capsys):
    out = tmp_path / "sub" / "r.json"
    code = cli.main(["eval", "agentgym/Minesweeper-v0", "--agent", "oracle", "--episodes", "3",
                     "--seed", "0", "--out", str(out), "-q"])
    assert code == 0
    data = json.loads(out.read_text())
    assert data["schema"] == "agentgym.eval/1"
    assert data["env_id"] == "agentgym/Minesweeper-v0" and data["agent"]["name"] == "oracle"
    assert len(data["episodes"]) == 3 and data["episodes"][0]["trace"]
    assert set(data["versions"]) >= {"agentgym", "gymnasium", "python"}
    printed = capsys.readouterr().out
    assert "success rate" in printed and "wrote" in printed


def test_cli_kwargs_reach_the_env(tmp_path):
    out = tmp_path / "r.json"
    assert cli.main(["eval", "agentgym/Sudoku-v0", "--agent", "random", "--episodes", "1",
                     "-k", "size=4", "--out", str(out), "-q"]) == 0
    assert json.loads(out.read_text())["env_kwargs"] == {"size": 4}


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["eval", "agentgym/Nope-v0"], "unknown env id"),
        (["eval", "agentgym/Sokoban-v0", "-k", "size=99", "--episodes", "1"], "size"),
        (["eval", "agentgym/Sokoban-v0", "-k", "size"], "name=value"),
        (["eval", "agentgym/Sokoban-v0", "--episodes", "0"], "episodes"),
        (["play", "agentgym/Sokoban-v0", "--seed", "-1"], "non-negative"),
    ],
)
def test_cli_bad_input_is_one_clear_error(argv, message, capsys):
    assert cli.main(argv) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


def test_cli_list_shows_every_id(capsys):
    assert cli.main(["list"]) == 0
    printed = capsys.readouterr().out
    for env_id in agentgym.env_ids():
        assert env_id in printed


def test_cli_play_shows_reward_breakdown_per_move(monkeypatch, capsys):
    env = gym.make("agentgym/TicTacToe-v0")
    env.reset(seed=3)
    best = env.unwrapped.oracle_actions()[0]
    keys = io.StringIO(f":actions\n:hint\n{best}\nnonsense\n:quit\n")
    monkeypatch.setattr("sys.stdin", keys)
    assert cli.main(["play", "agentgym/TicTacToe-v0", "--seed", "3"]) == 0
    printed = capsys.readouterr().out
    assert "oracle's best" in printed
    assert "process" in printed and "outcome" in printed
    assert "invalid action" in printed


def test_cli_play_ends_cleanly_on_end_of_input(monkeypatch, capsys):
    monkeypatch.setattr("sys.stdin", io.StringIO(""))
    assert cli.main(["play", "agentgym/Sudoku-v0", "--seed", "3"]) == 0
