"""WebShop rebuilt offline: seeded catalog, BM25 search, the original reward, text + browser modes.

Modules: :mod:`.catalog` (products), :mod:`.search` (BM25 index), :mod:`.goals` (instructions
and splits), :mod:`.reward` (the WebShop formula and the shaping potential), :mod:`.engine`
(the site as a state machine and its page model), :mod:`.env` (``agentgym/WebShop-v0``).
"""
