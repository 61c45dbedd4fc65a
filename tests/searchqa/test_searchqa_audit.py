"""``agentgym audit agentgym/SearchQA-v0``: the spec, a short audit, and what info hides.

The process reward (share of gold passages retrieved) is earned by any good searcher; the
audit's question is whether anything reaches the oracle's return without the exact answer
(the answer tricks of :mod:`agentgym.environments.searchqa.exploits`).
"""

from __future__ import annotations

import json

import gymnasium as gym
import pytest

import agentgym  # noqa: F401  (registers the ids)
from agentgym.audit import audit_spec, run_audit
from agentgym.environments.searchqa.exploits import EXPLOITS

ENV_ID = "agentgym/SearchQA-v0"
HIDDEN = ("hops", "question_kind", "corpus")


def test_the_spec_declares_the_answer_tricks():
    spec = audit_spec(ENV_ID)
    assert spec is not None and set(spec.exploits) == set(EXPLOITS) and spec.exploits
    assert spec.potential is not None and not spec.public_info & set(HIDDEN)


def test_a_short_audit_passes():
    report = run_audit(ENV_ID, episodes=3, budget_s=2)
    assert report.passed, [(r.name, r.detail) for r in report.failures()]
    rows = {r.name: r for r in report.rows}
    assert rows["every-span (family)"].outcome == 0.0  # every trick answered wrong


def test_what_the_question_is_stays_hidden_until_the_end():
    # hops (how many gold passages to find) and corpus (the seeded world, whose answers the
    # public generator rebuilds) were in every step's info; now only the final step tells.
    env = gym.make(ENV_ID, split="test")
    _, info = env.reset(seed=0)
    infos = [info]
    while True:
        *_, terminated, truncated, info = env.step(env.unwrapped.oracle_actions()[0])
        if terminated or truncated:
            break
        infos.append(info)
    assert all(key not in i for i in infos for key in HIDDEN)
    assert info["hops"] == env.unwrapped.question.hops and info["corpus"] == "world 0"
    assert info["question_kind"] == env.unwrapped.question.kind


def _play(env, agent, seed: int) -> dict:
    obs, info = env.reset(seed=seed)
    agent.reset(env, seed=seed)
    while True:
        obs, _, terminated, truncated, info = env.step(agent.act(obs, info))
        if terminated or truncated:
            return info


@pytest.mark.parametrize("trick", ["punctuation", "articles"])
def test_an_answer_that_normalises_to_nothing_matches_no_letter_answer(trick, tmp_path,
                                                                       monkeypatch):
    # A multiple-choice letter "A" normalises to "" (it is an article), and so did "." and
    # "the a an": the tricks scored an exact match on such a question before the fix.
    monkeypatch.setenv("AGENTGYM_CACHE", str(tmp_path / "cache"))
    corpus, questions = tmp_path / "c.jsonl", tmp_path / "q.jsonl"
    corpus.write_text(json.dumps({"id": "d", "title": "Quiz", "text": "The answer is A."})
                      + "\n")
    questions.write_text(json.dumps({"question": "Which option of the quiz is right?",
                                     "answers": ["A"], "gold_ids": ["d"]}) + "\n")
    env = gym.make(ENV_ID, corpus=str(corpus), questions=str(questions))
    info = _play(env, EXPLOITS[trick](), seed=0)
    assert info["reward_components"]["outcome"] == 0.0 and not info["success"]
    env.reset(seed=0)
    *_, info = env.step("<answer>a.</answer>")  # the letter itself still matches
    assert info["exact_match"] == 1.0 and info["success"]
