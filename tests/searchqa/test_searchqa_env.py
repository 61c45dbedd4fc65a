"""SearchQA-v0 end to end: the Search-R1 format, the budgets, rewards, oracle and splits."""

from __future__ import annotations

import json

import gymnasium as gym
import pytest

import agentgym  # noqa: F401  (registers the ids)
from agentgym.environments.searchqa.env import (
    QUESTIONS_PER_WORLD,
    TEST_WORLDS,
    SearchQAEnv,
)

ENV_ID = "agentgym/SearchQA-v0"


def play_oracle(env: SearchQAEnv, seed: int) -> tuple[list[dict], list[float]]:
    _, info = env.reset(seed=seed)
    infos, rewards = [], []
    while True:
        _, reward, terminated, truncated, info = env.step(env.oracle_actions()[0])
        infos.append(info)
        rewards.append(reward)
        if terminated or truncated:
            return infos, rewards


def test_search_r1_tagged_turns_play_an_episode_end_to_end():
    env = gym.make(ENV_ID, split="test")
    obs, info = env.reset(seed=0)
    q = env.unwrapped.question
    assert obs.startswith(f"Question: {q.question}")
    for bridge in q.bridges:
        obs, reward, terminated, truncated, info = env.step(
            f"<think>I should look this up.</think>\n<search>{bridge}</search>")
        assert info["valid_action"] and not terminated
        assert "<information>" in obs and "Doc 1(Title: " in obs
    assert info["gold_retrieved"] == 1.0
    obs, reward, terminated, truncated, info = env.step(
        f"So the answer is <answer>{q.answers[0]}</answer>")
    assert terminated and not truncated and info["success"]
    assert info["exact_match"] == 1.0 and info["f1"] == 1.0 and reward == 1.0


@pytest.mark.parametrize("wrap", ["search: {q}", "<action>search: {q}</action>",
                                  "<action><search>{q}</search></action>"])
def test_bare_and_action_tagged_forms_are_the_same_search(wrap):
    env = SearchQAEnv(corpus="example")
    env.reset(seed=0)
    *_, tagged = env.step("<search>Rembrandt</search>")
    env.reset(seed=0)
    *_, other = env.step(wrap.format(q="Rembrandt"))
    assert other["valid_action"] and other["results"] == tagged["results"]


def test_top_k_passages_with_titles_and_the_search_budget():
    env = SearchQAEnv(corpus="example", top_k=2, max_searches=2, max_steps=10)
    env.reset(seed=0)
    obs, *_, info = env.step("<search>Danube river</search>")
    assert len(info["results"]) == 2 and "Doc 2(Title: " in obs and "Doc 3" not in obs
    env.step("<search>Vienna</search>")
    obs, reward, terminated, truncated, info = env.step("<search>Budapest</search>")
    assert not info["valid_action"] and "no searches left" in info["action_error"]
    assert reward == pytest.approx(-0.1) and not (terminated or truncated)
    assert not any(a.startswith("search: ") for a in info["available_actions"])
    *_, info = env.step("<answer>Danube</answer>")
    assert info["valid_action"]


@pytest.mark.parametrize(
    ("action", "error"),
    [
        ("", "empty"),
        ("<search>" + "q" * 100_000 + "</search>", "characters; the limit"),
        ("<search>" + "q" * 5_000 + "</search>", "the limit is 512"),
        ("<search>Vienna</search><answer>Danube</answer>", "found both"),
        ("Vienna, I think.", "no <search> or <answer> tag"),
        ("<search>   </search>", "the query is empty"),
    ],
)
def test_bad_turns_follow_the_invalid_action_policy(action, error):
    env = SearchQAEnv(corpus="example", invalid_penalty=-0.5, max_invalid=2)
    env.reset(seed=0)
    before = env.get_state()
    _, reward, terminated, truncated, info = env.step(action)
    assert not info["valid_action"] and error in info["action_error"]
    assert reward == -0.5 and info["invalid_actions"] == 1 and not (terminated or truncated)
    state = json.loads(env.get_state())["state"]
    assert state == json.loads(before)["state"]  # nothing searched, nothing answered
    *_, truncated, info = env.step(action)
    assert truncated and info["truncated_by"] == "max_invalid"
    assert info["exact_match"] == 0.0 and info["f1"] == 0.0


def test_an_answer_after_the_episode_ended_is_refused():
    env = SearchQAEnv(corpus="example", max_steps=2)
    env.reset(seed=0)
    env.step("<search>Rembrandt</search>")
    *_, truncated, info = env.step("<search>Leiden</search>")
    assert truncated and info["truncated_by"] == "max_steps" and info["exact_match"] == 0.0
    _, reward, _, _, info = env.step("<answer>Leiden</answer>")
    assert reward == 0.0 and not info["valid_action"] and "reset" in info["action_error"]


def test_process_reward_is_potential_based_and_repeats_earn_nothing():
    env = SearchQAEnv(corpus="example")
    env.reset(seed=3)  # Mozart's birthplace: gold = the Mozart and Salzburg passages
    rewards = []
    for query in ("Wolfgang Amadeus Mozart", "Wolfgang Amadeus Mozart", "Salzburg", "Lyon"):
        *_, info = env.step(f"<search>{query}</search>")
        rewards.append(info["reward_components"]["process"])
    assert rewards == [0.5, 0.0, 0.5, 0.0]
    *_, info = env.step("<answer>the Austria.</answer>")
    assert info["reward_components"] == {"process": 0.0, "outcome": 1.0}
    assert info["exact_match"] == 1.0


def test_f1_is_reported_beside_exact_match():
    env = SearchQAEnv(corpus="example")
    env.reset(seed=5)  # answers: Lord Byron, Byron
    _, reward, terminated, _, info = env.step("<answer>the poet Lord Byron</answer>")
    assert terminated and reward == 0.0 and info["exact_match"] == 0.0
    assert info["f1"] == pytest.approx(0.8)  # {poet, lord, byron} vs {lord, byron}
    assert info["answers"] == ["Lord Byron", "Byron"]


def test_score_actions_counts_new_gold_passages_and_changes_nothing():
    env = SearchQAEnv(split="test")
    env.reset(seed=0)
    q = env.question
    candidates = [f"search: {b}" for b in q.bridges] + ["search: nothing at all",
                                                        f"answer: {q.answers[0]}", "??"]
    before = env.get_state()
    scores = env.score_actions(candidates)
    assert env.get_state() == before
    assert scores[0] >= 1 / q.hops - 1e-9  # the question retrieves the hop-1 passage
    assert scores[-3:] == [0.0, 0.0, -0.1]
    for action, score in zip(candidates, scores, strict=True):
        env.set_state(before)
        *_, info = env.step(action)
        assert info["reward_components"]["process"] == pytest.approx(score)


def test_oracle_solves_the_test_split_with_every_gold_passage():
    env = SearchQAEnv(split="test")
    for seed in range(0, 200, 5):
        infos, rewards = play_oracle(env, seed)
        final = infos[-1]
        assert final["exact_match"] == 1.0 and final["gold_retrieved"] == 1.0
        assert sum(i["reward_components"]["process"] for i in infos) == pytest.approx(1.0)
        assert len(infos) <= env.question.hops + 1


def test_splits_play_distinct_worlds_and_seeds_index_questions():
    test_env, train_env = SearchQAEnv(split="test"), SearchQAEnv(split="train")
    assert test_env.task_count() == QUESTIONS_PER_WORLD * len(TEST_WORLDS)
    test_env.reset(seed=0)
    first = test_env.question
    test_env.reset(seed=test_env.task_count())  # wraps around
    assert test_env.question == first
    tests = set()
    for seed in range(0, 200, 10):
        test_env.reset(seed=seed)
        tests.add(test_env.unwrapped._task.name)
    assert tests == {f"world {w}" for w in TEST_WORLDS}
    train_env.reset(seed=0)
    assert train_env._task.name == "world 1000"
    train_env.reset(seed=QUESTIONS_PER_WORLD * 7 + 1)
    assert train_env._task.name == "world 1007"


def test_candidates_grow_with_what_was_read():
    env = SearchQAEnv(split="test")
    _, info = env.reset(seed=0)
    assert all(a.startswith("search: ") for a in info["available_actions"])
    _, _, _, _, info = env.step(env.oracle_actions()[0])
    answers = [a for a in info["available_actions"] if a.startswith("answer: ")]
    assert answers  # spans of the passages just read


def test_non_ascii_passages_and_queries_stay_in_the_observation_space(tmp_path):
    corpus = tmp_path / "c.jsonl"
    corpus.write_text(json.dumps({"id": "1", "title": "Kraków", "text": "Kraków lies on "
                                  "the Wisła — a river."}) + "\n", encoding="utf-8")
    questions = tmp_path / "q.jsonl"
    questions.write_text(json.dumps({"question": "Which river flows past Kraków?",
                                     "answers": ["Wisła"], "gold_ids": ["1"]}) + "\n")
    env = SearchQAEnv(corpus=str(corpus), questions=str(questions))
    obs, _ = env.reset(seed=0)
    assert env.observation_space.contains(obs) and "Krakow" in obs
    obs, *_, info = env.step("<search>Kraków ☃</search>")
    assert env.observation_space.contains(obs) and "Wisla" in obs
    *_, info = env.step("<answer>Wisła</answer>")
    assert info["exact_match"] == 1.0


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"split": "dev"}, "split"),
        ({"top_k": 0}, "top_k"),
        ({"max_searches": 0}, "max_searches"),
        ({"min_hops": 3, "max_hops": 2}, "max_hops"),
        ({"namesakes": "yes"}, "namesakes"),
        ({"questions": "q.jsonl"}, "needs corpus"),
        ({"corpus": "/nonexistent/c.jsonl", "questions": "/nonexistent/q.jsonl"},
         "does not exist"),
        ({"corpus": "/nonexistent/c.jsonl"}, "needs questions"),
        ({"corpus": "example", "questions": "/nonexistent/q.jsonl"}, "does not exist"),
    ],
)
def test_bad_kwargs_are_refused(kwargs, match):
    with pytest.raises(ValueError, match=match):
        SearchQAEnv(**kwargs)
