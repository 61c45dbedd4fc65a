"""What ``agentgym audit agentgym/Sudoku-v0`` reads: Sudoku's :class:`~agentgym.audit.AuditSpec`.

Sudoku's process reward is a per-placement verdict (+2 forced, +1 fewest candidates, +0.5
other, -1 wrong), not potential-based shaping, so no potential is declared. Every blank is
filled once and a wrong digit loses the game (by default), so only a solved episode can sum
to the oracle's return; the audit's soundness checks and search verify that.

>>> from agentgym.audit import audit_spec
>>> sorted(audit_spec("agentgym/Sudoku-v0").exploits)
['brute-force', 'guess-over-logic']
"""

from __future__ import annotations

from agentgym.audit import AuditSpec, register_audit

from .exploits import EXPLOITS

__all__ = ["SPEC"]

SPEC = AuditSpec(
    # No scripted baseline plays Sudoku; the oracle fills forced cells first.
    references=("oracle",),
    exploits=EXPLOITS,
    public_info=frozenset({
        # printed as "Empty cells: k"
        "empty_cells",
        # the kind of the last placement: "wrong" and "invalid" are printed on the "Last
        # action" line; "forced", "mrv" and "other" are functions of the board before it
        # (the shown board less the cell just written; the solution is unique, so the
        # correct digit is a function of the shown puzzle too)
        "move_kind",
    }),
    # success is "every cell filled", the step whose outcome is 1.0
    success_threshold=1.0,
    # "row column digit": three numbers the shared grammar reads (its other spellings,
    # "r3c5=7", reach the same number parser, so one form covers them).
    templates=("{} {} {}",),
)

register_audit("agentgym/Sudoku-v0", SPEC)
