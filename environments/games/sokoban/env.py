"""Sokoban as a text env with a shortest-path process oracle (the VPR "search" game).

The process reward has two schemes (``process_reward``). The default, ``"progress"``, pays
the change in the shortest solution's length over the start's, minus a step cost, and
settles an unsolved episode to 0 (:mod:`agentgym.environments.games.shaping`): its sum pays
only for solving, most for solving soonest, and a detour off a shortest path and back costs.
The episode's dynamics, the invalid-action policy and the endings below are the same in both
schemes. ``"verdict"`` (``preset="vpr"``) is VPR's action-level score, for state-group
training, not a return to maximise (the oracle scores each action in the state *before* it
runs; the constants are kwargs, shown with their defaults, which are VPR's):

==============================================  ==================  ============  ==========
action                                          ``shortest``        ``solvable``  episode
==============================================  ==================  ============  ==========
first move of some shortest solution            +2 (``optimal``)    +2            continues
other move that keeps a solution in reach       0 (``legal``)       +2            continues
move that puts the last box on a goal           +2, +1 outcome      +2, +1        terminated
move after which the level is provably dead     -2 (``deadlock``)   -2            terminated
move after which no solution is in reach, but   -2 (``deadlock``)   -2            truncated
the level is not provably dead
blocked move (wall, or box that cannot move)    -2 (``invalid``)    -2            see below
unparseable action                              -2 (``invalid``)    -2            see below
any move when the oracle's search ran out       0 (``legal``)       0             continues
==============================================  ==================  ============  ==========

"In reach" means a solution exists within the *horizon*: the steps left after the move
(default), or a fixed ``search_depth`` (VPR's 25), where a move that spends the last step
without solving also scores -2. Blocked and unparseable actions follow the contract's one
invalid-action policy: ``invalid_penalty`` each (-2 here), and after ``max_invalid`` of them
(3 by default; 1 with ``preset="vpr"``, as in VPR) the episode ends, truncated.

Why an episode ends, and how (``terminated`` only for a real ending of the game):

==============================================  ===========  ================================
event                                           flag         ``info["truncated_by"]``
==============================================  ===========  ================================
every box on a goal                             terminated   -
the level is provably dead (a deadlock)         terminated   -
no solution in reach, level not provably dead   truncated    ``"no_solution_in_reach"``
the step budget ran out                         truncated    ``"max_steps"``
``max_invalid`` invalid actions                 truncated    ``"max_invalid"``
==============================================  ===========  ================================

"Provably dead" is decided by sound tests only (:meth:`.oracle.Oracle.is_dead`): a box on a
cell from which no goal can be reached, boxes that cannot be matched to distinct goals, a
box off a goal frozen in a 2x2 block of walls and boxes, the full distance table on small
levels, and otherwise an unlimited search within the oracle's node budget; when none of them
proves it the ending is a truncation. Every oracle search has a node budget
(:data:`.oracle.ORACLE_MAX_NODES`), so no reset or step can hang: a question it cannot
answer within it gives the ``legal`` reward, never ends the episode, and sets
``info["oracle_degraded"]``. Generated levels stay well below it.

The outcome reward is ``success_reward`` (1.0) on success and 0.0 otherwise. With
``score_process=False`` every process reward is 0.0 and the episode is otherwise the same.

>>> import gymnasium as gym
>>> import agentgym
>>> env = gym.make("agentgym/Sokoban-v0", process_reward="verdict")
>>> obs, info = env.reset(seed=0)
>>> best = env.unwrapped.oracle_actions()[0]
>>> obs, reward, terminated, truncated, info = env.step(f"<action>{best}</action>")
>>> reward
2.0
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

import numpy as np

from agentgym.core import Outcome, TextEnv
from agentgym.presets import apply_preset

from ..shaping import (
    DESCRIPTIONS,
    PROGRESS_TOTAL,
    progress_reward,
    step_cost,
)
from .config import SokobanConfig
from .generator import generate_level
from .logic import (
    DIRECTIONS,
    SYMBOLS,
    Level,
    check_playable,
    is_solved,
    move,
    parse_level,
    render,
)
from .oracle import MODES, UNKNOWN, Distance, MoveEval, Oracle, Rewards, move_limits

__all__ = ["ORACLE_MODES", "PRESETS", "SokobanEnv"]

#: ``"shortest"``: +2 only on a shortest solution; ``"solvable"``: +2 for any move that keeps
#: a solution in reach.
ORACLE_MODES: tuple[str, ...] = MODES

#: Named configurations (see :func:`agentgym.presets.apply_preset`). ``"vpr"`` is the VPR
#: paper's Sokoban setup (thu-nics/VPR): BFS depth fixed at 25, +2 / 0 / -2, and an invalid
#: action -2 that ends the episode. Its board and budget (6x6, one box, 15 steps) are this
#: env's defaults and stay free, like any horizon. (VPR trains Sokoban on the process reward
#: alone: add ``reward_mode="process"``.)
PRESETS: dict[str, dict[str, Any]] = {
    "vpr": {
        "process_reward": "verdict",
        "oracle": "shortest",
        "search_depth": 25,
        "optimal_reward": 2.0,
        "legal_reward": 0.0,
        "deadlock_penalty": -2.0,
        "invalid_penalty": -2.0,
        "max_invalid": 1,
    }
}

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
_FORMAT = "answer with one of up, down, left, right inside <action>...</action>"
_LEGEND = "Legend: " + ", ".join(f"{k} {v}" for k, v in SYMBOLS.items()) + "."


class _Frame:
    """The parts of an observation fixed by the grid shape, built once per shape and process.

    Kept over formatting every cell each step because the step benchmark shows it matters:
    a 6x6 observation formatted cell by cell (``render`` rows joined per line, coordinates
    formatted anew) took about 7 us against 1.2 us for writing the state's few symbols into
    a copy of :attr:`blank`, which would have brought a step (about 15 us with this frame)
    level with TextArena's (about 22 us) instead of well below it.
    """

    __slots__ = ("blank", "header", "pos", "where")

    def __init__(self, height: int, width: int) -> None:
        columns = " " * 4 + "".join(f"{c + 1:>3}" for c in range(width)) + "   (columns)"
        self.header = f"{_LEGEND}\n\n{columns}"
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
        #: Each cell as "row r, column c", 1-based.
        self.where = tuple(
            f"row {r + 1}, column {c + 1}" for r in range(height) for c in range(width)
        )


@lru_cache(maxsize=32)
def _frame(height: int, width: int) -> _Frame:
    return _Frame(height, width)


class SokobanEnv(TextEnv):
    """Push every box onto a goal within a step budget; each move scored by a shortest-path oracle.

    Kwargs (defaults in brackets):

    * ``size`` (grid side including the outer walls, 5..10 [6]), ``boxes`` (1..3 [1]; at most
      2 on a 5x5 grid), ``max_steps`` (step budget, 1..100 [15]);
    * ``oracle``: ``"shortest"`` or ``"solvable"`` (see :data:`ORACLE_MODES`) [shortest];
      with ``process_reward="progress"`` the oracle plays shortest moves either way;
    * ``process_reward``: ``"progress"`` [progress] (progress towards a solution, settled
      so that only solving pays; see the module docstring) or ``"verdict"`` (VPR's scores,
      the constants below);
    * ``search_depth``: None [None] (a solution must fit the steps left) or 1..100, the fixed
      horizon of VPR's search;
    * the ``"verdict"`` reward constants ``optimal_reward`` [2.0], ``legal_reward`` [0.0],
      ``deadlock_penalty`` [-2.0] (no solution in reach after the move) and
      ``success_reward`` [1.0] (the outcome), with
      ``deadlock_penalty <= legal_reward <= optimal_reward``;
    * ``preset``: None or ``"vpr"`` (:data:`PRESETS`): a kwarg left at its default takes the
      preset's value, one set to another value overrides it;
    * the contract's ``reward_mode``, ``render_mode``, ``score_process``,
      ``invalid_penalty`` [-2.0] and ``max_invalid`` [3] (1 with ``preset="vpr"``).

    Actions: ``up``, ``down``, ``left``, ``right`` (rows grow downwards), case-insensitive,
    also ``u``/``d``/``l``/``r`` and an optional leading ``move``/``go``/``push``/``walk``.
    ``available_actions`` lists only the moves that are not blocked.

    ``reset(options={"level": [...rows...]})`` plays a hand-drawn level (symbols as in the
    observation legend) instead of a generated one; ``size`` and ``boxes`` are then ignored.
    It must fit :data:`.logic.MAX_SIDE` x :data:`.logic.MAX_SIDE` cells, hold at most
    :data:`.logic.MAX_BOXES` boxes and start with a box off a goal (``ValueError`` otherwise).

    Extra ``info`` on reset and after each step: ``verdict`` (``start``, ``optimal``,
    ``suboptimal``, ``solved``, ``deadlock``, ``no_solution_in_reach``, ``unknown``,
    ``blocked``, ``invalid``), ``optimal_moves_left`` (shortest solution length from the
    state now, -1 when none is in reach, None when the search ran out), ``boxes_on_goals``
    and ``oracle_degraded``.

    The oracle answers from the exact distance table the generator built while searching
    backwards from the solved positions (grown further on demand for small levels), and
    with a memoised, node-bounded A* search beyond it. ``score_process=False`` reports a
    process reward of 0 but saves next to nothing: whether a move left a solution in reach
    decides whether the episode ends, so the oracle is asked either way.

    >>> env = SokobanEnv(size=6, boxes=1, process_reward="verdict")
    >>> _ = env.reset(seed=1)
    >>> best = env.oracle_actions()
    >>> env.score_actions(best) == [2.0] * len(best), env.steps
    (True, 0)
    """

    verifier_name = "sokoban-bfs"
    config_model = SokobanConfig
    verifier_version = "2"

    def __init__(
        self,
        size: int = 6,
        boxes: int = 1,
        max_steps: int = 15,
        oracle: str = "shortest",
        *,
        process_reward: str = "progress",
        search_depth: int | None = None,
        optimal_reward: float = 2.0,
        legal_reward: float = 0.0,
        deadlock_penalty: float = -2.0,
        success_reward: float = 1.0,
        preset: str | None = None,
        reward_mode: str = "both",
        render_mode: str | None = None,
        score_process: bool = True,
        invalid_penalty: float = -2.0,
        max_invalid: int = 3,
    ) -> None:
        kw = apply_preset(SokobanEnv, preset, PRESETS, SokobanConfig.pick(locals()))
        cfg = SokobanConfig.parse(kw, owner="SokobanEnv")
        super().__init__(**cfg.contract())
        self.preset = cfg.preset
        self.size = cfg.size
        self.num_boxes = cfg.boxes
        self.oracle_mode: str = cfg.oracle
        self.search_depth = cfg.search_depth
        self.rewards = Rewards(
            optimal=cfg.optimal_reward,
            legal=cfg.legal_reward,
            unsolvable=cfg.deadlock_penalty,
            blocked=self.invalid_penalty,
        )
        self.success_reward = cfg.success_reward
        self.process_reward = cfg.process_reward
        self._cost = step_cost(PROGRESS_TOTAL, self.max_steps)
        self._phi = 0.0  # the progress potential now (see ..shaping)
        self._paid = 0.0  # progress rewards paid so far this episode
        self._oracle: Oracle | None = None
        self.level: Level | None = None
        self.player = 0
        self.boxes: tuple[int, ...] = ()
        self.status = "playing"
        self.start_optimal = -1
        self._invalid_kind = ""  # "blocked move" or "unreadable action", for the end status
        self._legal_for: tuple[int, tuple[int, ...]] | None = None
        self._legal: tuple[str, ...] = ()
        self._frame = _frame(3, 3)
        self._goals_text = ""
        self._grid = b""

    def _config(self) -> dict[str, Any]:
        return {
            "size": self.size,
            "boxes": self.num_boxes,
            "process_reward": self.process_reward,
            "oracle": self.oracle_mode,
            "search_depth": self.search_depth,
            "optimal_reward": self.rewards.optimal,
            "legal_reward": self.rewards.legal,
            "deadlock_penalty": self.rewards.unsolvable,
            "success_reward": self.success_reward,
            "preset": self.preset,
        }

    @property
    def rules(self) -> str:  # type: ignore[override]  # per instance: it states the limits
        """The game explained for an LLM's system prompt (this env's horizon and limits)."""
        if self.search_depth is None:
            reach = "after a move that leaves no solution within the steps left"
        else:
            reach = f"after a move that leaves no solution within {self.search_depth} moves"
        invalid = (
            "a blocked or unreadable move"
            if self.max_invalid == 1
            else f"{self.max_invalid} blocked or unreadable moves"
        )
        return (
            "You play Sokoban on a grid surrounded by walls. Push every box onto a goal. Each "
            "action moves you one cell up (row - 1), down (row + 1), left (column - 1) or "
            "right (column + 1); walking into a box pushes it one cell if the cell behind it "
            "is free. You cannot pull boxes or push two boxes at once. The game ends when "
            f"every box is on a goal, after {invalid}, {reach}, or when the "
            f"{self.max_steps} steps run out. Moves on a shortest solution earn the most "
            "reward. Answer with one move as <action>DIRECTION</action>, where DIRECTION is "
            "up, down, left or right."
        )

    # ------------------------------------------------------------------ episode
    def _new_episode(self, rng: np.random.Generator, options: dict[str, Any]) -> None:
        if options.get("level") is not None:
            level, player, boxes = parse_level(options["level"])
            check_playable(level, boxes)
            self._set_level(level)
            before, _ = move_limits(self.max_steps, self.search_depth)
            optimal = self._require_oracle().distance(player, boxes, before)
            self.start_optimal = optimal if isinstance(optimal, int) else -1
        else:
            level, player, boxes, optimal = generate_level(
                rng, self.size, self.num_boxes, self.max_steps
            )
            # The level carries the generator's exact distance table; the oracle reads it.
            self._set_level(level)
            self.start_optimal = optimal
        self.player, self.boxes = player, boxes
        self.status = "playing"
        self._invalid_kind = ""
        self._phi = self._paid = 0.0

    def _set_level(self, level: Level) -> None:
        # The oracle's memo is only valid for one level; keep it when a snapshot of the same
        # level is restored (score_actions does that after every invalid candidate).
        self._legal_for = None
        if self.level != level or self._oracle is None:
            self.level = level
            self._oracle = Oracle(level)
            self._frame = frame = _frame(level.height, level.width)
            self._goals_text = ", ".join(f"({frame.where[g]})" for g in level.goals)
            grid = bytearray(frame.blank)
            for c in level.shape.interior:
                if not level.walls[c]:
                    grid[frame.pos[c]] = 79 if c in level.goal_set else 95  # O, _
            self._grid = bytes(grid)  # the level's grid without player and boxes

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
            tail = f"Moves that are not blocked now: {legal}."
        else:
            tail = f"Game over: {self.status}."
        return (
            f"{frame.header}\n{grid.decode()}\n(rows)\n\n"
            f"You are at {where[self.player]}.\n"
            f"Boxes: {', '.join([f'({where[b]})' for b in self.boxes])}.\n"
            f"Goals: {self._goals_text}.\n"
            f"Boxes on goals: {on_goals} of {len(self.boxes)}. Steps left: {self.steps_left}.\n"
            f"{tail}"
        )

    def _where(self, cell: int) -> str:
        return self._frame.where[cell]

    def _legal_actions(self) -> list[str] | None:
        if self.level is None or self.status != "playing":
            return []
        state = (self.player, self.boxes)
        if self._legal_for != state:
            # Memoised per state: the observation and the step's info both ask every step.
            level = self.level
            self._legal = tuple(
                name for i, name in enumerate(DIRECTIONS) if move(level, *state, i) is not None
            )
            self._legal_for = state
        return list(self._legal)

    def _parse(self, action: str) -> tuple[Any, str]:
        direction = _ALIASES.get(action.strip().lower())
        if direction is None:
            words = _NOISE.sub(" ", action.lower()).split()
            if len(words) == 2 and words[0] in _VERBS:
                words = words[1:]
            if len(words) != 1 or words[0] not in _ALIASES:
                shown = action if len(action) <= 40 else action[:40] + "..."
                return None, f"could not read a move from {shown!r}; {_FORMAT}"
            direction = _ALIASES[words[0]]
        assert self.level is not None
        if move(self.level, self.player, self.boxes, direction) is None:
            return None, self._blocked_reason(direction)
        return direction, ""

    def _blocked_reason(self, direction: int) -> str:
        assert self.level is not None
        d = self.level.deltas[direction]
        target = self.player + d
        legal = ", ".join(self._legal_actions() or []) or "none"
        if self.level.walls[target]:
            why = f"({self._where(target)}) is a wall"
        else:
            what = "a wall" if self.level.walls[target + d] else "another box"
            why = f"the box at ({self._where(target)}) would be pushed into {what}"
        return f"'{DIRECTIONS[direction]}' is blocked: {why}. Moves not blocked now: {legal}"

    # ------------------------------------------------------------------ rules and rewards
    def _judge(self, direction: int, steps_left: int) -> MoveEval:
        # The one verdict both step and score_actions use, so their rewards always agree.
        return self._require_oracle().judge(
            self.player, self.boxes, direction, steps_left, self.search_depth
        )

    def _apply(self, direction: int) -> Outcome:
        # Inside _apply the base has already counted this step: steps_left is what remains
        # after it, so the move was made with one more.
        oracle = self._require_oracle()
        steps_after = self.steps_left
        judged = self._judge(direction, steps_after + 1)
        assert judged.next_state is not None and self.level is not None
        self.player, self.boxes = judged.next_state
        solved = is_solved(self.level, self.boxes)
        _, after = move_limits(steps_after + 1, self.search_depth)
        left: Distance = 0 if solved else oracle.distance(self.player, self.boxes, after)
        degraded = judged.unknown or left is UNKNOWN
        terminated = truncated = False
        if solved:
            self.status = verdict = "solved"
            terminated = True
        elif judged.solvable is False:
            dead = oracle.is_dead(self.player, self.boxes)
            degraded = degraded or dead is UNKNOWN
            if dead is True:
                self.status = "the level can no longer be solved"
                verdict = "deadlock"
                terminated = True
            else:
                verdict = "no_solution_in_reach"
                if steps_after > 0:  # else the base ends it: the budget is spent
                    self.status = self._out_of_reach()
                    truncated = True
        elif judged.unknown:
            verdict = "unknown"
        else:
            verdict = "optimal" if judged.optimal else "suboptimal"
        if self.process_reward == "progress":
            ends = solved or terminated or truncated or steps_after == 0
            process = self._pay(self._potential(left), solved=solved, ends=ends)
        else:
            process = self.rewards.score(judged, self.oracle_mode)
        return Outcome(
            process=process if self.score_process else 0.0,
            outcome=self.success_reward if solved else 0.0,
            terminated=terminated,
            truncated=truncated,
            truncated_by="no_solution_in_reach" if truncated else "",
            success=solved,
            info=self._extra_info(verdict, left, degraded),
        )

    def _out_of_reach(self) -> str:
        if self.search_depth is None:
            return "no solution fits in the steps left"
        return f"no solution within {self.search_depth} moves"

    def _reject(self, error: str) -> Outcome:
        # The base adds invalid_penalty and ends the episode after max_invalid of these. The
        # state is unchanged, but a step was spent: if no solution fits any more, the episode
        # is over (truncated: the level itself is no worse than before).
        blocked = "is blocked" in error
        self._invalid_kind = "blocked move" if blocked else "unreadable action"
        info: dict[str, Any] = {}
        left: Distance = -1
        truncated = False
        if self.level is not None:
            before, _ = move_limits(self.steps_left, self.search_depth)
            left = self._require_oracle().distance(self.player, self.boxes, before)
            if left is None and self.steps_left > 0:
                self.status = self._out_of_reach()
                truncated = True
        info.update(self._extra_info("blocked" if blocked else "invalid", left, left is UNKNOWN))
        process = 0.0
        if self.process_reward == "progress":
            # An invalid action pays only invalid_penalty (added by the base), unless it ends
            # the episode: then it settles what was paid, like any unsolved ending.
            ends = truncated or self.invalid_actions + 1 >= self.max_invalid or not self.steps_left
            process = -self._paid if ends else 0.0
            self._paid += process
        return Outcome(
            process=process,
            truncated=truncated,
            truncated_by="no_solution_in_reach" if truncated else "",
            info=info,
        )

    def _on_end(self, out: Outcome) -> None:
        # _apply and _reject name the endings they decide; the base decides the other two.
        if self.status == "playing":
            self.status = self._invalid_kind if not out.valid else "out of steps"

    def _extra_info(self, verdict: str, left: Distance, degraded: bool) -> dict[str, Any]:
        assert self.level is not None
        return {
            "verdict": verdict,
            "optimal_moves_left": None if left is UNKNOWN else -1 if left is None else int(left),
            "boxes_on_goals": len(self.level.goal_set.intersection(self.boxes)),
            "oracle_degraded": bool(degraded),
        }

    def _reset_info(self) -> dict[str, Any]:
        before, _ = move_limits(self.steps_left, self.search_depth)
        left = self._require_oracle().distance(self.player, self.boxes, before)
        info = self._extra_info("start", left, left is UNKNOWN)
        info["process_reward"] = DESCRIPTIONS[self.process_reward]
        return info

    def _score(self, move: Any, snapshot: bytes) -> float:
        # The same reward as _apply, read without applying the move (nothing to restore).
        judged = self._judge(int(move), self.steps_left)
        if self.process_reward == "verdict":
            return self.rewards.score(judged, self.oracle_mode)
        assert judged.next_state is not None and self.level is not None
        solved = is_solved(self.level, judged.next_state[1])
        _, after = move_limits(self.steps_left, self.search_depth)
        left = 0 if solved else self._require_oracle().distance(*judged.next_state, after)
        # A move after which no solution is in reach ends the episode (dead or truncated).
        ends = solved or judged.solvable is False or self.steps_left <= 1
        return self._pay(self._potential(left), solved=solved, ends=ends, commit=False)

    # ------------------------------------------------------------------ progress rewards
    def _potential(self, left: Distance) -> float:
        """The progress potential of a state ``left`` moves from solved (see ``..shaping``):
        ``PROGRESS_TOTAL * (d0 - left) / d0`` with ``d0`` the start's distance. A state the
        oracle could not measure (or a level with no solution in reach at the start) keeps
        the potential where it was, so the rewards still telescope."""
        d0 = self.start_optimal
        if d0 <= 0 or not isinstance(left, int):
            return self._phi
        return PROGRESS_TOTAL * (d0 - left) / d0

    def _pay(self, phi_after: float, *, solved: bool, ends: bool, commit: bool = True) -> float:
        """The progress reward of a step to potential ``phi_after``; ``commit`` books it."""
        pay = progress_reward(
            self._paid, self._phi, phi_after,
            total=PROGRESS_TOTAL, cost=self._cost, solved=solved, ends=ends,
        )  # fmt: skip
        if commit:
            self._paid += pay
            self._phi = PROGRESS_TOTAL if solved else phi_after
        return pay

    def oracle_actions(self) -> list[str]:
        """Moves with the highest oracle score now, in ``up, down, left, right`` order."""
        self._require_started()
        if self.is_over:
            return []
        # The progress reward is highest on a shortest solution, whatever the oracle mode.
        mode = self.oracle_mode if self.process_reward == "verdict" else "shortest"
        best = self._require_oracle().best_moves(
            self.player,
            self.boxes,
            self.steps_left,
            mode,
            self.search_depth,
            self.rewards,
        )
        return [DIRECTIONS[i] for i in best]

    def optimal_moves_left(self) -> int | None:
        """Shortest solution length from the current state, -1 if none is in reach, None if
        the oracle's search ran out of node budget."""
        self._require_started()
        before, _ = move_limits(self.steps_left, self.search_depth)
        dist = self._require_oracle().distance(self.player, self.boxes, before)
        return None if dist is UNKNOWN else -1 if dist is None else dist

    # ------------------------------------------------------------------ snapshots
    def _state_dict(self) -> dict[str, Any]:
        assert self.level is not None
        return {
            "rows": render(self.level, self.player, self.boxes),
            "status": self.status,
            "start_optimal": self.start_optimal,
            "invalid_kind": self._invalid_kind,
            "phi": self._phi,
            "paid": self._paid,
        }

    def _load_state_dict(self, state: dict[str, Any]) -> None:
        level, player, boxes = parse_level(state["rows"])
        self._set_level(level)
        self.player, self.boxes = player, boxes
        self.status = str(state["status"])
        self.start_optimal = int(state["start_optimal"])
        self._invalid_kind = str(state["invalid_kind"])
        self._phi = float(state.get("phi", 0.0))
        self._paid = float(state.get("paid", 0.0))
