"""SearchQA-v0's declared kwargs (see :mod:`agentgym.config`).

A stranger (a remote client, a leaderboard bundle) may play the seeded world or the bundled
example corpus, never a file of the host, and a world of at most :data:`PUBLIC_MAX_SCALE`.
Worlds are shared: each (world seed, scale, knobs) is built once per process and kept in a
16-world cache, so sessions on one world cost about 1 KB each; but a session keeps the world
it plays alive past the cache, so 256 sessions that each seed a different world hold 256 of
them (the worst case the ceiling is sized for).

>>> SearchQAConfig.refuse_strangers({"corpus": "example"}, "client")
>>> SearchQAConfig.refuse_strangers({"questions": "/data/nq.jsonl"}, "bundle")
Traceback (most recent call last):
...
agentgym.config.ScopeError: questions is operator-only: a leaderboard bundle may not set it
>>> SearchQAConfig.parse({"min_hops": 3, "max_hops": 2})
Traceback (most recent call last):
...
ValueError: max_hops must be in [3, 3], got 2
"""

from __future__ import annotations

from typing import Literal, Self

from pydantic import model_validator

from agentgym.config import TextEnvConfig, setting

from .world import MAX_SCALE

__all__ = ["NEEDS_CORPUS", "NEEDS_QUESTIONS", "PUBLIC_MAX_SCALE", "SearchQAConfig"]

#: The largest world a stranger may ask for: 3,008 entities and 6,016 passages, built with its
#: index and questions in 0.3-1.5 s and about 6.5 MB each (measured: 256 sessions on 256
#: distinct worlds held 1.7 GB; at scale 100 a world takes 2.5 s and 65 MB: 16 GB for 256).
PUBLIC_MAX_SCALE = 16
NEEDS_CORPUS = "questions=PATH needs corpus=PATH (the seeded world makes its own)"
NEEDS_QUESTIONS = "corpus=PATH needs questions=PATH (JSONL of {question, answers, gold_ids?})"


class SearchQAConfig(TextEnvConfig):
    """The kwargs of :class:`~.env.SearchQAEnv`."""

    corpus: str | None = setting(
        None, "null (the seeded world) | example (the bundled corpus) | a JSONL file of "
        "{id, title, text} (operator only)", public_choices=(None, "example"))
    questions: str | None = setting(
        None, "null | a JSONL file of {question, answers, gold_ids?} (with corpus)",
        scope="operator")
    split: Literal["train", "test"] = setting(
        "train", "train (worlds 1000+) | test (worlds 0-3, 200 questions); the seeded world "
        "only")
    top_k: int = setting(3, "passages per search", ge=1, le=10)
    max_searches: int = setting(4, "searches per episode", ge=1, le=20)
    min_hops: int = setting(1, "fewest hops of a question (drawn uniformly in the range)",
                            ge=1, le=3)
    max_hops: int = setting(3, "most hops of a question, at least min_hops", ge=1, le=3)
    namesakes: bool = setting(
        False, "a third of the people and works share a name with one of another occupation "
        "or medium")
    described: bool = setting(
        False, "the start entity is described by other facts of its hop-1 passage where that "
        "is unique")
    paraphrase: bool = setting(
        False, "the question avoids the passages' words (hometown for born in)")
    comparison: bool = setting(False, "one question in three compares two entities' years")
    scale: int = setting(
        1, "world size: 188 entities and 376 passages a scale (270 is about 100,000 "
        "passages; 742 uses every city name)", ge=1, le=MAX_SCALE,
        public_max=PUBLIC_MAX_SCALE)
    max_steps: int = setting(8, "step budget; running out truncates", ge=1, le=100_000)
    invalid_penalty: float = setting(-0.1, "process reward of an invalid action", le=0)

    @model_validator(mode="after")
    def _consistent(self) -> Self:
        if self.max_hops < self.min_hops:
            raise ValueError(f"max_hops must be in [{self.min_hops}, 3], got {self.max_hops}")
        if self.corpus is None and self.questions is not None:
            raise ValueError(NEEDS_CORPUS)
        if self.corpus not in (None, "example") and not self.questions:
            raise ValueError(NEEDS_QUESTIONS)
        return self
