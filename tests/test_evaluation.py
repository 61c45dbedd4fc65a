"""Agents and the evaluation harness (the CLI over them is in ``test_cli*.py``)."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest
from test_cli import COUNTER, register_toys

import agentgym
from agentgym.agents import Agent, OracleAgent, RandomAgent, agent_names, make_agent
from agentgym.agents.scripted import agent_rng
from agentgym.evaluation import (
    check_agent_fits,
    evaluate,
    observation_digest,
    run_episode,
    without_timings,
)

register_toys()


def test_agent_registry_and_unknown_names():
    # Other families add their own agents; these are the ones this harness ships with.
    assert {"bazaar-b2c-baseline", "bazaar-c2c-baseline", "negotiation-fair", "oracle",
            "random", "webshop-rule", "llm", "openai"} <= set(agent_names())
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
    assert without_timings(a.to_json()["episodes"]) == without_timings(b.to_json()["episodes"])
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


def test_agents_declare_the_families_they_fit():
    assert RandomAgent.families == () and OracleAgent.families == ()  # any agentgym env
    assert make_agent("webshop-rule").families == ("webshop",)
    for env_id in agentgym.env_ids():
        check_agent_fits(make_agent("random"), env_id)
        check_agent_fits(make_agent("oracle"), env_id)
    check_agent_fits(make_agent("webshop-rule"), "agentgym/WebShop-v0")
    for env_id in ("agentgym/Sokoban-v0", "agentgym/Sudoku-v0", COUNTER):
        with pytest.raises(ValueError, match="plays only webshop envs"):
            check_agent_fits(make_agent("webshop-rule"), env_id)


def test_evaluate_refuses_a_misfit_before_building_anything(monkeypatch):
    def no_make(*args, **kwargs):
        raise AssertionError("the env must not be built")

    monkeypatch.setattr(gym, "make", no_make)
    with pytest.raises(ValueError, match="plays only webshop"):
        evaluate("agentgym/Sokoban-v0", "webshop-rule", episodes=1, progress=False)
    with pytest.raises(ValueError, match="not an agentgym text env"):
        evaluate("CartPole-v1", "random", episodes=1, progress=False)
    with pytest.raises(ValueError, match="valid kwargs: goal, reward_mode"):
        evaluate(COUNTER, "random", episodes=1, env_kwargs={"gaol": 1}, progress=False)


def test_score_is_the_success_rate_times_100_outside_webshop():
    report = evaluate(COUNTER, "random", episodes=6, seed=0, progress=False)
    rate = sum(e.success for e in report.episodes) / 6
    assert report.summary["score"] == pytest.approx(100 * rate)


def test_random_agent_draws_raw_words_so_runs_repeat_on_any_numpy():
    # The n-th pick is the n-th raw 64-bit word of the seeded PCG64 modulo the action count,
    # which NumPy keeps stable (Generator.integers' algorithm is not promised).
    actions = [f"a{i}" for i in range(7)]
    agent = RandomAgent()
    agent.reset(gym.make(COUNTER), seed=11)
    picks = [agent.act("", {"available_actions": actions}) for _ in range(20)]
    words = agent_rng(11).bit_generator.random_raw(20)
    assert picks == [actions[int(w) % 7] for w in words]
    # The agent's stream is not the env's for the same seed (its picks would mirror a random
    # opponent's draws).
    env_words = np.random.default_rng(11).bit_generator.random_raw(20)
    assert list(words) != list(env_words)


def test_evaluate_on_the_toy_env_replays_from_its_trace():
    report = evaluate(COUNTER, "random", episodes=3, seed=4, progress=False)
    env = gym.make(COUNTER)
    for episode in report.episodes:
        obs, _ = env.reset(seed=episode.seed)
        assert observation_digest(obs) == episode.initial_observation_sha
        for step in episode.trace:
            obs, reward, *_ = env.step(step.action)
            assert reward == step.reward and observation_digest(obs) == step.observation_sha


def test_episode_extras_come_from_the_envs_last_info():
    report = evaluate("agentgym/SearchQA-v0", "oracle", split="test", limit=2, progress=False)
    for episode in report.episodes:
        assert episode.extras == {"f1": 1.0, "exact_match": 1.0}
    assert report.summary["mean_f1"] == 1.0 and report.summary["exact_match"] == 1.0
    random_run = evaluate("agentgym/Household-v0", "random", split="test", limit=3,
                          progress=False)
    types = {e.extras["task_type"] for e in random_run.episodes}
    assert set(random_run.summary["success_by_task_type"]) == types
