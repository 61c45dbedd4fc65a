"""BM25 as a score matrix built with ``bm25s``, ranked the same way on every machine.

WebShop's product search and SearchQA's passage retrieval share this: each family tokenises
its own way and hands token lists here. ``bm25s`` computes Lucene BM25 scores once per
(token, document) pair into a sparse matrix with one column per vocabulary token; a query's
score for a document is the float64 sum of its distinct tokens' entries (at most
:data:`MAX_QUERY_TOKENS` of them), rounded to 4 decimals, so summation order and platform
never move a ranking. Hits are the documents with a positive score, ranked by score
(descending), then document position (ascending).

>>> matrix = BM25Matrix.build([["red", "shoe"], ["blue", "shoe"], ["red", "hat"]])
>>> matrix.top(["red", "shoe"], k=2)
[0, 1]
>>> matrix.top(["green"], k=3)
[]
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

import bm25s
import numpy as np

__all__ = ["MAX_QUERY_TOKENS", "BM25Matrix"]

#: Tokens a query contributes at most (a longer query is scored on its first distinct ones).
MAX_QUERY_TOKENS = 64


class BM25Matrix:
    """BM25 scores of ``num_docs`` documents, one CSC column per vocabulary token."""

    def __init__(
        self, vocab: Sequence[str], data: np.ndarray, indices: np.ndarray, indptr: np.ndarray,
        num_docs: int,
    ) -> None:
        self.vocab_list = list(vocab)
        self.vocab = {t: i for i, t in enumerate(self.vocab_list)}
        self.data = np.asarray(data, dtype=np.float32)
        self.indices = np.asarray(indices, dtype=np.int64)
        self.indptr = np.asarray(indptr, dtype=np.int64)
        self.num_docs = int(num_docs)

    @classmethod
    def build(
        cls,
        documents: Iterable[Sequence[str]],
        *,
        k1: float = 1.2,
        b: float = 0.75,
        progress: Callable[[int], None] | None = None,
        progress_every: int = 1000,
    ) -> BM25Matrix:
        """Score every document's tokens with ``bm25s``'s Lucene BM25 (in memory).

        ``progress(n)`` is told each time ``n`` more documents have been read.
        """
        vocab: dict[str, int] = {}
        corpus_ids = []
        for done, tokens in enumerate(documents, start=1):
            corpus_ids.append([vocab.setdefault(tok, len(vocab)) for tok in tokens])
            if progress is not None and done % progress_every == 0:
                progress(progress_every)
        if progress is not None and len(corpus_ids) % progress_every:
            progress(len(corpus_ids) % progress_every)
        if not vocab:
            raise ValueError("the documents have no searchable words")
        retriever = bm25s.BM25(method="lucene", k1=k1, b=b)
        retriever.index((corpus_ids, vocab), show_progress=False, create_empty_token=False)
        s = retriever.scores
        return cls(list(vocab), s["data"], s["indices"], s["indptr"], len(corpus_ids))

    def scores(self, tokens: Iterable[str]) -> np.ndarray:
        """The score of every document for a query's tokens (float64, rounded to 4 decimals)."""
        ids = []
        for tok in dict.fromkeys(tokens):
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

    def top(self, tokens: Iterable[str], k: int) -> list[int]:
        """Positions of the best ``k`` documents with a query token: score desc, position asc."""
        scores = self.scores(tokens)
        hits = np.flatnonzero(scores > 0)
        if len(hits) > k:
            # Keep everything tied with the k-th score, so the position tie-break decides.
            kth = np.partition(scores[hits], len(hits) - k)[len(hits) - k]
            hits = hits[scores[hits] >= kth]
        order = np.lexsort((hits, -scores[hits]))
        return [int(i) for i in hits[order][:k]]

    # ------------------------------------------------------------------ persistence
    def save(self, folder: Path, *, compressed: bool = False) -> None:
        """Write ``index.npz`` and ``vocab.json`` into an existing folder."""
        write = np.savez_compressed if compressed else np.savez
        write(folder / "index.npz", data=self.data, indices=self.indices.astype(np.int32),
              indptr=self.indptr, num_docs=np.array([self.num_docs]))
        (folder / "vocab.json").write_text(json.dumps(self.vocab_list))

    @classmethod
    def load(cls, folder: Path) -> BM25Matrix:
        """Read what :meth:`save` wrote."""
        with np.load(folder / "index.npz") as z:
            data, indices, indptr = z["data"], z["indices"], z["indptr"]
            num_docs = int(z["num_docs"][0])
        vocab = json.loads((folder / "vocab.json").read_text())
        return cls(vocab, data, indices, indptr, num_docs)
