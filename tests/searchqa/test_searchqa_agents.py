"""The baselines: oracle, question-as-query and random, on the seeded test split."""

from __future__ import annotations

import gymnasium as gym

import agentgym  # noqa: F401
from agentgym.agents import make_agent
from agentgym.environments.searchqa.agents import read_answer


def run(agent_name: str, seeds: range) -> tuple[float, dict[int, float], int]:
    env = gym.make("agentgym/SearchQA-v0", split="test")
    agent = make_agent(agent_name)
    em, by_hops, counts, searches = 0.0, {}, {}, 0
    for seed in seeds:
        obs, info = env.reset(seed=seed)
        agent.reset(env, seed=seed)
        while True:
            obs, _, terminated, truncated, info = env.step(agent.act(obs, info))
            if terminated or truncated:
                break
        hops = info["hops"]  # the question's hop count is told only at the end
        searches += info["searches"]
        em += info["exact_match"]
        by_hops[hops] = by_hops.get(hops, 0.0) + info["exact_match"]
        counts[hops] = counts.get(hops, 0) + 1
    return em / len(seeds), {h: by_hops[h] / counts[h] for h in by_hops}, searches


def test_baselines_rank_oracle_over_question_as_query_over_random():
    seeds = range(0, 200, 4)
    oracle, _, _ = run("oracle", seeds)
    question, question_by_hops, searches = run("searchqa-question", seeds)
    random, _, _ = run("random", seeds)
    assert oracle == 1.0
    assert oracle > question > random
    assert searches == len(seeds)  # exactly one search per question
    # One retrieval with the question answers single-hop questions, not multi-hop ones.
    assert question_by_hops[1] > 0.4
    assert question_by_hops.get(2, 0.0) < 0.15 and question_by_hops.get(3, 0.0) < 0.15


def test_the_question_agent_plays_only_searchqa():
    assert make_agent("searchqa-question").families == ("searchqa",)


def test_reader_prefers_years_for_when_questions_and_skips_the_question_words():
    obs = ("<information>\nDoc 1(Title: Mira Holt) Mira Holt is a poet born in Tarsk in 1901.\n"
           "</information>")
    answers = ["Mira Holt", "Tarsk", "poet", "1901"]
    assert read_answer("In what year was Mira Holt born?", obs, answers) == "1901"
    assert read_answer("In which city was Mira Holt born?", obs, answers) == "Tarsk"
    assert read_answer("Who is the poet?", obs, []) is None
