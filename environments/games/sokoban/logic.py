"""Sokoban maths: levels, moves, exact distance tables, a budget-limited solver, generation.

Everything here is a pure function of its arguments (plus an explicit numpy ``Generator`` for
generation), so it is testable without the env. Cells are flat indices ``row * width + col``
(0-based); a *state* is ``(player, boxes)`` with ``boxes`` a sorted tuple of cells. Inside the
searches a state is packed into one int, its *key* (:meth:`Level.key`): the player's cell in
the low bits and, above them, one bit per interior cell that holds a box; ints hash and
compare far faster than tuples.

>>> level, player, boxes = parse_level(["#####", "#PXO#", "#####"])
>>> shortest_distance(level, player, boxes, limit=5)
1
>>> [DIRECTIONS[i] for i in solve(level, player, boxes, limit=5)]
['right']
>>> render(level, *move(level, player, boxes, 3))
['#####', '#_PV#', '#####']
"""

from __future__ import annotations

import heapq
import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property, lru_cache

import numpy as np

__all__ = [
    "DIRECTIONS",
    "INF",
    "SYMBOLS",
    "Level",
    "MoveEval",
    "Oracle",
    "ReverseTable",
    "generate_level",
    "is_solved",
    "move",
    "parse_level",
    "render",
    "score_move",
    "score_moves",
    "shortest_distance",
    "solve",
    "target_range",
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
    _table: ReverseTable | None = field(init=False, repr=False, compare=False)

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
            _table=None,
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

    @property
    def reverse(self) -> ReverseTable:
        """This level's table of exact distances (:class:`ReverseTable`), grown on demand."""
        table = self._table
        if table is None:
            table = ReverseTable(self)
            vars(self)["_table"] = table
        return table

    def rc(self, cell: int) -> tuple[int, int]:
        """0-based (row, column) of a cell."""
        return divmod(cell, self.width)


class ReverseTable:
    """Exact distances to solved of every state within :attr:`depth` moves of solved.

    Built backwards: layer 0 holds every solved state (all boxes on goals, the player on any
    free cell) and layer ``k + 1`` every new state one backwards move (a step, or a step that
    pulls the box behind the player along) from layer ``k``. Breadth-first order makes each
    layer exactly the states whose shortest solution has ``k + 1`` moves. A state missing from
    a table of depth ``D`` needs more than ``D`` moves, or can never be solved once the table
    is :attr:`exhausted`. The generator grows it to pick a start state; the oracle reuses it
    and, on small levels, grows it further (see :data:`ORACLE_TABLE_STATES`).

    >>> lv, p, b = parse_level(["#####", "#P__#", "#_X_#", "#__O#", "#####"])
    >>> table = lv.reverse
    >>> table.grow(depth=6, max_states=1000)
    >>> table.depth, table.dist[lv.key(p, b)], len(table.layers[0])
    (6, 5, 8)
    """

    __slots__ = ("_links", "_low", "_walls", "dist", "exhausted", "layers")

    def __init__(self, level: Level) -> None:
        # No reference back to the level, which holds the table: no cycle for the GC to find.
        self._walls, self._links = level.walls, level.shape.links
        self._low = (1 << level.shift) - 1
        goal_key, goals, walls = level.goal_key, level.goal_set, level.walls
        solved = [goal_key | c for c in level.shape.interior if not walls[c] and c not in goals]
        #: ``key -> exact distance`` for every state found so far.
        self.dist: dict[int, int] = dict.fromkeys(solved, 0)
        #: ``layers[k]``: the keys at distance ``k``, in a deterministic (discovery) order.
        self.layers: list[list[int]] = [solved]
        #: True once a layer found nothing new: every solvable state is in :attr:`dist`.
        self.exhausted = not solved

    @property
    def depth(self) -> int:
        """Every state within this many moves of solved is in :attr:`dist`."""
        return len(self.layers) - 1

    def grow(self, depth: int, max_states: int) -> None:
        """Add layers until ``depth`` is reached, the table is exhausted, or it holds at least
        ``max_states`` states (checked before each layer, so the last layer may pass it)."""
        dist, layers, walls, links = self.dist, self.layers, self._walls, self._links
        low = self._low
        k = len(layers) - 1
        while k < depth and not self.exhausted and len(dist) < max_states:
            k += 1
            found: list[int] = []
            append = found.append
            if k == 1:
                # Layer 0 holds every solved state, and a plain step keeps the boxes where
                # they are, so from it only pulls can find anything new.
                for s in layers[0]:
                    p = s & low
                    for q, box_ahead, box_behind, pull in links[p]:
                        if s & box_behind and not walls[q] and not s & box_ahead:
                            ns = s - p + q + pull
                            if ns not in dist:
                                dist[ns] = k
                                append(ns)
            else:
                for s in layers[-1]:
                    p = s & low
                    base = s - p
                    for q, box_ahead, box_behind, pull in links[p]:
                        if walls[q] or s & box_ahead:
                            continue
                        # Forwards, the player steps from q back onto p ...
                        ns = base + q
                        if ns not in dist:
                            dist[ns] = k
                            append(ns)
                        if s & box_behind:
                            # ... or pushes the box on p onto the cell behind p.
                            ns += pull
                            if ns not in dist:
                                dist[ns] = k
                                append(ns)
            if found:
                layers.append(found)
            else:
                self.exhausted = True


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


def _frozen(level: Level, cells: tuple[int, ...]) -> bool:
    # A 2x2 block made only of walls and boxes can never change; if one of its boxes is off
    # a goal the level is lost.
    walls, goals = level.walls, level.goal_set
    for cell in cells:
        if cell in goals:
            continue
        for block in level.squares[cell]:
            if all(walls[x] or x in cells for x in block):
                return True
    return False


def _box_bound(level: Level, mask: int) -> tuple[int, tuple[int, ...]]:
    """``(lower bound on the pushes left, box cells)`` for the box bits ``key >> shift``.

    The bound is ``INF`` for a known deadlock; otherwise the cheapest assignment of boxes to
    distinct goals under per-goal push distances (at most 3! = 6 assignments). Pushing one box
    one cell lowers it by at most 1, which keeps the A* heuristic consistent. Memoised per
    level: layouts recur in every search.
    """
    memo = level.bound_memo
    hit = memo.get(mask)
    if hit is not None:
        return hit
    cells = level.shape.cells(mask)
    tables = level.goal_push_distances
    best = INF
    for perm in itertools.permutations(range(len(cells))):
        total = 0
        for b, g in zip(cells, perm, strict=True):
            total += tables[g][b]
        best = min(best, total)
    if best < INF and _frozen(level, cells):
        best = INF
    memo[mask] = (best, cells)
    return best, cells


def _search(
    level: Level, start: int, limit: int, table: ReverseTable | None = None
) -> tuple[int, list[int], list[int]] | None:
    """A* search from the state key ``start`` for a shortest solution of at most ``limit`` moves.

    Returns ``(length, moves, keys)``, or None when no solution fits. ``keys`` are the states
    reached after each move. Without a ``table`` the moves are a whole solution. With one,
    the search stops at the first state of the table it can close (its exact distance is the
    rest of the way) and states outside the table count at least ``table.depth + 1`` moves, so
    ``moves`` may be only a prefix of a shortest solution; ``length`` is always exact.

    The heuristic (the box bound plus the walk to stand next to the nearest box, or the
    table's exact distance) is consistent, so the first goal state popped is at its shortest
    distance; states with ``moves + heuristic > limit`` are never queued, which keeps proving
    "no solution within the budget" cheap. Pushes onto dead cells or into frozen 2x2 blocks
    are pruned too (no solution passes through them), so the answer stays exact.
    """
    walls, deltas, bits, shape = level.walls, level.deltas, level.bits, level.shape
    manhattan = shape.manhattan
    shift = level.shift
    low = (1 << shift) - 1
    goal_mask = level.goal_key >> shift
    memo = level.bound_memo
    exact = table.dist if table is not None else {}
    # Every state outside the table needs more moves than its depth (or can never be solved).
    floor = 0 if table is None else INF if table.exhausted else table.depth + 1

    def heuristic(key: int) -> int:
        # Admissible and consistent: a table state's exact distance; otherwise the box bound
        # plus (unless solved) the walk to the nearest box, which is 0 right after any push
        # and changes by 1 per plain move, raised to the table's floor for states outside it.
        known = exact.get(key)
        if known is not None:
            return known
        mask = key >> shift
        hit = memo.get(mask)
        bound, cells = hit if hit is not None else _box_bound(level, mask)
        if bound == 0 or bound >= INF:
            return bound if bound > floor else floor
        row = manhattan[key & low] or shape.manhattan_row(key & low)
        walk = INF
        for b in cells:
            if row[b] < walk:
                walk = row[b]
        walk += bound - 1
        return walk if walk > floor else floor

    h0 = heuristic(start)
    if h0 > limit:
        return None
    best_g: dict[int, int] = {start: 0}
    parent: dict[int, tuple[int, int] | None] = {start: None}
    # (f, -g, tie, key): among equal f expand the deepest first, which reaches the goal
    # sooner; the running counter keeps the order total and deterministic.
    heap: list[tuple[int, int, int, int]] = [(h0, 0, 0, start)]
    tie = 0
    found: int | None = None
    length = 0
    while heap:
        f, neg_g, _, state = heapq.heappop(heap)
        g = -neg_g
        if g > best_g[state]:
            continue
        if state in exact or state >> shift == goal_mask:
            found, length = state, f
            break
        ng = g + 1
        p = state & low
        base = state - p
        for i, d in enumerate(deltas):
            t = p + d
            if walls[t]:
                continue
            ns = base + t
            bt = bits[t]
            if state & bt:
                u = t + d
                if walls[u] or state & bits[u]:
                    continue
                ns += bits[u] - bt
            old = best_g.get(ns)
            if old is not None and old <= ng:
                continue
            f = ng + heuristic(ns)
            if f > limit:
                continue
            best_g[ns] = ng
            parent[ns] = (state, i)
            tie += 1
            heapq.heappush(heap, (f, -ng, tie, ns))
    if found is None:
        return None
    moves: list[int] = []
    keys: list[int] = []
    node = found
    while (link := parent[node]) is not None:
        keys.append(node)
        moves.append(link[1])
        node = link[0]
    return length, moves[::-1], keys[::-1]


def solve(level: Level, player: int, boxes: Sequence[int], limit: int) -> list[int] | None:
    """A shortest solution (list of direction indices) of at most ``limit`` moves, or None.

    >>> lv, p, b = parse_level(["#####", "#P__#", "#_X_#", "#__O#", "#####"])
    >>> [DIRECTIONS[i] for i in solve(lv, p, b, limit=10)]
    ['down', 'right', 'up', 'right', 'down']
    """
    result = _search(level, level.key(player, boxes), limit)
    return None if result is None else result[1]


def shortest_distance(level: Level, player: int, boxes: Sequence[int], limit: int) -> int | None:
    """Moves in a shortest solution if it has at most ``limit`` moves, else None.

    >>> lv, p, b = parse_level(["#####", "#P__#", "#_X_#", "#__O#", "#####"])
    >>> shortest_distance(lv, p, b, 10), shortest_distance(lv, p, b, 4)
    (5, None)
    """
    result = _search(level, level.key(player, boxes), limit)
    return None if result is None else result[0]


@dataclass(frozen=True)
class MoveEval:
    """What the oracle decided about one move from a state with ``steps_left`` steps.

    ``optimal``: the move starts a shortest solution that fits the budget. ``solvable``: after
    the move some solution still fits the ``steps_left - 1`` steps that remain. Both are False
    for a blocked move (``legal`` False, ``next_state`` None).
    """

    direction: int
    legal: bool
    next_state: State | None
    optimal: bool
    solvable: bool


#: A level with at most this many conceivable states (a player cell for every placement of
#: the boxes on the floor) gets its whole :class:`ReverseTable` grown on demand, so every
#: question about it becomes a dictionary look-up: a 6x6 room with one box has at most 240.
#: Larger levels keep the table the generator built and search (A*) beyond it, which costs
#: far less than tabulating thousands of states.
ORACLE_TABLE_STATES = 1000


class Oracle:
    """Budget-limited shortest-path oracle for one level.

    Distances do not depend on the budget, so one store serves the whole episode. The
    level's :class:`ReverseTable` answers first (the generator has usually grown it already;
    on small levels, see :data:`ORACLE_TABLE_STATES`, it is grown further as needed). Beyond
    it an A* search that stops at the table's edge runs, and its answers are memoised: an
    exact distance with each state on the path found, and "none within L moves" with its L.

    >>> lv, p, b = parse_level(["#####", "#P__#", "#_X_#", "#__O#", "#####"])
    >>> oracle = Oracle(lv)
    >>> oracle.distance(p, b, 15)
    5
    >>> [DIRECTIONS[i] for i in oracle.best_moves(p, b, 15, mode="shortest")]
    ['down', 'right']
    >>> oracle.scores(p, b, 5, "shortest"), oracle.scores(p, b, 4, "shortest")
    ([-2.0, 2.0, -2.0, 2.0], [-2.0, -2.0, -2.0, -2.0])
    """

    def __init__(self, level: Level) -> None:
        self.level = level
        self._table = level.reverse
        self._exact = self._table.dist  # grown in place, so this stays the table's dict
        self._bits = level.bits
        self._cache: dict[int, tuple[int | None, int]] = {}
        self._small: bool | None = None  # see ORACLE_TABLE_STATES; decided when first needed

    def remember(self, player: int, boxes: tuple[int, ...], distance: int) -> None:
        """Record a distance known from elsewhere (it must be exact)."""
        self._cache[self.level.key(player, boxes)] = (distance, distance)

    def distance(self, player: int, boxes: Sequence[int], limit: int) -> int | None:
        """Shortest solution length from ``(player, boxes)`` if it is <= ``limit``, else None."""
        # Level.key and the table look-up inlined: this runs a few times per step.
        bits, key = self._bits, player
        for b in boxes:
            key += bits[b]
        dist = self._exact.get(key)
        if dist is None:
            return self._beyond_table(key, limit)
        return dist if dist <= limit else None

    def distance_of(self, key: int, limit: int) -> int | None:
        """:meth:`distance` of a state given by its :meth:`Level.key`."""
        dist = self._exact.get(key)
        if dist is None:
            return self._beyond_table(key, limit)
        return dist if dist <= limit else None

    def _beyond_table(self, key: int, limit: int) -> int | None:
        # A state the table does not hold needs more moves than its depth (or none at all).
        table = self._table
        if table.exhausted or limit <= table.depth:
            return None
        hit = self._cache.get(key)
        if hit is not None:
            dist, searched = hit
            if dist is not None:
                return dist if dist <= limit else None
            if searched >= limit:
                return None
        if self._small is None:
            level = self.level
            floor, boxes = level.walls.count(False), len(level.goals)
            self._small = math.comb(floor, boxes) * (floor - boxes) <= ORACLE_TABLE_STATES
        if self._small:
            table.grow(limit, INF)
            return self.distance_of(key, limit)
        return self._search(key, limit, table)

    def _search(self, key: int, limit: int, table: ReverseTable) -> int | None:
        result = _search(self.level, key, limit, table)
        if result is None:
            self._cache[key] = (None, limit)
            return None
        # Every state on a shortest path is itself at its shortest distance from the goal.
        total, _, keys = result
        self._cache[key] = (total, total)
        for k, s in enumerate(keys):
            if s not in table.dist:
                self._cache[s] = (total - k - 1, total)
        return total if total <= limit else None

    def judge(
        self, player: int, boxes: tuple[int, ...], steps_left: int, direction: int
    ) -> MoveEval:
        """The :class:`MoveEval` of one move from ``(player, boxes)`` with ``steps_left`` steps.

        Asks only what the verdict needs: with ``d`` the distance from here, the move is
        optimal iff the distance after it is ``d - 1`` (a move changes it by at most one), and
        a plain move (no push) can always be undone, so it leaves a distance of at most
        ``d + 1`` and keeps the level solvable when ``d + 1`` fits the steps left after it.
        """
        nxt = move(self.level, player, boxes, direction)
        if nxt is None:
            return MoveEval(direction, False, None, False, False)
        here = self.distance(player, boxes, steps_left)
        if here is None or here == 0:
            return MoveEval(direction, True, nxt, False, False)
        if self.distance(nxt[0], nxt[1], here - 1) is not None:
            return MoveEval(direction, True, nxt, True, True)
        solvable = (nxt[1] == boxes and here + 1 <= steps_left - 1) or self.distance(
            nxt[0], nxt[1], steps_left - 1
        ) is not None
        return MoveEval(direction, True, nxt, False, solvable)

    def evaluate(self, player: int, boxes: tuple[int, ...], steps_left: int) -> list[MoveEval]:
        """One :class:`MoveEval` per direction, in :data:`DIRECTIONS` order."""
        return [self.judge(player, boxes, steps_left, i) for i in range(len(DIRECTIONS))]

    def scores(
        self, player: int, boxes: tuple[int, ...], steps_left: int, mode: str
    ) -> list[float]:
        """Process reward of each direction (``DIRECTIONS`` order); see :func:`score_moves`."""
        return score_moves(self.evaluate(player, boxes, steps_left), mode)

    def best_moves(
        self, player: int, boxes: tuple[int, ...], steps_left: int, mode: str = "shortest"
    ) -> list[int]:
        """Legal directions with the highest score (in ``DIRECTIONS`` order)."""
        evals = self.evaluate(player, boxes, steps_left)
        legal = [e.direction for e in evals if e.legal]
        if not legal:
            return []
        sc = score_moves(evals, mode)
        top = max(sc[i] for i in legal)
        return [i for i in legal if sc[i] == top]


def score_moves(evals: Sequence[MoveEval], mode: str) -> list[float]:
    """Process reward of each evaluated move under oracle ``mode``.

    ``"shortest"``: +2 on a shortest solution, 0 for another move that keeps the level
    solvable in the budget, -2 otherwise (blocked, deadlocked or out of steps).
    ``"solvable"``: +2 for any move that keeps it solvable in the budget, -2 otherwise.

    >>> evals = [MoveEval(0, False, None, False, False), MoveEval(1, True, (1, ()), True, True),
    ...          MoveEval(2, True, (2, ()), False, True), MoveEval(3, True, (3, ()), False, False)]
    >>> score_moves(evals, "shortest"), score_moves(evals, "solvable")
    ([-2.0, 2.0, 0.0, -2.0], [-2.0, 2.0, 2.0, -2.0])
    """
    return [score_move(e.optimal, e.solvable, mode) for e in evals]


def score_move(optimal: bool, solvable: bool, mode: str) -> float:
    """Process reward of one move from its verdict (see :func:`score_moves`).

    >>> score_move(False, True, "shortest"), score_move(False, True, "solvable")
    (0.0, 2.0)
    """
    if mode not in ("shortest", "solvable"):
        raise ValueError(f"oracle mode must be 'shortest' or 'solvable', got {mode!r}")
    return -2.0 if not solvable else 2.0 if optimal or mode == "solvable" else 0.0


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


# ---------------------------------------------------------------------------- generation
#: Layout attempts before the open-room fallback; each costs one reverse search.
MAX_LAYOUT_TRIES = 24
#: States one reverse search may visit; bounds generation time on large levels.
MAX_REVERSE_STATES = 20_000

# Probabilities of the room-carving walk's choices in 8-bit fixed point (a random byte falls
# below them with probability 102/256 = 0.398 and 90/256 = 0.352).
_SIDE_CARVE = round(0.40 * 256)
_TURN = round(0.35 * 256)


def target_range(max_steps: int) -> tuple[int, int]:
    """Optimal-solution lengths the generator aims for: about 1/3 to 2/3 of the budget.

    The upper third of the budget is slack, so an agent can afford a few non-shortest moves.

    >>> target_range(15)
    (5, 10)
    """
    hi = max(1, (2 * max_steps) // 3)
    return max(1, hi // 2), hi


@lru_cache(maxsize=16)
def _room_walk(size: int) -> tuple[tuple[int, ...], tuple[tuple[int, int, int, int], ...]]:
    # Interior cells, and per cell its neighbour in each direction (-1 off the interior).
    inner = [r * size + c for r in range(1, size - 1) for c in range(1, size - 1)]
    inside = set(inner)
    step = []
    for x in range(size * size):
        step.append(tuple(x + d if x + d in inside else -1 for d in (-size, size, -1, 1)))
    return tuple(inner), tuple(step)


class _Draws:
    """Uniform random bytes from the episode's generator, drawn in batches.

    One numpy call per random number would cost more than the rest of a small level's
    generation, so raw 64-bit outputs are drawn a batch at a time and read as bytes
    (little-endian on every platform, so a seed means the same everywhere). Iterating over
    bytes yields Python's cached small ints, which allocates nothing.
    """

    __slots__ = ("_buf", "_next", "_raw")

    def __init__(self, rng: np.random.Generator) -> None:
        self._raw = rng.bit_generator.random_raw
        self._buf = b""
        self._next = 0

    def take(self, k: int) -> bytes:
        """The next ``k`` random bytes."""
        start = self._next
        if start + k > len(self._buf):
            words = self._raw(max(32, (k + 7) // 8)).astype("<u8", copy=False)
            self._buf = self._buf[start:] + words.tobytes()
            start = 0
        self._next = start + k
        return self._buf[start : start + k]

    def below(self, n: int) -> int:
        """A uniform integer in ``[0, n)`` (from 32 bits; the bias is below ``n / 2**32``)."""
        return int.from_bytes(self.take(4), "little") % n


def _carve(draws: _Draws, size: int) -> tuple[list[bool], list[int]]:
    # A random walk over the interior; it sometimes also carves a side cell, so rooms mix
    # corridors with 2-wide areas where the player can walk round a box. Returns the walls
    # and the carved cells in carving order.
    inner_cells, step = _room_walk(size)
    inner = size - 2
    # A uniform draw in [0.55, 0.85) from 32 bits: the share of the interior to carve.
    target = round(inner * inner * (0.55 + 0.3 * draws.below(1 << 32) / (1 << 32)))
    cell = inner_cells[draws.below(len(inner_cells))]
    heading = draws.take(1)[0] & 3
    walls = [True] * (size * size)
    floor: list[int] = []
    budget = 40 * inner * inner
    side_carve, turn = _SIDE_CARVE, _TURN
    while budget > 0:
        n = min(budget, 3 * target + 4)
        budget -= n
        batch = iter(draws.take(3 * n))
        # Per walk step, three random bytes: a side-carve draw, a turn draw, and a byte whose
        # low bits give the side, the new heading and the heading after bouncing off the edge.
        for side_draw, turn_draw, dirs in zip(batch, batch, batch, strict=True):
            row = step[cell]
            if walls[cell]:
                walls[cell] = False
                floor.append(cell)
            if side_draw < side_carve:
                side = row[dirs & 3]
                if side >= 0 and walls[side]:
                    walls[side] = False
                    floor.append(side)
            if len(floor) >= target:
                return walls, floor
            if turn_draw < turn:
                heading = (dirs >> 2) & 3
            if row[heading] >= 0:
                cell = row[heading]
            else:
                heading = (dirs >> 4) & 3
    return walls, floor


def _sample(draws: _Draws, pool: Sequence[int], k: int) -> list[int]:
    # k distinct items, uniformly (a partial Fisher-Yates shuffle).
    items = list(pool)
    for i in range(k):
        j = i + draws.below(len(items) - i)
        items[i], items[j] = items[j], items[i]
    return items[:k]


def _pick(draws: _Draws, level: Level, lo: int, hi: int) -> tuple[int, State] | None:
    # A distance drawn uniformly from those in [lo, hi] that have states (else the largest
    # below lo), then a state at that distance, preferring starts with every box off a goal.
    # The reverse search stops at the drawn distance when that has states, so it rarely needs
    # to reach hi; redrawing among the distances found when it does not keeps the draw
    # uniform over them. Layer 0 holds all solved states, so every later layer is unsolved.
    table = level.reverse
    k = lo + draws.below(hi - lo + 1)
    table.grow(k, MAX_REVERSE_STATES)
    top = min(hi, table.depth)
    if top < k:
        if top < 1:
            return None
        k = lo + draws.below(top - lo + 1) if top >= lo else top
    layer = table.layers[k]
    goal_key = level.goal_key
    clear = [s for s in layer if not s & goal_key]
    pool = clear or layer
    return k, level.unkey(pool[draws.below(len(pool))])


def generate_level(
    rng: np.random.Generator, size: int = 6, boxes: int = 1, max_steps: int = 15
) -> tuple[Level, int, tuple[int, ...], int]:
    """A seeded, solvable ``size x size`` level whose shortest solution fits ``max_steps``.

    Returns ``(level, player, boxes, optimal_moves)``. Carves a room, puts boxes on goals and
    searches backwards (pulls) from the solved positions (:class:`ReverseTable`), which yields
    every start state with its exact shortest distance; a distance in :func:`target_range` is
    drawn uniformly among those the room has, then a start state at that distance. Bounded:
    after :data:`MAX_LAYOUT_TRIES` layouts the best one seen (or an open room) is used. The
    level keeps the table, so an :class:`Oracle` of it starts with the exact distance of every
    state within ``optimal_moves`` moves of solved.

    >>> lv, p, b, n = generate_level(np.random.default_rng(0), 6, 1, 15)
    >>> 1 <= n <= 15 and shortest_distance(lv, p, b, 15) == n
    True
    """
    lo, hi = target_range(max_steps)
    draws = _Draws(rng)
    best: tuple[Level, int, State] | None = None
    for attempt in range(MAX_LAYOUT_TRIES + 1):
        if attempt < MAX_LAYOUT_TRIES:
            walls, floor = _carve(draws, size)
            if len(floor) < boxes + 2:
                continue
            goals = sorted(_sample(draws, floor, boxes))
        else:
            # Fallback: an open room. Goals along the right-hand interior column can always be
            # pulled left, so this layout always has unsolved start states.
            walls = [
                r in (0, size - 1) or c in (0, size - 1) for r in range(size) for c in range(size)
            ]
            rows = _sample(draws, range(1, size - 1), boxes)
            goals = sorted(r * size + size - 2 for r in rows)
        level = Level(size, size, tuple(walls), tuple(goals))
        picked = _pick(draws, level, lo, hi)
        if picked is None:
            continue
        k, (player, bx) = picked
        if k >= lo:
            return level, player, bx, k
        if best is None or k > best[1]:
            best = (level, k, (player, bx))
    if best is None:  # pragma: no cover - the open room always has a pull
        raise RuntimeError("level generation failed")
    level, k, (player, bx) = best
    return level, player, bx, k
