"""Bilateral trade with private values (``agentgym/Negotiation-v0``).

:mod:`.logic` holds the pure maths (values, ZOPA, offer checks, surplus share);
:mod:`.counterparties` the scripted traders; :mod:`.env` :class:`NegotiationEnv`;
:mod:`.parallel` the two-seat PettingZoo version; :mod:`.agents` the scripted baseline.

>>> from agentgym.environments.markets.negotiation import NegotiationEnv
>>> NegotiationEnv(opponent="fair").reset(seed=0)[1]["role"]
'buyer'
"""

from .env import NegotiationEnv

__all__ = ["NegotiationEnv"]
