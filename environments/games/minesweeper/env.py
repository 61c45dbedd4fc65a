"""Minesweeper as a text env, scored by the exact mine posterior.

The process reward has two schemes (``process_reward``). The default, ``"progress"``, pays
the share of safe cells revealed (a flood of fifteen cells pays fifteen times one cell; a
flag pays nothing by itself) minus a step cost, and settles an unsolved episode to 0
(:mod:`agentgym.environments.games.shaping`): its sum pays only for clearing the board.
What a reveal pays then depends on the hidden mines, so the oracle plays the posterior's
safest reveal, not always the best-paid one (``hidden_information``, :meth:`safe_actions`).
``"verdict"`` (``preset="vpr"``) is VPR's action-level score: every action is scored in the
state before it runs against P(mine) of each hidden cell, computed exactly (see
:func:`~agentgym.environments.games.minesweeper.solver.mine_posterior`); the constants are
kwargs, with these defaults (which are VPR's):

==========================================================  =======  =======================
action                                                      process  effect
==========================================================  =======  =======================
reveal a cell with P(mine) = 0 (``safe_reveal_reward``)     +2       opens it (flood on 0)
reveal a lowest-P cell when no hidden cell has P = 0        +1       may hit a mine
(``guess_reward``)
any other reveal (``other_reveal_reward``)                  0        may hit a mine
flag a cell with P(mine) = 1 (``certain_flag_reward``)      +1       marks it
flag a cell with P(mine) < 1 (``uncertain_flag_reward``)    -1       marks it if it is a
                                                                     mine, else ends the
                                                                     episode (failure)
invalid (unparseable, off the board, revealed or flagged    -1       nothing; the episode
cell, a flag before the first reveal; ``invalid_penalty``)           ends (truncated) at the
                                                                     3rd (``max_invalid``)
==========================================================  =======  =======================

Revealing a mine ends the episode (outcome 0); revealing every safe cell wins (outcome
``win_reward``, 1). Whether an episode ends depends on the real board only: a reveal ends it
on a mine, a flag on a cell that is not a mine. The oracle decides only the process reward.
If counting a frontier component would cost more than ``posterior_budget``, that step is
scored with local deduction instead (certain cells still exact as far as it sees, the rest
at the leftover mine density) and ``info["oracle_degraded"]`` is True; a degraded verdict
changes a reward, never what happens on the board. The step budget (``max_steps``) and
``max_invalid`` end an episode truncated, as :class:`~agentgym.core.TextEnv` does for every
family.

``preset="vpr"`` is the configuration of the VPR paper (thu-nics/VPR): 5x5 with 5 mines,
the reward constants above, at most 25 steps, and an invalid action scores -2 and ends the
episode (``invalid_penalty=-2``, ``max_invalid=1``).

Cost per step: the posterior lives in a
:class:`~agentgym.environments.games.minesweeper.solver.PosteriorSolver`, which reworks only
what a reveal changed and answers at most once per state (``step``, :meth:`score_actions`
and :meth:`oracle_actions` share it); with ``score_process=False`` a step never asks it.
The observation and the action list are kept up to date cell by cell.

The board is fair by construction: the mines are placed from the episode generator at the
first reveal, outside that cell and (when the board has room) its neighbours, so the first
reveal always scores +2 and opens an area. Before it there is no mine to flag, so flags
are legal only from then on. Flags are never taken as knowledge by the oracle, and they
only ever stand on real mines, so there is no "unflag" action.

>>> import gymnasium as gym
>>> import agentgym
>>> env = gym.make("agentgym/Minesweeper-v0", process_reward="verdict")
>>> obs, info = env.reset(seed=0)
>>> obs, reward, terminated, truncated, info = env.step("<action>reveal 3 3</action>")
>>> reward, info["valid_action"], info["oracle_degraded"]
(2.0, True, False)
"""

from __future__ import annotations

import operator
import re
from itertools import compress
from typing import Any, ClassVar

import numpy as np

from agentgym.core import Outcome, TextEnv
from agentgym.grammar import Slot, read_numbers
from agentgym.presets import apply_preset

from ..shaping import (
    DESCRIPTIONS,
    PROGRESS_TOTAL,
    progress_reward,
    step_cost,
)
from .board import cell_bits, cells_of, flood_mask, neighbour_counts, place_mines
from .config import MinesweeperConfig
from .posterior import Posterior
from .solver import DEFAULT_POSTERIOR_BUDGET, PosteriorSolver

__all__ = ["PRESETS", "MinesweeperEnv"]

#: Named configurations: ``"vpr"`` is the VPR paper's (thu-nics/VPR, its Minesweeper worker
#: defaults: 5x5, 5 mines, 25 turns, +2 / +1 / +1 / 0 / -1, invalid -2 and done).
PRESETS: dict[str, dict[str, Any]] = {
    "vpr": {
        "process_reward": "verdict",
        "rows": 5,
        "cols": 5,
        "mines": 5,
        "max_steps": 25,
        "safe_reveal_reward": 2.0,
        "certain_flag_reward": 1.0,
        "guess_reward": 1.0,
        "other_reveal_reward": 0.0,
        "uncertain_flag_reward": -1.0,
        "invalid_penalty": -2.0,
        "max_invalid": 1,
    }
}

_REVEAL_WORDS = frozenset({"reveal", "r", "open", "o", "click", "dig", "uncover"})
_FLAG_WORDS = frozenset({"flag", "f", "mark"})
_VERB = re.compile(r"\s*([A-Za-z]+)(.*)\Z", re.DOTALL)
_FORMAT = "answer 'reveal ROW COL' or 'flag ROW COL'"

_PLAYING = "playing"
_LEGEND = (
    "Legend: # hidden, F flagged, . revealed with no mine around it, 1-8 revealed "
    "with that many mines among its 8 neighbours, * mine (shown when the game ends)."
)
_REWARD_KWARGS = (
    "safe_reveal_reward",
    "certain_flag_reward",
    "guess_reward",
    "other_reveal_reward",
    "uncertain_flag_reward",
    "win_reward",
)




class MinesweeperEnv(TextEnv):
    """Clear a Minesweeper board; each action is scored by the exact mine posterior.

    Arguments:

    * ``rows`` and ``cols`` (3..16, default 5; a remote client or a leaderboard bundle may
      ask for up to 12), ``mines`` (1..rows*cols-9; a 3x3 board allows 1; default 5);
    * ``posterior_budget``: work per frontier component before the oracle degrades to local
      deduction (1..10^9, default 200000, the most a client or bundle may ask for; see
      :class:`~.config.MinesweeperConfig`);
    * ``process_reward``: ``"progress"`` (default: the share of safe cells revealed, settled
      so that only a win pays; see the module docstring) or ``"verdict"`` (VPR's per-action
      scores below, for state-group training, not a return to maximise);
    * ``preset``: ``None`` or ``"vpr"`` (see :data:`PRESETS`). A kwarg left at its default
      takes the preset's value; one set to another value overrides it
      (:func:`agentgym.presets.apply_preset`);
    * the ``"verdict"`` process rewards ``safe_reveal_reward`` (2), ``guess_reward`` (1),
      ``other_reveal_reward`` (0), ``certain_flag_reward`` (1), ``uncertain_flag_reward``
      (-1), and the outcome ``win_reward`` (1), any finite numbers;
    * the contract kwargs: ``max_steps`` (1..100000, default ``2 * rows * cols``),
      ``invalid_penalty`` (<= 0, default -1), ``max_invalid`` (default 3), ``reward_mode``,
      ``render_mode`` and ``score_process`` (False skips the posterior entirely; the game is
      the same, since no ending depends on it).

    Actions (1-based, case-insensitive): ``reveal R C`` and ``flag R C``; ``r``/``open`` and
    ``f``/``mark`` are accepted as verbs, and the coordinates as
    :func:`agentgym.grammar.read_numbers` reads them (``reveal (3, 4)``, ``R 3 4``,
    ``flag row 2 col 5``).

    ``info`` extras on reset and every step: ``oracle_degraded`` (the posterior used this
    step came from local deduction), ``safe_cells_left`` and ``p_mine`` (P(mine) of the acted
    cell before the action; ``None`` on reset, for invalid actions, and when
    ``score_process`` is False).

    >>> env = MinesweeperEnv(rows=4, cols=4, mines=3, process_reward="verdict")
    >>> obs, info = env.reset(seed=1)
    >>> env.oracle_actions()[:2]
    ['reveal 1 1', 'reveal 1 2']
    >>> env.score_actions(["reveal 1 1", "flag 1 1", "nonsense"])
    [2.0, -1.0, -1.0]
    """

    verifier_name: ClassVar[str] = "minesweeper-exact-posterior"
    config_model = MinesweeperConfig
    verifier_version: ClassVar[str] = "2"
    hidden_information: ClassVar[bool] = True

    def __init__(
        self,
        rows: int = 5,
        cols: int = 5,
        mines: int = 5,
        *,
        posterior_budget: int = DEFAULT_POSTERIOR_BUDGET,
        process_reward: str = "progress",
        preset: str | None = None,
        safe_reveal_reward: float = 2.0,
        certain_flag_reward: float = 1.0,
        guess_reward: float = 1.0,
        other_reveal_reward: float = 0.0,
        uncertain_flag_reward: float = -1.0,
        win_reward: float = 1.0,
        reward_mode: str = "both",
        render_mode: str | None = None,
        score_process: bool = True,
        max_steps: int | None = None,
        invalid_penalty: float = -1.0,
        max_invalid: int = 3,
    ) -> None:
        given = apply_preset(MinesweeperEnv, preset, PRESETS, MinesweeperConfig.pick(locals()))
        cfg = MinesweeperConfig.parse(given, owner="MinesweeperEnv")
        super().__init__(**cfg.contract())
        self.preset = cfg.preset
        self.rows = cfg.rows
        self.cols = cfg.cols
        self.mines = cfg.mines  # at most max_mines(rows, cols): the first reveal keeps 9 clear
        n = self.rows * self.cols
        self.posterior_budget = cfg.posterior_budget
        for name in _REWARD_KWARGS:
            setattr(self, name, getattr(cfg, name))
        self.process_reward = cfg.process_reward
        self._cost = step_cost(PROGRESS_TOTAL, self.max_steps)
        self._n = n
        self._safe_total = n - self.mines
        self._slots = (
            Slot("row", self.rows, ("row", "r")),
            Slot("column", self.cols, ("column", "col", "c")),
        )
        # Everything that depends only on the board size is built once: the action strings
        # (and the exact-match table the parser tries first), the row of each cell, and the
        # pieces of the observation.
        cols = self.cols
        self._reveal_text = [f"reveal {i // cols + 1} {i % cols + 1}" for i in range(n)]
        self._flag_text = [f"flag {i // cols + 1} {i % cols + 1}" for i in range(n)]
        self._canonical = {text: ("reveal", i) for i, text in enumerate(self._reveal_text)}
        self._canonical.update({text: ("flag", i) for i, text in enumerate(self._flag_text)})
        self._row_of = [i // cols for i in range(n)]
        width = len(str(cols)) + 1
        label = len(str(self.rows))
        self._title = f"Minesweeper {self.rows}x{cols} with {self.mines} mines. Flags placed: "
        self._col_header = " " * (label + 1) + "".join(str(c + 1).rjust(width) for c in range(cols))
        self._row_label = [str(r + 1).rjust(label) + " " for r in range(self.rows)]
        self._number_sym = [(str(k) if k else ".").rjust(width) for k in range(9)]
        self._hidden_sym = "#".rjust(width)
        self._flag_sym = "F".rjust(width)
        self._mine_sym = "*".rjust(width)
        where = f"(rows 1-{self.rows}, columns 1-{cols})"
        self._first_line = f"Legal now: reveal any cell {where}; flags after the first reveal."
        self._legal_line = f"Legal now: reveal or flag any # cell {where}."
        self._clear_board()

    @property
    def rules(self) -> str:  # type: ignore[override]  # per instance: it names the size
        """The game, the action format and the scoring, for an LLM's system prompt."""
        return (
            f"You play Minesweeper on a {self.rows}x{self.cols} grid of hidden cells, "
            f"{self.mines} of which hide mines. Reveal every cell that is not a mine. A "
            "revealed cell shows how many of its 8 neighbours are mines ('.' for none); "
            "revealing a cell with no mine around it also opens its neighbours. The first "
            f"reveal is always safe. Actions, with ROW 1-{self.rows} and COL 1-{self.cols} "
            "counted from the top left: 'reveal ROW COL' opens a cell, and revealing a mine "
            "ends the game; 'flag ROW COL' marks a mine, and flagging a cell that is not a "
            "mine ends the game. Revealing a cell the numbers prove safe earns the most "
            "reward; when none is, reveal the cell least likely to be a mine. Flag only cells "
            "the numbers prove to be mines. An invalid action (a revealed or flagged cell, "
            f"off the board, unreadable) costs {self.invalid_penalty:g}, and after "
            f"{self.max_invalid} of them the episode ends. Answer with one action, for "
            "example <action>reveal ROW COL</action> with the numbers filled in."
        )

    # ------------------------------------------------------------------ oracle API
    def oracle_actions(self) -> list[str]:
        """The posterior's best legal actions, in :meth:`_legal_actions` order.

        With ``process_reward="verdict"`` (and the default constants): the certain-safe
        reveals (+2) when there are any; otherwise the lowest-P reveals and the certain-mine
        flags (+1 each), i.e. every action with the top score. With ``"progress"``: the
        certain-safe reveals when there are any, otherwise the lowest-P reveals (a flag only
        costs a step there). The oracle reads only what the agent sees: what a reveal pays
        under ``"progress"`` depends on the hidden board (the cells it opens, a mine), so
        its move is the best one in expectation, not always the best-paid one
        (``hidden_information``; see :meth:`safe_actions`).
        """
        self._require_started()
        if self.is_over:
            return []
        post = self.posterior()
        nums, den = post.numerators, post.denominator
        low = min(nums[i] for i in self._open_reveal)  # type: ignore[type-var]
        if self.process_reward == "progress":
            return [text for i, text in self._open_reveal.items() if nums[i] == low]
        scored = [
            (text, self.safe_reveal_reward if nums[i] == 0 else self._risky_reveal(nums[i], low))
            for i, text in self._open_reveal.items()
        ]
        if self._placed:
            scored += [
                (text, self.certain_flag_reward if nums[i] == den else self.uncertain_flag_reward)
                for i, text in self._open_flag.items()
            ]
        top = max(score for _, score in scored)
        best = {text for text, score in scored if score == top}
        return [text for text in self._legal_actions() or () if text in best]

    def safe_actions(self) -> list[str]:
        """The legal reveals that cannot hit a mine, by the posterior (P(mine) = 0), in
        :meth:`_legal_actions` order: every reveal before the first, which is always safe.

        The conformance suite checks a ``hidden_information`` env's oracle against these.

        >>> env = MinesweeperEnv(rows=4, cols=4, mines=3)
        >>> _ = env.reset(seed=1)
        >>> _ = env.step("reveal 1 1")
        >>> env.safe_actions(), env.oracle_actions()
        (['reveal 1 3', 'reveal 2 4'], ['reveal 1 3', 'reveal 2 4'])
        """
        self._require_started()
        if self.is_over:
            return []
        nums = self.posterior().numerators
        return [text for i, text in self._open_reveal.items() if nums[i] == 0]

    def score_actions(self, actions: list[str]) -> list[float]:
        """Process reward each action would earn from the current state; the state is unchanged.

        Same scores as :meth:`TextEnv.score_actions`, read from the posterior kept for this
        state instead of snapshot-and-restore: parsing changes nothing, and an invalid
        action scores ``invalid_penalty``. (The base class's snapshot made scoring every
        legal action 25% slower: ``minesweeper-oracle`` in
        ``benchmarks/test_bench_minesweeper.py``.)
        """
        self._require_started()
        if self.process_reward == "progress":
            return super().score_actions(actions)
        if self.is_over:
            return [0.0 for _ in actions]
        scores = []
        for action in actions:
            move, _ = self._interpret(action)
            scores.append(self.invalid_penalty if move is None else self._judge(*move)[0])
        return scores

    def posterior(self) -> Posterior:
        """The oracle's P(mine) for every cell in the current state (all 0 before the first
        reveal, which is always safe)."""
        self._require_started()
        solver = self._synced_solver()
        if solver is None:
            return Posterior((0,) * self._n, 1, False)
        return solver.posterior()

    # ------------------------------------------------------------------ hooks
    def _config(self) -> dict[str, Any]:
        config: dict[str, Any] = {
            "rows": self.rows,
            "cols": self.cols,
            "mines": self.mines,
            "posterior_budget": self.posterior_budget,
            "process_reward": self.process_reward,
            "preset": self.preset,
        }
        config.update((name, getattr(self, name)) for name in _REWARD_KWARGS)
        return config

    def _new_episode(self, rng: np.random.Generator, options: dict[str, Any]) -> None:
        # Nothing is drawn yet: the mines are placed at the first reveal, from this same rng.
        self._clear_board()

    def _clear_board(self) -> None:
        n = self._n
        self._placed = False
        self._mine_cells: list[int] = []
        self._is_mine = [False] * n
        self._counts = [0] * n
        self._revealed = [False] * n
        self._flags = [False] * n
        self._status = _PLAYING
        self._last_cell = -1
        self._paid = 0.0  # progress rewards paid so far (see ..shaping)
        self._rebuild_caches()

    def _reset_info(self) -> dict[str, Any]:
        return {**self._extras(None, False), "process_reward": DESCRIPTIONS[self.process_reward]}

    def _observe(self) -> str:
        dirty = self._dirty_rows
        if dirty:
            # Only the rows a step changed are joined again: rebuilding the whole grid made
            # a score_process=False step 21% slower (minesweeper-step, 8x8).
            rows, syms, cols, labels = self._row_text, self._syms, self.cols, self._row_label
            for r in dirty:
                rows[r] = labels[r] + "".join(syms[r * cols : (r + 1) * cols])
            dirty.clear()
            self._grid = "\n".join(rows)
        if self._status != _PLAYING:
            status = self._status_line()
        else:
            status = self._legal_line if self._placed else self._first_line
        return (
            f"{self._title}{self._flag_count}. Safe cells left to reveal: "
            f"{self._safe_total - self._revealed_count}. Steps left: "
            f"{self.steps_left}.\n\n{self._col_header}\n{self._grid}\n\n{_LEGEND}\n{status}"
        )

    def _status_line(self) -> str:
        r, c = divmod(self._last_cell, self.cols)
        where = f"row {r + 1}, column {c + 1}"
        return {
            "won": "Game over: every safe cell is revealed. You win.",
            "mine": f"Game over: you revealed a mine at {where}.",
            "wrong_flag": f"Game over: you flagged {where}, which is not a mine.",
            "out_of_steps": "Game over: no steps left.",
            "invalid": "Game over: too many invalid actions.",
        }.get(self._status, "Game over.")

    def _legal_actions(self) -> list[str] | None:
        if self._status != _PLAYING:
            return []
        # Kept as insertion-ordered dicts of the open cells' action strings, updated as cells
        # close: listing them afresh made a score_process=False step 45% slower.
        if not self._placed:
            return list(self._open_reveal.values())  # no mine to flag before the first reveal
        return [*self._open_reveal.values(), *self._open_flag.values()]

    def _parse(self, text: str) -> tuple[Any, str]:
        # The canonical actions (what _legal_actions lists) skip the grammar: reading every
        # action with it made a score_process=False step 80% slower (minesweeper-step).
        # Anything else, every error included, takes the general path.
        move = self._canonical.get(text)
        # (A flag before the first reveal goes on: the general path refuses it.)
        if (
            move is not None
            and move[1] in self._open_reveal
            and (self._placed or move[0] == "reveal")
        ):
            return move, ""
        verb = _VERB.match(text)
        if verb is None:
            shown = text.strip()[:20]
            if not shown:
                return None, f"empty action; {_FORMAT}"
            return None, f"an action starts with reveal or flag, not {shown!a}; {_FORMAT}"
        word = verb.group(1).lower()
        if word in _REVEAL_WORDS:
            kind = "reveal"
        elif word in _FLAG_WORDS:
            kind = "flag"
        else:
            return None, f"unknown command {word[:20]!a}; {_FORMAT}"
        numbers, error = read_numbers(verb.group(2), self._slots, example=f"{kind} ROW COL")
        if numbers is None:
            return None, error
        r, c = numbers
        cell = (r - 1) * self.cols + (c - 1)
        if self._revealed[cell]:
            return None, f"row {r}, column {c} is already revealed; pick a hidden (#) cell"
        if self._flags[cell]:
            if kind == "flag":
                return None, f"row {r}, column {c} is already flagged; pick a hidden (#) cell"
            return None, f"row {r}, column {c} is flagged as a mine; it cannot be revealed"
        if kind == "flag" and not self._placed:
            return None, "the mines are placed at the first reveal; reveal a cell first"
        return (kind, cell), ""

    def _apply(self, move: tuple[str, int]) -> Outcome:
        kind, cell = move
        phi_before = self._potential()
        p_mine: float | None
        if self.score_process:
            process, p_mine, degraded = self._judge(kind, cell)
        else:
            process, p_mine, degraded = 0.0, None, False
        self._last_cell = cell
        # What happens on the board depends on the board alone, never on the oracle.
        if kind == "flag":
            if self._is_mine[cell]:
                self._place_flag(cell)
            else:
                self._end("wrong_flag")
        else:
            if not self._placed:
                self._place(cell)
            if self._is_mine[cell]:
                self._end("mine")
            else:
                self._open(cell)
                if self._revealed_count == self._safe_total:
                    self._end("won")
        won = self._status == "won"
        if self.process_reward == "progress":
            # Paid per safe cell revealed, however many actions that took; a flag is paid
            # only through the win it helps to reach. An unsolved episode settles to 0.
            ends = self._status != _PLAYING or not self.steps_left
            process = self._pay(phi_before, won=won, ends=ends)
        return Outcome(
            process=process,
            outcome=self.win_reward if won else 0.0,
            terminated=self._status != _PLAYING,
            success=won,
            info=self._extras(p_mine, degraded),
        )

    def _reject(self, error: str) -> Outcome:
        # The board is unchanged; the base class adds invalid_penalty and counts it.
        process = 0.0
        if self.process_reward == "progress":
            # Only invalid_penalty (added by the base), unless it ends the episode: then it
            # settles what was paid, like any unsolved ending.
            ends = self.invalid_actions + 1 >= self.max_invalid or not self.steps_left
            process = -self._paid if ends else 0.0
            self._paid += process
        return Outcome(process=process, info=self._extras(None, False))

    def _potential(self) -> float:
        """The progress potential: ``PROGRESS_TOTAL`` times the share of safe cells revealed."""
        return PROGRESS_TOTAL * self._revealed_count / self._safe_total

    def _pay(self, phi_before: float, *, won: bool, ends: bool) -> float:
        """Book and return the progress reward of the step just applied (``..shaping``)."""
        pay = progress_reward(
            self._paid, phi_before, self._potential(),
            total=PROGRESS_TOTAL, cost=self._cost, solved=won, ends=ends,
        )  # fmt: skip
        self._paid += pay
        return pay

    def _on_end(self, out: Outcome) -> None:
        if out.truncated:
            ran_out = out.valid or self.invalid_actions < self.max_invalid
            self._end("out_of_steps" if ran_out else "invalid")

    def _score(self, move: tuple[str, int], snapshot: bytes) -> float:
        if self.process_reward == "progress":
            # What a reveal pays depends on the cells it opens: apply it and restore.
            return TextEnv._score(self, move, snapshot)
        return self._judge(*move)[0]

    def _state_dict(self) -> dict[str, Any]:
        return {
            "placed": self._placed,
            "mines": list(self._mine_cells),
            "revealed": [i for i in range(self._n) if self._revealed[i]],
            "flags": [i for i in range(self._n) if self._flags[i]],
            "status": self._status,
            "last_cell": self._last_cell,
            "paid": self._paid,
        }

    def _load_state_dict(self, state: dict[str, Any]) -> None:
        n = self._n
        self._placed = bool(state["placed"])
        self._mine_cells = sorted(int(i) for i in state["mines"])
        self._is_mine = [False] * n
        for i in self._mine_cells:
            self._is_mine[i] = True
        self._counts = neighbour_counts(self.rows, self.cols, self._mine_cells)
        self._revealed = [False] * n
        for i in state["revealed"]:
            self._revealed[int(i)] = True
        self._flags = [False] * n
        for i in state["flags"]:
            self._flags[int(i)] = True
        self._status = str(state["status"])
        self._last_cell = int(state["last_cell"])
        self._paid = float(state.get("paid", 0.0))
        self._rebuild_caches()

    # ------------------------------------------------------------------ oracle
    def _judge(self, kind: str, cell: int) -> tuple[float, float | None, bool]:
        """Process reward of a legal move in the current state, with the acted cell's
        P(mine) and whether the posterior is degraded.

        The solver brings the posterior up to date at most once per state (the first
        question after a reveal) and then works out only what is asked: a certain-safe
        reveal usually needs nothing beyond the cell's own component.
        """
        solver = self._synced_solver()
        if solver is None:
            # Before the first reveal (the only move then) every cell is safe to open: the
            # mines avoid it.
            return self.safe_reveal_reward, 0.0, False
        if kind == "reveal" and solver.safe(cell):
            return self.safe_reveal_reward, 0.0, solver.degraded()
        num, den, degraded = solver.cell(cell)
        assert num is not None  # the cell is hidden
        if kind == "flag":
            reward = self.certain_flag_reward if num == den else self.uncertain_flag_reward
        else:
            reward = self._risky_reveal(num, self._lowest_open(solver))
        return reward, num / den, degraded

    def _risky_reveal(self, num: int, low: int) -> float:
        """The reward of revealing a cell with P(mine) > 0, given the lowest numerator among
        open cells: the lowest is the best guess only when no cell is safe (``low > 0``)."""
        return self.guess_reward if num == low else self.other_reveal_reward

    def _lowest_open(self, solver: PosteriorSolver) -> int:
        """The lowest P(mine) numerator among open (hidden, unflagged) cells."""
        if not self._flag_count:
            # With no flag, the open cells are the hidden ones.
            return solver.lowest()  # type: ignore[return-value]  # open cells exist here
        nums = solver.posterior().numerators
        return min(nums[i] for i in self._open_reveal)  # type: ignore[type-var]

    def _synced_solver(self) -> PosteriorSolver | None:
        """The posterior solver, told of every reveal so far (``None`` before the mines)."""
        solver = self._solver
        if solver is not None and self._unsynced:
            # Reveals reach the solver only when a question needs it, so a game played with
            # score_process=False never pays for it.
            solver.reveal(self._unsynced)
            self._unsynced = []
        return solver

    def _extras(self, p_mine: float | None, degraded: bool) -> dict[str, Any]:
        return {
            "oracle_degraded": degraded,
            "safe_cells_left": self._safe_total - self._revealed_count,
            "p_mine": p_mine,
        }

    # ------------------------------------------------------------------ board changes
    def _place(self, first: int) -> None:
        self._mine_cells = place_mines(self.rows, self.cols, self.mines, first, self.np_random)
        for i in self._mine_cells:
            self._is_mine[i] = True
        self._counts = neighbour_counts(self.rows, self.cols, self._mine_cells)
        self._zeros = self._zero_mask()
        self._placed = True
        self._solver = PosteriorSolver(
            self.rows, self.cols, self.mines, self._counts, self.posterior_budget
        )

    def _open(self, cell: int) -> None:
        """Reveal the safe ``cell``: a number opens only itself, a zero floods."""
        counts = self._counts
        if counts[cell]:
            opened = [cell]
            self._closed |= 1 << cell
        else:
            region = flood_mask(self.rows, self.cols, self._zeros, self._closed, cell)
            opened = cells_of(region)
            self._closed |= region
        for i in opened:
            self._revealed[i] = True
            del self._open_reveal[i]
            del self._open_flag[i]
            self._syms[i] = self._number_sym[counts[i]]
            self._dirty_rows.add(self._row_of[i])
        self._revealed_count += len(opened)
        self._unsynced += opened

    def _place_flag(self, cell: int) -> None:
        self._flags[cell] = True
        self._flag_count += 1
        self._closed |= 1 << cell
        del self._open_reveal[cell]
        del self._open_flag[cell]
        self._syms[cell] = self._flag_sym
        self._dirty_rows.add(self._row_of[cell])

    def _rebuild_caches(self) -> None:
        """Derive every incremental structure from the plain state (new episode or load)."""
        n, revealed, flags = self._n, self._revealed, self._flags
        self._revealed_count = sum(revealed)
        self._flag_count = sum(flags)
        self._closed = sum(1 << i for i in range(n) if revealed[i] or flags[i])
        self._zeros = self._zero_mask()
        open_cells = [i for i in range(n) if not revealed[i] and not flags[i]]
        # Insertion-ordered, so the listed actions stay ascending as cells leave.
        self._open_reveal = {i: self._reveal_text[i] for i in open_cells}
        self._open_flag = {i: self._flag_text[i] for i in open_cells}
        number, counts = self._number_sym, self._counts
        self._syms = [
            number[counts[i]] if revealed[i] else self._flag_sym if flags[i] else self._hidden_sym
            for i in range(n)
        ]
        self._row_text = [""] * self.rows
        self._dirty_rows = set(range(self.rows))
        self._grid = ""
        if self._status != _PLAYING:
            self._show_mines()
        self._solver: PosteriorSolver | None = None
        self._unsynced: list[int] = []
        if self._placed:
            self._solver = PosteriorSolver(
                self.rows, self.cols, self.mines, self._counts, self.posterior_budget
            )
            self._unsynced = [i for i in range(n) if revealed[i]]

    def _zero_mask(self) -> int:
        """The cells showing 0 (where a flood spreads), as a mask."""
        # Mines are left in: a mine never neighbours a 0, so the flood cannot reach one.
        return sum(compress(cell_bits(self._n), map(operator.not_, self._counts)))

    def _end(self, status: str) -> None:
        self._status = status
        self._show_mines()

    def _show_mines(self) -> None:
        """Draw the hidden mines, as a finished game shows them."""
        for i in self._mine_cells:
            if not self._revealed[i] and not self._flags[i]:
                self._syms[i] = self._mine_sym
                self._dirty_rows.add(self._row_of[i])
