"""Answer scoring: exact match and token F1 after the standard QA normalisation.

The normalisation is the one SQuAD, Natural Questions and Search-R1 report with: lower-case,
drop punctuation, drop the articles *a*, *an*, *the*, collapse white space. A prediction is
scored against every gold answer and keeps its best score.

>>> normalize_answer("The  Eiffel Tower!")
'eiffel tower'
>>> exact_match("the eiffel tower", ["Eiffel Tower", "La tour Eiffel"])
1.0
>>> round(f1_score("tower of Eiffel", ["Eiffel Tower"]), 4)
0.8
"""

from __future__ import annotations

import re
import string
from collections import Counter
from collections.abc import Sequence

__all__ = ["exact_match", "f1_score", "normalize_answer"]

_ARTICLES = re.compile(r"\b(a|an|the)\b")
_PUNCTUATION = str.maketrans("", "", string.punctuation)


def normalize_answer(text: str) -> str:
    """Lower-case, strip punctuation and articles, collapse white space.

    >>> normalize_answer("  An Apple, a day ")
    'apple day'
    """
    text = text.lower().translate(_PUNCTUATION)
    text = _ARTICLES.sub(" ", text)
    return " ".join(text.split())


def _plain(text: str) -> str:
    """Lower-cased, without punctuation, white space collapsed (articles kept)."""
    return " ".join(text.lower().translate(_PUNCTUATION).split())


def _matches(prediction: str, answer: str) -> bool:
    gold = normalize_answer(answer)
    if gold:
        return normalize_answer(prediction) == gold
    # A gold answer the normalisation empties (a multiple-choice letter "A", "An", "The"):
    # compared without dropping articles, or any answer that normalises to nothing (".",
    # "the") would match it. One that is only punctuation matches nothing.
    plain = _plain(answer)
    return bool(plain) and _plain(prediction) == plain


def exact_match(prediction: str, answers: Sequence[str]) -> float:
    """1.0 if the normalised prediction equals a normalised gold answer, else 0.0.

    A gold answer that normalises to nothing (``"A"`` is an article) is compared with
    articles kept: ``"a"`` matches it, ``"the"`` and ``"."`` do not.

    >>> exact_match("1932", ["1932", "nineteen thirty-two"]), exact_match("1933", ["1932"])
    (1.0, 0.0)
    >>> exact_match("A.", ["A"]), exact_match("the", ["A"]), exact_match(".", ["A"])
    (1.0, 0.0, 0.0)
    """
    return float(any(_matches(prediction, a) for a in answers))


def _f1(prediction: str, answer: str) -> float:
    guess, gold = normalize_answer(prediction).split(), normalize_answer(answer).split()
    if not guess or not gold:
        # Two empty strings agree; one empty side shares nothing with the other.
        return float(guess == gold)
    common = sum((Counter(guess) & Counter(gold)).values())
    if common == 0:
        return 0.0
    precision, recall = common / len(guess), common / len(gold)
    return 2 * precision * recall / (precision + recall)


def f1_score(prediction: str, answers: Sequence[str]) -> float:
    """The best token-level F1 of the prediction against any gold answer (0.0 with none).

    >>> f1_score("Ilsa Varnholm", ["Varnholm"])
    0.6666666666666666
    """
    return max((_f1(prediction, a) for a in answers), default=0.0)
