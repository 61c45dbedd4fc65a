"""SearchQA-v0's declared config: what a stranger may set, the checks the model now makes."""

from __future__ import annotations

import inspect

import numpy as np
import pytest

from agentgym.config import ScopeError
from agentgym.environments.searchqa.byo import EXAMPLE_CORPUS, EXAMPLE_QUESTIONS
from agentgym.environments.searchqa.config import PUBLIC_MAX_SCALE, SearchQAConfig
from agentgym.environments.searchqa.env import SearchQAEnv
from agentgym.environments.searchqa.world import MAX_SCALE

STRANGERS = ("client", "bundle")
WHO = {"client": "a remote client", "bundle": "a leaderboard bundle"}


def refusal(kwargs: dict, who: str) -> str:
    with pytest.raises(ScopeError) as caught:
        SearchQAEnv.config_model.refuse_strangers(kwargs, who)
    return str(caught.value)


def test_the_env_declares_its_config():
    assert SearchQAEnv.config_model is SearchQAConfig


def test_constructor_defaults_are_the_models():
    params = inspect.signature(SearchQAEnv.__init__).parameters
    assert set(params) - {"self"} == set(SearchQAConfig.model_fields)
    for name, field in SearchQAConfig.model_fields.items():
        assert params[name].default == field.default, name


@pytest.mark.parametrize("who", STRANGERS)
def test_a_stranger_may_not_name_a_corpus_file(who, tmp_path):
    paths = [str(EXAMPLE_CORPUS), str(tmp_path / "missing.jsonl"), "/etc/passwd", "~/x.jsonl"]
    texts = {refusal({"corpus": path, "questions": str(EXAMPLE_QUESTIONS)}, who)
             for path in paths}
    assert texts == {f"corpus must be one of (None, 'example') when {WHO[who]} sets it; "
                     "other values are operator-only"}


@pytest.mark.parametrize("who", STRANGERS)
def test_a_stranger_may_not_name_a_questions_file(who, tmp_path):
    paths = [str(EXAMPLE_QUESTIONS), str(tmp_path / "missing.jsonl"), None]
    texts = {refusal({"corpus": "example", "questions": path}, who) for path in paths}
    assert texts == {f"questions is operator-only: {WHO[who]} may not set it"}


@pytest.mark.parametrize("who", STRANGERS)
@pytest.mark.parametrize("scale", [PUBLIC_MAX_SCALE + 1, 100, MAX_SCALE, 10**9])
def test_a_stranger_may_not_ask_for_a_large_world(who, scale):
    assert refusal({"scale": scale}, who) == (
        f"scale must be in [1, {PUBLIC_MAX_SCALE}] when {WHO[who]} sets it; the operator may "
        f"set up to {MAX_SCALE} (agentgym serve ID -k scale=...)")
    assert refusal({"scale": np.int64(scale)}, who) == refusal({"scale": scale}, who)


@pytest.mark.parametrize("who", STRANGERS)
def test_a_stranger_may_play_the_seeded_world_or_the_example(who):
    for corpus in (None, "example"):
        SearchQAConfig.refuse_strangers({"corpus": corpus}, who)
    SearchQAConfig.refuse_strangers(
        {"split": "test", "top_k": 10, "max_searches": 20, "min_hops": 3, "max_hops": 3,
         "namesakes": True, "described": True, "paraphrase": True, "comparison": True,
         "scale": PUBLIC_MAX_SCALE, "max_steps": 100_000, "max_invalid": 100_000}, who)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"top_k": 0}, "top_k must be in [1, 10], got 0"),
        ({"top_k": "3"}, "top_k must be an integer in [1, 10], got '3'"),
        ({"max_searches": 21}, "max_searches must be in [1, 20], got 21"),
        ({"min_hops": 3, "max_hops": 2}, "max_hops must be in [3, 3], got 2"),
        ({"namesakes": "yes"}, "namesakes must be True or False, got 'yes'"),
        ({"comparison": 1}, "comparison must be True or False, got 1"),
        ({"scale": 0}, f"scale must be in [1, {MAX_SCALE}], got 0"),
        ({"scale": MAX_SCALE + 1}, f"scale must be in [1, {MAX_SCALE}], got {MAX_SCALE + 1}"),
        ({"corpus": 3}, "corpus must be None or a string, got 3"),
        ({"split": "dev"}, "split must be one of ('train', 'test'), got 'dev'"),
        ({"max_steps": 0}, "max_steps must be in [1, 100000], got 0"),
        # The cross-field rules come before any file is looked at.
        ({"questions": "/nonexistent/q.jsonl"}, "questions=PATH needs corpus=PATH"),
        ({"corpus": "/nonexistent/c.jsonl"}, "corpus=PATH needs questions=PATH"),
    ],
)
def test_bad_kwargs_get_one_line(kwargs, message):
    with pytest.raises(ValueError) as caught:
        SearchQAEnv(**kwargs)
    assert str(caught.value).startswith(message)
    assert "\n" not in str(caught.value)


def test_numpy_scalars_are_accepted():
    env = SearchQAEnv(top_k=np.int64(2), scale=np.int64(1))
    assert (env.top_k, env.scale) == (2, 1) and type(env.top_k) is int


def test_the_env_builds_and_plays_at_the_public_ceiling():
    env = SearchQAEnv(split="test", scale=PUBLIC_MAX_SCALE, top_k=10, max_searches=20)
    obs, _ = env.reset(seed=0)
    assert obs.startswith("Question: ") and len(env._task.passages) == 376 * PUBLIC_MAX_SCALE
    *_, info = env.step(env.oracle_actions()[0])
    assert info["valid_action"]


def test_the_world_cache_is_bounded_in_bytes(monkeypatch):
    """16 worlds at scale 300 (186 MB each) were 3 GB a process kept for no session; the cache
    now keeps what fits its byte budget, least recently used first."""
    from agentgym.environments.searchqa import env as searchqa_env
    from agentgym.memo import ByteCache

    small = ByteCache(max_bytes=4 * 2**20, size_of=searchqa_env._task_bytes)
    monkeypatch.setattr(searchqa_env, "WORLD_CACHE", small)
    from agentgym.environments.searchqa.questions import Knobs

    for seed in range(1000, 1004):
        task = searchqa_env._world_task(seed, 4, False, Knobs())
        assert 2**20 < searchqa_env._task_bytes(task) < 2 * 2**20  # 1.7 MB by tracemalloc
        assert small.bytes <= small.max_bytes
    assert len(small.keys()) <= 2 and small.keys()[-1] == (1003, 4, False, Knobs())
    assert searchqa_env._world_task(1003, 4, False, Knobs()) is task  # kept: no rebuild


def test_a_bad_cache_budget_is_one_line(monkeypatch):
    from agentgym.environments.searchqa import env as searchqa_env

    monkeypatch.setenv("AGENTGYM_SEARCHQA_CACHE_MB", "lots")
    with pytest.raises(ValueError, match="AGENTGYM_SEARCHQA_CACHE_MB must be a whole number"):
        searchqa_env._cache_budget()
    monkeypatch.setenv("AGENTGYM_SEARCHQA_CACHE_MB", "2")
    assert searchqa_env._cache_budget() == 2 * 2**20
