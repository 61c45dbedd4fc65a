"""BM25 retrieval: ranking rule, ties, accents, persistence."""

from __future__ import annotations

import numpy as np

from agentgym.environments.searchqa.retrieval import PassageIndex, tokenize

TEXTS = [
    "Tarsk. Tarsk is a city on the Ossa river.",
    "Ossa. The Ossa is a river.",
    "Mira Holt. Mira Holt was born in Tarsk.",
    "Lyon. Lyon lies where two rivers meet.",
    "Kraków. Kraków lies on the Wisła.",
]


def test_rank_by_score_then_position_and_cut_at_k():
    index = PassageIndex.build(TEXTS)
    assert index.search("Ossa river", 2) == [1, 0]  # the shorter passage scores higher
    assert index.search("Tarsk", 5) == [0, 2]  # only passages with a query word are hits
    twins = PassageIndex.build(["alpha beta", "alpha beta", "alpha beta"])
    assert twins.search("alpha", 2) == [0, 1]  # equal scores: earlier passage first


def test_stop_words_and_repeated_query_words_do_not_count():
    index = PassageIndex.build(TEXTS)
    assert index.search("the of is", 3) == []
    np.testing.assert_array_equal(index.scores("Tarsk Tarsk Tarsk"), index.scores("Tarsk"))


def test_accents_fold_so_plain_spelling_finds_them():
    index = PassageIndex.build(TEXTS)
    assert index.search("Krakow Wisla", 1) == [4]
    assert tokenize("Wisła") == ["wisla"]


def test_bm25_score_by_hand():
    # Lucene BM25, k1 = 1.2, b = 0.75: idf = ln(1 + (N - df + 0.5) / (df + 0.5)),
    # score = idf * tf / (tf + k1 * (1 - b + b * len / avglen)) (Lucene leaves out the
    # constant factor k1 + 1 of the textbook formula; rankings are the same).
    index = PassageIndex.build(["apple pie", "apple", "pear"])
    n, df, avglen = 3, 2, (2 + 1 + 1) / 3
    idf = np.log(1 + (n - df + 0.5) / (df + 0.5))
    expected = [idf * 1 / (1 + 1.2 * (0.25 + 0.75 * length / avglen)) for length in (2, 1)]
    assert np.allclose(index.scores("apple")[:2], np.round(expected, 4), atol=1e-4)
    assert index.scores("apple")[2] == 0.0


def test_save_and_load_give_the_same_rankings(tmp_path):
    index = PassageIndex.build(TEXTS)
    index.save(tmp_path)
    loaded = PassageIndex.load(tmp_path)
    for query in ("Ossa", "Mira Holt born", "river Lyon", "nothing"):
        assert loaded.search(query, 3) == index.search(query, 3)
    assert loaded.num_docs == len(TEXTS)


def test_build_reports_progress_for_every_text():
    seen: list[int] = []
    texts = [f"passage {i}" for i in range(25_001)]
    PassageIndex.build(texts, progress=seen.append)
    assert sum(seen) == len(texts) and seen[:2] == [10_000, 10_000]
