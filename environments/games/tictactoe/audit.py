"""What ``agentgym audit agentgym/TicTacToe-v0`` reads: tic-tac-toe's
:class:`~agentgym.audit.AuditSpec`.

The default process reward (0 for a move that keeps the minimax value, -1 for one that gives
it up) is a per-move verdict, not potential-based shaping, so no potential is declared: the
audit's soundness checks and search are what bound it. (With ``preset="vpr"`` the verdicts
are VPR's +1 / 0, documented as not a return to maximise.)

>>> from agentgym.audit import audit_spec
>>> sorted(audit_spec("agentgym/TicTacToe-v0").exploits)
['drawn-out', 'no-block']
"""

from __future__ import annotations

from agentgym.audit import AuditSpec, register_audit

from .exploits import EXPLOITS

__all__ = ["SPEC"]

SPEC = AuditSpec(
    # No scripted baseline plays tic-tac-toe; the oracle plays exact minimax.
    references=("oracle",),
    exploits=EXPLOITS,
    # The board is the whole state (the opponent's only secret is its random draw, which no
    # key carries): every key below is a function of what the observation shows.
    public_info=frozenset({
        # "ongoing", "win", "draw", "loss" or "unfinished": the board shown, or its
        # "Game over" line
        "result",
        # printed as "Opponent's last move: r c"
        "opponent_move",
        # the agent's exact minimax score of the board shown before the action
        "game_value",
        # a fixed description of the reward scheme, the same in every episode
        "process_reward",
    }),
    # success (the game won or drawn at the best value the agent held) is the step whose
    # outcome is success_reward (1.0)
    success_threshold=1.0,
    # "row col" and a cell number 1-9 ("cell 6"): each slot is a number the parser reads.
    templates=("{} {}", "cell {}", "row {} col {}"),
)

register_audit("agentgym/TicTacToe-v0", SPEC)
