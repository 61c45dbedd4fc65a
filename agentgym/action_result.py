"""What carrying out one action did, below the reward: :class:`ActionResult`.

One type for every family's mechanics: WebShop's engine answers ``search``/``click`` with it
(``detail`` is then the purchase a Buy Now made) and the browser runtime answers a click, fill
or key press with it (``navigated`` then says a new page was loaded). Rewards stay in
:class:`agentgym.core.Outcome`; this only says whether the action was carried out.

>>> ActionResult().ok
True
>>> refused = ActionResult("there is no element [9] on this page")
>>> refused.ok, refused.error
(False, 'there is no element [9] on this page')
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

__all__ = ["ActionResult"]


@dataclass(frozen=True)
class ActionResult:
    """The answer to one action: ``error`` is empty when it was carried out.

    * ``error``: why the action was refused or failed (one sentence), ``""`` on success;
    * ``navigated``: the action loaded a new page (browser actions);
    * ``detail``: a family's payload for a carried-out action (WebShop: the ``Purchase``).
    """

    error: str = ""
    navigated: bool = False
    detail: Any = None

    @property
    def ok(self) -> bool:
        """True when the action was carried out (no ``error``)."""
        return not self.error
