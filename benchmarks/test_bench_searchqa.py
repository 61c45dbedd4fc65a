"""SearchQA-v0 on a 100,000-passage seeded world: search latency and env steps.

Corpus: the seeded world at ``scale=270`` (101,520 passages, built once per run, ~10 s).
Queries: the world's 50 questions and their bridge searches (what the oracle and the
question-as-query baseline send), cycled.

* ``searchqa-search``: one top-3 query. Ours: :class:`PassageIndex` (a ``bm25s`` score
  matrix; postings of the query's tokens summed, then a partial sort). Peer: ``rank_bm25``'s
  ``BM25Okapi`` (pure Python; ``get_scores`` then the same top-3 partial sort) over the same
  tokens with the same ``k1=1.2, b=0.75``. Both sides get pre-tokenised corpora; the query is
  tokenised inside the timed call on both sides. p50 / p95 of our side are recorded in
  ``extra_info``.
* ``searchqa-step``: ``env.step`` over oracle episodes of two searches and an answer on the
  100k world (observation text, candidate actions and the process reward included), with
  and without ``score_process``. No peer: Search-R1's own env is a retrieval server plus a
  training loop, not a steppable env.
"""

from __future__ import annotations

import itertools
from functools import lru_cache
from typing import Any

import numpy as np
from bench_common import OursEpisode, bench_ours_steps, describe, make_ours, scaled
from peers import peer_label, require_peer

ENV_ID = "agentgym/SearchQA-v0"
SCALE = 270  # 101,520 passages
WORLD_SEED = 1000  # the train split's first world: episode seeds 0..49 play its questions
K = 3
QUESTIONS = 50  # per world


@lru_cache(maxsize=1)
def _task() -> Any:
    from agentgym.environments.searchqa.env import load_task

    return load_task(world_seed=WORLD_SEED, scale=SCALE)


@lru_cache(maxsize=1)
def _queries() -> tuple[str, ...]:
    task = _task()
    return tuple(dict.fromkeys(b for q in task.questions for b in q.bridges))


def _percentiles(benchmark: Any) -> dict[str, float]:
    data = np.asarray(benchmark.stats.stats.data) * 1e3
    return {"p50_ms": round(float(np.percentile(data, 50)), 4),
            "p95_ms": round(float(np.percentile(data, 95)), 4)}


def test_searchqa_search_agentgym(benchmark: Any) -> None:
    """Top-3 BM25 over 101,520 passages with ``PassageIndex.search`` (bm25s scores)."""
    task = _task()
    queries = itertools.cycle(_queries())
    describe(benchmark, group="searchqa-search", side="agentgym",
             impl=f"agentgym PassageIndex (bm25s matrix, {task.index.num_docs:,} passages)",
             unit="query", primary=True)
    hits = benchmark.pedantic(lambda: task.search(next(queries), K), rounds=scaled(300),
                              warmup_rounds=3)
    assert len(hits) == K
    benchmark.extra_info.update(_percentiles(benchmark))


@lru_cache(maxsize=1)
def _rank_bm25() -> Any:
    rank_bm25 = require_peer("rank-bm25", "rank_bm25")
    from agentgym.environments.searchqa.retrieval import tokenize

    docs = [tokenize(p.indexed_text()) for p in _task().passages]
    return rank_bm25.BM25Okapi(docs, k1=1.2, b=0.75)


def test_searchqa_search_rank_bm25(benchmark: Any) -> None:
    """The same queries with ``rank_bm25.BM25Okapi.get_scores`` and a top-3 partial sort."""
    from agentgym.environments.searchqa.retrieval import tokenize

    peer = _rank_bm25()
    queries = itertools.cycle(_queries())

    def search() -> list[int]:
        scores = peer.get_scores(tokenize(next(queries)))
        top = np.argpartition(-scores, K)[:K]
        return [int(i) for i in top[np.argsort(-scores[top], kind="stable")]]

    describe(benchmark, group="searchqa-search", side="peer",
             impl=peer_label("rank-bm25", "BM25Okapi, same tokens, k1=1.2 b=0.75"),
             peer="rank-bm25", unit="query")
    hits = benchmark.pedantic(search, rounds=scaled(20), warmup_rounds=1)
    assert len(hits) == K
    # Both rank by BM25: the top hit agrees on most queries (IDF variants differ a little).
    task, sample = _task(), _queries()[:40]
    agree = np.mean([task.search(q, 1)[0] == int(np.argmax(peer.get_scores(tokenize(q))))
                     for q in sample])
    benchmark.extra_info["top1_agreement"] = round(float(agree), 3)
    benchmark.extra_info.update(_percentiles(benchmark))


def _oracle_episodes(env: Any) -> list[OursEpisode]:
    """Oracle episodes of exactly 3 steps (two searches, the answer) on the 100k world."""
    episodes = []
    for seed in range(50):
        env.reset(seed=seed)
        snapshot = env.unwrapped.get_state()
        actions = []
        while True:
            action = env.unwrapped.oracle_actions()[0]
            actions.append(action)
            *_, terminated, truncated, _ = env.step(action)
            if terminated or truncated:
                break
        if len(actions) == 3:
            episodes.append(OursEpisode(snapshot, actions))
    assert episodes, "no 2-search oracle episode among the world's questions"
    return episodes[:8]


def _ours_step(benchmark: Any, score_process: bool) -> None:
    _task()  # the world is memoised per process: the env below reuses it
    env = make_ours(ENV_ID, scale=SCALE, score_process=score_process)
    bench_ours_steps(
        benchmark, env, _oracle_episodes(env), scaled(60), group="searchqa-step",
        impl="agentgym (gym.make, 101,520 passages, top-3, "
        + ("process reward on)" if score_process else "score_process=False)"),
        unit="step", primary=score_process,
    )


def test_searchqa_step_agentgym(benchmark: Any) -> None:
    """Two oracle searches and the answer: results, observation, candidates, rewards."""
    _ours_step(benchmark, score_process=True)


def test_searchqa_step_agentgym_no_process(benchmark: Any) -> None:
    """The same episodes with ``score_process=False``."""
    _ours_step(benchmark, score_process=False)


def test_searchqa_reset_agentgym(benchmark: Any) -> None:
    """``reset(seed)`` on the default world (memoised per process): the question picked,
    the first observation and its candidate actions."""
    env = make_ours(ENV_ID)
    seeds = itertools.cycle(range(QUESTIONS))
    env.reset(seed=0)  # builds world 1000 once, outside the timing
    describe(benchmark, group="searchqa-reset", side="agentgym",
             impl="agentgym (reset, world memoised)", unit="episode", primary=True)
    benchmark.pedantic(lambda: env.reset(seed=next(seeds)), rounds=scaled(300),
                       warmup_rounds=1)


def test_searchqa_new_world_agentgym(benchmark: Any) -> None:
    """What the first reset of a world costs: the world, its BM25 index and its 50 checked
    questions (376 passages; once per 50 train seeds, memoised after)."""
    from agentgym.environments.searchqa.env import _build_world_task
    from agentgym.environments.searchqa.questions import Knobs

    seeds = itertools.count(50_000)
    describe(benchmark, group="searchqa-new-world", side="agentgym",
             impl="agentgym (build_world + PassageIndex.build + make_questions)",
             unit="world", primary=True)
    benchmark.pedantic(lambda: _build_world_task(next(seeds), 1, False, Knobs()),
                       rounds=scaled(20), warmup_rounds=1)
