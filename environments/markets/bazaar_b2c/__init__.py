"""``agentgym/BazaarB2C-v0``: one firm among scripted firms in a Poisson consumer market.

Modules: :mod:`.market` (the ledger and one round's dynamics, the crash), :mod:`.firms`
(scripted strategies), :mod:`.eas` (the Economic Alignment Score), :mod:`.env` (the
Gymnasium env), :mod:`.parallel` (the PettingZoo version), :mod:`.agents` (the baseline).
"""
