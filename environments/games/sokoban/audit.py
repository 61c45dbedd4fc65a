"""What ``agentgym audit agentgym/Sokoban-v0`` reads: Sokoban's :class:`~agentgym.audit.AuditSpec`.

The default ``process_reward="progress"`` is potential-based shaping, settled at the end
(:mod:`agentgym.environments.games.shaping`), and :func:`potential` declares its potential
so the audit checks every step against it. (With ``preset="vpr"`` the process reward is
VPR's action-level verdicts, documented as not a return to maximise: that configuration
fails the shaping and soundness checks by design.)

>>> from agentgym.audit import audit_spec
>>> sorted(audit_spec("agentgym/Sokoban-v0").exploits)
['detour', 'detour-then-solve']
"""

from __future__ import annotations

from typing import Any

from agentgym.audit import AuditSpec, register_audit

from ..shaping import PROGRESS_TOTAL, settled_potential
from .exploits import EXPLOITS

__all__ = ["SPEC", "potential"]


def potential(env: Any) -> float:
    """The potential ``Phi`` whose difference each progress step pays (gamma 1).

    While the episode runs, ``Phi = progress - cost * valid_steps`` with ``progress =
    PROGRESS_TOTAL * (d0 - d) / d0`` (``d`` the shortest solution's length now, ``d0`` the
    start's) and ``cost = PROGRESS_TOTAL / (2 * max_steps)``. Only *valid* steps count: an
    invalid action pays only ``invalid_penalty`` (which the check takes off) and leaves the
    state, so it costs no step. The solving step pays ``total - phi_before - cost``, so a
    solved episode ends at ``Phi = total - cost * valid_steps``; any unsolved ending pays
    back everything paid (``-paid``, and ``paid`` is ``Phi`` before it since ``Phi`` starts
    at 0), so it ends at ``Phi = 0``. A state the oracle could not measure (its node budget
    ran out) keeps the progress where it was, as the env does.
    """
    progress = 0.0
    if not env.is_over:
        d0, left = env.start_optimal, env.optimal_moves_left()
        if d0 <= 0 or left is None or left < 0:
            progress = env._phi  # not measurable: the env keeps its potential (see _potential)
        else:
            progress = PROGRESS_TOTAL * (d0 - left) / d0
    return settled_potential(progress, max_steps=env.max_steps,
                             valid_steps=env.steps - env.invalid_actions, over=env.is_over,
                             solved=env.status == "solved")


SPEC = AuditSpec(
    # No scripted baseline plays Sokoban; the oracle plays a shortest solution.
    references=("oracle",),
    exploits=EXPLOITS,
    # Sokoban has no hidden state: every key below is a function of the board shown.
    public_info=frozenset({
        # the oracle's verdict on the last move: a shortest-path search on the shown level
        "verdict",
        # the shortest solution's length from the shown position (-1 when none is in reach)
        "optimal_moves_left",
        # printed as "Boxes on goals: k of n"
        "boxes_on_goals",
        # whether that search on the shown position ran out of its node budget
        "oracle_degraded",
        # a fixed description of the reward scheme, the same in every episode
        "process_reward",
    }),
    # success is "every box on a goal", the step whose outcome is success_reward (1.0)
    success_threshold=1.0,
    potential=potential,
    # The grammar takes one word (a direction) after an optional verb: the extremes must
    # all be read as invalid, never as a move.
    templates=("move {}", "{}"),
)

register_audit("agentgym/Sokoban-v0", SPEC)
