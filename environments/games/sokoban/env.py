"""Sokoban as a text env with a shortest-path process oracle (the VPR "search" game).

Rewards (the oracle scores each action in the state *before* it runs):

============================================  ============  ============  ==========
action                                        ``shortest``  ``solvable``  episode
============================================  ============  ============  ==========
first move of some shortest solution          +2            +2            continues
other move that keeps it solvable in budget   0             +2            continues
move after which no solution fits the steps   -2            -2            ends
left (deadlock, or the budget runs out)
blocked move (wall, or box that cannot move)  -2            -2            ends
unparseable action                            -2            -2            ends
move that puts the last box on a goal         +2 (+1 outcome)             ends, success
============================================  ============  ============  ==========

"Fits the steps" means a solution exists within the steps left after the move, so the budget
running out unsolved is the same event as a deadlock. The outcome reward is 1.0 on success and
0.0 otherwise. With ``score_process=False`` every process reward is 0.0 and the episode is
otherwise the same (observations, endings, outcome and ``info`` extras).

>>> import gymnasium as gym
>>> import agentgym
>>> env = gym.make("agentgym/Sokoban-v0")
>>> obs, info = env.reset(seed=0)
>>> best = env.unwrapped.oracle_actions()[0]
>>> obs, reward, terminated, truncated, info = env.step(f"<action>{best}</action>")
>>> reward
2.0
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any, ClassVar

import numpy as np

from agentgym.core import Outcome, TextEnv, check_range

from .logic import (
    DIRECTIONS,
    SYMBOLS,
    Level,
    Oracle,
    generate_level,
    is_solved,
    move,
    parse_level,
    render,
    score_move,
)

__all__ = ["ORACLE_MODES", "SokobanEnv"]

#: ``"shortest"``: +2 only on a shortest solution; ``"solvable"``: +2 for any move that keeps
#: the level solvable within the budget.
ORACLE_MODES: tuple[str, ...] = ("shortest", "solvable")

# Accepted spellings; anything else is rejected with a message listing these.
_ALIASES: dict[str, int] = {
    "up": 0,
    "u": 0,
    "down": 1,
    "d": 1,
    "left": 2,
    "l": 2,
    "right": 3,
    "r": 3,
}
# Harmless wrapping and separators stripped before matching ("(Up)", "'left',", "**down**").
_NOISE = re.compile(r"[\s,;:.!?'\"`*()\[\]{}<>]+")
_VERBS = ("move", "go", "push", "walk")


def _max_boxes(size: int) -> int:
    # Keep a quarter of the interior per box, so rooms are not just boxes: 1-2 on 5x5, 3 above.
    return min(3, (size - 2) ** 2 // 4)


class _Frame:
    """The parts of an observation fixed by the grid shape, built once per shape and process.

    The grid is drawn by writing the level's and then the state's symbols into a copy of
    :attr:`blank`, which is much cheaper than formatting every cell each step.
    """

    __slots__ = ("blank", "header", "pos", "where")

    def __init__(self, height: int, width: int) -> None:
        self.header = "\n".join(
            [
                "Sokoban. Push every box onto a goal. Each action moves you one cell; walking "
                "into a box pushes it one cell if the cell behind it is free. You cannot pull "
                "boxes or push two at once. A blocked move, a move after which the level can no "
                "longer be solved in the steps left, or running out of steps ends the game.",
                "Legend: " + ", ".join(f"{k} {v}" for k, v in SYMBOLS.items()) + ".",
                "",
                " " * 4 + "".join(f"{c + 1:>3}" for c in range(width)) + "   (columns)",
            ]
        )
        lines, pos, offset = [], [], 0
        for r in range(height):
            line = f"{r + 1:>4}" + "  #" * width
            pos.extend(offset + len(line) - 3 * (width - c) + 2 for c in range(width))
            lines.append(line)
            offset += len(line) + 1
        #: The grid rows with every cell drawn as a wall, as ASCII bytes.
        self.blank = "\n".join(lines).encode()
        #: Index of each cell's symbol in :attr:`blank`.
        self.pos = tuple(pos)
        #: Each cell as "(row r, column c)", 1-based.
        self.where = tuple(
            f"(row {r + 1}, column {c + 1})" for r in range(height) for c in range(width)
        )


@lru_cache(maxsize=32)
def _frame(height: int, width: int) -> _Frame:
    return _Frame(height, width)


class SokobanEnv(TextEnv):
    """Push every box onto a goal within a step budget; each move scored by a shortest-path oracle.

    Kwargs: ``size`` (grid side including the outer walls, 5..10, default 6), ``boxes``
    (1..3, default 1; at most 2 on a 5x5 grid), ``max_steps`` (step budget, 1..100, default 15),
    ``oracle`` (``"shortest"`` or ``"solvable"``), ``reward_mode``, ``render_mode``,
    ``score_process`` (default True).

    Actions: ``up``, ``down``, ``left``, ``right`` (rows grow downwards), case-insensitive,
    also ``u``/``d``/``l``/``r`` and an optional leading ``move``/``go``/``push``/``walk``.
    ``available_actions`` lists only the moves that are not blocked.

    ``reset(options={"level": [...rows...]})`` plays a hand-drawn level (symbols as in the
    observation legend) instead of a generated one; ``size`` and ``boxes`` are then ignored.

    Extra ``info`` after each step: ``optimal_moves_left`` (shortest solution length from the
    new state, -1 when none fits the steps left), ``boxes_on_goals``, ``steps_left`` and
    ``verdict`` (``optimal``, ``suboptimal``, ``solved``, ``deadlock``, ``blocked``,
    ``invalid``).

    The oracle answers from the exact distance table the generator built while searching
    backwards from the solved positions (grown further on demand for small levels), and
    with a memoised A* search beyond it. A step asks it two things: the distance from the
    state before the move (already known from the previous step) and the distance after it
    within the steps left. ``score_process=False`` reports a process reward of 0 and skips
    turning that answer into a score, but saves next to nothing: the second question decides
    whether the move deadlocked the level or ran out the budget, which ends the episode, so
    it is asked either way (the dynamics and ``info`` extras are the same in both settings).

    >>> env = SokobanEnv(size=6, boxes=1)
    >>> _ = env.reset(seed=1)
    >>> best = env.oracle_actions()
    >>> env.score_actions(best) == [2.0] * len(best), env.steps
    (True, 0)
    """

    verifier_name: ClassVar[str] = "sokoban-bfs"
    verifier_version: ClassVar[str] = "1"
    rules: ClassVar[str] = (
        "You play Sokoban on a grid surrounded by walls. Push every box onto a goal. Each "
        "action moves you one cell up (row - 1), down (row + 1), left (column - 1) or right "
        "(column + 1); walking into a box pushes it one cell if the cell behind it is free. "
        "You cannot pull boxes or push two boxes at once. The game ends when every box is on "
        "a goal, after a blocked or unreadable move, after a move that leaves the level "
        "unsolvable within the steps left, or when the steps run out. Moves on a shortest "
        "solution earn the most reward. Answer with one move, e.g. <action>up</action>."
    )

    def __init__(
        self,
        size: int = 6,
        boxes: int = 1,
        max_steps: int = 15,
        oracle: str = "shortest",
        *,
        reward_mode: str = "both",
        render_mode: str | None = None,
        score_process: bool = True,
    ) -> None:
        super().__init__(
            reward_mode=reward_mode, render_mode=render_mode, score_process=score_process
        )
        self.size = check_range("size", size, 5, 10)
        self.num_boxes = check_range("boxes", boxes, 1, 3)
        limit = _max_boxes(self.size)
        if self.num_boxes > limit:
            raise ValueError(f"boxes must be in [1, {limit}] for size {self.size}, got {boxes}")
        self.max_steps = check_range("max_steps", max_steps, 1, 100)
        if oracle not in ORACLE_MODES:
            raise ValueError(f"oracle must be one of {ORACLE_MODES}, got {oracle!r}")
        self.oracle_mode = oracle
        self._oracle: Oracle | None = None
        self.level: Level | None = None
        self.player = 0
        self.boxes: tuple[int, ...] = ()
        self.steps_left = 0
        self.status = "playing"
        self.start_optimal = -1
        # Memo of the unblocked moves: the observation and info both need them every step.
        self._legal_for: tuple[int, tuple[int, ...]] | None = None
        self._legal: tuple[str, ...] = ()
        self._goals_text = ""
        self._grid = b""  # the level's grid without player and boxes (see _Frame)
        self._frame = _frame(3, 3)

    # ------------------------------------------------------------------ episode
    def _new_episode(self, rng: np.random.Generator, options: dict[str, Any]) -> None:
        if options.get("level") is not None:
            level, player, boxes = parse_level(options["level"])
            self._set_level(level)
            optimal = self._require_oracle().distance(player, boxes, self.max_steps)
            self.start_optimal = -1 if optimal is None else optimal
        else:
            level, player, boxes, optimal = generate_level(
                rng, self.size, self.num_boxes, self.max_steps
            )
            # The level carries the generator's exact distance table; the oracle reads it.
            self._set_level(level)
            self.start_optimal = optimal
        self.player, self.boxes = player, boxes
        self.steps_left = self.max_steps
        self.status = "playing"

    def _set_level(self, level: Level) -> None:
        # The oracle's memo is only valid for one level; keep it when a snapshot of the same
        # level is restored (score_actions does that after every invalid candidate).
        self._legal_for = None
        if self.level != level or self._oracle is None:
            self.level = level
            self._oracle = Oracle(level)
            self._frame = frame = _frame(level.height, level.width)
            self._goals_text = ", ".join(frame.where[g] for g in level.goals)
            grid = bytearray(frame.blank)
            pos, walls = frame.pos, level.walls
            for c in level.shape.interior:
                if not walls[c]:
                    grid[pos[c]] = 95  # _
            for g in level.goals:
                grid[pos[g]] = 79  # O
            self._grid = bytes(grid)

    def _require_oracle(self) -> Oracle:
        assert self._oracle is not None, "call reset() first"
        return self._oracle

    # ------------------------------------------------------------------ text
    def _observe(self) -> str:
        level = self.level
        assert level is not None
        frame = self._frame
        pos, where, goal_set = frame.pos, frame.where, level.goal_set
        grid = bytearray(self._grid)
        on_goals = 0
        for b in self.boxes:
            if b in goal_set:
                on_goals += 1
                grid[pos[b]] = 86  # V
            else:
                grid[pos[b]] = 88  # X
        grid[pos[self.player]] = 83 if self.player in goal_set else 80  # S, P
        if self.status == "playing":
            legal = ", ".join(self._legal_actions() or []) or "none"
            tail = (
                "up = row - 1, down = row + 1, left = column - 1, right = column + 1.\n"
                f"Moves that are not blocked now: {legal}.\n"
                "Answer with one move, e.g. <action>up</action>."
            )
        else:
            tail = f"Game over: {self.status}."
        return (
            f"{frame.header}\n{grid.decode()}\n(rows)\n\n"
            f"You are at {where[self.player][1:-1]}.\n"
            f"Boxes: {', '.join([where[b] for b in self.boxes])}.\n"
            f"Goals: {self._goals_text}.\n"
            f"Boxes on goals: {on_goals} of {len(self.boxes)}. Steps left: {self.steps_left}.\n"
            f"{tail}"
        )

    def _where(self, cell: int) -> str:
        assert self.level is not None
        return self._frame.where[cell]

    def _legal_actions(self) -> list[str] | None:
        if self.level is None or self.status != "playing":
            return []
        player, boxes = self.player, self.boxes
        if self._legal_for != (player, boxes):
            # The rule of `move`, inlined: this runs on every step.
            walls, legal = self.level.walls, []
            for name, d in zip(DIRECTIONS, self.level.deltas, strict=True):
                t = player + d
                if not walls[t] and (t not in boxes or not (walls[t + d] or t + d in boxes)):
                    legal.append(name)
            self._legal_for, self._legal = (player, boxes), tuple(legal)
        return list(self._legal)

    def _parse(self, action: str) -> tuple[Any, str]:
        direction = _ALIASES.get(action.strip().lower())
        if direction is None:
            words = _NOISE.sub(" ", action.lower()).split()
            if len(words) == 2 and words[0] in _VERBS:
                words = words[1:]
            if len(words) != 1 or words[0] not in _ALIASES:
                fmt = "answer with one of up, down, left, right (e.g. <action>up</action>)"
                shown = action if len(action) <= 40 else action[:40] + "..."
                return None, f"could not read a move from {shown!r}; {fmt}"
            direction = _ALIASES[words[0]]
        assert self.level is not None
        if move(self.level, self.player, self.boxes, direction) is None:
            return None, self._blocked_reason(direction)
        return direction, ""

    def _blocked_reason(self, direction: int) -> str:
        assert self.level is not None
        d = self.level.deltas[direction]
        name = DIRECTIONS[direction]
        target = self.player + d
        legal = ", ".join(self._legal_actions() or []) or "none"
        if self.level.walls[target]:
            why = f"{self._where(target)} is a wall"
        else:
            behind = target + d
            what = "a wall" if self.level.walls[behind] else "another box"
            why = f"the box at {self._where(target)} would be pushed into {what}"
        return f"'{name}' is blocked: {why}. Moves not blocked now: {legal}"

    # ------------------------------------------------------------------ rules and rewards
    def _apply(self, move_index: int) -> Outcome:
        # The two questions of the verdict (see the class docstring). The distance after the
        # move is reported in info anyway, so asking it exactly (rather than Oracle.judge's
        # cheaper yes/no questions) costs nothing extra: a move changes the distance by at
        # most one, so it is optimal iff that distance is here - 1, and it keeps the level
        # solvable iff it exists within the steps left.
        assert self.level is not None
        oracle = self._require_oracle()
        nxt = move(self.level, self.player, self.boxes, move_index)
        assert nxt is not None
        here = oracle.distance(self.player, self.boxes, self.steps_left)
        left = oracle.distance(nxt[0], nxt[1], self.steps_left - 1)
        solvable = bool(here) and left is not None
        optimal = solvable and here is not None and left == here - 1
        self.player, self.boxes = nxt
        self.steps_left -= 1
        solved = is_solved(self.level, self.boxes)
        if solved:
            self.status = verdict = "solved"
        elif not solvable:
            self.status = (
                "out of steps"
                if self.steps_left == 0
                else "the level cannot be solved in the steps left"
            )
            verdict = "deadlock"
        else:
            verdict = "optimal" if optimal else "suboptimal"
        return Outcome(
            process=score_move(optimal, solvable, self.oracle_mode) if self.score_process else 0.0,
            outcome=1.0 if solved else 0.0,
            terminated=solved or not solvable,
            success=solved,
            info=self._extra_info(verdict, left),
        )

    def _reject(self, error: str) -> Outcome:
        # VPR rule: a blocked or unreadable move costs -2 and ends the episode.
        self.steps_left = max(0, self.steps_left - 1)
        blocked = "is blocked" in error
        self.status = "blocked move" if blocked else "unreadable action"
        optimal = None
        if self.level is not None:
            optimal = self._require_oracle().distance(self.player, self.boxes, self.steps_left)
        return Outcome(
            process=-2.0,
            terminated=True,
            info=self._extra_info("blocked" if blocked else "invalid", optimal),
        )

    def _extra_info(self, verdict: str, optimal: int | None) -> dict[str, Any]:
        assert self.level is not None
        goal_set = self.level.goal_set
        return {
            "verdict": verdict,
            "optimal_moves_left": -1 if optimal is None else int(optimal),
            "boxes_on_goals": len(goal_set.intersection(self.boxes)),
            "steps_left": self.steps_left,
        }

    def _reset_info(self) -> dict[str, Any]:
        return self._extra_info("start", self.optimal_moves_left())

    def _score(self, move: Any, snapshot: bytes) -> float:
        # Direct oracle lookup, the same verdict as _apply: nothing is applied, so the
        # snapshot is not needed.
        judged = self._require_oracle().judge(self.player, self.boxes, self.steps_left, int(move))
        return score_move(judged.optimal, judged.solvable, self.oracle_mode)

    def oracle_actions(self) -> list[str]:
        """Moves with the highest oracle score now, in ``up, down, left, right`` order."""
        self._require_started()
        if self._done or self.status != "playing":
            return []
        best = self._require_oracle().best_moves(
            self.player, self.boxes, self.steps_left, self.oracle_mode
        )
        return [DIRECTIONS[i] for i in best]

    def optimal_moves_left(self) -> int:
        """Shortest solution length from the current state, or -1 if none fits the steps left."""
        self._require_started()
        dist = self._require_oracle().distance(self.player, self.boxes, self.steps_left)
        return -1 if dist is None else dist

    # ------------------------------------------------------------------ snapshots
    def _state_dict(self) -> dict[str, Any]:
        assert self.level is not None
        return {
            "rows": render(self.level, self.player, self.boxes),
            "steps_left": self.steps_left,
            "status": self.status,
            "start_optimal": self.start_optimal,
        }

    def _load_state_dict(self, state: dict[str, Any]) -> None:
        level, player, boxes = parse_level(state["rows"])
        self._set_level(level)
        self.player, self.boxes = player, boxes
        self.steps_left = int(state["steps_left"])
        self.status = str(state["status"])
        self.start_optimal = int(state["start_optimal"])
