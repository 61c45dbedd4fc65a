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

from agentgym.bm25 import BM25Matrix
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
    matrix = BM25Matrix(["gift", "mug"], data=np.array([1.0] * 5 + [2.0]),
                        indices=np.array([3, 1, 4, 0, 2, 5]), indptr=np.array([0, 5, 6]),
                        num_docs=6)
    tiny = SearchIndex(Catalog(6), matrix)
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
    np.testing.assert_array_equal(first.matrix.data, again.matrix.data)
    assert again.search("shampoo") == first.search("shampoo")
    (folder / "index.npz").write_bytes(b"garbage")
    repaired = build(150)
    assert repaired.search("shampoo") == first.search("shampoo")


# Each process waits at a barrier (every process has written its ready file), then loads the
# index with build_index wrapped to log each build: the log must name exactly one builder.
_BUILD_RACE = """
import os, sys, time
from pathlib import Path
from agentgym.environments.webshop import search
folder, me, n = Path(sys.argv[1]), sys.argv[2], int(sys.argv[3])
real = search.build_index
def logged(*args, **kwargs):
    with open(folder / "builds.log", "a") as fh:
        fh.write(me + "\\n")
    return real(*args, **kwargs)
search.build_index = logged
(folder / f"ready-{me}").touch()
deadline = time.monotonic() + 120
while len(list(folder.glob("ready-*"))) < n and time.monotonic() < deadline:
    time.sleep(0.005)
print(search.load_index(1500).search("gift"))
"""


def test_processes_building_the_same_index_at_once_build_it_once(tmp_path):
    n = 3
    sync = tmp_path / "sync"
    sync.mkdir()
    env = {**os.environ, "AGENTGYM_CACHE": str(tmp_path / "cache")}
    procs = [
        subprocess.Popen([sys.executable, "-c", _BUILD_RACE, str(sync), str(i), str(n)],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, text=True)
        for i in range(n)
    ]
    outs = [p.communicate(timeout=300) for p in procs]
    assert all(p.returncode == 0 for p in procs), [err for _, err in outs]
    assert len({out for out, _ in outs}) == 1
    builders = (sync / "builds.log").read_text().split()
    assert len(builders) == 1, builders  # the others waited on the file lock, then loaded
    # The builder showed that it was building (stderr is no terminal here: one line).
    assert "Building the WebShop search index (1,500 products" in outs[int(builders[0])][1]
    entries = [p for p in (tmp_path / "cache" / "webshop").iterdir()]
    folders = [p for p in entries if p.is_dir()]
    assert len(folders) == 1 and (folders[0] / "meta.json").exists()
    assert {p.name for p in entries} == {folders[0].name, f".{folders[0].name}.lock"}


def test_build_reports_progress_over_every_product():
    seen: list[int] = []
    build_index(Catalog(1234), progress=seen.append)
    assert sum(seen) == 1234 and len(seen) == 3  # every 500 products, then the rest


def test_cache_root_honours_agentgym_cache_then_xdg_then_home(monkeypatch, tmp_path):
    monkeypatch.setenv("AGENTGYM_CACHE", str(tmp_path / "a"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "x"))
    assert search_mod.cache_root() == tmp_path / "a" / "webshop"
    monkeypatch.delenv("AGENTGYM_CACHE")
    assert search_mod.cache_root() == tmp_path / "x" / "agentgym" / "webshop"
    monkeypatch.setenv("XDG_CACHE_HOME", "relative/dir")  # the XDG spec says: ignore it
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert search_mod.cache_root() == tmp_path / "home" / ".cache" / "agentgym" / "webshop"
    monkeypatch.delenv("XDG_CACHE_HOME")
    assert search_mod.cache_root() == tmp_path / "home" / ".cache" / "agentgym" / "webshop"


def test_index_version_covers_libraries_and_sources(monkeypatch):
    search_mod.index_version.cache_clear()
    base = search_mod.index_version()
    names = {p.name for p in search_mod._index_sources()}
    # What the index is built from, found by following the package's imports from search.py
    # (catalog.py and whatever catalog imports); the envs, goals and reward are not cached.
    assert {"catalog.py", "search.py"} <= names
    assert not names & {"env.py", "browser_env.py", "base.py", "goals.py", "site.py"}
    for module, version in ((bm25s, "0.0.0-other"), (np, "0.1.0")):
        monkeypatch.setattr(module, "__version__", version)
        search_mod.index_version.cache_clear()
        assert search_mod.index_version() != base, module.__name__
        monkeypatch.undo()
    search_mod.index_version.cache_clear()
    assert search_mod.index_version() == base


def test_index_sources_follow_relative_imports(tmp_path):
    (tmp_path / "start.py").write_text("from .a import x\nimport os\n")
    (tmp_path / "a.py").write_text("from . import b\nfrom .sub.c import y\n")
    (tmp_path / "b.py").write_text("X = 1\n")
    (tmp_path / "sub.py").write_text("")
    (tmp_path / "unrelated.py").write_text("from .start import z\n")
    found = search_mod._index_sources(tmp_path / "start.py")
    assert [p.name for p in found] == ["a.py", "b.py", "start.py", "sub.py"]
