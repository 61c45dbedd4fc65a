"""What ``agentgym audit agentgym/Negotiation-v0`` reads about the family's rewards.

* references: the ``oracle`` (greedy on the offer checks; it never aims for a deal) and the
  ``negotiation-fair`` baseline (splits the difference; far stronger on the outcome). Per seed
  the audit takes the better-paid one.
* exploits: issue 30's hackers (:mod:`.exploits`).
* public info: every key the env puts in ``info`` during the talks is what the observation
  shows or what the agent can work out from it (see :data:`PUBLIC_INFO`); the hidden values
  (the other side's value, ``zopa``, the opponent, the share) come only with the last step.
* success: see :data:`SUCCESS_NOTE`.
* potential: the process reward is shaping with gamma 1 on
  ``NegotiationEnv.process_potential`` (``process_weight`` times the mean check score of the
  agent's offers and accepts so far), so the audit checks every step against
  :func:`potential` (issue 34: a fixed reward per offer paid for longer talks).
"""

from __future__ import annotations

from typing import Any

from agentgym.audit.spec import AuditSpec, register_audit

from .exploits import EXPLOITS
from .logic import MAX_PRICE

__all__ = ["PUBLIC_INFO", "SUCCESS_NOTE", "moves", "potential"]

PUBLIC_INFO: frozenset[str] = frozenset({
    "role",  # "You are the buyer." (first line of every observation)
    "value",  # "Your private budget: 40." (the agent's own value, same line)
    # Binding offers made so far: the observation's "Round r of N" is this plus one (capped at
    # N), and the "Offers so far" ledger lists each of them.
    "round",
    "standing_offer",  # "Offer on the table: 57.5." (None is shown as "none")
    "deal",  # False until the step that ends the talks ("deal" is in that status line)
    "price",  # None until a deal; the deal step's status says "deal" at that price
    # The checks of the action just scored: "rational" compares its price with the agent's
    # own value, "consistent" with its own earlier offers, both in the observation.
    "checks",
})

#: Why the threshold is 0: :func:`.logic.deal_success` makes success "walked away rightly"
#: when there is no zone of agreement, and no deal pays outcome 0 (there is no surplus to
#: keep). With a zone, success is a deal without violation keeping at least
#: ``logic.SUCCESS_SHARE`` (0.15) of the surplus, which is the episode's outcome: the family
#: test ``test_negotiation_success_keeps_the_success_share`` checks that bound on every
#: audited episode with a zone, so success does not mean "any deal".
SUCCESS_NOTE = (
    "success without a zone of agreement is walking away (outcome 0); with one, a deal "
    "keeping >= 0.15 of the surplus (outcome >= 0.15, tested per episode by the family)"
)


def potential(env: Any) -> float:
    """The shaping potential the step pays the change of: the env's
    :attr:`~.env.NegotiationEnv.process_potential`, or 0 with ``score_process=False`` (the
    step then pays no process reward)."""
    return float(env.process_potential) if env.score_process else 0.0


def moves(env: Any, info: dict[str, Any]) -> list[str]:
    """Offers the price grid of ``available_actions`` misses: at the agent's own value, a
    cent inside and outside it, at and around the counter-offer on the table, halfway to it,
    and the top of the accepted range."""
    if env.is_over:
        return []
    value = float(info.get("value") or 0)
    prices = [value, value - 0.01, value + 0.01, MAX_PRICE]
    standing = info.get("standing_offer")
    if standing is not None:
        prices += [standing, standing - 0.01, standing + 0.01, (standing + value) / 2]
    return [f"offer({p:g})" for p in prices if 0 <= p <= MAX_PRICE]


register_audit(
    "agentgym/Negotiation-v0",
    AuditSpec(
        references=("oracle", "negotiation-fair"),
        exploits=EXPLOITS,
        public_info=PUBLIC_INFO,
        success_threshold=0.0,
        success_note=SUCCESS_NOTE,
        potential=potential,
        gamma=lambda env: 1.0,
        templates=("offer({})",),
        moves=moves,
        stop_actions=("reject",),
    ),
)
