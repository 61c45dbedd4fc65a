"""Sokoban level generation: seeded rooms whose start state has a known exact distance.

A level is carved by a random walk, its goals placed, and a start state picked from the
level's reverse search (:class:`~.search.ReverseTable`) at a distance drawn from
:func:`target_range`. All randomness is read through :class:`agentgym.draws.Draws` (the bit
generator's raw words), so a seed gives the same level on every machine and NumPy version.

>>> level, player, boxes, optimal = generate_level(np.random.default_rng(0), 6, 1, 15)
>>> (level.height, level.width, len(boxes), 5 <= optimal <= 10)
(6, 6, 1, True)
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from agentgym.draws import Draws

from .logic import Level, State
from .search import reverse_table

__all__ = ["MAX_LAYOUT_TRIES", "MAX_REVERSE_STATES", "generate_level", "target_range"]

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


def _carve(draws: Draws, size: int) -> tuple[list[bool], list[int]]:
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


def _pick(draws: Draws, level: Level, lo: int, hi: int) -> tuple[int, State] | None:
    # A distance drawn uniformly from those in [lo, hi] that have states (else the largest
    # below lo), then a state at that distance, preferring starts with every box off a goal.
    # The reverse search stops at the drawn distance when that has states, so it rarely needs
    # to reach hi; redrawing among the distances found when it does not keeps the draw
    # uniform over them. Layer 0 holds all solved states, so every later layer is unsolved.
    table = reverse_table(level)
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
    searches backwards (pulls) from the solved positions (:class:`~.search.ReverseTable`),
    which yields every start state with its exact shortest distance; a distance in
    :func:`target_range` is drawn uniformly among those the room has, then a start state at
    that distance. Bounded: after :data:`MAX_LAYOUT_TRIES` layouts the best one seen (or an
    open room) is used. The level keeps the table, so an :class:`~.oracle.Oracle` of it starts
    with the exact distance of every state within ``optimal_moves`` moves of solved.

    >>> from .search import shortest_distance
    >>> lv, p, b, n = generate_level(np.random.default_rng(0), 6, 1, 15)
    >>> 1 <= n <= 15 and shortest_distance(lv, p, b, 15) == n
    True
    """
    lo, hi = target_range(max_steps)
    draws = Draws(rng)
    best: tuple[Level, int, State] | None = None
    for attempt in range(MAX_LAYOUT_TRIES + 1):
        if attempt < MAX_LAYOUT_TRIES:
            walls, floor = _carve(draws, size)
            if len(floor) < boxes + 2:
                continue
            goals = sorted(draws.sample(floor, boxes))
        else:
            # Fallback: an open room. Goals along the right-hand interior column can always be
            # pulled left, so this layout always has unsolved start states.
            walls = [
                r in (0, size - 1) or c in (0, size - 1) for r in range(size) for c in range(size)
            ]
            rows = draws.sample(range(1, size - 1), boxes)
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
