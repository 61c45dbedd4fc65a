"""The process's browser runtime: one event-loop thread, one Playwright, one Chromium.

* **One browser per process.** The first context launches Chromium; releasing the last one
  closes it again (an ``atexit`` hook closes whatever is left). A context is cheap (a few
  MB, a few ms); a browser is not.
* **Works inside asyncio.** Every Playwright call runs on one dedicated thread per process,
  in Playwright's asyncio API on that thread's own event loop; callers on any thread (with
  or without a running loop of their own) hand it a job and wait for the answer.
* **A slow page costs only its own env.** Jobs of different contexts run concurrently on
  the loop, so one waiting on a slow server or a stuck page does not hold the others up,
  and every job has a time limit (:meth:`_Runtime.call`): at the limit it is cancelled
  (which aborts the Playwright call in flight) and the caller gets :class:`BrowserTimeout`.

>>> "--disable-gpu" in launch_args()
True
"""

from __future__ import annotations

import asyncio
import atexit
import concurrent.futures
import contextlib
import inspect
import os
import queue
import threading
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from .fence import PROXY_ARGS

__all__ = [
    "LAUNCH_ARGS",
    "BrowserError",
    "BrowserTimeout",
    "BrowserUnavailable",
    "browser_available",
    "chromium_path",
    "launch_args",
    "runtime_stats",
]

T = TypeVar("T")

#: Flags for a quiet, offline headless Chromium; the proxy flags (:data:`.fence.PROXY_ARGS`)
#: send any non-loopback connection to a closed port. ``--no-sandbox`` is added only for
#: root (:func:`launch_args`), where Chromium refuses to start with its sandbox.
LAUNCH_ARGS: tuple[str, ...] = (
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
    "--disable-sync",
    "--disable-quic",
    "--disable-dev-shm-usage",
    "--disable-extensions",
    "--disable-default-apps",
    "--disable-domain-reliability",
    "--metrics-recording-only",
    "--mute-audio",
    *PROXY_ARGS,
)

#: How long the first context may take to launch Chromium (a cold start on a loaded 2-core
#: machine takes a few seconds).
LAUNCH_TIMEOUT_S = 60.0
#: How long closing a context or the browser may take before it is given up on.
CLOSE_TIMEOUT_S = 10.0
#: How much longer than a job's own limit its caller waits. The job cancels itself at its
#: limit; this only matters when the loop itself is blocked (a job that never awaits).
GRACE_S = 2.0


class BrowserError(RuntimeError):
    """A browser call failed (crashed page, closed context, timeout)."""


class BrowserUnavailable(BrowserError):
    """Chromium or the Playwright package is not installed; see scripts/install_browser.sh."""


class BrowserTimeout(BrowserError):
    """A browser call ran past its time limit (a slow server or a wedged page)."""


def chromium_path() -> str:
    """The Chromium executable: ``$AGENTGYM_CHROMIUM`` or ``/usr/bin/chromium``."""
    return os.environ.get("AGENTGYM_CHROMIUM", "/usr/bin/chromium")


def browser_available() -> bool:
    """True when both Playwright and a Chromium executable are installed.

    >>> isinstance(browser_available(), bool)
    True
    """
    try:
        import playwright.async_api  # noqa: F401
    except ImportError:
        return False
    return os.access(chromium_path(), os.X_OK)


def launch_args(euid: int | None = None) -> list[str]:
    """:data:`LAUNCH_ARGS`, plus ``--no-sandbox`` when running as root (``euid`` 0).

    Chromium will not start its sandbox as root (containers, CI); everywhere else the
    sandbox stays on.

    >>> "--no-sandbox" in launch_args(euid=0), "--no-sandbox" in launch_args(euid=1000)
    (True, False)
    """
    if euid is None:
        euid = os.geteuid() if hasattr(os, "geteuid") else -1
    return [*LAUNCH_ARGS, "--no-sandbox"] if euid == 0 else list(LAUNCH_ARGS)


async def _run_job(fn: Callable[..., Any], args: tuple[Any, ...], timeout_s: float | None) -> Any:
    """Call ``fn(*args)``, await what it returns if that is awaitable, within ``timeout_s``."""

    async def body() -> Any:
        result = fn(*args)
        if inspect.isawaitable(result):
            result = await result
        return result

    if timeout_s is None:
        return await body()
    limit = asyncio.timeout(timeout_s)
    try:
        async with limit:
            return await body()
    except TimeoutError:
        if limit.expired():  # this job's own limit, not a TimeoutError from inside it
            raise BrowserTimeout(f"the browser job ran past {timeout_s:g} s") from None
        raise


class _Runtime:
    """The process's event-loop thread, its browser and the refcount of open contexts."""

    def __init__(self) -> None:
        self.pid = os.getpid()
        self._lock = threading.Lock()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._playwright: Any = None
        self._browser: Any = None
        # Launching, refcounting and shutting down happen one at a time (on the loop).
        self._browser_lock = asyncio.Lock()
        # Jobs queued by call_soon (closes from finalizers) that no call has waited for yet.
        self._queued: queue.SimpleQueue[concurrent.futures.Future[Any]] = queue.SimpleQueue()
        self.refs = 0
        self.launches = 0
        #: Set by the atexit hook: from then on nothing may start the thread again.
        self.stopped = False

    # The thread -----------------------------------------------------------
    def _start(self) -> asyncio.AbstractEventLoop:
        with self._lock:
            if self.stopped:
                raise BrowserError("the browser runtime has shut down (interpreter exit)")
            if self._thread is None or not self._thread.is_alive() or self._loop is None:
                self._loop = asyncio.new_event_loop()
                self._thread = threading.Thread(
                    target=self._main, args=(self._loop,), name="agentgym-playwright", daemon=True
                )
                self._thread.start()
            return self._loop

    @staticmethod
    def _main(loop: asyncio.AbstractEventLoop) -> None:
        asyncio.set_event_loop(loop)
        try:
            loop.run_forever()
        finally:
            # Whatever is still pending (a job cancelled at exit) is cancelled and reaped, so
            # that closing the loop does not warn about destroyed tasks.
            pending = asyncio.all_tasks(loop)
            for task in pending:
                task.cancel()
            with contextlib.suppress(Exception):
                loop.run_until_complete(asyncio.gather(*pending, return_exceptions=True))
            loop.close()

    def on_thread(self) -> bool:
        """True on the runtime's own thread (inside a browser job or a Playwright callback)."""
        return self._thread is not None and threading.current_thread() is self._thread

    def call(self, fn: Callable[..., T | Awaitable[T]], *args: Any, timeout_s: float | None) -> T:
        """Run ``fn(*args)`` on the loop (awaiting what it returns) and return its result.

        The job is cancelled after ``timeout_s`` and :class:`BrowserTimeout` raised; the
        caller gives up ``GRACE_S`` later still should the loop itself be blocked.
        """
        if self.on_thread():
            raise BrowserError("a browser job cannot wait for another browser job")
        loop = self._start()
        self._drain_queued()
        fut = asyncio.run_coroutine_threadsafe(_run_job(fn, args, timeout_s), loop)
        wait = None if timeout_s is None else timeout_s + GRACE_S
        done, _ = concurrent.futures.wait([fut], timeout=wait)
        if not done:
            fut.cancel()
            raise BrowserTimeout(f"the browser did not answer within {wait:g} s")
        return fut.result()

    def call_soon(self, fn: Callable[..., Any], *args: Any) -> None:
        """Queue ``fn(*args)`` for the loop without waiting for it (any thread, even its own).

        The next :meth:`call` from any thread starts only after it has finished, so that a
        close queued by a finalizer is done (the context counted out) before anything else.
        Takes no lock: a finalizer may run on a thread that holds one.
        """
        loop = self._loop
        if loop is None or loop.is_closed():
            return
        with contextlib.suppress(RuntimeError):  # the loop closed in between: nothing to do
            self._queued.put(
                asyncio.run_coroutine_threadsafe(_run_job(fn, args, CLOSE_TIMEOUT_S), loop)
            )

    def _drain_queued(self) -> None:
        queued = []
        with contextlib.suppress(queue.Empty):
            while True:
                queued.append(self._queued.get_nowait())
        if queued:
            concurrent.futures.wait(queued, timeout=CLOSE_TIMEOUT_S + GRACE_S)

    # The browser (these run on the loop) -----------------------------------
    async def _ensure_browser(self) -> Any:
        if self._browser is not None and self._browser.is_connected():
            return self._browser
        if self._playwright is None:
            try:
                from playwright.async_api import async_playwright
            except ImportError as exc:
                raise BrowserUnavailable(
                    "playwright is not installed; run scripts/install_browser.sh"
                ) from exc
            self._playwright = await async_playwright().start()
        exe = chromium_path()
        if not os.access(exe, os.X_OK):
            raise BrowserUnavailable(
                f"no Chromium at {exe}; run scripts/install_browser.sh or set AGENTGYM_CHROMIUM"
            )
        self._browser = await self._playwright.chromium.launch(
            executable_path=exe,
            args=launch_args(),
            headless=True,
            timeout=LAUNCH_TIMEOUT_S * 1000,
        )
        self.launches += 1
        return self._browser

    async def _shutdown_browser(self) -> None:
        browser, self._browser = self._browser, None
        pw, self._playwright = self._playwright, None
        # Already gone (a crashed browser, an interpreter exiting): nothing left to free.
        with contextlib.suppress(Exception):
            if browser is not None:
                async with asyncio.timeout(CLOSE_TIMEOUT_S):
                    await browser.close()
        with contextlib.suppress(Exception):
            if pw is not None:
                async with asyncio.timeout(CLOSE_TIMEOUT_S):
                    await pw.stop()

    # Refcounting ----------------------------------------------------------
    def acquire_context(self, factory: Callable[[Any], Awaitable[T]]) -> T:
        """Launch the browser if needed and build a context with ``await factory(browser)``."""

        async def job() -> T:
            async with self._browser_lock:
                browser = await self._ensure_browser()
                made = await factory(browser)
                self.refs += 1
                return made

        return self.call(job, timeout_s=LAUNCH_TIMEOUT_S + CLOSE_TIMEOUT_S)

    async def release_job(self, closer: Callable[[], Awaitable[None]]) -> None:
        """Run ``closer()`` and drop one reference; the last one closes the browser."""
        async with self._browser_lock:
            try:
                async with asyncio.timeout(CLOSE_TIMEOUT_S):
                    await closer()
            except Exception:  # the context (or the browser) is already gone
                pass
            finally:
                self.refs = max(0, self.refs - 1)
                if self.refs == 0:
                    await self._shutdown_browser()

    def release_context(self, closer: Callable[[], Awaitable[None]]) -> None:
        """:meth:`release_job` on the loop, waiting for it."""
        self.call(self.release_job, closer, timeout_s=3 * CLOSE_TIMEOUT_S)

    def shutdown(self) -> None:
        """Close the browser and stop the thread (atexit; contexts left open die with it)."""
        with self._lock:
            self.stopped = True
            loop, thread = self._loop, self._thread
        if loop is None or thread is None or not thread.is_alive():
            return
        if self.pid == os.getpid():
            fut = asyncio.run_coroutine_threadsafe(self._shutdown_browser(), loop)
            concurrent.futures.wait([fut], timeout=2 * CLOSE_TIMEOUT_S + GRACE_S)
        loop.call_soon_threadsafe(loop.stop)
        thread.join(timeout=CLOSE_TIMEOUT_S)


_RUNTIME: _Runtime | None = None
_RUNTIME_LOCK = threading.Lock()


def get_runtime() -> _Runtime:
    """This process's runtime; a forked child gets a fresh one (the parent's thread is gone)."""
    global _RUNTIME
    with _RUNTIME_LOCK:
        if _RUNTIME is None or _RUNTIME.pid != os.getpid():
            _RUNTIME = _Runtime()
        return _RUNTIME


@atexit.register
def _close_at_exit() -> None:
    rt = _RUNTIME
    if rt is not None and rt.pid == os.getpid():
        rt.shutdown()


def runtime_stats() -> dict[str, int]:
    """Open contexts and browser launches in this process (for tests and benchmarks).

    >>> sorted(runtime_stats())
    ['browser_running', 'contexts', 'launches']
    """
    rt = _RUNTIME
    if rt is None or rt.pid != os.getpid():
        return {"contexts": 0, "launches": 0, "browser_running": 0}
    return {
        "contexts": rt.refs,
        "launches": rt.launches,
        "browser_running": int(rt._browser is not None),
    }
