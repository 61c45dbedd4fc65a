"""BM25 search: real BM25 scores, stable ranking, top-50 cap, and a safe on-disk cache."""

from __future__ import annotations

import itertools
import json
import os
import subprocess
import sys

import bm25s
import numpy as np
import pytest

from agentgym.environments.webshop import search as search_mod
from agentgym.environments.webshop.catalog import Catalog
from agentgym.environments.webshop.search import (
    TOP_K,
    SearchIndex,
    build_index,
    load_index,
    tokenize,
)

N = 2000
QUERIES = [
    "sulfate free shampoo for dry hair",
    "i need a long-lasting lipstick, in ruby color",
    "wireless earbuds noise cancelling",
    "queen sheet set cotton",
    "mens jeans 30x32 slim fit",
    "dark roast ground coffee 2 lb",
    "red",
    "gift",
]


@pytest.fixture(scope="module")
def index() -> SearchIndex:
    return load_index(N)


def test_tokenizer_by_hand():
    assert tokenize("Sulfate-Free Shampoo for Dry Hair, 12oz") == [
        "sulfate", "free", "shampoo", "dry", "hair", "12oz"]
    assert tokenize("I need a T-Shirt!") == ["need", "shirt"]
    assert tokenize("3.4oz") == ["3", "4oz"]
    assert tokenize("the and of") == []
    assert tokenize("") == []


def test_scores_equal_bm25s_on_the_same_corpus(index):
    catalog = Catalog(300)
    small = build_index(catalog)
    corpus = [tokenize(catalog.product(i).search_text()) for i in range(300)]
    reference = bm25s.BM25(method="lucene", k1=1.5, b=0.75)
    reference.index(corpus, show_progress=False)
    for q in QUERIES[:6]:
        tokens = [t for t in dict.fromkeys(tokenize(q)) if t in reference.vocab_dict]
        expected = reference.get_scores(tokens) if tokens else np.zeros(300)
        np.testing.assert_allclose(small.scores(q), expected, atol=2e-4)


def test_bm25_formula_by_hand_on_one_term():
    # Lucene BM25 (bm25s "lucene"): idf = ln(1 + (N - df + 0.5) / (df + 0.5)),
    # term score = idf * tf / (tf + k1 * (1 - b + b * len / avg_len)).
    catalog = Catalog(200)
    small = build_index(catalog)
    docs = [tokenize(catalog.product(i).search_text()) for i in range(200)]
    term = catalog.product(0).product_type.split()[-1]
    df = sum(term in d for d in docs)
    avg = sum(len(d) for d in docs) / len(docs)
    idf = np.log(1 + (200 - df + 0.5) / (df + 0.5))
    scores = small.scores(term)
    for i, d in enumerate(docs):
        tf = d.count(term)
        want = idf * tf / (tf + 1.5 * (1 - 0.75 + 0.75 * len(d) / avg)) if tf else 0.0
        assert scores[i] == pytest.approx(want, abs=2e-4)
    assert df > 0


def test_ranking_is_score_then_product_id_and_capped_at_50(index):
    for q in QUERIES:
        hits = index.search(q)
        scores = index.scores(q)
        assert 0 < len(hits) <= TOP_K
        for a, b in itertools.pairwise(hits):
            assert scores[a] > scores[b] or (scores[a] == scores[b] and a < b)
        last = hits[-1]
        outside = np.setdiff1d(np.flatnonzero(scores > 0), hits)
        for pid in outside:  # nothing left out beats the last hit
            assert scores[pid] < scores[last] or (scores[pid] == scores[last] and pid > last)
        assert hits == index.search(q)
    assert len(index.search("quality")) == TOP_K
    assert index.search("gift", k=7) == index.search("gift")[:7]


def test_ties_are_broken_by_product_id():
    # Five documents with the same score for "gift", stored in a scrambled posting order.
    tiny = SearchIndex(Catalog(6), ["gift", "mug"], data=np.array([1.0] * 5 + [2.0]),
                       indices=np.array([3, 1, 4, 0, 2, 5]), indptr=np.array([0, 5, 6]))
    assert tiny.search("gift") == [0, 1, 2, 3, 4]
    assert tiny.search("gift mug") == [5, 0, 1, 2, 3, 4]
    assert tiny.search("gift", k=2) == [0, 1]


def test_queries_that_match_nothing_or_are_huge_do_not_raise(index):
    assert index.search("") == []
    assert index.search("the of and") == []
    assert index.search("zzqx qqqz") == []
    assert index.search("☃ ☃") == []
    assert len(index.search("ünïcødé")) <= TOP_K  # non-ASCII letters only split tokens
    long = " ".join(["shampoo"] * 20_000 + ["lipstick"])
    assert index.search(long) == index.search("shampoo lipstick")  # query tokens count once


def test_hits_contain_the_query_terms(index):
    for pid in index.search("lipstick"):
        assert "lipstick" in index.catalog.product(pid).search_text().lower()


def test_cache_is_written_atomically_reused_and_rebuilt_when_damaged(monkeypatch, tmp_path):
    monkeypatch.setenv("AGENTGYM_CACHE", str(tmp_path))
    build = search_mod.load_index.__wrapped__  # skip the per-process memo
    first = build(150)
    folder = search_mod._index_folder(150)
    assert folder.parent == tmp_path / "webshop"
    assert sorted(p.name for p in folder.iterdir()) == ["index.npz", "meta.json", "vocab.json"]
    assert json.loads((folder / "meta.json").read_text())["num_products"] == 150
    assert not [p for p in folder.parent.iterdir() if p.name.startswith(".build-")]
    again = build(150)
    np.testing.assert_array_equal(first.data, again.data)
    assert again.search("shampoo") == first.search("shampoo")
    (folder / "index.npz").write_bytes(b"garbage")
    repaired = build(150)
    assert repaired.search("shampoo") == first.search("shampoo")


def test_two_processes_building_at_once_leave_one_good_cache(tmp_path):
    script = (
        "from agentgym.environments.webshop.search import load_index\n"
        "print(load_index(120).search('gift'))\n"
    )
    env = {**os.environ, "AGENTGYM_CACHE": str(tmp_path)}
    procs = [subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, env=env,
                              text=True) for _ in range(2)]
    outs = [p.communicate(timeout=120)[0] for p in procs]
    assert all(p.returncode == 0 for p in procs) and outs[0] == outs[1]
    folders = list((tmp_path / "webshop").iterdir())
    assert len(folders) == 1 and (folders[0] / "meta.json").exists()
