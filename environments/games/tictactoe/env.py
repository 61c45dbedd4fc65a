"""``agentgym/TicTacToe-v0``: tic-tac-toe against a built-in opponent, scored by exact minimax.

See :class:`TicTacToeEnv` for the rules, the action format and the reward table.
"""

from __future__ import annotations

import re
from typing import Any, ClassVar

import numpy as np

from agentgym.core import Outcome, TextEnv, check_range
from agentgym.draws import below
from agentgym.grammar import Slot, read_numbers
from agentgym.presets import apply_preset

from .config import TicTacToeConfig
from .logic import (
    EMPTY,
    OPPONENTS,
    SYMBOLS,
    WIN_SCORE,
    Board,
    O,
    X,
    board_from_moves,
    cell_name,
    check_board,
    empty_board,
    final_score,
    is_terminal,
    legal_moves,
    optimal_moves,
    other,
    play,
    to_move,
    value,
    winner,
)

__all__ = ["PRESETS", "TicTacToeEnv"]

#: ``preset="vpr"``: the VPR paper's search example (arXiv 2605.10325): the agent plays either
#: side against a strong opponent (the paper's MCTS; here exact minimax, which never loses),
#: and the process reward pays 1 for a move in the search's optimal move set, 0 otherwise.
PRESETS: dict[str, dict[str, Any]] = {
    "vpr": {
        "opponent": "optimal",
        "agent_first": "random",
        "optimal_reward": 1.0,
        "legal_reward": 0.0,
        "success_reward": 1.0,
    },
}
_OPPONENT_BLURB = {
    "random": "plays a uniformly random empty cell",
    "optimal": "plays perfectly (it never loses, so the best you can get is a draw)",
}
_ROW = Slot("row", 3, ("r", "row"))
_COL = Slot("column", 3, ("c", "col", "column"))
# The example in every message is a placeholder, so copying it is never a move.
_EXAMPLE = "ROW COL"
_FORMAT = (
    "Answer with the row and then the column of an empty cell, each from 1 to 3, as "
    f"<action>{_EXAMPLE}</action>. A cell number also works: the cells are numbered 1 to 9 "
    "left to right, top row first."
)
# "cell N" or one lone digit is a cell number 1-9 (this game's own addition to the shared
# grammar); anything else, "23" included, is read as ROW COL by agentgym.grammar.
_CELL_NUMBER = re.compile(r"cell\s*([0-9]+)|([0-9])", re.ASCII | re.IGNORECASE)
_GAME_OVER = {
    "win": "Game over: you won with three in a row.",
    "draw": "Game over: draw, the board is full.",
    "loss": "Game over: you lost, the opponent has three in a row.",
    "max_invalid": "Game over: stopped after {n} invalid actions.",
    "max_steps": "Game over: out of steps.",
}




class TicTacToeEnv(TextEnv):
    """Tic-tac-toe against a built-in opponent, with an exact minimax process verifier.

    The agent plays X (and moves first) or O; after each agent move the opponent replies
    inside the same ``step``, so every observation is the agent's turn (or the end).

    Kwargs:

    * ``opponent`` (default ``"random"``): ``"random"`` plays a uniformly random empty cell,
      so the game is winnable; ``"optimal"`` plays a uniformly random move among those that
      keep its minimax score, so it never loses and the best the agent can get is a draw.
      Both draw from the episode generator only (one raw word per move, so a snapshot holds
      the whole state).
    * ``agent_first`` (default ``True``): ``True`` = the agent is X and moves first,
      ``False`` = the opponent is X and opens, ``"random"`` = chosen per episode by the seed.
    * ``optimal_reward`` (default 0.0) and ``legal_reward`` (default -1.0): the process reward
      of a move in the oracle set and of any other legal move (``optimal_reward`` must be the
      larger). The defaults charge each move that gives up minimax value and pay nothing for
      keeping it, so a longer game never earns more process reward than a short one (with
      VPR's +1 / 0 a policy that draws games out earns +1 per extra move).
      ``success_reward`` (default 1.0): the outcome reward of a successful episode.
    * ``preset`` (default ``None``): ``"vpr"`` sets the VPR paper's search example,
      :data:`PRESETS` ``["vpr"]``: the optimal opponent, the agent's side drawn per episode,
      rewards 1 / 0 / 1. A kwarg left at its default takes the preset's value; one set to
      another value overrides it (:func:`agentgym.presets.apply_preset`).
    * ``max_steps`` (default 9), ``invalid_penalty`` (default -1.0), ``max_invalid``
      (default 3), ``reward_mode``, ``render_mode``, ``score_process``: as in
      :class:`agentgym.core.TextEnv`. An invalid action (unparseable text, a number out of
      range, an occupied cell) scores ``invalid_penalty`` and changes nothing; the
      ``max_invalid``-th one ends the episode, truncated. An episode is at most 5 moves plus
      ``max_invalid - 1`` invalid actions, so the default budget binds only when
      ``max_invalid`` is raised above 5 or ``max_steps`` is lowered.

    Actions: ``"row col"``, 1-based (``"2 3"``, ``"2,3"``, ``"(2, 3)"``, ``"r2c3"``,
    ``"row 2 col 3"``, ``"23"``: the shared :mod:`agentgym.grammar`), or a cell number 1-9
    counted left to right, top to bottom (``"6"`` or ``"cell 6"`` is ``"2 3"``). Canonical
    form (``available_actions``, :meth:`oracle_actions`): ``"r c"``.

    Process reward, from exact depth-aware minimax of the position before the move (a win
    with ``n`` marks on the board scores ``10 - n``, a loss ``-(10 - n)``, a draw 0, so a
    quicker win and a later loss are better; see :mod:`.logic`):

    * ``optimal_reward``: a move that keeps the agent's minimax score (the oracle set,
      :meth:`oracle_actions`): the quickest forced win, a move that keeps a draw, and in a
      lost position the moves that lose latest, so blocking a one-move loss is the only
      optimal move whenever it can be blocked;
    * ``legal_reward``: any other legal move;
    * ``invalid_penalty``: an invalid action (above).

    Outcome reward (only when the game ends): ``success_reward`` on success, else 0.0.
    **Success** means the agent finished with the best result it could force at its best
    moment: the game is won or drawn, and its final score (``10 - n`` for a win with ``n``
    marks, 0 for a draw) is at least the highest minimax score the agent held at any of its
    turns. Against ``"optimal"`` that is any draw (a win is impossible). Against
    ``"random"`` it means winning, and as quickly as the best position the opponent's
    blunders handed the agent allowed; a draw is a success only if the opponent never let a
    win slip. An agent that always plays a move from :meth:`oracle_actions` succeeds in
    every episode; a uniformly random agent seldom does. Measured with ``agentgym eval
    agentgym/TicTacToe-v0 --agent random --episodes 200 --seed 0 -k opponent=...
    -k agent_first=...``: the random agent succeeds in 20.5% (as X) / 33.5% (as O) of games
    against ``"random"`` and 33.0% / 5.0% against ``"optimal"`` (14.0% with
    ``preset="vpr"``); the oracle agent in 100% of each (``docs/results.json``, which
    ``tests/test_readme.py`` re-measures). A truncated episode is never a success.

    ``info["result"]`` says ``"win"``, ``"draw"``, ``"loss"``, ``"ongoing"`` or
    ``"unfinished"`` (truncated); ``info["opponent_move"]`` is the reply just played (``""``
    if none) and ``info["game_value"]`` the agent's minimax score before the action.

    >>> env = TicTacToeEnv(opponent="optimal")
    >>> obs, info = env.reset(seed=0)
    >>> env.oracle_actions()[:3]
    ['1 1', '1 2', '1 3']
    >>> env.score_actions(["2 2", "1 1", "9 9"])
    [0.0, 0.0, -1.0]
    >>> obs, reward, terminated, truncated, info = env.step("<action>2 2</action>")
    >>> reward, terminated, info["valid_action"]
    (0.0, False, True)
    """

    verifier_name: ClassVar[str] = "tictactoe-minimax"
    config_model = TicTacToeConfig
    # 2: depth-aware scores (blocking a one-move loss is the only optimal move).
    verifier_version: ClassVar[str] = "2"
    max_observation_length: ClassVar[int] = 2048
    max_action_length: ClassVar[int] = 1024

    def __init__(
        self,
        opponent: str = "random",
        agent_first: bool | str = True,
        *,
        optimal_reward: float = 0.0,
        legal_reward: float = -1.0,
        success_reward: float = 1.0,
        preset: str | None = None,
        max_steps: int = 9,
        invalid_penalty: float = -1.0,
        max_invalid: int = 3,
        reward_mode: str = "both",
        render_mode: str | None = None,
        score_process: bool = True,
    ) -> None:
        chosen = apply_preset(TicTacToeEnv, preset, PRESETS, TicTacToeConfig.pick(locals()))
        cfg = TicTacToeConfig.parse(chosen, owner="TicTacToeEnv")
        self.opponent: str = cfg.opponent
        self.agent_first: bool | str = cfg.agent_first
        self.optimal_reward: float = cfg.optimal_reward
        self.legal_reward: float = cfg.legal_reward
        self.success_reward: float = cfg.success_reward
        self.preset = cfg.preset
        # The minimax table is memoised and success is defined by minimax scores, so there is
        # no oracle work to skip when score_process is False; the base class zeroes the part.
        super().__init__(**cfg.contract())
        self._moves: list[int] = []
        self._board: Board = empty_board()
        self._agent = X
        self._secured = 0  # the best minimax score the agent has held at one of its turns
        self._stopped = ""  # "max_invalid" or "max_steps" once the episode is truncated

    @property
    def rules(self) -> str:  # type: ignore[override]
        """The game, the opponent and the action format, for the system prompt."""
        return (
            "You play tic-tac-toe on a 3x3 grid against a built-in opponent that "
            f"{_OPPONENT_BLURB[self.opponent]}. Players take turns marking an empty cell; "
            "three of your marks in a row, a column or a diagonal wins, and a full grid with "
            "no line is a draw. The opponent replies right after each of your moves; each "
            "observation shows the board, your mark (X moves first) and the empty cells. " + _FORMAT
        )

    # ------------------------------------------------------------------ hooks
    def _config(self) -> dict[str, Any]:
        return {
            "opponent": self.opponent,
            "agent_first": self.agent_first,
            "optimal_reward": self.optimal_reward,
            "legal_reward": self.legal_reward,
            "success_reward": self.success_reward,
            "preset": self.preset,
        }

    def _new_episode(self, rng: np.random.Generator, options: dict[str, Any]) -> None:
        first = self.agent_first
        if first == "random":
            first = below(rng, 2) == 0
        self._agent = X if first else O
        self._stopped = ""
        self._moves = []
        self._board = empty_board()
        if not first:
            self._push(self._opponent_reply(self._board))
        self._secured = value(self._board, self._agent)

    def _observe(self) -> str:
        me, them = SYMBOLS[self._agent], SYMBOLS[other(self._agent)]
        order = "first" if self._agent == X else "second"
        lines = [
            f"You are {me} (you move {order}); the opponent is {them}.",
            f"Legend: {me} = your mark, {them} = the opponent's mark, . = empty cell.",
            "",
            "      col 1  col 2  col 3",
        ]
        for r in range(3):
            row = "".join(f"{SYMBOLS[self._board[3 * r + c]]:^7}" for c in range(3))
            lines.append(f"row {r + 1} {row}".rstrip())
        lines.append("")
        last = self._last_opponent_move()
        lines.append(
            "Opponent's last move: none yet."
            if last is None
            else f"Opponent's last move: {cell_name(last)}."
        )
        status = self._stopped or self._status()
        if status != "ongoing":
            lines.append(_GAME_OVER[status].format(n=self.invalid_actions))
            return "\n".join(lines)
        empties = ", ".join(cell_name(c) for c in legal_moves(self._board))
        lines += [
            f"Empty cells: {empties}",
            f"Steps left: {self.steps_left}. Invalid actions left before the game stops: "
            f"{self.max_invalid - self.invalid_actions}.",
            "Your move.",
        ]
        return "\n".join(lines)

    def _legal_actions(self) -> list[str] | None:
        if self.is_over:
            return []
        return [cell_name(c) for c in legal_moves(self._board)]

    def _parse(self, action: str) -> tuple[Any, str]:
        text = action.strip().rstrip(".").strip()
        if m := _CELL_NUMBER.fullmatch(text.strip("()[]{} ")):
            number = m.group(1) or m.group(2)
            if len(number) > 1 or not 1 <= int(number) <= 9:
                return None, (
                    f"cell number {number[:10]} is out of range; cell numbers go from 1 to 9. "
                    + _FORMAT
                )
            cell = int(number) - 1
        else:
            numbers, error = read_numbers(text, (_ROW, _COL), example=_EXAMPLE)
            if numbers is None:
                return None, f"{error}, each from 1 to 3 (or a cell number 1-9)"
            row, col = numbers
            cell = 3 * (row - 1) + col - 1
        if self._board[cell] != EMPTY:
            empties = ", ".join(cell_name(c) for c in legal_moves(self._board))
            return None, (
                f"cell {cell_name(cell)} is already taken by {SYMBOLS[self._board[cell]]}; "
                f"choose an empty cell: {empties}"
            )
        return cell, ""

    def _apply(self, move: Any) -> Outcome:
        cell = int(move)
        me = self._agent
        before = value(self._board, me)
        self._push(cell)
        optimal = value(self._board, me) == before
        reply = ""
        if not is_terminal(self._board):
            opponent_cell = self._opponent_reply(self._board)
            self._push(opponent_cell)
            reply = cell_name(opponent_cell)
            if not is_terminal(self._board):
                self._secured = max(self._secured, value(self._board, me))
        info = {"result": self._status(), "opponent_move": reply, "game_value": before}
        process = self.optimal_reward if optimal else self.legal_reward
        if not is_terminal(self._board):
            return Outcome(process=process, info=info)
        score = final_score(self._board, me)
        success = score >= 0 and score >= self._secured
        return Outcome(
            process=process,
            outcome=self.success_reward if success else 0.0,
            terminated=True,
            success=success,
            info=info,
        )

    def _reset_info(self) -> dict[str, Any]:
        if self.optimal_reward > 0:
            what = (
                "verdict: action-level scores for state-group training (each move against its "
                "siblings); their episode sum grows with the game's length and is not a "
                "return to maximise"
            )
        else:
            what = "penalty: each move that gives up minimax value costs; keeping it pays 0"
        return {"process_reward": what}

    def _reject(self, error: str) -> Outcome:
        info = {
            "result": self._status(),
            "opponent_move": "",
            "game_value": value(self._board, self._agent),
        }
        return Outcome(info=info)

    def _on_end(self, out: Outcome) -> None:
        if not out.truncated:
            return
        self._stopped = out.truncated_by  # "max_invalid" or "max_steps", said by the base
        out.info["result"] = "unfinished"

    def _state_dict(self) -> dict[str, Any]:
        return {
            "moves": list(self._moves),
            "agent": SYMBOLS[self._agent],
            "secured": self._secured,
            "stopped": self._stopped,
        }

    def _load_state_dict(self, state: dict[str, Any]) -> None:
        moves = state["moves"]
        if not isinstance(moves, list) or not all(
            isinstance(c, int) and not isinstance(c, bool) for c in moves
        ):
            raise ValueError(f"moves must be a list of cell indices, got {moves!r}")
        board = check_board(board_from_moves(moves))
        if state["agent"] not in ("X", "O"):
            raise ValueError(f"agent must be 'X' or 'O', got {state['agent']!r}")
        agent = X if state["agent"] == "X" else O
        if self.agent_first in (True, False) and (agent == X) != self.agent_first:
            raise ValueError(f"agent {state['agent']} contradicts agent_first={self.agent_first}")
        if not is_terminal(board) and to_move(board) != agent:
            raise ValueError("the agent must be the player to move in an unfinished game")
        if state["stopped"] not in ("", "max_invalid", "max_steps"):
            raise ValueError(f"stopped must be '', max_invalid or max_steps: {state['stopped']!r}")
        self._agent = agent
        self._secured = check_range("secured", state["secured"], -WIN_SCORE, WIN_SCORE)
        self._stopped = state["stopped"]
        self._moves = list(moves)
        self._board = board

    def _score(self, move: Any, snapshot: bytes) -> float:
        # The same verdict as _apply (a move that keeps the minimax score), without playing it.
        return self.optimal_reward if int(move) in optimal_moves(self._board) else self.legal_reward

    # ------------------------------------------------------------------ oracle
    def oracle_actions(self) -> list[str]:
        """Canonical moves that keep the agent's minimax score, in row-major order.

        Empty once the episode is over.
        """
        self._require_started()
        if self.is_over:
            return []
        return [cell_name(c) for c in optimal_moves(self._board)]

    @property
    def board(self) -> Board:
        """The current board as a tuple of 9 cells (0 empty, 1 X, 2 O), row-major."""
        return self._board

    @property
    def agent_mark(self) -> str:
        """``"X"`` or ``"O"``: the agent's mark in this episode."""
        return SYMBOLS[self._agent]

    # ------------------------------------------------------------------ helpers
    def _opponent_reply(self, board: Board) -> int:
        """The opponent's cell; its only randomness is the episode generator."""
        return OPPONENTS[self.opponent](board, self.np_random)

    def _push(self, cell: int) -> None:
        self._board = play(self._board, cell)
        self._moves.append(cell)

    def _last_opponent_move(self) -> int | None:
        # X plays the even-indexed moves, so the opponent's parity follows the agent's mark.
        parity = 1 if self._agent == X else 0
        for i in range(len(self._moves) - 1, -1, -1):
            if i % 2 == parity:
                return self._moves[i]
        return None

    def _status(self) -> str:
        if not is_terminal(self._board):
            return "ongoing"
        w = winner(self._board)
        if w == EMPTY:
            return "draw"
        return "win" if w == self._agent else "loss"
