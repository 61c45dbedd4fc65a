"""Board-blind scripts: a fixed list of actions that never reads the board's contents.

A script is a fixed sequence of action strings. At each turn it plays an action of its list
that is legal now (in ``info["available_actions"]``); which one depends on its mode:

* ``"priority"``: the first legal action of the whole list (for games where a cell is used
  once: tic-tac-toe, Minesweeper, Sudoku). "Always the first empty cell of one fixed list".
* ``"sequence"``: the next legal action at or after a pointer that moves along the list and
  wraps around (for movement games: Sokoban, where ``up`` stays playable).

The script reads only the list of legal actions, which every observation prints: never whose
mark a cell holds, a Minesweeper number, a box or a goal. What such a script scores is the
bar a policy must clear before it can be said to read the board.

>>> script = Script(("2 2", "1 1", "3 3"), "priority")
>>> script.reset()
>>> script.act({"available_actions": ["1 1", "3 3"]})
'1 1'
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np

__all__ = ["Mode", "Script", "random_scripts"]

Mode = Literal["priority", "sequence"]


@dataclass
class Script:
    """A fixed action list played in ``mode`` (see the module docstring)."""

    actions: tuple[str, ...]
    mode: Mode
    _pointer: int = field(default=0, repr=False)

    def __post_init__(self) -> None:
        if not self.actions:
            raise ValueError("a script needs at least one action")
        if self.mode not in ("priority", "sequence"):
            raise ValueError(f"mode must be 'priority' or 'sequence', got {self.mode!r}")

    def reset(self) -> None:
        """Start a new episode (the sequence pointer goes back to the start)."""
        self._pointer = 0

    def act(self, info: dict[str, Any]) -> str:
        """The script's action for a turn whose legal actions ``info`` lists.

        When none of its actions is legal it answers its first one, which the env rejects
        as invalid (as a model that repeats an occupied cell would be).

        >>> s = Script(("up", "left"), "sequence")
        >>> s.reset()
        >>> [s.act({"available_actions": ["up", "left"]}) for _ in range(3)]
        ['up', 'left', 'up']
        """
        legal = set(info.get("available_actions") or ())
        n = len(self.actions)
        start = 0 if self.mode == "priority" else self._pointer
        for i in range(n):
            j = (start + i) % n
            if self.actions[j] in legal:
                self._pointer = (j + 1) % n
                return self.actions[j]
        return self.actions[0]


def random_scripts(vocabulary: Sequence[str], mode: Mode, count: int, length: int,
                   seed: int) -> list[Script]:
    """``count`` random scripts, reproducible from ``seed``.

    ``priority``: random orders (permutations) of ``vocabulary``; ``sequence``: random
    sequences of ``length`` actions drawn from it with replacement.

    >>> sorted(random_scripts(["a", "b", "c"], "priority", 1, 0, seed=1)[0].actions)
    ['a', 'b', 'c']
    >>> len(random_scripts(["up", "down"], "sequence", 3, 15, seed=1)[2].actions)
    15
    """
    if count < 1:
        raise ValueError(f"count must be >= 1, got {count}")
    vocab = list(vocabulary)
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(count):
        if mode == "priority":
            order = rng.permutation(len(vocab))
        else:
            if length < 1:
                raise ValueError(f"a sequence script needs length >= 1, got {length}")
            order = rng.integers(0, len(vocab), size=length)
        out.append(Script(tuple(vocab[int(i)] for i in order), mode))
    return out
