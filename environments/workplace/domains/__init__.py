"""The three domains of Workplace-v0: retail orders, travel bookings, an IT helpdesk.

>>> sorted(DOMAINS)
['helpdesk', 'retail', 'travel']
"""

from __future__ import annotations

from ..domain import Domain
from .helpdesk import HELPDESK
from .retail import RETAIL
from .travel import TRAVEL

__all__ = ["DOMAINS", "DOMAIN_NAMES"]

#: Every domain by name, in a fixed order (``domain="any"`` plays ``DOMAIN_NAMES[seed % 3]``).
DOMAINS: dict[str, Domain] = {d.name: d for d in (RETAIL, TRAVEL, HELPDESK)}
DOMAIN_NAMES: tuple[str, ...] = tuple(DOMAINS)
