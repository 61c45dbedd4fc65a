"""The question-as-query baseline of ``agentgym/SearchQA-v0``: ``make_agent("searchqa-question")``.

It searches the question itself once (the "RAG" baseline of the Search-R1 paper: one
retrieval with the question), then answers with a lexical reader: among the answers the env
lists (spans of the retrieved passages), the one whose sentence shares the most words with
the question, skipping spans the question already contains and keeping to numbers when the
question asks for a year or a date ("when", "year"). It reads only what an LLM sees.

>>> from agentgym.environments.searchqa.env import SearchQAEnv
>>> env = SearchQAEnv(corpus="example")
>>> obs, info = env.reset(seed=9)
>>> agent = QuestionAsQueryAgent()
>>> agent.reset(env, seed=9)
>>> while True:
...     obs, reward, terminated, truncated, info = env.step(agent.act(obs, info))
...     if terminated or truncated:
...         break
>>> info["answer"], info["exact_match"]
('Lake Victoria', 1.0)
"""

from __future__ import annotations

import re
from typing import Any, ClassVar

import gymnasium as gym

from agentgym.agents.base import Agent

from .retrieval import tokenize

__all__ = ["QuestionAsQueryAgent", "read_answer"]

_SENTENCE = re.compile(r"(?<=[.!?])\s+")
_DOC = re.compile(r"^Doc \d+\(Title: (.*?)\) (.*)$")


def read_answer(question: str, observation: str, answers: list[str]) -> str | None:
    """The candidate whose passage sentence overlaps the question most (ties: listed first).

    >>> obs = "<information>\\nDoc 1(Title: Tarsk) Tarsk lies on the Ossa. It has a port.\\n"
    >>> read_answer("Which river does Tarsk lie on?", obs, ["Tarsk", "Ossa"])
    'Ossa'
    """
    asked = set(tokenize(question))
    lowered_question = question.lower()
    sentences = []
    for line in observation.splitlines():
        match = _DOC.match(line)
        if match:
            title, text = match.groups()
            sentences += [f"{title}: {s}" for s in _SENTENCE.split(text)]
    wants_number = bool(asked & {"year", "when"})
    typed = [a for a in answers if a.isdigit() == wants_number]
    best, best_score = None, -1
    for answer in typed or answers:
        if answer.lower() in lowered_question:
            continue
        needle = answer.lower()
        score = max((len(asked & set(tokenize(s))) for s in sentences
                     if needle in s.lower().partition(": ")[2]), default=-1)
        if score > best_score:
            best, best_score = answer, score
    return best


class QuestionAsQueryAgent(Agent):
    """One search with the question, then the lexical reader's pick of the listed answers."""

    name: ClassVar[str] = "searchqa-question"
    families: ClassVar[tuple[str, ...]] = ("searchqa",)

    def __init__(self) -> None:
        self._searched = False

    def reset(self, env: gym.Env, *, seed: int | None = None) -> None:
        self._searched = False

    def act(self, observation: str, info: dict[str, Any]) -> str:
        question = observation.splitlines()[0].removeprefix("Question: ")
        if not self._searched:
            self._searched = True
            return f"<search>{question}</search>"
        answers = [a.removeprefix("answer: ") for a in info.get("available_actions", [])
                   if a.startswith("answer: ")]
        guess = read_answer(question, observation, answers)
        return f"<answer>{guess if guess is not None else 'unknown'}</answer>"
