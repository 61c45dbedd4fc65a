"""Sokoban's rules: levels, moves and the text form of a grid.

Everything here is a pure function of its arguments, so it is testable without the env. Cells
are flat indices ``row * width + col`` (0-based); a *state* is ``(player, boxes)`` with
``boxes`` a sorted tuple of cells. The searches pack a state into one int, its *key*
(:meth:`Level.key`): the player's cell in the low bits and, above them, one bit per interior
cell that holds a box; ints hash and compare far faster than tuples.

The other concepts live next door: :mod:`.search` (the exact distance table, deadlock tests
and the A* solver), :mod:`.oracle` (the per-move verdicts and their rewards) and
:mod:`.generator` (seeded levels).

>>> level, player, boxes = parse_level(["#####", "#PXO#", "#####"])
>>> render(level, *move(level, player, boxes, 3))
['#####', '#_PV#', '#####']
>>> is_solved(level, move(level, player, boxes, 3)[1])
True
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from typing import Any

__all__ = [
    "DIRECTIONS",
    "INF",
    "MAX_BOXES",
    "MAX_SIDE",
    "SYMBOLS",
    "Level",
    "State",
    "check_playable",
    "is_solved",
    "move",
    "parse_level",
    "render",
]

#: Canonical move names; a move is an index into this tuple.
DIRECTIONS: tuple[str, ...] = ("up", "down", "left", "right")

#: Grid symbols (the VPR / gym-sokoban text legend, with ``V`` for the non-ASCII tick).
SYMBOLS: dict[str, str] = {
    "#": "wall",
    "_": "floor",
    "O": "goal",
    "X": "box",
    "V": "box on a goal",
    "P": "player",
    "S": "player on a goal",
}

# Larger than any real distance; marks a cell from which no box can ever reach a goal.
INF = 1 << 30

#: The largest grid side (outer walls included) and box count a level may have: the
#: generator's limits, which also bound what one oracle question can cost.
MAX_SIDE = 10
MAX_BOXES = 3

State = tuple[int, tuple[int, ...]]


class _Shape:
    """Tables that depend only on the grid shape, built once per shape and process.

    State keys give the player the low ``shift`` bits (its cell) and each interior cell one
    bit above them; numbering only the interior keeps a 6x6 key below 2**30, where Python's
    int arithmetic is fastest.
    """

    __slots__ = ("_squares", "bit", "height", "interior", "links", "manhattan", "shift", "width")

    def __init__(self, height: int, width: int) -> None:
        self.height, self.width = height, width
        self._squares: tuple[tuple[tuple[int, int, int, int], ...], ...] | None = None
        n = height * width
        #: ``manhattan[a]``: the grid distance from cell ``a`` to every cell, or None until
        #: :meth:`manhattan_row` builds it (only the rows a search needs, so that a large
        #: hand-drawn level does not cost a full table).
        self.manhattan: list[tuple[int, ...] | None] = [None] * n
        self.shift = shift = n.bit_length()
        #: The cells off the border (the only ones that can be floor), ascending.
        self.interior = interior = tuple(
            r * width + c for r in range(1, height - 1) for c in range(1, width - 1)
        )
        # Bit position of each cell's box; border cells share a spare bit that no key sets.
        pos = [shift + len(interior)] * n
        for i, c in enumerate(interior):
            pos[c] = shift + i
        #: Per cell, the key bit of a box on it (0 on the border).
        inside = set(interior)
        self.bit = tuple(1 << pos[c] if c in inside else 0 for c in range(n))
        # Per interior cell, for each direction d: (c + d, key bit of a box on c + d, key bit
        # of a box on c - d, pull), where pull is what a backwards move that drags a box
        # from c - d onto c adds to the key.
        links: list[tuple[tuple[int, int, int, int], ...]] = [()] * n
        for c in interior:
            links[c] = tuple(
                (c + d, 1 << pos[c + d], 1 << pos[c - d], (1 << pos[c]) - (1 << pos[c - d]))
                for d in (-width, width, -1, 1)
            )
        self.links = tuple(links)

    @property
    def squares(self) -> tuple[tuple[tuple[int, int, int, int], ...], ...]:
        """For each cell, the (up to four) 2x2 blocks that contain it (for freeze deadlocks)."""
        if self._squares is None:
            w, n = self.width, self.height * self.width
            out = []
            for c in range(n):
                blocks = []
                for top_left in (c, c - 1, c - w, c - w - 1):
                    cells = (top_left, top_left + 1, top_left + w, top_left + w + 1)
                    if top_left >= 0 and top_left % w != w - 1 and cells[3] < n:
                        blocks.append(cells)
                out.append(tuple(blocks))
            self._squares = tuple(out)
        return self._squares

    def manhattan_row(self, cell: int) -> tuple[int, ...]:
        """The grid distance from ``cell`` to every cell (memoised in :attr:`manhattan`)."""
        row = self.manhattan[cell]
        if row is None:
            w = self.width
            r, c = divmod(cell, w)
            row = tuple(abs(r - x // w) + abs(c - x % w) for x in range(self.height * w))
            self.manhattan[cell] = row
        return row

    def cells(self, mask: int) -> tuple[int, ...]:
        """The box cells, ascending, of a key's box bits shifted down by ``shift``."""
        interior = self.interior
        out = []
        while mask:
            low = mask & -mask
            out.append(interior[low.bit_length() - 1])
            mask ^= low
        return tuple(out)


@lru_cache(maxsize=64)
def _shape(height: int, width: int) -> _Shape:
    return _Shape(height, width)


@dataclass(frozen=True)
class Level:
    """The static part of a level: walls and goals on a ``height x width`` grid.

    The border must be walls, so a move never leaves the grid. Only these four fields take
    part in equality; the other attributes are derived data (tables and memos).

    >>> lv = Level(3, 4, (True,) * 5 + (False, False) + (True,) * 5, (6,))
    >>> lv.deltas
    (-4, 4, -1, 1)
    >>> lv.unkey(lv.key(5, (6,)))
    (5, (6,))
    """

    height: int
    width: int
    walls: tuple[bool, ...]
    goals: tuple[int, ...]
    #: Cell offsets of up, down, left, right.
    deltas: tuple[int, int, int, int] = field(init=False, repr=False, compare=False)
    goal_set: frozenset[int] = field(init=False, repr=False, compare=False)
    #: Bits a state key reserves for the player's cell (see :meth:`key`).
    shift: int = field(init=False, repr=False, compare=False)
    #: The key bits of the solved box layout (a key with the player on cell 0).
    goal_key: int = field(init=False, repr=False, compare=False)
    #: Per cell, the key bit of a box on it.
    bits: tuple[int, ...] = field(init=False, repr=False, compare=False)
    shape: _Shape = field(init=False, repr=False, compare=False)
    #: The level's exact distance table, made by :func:`.search.reverse_table` when first
    #: asked for (the generator grows it; the oracle reuses it).
    table: Any = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        # Plain attributes rather than cached properties: every search reads them, and a
        # level is built per generation attempt, where a cached property's first read costs
        # more than computing these.
        w = self.width
        shape = _shape(self.height, w)
        bits = shape.bit
        goal_key = 0
        for g in self.goals:
            goal_key += bits[g]
        # Frozen: set through __dict__ (one call instead of a guarded setattr per field).
        vars(self).update(
            deltas=(-w, w, -1, 1),
            goal_set=frozenset(self.goals),
            shift=shape.shift,
            goal_key=goal_key,
            bits=bits,
            shape=shape,
            table=None,
        )

    def key(self, player: int, boxes: Sequence[int]) -> int:
        """Pack a state into one int: the player's cell plus one bit per box.

        Boxes sit on distinct interior cells, so the sum is a bitwise or.
        """
        bits = self.bits
        key = player
        for b in boxes:
            key += bits[b]
        return key

    def unkey(self, key: int) -> State:
        """The ``(player, boxes)`` state packed in ``key``."""
        shift = self.shift
        return key & ((1 << shift) - 1), self.shape.cells(key >> shift)

    @cached_property
    def goal_push_distances(self) -> tuple[tuple[int, ...], ...]:
        """For each goal, the fewest pushes that bring a box from each cell onto it.

        Other boxes are ignored; ``INF`` means never. Found by pulling a box back from the
        goal: a pull from ``c`` to ``c + d`` needs ``c + d`` and ``c + 2d`` free of walls.
        """
        walls, n = self.walls, len(self.walls)
        tables = []
        for goal in self.goals:
            dist = [INF] * n
            dist[goal] = 0
            frontier = [goal]
            while frontier:
                nxt = []
                for c in frontier:
                    for d in self.deltas:
                        b, p = c + d, c + 2 * d
                        if 0 <= p < n and not walls[b] and not walls[p] and dist[b] == INF:
                            dist[b] = dist[c] + 1
                            nxt.append(b)
                frontier = nxt
            tables.append(tuple(dist))
        return tuple(tables)

    @cached_property
    def push_distances(self) -> tuple[int, ...]:
        """Fewest pushes from each cell onto the nearest goal (``INF``: a dead cell)."""
        return tuple(map(min, zip(*self.goal_push_distances, strict=True)))

    @cached_property
    def bound_memo(self) -> dict[int, tuple[int, tuple[int, ...]]]:
        """Memo of ``box mask -> (push lower bound, box cells)`` (see ``_box_bound``)."""
        return {}

    @property
    def squares(self) -> tuple[tuple[tuple[int, int, int, int], ...], ...]:
        """For each cell, the (up to four) 2x2 blocks that contain it (for freeze deadlocks)."""
        return self.shape.squares

    @cached_property
    def floor_plan(self) -> tuple[str, ...]:
        """The :data:`SYMBOLS` character of every cell with no player or box on it."""
        goals = self.goal_set
        walls = self.walls
        return tuple("#" if walls[c] else "O" if c in goals else "_" for c in range(len(walls)))

    def rc(self, cell: int) -> tuple[int, int]:
        """0-based (row, column) of a cell."""
        return divmod(cell, self.width)


def move(level: Level, player: int, boxes: tuple[int, ...], direction: int) -> State | None:
    """The state after moving ``direction`` (index into :data:`DIRECTIONS`), or None if blocked.

    Blocked means walking into a wall, or pushing a box into a wall or another box.

    >>> lv, p, b = parse_level(["#####", "#PX_#", "#__O#", "#####"])
    >>> move(lv, p, b, 3)
    (7, (8,))
    >>> move(lv, p, b, 0) is None
    True
    """
    d = level.deltas[direction]
    t = player + d
    if level.walls[t]:
        return None
    if t in boxes:
        u = t + d
        if level.walls[u] or u in boxes:
            return None
        return t, tuple(sorted(u if b == t else b for b in boxes))
    return t, boxes


def is_solved(level: Level, boxes: tuple[int, ...]) -> bool:
    """True when every box stands on a goal."""
    return boxes == level.goals


# ---------------------------------------------------------------------------- text form
def render(level: Level, player: int, boxes: Sequence[int]) -> list[str]:
    """The grid as rows of :data:`SYMBOLS` characters.

    >>> lv, p, b = parse_level(["######", "#SXV_#", "######"])
    >>> render(lv, p, b)
    ['######', '#SXV_#', '######']
    """
    chars = list(level.floor_plan)
    goals = level.goal_set
    for b in boxes:
        chars[b] = "V" if b in goals else "X"
    chars[player] = "S" if player in goals else "P"
    w = level.width
    return ["".join(chars[i : i + w]) for i in range(0, len(chars), w)]


def parse_level(rows: Sequence[str]) -> tuple[Level, int, tuple[int, ...]]:
    """Read a level drawn with :data:`SYMBOLS` (a space also means floor).

    Raises ``ValueError`` unless the grid is rectangular, walled all round, has one player and
    as many boxes as goals (at least one).

    >>> lv, p, b = parse_level(["#####", "#PXO#", "#####"])
    >>> (lv.height, lv.width, p, b, lv.goals)
    (3, 5, 6, (7,), (8,))
    """
    if isinstance(rows, str):
        rows = rows.splitlines()
    rows = [str(r) for r in rows]
    if len(rows) < 3 or len({len(r) for r in rows}) != 1 or len(rows[0]) < 3:
        raise ValueError("a level must be a rectangle of at least 3 x 3 cells")
    height, width = len(rows), len(rows[0])
    flat = "".join(rows)
    wall_row = "#" * width
    if not (
        rows[0] == rows[-1] == wall_row
        and all(r[0] == "#" == r[-1] for r in rows)
        and _LEVEL_CHARS.issuperset(flat)
    ):
        _explain_bad_cell(rows)
    goals = sorted(_find_all(flat, "O") + _find_all(flat, "V") + _find_all(flat, "S"))
    boxes = sorted(_find_all(flat, "X") + _find_all(flat, "V"))
    players = _find_all(flat, "P") + _find_all(flat, "S")
    if len(players) != 1:
        raise ValueError(f"a level needs exactly one player, found {len(players)}")
    if not boxes or len(boxes) != len(goals):
        raise ValueError(
            f"a level needs as many boxes as goals (>= 1): {len(boxes)} vs {len(goals)}"
        )
    level = Level(height, width, tuple(map("#".__eq__, flat)), tuple(goals))
    return level, players[0], tuple(boxes)


_LEVEL_CHARS = frozenset(SYMBOLS) | {" "}


def _find_all(text: str, ch: str) -> list[int]:
    # Indices of ch in text, ascending (str.find scans in C; levels hold few such cells).
    out = []
    i = text.find(ch)
    while i >= 0:
        out.append(i)
        i = text.find(ch, i + 1)
    return out


def _explain_bad_cell(rows: list[str]) -> None:
    # Raise for the first cell, in reading order, with an unknown symbol or a border gap.
    height, width = len(rows), len(rows[0])
    for r, row in enumerate(rows):
        for c, ch in enumerate(row):
            if ch not in _LEVEL_CHARS:
                raise ValueError(f"unknown symbol {ch!r} at row {r + 1}, column {c + 1}")
            border = r in (0, height - 1) or c in (0, width - 1)
            if border and ch != "#":
                raise ValueError(f"the border must be walls; row {r + 1}, column {c + 1} is not")


def check_playable(level: Level, boxes: Sequence[int]) -> None:
    """Raise ``ValueError`` unless a hand-drawn level is one an episode may start from.

    The grid may be at most :data:`MAX_SIDE` cells a side and hold at most :data:`MAX_BOXES`
    boxes (the generator's limits; beyond them one oracle question can cost minutes), and at
    least one box must be off a goal (a solved start has no move to score).

    >>> check_playable(*parse_level(["#####", "#PXO#", "#####"])[::2])
    >>> check_playable(*parse_level(["#####", "#PV_#", "#####"])[::2])
    Traceback (most recent call last):
    ...
    ValueError: the level starts solved; a level needs at least one box off a goal
    """
    if level.height > MAX_SIDE or level.width > MAX_SIDE:
        raise ValueError(
            f"a level may be at most {MAX_SIDE} x {MAX_SIDE} cells (walls included), "
            f"got {level.height} x {level.width}"
        )
    if len(boxes) > MAX_BOXES:
        raise ValueError(f"a level may hold at most {MAX_BOXES} boxes, got {len(boxes)}")
    if is_solved(level, tuple(boxes)):
        raise ValueError("the level starts solved; a level needs at least one box off a goal")
