"""Questions of 1 to 3 hops built from a world's relations, answerable by search alone.

A chain question starts at an entity the question names (or describes), follows relations
to bridge entities the question never names, and asks a fact of the last one: "In which
country was the creator of Hussar born?" needs Hussar's passage (its creator), the
creator's (the birthplace) and the birthplace's (its country), three gold passages in hop
order. A comparison question names two entities and asks which has the earlier year.

Construction rules keep every question answerable and each hop necessary:

* the chain visits distinct entities and its answer is none of them;
* no later-hop gold passage contains the start entity's name, so the question's words lead
  to the first hop only; each bridge is named in the passage before it;
* a described start entity is described by other facts of its hop-1 passage that no other
  entity of its kind shares;
* checked against the world's BM25 index (top :data:`CHECK_K`): the question alone
  retrieves its hop-1 passage (both passages of a comparison) and no later-hop passage, and
  searching the bridges in turn retrieves every gold passage. A draw that fails is redrawn
  (0-20% of draws; :func:`make_questions` counts them).

Knobs: ``min_hops``/``max_hops``, ``described`` (start entities described, not named),
``paraphrase`` (question wording avoids the passages' words: "hometown" for "born in"),
``comparison`` (one question in three compares two entities).

>>> from .world import build_world
>>> qs = make_questions(build_world(0), count=5, seed=0)
>>> len(qs), all(1 <= q.hops <= 3 and len(q.gold_ids) == q.hops for q in qs)
(5, True)
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from agentgym.draws import Draws

from .corpus import Question
from .retrieval import PassageIndex
from .world import RELATIONS, Entity, World

__all__ = ["CHECK_K", "Knobs", "make_questions", "retrieval_checks"]

#: The top-k the construction checks retrieval at (the env's default ``top_k``).
CHECK_K = 3

_QUESTION_STREAM = 0x9A3571

#: Noun phrases for "the <relation> of X" (plain wording, paraphrased wording).
_HOP_PHRASES: dict[str, tuple[str, str]] = {
    "birthplace": ("the birthplace of {x}", "the hometown of {x}"),
    "employer": ("the employer of {x}", "the firm that employed {x}"),
    "headquarters": ("the city where {x} is headquartered", "the city {x} is based in"),
    "founder": ("the founder of {x}", "the person who set up {x}"),
    "creator": ("the creator of {x}", "the person behind {x}"),
    "publisher": ("the publisher of {x}", "the company that brought out {x}"),
    "country": ("the country {x} is in", "the nation {x} belongs to"),
    "capital": ("the capital of {x}", "the seat of government of {x}"),
}
#: Final questions about a fact of X (plain, paraphrased).
_FINALS: dict[str, tuple[str, str]] = {
    "occupation": ("What is the occupation of {x}?", "What does {x} do for a living?"),
    "birthplace": ("In which city was {x} born?", "What is the hometown of {x}?"),
    "birth_year": ("In what year was {x} born?", "What year did {x} come into the world?"),
    "employer": ("Which organisation did {x} work for?", "Which firm employed {x}?"),
    "industry": ("What industry is {x} in?", "What line of business is {x} in?"),
    "headquarters": ("In which city is {x} headquartered?", "Where is {x} based?"),
    "founded": ("In what year was {x} founded?", "When was {x} set up?"),
    "founder": ("Who founded {x}?", "Who set up {x}?"),
    "genre": ("What genre is {x}?", "What kind of story does {x} tell?"),
    "creator": ("Who created {x}?", "Who is behind {x}?"),
    "released": ("In what year was {x} released?", "When did {x} come out?"),
    "publisher": ("Which company published {x}?", "Which company brought out {x}?"),
    "country": ("In which country is {x}?", "Which nation does {x} belong to?"),
    "city_founded": ("In what year was {x} founded?", "When was {x} settled?"),
    "river": ("Which river flows through {x}?", "Which river runs past {x}?"),
    "capital": ("What is the capital of {x}?", "What is the seat of government of {x}?"),
    "independence": ("In what year did {x} become independent?",
                     "When did {x} gain sovereignty?"),
    "currency": ("What is the currency of {x}?", "What money is used in {x}?"),
}
#: Comparison questions: the year fact compared, (plain, paraphrased) wording.
_COMPARE: dict[str, tuple[str, tuple[str, str]]] = {
    "person": ("birth_year", ("Who was born first, {a} or {b}?",
                              "Who is older, {a} or {b}?")),
    "organisation": ("founded", ("Which was founded first, {a} or {b}?",
                                 "Which is older, {a} or {b}?")),
    "work": ("released", ("Which was released first, {a} or {b}?",
                          "Which came out earlier, {a} or {b}?")),
    "city": ("city_founded", ("Which city was founded first, {a} or {b}?",
                              "Which city is older, {a} or {b}?")),
}
#: Relative clauses that describe an entity by a fact of its first section.
_CLAUSES: dict[str, str] = {
    "birthplace": "born in {v}", "birth_year": "born in {v}",
    "headquarters": "headquartered in {v}", "founded": "founded in {v}",
    "creator": "made by {v}", "released": "released in {v}",
    "country": "in {v}", "city_founded": "founded in {v}",
    "capital": "whose capital is {v}", "independence": "independent since {v}",
}


@dataclass(frozen=True)
class Knobs:
    """The difficulty settings questions are built with."""

    min_hops: int = 1
    max_hops: int = 3
    described: bool = False
    paraphrase: bool = False
    comparison: bool = False


def _head(e: Entity) -> str:
    """The noun a description starts with ("the novelist", "the mystery film")."""
    if e.kind == "person":
        return f"the {e.label}"
    if e.kind == "organisation":
        return f"the {e.label} company"
    if e.kind == "work":
        return f"the {e.facts['genre']} {e.label}"
    return f"the {e.kind}"


def _value_mention(world: World, e: Entity, rel: str) -> str:
    value = e.facts[rel]
    return world.by_key[value].mention if RELATIONS[rel].target else value


def _describe(world: World, e: Entity, skip: str) -> str | None:
    """A unique description of ``e`` by its first-section facts other than ``skip``."""
    if RELATIONS[skip].section != 0:
        return None  # the description must lead to the passage that holds the asked fact
    rels = [r for r in _CLAUSES if r in e.facts and r != skip and RELATIONS[r].section == 0]
    peers = [o for o in world.of_kind(e.kind) if o.key != e.key and _head(o) == _head(e)]
    for combo in [[r] for r in rels] + [rels[i : i + 2] for i in range(len(rels) - 1)]:
        if all(any(o.facts.get(r) != e.facts[r] for r in combo) for o in peers):
            clauses = " and ".join(_CLAUSES[r].format(v=_value_mention(world, e, r))
                                   for r in combo)
            return f"{_head(e)} {clauses}"
    return None


def _chain(d: Draws, world: World, knobs: Knobs, hops: int) -> Question | None:
    start = world.entities[d.below(len(world.entities))]
    path, rels = [start], []
    for _ in range(hops - 1):
        links = [r for r in path[-1].facts if RELATIONS[r].target and r in _HOP_PHRASES]
        rel = d.pick(links)
        nxt = world.by_key[path[-1].facts[rel]]
        if nxt in path:
            return None
        rels.append(rel)
        path.append(nxt)
    final = d.pick(sorted(path[-1].facts))
    if RELATIONS[final].target and world.by_key[path[-1].facts[final]] in path:
        return None
    gold = tuple(world.passage_id(e, r) for e, r in zip(path, [*rels, final], strict=True))
    start_word = start.name.lower()
    if any(start_word in world.passage(g).text.lower() for g in gold[1:]):
        return None
    style = 1 if knobs.paraphrase else 0
    subject = _describe(world, start, rels[0] if rels else final) if knobs.described else None
    described = subject is not None
    phrase = subject if described else start.mention
    for rel in rels:
        phrase = _HOP_PHRASES[rel][style].format(x=phrase)
    text = _FINALS[final][style].format(x=phrase)
    text = text[0].upper() + text[1:]
    answer = world.fact_text(path[-1], final)
    if answer.lower() in text.lower():
        return None  # "the occupation of the novelist X" answers itself
    bridges = (text, *(e.query for e in path[1:]))
    named = () if described else (start.query,)
    return Question(text, (answer,), gold, bridges, hops, "chain", named)


def _comparison(d: Draws, world: World, knobs: Knobs) -> Question | None:
    kind = d.pick(sorted(_COMPARE))
    rel, wording = _COMPARE[kind]
    a, b = d.sample(world.of_kind(kind), 2)
    if a.facts[rel] == b.facts[rel] or a.name == b.name:
        return None
    first = a if int(a.facts[rel]) < int(b.facts[rel]) else b
    text = wording[1 if knobs.paraphrase else 0].format(a=a.mention, b=b.mention)
    text = text[0].upper() + text[1:]
    gold = (world.passage_id(a, rel), world.passage_id(b, rel))
    return Question(text, (first.name,), gold, (a.query, b.query), 2, "comparison",
                    (a.query, b.query))


def retrieval_checks(q: Question, search: Callable[[str], set[str]]) -> dict[str, bool]:
    """Whether ``q`` meets the retrieval rules, given ``search(query) -> top passage ids``.

    ``hop1``: the question alone retrieves the hop-1 passage (a comparison: both);
    ``later_hidden``: it retrieves no later-hop passage; ``bridges``: the bridge searches in
    turn retrieve every gold passage.
    """
    top = search(q.question)
    first = set(q.gold_ids) if q.kind == "comparison" else set(q.gold_ids[:1])
    later = set() if q.kind == "comparison" else set(q.gold_ids[1:])
    found: set[str] = set()
    for bridge in q.bridges:
        found |= search(bridge)
    return {"hop1": first <= top, "later_hidden": not (later & top),
            "bridges": set(q.gold_ids) <= found}


def make_questions(
    world: World, *, count: int, seed: int, knobs: Knobs | None = None,
    index: PassageIndex | None = None, stats: dict[str, int] | None = None,
) -> list[Question]:
    """``count`` distinct questions about ``world``, the same for the same seed and knobs.

    ``index`` is the world's BM25 index (built here when not given); ``stats``, when given,
    receives ``drawn`` and ``redrawn`` (draws that failed the retrieval checks).
    """
    knobs = knobs or Knobs()
    if index is None:
        index = PassageIndex.build([p.indexed_text() for p in world.passages])

    def search(query: str) -> set[str]:
        return {world.passages[i].id for i in index.search(query, CHECK_K)}

    redrawn = 0
    if not 1 <= knobs.min_hops <= knobs.max_hops <= 3:
        raise ValueError(f"need 1 <= min_hops <= max_hops <= 3, got {knobs.min_hops} and "
                         f"{knobs.max_hops}")
    d = Draws(np.random.default_rng([world.seed, seed, _QUESTION_STREAM]))
    out: list[Question] = []
    seen: set[str] = set()
    tries = 0
    while len(out) < count:
        # The shape is drawn once per question and kept while its draws are retried, so the
        # mix of hop counts is uniform, not tilted towards the shapes that rarely fail.
        compare = knobs.comparison and knobs.min_hops <= 2 <= knobs.max_hops and d.below(3) == 0
        hops = knobs.min_hops + d.below(knobs.max_hops - knobs.min_hops + 1)
        while True:
            tries += 1
            if tries > 200 * count:
                raise RuntimeError(f"could not build {count} questions for world {world.seed}")
            q = _comparison(d, world, knobs) if compare else _chain(d, world, knobs, hops)
            if q is None or q.question in seen:
                continue
            if all(retrieval_checks(q, search).values()):
                break
            redrawn += 1
        seen.add(q.question)
        out.append(q)
    if stats is not None:
        stats.update(drawn=len(out) + redrawn, redrawn=redrawn)
    return out
