"""Sokoban search: the exact distance table, deadlock tests and a budget-limited A* solver.

* :class:`ReverseTable` searches backwards from the solved positions, one layer per move, so
  it holds the exact distance of every state near solved. The generator grows it to pick a
  start state at a chosen distance; the oracle reuses it.
* :func:`box_bound` is a lower bound on the pushes left that is ``INF`` for a provable
  deadlock: a box on a cell from which no goal can be reached (a *dead cell*), boxes that
  cannot be matched to distinct goals, or a box off a goal frozen in a 2x2 block of walls
  and boxes. Each test is sound: a state it calls dead has no solution.
* :func:`astar` finds a shortest solution within a move limit, optionally stopping at the
  table's edge and within a node budget.

>>> from .logic import DIRECTIONS, parse_level
>>> level, player, boxes = parse_level(["#####", "#PXO#", "#####"])
>>> shortest_distance(level, player, boxes, limit=5)
1
>>> [DIRECTIONS[i] for i in solve(level, player, boxes, limit=5)]
['right']
"""

from __future__ import annotations

import heapq
import itertools
from collections.abc import Sequence

from .logic import INF, Level

__all__ = [
    "ReverseTable",
    "SearchBudgetExceeded",
    "astar",
    "box_bound",
    "reverse_table",
    "shortest_distance",
    "solve",
]


class SearchBudgetExceeded(Exception):
    """An :func:`astar` search used up its node budget before it could answer."""


class ReverseTable:
    """Exact distances to solved of every state within :attr:`depth` moves of solved.

    Built backwards: layer 0 holds every solved state (all boxes on goals, the player on any
    free cell) and layer ``k + 1`` every new state one backwards move (a step, or a step that
    pulls the box behind the player along) from layer ``k``. Breadth-first order makes each
    layer exactly the states whose shortest solution has ``k + 1`` moves. A state missing from
    a table of depth ``D`` needs more than ``D`` moves, or can never be solved once the table
    is :attr:`exhausted`. The generator grows it to pick a start state; the oracle reuses it
    and, on small levels, grows it further (see :data:`.oracle.ORACLE_TABLE_STATES`).

    >>> from .logic import parse_level
    >>> lv, p, b = parse_level(["#####", "#P__#", "#_X_#", "#__O#", "#####"])
    >>> table = reverse_table(lv)
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


def reverse_table(level: Level) -> ReverseTable:
    """The level's :class:`ReverseTable`, made on first use and kept on the level.

    The generator grows it while picking a start state; an oracle of the same level object
    then starts from every distance it found.
    """
    table = level.table
    if table is None:
        table = ReverseTable(level)
        vars(level)["table"] = table  # Level is frozen; this is its one memo slot
    return table


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


def box_bound(level: Level, mask: int) -> tuple[int, tuple[int, ...]]:
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


def astar(
    level: Level,
    start: int,
    limit: int,
    table: ReverseTable | None = None,
    max_nodes: int | None = None,
) -> tuple[int, list[int], list[int]] | None:
    """A* search from the state key ``start`` for a shortest solution of at most ``limit`` moves.

    Returns ``(length, moves, keys)``, or None when no solution fits; raises
    :class:`SearchBudgetExceeded` once it has expanded ``max_nodes`` states without an answer
    (None: no budget). ``keys`` are the states
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
        bound, cells = hit if hit is not None else box_bound(level, mask)
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
    budget = INF if max_nodes is None else max_nodes
    while heap:
        f, neg_g, _, state = heapq.heappop(heap)
        g = -neg_g
        if g > best_g[state]:
            continue
        budget -= 1
        if budget < 0:
            raise SearchBudgetExceeded(f"A* expanded {max_nodes} states without an answer")
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

    >>> from .logic import DIRECTIONS, parse_level
    >>> lv, p, b = parse_level(["#####", "#P__#", "#_X_#", "#__O#", "#####"])
    >>> [DIRECTIONS[i] for i in solve(lv, p, b, limit=10)]
    ['down', 'right', 'up', 'right', 'down']
    """
    result = astar(level, level.key(player, boxes), limit)
    return None if result is None else result[1]


def shortest_distance(level: Level, player: int, boxes: Sequence[int], limit: int) -> int | None:
    """Moves in a shortest solution if it has at most ``limit`` moves, else None.

    >>> from .logic import parse_level
    >>> lv, p, b = parse_level(["#####", "#P__#", "#_X_#", "#__O#", "#####"])
    >>> shortest_distance(lv, p, b, 10), shortest_distance(lv, p, b, 4)
    (5, None)
    """
    result = astar(level, level.key(player, boxes), limit)
    return None if result is None else result[0]
