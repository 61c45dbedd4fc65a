"""Where agentgym keeps data it builds once per machine (search indexes, generated assets).

The root is, in order: ``$AGENTGYM_CACHE``, ``$XDG_CACHE_HOME/agentgym`` (the XDG base
directory spec; a relative ``XDG_CACHE_HOME`` is ignored, as the spec says), then
``~/.cache/agentgym``. Families keep their data in a subfolder named after the family.

>>> import os
>>> from agentgym.cache import cache_dir
>>> cache_dir("webshop").name
'webshop'
"""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["cache_dir"]


def cache_dir(*parts: str) -> Path:
    """``<cache root>/<parts...>`` (not created; see the module docstring for the root)."""
    explicit = os.environ.get("AGENTGYM_CACHE")
    if explicit:
        root = Path(explicit)
    else:
        xdg = os.environ.get("XDG_CACHE_HOME", "")
        base = Path(xdg) if xdg and Path(xdg).is_absolute() else Path.home() / ".cache"
        root = base / "agentgym"
    return root.joinpath(*parts)
