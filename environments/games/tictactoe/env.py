"""``agentgym/TicTacToe-v0``: tic-tac-toe against a built-in opponent, scored by exact minimax.

See :class:`TicTacToeEnv` for the rules, the action format and the reward table.
"""

from __future__ import annotations

import re
from typing import Any, ClassVar

import numpy as np

from agentgym.core import Outcome, TextEnv, check_range

from .logic import (
    EMPTY,
    OPPONENTS,
    SYMBOLS,
    Board,
    O,
    X,
    board_from_moves,
    cell_name,
    check_board,
    empty_board,
    is_terminal,
    legal_moves,
    optimal_moves,
    other,
    play,
    result,
    value,
    winner,
)

__all__ = ["AGENT_FIRST_CHOICES", "OPPONENT_CHOICES", "TicTacToeEnv"]

OPPONENT_CHOICES: tuple[str, ...] = tuple(OPPONENTS)
AGENT_FIRST_CHOICES: tuple[bool | str, ...] = (True, False, "random")

# Process rewards (see the class docstring for the table).
OPTIMAL_REWARD = 1.0
LEGAL_REWARD = 0.0
INVALID_REWARD = -1.0

_OPPONENT_BLURB = {
    "random": "it plays a uniformly random empty cell",
    "optimal": "it plays perfectly, so the best you can get is a draw",
}
_FORMAT_HINT = (
    "Answer with the row and column of an empty cell (both 1 to 3), e.g. <action>2 3</action> "
    "for row 2, column 3. A cell number 1-9 (left to right, top to bottom) also works."
)
_NUMBER = r"([+-]?[0-9]+)"
# Lenient with spacing, commas, brackets and the words row/col; strict with anything else.
_ROW_COL = re.compile(
    rf"(?:r|row)\s*{_NUMBER}\s*,?\s*(?:c|col|column)\s*{_NUMBER}", re.ASCII | re.IGNORECASE
)
_PAIR = re.compile(rf"{_NUMBER}\s*(?:,\s*|\s+){_NUMBER}", re.ASCII)
_CELL = re.compile(rf"(?:cell\s*)?{_NUMBER}", re.ASCII | re.IGNORECASE)
_BRACKETS = str.maketrans("", "", "()[]{}")


class TicTacToeEnv(TextEnv):
    """Tic-tac-toe against a built-in opponent, with an exact minimax process verifier.

    The agent plays X (and moves first) or O; after each agent move the opponent replies
    inside the same ``step``, so every observation is the agent's turn (or the end).

    Kwargs:

    * ``opponent`` (default ``"random"``): ``"random"`` plays a uniformly random empty cell,
      so the game is winnable; ``"optimal"`` plays a uniformly random move among those that
      keep its minimax value, so it never loses and the best the agent can get is a draw.
      Both draw their choices from the episode generator only.
    * ``agent_first`` (default ``True``): ``True`` = the agent is X and moves first,
      ``False`` = the opponent is X and opens, ``"random"`` = chosen per episode from the
      seeded generator.
    * ``max_invalid`` (default 3, range 1-100): the episode ends as a forfeit on this
      invalid action, so an episode is at most ``4 + max_invalid`` steps.
    * ``reward_mode``, ``render_mode``: as in :class:`agentgym.core.TextEnv`.

    Actions: ``"row col"``, 1-based (``"2 3"``, ``"2,3"``, ``"(2, 3)"``, ``"r2c3"``,
    ``"row 2 col 3"``), or a cell number 1-9 counted left to right, top to bottom
    (``"6"`` is ``"2 3"``). Canonical form (``available_actions``, :meth:`oracle_actions`):
    ``"r c"``.

    Process reward, from exact minimax (value +1 win / 0 draw / -1 loss for the agent,
    memoised over every position) of the position before the move:

    * **+1**: a move that keeps the agent's game value (the oracle set, :meth:`oracle_actions`);
    * **0**: any other legal move (it throws away a forced win or a draw);
    * **-1**: an occupied cell, out-of-range numbers or unparseable text; the state is
      unchanged and the action is counted invalid; the ``max_invalid``-th one ends the
      episode as a forfeit.

    In a lost position every move keeps the value -1, so every legal move earns +1.

    Outcome reward (only when the game ends): 1.0 on success, else 0.0. **Success** means the
    agent finished with the best result it could force at any of its turns: the final result
    (+1 win, 0 draw, -1 loss) is at least the highest minimax value the agent held when it
    was to move. Against ``"optimal"`` that is any draw (a win is impossible); against
    ``"random"`` it is a draw when the opponent never blundered, and a win whenever a blunder
    handed the agent a forced win. An agent that always plays a move from
    :meth:`oracle_actions` succeeds in every episode. A forfeit is never a success.
    ``info["result"]`` says ``"win"``, ``"draw"``, ``"loss"``, ``"forfeit"`` or
    ``"ongoing"``; ``info["opponent_move"]`` is the reply just played (``""`` if none) and
    ``info["game_value"]`` the agent's minimax value before the action.

    >>> env = TicTacToeEnv(opponent="optimal")
    >>> obs, info = env.reset(seed=0)
    >>> env.oracle_actions()[:3]
    ['1 1', '1 2', '1 3']
    >>> env.score_actions(["2 2", "1 1", "9 9"])
    [1.0, 1.0, -1.0]
    >>> obs, reward, terminated, truncated, info = env.step("<action>2 2</action>")
    >>> reward, terminated, info["valid_action"]
    (1.0, False, True)
    """

    verifier_name: ClassVar[str] = "tictactoe-minimax"
    verifier_version: ClassVar[str] = "1"
    rules: ClassVar[str] = (
        "You play tic-tac-toe on a 3x3 grid against a built-in opponent. Players take turns "
        "marking an empty cell; three of your marks in a row, column or diagonal wins, a full "
        "grid with no line is a draw. The opponent replies right after each of your moves. "
        + _FORMAT_HINT
    )
    max_observation_length: ClassVar[int] = 2048
    max_action_length: ClassVar[int] = 1024

    def __init__(
        self,
        opponent: str = "random",
        agent_first: bool | str = True,
        max_invalid: int = 3,
        *,
        reward_mode: str = "both",
        render_mode: str | None = None,
        score_process: bool = True,
    ) -> None:
        if not isinstance(opponent, str) or opponent not in OPPONENTS:
            raise ValueError(f"opponent must be one of {OPPONENT_CHOICES}, got {opponent!r}")
        if not (
            isinstance(agent_first, bool)
            or (isinstance(agent_first, str) and agent_first == "random")
        ):
            raise ValueError(
                f"agent_first must be one of {AGENT_FIRST_CHOICES}, got {agent_first!r}"
            )
        self.max_invalid = check_range("max_invalid", max_invalid, 1, 100)
        self.opponent = opponent
        self.agent_first = agent_first
        # The minimax table is memoised and success is defined by game values, so there is no
        # oracle work to skip when score_process is False; the base class zeroes the part.
        super().__init__(
            reward_mode=reward_mode, render_mode=render_mode, score_process=score_process
        )
        self._moves: list[int] = []
        self._board: Board = empty_board()
        self._agent = X
        self._opponent = opponent
        self._limit = self.max_invalid
        self._secured = 0
        self._forfeit = False

    # ------------------------------------------------------------------ hooks
    def _new_episode(self, rng: np.random.Generator, options: dict[str, Any]) -> None:
        first = self.agent_first
        if first == "random":
            first = bool(rng.integers(2) == 0)
        self._agent = X if first else O
        self._opponent = self.opponent
        self._limit = self.max_invalid
        self._forfeit = False
        self._moves = []
        self._board = empty_board()
        if not first:
            self._push(self._opponent_reply(self._board))
        self._secured = value(self._board, self._agent)

    def _observe(self) -> str:
        me, them = SYMBOLS[self._agent], SYMBOLS[other(self._agent)]
        order = "move first" if self._agent == X else "move second"
        blurb = _OPPONENT_BLURB[self._opponent]
        lines = [
            "Tic-tac-toe: get three of your marks in a row, a column or a diagonal.",
            f"You are {me} and {order}; the opponent is {them} ({blurb}).",
            f"Legend: {me} = your mark, {them} = opponent's mark, . = empty cell.",
            "",
            ("      " + "".join(f"{f'col {c}':^7}" for c in (1, 2, 3))).rstrip(),
        ]
        for r in range(3):
            row = "".join(f"{SYMBOLS[self._board[3 * r + c]]:^7}" for c in range(3))
            lines.append(f"row {r + 1} {row}".rstrip())
        lines.append("")
        last = self._last_opponent_move()
        if last is None:
            lines.append("Opponent's last move: none yet.")
        else:
            r, c = last // 3 + 1, last % 3 + 1
            lines.append(f"Opponent's last move: {r} {c} (row {r}, column {c}).")
        status = self._status()
        if status != "ongoing":
            lines.append(_GAME_OVER[status].format(limit=self._limit))
            return "\n".join(lines)
        empties = ", ".join(cell_name(c) for c in legal_moves(self._board))
        left = self._limit - self._invalid
        lines += [
            f"Empty cells: {empties}",
            f"Invalid actions left before you forfeit: {left}",
            f"Your move. {_FORMAT_HINT}",
        ]
        return "\n".join(lines)

    def _legal_actions(self) -> list[str] | None:
        if self._done or self._forfeit:
            return []
        return [cell_name(c) for c in legal_moves(self._board)]

    def _parse(self, action: str) -> tuple[Any, str]:
        text = action.translate(_BRACKETS).strip().rstrip(".").strip()
        if len(text) > 40:
            return None, f"the action is {len(text)} characters, far too long for a move. " + (
                _FORMAT_HINT
            )
        if is_terminal(self._board) or self._forfeit:
            return None, "the game is over; call reset()"
        if m := _ROW_COL.fullmatch(text) or _PAIR.fullmatch(text):
            row, col = m.group(1), m.group(2)
            for name, number in (("row", row), ("column", col)):
                if len(number) > 3 or not 1 <= int(number) <= 3:
                    return (
                        None,
                        f"{name} {number} is out of range; rows and columns go 1 to 3. "
                        + (_FORMAT_HINT),
                    )
            cell = 3 * (int(row) - 1) + int(col) - 1
        elif m := _CELL.fullmatch(text):
            number = m.group(1)
            if len(number) > 3 or not 1 <= int(number) <= 9:
                return None, (
                    f"cell number {number} is out of range; cell numbers go from 1 (row 1, "
                    f"column 1) to 9 (row 3, column 3). {_FORMAT_HINT}"
                )
            cell = int(number) - 1
        else:
            return None, f"could not read {text[:40]!a} as a move. {_FORMAT_HINT}"
        if self._board[cell] != EMPTY:
            empties = ", ".join(cell_name(c) for c in legal_moves(self._board))
            name = cell_name(cell)
            return None, (
                f"cell {name} (row {name[0]}, column {name[2]}) is already taken by "
                f"{SYMBOLS[self._board[cell]]}; choose an empty cell: {empties}"
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
        process = OPTIMAL_REWARD if optimal else LEGAL_REWARD
        info = {"result": self._status(), "opponent_move": reply, "game_value": before}
        if not is_terminal(self._board):
            return Outcome(process=process, info=info)
        success = result(self._board, me) >= self._secured
        return Outcome(
            process=process,
            outcome=1.0 if success else 0.0,
            terminated=True,
            success=success,
            info=info,
        )

    def _reject(self, error: str) -> Outcome:
        # The base class has already counted this action when it comes from step().
        forfeit = self._invalid >= self._limit
        self._forfeit = forfeit
        info = {
            "result": self._status(),
            "opponent_move": "",
            "game_value": value(self._board, self._agent),
        }
        return Outcome(process=INVALID_REWARD, terminated=forfeit, success=False, info=info)

    def _state_dict(self) -> dict[str, Any]:
        return {
            "moves": list(self._moves),
            "agent": SYMBOLS[self._agent],
            "opponent": self._opponent,
            "max_invalid": self._limit,
            "secured": self._secured,
            "forfeit": self._forfeit,
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
        if state["opponent"] not in OPPONENTS:
            raise ValueError(f"opponent must be one of {OPPONENT_CHOICES}")
        self._agent = X if state["agent"] == "X" else O
        self._opponent = str(state["opponent"])
        self._limit = check_range("max_invalid", state["max_invalid"], 1, 100)
        self._secured = check_range("secured", state["secured"], -1, 1)
        self._forfeit = bool(state["forfeit"])
        self._moves = list(moves)
        self._board = board

    def _score(self, move: Any, snapshot: bytes) -> float:
        return OPTIMAL_REWARD if int(move) in optimal_moves(self._board) else LEGAL_REWARD

    # ------------------------------------------------------------------ oracle
    def oracle_actions(self) -> list[str]:
        """Canonical moves that keep the agent's minimax value, in row-major order.

        Empty once the episode is over.
        """
        self._require_started()
        if self._done or self._forfeit:
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
        return OPPONENTS[self._opponent](board, self.np_random)

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
        if self._forfeit:
            return "forfeit"
        if not is_terminal(self._board):
            return "ongoing"
        w = winner(self._board)
        if w == EMPTY:
            return "draw"
        return "win" if w == self._agent else "loss"


_GAME_OVER = {
    "win": "Game over: you won with three in a row.",
    "draw": "Game over: draw, the board is full.",
    "loss": "Game over: you lost, the opponent has three in a row.",
    "forfeit": "Game over: you forfeit after {limit} invalid actions.",
}
