"""The coordinate grammar the grid games share: ``2 3``, ``row 2 column 3``, ``r2 c3 d7``.

A move on a grid is a few labelled numbers (row, column, maybe a digit). Models write them
in many harmless ways; :func:`read_numbers` accepts the ways that are unambiguous and
answers everything else with one sentence that says what is wrong and shows the format.

* labels (``row``/``r``, ``column``/``col``/``c``, ...) put the next number in their slot;
* unlabelled numbers fill the remaining slots in order;
* filler words (``put``, ``at``, ``cell``, ...) and punctuation are ignored;
* ``357`` is read as three one-digit numbers when every slot is at most 9;
* anything else (an unknown word, a slot given twice, a number out of range) is an error.

The scan is linear, and a number's length is checked before ``int()`` sees it.

>>> ROW, COL = Slot("row", 3, ("r", "row")), Slot("column", 3, ("c", "col", "column"))
>>> read_numbers("row 2, col 3", (ROW, COL), example="2 3")
((2, 3), '')
>>> read_numbers("(2, 3)", (ROW, COL), example="2 3")
((2, 3), '')
>>> read_numbers("2 7", (ROW, COL), example="2 3")
(None, 'column 7 is out of range; it must be 1-3; answer like "2 3"')
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

__all__ = ["FILLER_WORDS", "MAX_MOVE_LENGTH", "Slot", "read_numbers"]

#: Words a model puts around coordinates that carry no meaning.
FILLER_WORDS: frozenset[str] = frozenset(
    {"put", "place", "write", "set", "fill", "enter", "at", "in", "into", "on", "to", "cell",
     "with", "the", "a", "and", "mark", "play", "move"}
)  # fmt: skip
_PUNCTUATION = frozenset(",()[]{}=:;./'\"`*")
_TOKEN = re.compile(r"[a-z]+|[0-9]+|\S")
#: Longer text is no move; refusing it first keeps every parse cheap.
MAX_MOVE_LENGTH = 80


@dataclass(frozen=True)
class Slot:
    """One number of a move: its name in messages, its largest value (the smallest is 1) and
    the words that label it."""

    name: str
    high: int
    labels: tuple[str, ...] = ()


def read_numbers(
    text: str,
    slots: Sequence[Slot],
    *,
    example: str,
    fillers: frozenset[str] = FILLER_WORDS,
) -> tuple[tuple[int, ...] | None, str]:
    """The slots' values (1-based, in slot order), or ``(None, why)``.

    ``example`` is a valid move shown in every error (pick one of the episode's size).
    """
    fmt = f'answer like "{example}"'
    if len(text) > MAX_MOVE_LENGTH:
        return None, f"{len(text)} characters is far too long for a move; {fmt}"
    by_label = {label: i for i, slot in enumerate(slots) for label in slot.labels}
    values: list[str | None] = [None] * len(slots)
    loose: list[str] = []
    pending: int | None = None
    shown = text.strip()[:40]
    for tok in _TOKEN.findall(text.lower()):
        if tok.isascii() and tok.isdigit():
            if pending is None:
                loose.append(tok)
            elif values[pending] is not None:
                return None, f"the {slots[pending].name} is given twice; {fmt}"
            else:
                values[pending], pending = tok, None
        elif tok in by_label:
            if pending is not None:
                return None, f"'{tok}' follows a label with no number; {fmt}"
            pending = by_label[tok]
        elif tok in fillers or tok in _PUNCTUATION:
            continue
        else:
            return None, f"unexpected {tok[:20]!a} in {shown!a}; {fmt}"
    if pending is not None:
        return None, f"the {slots[pending].name} label has no number; {fmt}"
    compact = len(loose) == 1 and len(loose[0]) == len(slots) > 1
    if compact and all(v is None for v in values) and all(s.high <= 9 for s in slots):
        loose = list(loose[0])
    for k in range(len(slots)):
        if values[k] is None and loose:
            values[k] = loose.pop(0)
    if loose:
        return None, f"too many numbers in {shown!a}; expected {len(slots)}; {fmt}"
    missing = [slot.name for slot, v in zip(slots, values, strict=True) if v is None]
    if missing:
        return None, f"missing {' and '.join(missing)} in {shown!a}; {fmt}"
    out = []
    for slot, v in zip(slots, values, strict=True):
        assert v is not None
        digits = v.lstrip("0") or "0"
        if len(digits) > len(str(slot.high)) or not 1 <= int(digits) <= slot.high:
            return None, f"{slot.name} {v[:10]} is out of range; it must be 1-{slot.high}; {fmt}"
        out.append(int(digits))
    return tuple(out), ""
