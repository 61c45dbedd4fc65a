"""BM25 search over the catalog: built once with ``bm25s``, cached on disk, ranked stably.

The index reads each product's title, description, bullet points and option values
(:meth:`Product.search_text`). Text is lower-cased and split into runs of ``[a-z0-9]``;
English stop words are dropped; query tokens count once each. Scores come from ``bm25s``'s
Lucene BM25 (``k1=1.5``, ``b=0.75``). A query is scored by summing the postings of its tokens
in float64 in a fixed order, rounded to 4 decimals, and ranked by score (descending), then
product id (ascending), so ties never depend on the platform; only products that contain at
least one query token are hits, and at most :data:`TOP_K` (50) are returned.

The index is cached under :func:`~agentgym.environments.webshop.catalog.cache_root` in
``<content version>-<num products>/`` (a compressed ``index.npz``, ``vocab.json`` and
``meta.json``; about 8 MB for 50,000 products), written to a temporary folder and then renamed,
so two processes building at once cannot leave a torn cache, and memoised per process. The
catalog itself is not stored: products are regenerated on demand from their seeds.

>>> from agentgym.environments.webshop.search import load_index, tokenize
>>> tokenize("Sulfate-Free Shampoo for Dry Hair, 12oz")
['sulfate', 'free', 'shampoo', 'dry', 'hair', '12oz']
>>> index = load_index(2000)
>>> hits = index.search("sulfate free shampoo")
>>> 0 < len(hits) <= 50 and "shampoo" in index.catalog.product(hits[0]).title.lower()
True
"""

from __future__ import annotations

import json
import logging
import os
import re
import shutil
import tempfile
import threading
import time
import warnings
from functools import lru_cache
from pathlib import Path

import bm25s
import numpy as np

from .catalog import Catalog, cache_root, content_version

__all__ = ["STOPWORDS", "TOP_K", "SearchIndex", "build_index", "load_index", "tokenize"]

TOP_K = 50
MAX_QUERY_TOKENS = 64
_TOKEN = re.compile(r"[a-z0-9]+")
STOPWORDS: frozenset[str] = frozenset(
    """a about above after again all am an and any are as at be been being below between both
    but by can could did do does doing down during each few for from further had has have
    having he her here hers him his how i if in into is it its itself just me more most my
    myself no nor not now of off on once only or other our ours out over own s same she should
    so some such t than that the their theirs them then there these they this those through to
    too under until up very was we were what when where which while who whom why will with
    would you your yours im ive id""".split()  # noqa: SIM905 (a word list reads better)
)
_log = logging.getLogger(__name__)
_build_lock = threading.Lock()


def tokenize(text: str) -> list[str]:
    """Lower-cased alphanumeric runs, stop words removed.

    >>> tokenize("I need a T-Shirt!")
    ['need', 'shirt']
    """
    return [t for t in _TOKEN.findall(text.lower()) if t not in STOPWORDS]


class SearchIndex:
    """A BM25 index over a :class:`Catalog`: :meth:`search` returns ranked product ids."""

    def __init__(
        self,
        catalog: Catalog,
        vocab: list[str],
        data: np.ndarray,
        indices: np.ndarray,
        indptr: np.ndarray,
    ) -> None:
        self.catalog = catalog
        self.vocab = {t: i for i, t in enumerate(vocab)}
        self._vocab_list = list(vocab)
        self.data = np.asarray(data, dtype=np.float32)
        self.indices = np.asarray(indices, dtype=np.int64)
        self.indptr = np.asarray(indptr, dtype=np.int64)
        self.num_docs = len(catalog)

    def scores(self, query: str) -> np.ndarray:
        """BM25 score of every product for ``query`` (float64, rounded to 4 decimals)."""
        ids = []
        for tok in dict.fromkeys(tokenize(query)):
            tid = self.vocab.get(tok)
            if tid is not None:
                ids.append(tid)
            if len(ids) == MAX_QUERY_TOKENS:
                break
        if not ids:
            return np.zeros(self.num_docs)
        docs = np.concatenate([self.indices[self.indptr[t] : self.indptr[t + 1]] for t in ids])
        weights = np.concatenate([self.data[self.indptr[t] : self.indptr[t + 1]] for t in ids])
        scores = np.bincount(docs, weights=weights.astype(np.float64), minlength=self.num_docs)
        return np.round(scores, 4)

    def search(self, query: str, k: int = TOP_K) -> list[int]:
        """Product ids of the best ``k`` hits: score descending, then product id ascending."""
        scores = self.scores(query)
        hits = np.flatnonzero(scores > 0)
        if len(hits) > k:
            kth = np.partition(scores[hits], len(hits) - k)[len(hits) - k]
            hits = hits[scores[hits] >= kth]
        order = np.lexsort((hits, -scores[hits]))
        return [int(i) for i in hits[order][:k]]

    # ------------------------------------------------------------------ persistence
    def save(self, folder: Path) -> None:
        np.savez_compressed(folder / "index.npz", data=self.data,
                            indices=self.indices.astype(np.int32), indptr=self.indptr)
        (folder / "vocab.json").write_text(json.dumps(self._vocab_list))

    @classmethod
    def load(cls, folder: Path, catalog: Catalog) -> SearchIndex:
        with np.load(folder / "index.npz") as z:
            data, indices, indptr = z["data"], z["indices"], z["indptr"]
        vocab = json.loads((folder / "vocab.json").read_text())
        return cls(catalog, vocab, data, indices, indptr)


def build_index(catalog: Catalog) -> SearchIndex:
    """Tokenise every product and build the BM25 score matrix with ``bm25s`` (no disk I/O)."""
    vocab: dict[str, int] = {}
    corpus_ids = []
    for pid in range(len(catalog)):
        doc = []
        for tok in tokenize(catalog.product(pid).search_text()):
            tid = vocab.get(tok)
            if tid is None:
                tid = vocab[tok] = len(vocab)
            doc.append(tid)
        corpus_ids.append(doc)
    retriever = bm25s.BM25(method="lucene", k1=1.5, b=0.75)
    retriever.index((corpus_ids, vocab), show_progress=False, create_empty_token=False)
    s = retriever.scores
    return SearchIndex(catalog, list(vocab), s["data"], s["indices"], s["indptr"])


def _index_folder(num_products: int) -> Path:
    return cache_root() / f"{content_version()}-{num_products}"


def _prune(root: Path, max_age_s: float = 86_400.0) -> None:
    """Delete indexes of other code versions (and abandoned temp folders) older than a day."""
    keep = content_version() + "-"
    now = time.time()
    for path in root.iterdir():
        try:
            stale = not path.name.startswith(keep) and now - path.stat().st_mtime > max_age_s
        except OSError:
            continue
        if stale and path.is_dir():
            shutil.rmtree(path, ignore_errors=True)


@lru_cache(maxsize=8)
def load_index(num_products: int) -> SearchIndex:
    """The index for the first ``num_products`` products: memoised, else from disk, else built.

    Building 50,000 products takes tens of seconds once; later loads take well under a second.
    """
    catalog = Catalog(num_products)
    folder = _index_folder(num_products)
    if (folder / "meta.json").exists():
        try:
            return SearchIndex.load(folder, catalog)
        except (OSError, ValueError, KeyError) as exc:  # a damaged cache is rebuilt
            _log.warning("rebuilding damaged WebShop index at %s: %s", folder, exc)
    with _build_lock:
        start = time.perf_counter()
        index = build_index(catalog)
        seconds = time.perf_counter() - start
        try:
            folder.parent.mkdir(parents=True, exist_ok=True)
            tmp = Path(tempfile.mkdtemp(prefix=".build-", dir=folder.parent))
            index.save(tmp)
            meta = {"num_products": num_products, "version": content_version(),
                    "build_seconds": round(seconds, 2), "vocab": len(index.vocab)}
            (tmp / "meta.json").write_text(json.dumps(meta))
            try:
                os.rename(tmp, folder)
            except OSError:  # another process finished first; its copy is identical
                shutil.rmtree(tmp, ignore_errors=True)
            _prune(folder.parent)
        except OSError as exc:
            warnings.warn(f"could not cache the WebShop index ({exc}); it stays in memory",
                          stacklevel=2)
    return index
