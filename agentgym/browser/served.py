"""Sites served from this process: a page's requests answered in Python, with no port.

A context made with ``new_context(site=...)`` answers every request for ``site.origin`` from
``site.answer(method, url)``: navigations, form submits and fetches through Playwright's
routing (``route.fulfill``), and in-page loads through the binding
``window.__agentgymFetch(url)`` (:data:`FETCH_BINDING`), which costs one round trip to
Python instead of a request through Chromium's network stack (about 3x faster on two
cores). Nothing listens on a socket, so nothing but that context's own pages can reach the
site: no cookie, no ``Host`` check against DNS rebinding and no connection limits are needed.
Every other origin stays fenced off (:mod:`.fence`).

A site's ``answer`` runs on the browser runtime's event loop. It may return a
:class:`SiteResponse` or an awaitable of one; a slow answer holds up only its own page, since
every job has its context's time limit.

>>> class Hello:
...     origin = "http://127.0.0.1"
...     def answer(self, method, url):
...         return SiteResponse(200, "<p>hello</p>")
>>> bool(site_pattern(Hello.origin).match("http://127.0.0.1/page?x=1"))
True
>>> bool(site_pattern(Hello.origin).match("http://127.0.0.1:8080/page"))
False
"""

from __future__ import annotations

import contextlib
import inspect
import re
from collections.abc import Awaitable, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from .fence import host_allowed

__all__ = [
    "FETCH_BINDING",
    "MAX_URL_CHARS",
    "Site",
    "SiteResponse",
    "check_site",
    "serve_binding",
    "serve_route",
    "site_pattern",
]

#: The function a served page calls to load a URL of its site in place (see the module doc).
FETCH_BINDING = "__agentgymFetch"
#: Longer URLs are answered 414 without reaching the site.
MAX_URL_CHARS = 8192


@dataclass(frozen=True)
class SiteResponse:
    """What a site answers: a status, an HTML (or text) body and extra headers."""

    status: int
    body: str
    headers: Mapping[str, str] = field(default_factory=dict)
    content_type: str = "text/html; charset=utf-8"


class Site(Protocol):
    """An in-process site: its origin (``http://127.0.0.1``) and how it answers a request."""

    origin: str

    def answer(self, method: str, url: str) -> SiteResponse | Awaitable[SiteResponse]:
        """The response to ``method url`` (an absolute URL on :attr:`origin`)."""
        ...


def check_site(site: Site) -> str:
    """The site's origin, normalised; a non-loopback origin (or one with a path) is refused.

    >>> class S: origin = "http://example.com"
    >>> check_site(S())
    Traceback (most recent call last):
    ...
    ValueError: a served site's origin must be a loopback origin like http://127.0.0.1, got 'http://example.com'
    """
    origin = str(site.origin).rstrip("/").lower()
    if not re.fullmatch(r"https?://[^/?#@]+", origin) or not host_allowed(origin + "/", None):
        raise ValueError(
            "a served site's origin must be a loopback origin like http://127.0.0.1, "
            f"got {site.origin!r}"
        )
    return origin


def site_pattern(origin: str) -> re.Pattern[str]:
    """A regex matching every URL on ``origin`` (and no other origin, nor another port)."""
    return re.compile("^" + re.escape(origin.rstrip("/")) + r"(?:[/?#]|$)", re.IGNORECASE)


async def _answer(site: Site, method: str, url: str) -> SiteResponse:
    if len(url) > MAX_URL_CHARS:
        return SiteResponse(414, "URI too long", content_type="text/plain; charset=utf-8")
    try:
        response = site.answer(method, url)
        if inspect.isawaitable(response):
            response = await response
        return response
    except Exception as exc:  # a bug in the site must not leave the page waiting forever
        return SiteResponse(500, type(exc).__name__, content_type="text/plain; charset=utf-8")


async def serve_route(site: Site, route: Any) -> None:
    """Playwright route handler: fulfil the request from ``site.answer``."""
    request = route.request
    response = await _answer(site, request.method, request.url)
    headers = {**response.headers, "Content-Type": response.content_type}
    # The page may be gone by now (closed after a timeout): nothing is waiting for the answer.
    with contextlib.suppress(Exception):
        await route.fulfill(status=response.status, headers=headers, body=response.body)


async def serve_binding(site: Site, origin: str, source: dict[str, Any], url: Any) -> str:
    """Playwright binding: the body ``site.answer("GET", url)`` gives, for the site's own pages.

    A call from a frame on another origin, or with a URL off the site, gets an empty string
    and never reaches the site.
    """
    frame = source.get("frame")
    caller = getattr(frame, "url", "") or ""
    if not isinstance(url, str) or not site_pattern(origin).match(caller):
        return ""
    if not site_pattern(origin).match(url):
        return ""
    return (await _answer(site, "GET", url)).body
