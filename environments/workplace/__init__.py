"""Tool-using service agents under a written policy (``agentgym/Workplace-v0``).

:mod:`.domains` holds the three domains (retail orders, travel bookings, an IT helpdesk with
dual control), each a :class:`~.domain.Domain` of policy, schema, seeded rows, tools
(:mod:`.tools`), facts and templates; :mod:`.session` is the engine (database, scripted user
from :mod:`.user`, ledger); :mod:`.tasks` generates tasks correct by construction;
:mod:`.turns` reads a turn; :mod:`.env` is :class:`WorkplaceEnv`; :mod:`.agents` the scripted
heuristic; :mod:`.audit` and :mod:`.exploits` what ``agentgym audit`` plays.

>>> from agentgym.environments.workplace import WorkplaceEnv
>>> WorkplaceEnv(domain="travel").reset(seed=1)[0].splitlines()[0]
'[travel support]'
"""

from .env import WorkplaceEnv

__all__ = ["WorkplaceEnv"]
