"""The WebShop site one browser env's Chromium looks at, answered in this process.

A :class:`ShopSite` is the site of one env. Its env's browser context serves it on
:data:`SHOP_ORIGIN` (``new_context(site=...)``, see :mod:`agentgym.browser.served`): the
page's requests reach :meth:`ShopSite.answer` through Playwright's routing and binding, never
through a socket, so no other context, process or machine can reach it, and nothing listens
on a port. The pages are :func:`~.pages.render_page` of the engine's current page.

State lives in the site, never in the URL. The site holds a ``version`` counter and two
callbacks into the env: ``page()`` (the current page) and ``act(kind, arg)`` (run
``search``/``click`` through the env's engine). The routes (GET and HEAD only, else 405):

* ``/`` or ``/page``: the current page, no state change;
* ``/search?v=N&q=...``: the search box's form;
* ``/click?v=N&l=LABEL``: every clickable (a link to this URL);
* anything else: 404.

An action is applied only during one of the env's own steps (between
:meth:`ShopSite.begin_step` and :meth:`ShopSite.end_step`, at most once per step, under the
site's lock) and only when ``v`` equals the current version; each applied action bumps it, so
a reload, a replayed link, a request outside a step or a crafted URL for an old page does
nothing but show the current page. A click applies ``engine.click(label)`` to the *current*
page: a label that page does not offer (an option the product lacks, ``Buy Now`` off an item
page, a second ``Buy Now`` after the purchase) is refused by the engine exactly as in text
mode, and the purchased options are the engine's own, never read from a URL.

>>> from agentgym.environments.webshop.engine import Element, Page
>>> page = Page("results", (Element("button", "Next >", "Next >"),))
>>> acts = []
>>> site = ShopSite(page=lambda: page, act=lambda kind, arg: acts.append((kind, arg)) or "ok")
>>> site.answer("GET", SHOP_ORIGIN + "/click?v=0&l=Next+%3E").status  # outside a step
200
>>> site.begin_step()
>>> _ = site.answer("GET", SHOP_ORIGIN + "/click?v=0&l=Next+%3E")
>>> site.end_step(), acts, site.version
('ok', [('click', 'Next >')], 1)
>>> [site.answer(m, SHOP_ORIGIN + p).status for m, p in (("POST", "/click"), ("GET", "/x"))]
[405, 404]
"""

from __future__ import annotations

import threading
import urllib.parse
from collections.abc import Callable
from typing import Any

from agentgym.browser import SiteResponse

from .pages import (
    CSP,
    MAX_QUERY_CHARS,
    SEARCH_BOX_ID,
    SEARCH_BUTTON_ID,
    element_ids,
    message_page,
    render_page,
)

__all__ = [
    "SEARCH_BOX_ID",
    "SEARCH_BUTTON_ID",
    "SHOP_ORIGIN",
    "ShopSite",
    "element_ids",
]

#: Where every env's shop appears in its own browser context. A loopback origin, so the
#: network fence treats it as local; it is answered by the context itself, never by a socket.
SHOP_ORIGIN = "http://127.0.0.1"

_HEADERS = {
    "Cache-Control": "no-store",
    "Content-Security-Policy": CSP,
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
}


class ShopSite:
    """One env's shop: its page version, the step window and the routes.

    ``page()`` returns the current :class:`~.engine.Page`; ``act(kind, arg)`` runs
    ``search``/``click`` through the env (which scores it) and returns what it did, or
    ``None`` when the env declines. The env brackets each of its steps with
    :meth:`begin_step` / :meth:`end_step`; ``act`` is called only in between, at most once,
    always under :attr:`lock`, so the env reads the step's result only after any request
    being applied has finished. ``actions`` counts applied actions.
    """

    origin = SHOP_ORIGIN

    def __init__(
        self,
        page: Callable[[], Any],
        act: Callable[[str, str], Any],
        *,
        inpage: bool = True,
    ) -> None:
        self.inpage = inpage
        self.version = 0
        self.actions = 0
        # The browser's event loop answers requests while the env's thread opens and closes
        # steps (and a timed-out step's request may still be running as the next step opens).
        self.lock = threading.Lock()
        self._page = page
        self._act = act
        self._open = False  # inside one of the env's steps (guarded by lock)
        self._taken: Any = None  # what act returned during this step

    def bump(self) -> None:
        """Invalidate every link on pages rendered so far (after a reset or a state load)."""
        with self.lock:
            self.version += 1

    def begin_step(self) -> None:
        """Accept one action from now on (the env is running one of its steps)."""
        with self.lock:
            self._open, self._taken = True, None

    def end_step(self) -> Any:
        """Stop accepting; return what ``act`` returned for this step's action, or None.

        Takes the lock, so a request still being applied finishes first and a late one
        finds the step closed.
        """
        with self.lock:
            taken, self._open, self._taken = self._taken, False, None
            return taken

    def render(self) -> str:
        """The current page."""
        with self.lock:
            return render_page(self._page(), version=self.version, inpage=self.inpage)

    def request(self, kind: str, arg: str, version: str) -> str:
        """Apply ``kind(arg)`` if a step is open and ``version`` is current; return the page."""
        with self.lock:
            if self._open and self._taken is None and version == str(self.version):
                self._taken = self._act(kind, arg)
                if self._taken is not None:
                    self.version += 1
                    self.actions += 1
            return render_page(self._page(), version=self.version, inpage=self.inpage)

    def answer(self, method: str, url: str) -> SiteResponse:
        """The response to one request of the env's page (see the module doc for the routes)."""
        if method not in ("GET", "HEAD"):
            refusal = message_page("Method not allowed", "This shop only answers GET.")
            return self._reply(405, refusal)
        parts = urllib.parse.urlsplit(url)
        if parts.path == "/favicon.ico":
            return self._reply(404, "")
        try:
            params = urllib.parse.parse_qs(
                parts.query, keep_blank_values=True, max_num_fields=4, strict_parsing=False
            )
        except ValueError:  # more fields than any page of this shop sends
            params = {}
        version = (params.get("v") or [""])[0]
        if parts.path in ("/", "/page"):
            return self._reply(200, self.render())
        if parts.path == "/search":
            query = (params.get("q") or [""])[0][:MAX_QUERY_CHARS]
            return self._reply(200, self.request("search", query, version))
        if parts.path == "/click":
            label = (params.get("l") or [""])[0][:MAX_QUERY_CHARS]
            return self._reply(200, self.request("click", label, version))
        return self._reply(404, message_page("Not found", "There is no such page in this shop."))

    @staticmethod
    def _reply(status: int, body: str) -> SiteResponse:
        return SiteResponse(status, body, _HEADERS)
