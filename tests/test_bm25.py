"""agentgym.bm25: scores against Lucene BM25 by hand, the ranking rule, persistence."""

from __future__ import annotations

import numpy as np
import pytest

from agentgym.bm25 import MAX_QUERY_TOKENS, BM25Matrix


def test_scores_are_lucene_bm25_by_hand():
    # idf = ln(1 + (N - df + 0.5) / (df + 0.5)); score = idf * tf / (tf + k1 * (1 - b + b *
    # len / avglen)). "red": df 2 of N 3; lengths 2, 3, 1 (avg 2); k1 1.2, b 0.75.
    matrix = BM25Matrix.build([["red", "shoe"], ["red", "red", "hat"], ["blue"]], k1=1.2, b=0.75)
    idf = np.log(1 + (3 - 2 + 0.5) / (2 + 0.5))
    doc0 = idf * 1 / (1 + 1.2 * (0.25 + 0.75 * 2 / 2))
    doc1 = idf * 2 / (2 + 1.2 * (0.25 + 0.75 * 3 / 2))
    np.testing.assert_allclose(matrix.scores(["red"]), np.round([doc0, doc1, 0.0], 4), atol=1e-4)
    assert matrix.top(["red"], k=5) == [1, 0]


def test_query_tokens_count_once_and_ties_go_to_the_earlier_document():
    matrix = BM25Matrix(["gift", "mug"], data=np.array([1.0] * 5 + [2.0]),
                        indices=np.array([3, 1, 4, 0, 2, 5]), indptr=np.array([0, 5, 6]),
                        num_docs=6)
    assert matrix.top(["gift"], k=10) == [0, 1, 2, 3, 4]
    assert matrix.top(["gift", "mug"], k=3) == [5, 0, 1]
    np.testing.assert_array_equal(matrix.scores(["gift"] * 50), matrix.scores(["gift"]))
    assert matrix.top(["nothing"], k=3) == []


def test_a_long_query_is_scored_on_its_first_distinct_tokens():
    vocab = [f"w{i}" for i in range(MAX_QUERY_TOKENS + 1)]
    matrix = BM25Matrix.build([[w] for w in vocab])
    assert matrix.top(vocab, k=len(vocab)) == list(range(MAX_QUERY_TOKENS))


def test_save_load_and_progress(tmp_path):
    seen: list[int] = []
    docs = [["a", "b"], ["b"], ["c"]] * 5
    matrix = BM25Matrix.build(docs, progress=seen.append, progress_every=4)
    assert sum(seen) == len(docs) and seen == [4, 4, 4, 3]
    for compressed in (False, True):
        matrix.save(tmp_path, compressed=compressed)
        loaded = BM25Matrix.load(tmp_path)
        assert loaded.num_docs == matrix.num_docs and loaded.vocab == matrix.vocab
        assert loaded.top(["b", "c"], 20) == matrix.top(["b", "c"], 20)


def test_documents_without_words_are_refused():
    with pytest.raises(ValueError, match="no searchable words"):
        BM25Matrix.build([[], []])
