"""Sokoban maths: levels, moves, a budget-limited shortest-path solver, the oracle, generation.

Everything here is a pure function of its arguments (plus an explicit numpy ``Generator`` for
generation), so it is testable without the env. Cells are flat indices ``row * width + col``
(0-based); a *state* is ``(player, boxes)`` with ``boxes`` a sorted tuple of cells.

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
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property

import numpy as np

__all__ = [
    "DIRECTIONS",
    "INF",
    "SYMBOLS",
    "Level",
    "MoveEval",
    "Oracle",
    "generate_level",
    "is_solved",
    "move",
    "parse_level",
    "render",
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


@dataclass(frozen=True)
class Level:
    """The static part of a level: walls and goals on a ``height x width`` grid.

    The border must be walls, so a move never leaves the grid.

    >>> lv = Level(3, 4, (True,) * 5 + (False, False) + (True,) * 5, (6,))
    >>> lv.deltas
    (-4, 4, -1, 1)
    """

    height: int
    width: int
    walls: tuple[bool, ...]
    goals: tuple[int, ...]

    @property
    def deltas(self) -> tuple[int, int, int, int]:
        """Cell offsets of up, down, left, right."""
        w = self.width
        return (-w, w, -1, 1)

    @cached_property
    def goal_set(self) -> frozenset[int]:
        return frozenset(self.goals)

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
    def bound_memo(self) -> dict[tuple[int, ...], int]:
        """Memo of push lower bounds per box layout (see ``_box_bound``); derived data only."""
        return {}

    @cached_property
    def squares(self) -> tuple[tuple[tuple[int, int, int, int], ...], ...]:
        """For each cell, the (up to four) 2x2 blocks that contain it (for freeze deadlocks)."""
        w, n = self.width, len(self.walls)
        out = []
        for c in range(n):
            blocks = []
            for top_left in (c, c - 1, c - w, c - w - 1):
                cells = (top_left, top_left + 1, top_left + w, top_left + w + 1)
                if top_left >= 0 and top_left % w != w - 1 and cells[3] < n:
                    blocks.append(cells)
            out.append(tuple(blocks))
        return tuple(out)

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


def _frozen(level: Level, boxes: tuple[int, ...]) -> bool:
    # A 2x2 block made only of walls and boxes can never change; if one of its boxes is off
    # a goal the level is lost.
    walls, goals = level.walls, level.goal_set
    for cell in boxes:
        if cell in goals:
            continue
        for block in level.squares[cell]:
            if all(walls[x] or x in boxes for x in block):
                return True
    return False


def _box_bound(level: Level, boxes: tuple[int, ...]) -> int:
    """Lower bound on the pushes left for this box layout; ``INF`` if it is a known deadlock.

    The cheapest assignment of boxes to distinct goals under per-goal push distances (at most
    3! = 6 assignments); pushing one box one cell lowers it by at most 1, which keeps the A*
    heuristic consistent. Memoised per level: layouts recur in every search.
    """
    memo = level.bound_memo
    best = memo.get(boxes)
    if best is not None:
        return best
    tables = level.goal_push_distances
    best = INF
    for perm in itertools.permutations(range(len(boxes))):
        total = 0
        for b, g in zip(boxes, perm, strict=True):
            total += tables[g][b]
        best = min(best, total)
    if best < INF and _frozen(level, boxes):
        best = INF
    memo[boxes] = best
    return best


def _heuristic(level: Level, player: int, boxes: tuple[int, ...], bound: int) -> int:
    # Admissible and consistent: the box bound, plus (unless solved) the walk to stand next
    # to the nearest box, which is 0 right after any push and changes by 1 per plain move.
    if bound == 0:
        return 0
    w = level.width
    pr, pc = divmod(player, w)
    walk = min(abs(b // w - pr) + abs(b % w - pc) for b in boxes) - 1
    return bound + walk


def _search(
    level: Level, player: int, boxes: tuple[int, ...], limit: int
) -> tuple[list[int], list[State]] | None:
    """A* search for a shortest solution of at most ``limit`` moves.

    Returns ``(moves, states)`` (the states reached after each move) or None. The heuristic
    is consistent, so the first solved state popped is at its shortest distance; states with
    ``moves + heuristic > limit`` are never queued, which keeps proving "no solution within
    the budget" cheap. Pushes onto dead cells or into frozen 2x2 blocks are pruned too (no
    solution passes through them), so the answer stays exact.
    """
    boxes = tuple(sorted(boxes))
    if is_solved(level, boxes):
        return [], []
    walls, goals, deltas = level.walls, level.goals, level.deltas
    h0 = _heuristic(level, player, boxes, _box_bound(level, boxes))
    if limit <= 0 or h0 > limit:
        return None
    start: State = (player, boxes)
    best_g: dict[State, int] = {start: 0}
    parent: dict[State, tuple[State, int] | None] = {start: None}
    # (f, -g, tie, state): among equal f expand the deepest first, which reaches the goal
    # sooner; the running counter keeps the order total and deterministic.
    heap: list[tuple[int, int, int, State]] = [(h0, 0, 0, start)]
    tie = 0
    found: State | None = None
    while heap:
        _, neg_g, _, state = heapq.heappop(heap)
        g = -neg_g
        if g > best_g[state]:
            continue
        p, bx = state
        if bx == goals:
            found = state
            break
        ng = g + 1
        for i, d in enumerate(deltas):
            t = p + d
            if walls[t]:
                continue
            nb = bx
            if t in bx:
                u = t + d
                if walls[u] or u in bx:
                    continue
                nb = tuple(sorted(u if b == t else b for b in bx))
                bound = _box_bound(level, nb)
                if bound >= INF:
                    continue
            ns = (t, nb)
            old = best_g.get(ns)
            if old is not None and old <= ng:
                continue
            f = ng + _heuristic(level, t, nb, _box_bound(level, nb))
            if f > limit:
                continue
            best_g[ns] = ng
            parent[ns] = (state, i)
            tie += 1
            heapq.heappush(heap, (f, -ng, tie, ns))
    if found is None:
        return None
    moves: list[int] = []
    states: list[State] = []
    node: State = found
    while (link := parent[node]) is not None:
        states.append(node)
        moves.append(link[1])
        node = link[0]
    return moves[::-1], states[::-1]


def solve(level: Level, player: int, boxes: Sequence[int], limit: int) -> list[int] | None:
    """A shortest solution (list of direction indices) of at most ``limit`` moves, or None.

    >>> lv, p, b = parse_level(["#####", "#P__#", "#_X_#", "#__O#", "#####"])
    >>> [DIRECTIONS[i] for i in solve(lv, p, b, limit=10)]
    ['down', 'right', 'up', 'right', 'down']
    """
    result = _search(level, player, tuple(sorted(boxes)), limit)
    return None if result is None else result[0]


def shortest_distance(level: Level, player: int, boxes: Sequence[int], limit: int) -> int | None:
    """Moves in a shortest solution if it has at most ``limit`` moves, else None.

    >>> lv, p, b = parse_level(["#####", "#P__#", "#_X_#", "#__O#", "#####"])
    >>> shortest_distance(lv, p, b, 10), shortest_distance(lv, p, b, 4)
    (5, None)
    """
    result = _search(level, player, tuple(sorted(boxes)), limit)
    return None if result is None else len(result[0])


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


class Oracle:
    """Budget-limited shortest-path oracle for one level, memoising every search it runs.

    Distances do not depend on the budget, so one cache serves the whole episode: an exact
    distance is kept with each state, and "none within L moves" is kept with its L.

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
        self._cache: dict[State, tuple[int | None, int]] = {}

    def remember(self, player: int, boxes: tuple[int, ...], distance: int) -> None:
        """Record a distance known from elsewhere (the generator's reverse search is exact)."""
        self._cache[(player, boxes)] = (distance, distance)

    def distance(self, player: int, boxes: tuple[int, ...], limit: int) -> int | None:
        """Shortest solution length from ``(player, boxes)`` if it is <= ``limit``, else None."""
        key = (player, boxes)
        hit = self._cache.get(key)
        if hit is not None:
            dist, searched = hit
            if dist is not None:
                return dist if dist <= limit else None
            if searched >= limit:
                return None
        result = _search(self.level, player, boxes, limit)
        if result is None:
            self._cache[key] = (None, limit)
            return None
        moves, states = result
        # Every state on a shortest path is itself at its shortest distance from the goal.
        total = len(moves)
        self._cache[key] = (total, limit)
        for k, s in enumerate(states):
            self._cache[s] = (total - k - 1, limit)
        return total

    def evaluate(self, player: int, boxes: tuple[int, ...], steps_left: int) -> list[MoveEval]:
        """One :class:`MoveEval` per direction, in :data:`DIRECTIONS` order.

        Searches only as far as the verdicts need: with ``d`` the distance from here, a move
        is optimal iff the distance after it is ``d - 1``, and a plain move (no push) can
        always be undone, so it leaves a distance of at most ``d + 1``.
        """
        here = self.distance(player, boxes, steps_left)
        out = []
        for i in range(len(DIRECTIONS)):
            nxt = move(self.level, player, boxes, i)
            if nxt is None:
                out.append(MoveEval(i, False, None, False, False))
                continue
            if here is None or here == 0:
                out.append(MoveEval(i, True, nxt, False, False))
                continue
            optimal = self.distance(nxt[0], nxt[1], here - 1) is not None
            undoable_in_budget = nxt[1] == boxes and here + 1 <= steps_left - 1
            solvable = (
                optimal
                or undoable_in_budget
                or self.distance(nxt[0], nxt[1], steps_left - 1) is not None
            )
            out.append(MoveEval(i, True, nxt, optimal, solvable))
        return out

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
    if mode not in ("shortest", "solvable"):
        raise ValueError(f"oracle mode must be 'shortest' or 'solvable', got {mode!r}")
    return [
        -2.0 if not e.solvable else 2.0 if e.optimal or mode == "solvable" else 0.0 for e in evals
    ]


# ---------------------------------------------------------------------------- text form
def render(level: Level, player: int, boxes: Sequence[int]) -> list[str]:
    """The grid as rows of :data:`SYMBOLS` characters.

    >>> lv, p, b = parse_level(["######", "#SXV_#", "######"])
    >>> render(lv, p, b)
    ['######', '#SXV_#', '######']
    """
    box_set = set(boxes)
    goals = level.goal_set
    rows = []
    for r in range(level.height):
        chars = []
        for c in range(level.width):
            x = r * level.width + c
            if level.walls[x]:
                chars.append("#")
            elif x == player:
                chars.append("S" if x in goals else "P")
            elif x in box_set:
                chars.append("V" if x in goals else "X")
            else:
                chars.append("O" if x in goals else "_")
        rows.append("".join(chars))
    return rows


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
    walls, goals, boxes, players = [], [], [], []
    for r, row in enumerate(rows):
        for c, ch in enumerate(row):
            x = r * width + c
            if ch not in SYMBOLS and ch != " ":
                raise ValueError(f"unknown symbol {ch!r} at row {r + 1}, column {c + 1}")
            border = r in (0, height - 1) or c in (0, width - 1)
            if border and ch != "#":
                raise ValueError(f"the border must be walls; row {r + 1}, column {c + 1} is not")
            walls.append(ch == "#")
            if ch in "OVS":
                goals.append(x)
            if ch in "XV":
                boxes.append(x)
            if ch in "PS":
                players.append(x)
    if len(players) != 1:
        raise ValueError(f"a level needs exactly one player, found {len(players)}")
    if not boxes or len(boxes) != len(goals):
        raise ValueError(
            f"a level needs as many boxes as goals (>= 1): {len(boxes)} vs {len(goals)}"
        )
    level = Level(height, width, tuple(walls), tuple(goals))
    return level, players[0], tuple(boxes)


# ---------------------------------------------------------------------------- generation
#: Layout attempts before the open-room fallback; each costs one reverse search.
MAX_LAYOUT_TRIES = 24
#: States one reverse search may visit; bounds generation time on large levels.
MAX_REVERSE_STATES = 20_000


def target_range(max_steps: int) -> tuple[int, int]:
    """Optimal-solution lengths the generator aims for: about 1/3 to 2/3 of the budget.

    The upper third of the budget is slack, so an agent can afford a few non-shortest moves.

    >>> target_range(15)
    (5, 10)
    """
    hi = max(1, (2 * max_steps) // 3)
    return max(1, hi // 2), hi


def _carve(rng: np.random.Generator, size: int) -> list[bool]:
    # A random walk over the interior; it sometimes also carves a side cell, so rooms mix
    # corridors with 2-wide areas where the player can walk round a box.
    walls = [True] * (size * size)
    inner = size - 2
    target = round(inner * inner * float(rng.uniform(0.55, 0.85)))
    r, c = int(rng.integers(1, size - 1)), int(rng.integers(1, size - 1))
    steps = ((-1, 0), (1, 0), (0, -1), (0, 1))
    heading = int(rng.integers(4))
    carved = 0
    for _ in range(40 * inner * inner):
        cells = [(r, c)]
        if rng.random() < 0.4:
            dr, dc = steps[int(rng.integers(4))]
            cells.append((r + dr, c + dc))
        for rr, cc in cells:
            if 1 <= rr <= inner and 1 <= cc <= inner and walls[rr * size + cc]:
                walls[rr * size + cc] = False
                carved += 1
        if carved >= target:
            break
        if rng.random() < 0.35:
            heading = int(rng.integers(4))
        dr, dc = steps[heading]
        if 1 <= r + dr <= inner and 1 <= c + dc <= inner:
            r, c = r + dr, c + dc
        else:
            heading = int(rng.integers(4))
    return walls


def _reverse_layers(level: Level, max_depth: int, max_states: int) -> list[list[State]]:
    """States grouped by exact distance to a solved state, found by pulling from the goals.

    Layer 0 holds the positions right after a final push (every shortest solution ends with
    one); layer k holds states whose shortest solution has exactly k moves (solved states met
    on the way are in a layer too and must be skipped by the caller).
    """
    walls, goals = level.walls, level.goals
    goal_set = level.goal_set
    sources: list[State] = []
    for g in goals:
        for d in level.deltas:
            p, q = g - d, g - 2 * d
            # The player stands at p after pushing the box from p onto g, having come from q.
            free = not walls[p] and p not in goal_set and 0 <= q < len(walls) and not walls[q]
            if free and q not in goal_set and (p, goals) not in sources:
                sources.append((p, goals))
    seen = set(sources)
    layers = [sources]
    while len(layers) <= max_depth and len(seen) < max_states:
        nxt: list[State] = []
        for p, bx in layers[-1]:
            for d in level.deltas:
                q = p + d
                if walls[q] or q in bx:
                    continue
                # Step back without a box, and, if a box is behind the player, pull it along.
                back = [(q, bx)]
                if p - d in bx:
                    back.append((q, tuple(sorted(p if b == p - d else b for b in bx))))
                for ns in back:
                    if ns not in seen:
                        seen.add(ns)
                        nxt.append(ns)
        if not nxt:
            break
        layers.append(nxt)
    return layers


def _pick(
    rng: np.random.Generator, level: Level, layers: list[list[State]], lo: int, hi: int
) -> tuple[int, State] | None:
    # Distances with an unsolved state, capped at hi; prefer starts with every box off a goal.
    usable = []
    for k in range(1, min(hi, len(layers) - 1) + 1):
        cands = [s for s in layers[k] if s[1] != level.goals]
        if cands:
            usable.append((k, cands))
    if not usable:
        return None
    in_range = [u for u in usable if u[0] >= lo]
    k, cands = in_range[int(rng.integers(len(in_range)))] if in_range else usable[-1]
    clear = [s for s in cands if not level.goal_set.intersection(s[1])]
    pool = clear or cands
    return k, pool[int(rng.integers(len(pool)))]


def generate_level(
    rng: np.random.Generator, size: int = 6, boxes: int = 1, max_steps: int = 15
) -> tuple[Level, int, tuple[int, ...], int]:
    """A seeded, solvable ``size x size`` level whose shortest solution fits ``max_steps``.

    Returns ``(level, player, boxes, optimal_moves)``. Carves a room, puts boxes on goals and
    searches backwards (pulls) from the solved positions, which yields every start state with
    its exact shortest distance; one with a distance in :func:`target_range` is drawn. Bounded:
    after :data:`MAX_LAYOUT_TRIES` layouts the best one seen (or an open room) is used.

    >>> lv, p, b, n = generate_level(np.random.default_rng(0), 6, 1, 15)
    >>> 1 <= n <= 15 and shortest_distance(lv, p, b, 15) == n
    True
    """
    lo, hi = target_range(max_steps)
    best: tuple[Level, int, State] | None = None
    for attempt in range(MAX_LAYOUT_TRIES + 1):
        if attempt < MAX_LAYOUT_TRIES:
            walls = _carve(rng, size)
        else:
            # Fallback: an open room. Goals along the right-hand interior column can always be
            # pulled left, so this layout always has unsolved start states.
            walls = [
                r in (0, size - 1) or c in (0, size - 1) for r in range(size) for c in range(size)
            ]
        floor = [x for x, w in enumerate(walls) if not w]
        if len(floor) < boxes + 2:
            continue
        if attempt < MAX_LAYOUT_TRIES:
            goals = sorted(int(g) for g in rng.permutation(floor)[:boxes])
        else:
            rows = rng.permutation(np.arange(1, size - 1))[:boxes]
            goals = sorted(int(r) * size + size - 2 for r in rows)
        level = Level(size, size, tuple(walls), tuple(goals))
        layers = _reverse_layers(level, hi, MAX_REVERSE_STATES)
        picked = _pick(rng, level, layers, lo, hi)
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
