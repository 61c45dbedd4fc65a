"""What ``agentgym audit agentgym/SearchQA-v0`` reads: its :class:`~agentgym.audit.AuditSpec`.

The process reward is potential-based on the share of gold passages retrieved (gamma 1, see
:mod:`.rewards`), declared as :func:`potential` so the audit checks every step. It is worth
at most 1.0 and any good searcher earns it, answer or not (the random agent earns about 1.0
with outcome 0): the audit's question is whether anything reaches the oracle's 2.0 without
the exact answer. :mod:`.exploits` holds the answer tricks it plays.

>>> from agentgym.audit import audit_spec
>>> sorted(audit_spec("agentgym/SearchQA-v0").exploits)[:3]
['articles', 'either-or', 'every-span']
"""

from __future__ import annotations

from typing import Any

from agentgym.audit import AuditSpec, register_audit

from .exploits import EXPLOITS, trick_answers
from .rewards import gold_share

__all__ = ["SPEC", "potential"]


def potential(env: Any) -> float:
    """``phi = |gold & retrieved| / |gold|``: each new search pays its difference, a repeat,
    an answer or an invalid turn (which changes nothing) pays 0 besides the penalty, and
    nothing settles at the end (the share retrieved is what the process reward measures)."""
    return gold_share(env._gold, env._retrieved)


def _moves(env: Any, info: dict[str, Any]) -> list[str]:
    """The trick answers of this state (every listed span at once, punctuation only, ...),
    so the search adversary tries them wherever it stands."""
    if env.is_over:
        return []
    return trick_answers(env._observe(), info)


SPEC = AuditSpec(
    # The oracle searches for every gold passage, then answers the gold answer: 2.0 on
    # every seed, the most there is, so the question-as-query baseline is never stronger.
    references=("oracle",),
    exploits=EXPLOITS,
    public_info=frozenset({
        # the searches made: the observation's "Searches left: k of n" line is n - k
        "searches",
        # the ids of the passages the observation shows (Doc i(Title: ...) text): the
        # corpus the search serves names each; they carry no mark of which are gold
        "results",
        # the share of gold passages retrieved: the sum of the process rewards paid so far
        # (contract reward_components, valid steps), nothing beyond what they told
        "gold_retrieved",
    }),
    # success is an exact match, the only way the outcome (exact match) is 1.0
    success_threshold=1.0,
    potential=potential,
    # Free text in both forms; the extremes must stay wrong answers or empty searches.
    templates=("search: {}", "answer: {}", "<search>{}</search>", "<answer>{}</answer>"),
    moves=_moves,
    # Answering ends the episode at once; these answers normalise to nothing.
    stop_actions=("<answer>.</answer>", "answer: the"),
)

register_audit("agentgym/SearchQA-v0", SPEC)
