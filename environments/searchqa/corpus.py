"""Passages, questions and the search task an episode plays: one shape for every corpus.

A :class:`SearchTask` is a list of passages, their BM25 index, the questions asked of them
and, per passage, what reading it reveals: the phrases one could search next and the spans
one could answer with (the candidate actions an env lists). The seeded world
(:mod:`.world`) knows these exactly; a corpus from disk (:mod:`.byo`) extracts them from the
text (titles, capitalised phrases, numbers).

>>> p = Passage("d1", "Tarsk", "Tarsk is a city in Veloria.")
>>> p.indexed_text()
'Tarsk. Tarsk is a city in Veloria.'
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from .retrieval import PassageIndex, tokenize

__all__ = ["Passage", "Question", "SearchTask", "span_candidates"]


@dataclass(frozen=True, slots=True)
class Passage:
    """One retrievable unit: an id, the title of its article and its text."""

    id: str
    title: str
    text: str

    def indexed_text(self) -> str:
        """What BM25 reads: the title, then the text (as wiki-18 passages are indexed)."""
        return f"{self.title}. {self.text}"


@dataclass(frozen=True, slots=True)
class Question:
    """A question, its gold answers and (when known) the passages that answer it.

    ``gold_ids`` are in hop order. ``bridges`` (seeded world only) are the queries that
    retrieve them in turn: the question itself for the first hop, then each bridge entity.
    ``hops`` counts the reasoning steps (a comparison of two entities is 2); ``kind`` is
    ``"chain"``, ``"comparison"`` or ``"given"`` (a question file's).
    """

    question: str
    answers: tuple[str, ...]
    gold_ids: tuple[str, ...] = ()
    bridges: tuple[str, ...] = ()
    hops: int = 1
    kind: str = "given"
    #: Entity mentions the question names (searchable from the start).
    named: tuple[str, ...] = ()


@dataclass
class SearchTask:
    """What episodes play: passages, their index, the questions, and what passages reveal."""

    passages: Sequence[Passage]
    index: PassageIndex
    questions: Sequence[Question]
    #: ``reveals(position) -> (queries, answers)``: candidate searches and answers that
    #: reading the passage at ``position`` makes available.
    reveals: Callable[[int], tuple[tuple[str, ...], tuple[str, ...]]]
    name: str = ""
    positions: dict[str, int] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not self.positions:
            self.positions = {p.id: i for i, p in enumerate(self.passages)}

    def search(self, query: str, k: int) -> list[int]:
        """Positions of the top ``k`` passages for ``query``."""
        return self.index.search(query, k)


_NUMBER = re.compile(r"\b\d{1,4}\b")
# Runs of capitalised words, allowing short joiners inside ("Bank of Tarsk").
_PHRASE = re.compile(r"\b[A-Z][\w'-]*(?:\s+(?:of|de|the|and|von|van|la|le)?\s*[A-Z][\w'-]*)*")
_MAX_SPAN = 60


def span_candidates(passage: Passage) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """Candidate queries (the title, capitalised phrases) and answers (those plus numbers) a
    passage of an unknown corpus reveals, in order of appearance, duplicates dropped.

    >>> span_candidates(Passage("1", "Tarsk", "Founded in 1203, Tarsk is on the Ossa. It is old."))
    (('Tarsk', 'Founded', 'Ossa'), ('Tarsk', 'Founded', 'Ossa', '1203'))
    """
    phrases = [passage.title.strip()]
    for m in _PHRASE.finditer(passage.text):
        phrase = m.group(0).strip()
        # "The Vistula" -> "Vistula": a leading article is the sentence's, not the name's.
        head, _, rest = phrase.partition(" ")
        phrases.append(rest if head in ("The", "A", "An") and rest else phrase)
    # A lone capitalised stop word ("He", "The") starts a sentence; it names nothing.
    queries = tuple(dict.fromkeys(p for p in phrases
                                  if p and len(p) <= _MAX_SPAN and tokenize(p)))
    numbers = tuple(dict.fromkeys(_NUMBER.findall(passage.text)))
    return queries, tuple(dict.fromkeys((*queries, *numbers)))
