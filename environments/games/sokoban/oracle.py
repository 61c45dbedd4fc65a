"""Sokoban's oracle: the verdict on each move, and the process reward the verdict earns.

A move is judged against a *horizon*, the most moves a solution may take (:func:`move_limits`):
the steps left (agentgym's default, so a solution must fit the budget) or a fixed search depth
(VPR's setup, 25 moves). With ``before`` the horizon from the state before the move and
``after`` the one after it:

* *optimal*: the move starts a shortest solution that fits ``before``;
* *solvable*: after the move some solution still fits ``after``.

Both come from exact distances (:class:`Oracle`), so a verdict is never a guess, with one
exception: a search may exhaust its node budget (:data:`ORACLE_MAX_NODES`, reached only on
large hand-drawn levels), and then the verdict says "unknown" (None) instead.

:class:`Rewards` turns a verdict into the process reward:

=================================  ==============  ==============
verdict                            ``shortest``    ``solvable``
=================================  ==============  ==============
optimal (or solves the level)      ``optimal``     ``optimal``
solvable, not optimal              ``legal``       ``optimal``
not solvable                       ``unsolvable``  ``unsolvable``
blocked                            ``blocked``     ``blocked``
unknown (node budget exhausted)    ``legal``       ``legal``
=================================  ==============  ==============

>>> from .logic import DIRECTIONS, parse_level
>>> level, player, boxes = parse_level(["#####", "#P__#", "#_X_#", "#__O#", "#####"])
>>> oracle = Oracle(level)
>>> oracle.distance(player, boxes, 15)
5
>>> [DIRECTIONS[i] for i in oracle.best_moves(player, boxes, 15, mode="shortest")]
['down', 'right']
>>> oracle.scores(player, boxes, 5, "shortest"), oracle.scores(player, boxes, 4, "shortest")
([-2.0, 2.0, -2.0, 2.0], [-2.0, -2.0, -2.0, -2.0])
"""

from __future__ import annotations

import enum
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal, NamedTuple

from .logic import DIRECTIONS, INF, Level, State, is_solved, move
from .search import SearchBudgetExceeded, astar, box_bound, reverse_table

__all__ = [
    "MODES",
    "ORACLE_MAX_NODES",
    "ORACLE_TABLE_STATES",
    "UNKNOWN",
    "MoveEval",
    "Oracle",
    "Rewards",
    "move_limits",
]

#: ``"shortest"``: the top reward only on a shortest solution; ``"solvable"``: the top reward
#: for any move that keeps a solution within the horizon.
MODES: tuple[str, ...] = ("shortest", "solvable")

#: A level with at most this many conceivable states (a player cell for every placement of
#: the boxes on the floor) gets its whole :class:`~.search.ReverseTable` grown on demand, so
#: every question about it becomes a dictionary look-up: a 6x6 room with one box has at most
#: 240. Larger levels keep the table the generator built and search (A*) beyond it, which
#: costs far less than tabulating thousands of states.
ORACLE_TABLE_STATES = 1000

#: States one A* search may expand before the oracle answers "unknown" (about 0.4 s of
#: search). Generated levels stay well below it: over 30 half-random 10x10, 3-box episodes
#: with a 100-step budget the largest search expanded about 16,000 states, and 8x8 ones
#: stay under 200. It bounds what one question about a hand-drawn level can cost.
ORACLE_MAX_NODES = 100_000


class _Unknown(enum.Enum):
    UNKNOWN = "unknown"

    def __repr__(self) -> str:
        return "UNKNOWN"


#: What :meth:`Oracle.distance` answers when its search ran out of node budget.
UNKNOWN = _Unknown.UNKNOWN
Distance = int | None | Literal[_Unknown.UNKNOWN]


def move_limits(steps_left: int, search_depth: int | None = None) -> tuple[int, int]:
    """The horizons ``(before, after)`` of a move made with ``steps_left`` steps left.

    Without a ``search_depth`` a solution must fit the budget: ``steps_left`` moves before the
    move and one fewer after it. With one (VPR's fixed depth) both are the depth, except that
    a move spending the last step must solve the level (VPR scores a timeout like a
    deadlock).

    >>> move_limits(15), move_limits(1)
    ((15, 14), (1, 0))
    >>> move_limits(15, search_depth=25), move_limits(1, search_depth=25)
    ((25, 25), (25, 0))
    """
    if search_depth is None:
        return steps_left, steps_left - 1
    return (search_depth if steps_left > 0 else 0), (search_depth if steps_left > 1 else 0)


class MoveEval(NamedTuple):
    """What the oracle decided about one move (see the module docstring).

    ``optimal`` and ``solvable`` are None when a search ran out of node budget before it
    could tell; both are False for a blocked move (``legal`` False, ``next_state`` None).
    """

    direction: int
    legal: bool
    next_state: State | None
    optimal: bool | None
    solvable: bool | None

    @property
    def unknown(self) -> bool:
        """True when part of the verdict could not be decided within the node budget."""
        return self.optimal is None or self.solvable is None


@dataclass(frozen=True)
class Rewards:
    """The process reward of each verdict (the module docstring has the table).

    The defaults are VPR's constants: +2 on a shortest solution, 0 for another legal move,
    -2 for a move after which no solution fits the horizon, -2 for a blocked move.

    >>> good = MoveEval(1, True, (1, ()), optimal=True, solvable=True)
    >>> slow = MoveEval(2, True, (2, ()), optimal=False, solvable=True)
    >>> lost = MoveEval(3, True, (3, ()), optimal=False, solvable=False)
    >>> wall = MoveEval(0, False, None, optimal=False, solvable=False)
    >>> [Rewards().score(e, "shortest") for e in (good, slow, lost, wall)]
    [2.0, 0.0, -2.0, -2.0]
    >>> [Rewards(optimal=1.0).score(e, "solvable") for e in (good, slow, lost, wall)]
    [1.0, 1.0, -2.0, -2.0]
    """

    optimal: float = 2.0
    legal: float = 0.0
    unsolvable: float = -2.0
    blocked: float = -2.0

    def score(self, e: MoveEval, mode: str) -> float:
        """The process reward of ``e`` under oracle ``mode`` (``"shortest"``/``"solvable"``)."""
        if mode not in MODES:
            raise ValueError(f"oracle mode must be one of {MODES}, got {mode!r}")
        if not e.legal:
            return self.blocked
        if e.solvable is False:
            return self.unsolvable
        if e.solvable is None:
            return self.legal  # unknown: the neutral reward, flagged by the caller
        if mode == "solvable" or e.optimal:
            return self.optimal
        return self.legal


_DEFAULT_REWARDS = Rewards()


class Oracle:
    """Exact distances to solved for one level, each question bounded by a node budget.

    Distances do not depend on the budget, so one store serves the whole episode. The
    level's :class:`~.search.ReverseTable` answers first (the generator has usually grown it
    already; on small levels, see :data:`ORACLE_TABLE_STATES`, it is grown further as
    needed). Beyond it an A* search that stops at the table's edge runs, and its answers are
    memoised: an exact distance with each state on the path found, "none within L moves"
    with its L, and "budget exhausted at L" with its L (so asking again is free and answers
    the same). Exact answers never depend on what was asked before; whether a search runs
    out of budget can (a remembered path or the generator's deeper table makes a search
    cheaper), so two envs with different histories, such as one restored from a snapshot in
    a fresh process, may differ on a question near the budget: one answers it exactly, the
    other flags it unknown. Generated levels stay far below the budget.

    >>> from .logic import parse_level
    >>> level, player, boxes = parse_level(["#####", "#X__#", "#_PO#", "#####"])
    >>> Oracle(level).distance(player, boxes, 50), Oracle(level).is_dead(player, boxes)
    (None, True)
    """

    def __init__(self, level: Level, max_nodes: int | None = None) -> None:
        self.level = level
        #: States one search may expand (default :data:`ORACLE_MAX_NODES`).
        self.max_nodes = ORACLE_MAX_NODES if max_nodes is None else max_nodes
        self._table = reverse_table(level)
        self._exact = self._table.dist  # grown in place, so this stays the table's dict
        self._cache: dict[int, tuple[int | None, int]] = {}
        self._unknown: dict[int, int] = {}  # key -> smallest limit whose search ran out
        self._dead: dict[int, bool | Literal[_Unknown.UNKNOWN]] = {}
        self._small: bool | None = None  # see ORACLE_TABLE_STATES; decided when first needed

    def distance(self, player: int, boxes: Sequence[int], limit: int) -> Distance:
        """Shortest solution length from ``(player, boxes)`` if it is <= ``limit``, else None
        (:data:`UNKNOWN` when the search ran out of node budget)."""
        key = self.level.key(player, boxes)
        dist = self._exact.get(key)  # the table answers most questions; no call for them
        if dist is None:
            return self._beyond_table(key, limit)
        return dist if dist <= limit else None

    def distance_of(self, key: int, limit: int) -> Distance:
        """:meth:`distance` of a state given by its :meth:`~.logic.Level.key`."""
        dist = self._exact.get(key)
        if dist is None:
            return self._beyond_table(key, limit)
        return dist if dist <= limit else None

    def is_dead(self, player: int, boxes: Sequence[int]) -> bool | Literal[_Unknown.UNKNOWN]:
        """True when no solution exists at all, however many moves; False when one does.

        Proven, never guessed: the sound deadlock tests of :func:`~.search.box_bound`, then
        the full distance table on small levels, then an unlimited A* search within the node
        budget (:data:`UNKNOWN` when that runs out).
        """
        key = self.level.key(player, boxes)
        known = self._dead.get(key)
        if known is not None:
            return known
        if box_bound(self.level, key >> self.level.shift)[0] >= INF:
            verdict: bool | Literal[_Unknown.UNKNOWN] = True
        else:
            if self._is_small():
                self._table.grow(INF, INF)
            dist = self.distance_of(key, INF - 1)
            verdict = UNKNOWN if dist is UNKNOWN else dist is None
        self._dead[key] = verdict
        return verdict

    def judge(
        self,
        player: int,
        boxes: tuple[int, ...],
        direction: int,
        steps_left: int,
        search_depth: int | None = None,
    ) -> MoveEval:
        """The :class:`MoveEval` of one move made with ``steps_left`` steps left.

        Asks only what the verdict needs: with ``d`` the distance from here, the move is
        optimal iff the distance after it is ``d - 1`` (a move changes it by at most one), and
        a plain move (no push) can always be undone, so it leaves a distance of at most
        ``d + 1`` and keeps the level solvable when ``d + 1`` fits the horizon after it.
        """
        nxt = move(self.level, player, boxes, direction)
        if nxt is None:
            return MoveEval(direction, False, None, False, False)
        if is_solved(self.level, nxt[1]):
            return MoveEval(direction, True, nxt, True, True)
        before, after = move_limits(steps_left, search_depth)
        here = self.distance(player, boxes, before)
        optimal: bool | None
        if here is UNKNOWN:
            optimal = None
        elif here is None or here <= 1:  # 1: only a solving move is optimal
            optimal = False
        else:
            shorter = self.distance(*nxt, here - 1)
            optimal = None if shorter is UNKNOWN else shorter is not None
        solvable: bool | None
        if optimal:
            solvable = isinstance(here, int) and here - 1 <= after
        elif isinstance(here, int) and nxt[1] == boxes and here + 1 <= after:
            solvable = True
        else:
            left = self.distance(*nxt, after)
            solvable = None if left is UNKNOWN else left is not None
        return MoveEval(direction, True, nxt, optimal, solvable)

    def evaluate(
        self,
        player: int,
        boxes: tuple[int, ...],
        steps_left: int,
        search_depth: int | None = None,
    ) -> list[MoveEval]:
        """One :class:`MoveEval` per direction, in :data:`~.logic.DIRECTIONS` order."""
        return [
            self.judge(player, boxes, i, steps_left, search_depth) for i in range(len(DIRECTIONS))
        ]

    def scores(
        self,
        player: int,
        boxes: tuple[int, ...],
        steps_left: int,
        mode: str,
        search_depth: int | None = None,
        rewards: Rewards = _DEFAULT_REWARDS,
    ) -> list[float]:
        """Process reward of each direction (``DIRECTIONS`` order) under ``rewards``."""
        evals = self.evaluate(player, boxes, steps_left, search_depth)
        return [rewards.score(e, mode) for e in evals]

    def best_moves(
        self,
        player: int,
        boxes: tuple[int, ...],
        steps_left: int,
        mode: str = "shortest",
        search_depth: int | None = None,
        rewards: Rewards = _DEFAULT_REWARDS,
    ) -> list[int]:
        """Legal directions with the highest score (in ``DIRECTIONS`` order)."""
        evals = self.evaluate(player, boxes, steps_left, search_depth)
        legal = [e for e in evals if e.legal]
        if not legal:
            return []
        scored = [(rewards.score(e, mode), e.direction) for e in legal]
        top = max(s for s, _ in scored)
        return [d for s, d in scored if s == top]

    # ------------------------------------------------------------------ beyond the table
    def _is_small(self) -> bool:
        if self._small is None:
            floor, boxes = self.level.walls.count(False), len(self.level.goals)
            self._small = math.comb(floor, boxes) * (floor - boxes) <= ORACLE_TABLE_STATES
        return self._small

    def _beyond_table(self, key: int, limit: int) -> Distance:
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
        ran_out = self._unknown.get(key)
        if ran_out is not None and limit >= ran_out:
            return UNKNOWN
        if self._is_small():
            table.grow(limit, INF)
            return self.distance_of(key, limit)
        try:
            result = astar(self.level, key, limit, table, self.max_nodes)
        except SearchBudgetExceeded:
            self._unknown[key] = limit
            return UNKNOWN
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
