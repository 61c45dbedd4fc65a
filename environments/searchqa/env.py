"""``agentgym/SearchQA-v0``: answer a question by searching a corpus, Search-R1 style.

Each turn the agent may think in free text, then ends the turn with exactly one
``<search>query</search>`` (the top-k passages come back, with their titles) or
``<answer>text</answer>`` (the episode ends and is scored). See :class:`SearchQAEnv`.

>>> env = SearchQAEnv()
>>> obs, info = env.reset(seed=0)
>>> obs.splitlines()[0].startswith("Question: ")
True
>>> obs, reward, terminated, truncated, info = env.step(env.oracle_actions()[0])
>>> info["valid_action"], terminated
(True, False)
"""

from __future__ import annotations

import os
import typing
from functools import lru_cache
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

from agentgym.core import TEXT_CHARSET, Outcome, TextEnv
from agentgym.draws import below
from agentgym.memo import ByteCache

from .byo import EXAMPLE_CORPUS, EXAMPLE_QUESTIONS, cached_index, load_corpus, load_questions
from .config import NEEDS_CORPUS, NEEDS_QUESTIONS, SearchQAConfig
from .corpus import Question, SearchTask, span_candidates
from .metrics import exact_match, f1_score
from .questions import Knobs, make_questions
from .retrieval import PassageIndex, fold
from .rewards import gold_share, search_gain
from .turns import format_turn, parse_turn
from .world import World, build_world

__all__ = ["QUESTIONS_PER_WORLD", "SPLITS", "TEST_WORLDS", "SearchQAEnv", "load_task"]

#: Questions drawn from each seeded world: episode seed ``s`` plays question ``s % 50``.
QUESTIONS_PER_WORLD = 50
#: The world seeds of the test split (seeds 0..199 play their 200 questions once each);
#: the train split's worlds are 1000, 1001, ... (episode seed ``s`` -> world ``1000 + s // 50``),
#: so no train question is asked about a test world.
TEST_WORLDS: tuple[int, ...] = (0, 1, 2, 3)
TRAIN_WORLD_BASE = 1000
SPLITS: tuple[str, ...] = typing.get_args(SearchQAConfig.model_fields["split"].annotation)
#: Passage text shown per result (characters) before it is cut, for ``top_k`` results in all.
_SHOWN_TEXT = 6000
_SHOWN_QUERIES = 5  # earlier queries echoed in an observation (the newest)
_MAX_LISTED = 48  # candidate searches (and answers) listed in available_actions
_PRINTABLE = frozenset(TEXT_CHARSET) - frozenset("\r\t\x0b\x0c")


def _plain(text: str, limit: int) -> str:
    """``text`` folded to the observation charset (accents dropped) and cut to ``limit``."""
    clean = "".join(c if c in _PRINTABLE else " " for c in fold(text))
    clean = " ".join(clean.split())
    return clean if len(clean) <= limit else clean[: limit - 3].rstrip() + "..."


# ---------------------------------------------------------------------------- the tasks
def _world_reveals(world: World):
    def reveals(position: int) -> tuple[tuple[str, ...], tuple[str, ...]]:
        keys = world.mentions[position]
        queries = tuple(world.by_key[k].query for k in keys)
        names = tuple(world.by_key[k].name for k in keys)
        return queries, tuple(dict.fromkeys((*names, *world.values[position])))

    return reveals


def _task_bytes(task: SearchTask) -> int:
    """A world's memory, estimated: 6 bytes a character of passage text (passages, index and
    questions together; tracemalloc measured 5.5-5.9 at scales 4, 16 and 48)."""
    return 6 * sum(len(p.title) + len(p.text) for p in task.passages)


def _cache_budget() -> int:
    raw = os.environ.get("AGENTGYM_SEARCHQA_CACHE_MB", "1024")
    if not raw.strip().isdigit():
        raise ValueError(f"AGENTGYM_SEARCHQA_CACHE_MB must be a whole number of MB, got {raw!r}")
    return int(raw) * 2**20


#: The seeded worlds kept for the next session of the same world, bounded in bytes (1 GiB;
#: ``AGENTGYM_SEARCHQA_CACHE_MB`` sets it): about 100 worlds of the default scale, 5 at scale
#: 300, 2 at 742. A world a session plays stays alive while the session does, cached or not.
WORLD_CACHE: ByteCache[SearchTask] = ByteCache(_cache_budget(), _task_bytes)


def _world_task(world_seed: int, scale: int, namesakes: bool, knobs: Knobs) -> SearchTask:
    """The seeded world's passages, index and questions: built once per process and world
    while :data:`WORLD_CACHE` keeps it."""
    return WORLD_CACHE.get((world_seed, scale, namesakes, knobs),
                           lambda: _build_world_task(world_seed, scale, namesakes, knobs))


def _build_world_task(world_seed: int, scale: int, namesakes: bool, knobs: Knobs) -> SearchTask:
    world = build_world(world_seed, scale=scale, namesakes=namesakes)
    index = PassageIndex.build([p.indexed_text() for p in world.passages])
    questions = make_questions(world, count=QUESTIONS_PER_WORLD, seed=0, knobs=knobs,
                               index=index)
    return SearchTask(world.passages, index, questions, _world_reveals(world),
                      name=f"world {world_seed}", positions=world.positions)


def _file_key(path: Path) -> tuple[str, int, int]:
    stat = path.stat()
    return str(path), stat.st_size, stat.st_mtime_ns


@lru_cache(maxsize=4)
def _byo_task(corpus: tuple[str, int, int], questions: tuple[str, int, int]) -> SearchTask:
    corpus_path, questions_path = Path(corpus[0]), Path(questions[0])
    passages = load_corpus(corpus_path)
    qs = load_questions(questions_path, {p.id for p in passages})
    index = cached_index(corpus_path, passages)

    def reveals(position: int) -> tuple[tuple[str, ...], tuple[str, ...]]:
        return span_candidates(passages[position])

    return SearchTask(passages, index, qs, reveals, name=corpus_path.name)


def _resolve_files(corpus: str, questions: str | None) -> tuple[Path, Path]:
    """The two files to load; ``corpus="example"`` is the bundled example (its questions
    unless others are given)."""
    if corpus == "example":
        paths = EXAMPLE_CORPUS, Path(questions).expanduser() if questions else EXAMPLE_QUESTIONS
    elif not questions:
        raise ValueError(NEEDS_QUESTIONS)
    else:
        paths = Path(corpus).expanduser(), Path(questions).expanduser()
    for what, path in zip(("corpus", "questions"), paths, strict=True):
        if not path.is_file():
            raise ValueError(f"{what} file {str(path)!r} does not exist")
    return paths


def load_task(corpus: str | None = None, questions: str | None = None, *,
              world_seed: int = 0, scale: int = 1, namesakes: bool = False,
              knobs: Knobs | None = None) -> SearchTask:
    """A corpus from disk (``corpus=PATH`` or ``"example"``) or the seeded world of
    ``world_seed``, with its index and questions (memoised per process).

    >>> load_task("example").questions[0].answers
    ('Leiden',)
    """
    if corpus is None:
        if questions is not None:
            raise ValueError(NEEDS_CORPUS)
        return _world_task(world_seed, scale, namesakes, knobs or Knobs())
    corpus_path, questions_path = _resolve_files(corpus, questions)
    return _byo_task(_file_key(corpus_path.resolve()), _file_key(questions_path.resolve()))


class SearchQAEnv(TextEnv):
    """Open-domain question answering by search, in Search-R1's action format.

    Observation: the question, the searches and steps left, and the top ``top_k`` passages of
    the last search (``Doc i(Title: ...) text`` inside ``<information>``, as Search-R1 shows
    them). Actions: ``<search>query</search>`` or ``<answer>text</answer>`` after any
    thinking; the bare ``search: query`` / ``answer: text`` (what ``available_actions``
    lists) and both inside ``<action>...</action>`` work too. A turn with no tag, both tags,
    an empty or over-long query, or a search once ``max_searches`` are spent is invalid (the
    contract's penalty and ``max_invalid``).

    Rewards: the outcome is the answer's exact match (after lower-casing and stripping
    punctuation, articles and extra spaces), with token F1 in ``info["f1"]``; the process
    reward is potential-based on the share of gold passages retrieved so far (each search
    earns the share it adds; a repeated query and the answer earn nothing), so it sums to the
    final share. ``score_actions`` gives each candidate query the share it would add.

    ``info`` on every step: ``searches``, ``results`` (the shown passages' ids) and
    ``gold_retrieved`` (the process rewards' sum so far); the final step adds ``answer``,
    ``exact_match``, ``f1``, ``answers``, and what the question was: ``hops``,
    ``question_kind`` and ``corpus`` (hidden until then: ``agentgym audit`` checks it).

    Corpus: by default a seeded fictional encyclopedia (``split="train"``: worlds 1000+,
    ``"test"``: worlds 0-3, 200 questions) with the difficulty knobs ``min_hops`` /
    ``max_hops``, ``namesakes``, ``described``, ``paraphrase`` and ``comparison``; or a
    corpus from disk: ``corpus=PATH`` (JSONL ``{id, title, text}``) with ``questions=PATH``
    (JSONL ``{question, answers, gold_ids?}``), or ``corpus="example"`` for the bundled one.

    Kwargs: declared in :class:`.config.SearchQAConfig`. A remote client or a leaderboard
    bundle may not name a file (``corpus`` is ``None`` or ``"example"`` for them,
    ``questions`` is the operator's) nor ask for a world past ``scale=16``.
    """

    verifier_name: ClassVar[str] = "searchqa-exact-match"
    verifier_version: ClassVar[str] = "1"
    #: Search-R1 samples each turn up to its tag's end; the tagged ``<action>`` form works too.
    stop_sequences: ClassVar[tuple[str, ...]] = ("</search>", "</answer>", "</action>")
    max_observation_length: ClassVar[int] = 8192
    #: Room for the thinking before the one tag (the query itself is capped much lower).
    max_action_length: ClassVar[int] = 16384
    config_model = SearchQAConfig

    def __init__(
        self,
        *,
        corpus: str | None = None,
        questions: str | None = None,
        split: str = "train",
        top_k: int = 3,
        max_searches: int = 4,
        min_hops: int = 1,
        max_hops: int = 3,
        namesakes: bool = False,
        described: bool = False,
        paraphrase: bool = False,
        comparison: bool = False,
        scale: int = 1,
        reward_mode: str = "both",
        render_mode: str | None = None,
        score_process: bool = True,
        max_steps: int = 8,
        invalid_penalty: float = -0.1,
        max_invalid: int = 3,
    ) -> None:
        cfg = SearchQAConfig.of(locals(), owner="SearchQAEnv")
        super().__init__(**cfg.contract())
        self.split = cfg.split
        self.top_k = cfg.top_k
        self.max_searches = cfg.max_searches
        self.min_hops = cfg.min_hops
        self.max_hops = cfg.max_hops
        self.namesakes = cfg.namesakes
        self.described = cfg.described
        self.paraphrase = cfg.paraphrase
        self.comparison = cfg.comparison
        self.scale = cfg.scale
        self.corpus, self.questions = cfg.corpus, cfg.questions
        self._knobs = Knobs(self.min_hops, self.max_hops, self.described, self.paraphrase,
                            self.comparison)
        # A corpus from disk is loaded (and indexed) now, so a bad file fails at make time,
        # naming its line, and no episode ever sees half a corpus.
        self._fixed_task = (load_task(cfg.corpus, cfg.questions)
                            if cfg.corpus is not None else None)
        self._task: SearchTask | None = None
        self._task_seed = 0
        self._question: Question | None = None
        self._reset_fields()

    def _reset_fields(self) -> None:
        self._queries: list[str] = []
        self._retrieved: list[int] = []
        self._last: list[int] = []
        self._answer: str | None = None

    # ------------------------------------------------------------------ the text
    @property
    def rules(self) -> str:  # type: ignore[override]
        return (
            "Answer the question by searching a corpus. Each turn, think if you like, then end "
            "the turn with exactly one of:\n"
            "  <search>QUERY</search>  the top passages for QUERY come back, with their "
            f"titles ({self.top_k} per search, at most {self.max_searches} searches);\n"
            "  <answer>TEXT</answer>   your final answer; the episode ends.\n"
            "The answer is scored by exact match after lower-casing and removing punctuation "
            "and articles, so answer with the short span only (a name, a year, a word). "
            "Questions may need several searches: find the entity the question leads to, "
            "then search for it by name."
        )

    def system_prompt(self) -> str:
        return (
            f"{self.rules}\n\nEnd every turn with one <search>...</search> or "
            "<answer>...</answer> tag (the bare 'search: QUERY' or 'answer: TEXT' inside "
            "<action>...</action> is accepted too)."
        )

    def _config(self) -> dict[str, Any]:
        return {
            "corpus": self.corpus, "questions": self.questions, "split": self.split,
            "top_k": self.top_k, "max_searches": self.max_searches,
            "min_hops": self.min_hops, "max_hops": self.max_hops,
            "namesakes": self.namesakes, "described": self.described,
            "paraphrase": self.paraphrase, "comparison": self.comparison, "scale": self.scale,
        }

    # ------------------------------------------------------------------ episodes
    def _load(self, task_seed: int) -> None:
        """Point the episode at the question of ``task_seed`` (the world is memoised)."""
        if self._fixed_task is not None:
            task = self._fixed_task
            question = task.questions[task_seed % len(task.questions)]
        else:
            block, index = divmod(task_seed, QUESTIONS_PER_WORLD)
            if self.split == "test":
                world_seed = TEST_WORLDS[block % len(TEST_WORLDS)]
            else:
                world_seed = TRAIN_WORLD_BASE + block
            task = load_task(world_seed=world_seed, scale=self.scale,
                             namesakes=self.namesakes, knobs=self._knobs)
            question = task.questions[index]
        self._task, self._task_seed, self._question = task, task_seed, question
        self._gold = {task.positions[g] for g in question.gold_ids}

    def _new_episode(self, rng: np.random.Generator, options: dict[str, Any]) -> None:
        seed = self.episode_seed
        if seed is None:
            seed = below(rng, self.task_count() if self.task_count() else 2**31)
        self._load(seed)
        self._reset_fields()

    def task_count(self) -> int:
        """Questions in the fixed task list (0 for the seeded train split: it is unbounded).

        >>> SearchQAEnv(split="test").task_count()
        200
        """
        if self._fixed_task is not None:
            return len(self._fixed_task.questions)
        return 0 if self.split == "train" else QUESTIONS_PER_WORLD * len(TEST_WORLDS)

    @property
    def question(self) -> Question:
        """The episode's question, answers and gold passages (an oracle's view)."""
        self._require_started()
        assert self._question is not None
        return self._question

    @property
    def searches_left(self) -> int:
        return self.max_searches - len(self._queries)

    def _observe(self) -> str:
        q, task = self.question, self._task
        lines = [f"Question: {_plain(q.question, 1000)}"]
        if self._answer is not None:
            lines.append(f"Your answer: {_plain(self._answer, 600)}. The episode is over.")
            return "\n".join(lines)
        lines.append(f"Searches left: {self.searches_left} of {self.max_searches}. "
                     f"Steps left: {self.steps_left}.")
        if self._queries:
            earlier = self._queries[:-1][-_SHOWN_QUERIES:]
            if earlier:
                lines.append("Earlier searches: "
                             + "; ".join(f'"{_plain(s, 80)}"' for s in earlier))
            lines.append(f'Results for "{_plain(self._queries[-1], 200)}":')
            lines.append("<information>")
            if not self._last:
                lines.append("No passage contains a word of this query.")
            room = _SHOWN_TEXT // self.top_k
            for rank, pos in enumerate(self._last, start=1):
                p = task.passages[pos]
                lines.append(f"Doc {rank}(Title: {_plain(p.title, 120)}) {_plain(p.text, room)}")
            lines.append("</information>")
        if self.is_over:
            lines.append("The episode is over.")
        elif self.searches_left:
            lines.append("Reply with <search>query</search> or <answer>text</answer>.")
        else:
            lines.append("No searches left: reply with <answer>text</answer>.")
        return "\n".join(lines)

    def candidates(self) -> tuple[list[str], list[str]]:
        """Queries and answers the agent has seen so far: the question and the entities it
        names, then what the retrieved passages mention (newest first), duplicates and
        already-made queries dropped; at most 48 of each."""
        q, task = self.question, self._task
        searched = {" ".join(s.lower().split()) for s in self._queries}
        queries: list[str] = [q.question, *q.named]
        answers: list[str] = []
        for pos in reversed(self._retrieved):
            found_queries, found_answers = task.reveals(pos)
            queries.extend(found_queries)
            answers.extend(found_answers)
        queries = [s for s in dict.fromkeys(_plain(s, 200) for s in queries)
                   if s and s.lower() not in searched]
        answers = [a for a in dict.fromkeys(_plain(a, 200) for a in answers) if a]
        return queries[:_MAX_LISTED], answers[:_MAX_LISTED]

    def _legal_actions(self) -> list[str] | None:
        queries, answers = self.candidates()
        listed = [format_turn("search", s) for s in queries] if self.searches_left else []
        return listed + [format_turn("answer", a) for a in answers]

    def _parse(self, action: str) -> tuple[Any, str]:
        return parse_turn(action)

    # ------------------------------------------------------------------ rules and rewards
    def _gain(self, query: str) -> tuple[list[int], float]:
        """The results of ``query`` and the share of gold passages they add (0 for a repeat)."""
        results = self._task.search(query, self.top_k)
        norm = " ".join(query.lower().split())
        if any(" ".join(s.lower().split()) == norm for s in self._queries):
            return results, 0.0
        return results, search_gain(self._gold, self._retrieved, results)

    def _apply(self, move: tuple[str, str]) -> Outcome:
        kind, content = move
        if kind == "search":
            if not self.searches_left:
                return Outcome(valid=False, error=f"no searches left (the limit is "
                               f"{self.max_searches}); reply with <answer>text</answer>")
            results, gain = self._gain(content)
            self._queries.append(content)
            self._last = results
            self._retrieved.extend(r for r in results if r not in self._retrieved)
            return Outcome(process=gain, info=self._search_info())
        self._answer = content
        answers = self.question.answers
        em, f1 = exact_match(content, answers), f1_score(content, answers)
        return Outcome(outcome=em, terminated=True, success=em == 1.0,
                       info={**self._search_info(), "answer": content, "exact_match": em,
                             "f1": f1, "answers": list(answers)})

    def _score(self, move: tuple[str, str], snapshot: bytes) -> float:
        kind, content = move
        if kind == "search":
            if not self.searches_left:
                return self.invalid_penalty
            return self._gain(content)[1]
        return 0.0

    def _search_info(self) -> dict[str, Any]:
        """What every step's ``info`` carries: only what the agent already knows. The number
        of searches is on the observation's "Searches left" line, the result ids name the
        passages it shows, and ``gold_retrieved`` is the sum of the process rewards paid."""
        return {
            "searches": len(self._queries),
            "results": [self._task.passages[i].id for i in self._last],
            "gold_retrieved": gold_share(self._gold, self._retrieved),
        }

    def _task_info(self) -> dict[str, Any]:
        """What the question is, for the final step's ``info`` only (per-hop metrics).

        Hidden while the episode runs: ``hops`` counts the gold passages (how many searches
        to make), and ``corpus`` names the seeded world, whose answers the public generator
        can rebuild; neither is on the observation.
        """
        return {"hops": self.question.hops, "question_kind": self.question.kind,
                "corpus": self._task.name}

    def _on_end(self, out: Outcome) -> None:
        out.info.update(self._task_info())
        if self._answer is None:  # cut off before answering: scored as a wrong answer
            out.info.setdefault("exact_match", 0.0)
            out.info.setdefault("f1", 0.0)
            out.info.setdefault("answers", list(self.question.answers))

    # ------------------------------------------------------------------ oracle
    def oracle_actions(self) -> list[str]:
        """The searches that add the most gold passages; once none adds any (or no search
        is left), the gold answer."""
        self._require_started()
        if self.is_over:
            return []
        queries, _ = self.candidates()
        if self.searches_left and queries:
            searches = [format_turn("search", s) for s in queries]
            scores = self.score_actions(searches)
            best = max(scores)
            if best > 0:
                return [a for a, s in zip(searches, scores, strict=True) if s == best]
        return [format_turn("answer", _plain(self.question.answers[0], 200))]

    # ------------------------------------------------------------------ snapshots
    def _state_dict(self) -> dict[str, Any]:
        return {"task_seed": self._task_seed, "queries": list(self._queries),
                "retrieved": list(self._retrieved), "last": list(self._last),
                "answer": self._answer}

    def _load_state_dict(self, state: dict[str, Any]) -> None:
        self._load(int(state["task_seed"]))
        self._queries = [str(s) for s in state["queries"]]
        self._retrieved = [int(i) for i in state["retrieved"]]
        self._last = [int(i) for i in state["last"]]
        self._answer = state["answer"]
