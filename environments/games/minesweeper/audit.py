"""What ``agentgym audit agentgym/Minesweeper-v0`` reads: Minesweeper's
:class:`~agentgym.audit.AuditSpec`.

The default ``process_reward="progress"`` is potential-based shaping, settled at the end
(:mod:`agentgym.environments.games.shaping`), and :func:`potential` declares its potential
so the audit checks every step against it. (With ``preset="vpr"`` the process reward is
VPR's action-level verdicts, documented as not a return to maximise: that configuration
fails the shaping and soundness checks by design.)

The generic exploits may beat the oracle's success rate here: ``score_actions`` is the exact
step reward, and what a reveal pays depends on the hidden mines, so a policy that asks it
steps around them (``hidden_information``; see the README). That is a better-informed
solver, not a paid failure, and the soundness check lets it pass.

>>> from agentgym.audit import audit_spec
>>> sorted(audit_spec("agentgym/Minesweeper-v0").exploits)
['trickle-and-flag', 'trickle-then-win']
"""

from __future__ import annotations

from typing import Any

from agentgym.audit import AuditSpec, register_audit

from ..shaping import PROGRESS_TOTAL, settled_potential
from .exploits import EXPLOITS

__all__ = ["SPEC", "potential"]


def potential(env: Any) -> float:
    """The potential ``Phi`` whose difference each progress step pays (gamma 1).

    While the episode runs, ``Phi = PROGRESS_TOTAL * revealed / safe_total - cost *
    valid_steps`` with ``cost = PROGRESS_TOTAL / (2 * max_steps)``: a reveal pays the share
    of safe cells it opened less the cost, a flag only the cost. Only *valid* steps count: an
    invalid action pays only ``invalid_penalty`` (which the check takes off) and changes
    nothing, so it costs no step. The winning reveal pays ``total - phi_before - cost``, so
    a won episode ends at ``Phi = total - cost * valid_steps``; every other ending (a mine, a
    wrong flag, the step or invalid budget) pays back everything paid, which is ``Phi``
    before it since ``Phi`` starts at 0, so it ends at ``Phi = 0``.
    """
    progress = PROGRESS_TOTAL * env._revealed_count / env._safe_total
    return settled_potential(progress, max_steps=env.max_steps,
                             valid_steps=env.steps - env.invalid_actions, over=env.is_over,
                             solved=env._status == "won")


SPEC = AuditSpec(
    # No scripted baseline plays Minesweeper; the oracle reads only what the agent sees.
    references=("oracle",),
    exploits=EXPLOITS,
    public_info=frozenset({
        # P(mine) of the acted cell, by the exact posterior of the board shown before the
        # action (the mines themselves never reach info before the end)
        "p_mine",
        # printed as "Safe cells left to reveal: k"
        "safe_cells_left",
        # whether counting the shown board's frontier ran out of posterior_budget: a
        # function of the shown board and the kwargs
        "oracle_degraded",
        # a fixed description of the reward scheme, the same in every episode
        "process_reward",
    }),
    # success is "every safe cell revealed", the step whose outcome is win_reward (1.0)
    success_threshold=1.0,
    potential=potential,
    # (available_actions lists every legal reveal and flag, so no extra moves are needed)
    templates=("reveal {} {}", "flag {} {}"),
)

register_audit("agentgym/Minesweeper-v0", SPEC)
