"""WebShop rebuilt offline: seeded catalog, BM25 search, the original reward, text + browser modes.

Modules: :mod:`.catalog` (products), :mod:`.search` (BM25 index), :mod:`.goals` (instructions
and splits), :mod:`.reward` (the WebShop formula and the shaping potential), :mod:`.engine`
(the site as a state machine and its page model), :mod:`.base` (what both modes share),
:mod:`.factory` (:func:`make_webshop`, ``agentgym/WebShop-v0``'s entry point), :mod:`.env`
(text mode), :mod:`.site` + :mod:`.browser_env` (browser mode), :mod:`.agents` (the rule
baseline), :mod:`.config` (the declared kwargs of the factory and both modes).
"""

from .factory import MODES, make_webshop

__all__ = ["MODES", "make_webshop"]
