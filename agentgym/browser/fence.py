"""The network fence: which URLs a page may reach (loopback, or the env's own origins).

Two layers keep a browser env offline. Each context routes every request whose URL
:func:`blocked_pattern` matches to an abort (the pattern is matched inside Playwright's
driver, so allowed requests never make a round trip through Python), and the browser is
launched with a dead proxy for every non-loopback host (:data:`PROXY_ARGS`), which also
covers WebSockets and prefetches that no router sees.

>>> host_allowed("http://127.0.0.1:8000/page", frozenset({"http://127.0.0.1:8000"}))
True
>>> host_allowed("http://127.0.0.1.evil.com/", None)
False
"""

from __future__ import annotations

import re
import urllib.parse
from collections.abc import Iterable

__all__ = ["LOOPBACK_HOSTS", "PROXY_ARGS", "blocked_pattern", "host_allowed", "normalize_origins"]

#: Hosts a page may ever reach.
LOOPBACK_HOSTS: frozenset[str] = frozenset({"127.0.0.1", "localhost", "::1", "[::1]"})

#: Launch flags sending any non-loopback connection to a closed port: the second fence.
PROXY_ARGS: tuple[str, ...] = (
    "--proxy-server=http://127.0.0.1:9",
    "--proxy-bypass-list=127.0.0.1;localhost;[::1]",
)


def normalize_origins(origins: Iterable[str] | None) -> frozenset[str] | None:
    """``["http://127.0.0.1:8123/"]`` -> ``{"http://127.0.0.1:8123"}``; None stays None."""
    if origins is None:
        return None
    return frozenset(str(o).rstrip("/").lower() for o in origins)


def host_allowed(url: str, allowed_origins: frozenset[str] | None) -> bool:
    """True when ``url`` is loopback (and, given ``allowed_origins``, one of those origins).

    ``data:``, ``about:`` and ``blob:`` URLs never leave the browser and are allowed.
    """
    try:
        parts = urllib.parse.urlsplit(url)
    except ValueError:
        return False
    if parts.scheme in ("data", "about", "blob"):
        return True
    if parts.scheme not in ("http", "https"):
        return False
    host = (parts.hostname or "").lower()
    if host not in LOOPBACK_HOSTS:
        return False
    if allowed_origins is None:
        return True
    return f"{parts.scheme}://{parts.netloc}".lower() in allowed_origins


def blocked_pattern(allowed_origins: frozenset[str] | None) -> re.Pattern[str]:
    """A regex matching every URL outside ``allowed_origins`` (or outside loopback)."""
    if allowed_origins is None:
        allowed = r"https?://(?:127\.0\.0\.1|localhost|\[::1\])(?::\d+)?"
    else:
        allowed = "(?:" + "|".join(re.escape(o) for o in sorted(allowed_origins)) + ")"
    return re.compile(r"^(?!" + allowed + r"(?:[/?#]|$))", re.IGNORECASE)
