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

import re
import unicodedata
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

from agentgym.bm25 import BM25Matrix

__all__ = ["STOPWORDS", "PassageIndex", "fold", "tokenize"]

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
    """Passages in one :class:`agentgym.bm25.BM25Matrix`, queried with :func:`tokenize`."""

    def __init__(self, matrix: BM25Matrix) -> None:
        self.matrix = matrix

    @property
    def num_docs(self) -> int:
        return self.matrix.num_docs

    @classmethod
    def build(
        cls, texts: Sequence[str], progress: Callable[[int], None] | None = None
    ) -> PassageIndex:
        """Tokenise ``texts`` and build their BM25 matrix (in memory, no disk I/O).

        ``progress(n)`` is told each time ``n`` more texts have been tokenised.
        """
        documents = (tokenize(text) for text in texts)
        try:
            return cls(BM25Matrix.build(documents, k1=1.2, b=0.75, progress=progress,
                                        progress_every=_PROGRESS_EVERY))
        except ValueError:
            raise ValueError("the corpus has no searchable words") from None

    def scores(self, query: str) -> np.ndarray:
        """BM25 score of every passage for ``query`` (float64, rounded to 4 decimals)."""
        return self.matrix.scores(tokenize(query))

    def search(self, query: str, k: int) -> list[int]:
        """Positions of the best ``k`` passages with a query word: score desc, position asc."""
        return self.matrix.top(tokenize(query), k)

    def save(self, folder: Path) -> None:
        """Write ``index.npz`` and ``vocab.json`` into an existing folder."""
        self.matrix.save(folder)

    @classmethod
    def load(cls, folder: Path) -> PassageIndex:
        """Read what :meth:`save` wrote."""
        return cls(BM25Matrix.load(folder))
