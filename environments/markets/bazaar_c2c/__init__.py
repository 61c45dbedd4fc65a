"""``agentgym/BazaarC2C-v0``: a lemon market where one deceptive seller runs K sybil accounts.

:mod:`.market` holds the pure ledger and rules (evidence signals, purchases, welfare, rewards),
:mod:`.sellers` the scripted honest and deceptive sellers, :mod:`.env` the Gymnasium env,
:mod:`.parallel` the PettingZoo version and :mod:`.agents` the baseline guardian.
"""

from .env import BazaarC2CEnv

__all__ = ["BazaarC2CEnv"]
