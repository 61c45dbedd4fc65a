"""What ``agentgym audit agentgym/BazaarC2C-v0`` reads about the family's rewards.

* references: the ``oracle`` (greedy on the ground-truth process reward: it flags exactly
  the sybils' listings) and the evidence-reading ``bazaar-c2c-baseline``; per seed the audit
  takes the better-paid one.
* exploits: issue 30's guardian and seller hackers (:mod:`.exploits`). The id's default is
  the guardian (``role="buyer"``); ``-k role=seller`` audits the seller seat, where the
  overclaiming sellers bite.
* success: the outcome is 1 on every success, in both roles (see :data:`SUCCESS_NOTE`).
* no potential: the guardian's process reward pays each action's ground-truth worth, the
  seller's each round's credited profit; neither is declared as shaping.
* kwargs: a 2-round market instead of 4 (see :data:`AUDIT_KWARGS`).
"""

from __future__ import annotations

from typing import Any

from agentgym.audit.spec import AuditSpec, register_audit

from .env import MAX_PRICE
from .exploits import EXPLOITS
from .market import MISREPRESENT_TOLERANCE, VALUE_SCALE

__all__ = ["AUDIT_KWARGS", "PUBLIC_INFO", "SUCCESS_NOTE", "moves"]

PUBLIC_INFO: frozenset[str] = frozenset({
    # The seat the agent plays, fixed by the env's kwargs and named in its system prompt
    # (rules: "You are the guardian buyer" / "You are a seller"); a seller's observation also
    # shows its item.
    "role",
    "round",  # "Round r of N." (first line)
    # The round's listings as any buyer sees them (.env.public_view): every field is on the
    # listing's line of the observation, the quality signal only once inspected
    # ("| inspected: 0.41").
    "listings",
    # The closed rounds as the agent saw them close (.market.public_line): the ids the other
    # buyers bought ("Round over: other buyers bought L08, L09."), how many listings it
    # flagged (its own count; the running total is on the "So far" line) and, as a seller,
    # its own listing's fate ("Your listing Y01 was sold"). Never frauds or right flags.
    "ledger",
    "event",  # what the last action did: the observation's first line, verbatim
    # The seller's own item: "Your item this round: true quality 0.62 (worth 62.00), your
    # cost 31.00." (empty once the market closes).
    "item",
})

#: The audit's market: 2 rounds instead of 4 (18 listings, about 20 guardian steps). Scoring an
#: action the grammar refuses restores a snapshot of the whole market, and the extreme-argument
#: policy scores about 150 such actions a step: at 4 rounds it alone took 47 s of a 70 s audit
#: here. Two rounds still close a round mid-episode, so the public ledger the agent sees
#: between rounds (and the info-key check on it) is played; every weight is per episode (the
#: flag rewards divide by the episode's frauds and honest listings), so nothing else changes.
AUDIT_KWARGS: dict[str, Any] = {"rounds": 2}

#: Why every success has outcome 1. Guardian: success is every fraud flagged and no honest
#: listing flagged, so the detection score is 1 and the other buyers' regret against a
#: perfect guardian is 0 (the perfect guardian's market is this one); seller: the outcome is
#: 1.0 exactly on success (a profit made, no claim misrepresented).
SUCCESS_NOTE = "guardian: detection 1 and no regret; seller: outcome 1.0 exactly on success"


def moves(env: Any, info: dict[str, Any]) -> list[str]:
    """The seller's listings ``available_actions`` misses: claims at, a little over, just
    past the tolerance over, and far over the item's true quality, each priced at the cost,
    0.9 x and 1.0 x the claimed value. The guardian's actions are all listed already."""
    item = info.get("item") or {}
    if info.get("role") != "seller" or not item:
        return []
    quality, cost = item["quality"], item["cost"]
    claims = [quality, quality + 0.05, quality + MISREPRESENT_TOLERANCE,
              quality + MISREPRESENT_TOLERANCE + 0.02, 0.95]
    out = []
    for claim in (min(1.0, c) for c in claims):
        for price in (cost, 0.9 * VALUE_SCALE * claim, VALUE_SCALE * claim):
            if 0 < price <= MAX_PRICE:
                out.append(f"list({price:.2f}, {claim:.2f})")
    return out


register_audit(
    "agentgym/BazaarC2C-v0",
    AuditSpec(
        references=("oracle", "bazaar-c2c-baseline"),
        exploits=EXPLOITS,
        public_info=PUBLIC_INFO,
        success_threshold=1.0,
        success_note=SUCCESS_NOTE,
        templates=("inspect({})", "buy({})", "skip({})", "flag({})", "list({}, {})"),
        moves=moves,
        kwargs=AUDIT_KWARGS,
    ),
)
