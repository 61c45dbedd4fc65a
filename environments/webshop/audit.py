"""What ``agentgym audit agentgym/WebShop-v0`` reads: its :class:`~agentgym.audit.AuditSpec`.

Text mode is audited (the default ``mode``). Browser mode drives Chromium: :func:`needs` says
so where the audit is asked for it and Playwright or Chromium is missing. The process reward
is potential-based shaping that the env declares to :class:`~agentgym.core.TextEnv`
(``WebShopBase._shaping_potential``), so the audit checks every step against that hook and its end
rule; :mod:`.exploits` holds the purchase hacks the audit plays.

>>> from agentgym.audit import audit_spec
>>> sorted(audit_spec("agentgym/WebShop-v0").exploits)[:2]
['buy-off-item', 'crafted-purchase']
"""

from __future__ import annotations

from typing import Any

from agentgym.audit import AuditSpec, register_audit

from .base import BROWSER_INSTALL_HINT
from .exploits import EXPLOITS

__all__ = ["SPEC", "needs"]


def needs(kwargs: dict[str, Any] | None = None) -> str:
    """Why the audit cannot run here: "" in text mode; in browser mode, the install command
    where Playwright or its Chromium is missing."""
    if (kwargs or {}).get("mode", "text") != "browser":
        return ""
    try:
        from playwright.sync_api import sync_playwright

        with sync_playwright() as p:
            p.chromium.launch().close()
    except Exception as exc:  # not installed, or no browser binary: one line either way
        return f"browser mode needs Chromium ({type(exc).__name__}); {BROWSER_INSTALL_HINT}"
    return ""


SPEC = AuditSpec(
    # The oracle searches the instruction and buys an R = 1 product with its options on
    # every goal (goals are kept only where that is possible), so it earns the most there
    # is (2 R = 2.0 with gamma 1) on every seed: the rule baseline is never stronger.
    references=("oracle",),
    exploits=EXPLOITS,
    public_info=frozenset({
        # the page's clickables and whether it has a search box: the observation lists the
        # clickables ("Clickable: ...") and ends the search page with its box ("Search")
        "webshop_actions",
        # the page kind (search, results, item, item_sub, done): each page's text says which
        "page",
        # the split the env was made with (a kwarg), the same in every episode
        "split",
        # the index of the goal in the split: goals are generated from their index by public
        # code, and the instruction shown picks its goal out of the split as surely
        "goal_index",
        # "text": the mode the env was made with (a kwarg)
        "mode",
    }),
    # success is R == 1, the outcome of that purchase
    success_threshold=1.0,
    # search[...] takes free text and click[...] a label: extremes must be refused or
    # search for words, and never buy.
    templates=("search[{}]", "click[{}]"),
    stop_actions=("click[Buy Now]",),
    needs=needs,
)

register_audit("agentgym/WebShop-v0", SPEC)
