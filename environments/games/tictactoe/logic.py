"""Tic-tac-toe maths: boards, the winner, exact depth-aware minimax and the opponents.

A board is a tuple of 9 ints in row-major order (cell ``0`` is row 1 column 1, cell ``8`` is
row 3 column 3) holding :data:`EMPTY`, :data:`X` or :data:`O`. X always moves first, so the
player to move is read off the counts of marks. Everything here is a pure function of its
arguments; the only randomness is the :class:`numpy.random.Generator` the opponents receive,
read through :mod:`agentgym.draws` (one raw word per move).

Scores prefer a quicker win and a later loss: a game won with ``n`` marks on the board scores
``WIN_SCORE - n`` for the winner and ``-(WIN_SCORE - n)`` for the loser, a draw 0. A win
needs at least 5 marks, so every win scores 1 to 5 and every loss -1 to -5; the sign alone is
the game-theoretic result. Without the depth every move of a lost position would score the
same, and failing to block a one-move loss would count as optimal.

>>> board = board_from_string("XX. OO. ...")
>>> winner(board), to_move(board)
(0, 1)
>>> value(board, X), [cell_name(c) for c in optimal_moves(board)]
(5, ['1 3'])
>>> value(empty_board(), X)
0
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache

import numpy as np

from agentgym.draws import pick

EMPTY: int = 0
X: int = 1
O: int = 2  # noqa: E741 - the letter is the game's own name for the mark

Board = tuple[int, ...]

# The 8 winning lines as cell triples.
LINES: tuple[tuple[int, int, int], ...] = (
    (0, 1, 2),
    (3, 4, 5),
    (6, 7, 8),
    (0, 3, 6),
    (1, 4, 7),
    (2, 5, 8),
    (0, 4, 8),
    (2, 4, 6),
)

SYMBOLS: dict[int, str] = {EMPTY: ".", X: "X", O: "O"}

#: A win with ``n`` marks on the board scores ``WIN_SCORE - n`` (see the module docstring).
WIN_SCORE: int = 10

__all__ = [
    "EMPTY",
    "LINES",
    "OPPONENTS",
    "SYMBOLS",
    "WIN_SCORE",
    "Board",
    "O",
    "X",
    "board_from_moves",
    "board_from_string",
    "board_to_string",
    "cell_name",
    "check_board",
    "empty_board",
    "final_score",
    "is_terminal",
    "legal_moves",
    "negamax",
    "optimal_moves",
    "optimal_opponent",
    "other",
    "play",
    "random_opponent",
    "result",
    "to_move",
    "value",
    "winner",
]


def empty_board() -> Board:
    """The starting position.

    >>> empty_board()
    (0, 0, 0, 0, 0, 0, 0, 0, 0)
    """
    return (EMPTY,) * 9


def other(player: int) -> int:
    """The opponent of ``player``.

    >>> other(X) == O
    True
    """
    return O if player == X else X


def board_from_string(text: str) -> Board:
    """Build a board from 9 symbols ``X``, ``O`` and ``.``; whitespace and ``/`` are ignored.

    >>> board_from_string("X.. .O. ..X")
    (1, 0, 0, 0, 2, 0, 0, 0, 1)
    """
    marks = {".": EMPTY, "X": X, "O": O}
    cleaned = [ch for ch in text.upper() if ch not in " \t\n/|"]
    if len(cleaned) != 9 or any(ch not in marks for ch in cleaned):
        raise ValueError(f"a board is 9 symbols from 'X', 'O', '.', got {text!r}")
    return tuple(marks[ch] for ch in cleaned)


def board_to_string(board: Board) -> str:
    """The inverse of :func:`board_from_string`, rows separated by ``/``.

    >>> board_to_string((1, 0, 0, 0, 2, 0, 0, 0, 1))
    'X../.O./..X'
    """
    symbols = "".join(SYMBOLS[c] for c in board)
    return "/".join(symbols[i : i + 3] for i in (0, 3, 6))


def board_from_moves(moves: list[int] | tuple[int, ...]) -> Board:
    """Play ``moves`` (cells, X first, alternating) from the empty board.

    >>> board_to_string(board_from_moves([4, 0, 8]))
    'O../.X./..X'
    """
    board = empty_board()
    for cell in moves:
        board = play(board, cell)
    return board


def cell_name(cell: int) -> str:
    """The canonical action for a cell index: ``"row col"``, both 1-based.

    >>> cell_name(5)
    '2 3'
    """
    return f"{cell // 3 + 1} {cell % 3 + 1}"


def check_board(board: Board) -> Board:
    """Return ``board`` if it can arise in a real game, else raise ``ValueError``.

    >>> check_board(board_from_string("OO. ... ..."))
    Traceback (most recent call last):
    ...
    ValueError: O has 2 marks and X has 0; X moves first, so X has as many marks as O or one more
    """
    if len(board) != 9 or any(c not in (EMPTY, X, O) for c in board):
        raise ValueError(f"a board is 9 cells of 0, 1 or 2, got {board!r}")
    nx, no = board.count(X), board.count(O)
    if nx - no not in (0, 1):
        raise ValueError(
            f"O has {no} marks and X has {nx}; X moves first, so X has as many marks as O "
            "or one more"
        )
    x_won = any(board[a] == board[b] == board[c] == X for a, b, c in LINES)
    o_won = any(board[a] == board[b] == board[c] == O for a, b, c in LINES)
    # A finished game freezes the board, so only the last mover can own a line.
    if (x_won and nx == no) or (o_won and nx != no):
        raise ValueError("a player has three in a row but the game went on after it")
    return board


def winner(board: Board) -> int:
    """``X`` or ``O`` if that player has three in a row, else ``EMPTY`` (0).

    >>> winner(board_from_string("XXX OO. ..."))
    1
    >>> winner(board_from_string("X.O .XO ..O"))
    2
    >>> winner(empty_board())
    0
    """
    for a, b, c in LINES:
        if board[a] != EMPTY and board[a] == board[b] == board[c]:
            return board[a]
    return EMPTY


def to_move(board: Board) -> int:
    """The player whose turn it is: X on equal counts (X moves first), else O.

    >>> to_move(board_from_string("X.. ... ..."))
    2
    """
    return X if board.count(X) == board.count(O) else O


def is_terminal(board: Board) -> bool:
    """True when somebody has won or the board is full.

    >>> is_terminal(board_from_string("XOX XOO OXX"))
    True
    """
    return winner(board) != EMPTY or EMPTY not in board


def legal_moves(board: Board) -> list[int]:
    """Empty cells in ascending order; none once the game is over.

    >>> legal_moves(board_from_string("XOX XOO OX."))
    [8]
    >>> legal_moves(board_from_string("XXX OO. ..."))
    []
    """
    if winner(board) != EMPTY:
        return []
    return [i for i, c in enumerate(board) if c == EMPTY]


def play(board: Board, cell: int) -> Board:
    """The board after the player to move marks ``cell``.

    >>> play(empty_board(), 4)
    (0, 0, 0, 0, 1, 0, 0, 0, 0)
    """
    if not 0 <= cell < 9:
        raise ValueError(f"cell must be in [0, 8], got {cell}")
    if board[cell] != EMPTY:
        raise ValueError(f"cell {cell_name(cell)} is already taken")
    if winner(board) != EMPTY:
        raise ValueError("the game is already won")
    return _place(board, cell, to_move(board))


def _place(board: Board, cell: int, mark: int) -> Board:
    return (*board[:cell], mark, *board[cell + 1 :])


def result(board: Board, player: int) -> int:
    """Final score of a finished game for ``player``: +1 win, 0 draw, -1 loss.

    >>> result(board_from_string("XXX OO. ..."), O)
    -1
    """
    w = winner(board)
    if w == EMPTY:
        return 0
    return 1 if w == player else -1


def final_score(board: Board, player: int) -> int:
    """Depth-aware score of a finished game for ``player``: a win with ``n`` marks on the board
    scores ``WIN_SCORE - n``, a loss ``-(WIN_SCORE - n)``, a draw 0.

    >>> won = board_from_string("XXX OO. ...")
    >>> final_score(won, X), final_score(won, O)
    (5, -5)
    """
    w = winner(board)
    if w == EMPTY:
        return 0
    score = WIN_SCORE - (9 - board.count(EMPTY))
    return score if w == player else -score


@cache
def negamax(board: Board) -> int:
    """Depth-aware score for the player to move under perfect play (see :func:`final_score`).

    Memoised on the board, so the whole game (5,478 reachable positions, well under the
    3^9 = 19,683 possible cell assignments) is solved once per process in milliseconds.
    The marks on the board fix the depth, so the score needs nothing but the board.

    >>> negamax(empty_board())
    0
    >>> negamax(board_from_string("XX. OO. ..."))  # X wins now, with 5 marks
    5
    >>> negamax(board_from_string("XX. .O. ..."))  # O must block 1 3, then it is a draw
    0
    >>> negamax(board_from_string("XO. .X. ..."))  # O blocks 3 3, X forks, wins on move 7
    -3
    """
    if is_terminal(board):
        return final_score(board, to_move(board))
    mark = to_move(board)
    return max(-negamax(_place(board, cell, mark)) for cell in legal_moves(board))


def value(board: Board, player: int) -> int:
    """Depth-aware score of ``board`` for ``player`` (either side) under perfect play.

    Positive: a forced win (5 = winning now as X on move 5); 0: a draw; negative: a loss.

    >>> value(board_from_string("XX. OO. ..."), O)
    -5
    """
    v = negamax(board)
    return v if to_move(board) == player else -v


def optimal_moves(board: Board) -> list[int]:
    """Cells whose move keeps the mover's depth-aware score, ascending; ``[]`` if it is over.

    In a won position these are the quickest wins; in a lost one, the moves that lose latest,
    so blocking a one-move loss is the only optimal move whenever one block is possible.

    >>> optimal_moves(board_from_string("X.. ... ..."))
    [4]
    >>> optimal_moves(board_from_string("XO. .X. ..."))  # O is lost but must still block
    [8]
    """
    return list(_optimal_moves(board))


@cache
def _optimal_moves(board: Board) -> tuple[int, ...]:
    # Memoised like negamax: the oracle asks for the same position once per scored action,
    # which was most of the cost of score_actions (benchmarks/test_bench_tictactoe.py).
    if is_terminal(board):
        return ()
    target = negamax(board)
    mark = to_move(board)
    return tuple(c for c in legal_moves(board) if -negamax(_place(board, c, mark)) == target)


def random_opponent(board: Board, rng: np.random.Generator) -> int:
    """A uniformly random empty cell (one raw word from ``rng``, via :func:`agentgym.draws.pick`).

    >>> random_opponent(board_from_string("XOX OXO OX."), np.random.default_rng(0))
    8
    """
    moves = legal_moves(board)
    if not moves:
        raise ValueError("no legal move: the game is over")
    return pick(rng, moves)


def optimal_opponent(board: Board, rng: np.random.Generator) -> int:
    """A uniformly random cell among the score-keeping moves (one raw word from ``rng``).

    It never loses, takes the quickest win it has, and ties are broken by the draw.

    >>> optimal_opponent(board_from_string("XX. OO. ..."), np.random.default_rng(0))
    2
    """
    moves = optimal_moves(board)
    if not moves:
        raise ValueError("no legal move: the game is over")
    return pick(rng, moves)


OPPONENTS: dict[str, Callable[[Board, np.random.Generator], int]] = {
    "random": random_opponent,
    "optimal": optimal_opponent,
}
