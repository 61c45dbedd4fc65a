"""Agent options and the local LLM agent (the tiny random model: fast, offline)."""

from __future__ import annotations

import gymnasium as gym
import pytest
from test_cli import COUNTER, register_toys

from agentgym.agents import AgentFailure, make_agent
from agentgym.agents.local_llm import LocalLLMAgent, _loaded, turn_seed
from agentgym.evaluation import evaluate, run_episode
from agentgym.llm import ChatTokens
from agentgym.wrappers.chat import render_user, system_prompt_for

register_toys()
TINY = {"model": "tiny-random", "max_new_tokens": 6}


def test_unknown_agent_options_name_the_accepted_ones():
    with pytest.raises(ValueError, match="agent 'random' takes no option 'model'; it takes none"):
        make_agent("random", model="x")
    with pytest.raises(ValueError) as info:
        make_agent("llm", modle="tiny-random")
    assert "agent 'llm' takes no option 'modle'; it takes model, temperature" in str(info.value)


@pytest.mark.parametrize(("options", "message"), [
    ({"model": "/no/such/model"}, "model '/no/such/model' does not exist"),
    ({"model": "tiny-random", "temperature": -1}, "temperature must be a number >= 0"),
    ({"model": "tiny-random", "top_p": 0}, "top_p must be a number in (0, 1]"),
    ({"model": "tiny-random", "max_new_tokens": 0}, "max_new_tokens must be an int >= 1"),
    ({"model": "tiny-random", "max_prompt_tokens": "many"}, "max_prompt_tokens must be an int"),
    ({"model": "tiny-random", "system_prompt": " "}, "system_prompt must be a non-empty string"),
    ({"model": "tiny-random", "history_turns": -1}, "history_turns must be an int >= 0 or unset"),
])
def test_bad_llm_options_are_one_line_errors(options, message):
    with pytest.raises(ValueError) as info:
        make_agent("llm", **options)
    assert message in str(info.value) and "\n" not in str(info.value)


def test_llm_agent_describes_its_settings():
    described = make_agent("llm", **TINY, temperature=0.5).describe()
    assert described["model"] == "tiny-random" and described["temperature"] == 0.5
    assert described["max_new_tokens"] == 6 and described["prompt"] == "standard"
    custom = make_agent("llm", **TINY, system_prompt="Say inc.").describe()
    assert custom["prompt"] == "custom" and custom["system_prompt"] == "Say inc."


def test_llm_agent_builds_the_trainers_conversation_and_counts_its_tokens():
    env = gym.make(COUNTER, max_steps=4)
    agent = LocalLLMAgent(**TINY, temperature=1.0)
    result = run_episode(env, agent, seed=3)
    _, tokenizer, sampler = _loaded("tiny-random", "cpu")
    # Rebuild the conversation the way trainers/rollout.py does and sample with the same
    # per-turn seeds: every prompt length and every reply must match the agent's.
    chat = ChatTokens(tokenizer, system_prompt_for(env))
    observation, info = env.reset(seed=3)
    for turn, step in enumerate(result.trace):
        feedback = str(info.get("action_error", "")) if turn else ""
        chat.add_user(render_user(observation, feedback))
        prompt = chat.prompt_ids()
        sample = sampler.generate([prompt], max_new_tokens=6, temperature=1.0,
                                  seed=turn_seed(3, turn))[0]
        assert step.prompt_tokens == len(prompt)
        assert step.completion_tokens == len(sample.completion_ids) <= 6
        assert step.raw_text == step.action == sample.text
        chat.add_assistant(sample.completion_ids)
        observation, _, _, _, info = env.step(step.action)
    assert result.prompt_tokens == sum(s.prompt_tokens for s in result.trace)
    assert result.completion_tokens == sum(s.completion_tokens for s in result.trace)


def test_llm_agent_with_a_history_window_prompts_with_the_last_observation_only():
    env = gym.make(COUNTER, max_steps=4)
    agent = LocalLLMAgent(**TINY, temperature=1.0, history_turns=0)
    assert agent.describe()["history_turns"] == 0
    result = run_episode(env, agent, seed=3)
    assert len(result.trace) >= 2
    _, tokenizer, _ = _loaded("tiny-random", "cpu")
    observation, info = env.reset(seed=3)
    for turn, step in enumerate(result.trace):
        # Each prompt is the system turn and this observation alone, as a fresh chat has it.
        chat = ChatTokens(tokenizer, system_prompt_for(env))
        chat.add_user(render_user(observation, str(info.get("action_error", "")) if turn else ""))
        assert step.prompt_tokens == len(chat.prompt_ids())
        observation, _, _, _, info = env.step(step.action)


def test_llm_runs_repeat_per_seed_on_cpu():
    def texts(seed: int) -> list[str | None]:
        env = gym.make(COUNTER, max_steps=2)
        return [s.raw_text for s in run_episode(env, make_agent("llm", **TINY), seed=seed).trace]

    assert texts(5) == texts(5)
    assert texts(5) != texts(6)


def test_a_full_context_stops_the_episode_as_failed():
    report = evaluate(COUNTER, "llm", episodes=1, seed=0, progress=False,
                      agent_options={**TINY, "max_prompt_tokens": 60})
    episode = report.episodes[0]
    assert episode.failed and episode.steps == 0
    assert "context full" in episode.failure and "max_prompt_tokens=60" in episode.failure
    assert report.summary["failed_episodes"] == 1 and report.summary["success_rate"] == 0.0


def test_the_context_bound_fires_mid_episode_keeping_the_steps_done():
    env = gym.make(COUNTER, max_steps=20)
    first = LocalLLMAgent(**TINY)
    first.reset(env, seed=0)
    obs, info = env.reset(seed=0)
    first.act(obs, info)
    limit = first.last_turn.prompt_tokens + 5  # the second prompt is longer than this
    result = run_episode(env, LocalLLMAgent(**TINY, max_prompt_tokens=limit), seed=0)
    assert result.failed and result.steps == 1 and len(result.trace) == 1
    assert not result.terminated and not result.success


def test_agent_failure_carries_its_reason():
    assert AgentFailure("HTTP 503").reason == "HTTP 503"
