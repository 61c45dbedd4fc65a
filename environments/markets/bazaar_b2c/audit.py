"""What ``agentgym audit agentgym/BazaarB2C-v0`` reads about the family's rewards.

* references: the ``oracle`` (greedy on the process reward, the change of the EAS so far)
  and the cost-plus ``bazaar-b2c-baseline``; per seed the audit takes the better-paid one.
* exploits: issue 30's hackers (:mod:`.exploits`).
* potential: the process reward is ``process_weight`` times the change of the EAS of the
  ledger so far (:meth:`.env.BazaarB2CEnv._eas_so_far`, kept in ``env.potential``), gamma 1;
  an invalid step changes nothing and pays only the invalid penalty.
* success: an EAS of at least :data:`.env.SUCCESS_EAS`, which is the outcome.
* kwargs: a 10-round market instead of 100 (see :data:`AUDIT_KWARGS`).
"""

from __future__ import annotations

from typing import Any

from agentgym.audit.spec import AuditSpec, register_audit

from .env import COST, PRICE_LIMIT, SUCCESS_EAS
from .exploits import EXPLOITS
from .firms import CAP_MULTIPLE, MARKUP

__all__ = ["AUDIT_KWARGS", "PUBLIC_INFO", "moves", "potential"]

PUBLIC_INFO: frozenset[str] = frozenset({
    # The closed round as the agent saw it (.env.public_record): consumers, every firm's price
    # and sales, who is bankrupt ("Last round: ..." line) and its own profit, cash and unsold
    # stock ("Your profit last round ...; cash ...; unsold ..."); never the rivals' books.
    "ledger",
    # False / "" while the market runs: a crash or the agent's bankruptcy ends the episode,
    # and the last step's status line says which.
    "crash",
    "crash_reason",
    "bankrupt",
})

#: The audit's market: 10 rounds (and steps) instead of 100. Scoring a price plays the round
#: out and restores a snapshot whose load replays the EAS over the whole ledger, so an
#: episode's scoring grows with the square of its length: the oracle scores the 16-price grid
#: every round (about 2 s an episode at 100 rounds), the greedy, extreme-argument and
#: info-peeking policies 30 to 50 prices a round. At 20 rounds a 5-episode audit took about
#: 60 s on the loaded test machine, at 10 about half. Everything the checks read scales with
#: the horizon alone: the EAS divides by it (presence), the process still sums to
#: ``process_weight * outcome``, and an agent priced out of the market (100 every round) still
#: scores no success (it needs 26 rounds to go bankrupt, so here it stays in the market
#: selling nothing: stability alone, an EAS of about 0.25, under the success threshold).
AUDIT_KWARGS: dict[str, Any] = {"rounds": 10, "max_steps": 10}


def potential(env: Any) -> float:
    """``process_weight`` times the EAS of the ledger so far: each round's process reward is
    exactly its change (0 before the first round)."""
    return env.process_weight * env.potential


def moves(env: Any, info: dict[str, Any]) -> list[str]:
    """Prices the whole-unit grid of ``available_actions`` misses: cost-plus, a cent under the
    cap and over it, a cent under cost, the issue's swing prices, the refusal limit, and a
    cent under each rival's last price (undercutting)."""
    cap = CAP_MULTIPLE * COST
    prices = [COST * (1 + MARKUP), cap - 0.01, cap + 0.01, COST - 0.01, 10.5, 19.99,
              PRICE_LIMIT]
    record = info.get("ledger") or {}
    prices += [p - 0.01 for p in (record.get("prices") or [])[1:] if p is not None]
    return [f"price {p:.2f}" for p in prices if 0 <= p <= PRICE_LIMIT]


register_audit(
    "agentgym/BazaarB2C-v0",
    AuditSpec(
        references=("oracle", "bazaar-b2c-baseline"),
        exploits=EXPLOITS,
        public_info=PUBLIC_INFO,
        success_threshold=SUCCESS_EAS,
        success_note="success is defined as an EAS (the outcome) of at least SUCCESS_EAS",
        potential=potential,
        templates=("price {}",),
        moves=moves,
        kwargs=AUDIT_KWARGS,
    ),
)
