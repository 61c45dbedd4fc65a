"""One env's browser context and page: :class:`BrowserContextHandle` and :func:`new_context`.

A handle is safe to use from any thread and from inside a running asyncio loop: every
method hands a job to the runtime's event-loop thread (:mod:`.runtime`) and waits for it.
Every job is bounded by the handle's ``timeout_ms`` end to end; a job that runs past it is
cancelled, the page it was waiting on is closed and a blank one opened in its place (same
context, so cookies stay), and the caller gets :class:`~.runtime.BrowserTimeout`. Other
contexts' jobs never wait for it. A context may serve a site from this process
(``site=``, see :mod:`.served`): its pages then need no server and no port.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import functools
import io
import os
import sys
from collections.abc import Awaitable, Callable, Iterable
from typing import Any, TypeVar

import numpy as np

from agentgym.action_result import ActionResult

from .actions import BrowserAction
from .axtree import Observation, page_snapshot
from .fence import blocked_pattern, host_allowed, normalize_origins
from .perform import perform_action
from .runtime import (
    CLOSE_TIMEOUT_S,
    BrowserError,
    BrowserTimeout,
    BrowserUnavailable,
    get_runtime,
)
from .served import FETCH_BINDING, Site, check_site, serve_binding, serve_route, site_pattern

__all__ = ["DEFAULT_TIMEOUT_MS", "BrowserContextHandle", "decode_png", "new_context"]

T = TypeVar("T")

#: Default time limit for one browser job (a step). Loopback pages load in milliseconds;
#: this only bounds a wedged page so that a rollout worker gets an error instead of hanging.
DEFAULT_TIMEOUT_MS = 10_000


def decode_png(data: bytes) -> np.ndarray:
    """Decode a PNG into a writable ``(H, W, 3)`` uint8 RGB array (alpha dropped), with Pillow.

    Pillow comes with the ``browser`` extra (``pip install agentgym[browser]``); a file that
    is not a PNG raises ``ValueError``.

    >>> import zlib, struct
    >>> def chunk(t, c): return struct.pack(">I", len(c)) + t + c + struct.pack(
    ...     ">I", zlib.crc32(t + c))
    >>> ihdr = struct.pack(">IIBBBBB", 2, 1, 8, 2, 0, 0, 0)
    >>> png = b"\\x89PNG\\r\\n\\x1a\\n" + chunk(b"IHDR", ihdr) + chunk(
    ...     b"IDAT", zlib.compress(bytes([0, 255, 0, 0, 0, 0, 255]))) + chunk(b"IEND", b"")
    >>> decode_png(png).tolist()
    [[[255, 0, 0], [0, 0, 255]]]
    """
    try:
        from PIL import Image
    except ImportError as exc:
        raise BrowserUnavailable(
            "decoding screenshots needs Pillow: pip install 'agentgym[browser]'"
        ) from exc
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG")
    try:
        with Image.open(io.BytesIO(data), formats=["PNG"]) as img:
            # Chromium's screenshots are RGB already; converting anyway costs 2-3x the decode.
            rgb = img if img.mode == "RGB" else img.convert("RGB")
            return np.asarray(rgb, dtype=np.uint8).copy()  # Pillow's buffer is read-only
    except (OSError, SyntaxError) as exc:  # Pillow's answers to a broken file
        raise ValueError(f"broken PNG: {exc}") from exc


async def _close_popup(page: Any) -> None:
    # Popups would be pages the env does not watch: close them at once.
    with contextlib.suppress(Exception):
        await page.close()


async def _fresh_page(context: Any) -> Any:
    page = await context.new_page()
    page.on("popup", _close_popup)
    return page


class BrowserContextHandle:
    """One env's private browser context (cookies, storage, history) and its one page.

    Every method marshals to the runtime's thread, so a handle is safe to use from any thread
    and from inside a running asyncio loop. :meth:`run` executes an arbitrary job with the
    Playwright ``page`` (Playwright's asyncio API) there, for env-specific action code. Calls
    on one handle come one at a time, as the steps of one env do; different handles' calls
    run concurrently, so one slow page never holds up another env.
    """

    def __init__(
        self,
        *,
        allowed_origins: Iterable[str] | None = None,
        viewport: tuple[int, int] = (1024, 768),
        timeout_ms: int = DEFAULT_TIMEOUT_MS,
        real_input: bool = False,
        site: Site | None = None,
    ) -> None:
        self._rt = get_runtime()
        #: Use Playwright's mouse and keyboard for click/fill instead of DOM calls.
        self.real_input = bool(real_input)
        #: The site this context answers from this process (see :mod:`.served`), or None.
        self.site = site
        self.site_origin = check_site(site) if site is not None else None
        if self.site_origin is not None:
            # The served site is the one place its pages may go, besides any origins named.
            allowed_origins = [*(allowed_origins or ()), self.site_origin]
        self.allowed_origins = normalize_origins(allowed_origins)
        self.viewport = viewport
        if (
            isinstance(timeout_ms, bool)
            or not isinstance(timeout_ms, int | float)
            or timeout_ms < 1
        ):
            raise ValueError(
                f"timeout_ms must be a number of milliseconds >= 1, got {timeout_ms!r}"
            )
        #: The limit for one job (:meth:`run`), end to end.
        self.timeout_ms = int(timeout_ms)
        #: URLs the router aborted (most recent last, capped), for tests and debugging.
        self.blocked: list[str] = []
        #: Jobs that ran past ``timeout_ms`` (each one cost a fresh page).
        self.timeouts = 0
        self._closed = False
        self._context: Any = None
        self._page: Any = None
        self._cdp: Any = None
        self._context, self._page = self._rt.acquire_context(self._make)

    # Built on the runtime's thread.
    async def _make(self, browser: Any) -> tuple[Any, Any]:
        context = await browser.new_context(
            viewport={"width": self.viewport[0], "height": self.viewport[1]},
            service_workers="block",
            accept_downloads=False,
            java_script_enabled=True,
        )
        context.set_default_timeout(self.inner_timeout_ms)
        context.set_default_navigation_timeout(self.inner_timeout_ms)
        # Only requests that are not allowed are routed to the abort (the pattern is matched
        # inside the driver), so an allowed loopback server's requests never make a round
        # trip through Python; a served site's requests do, to be answered there.
        await context.route(blocked_pattern(self.allowed_origins), self._route)
        if self.site is not None and self.site_origin is not None:
            site, origin = self.site, self.site_origin
            await context.route(site_pattern(origin), functools.partial(serve_route, site))
            await context.expose_binding(
                FETCH_BINDING, functools.partial(serve_binding, site, origin)
            )
        return context, await _fresh_page(context)

    async def _route(self, route: Any) -> None:
        url = route.request.url
        if host_allowed(url, self.allowed_origins):
            await route.continue_()
            return
        self.blocked.append(url[:200])
        del self.blocked[:-100]
        await route.abort("blockedbyclient")

    # ------------------------------------------------------------------ generic API
    @property
    def inner_timeout_ms(self) -> int:
        """The limit for Playwright's own waits inside a job (navigations, locators).

        A second longer than the job's limit, so that the job's limit is always the one that
        fires: a step that runs too long is a :class:`~.runtime.BrowserTimeout` and a fresh
        page, never a half-loaded page left behind by an inner timeout.
        """
        return self.timeout_ms + 1000

    @property
    def closed(self) -> bool:
        """True once :meth:`close` has run."""
        return self._closed

    def run(self, fn: Callable[..., T | Awaitable[T]], *args: Any) -> T:
        """Call ``fn(page, *args)`` on the runtime's thread, await its result, and return it.

        ``fn`` is an ``async def`` job or a function returning an awaitable (``lambda page:
        page.content()``) using Playwright's asyncio API. The whole job must finish within
        ``timeout_ms``; otherwise it is cancelled, the page is replaced by a blank one (the
        context and its cookies stay) and :class:`~.runtime.BrowserTimeout` is raised.
        """
        if self._closed:
            raise BrowserError("the browser context is closed")
        try:
            return self._rt.call(fn, self._page, *args, timeout_s=self.timeout_ms / 1000)
        except BrowserTimeout:
            self.timeouts += 1
            self._reset_page()
            raise BrowserTimeout(
                f"the page did not finish within timeout_ms={self.timeout_ms} (a slow server "
                "or a wedged page); it was closed and a blank page opened in its place"
            ) from None

    def _reset_page(self) -> None:
        """Close the current page (whatever it waits on) and open a blank one in its place."""
        old, context = self._page, self._context

        async def job() -> Any:
            with contextlib.suppress(Exception):
                async with asyncio.timeout(CLOSE_TIMEOUT_S):
                    await old.close(run_before_unload=False)
            return await _fresh_page(context)

        self._cdp = None  # bound to the old page
        # Should the context itself be gone or stuck, the next job fails and its env replaces
        # the whole context (see the WebShop browser env).
        with contextlib.suppress(Exception):
            self._page = self._rt.call(job, timeout_s=2 * CLOSE_TIMEOUT_S)

    def perform(self, action: BrowserAction, *, click_timeout_ms: int = 2000) -> ActionResult:
        """Run one action and wait until any navigation it started has loaded.

        Never raises for a bad target: a missing, hidden, disabled or wrong-kind element is an
        :class:`ActionResult` with ``error`` set. ``back`` refuses to leave the allowed origins.
        """
        return self.run(lambda page: perform_action(self, page, action, click_timeout_ms))

    def goto(self, url: str) -> None:
        """Navigate to ``url`` (blocked hosts raise :class:`BrowserError`) and wait for load."""
        if not host_allowed(url, self.allowed_origins):
            raise BrowserError(f"navigation outside the allowed origins refused: {url[:200]}")
        self.run(lambda page: page.goto(url, wait_until="load"))

    def set_content(self, html: str) -> None:
        """Replace the page with ``html`` (tests and static pages)."""
        self.run(lambda page: page.set_content(html, wait_until="load"))

    def url(self) -> str:
        """The page's current URL."""
        return self.run(lambda page: page.url)

    def observe(self, *, stamp: bool = True, max_text: int = 300) -> str:
        """The page as accessibility-tree text, ``[id] role "name"`` lines (see :mod:`.axtree`)."""
        return self.snapshot(stamp=stamp, max_text=max_text).text

    def snapshot(self, *, stamp: bool = True, max_text: int = 300) -> Observation:
        """Like :meth:`observe`, with the ids, title and URL."""
        return self.run(lambda page: page_snapshot(page, stamp=stamp, max_text=max_text))

    def screenshot(self) -> np.ndarray:
        """The viewport as an ``(H, W, 3)`` uint8 RGB array (decoded with Pillow)."""
        return decode_png(self.run(self._png))

    def screenshot_png(self, *, full_page: bool = False) -> bytes:
        """The viewport (or the whole page) as PNG bytes, ready to save; needs no library.

        >>> from pathlib import Path
        >>> from agentgym.browser import browser_available, new_context
        >>> if browser_available():
        ...     with new_context(viewport=(320, 200)) as ctx:
        ...         ctx.set_content("<h1>Hello</h1>")
        ...         png = ctx.screenshot_png()
        ...     print(png[:4])  # Path("page.png").write_bytes(png) saves it
        ... else:
        ...     print(b"\\x89PNG")
        b'\\x89PNG'
        """
        return self.run(lambda page: page.screenshot(type="png", full_page=full_page))

    def collect_garbage(self) -> None:
        """Run V8's garbage collector in the page now (memory measurements, tests)."""

        async def job(page: Any) -> None:
            await (await self.cdp_session(page)).send("HeapProfiler.collectGarbage")

        self.run(job)

    async def cdp_session(self, page: Any) -> Any:
        """The page's CDP session, made on first use (await it inside a browser job)."""
        if self._cdp is None:
            self._cdp = await self._context.new_cdp_session(page)
        return self._cdp

    async def _png(self, page: Any) -> bytes:
        cdp = await self.cdp_session(page)
        # optimizeForSpeed: Chromium then compresses with its fastest settings.
        shot = await cdp.send(
            "Page.captureScreenshot",
            {"format": "png", "optimizeForSpeed": True, "captureBeyondViewport": False},
        )
        return base64.b64decode(shot["data"])

    def close(self, *, wait: bool = True) -> None:
        """Close the context (idempotent); closing the last context closes the browser.

        ``wait=False`` only queues the closing for the runtime's thread (for finalizers,
        which may run on any thread, including that one).
        """
        if self._closed:
            return
        self._closed = True
        context, self._context, self._page, self._cdp = self._context, None, None, None

        async def closer() -> None:
            await context.close()

        with contextlib.suppress(Exception):
            if self._rt.on_thread() or not wait:
                # On the runtime's thread (a garbage-collected env's finalizer) waiting would
                # block the loop that has to do the closing: queue it instead.
                self._rt.call_soon(self._rt.release_job, closer)
            else:
                self._rt.release_context(closer)

    def __enter__(self) -> BrowserContextHandle:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __del__(self) -> None:
        # A forgotten env must not keep the browser alive forever; the runtime's thread does
        # the closing (see close()), never the garbage collector's thread itself.
        if (
            not getattr(self, "_closed", True)
            and getattr(self, "_rt", None) is not None
            and not sys.is_finalizing()
        ):
            try:
                if self._rt.pid == os.getpid() and not self._rt.stopped:
                    self.close(wait=False)
            except Exception:
                pass


def new_context(
    *,
    allowed_origins: Iterable[str] | None = None,
    viewport: tuple[int, int] = (1024, 768),
    timeout_ms: int = DEFAULT_TIMEOUT_MS,
    real_input: bool = False,
    site: Site | None = None,
) -> BrowserContextHandle:
    """A fresh isolated context with one page; launches this process's browser if needed.

    ``allowed_origins`` (e.g. ``["http://127.0.0.1:8123"]``) narrows the loopback-only
    request filter to those origins; ``site`` serves an in-process site on its (loopback)
    origin, which is then allowed too (:mod:`.served`); ``timeout_ms`` bounds every job
    (:meth:`~.run`) end to end; ``real_input`` makes click/fill use Playwright's mouse and
    keyboard (slower, fires trusted events). Raises :class:`~.runtime.BrowserUnavailable`
    without Chromium.
    """
    return BrowserContextHandle(
        allowed_origins=allowed_origins,
        viewport=viewport,
        timeout_ms=timeout_ms,
        real_input=real_input,
        site=site,
    )
