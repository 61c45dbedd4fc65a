"""BM25 over passages: built with ``bm25s``, ranked the same way on every machine.

A passage is indexed as its title followed by its text. Text is lower-cased, accents are
folded away (``"Kraków"`` is ``krakow``, as the observations spell it) and it is split into
runs of letters and digits; a short list of English stop words is dropped, so that a question used
as a query is scored on its content words. Scores are ``bm25s``'s Lucene BM25 (``k1=1.2``,
``b=0.75``, the defaults of Pyserini, which Search-R1's BM25 baseline used). A query's score
is the float64 sum of its tokens' postings (each token once), rounded to 4 decimals; hits are
ranked by score, then passage position, so ties never depend on the platform.

>>> index = PassageIndex.build(["Tarsk. Tarsk is a city in Veloria.",
...                             "Veloria. Veloria is a country.", "Ossa. A river."])
>>> index.search("which country is Tarsk in", k=2)
[0, 1]
>>> index.search("nothing matches", k=3)
[]
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Callable, Sequence
from pathlib import Path

import bm25s
import numpy as np

__all__ = ["STOPWORDS", "PassageIndex", "fold", "tokenize"]

#: Tokens a query contributes at most (a longer query is scored on its first distinct ones).
MAX_QUERY_TOKENS = 64
_PROGRESS_EVERY = 10_000  # texts per progress update
_TOKEN = re.compile(r"[^\W_]+")
# Letters and marks Unicode does not decompose into ASCII ("Wisła" -> "Wisla").
_FOLD = str.maketrans({"ł": "l", "Ł": "L", "ø": "o", "Ø": "O", "æ": "ae", "Æ": "AE",
                       "œ": "oe", "Œ": "OE", "ß": "ss", "đ": "d", "Đ": "D", "ð": "d",
                       "þ": "th", "Þ": "Th", "ı": "i", "–": "-", "—": "-", "‘": "'",
                       "’": "'", "“": '"', "”": '"', "…": "..."})
STOPWORDS: frozenset[str] = frozenset(
    """a an and are as at be been but by did do does for from had has have he her his how i if
    in into is it its of on or she so than that the their them then there these they this to
    was we were what when where which while who whom whose why will with you""".split()  # noqa: SIM905
)


def fold(text: str) -> str:
    """``text`` with accents and the common non-decomposing letters folded to ASCII.

    >>> fold("Kraków on the Wisła — Œuvre")
    'Krakow on the Wisla - OEuvre'
    """
    if text.isascii():
        return text
    decomposed = unicodedata.normalize("NFKD", text.translate(_FOLD))
    return "".join(c for c in decomposed if not unicodedata.combining(c))


def tokenize(text: str) -> list[str]:
    """Lower-cased, accent-folded runs of letters and digits, without stop words.

    >>> tokenize("In which city was the novelist born?")
    ['city', 'novelist', 'born']
    >>> tokenize("Kraków, 1257")
    ['krakow', '1257']
    """
    return [t for t in _TOKEN.findall(fold(text).lower()) if t not in STOPWORDS]


class PassageIndex:
    """A BM25 score matrix (one CSC column per vocabulary token) and the ranking rule."""

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
        cls, texts: Sequence[str], progress: Callable[[int], None] | None = None
    ) -> PassageIndex:
        """Tokenise ``texts`` and build their BM25 matrix (in memory, no disk I/O).

        ``progress(n)`` is told each time ``n`` more texts have been tokenised.
        """
        vocab: dict[str, int] = {}
        corpus_ids = []
        for done, text in enumerate(texts, start=1):
            if progress is not None and done % _PROGRESS_EVERY == 0:
                progress(_PROGRESS_EVERY)
            doc = []
            for tok in tokenize(text):
                tid = vocab.get(tok)
                if tid is None:
                    tid = vocab[tok] = len(vocab)
                doc.append(tid)
            corpus_ids.append(doc)
        if progress is not None and len(texts) % _PROGRESS_EVERY:
            progress(len(texts) % _PROGRESS_EVERY)
        if not vocab:
            raise ValueError("the corpus has no searchable words")
        retriever = bm25s.BM25(method="lucene", k1=1.2, b=0.75)
        retriever.index((corpus_ids, vocab), show_progress=False, create_empty_token=False)
        s = retriever.scores
        return cls(list(vocab), s["data"], s["indices"], s["indptr"], len(texts))

    def scores(self, query: str) -> np.ndarray:
        """BM25 score of every passage for ``query`` (float64, rounded to 4 decimals)."""
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

    def search(self, query: str, k: int) -> list[int]:
        """Positions of the best ``k`` passages with a query word: score desc, position asc."""
        scores = self.scores(query)
        hits = np.flatnonzero(scores > 0)
        if len(hits) > k:
            kth = np.partition(scores[hits], len(hits) - k)[len(hits) - k]
            hits = hits[scores[hits] >= kth]
        order = np.lexsort((hits, -scores[hits]))
        return [int(i) for i in hits[order][:k]]

    # ------------------------------------------------------------------ persistence
    def save(self, folder: Path) -> None:
        """Write ``index.npz`` and ``vocab.json`` into an existing folder."""
        np.savez(folder / "index.npz", data=self.data, indices=self.indices.astype(np.int32),
                 indptr=self.indptr, num_docs=np.array([self.num_docs]))
        (folder / "vocab.json").write_text(json.dumps(self.vocab_list))

    @classmethod
    def load(cls, folder: Path) -> PassageIndex:
        """Read what :meth:`save` wrote."""
        with np.load(folder / "index.npz") as z:
            data, indices, indptr = z["data"], z["indices"], z["indptr"]
            num_docs = int(z["num_docs"][0])
        vocab = json.loads((folder / "vocab.json").read_text())
        return cls(vocab, data, indices, indptr, num_docs)
