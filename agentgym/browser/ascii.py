"""Folding page text to one line of printable ASCII, what the observations promise."""

from __future__ import annotations

import unicodedata

__all__ = ["to_ascii"]

# Symbols NFKD leaves alone but that have an obvious ASCII reading.
_ASCII_FALLBACK = {
    "\u2013": "-", "\u2014": "-", "\u2212": "-", "\u00d7": "x", "\u2018": "'", "\u2019": "'",
    "\u201c": '"', "\u201d": '"', "\u2026": "...", "\u00a0": " ", "\u2022": "*", "\u00b7": ".",
}  # fmt: skip


def to_ascii(text: str) -> str:
    """Fold text to printable ASCII (accents dropped, other symbols as ``?``), one line.

    >>> to_ascii("Café – 2×3")
    'Cafe - 2x3'
    """
    folded = unicodedata.normalize("NFKD", text)
    out = []
    for ch in folded:
        if " " <= ch <= "~":
            out.append(ch)
        elif ch in "\t\n\r\f\v":
            out.append(" ")
        elif unicodedata.combining(ch):
            continue
        else:
            out.append(_ASCII_FALLBACK.get(ch, "?"))
    return "".join(out)
