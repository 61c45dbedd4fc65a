"""Shared browser machinery: one Chromium per process, one context per env.

Every browser env in agentgym goes through this module, so the lessons from BrowserGym are
learnt once:

* **One browser per process, one context per env.** The first :func:`new_context` launches
  Chromium; closing the last context closes it again (and an ``atexit`` hook closes whatever
  is left). A context is cheap (a few MB, a few ms); a browser is not.
* **Works inside asyncio.** Playwright's sync API refuses to run on a thread with a running
  event loop, which is exactly where async RL frameworks call ``env.step``. Here every
  Playwright call runs on one dedicated thread per process; callers on any thread (with or
  without a loop) hand it a function and wait for the answer.
* **Offline by construction.** Each context aborts every request whose host is not loopback
  (and, when ``allowed_origins`` is given, not one of those origins), blocks service workers,
  and the browser is launched with a dead proxy for non-loopback hosts as a second fence.
* **No sleeps.** Actions wait on load states and navigations, never on timers or ``slow_mo``.
* **Fast observations.** :data:`AXTREE_JS` walks the DOM once in the page and returns an
  accessibility-tree text with element ids (``[12] button "Buy Now"``), in about a
  millisecond on a shop page; Playwright's ``aria_snapshot`` gives the same picture in ~40 ms
  and has no stable ids. Sites stamp ``data-agid`` on interactive elements (BrowserGym's bid
  idea); pages that do not get ids stamped by the walker.
* **Screenshots without Pillow.** The PNG comes from CDP with ``optimizeForSpeed`` (Chromium
  then only uses the "Up" row filter) and is decoded by :func:`decode_png` with numpy.

>>> from agentgym.browser import browser_available, new_context
>>> if browser_available():
...     ctx = new_context()
...     ctx.set_content('<button data-agid="1">Buy Now</button>')
...     print(ctx.observe())
...     ctx.close()
[1] button "Buy Now"
"""

from __future__ import annotations

import atexit
import base64
import concurrent.futures
import contextlib
import os
import queue
import re
import struct
import sys
import threading
import unicodedata
import urllib.parse
import zlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, TypeVar

import numpy as np

__all__ = [
    "ACTION_HELP",
    "AXTREE_JS",
    "KEYS",
    "LAUNCH_ARGS",
    "SETTLE_HOOK",
    "ActionResult",
    "BrowserAction",
    "BrowserContextHandle",
    "BrowserError",
    "BrowserUnavailable",
    "Observation",
    "browser_available",
    "browser_pids",
    "chromium_path",
    "decode_png",
    "new_context",
    "page_snapshot",
    "parse_browser_action",
    "perform_action",
    "runtime_stats",
    "to_ascii",
]

T = TypeVar("T")

#: Flags for a quiet, offline, sandbox-less (containers run as root) headless Chromium. The
#: proxy sends any non-loopback connection to a closed port: a second fence behind the
#: per-context request router, and one that also covers WebSockets and prefetches.
LAUNCH_ARGS: tuple[str, ...] = (
    "--no-sandbox",
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
    "--proxy-server=http://127.0.0.1:9",
    "--proxy-bypass-list=127.0.0.1;localhost;[::1]",
)

#: Hosts a page may ever reach.
LOOPBACK_HOSTS: frozenset[str] = frozenset({"127.0.0.1", "localhost", "::1", "[::1]"})

#: Default time limit for one Playwright call. Loopback pages load in milliseconds; this only
#: bounds a wedged browser so that a rollout worker gets an error instead of hanging.
DEFAULT_TIMEOUT_MS = 10_000


class BrowserError(RuntimeError):
    """A browser call failed (crashed page, closed context, timeout)."""


class BrowserUnavailable(BrowserError):
    """Chromium or the Playwright package is not installed; see scripts/install_browser.sh."""


def chromium_path() -> str:
    """The Chromium executable: ``$AGENTGYM_CHROMIUM`` or ``/usr/bin/chromium``."""
    return os.environ.get("AGENTGYM_CHROMIUM", "/usr/bin/chromium")


def browser_available() -> bool:
    """True when both Playwright and a Chromium executable are installed.

    >>> isinstance(browser_available(), bool)
    True
    """
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return False
    return os.access(chromium_path(), os.X_OK)


def to_ascii(text: str) -> str:
    """Fold text to printable ASCII (accents dropped, other symbols as ``?``), one line.

    >>> to_ascii("Café – 2×3")
    'Cafe - 2x3'
    """
    folded = unicodedata.normalize("NFKD", text)
    out = []
    for ch in folded:
        if " " <= ch <= "~":
            out.append(ch)
        elif ch in "\t\n\r\f\v":
            out.append(" ")
        elif unicodedata.combining(ch):
            continue
        else:
            out.append(_ASCII_FALLBACK.get(ch, "?"))
    return "".join(out)


_ASCII_FALLBACK = {
    "\u2013": "-", "\u2014": "-", "\u2212": "-", "\u00d7": "x", "\u2018": "'", "\u2019": "'",
    "\u201c": '"', "\u201d": '"', "\u2026": "...", "\u00a0": " ", "\u2022": "*", "\u00b7": ".",
}  # fmt: skip


# ---------------------------------------------------------------------------- PNG decoding
def _unfilter_row(ftype: int, row: np.ndarray, prev: np.ndarray, bpp: int) -> np.ndarray:
    if ftype == 0:
        return row
    if ftype == 2:
        return row + prev  # uint8 arithmetic wraps mod 256, as PNG wants
    if ftype == 1:
        # Sub: each byte adds the reconstructed byte bpp to its left, i.e. a per-channel
        # running sum along the row.
        px = row.reshape(-1, bpp).astype(np.uint32)
        return (np.cumsum(px, axis=0) & 0xFF).astype(np.uint8).reshape(-1)
    out = np.empty_like(row)
    r = row.astype(np.int32)
    b = prev.astype(np.int32)
    if ftype == 3:  # Average
        for i in range(len(r)):
            left = int(out[i - bpp]) if i >= bpp else 0
            out[i] = (r[i] + ((left + b[i]) >> 1)) & 0xFF
        return out
    if ftype == 4:  # Paeth
        for i in range(len(r)):
            a = int(out[i - bpp]) if i >= bpp else 0
            c = int(b[i - bpp]) if i >= bpp else 0
            p = a + b[i] - c
            pa, pb, pc = abs(p - a), abs(p - b[i]), abs(p - c)
            pred = a if pa <= pb and pa <= pc else (b[i] if pb <= pc else c)
            out[i] = (r[i] + pred) & 0xFF
        return out
    raise ValueError(f"bad PNG filter type {ftype}")


def decode_png(data: bytes) -> np.ndarray:
    """Decode an 8-bit RGB/RGBA PNG into an ``(H, W, 3)`` uint8 array (alpha dropped).

    Fast (vectorised) for the None/Sub/Up filters Chromium uses with ``optimizeForSpeed``;
    Average/Paeth rows are decoded correctly but slowly.

    >>> import zlib, struct
    >>> def chunk(t, c): return struct.pack(">I", len(c)) + t + c + struct.pack(">I", 0)
    >>> ihdr = struct.pack(">IIBBBBB", 2, 1, 8, 2, 0, 0, 0)
    >>> png = b"\\x89PNG\\r\\n\\x1a\\n" + chunk(b"IHDR", ihdr) + chunk(
    ...     b"IDAT", zlib.compress(bytes([0, 255, 0, 0, 0, 0, 255]))) + chunk(b"IEND", b"")
    >>> decode_png(png).tolist()
    [[[255, 0, 0], [0, 0, 255]]]
    """
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG")
    pos = 8
    width = height = 0
    channels = 0
    idat = []
    while pos + 8 <= len(data):
        (length,) = struct.unpack(">I", data[pos : pos + 4])
        ctype = data[pos + 4 : pos + 8]
        body = data[pos + 8 : pos + 8 + length]
        if ctype == b"IHDR":
            width, height, depth, color, _, _, interlace = struct.unpack(">IIBBBBB", body)
            if depth != 8 or color not in (2, 6) or interlace:
                raise ValueError(f"unsupported PNG (depth {depth}, colour {color})")
            channels = 3 if color == 2 else 4
        elif ctype == b"IDAT":
            idat.append(body)
        elif ctype == b"IEND":
            break
        pos += 12 + length
    if not channels:
        raise ValueError("PNG without IHDR")
    stride = width * channels
    raw = np.frombuffer(zlib.decompress(b"".join(idat)), dtype=np.uint8)
    raw = raw[: height * (stride + 1)].reshape(height, stride + 1)
    ftypes = raw[:, 0]
    rows = raw[:, 1:]
    pixels = np.empty_like(rows)
    prev = np.zeros(stride, dtype=np.uint8)
    for y in range(height):
        ftype = int(ftypes[y])
        if ftype == 2:
            # "Up", the only filter Chromium uses with optimizeForSpeed: one vector add per
            # row (a row loop beats np.cumsum down the columns by ~15x: memory order).
            np.add(prev, rows[y], out=pixels[y])
        else:
            pixels[y] = _unfilter_row(ftype, rows[y], prev, channels)
        prev = pixels[y]
    return np.ascontiguousarray(pixels.reshape(height, width, channels)[:, :, :3])


# ---------------------------------------------------------------------------- the AX walker
#: What a site defines to load pages in place (fetch + swap) instead of navigating, which on
#: a small machine is 2-3x faster than a Chromium navigation: ``window.__agentgymSettle()``
#: returns a promise that resolves when every load started so far has been applied, and
#: ``window.__agentgymLoads`` counts the loads started. Actions then never wait for a
#: navigation on such a page; the observation awaits the promise instead.
SETTLE_HOOK = "__agentgymSettle"
#: One ``page.evaluate`` that renders the page as accessibility-tree lines.
#:
#: Interactive elements get ``[id]`` from their ``data-agid`` attribute (stamped by the site or,
#: with ``stamp``, by this script); landmarks and lists indent their content; text is folded to
#: ``text "..."`` lines. Hidden elements (``hidden``, ``aria-hidden``, ``display:none``,
#: ``visibility:hidden``) are skipped. Returns ``{lines, ids, title, url, loads}``.
#:
#: It first awaits ``window.__agentgymSettle()`` when the page defines it: the convention (see
#: :data:`SETTLE_HOOK`) by which a site that swaps content in place instead of navigating
#: tells the observer its pending loads are done.
AXTREE_JS = r"""
async (opts) => {
  // A site that loads pages in place says when it is done (see SETTLE_HOOK).
  if (typeof window.__agentgymSettle === 'function') {
    try { await window.__agentgymSettle(); } catch (e) {}
  }
  const MAXTXT = opts.maxText || 300;
  const lines = [];
  const ids = [];
  let next = null;
  const SKIP = new Set(['SCRIPT','STYLE','TEMPLATE','NOSCRIPT','HEAD','META','LINK','TITLE']);
  const IMPLICIT = {A:'link', BUTTON:'button', SELECT:'combobox', TEXTAREA:'textbox',
    H1:'heading', H2:'heading', H3:'heading', H4:'heading', H5:'heading', H6:'heading',
    IMG:'img', UL:'list', OL:'list', LI:'listitem', NAV:'navigation', MAIN:'main',
    HEADER:'banner', FOOTER:'contentinfo', ASIDE:'complementary', FORM:'form',
    FIELDSET:'group', TABLE:'table', TR:'row', TH:'columnheader', TD:'cell', DIALOG:'dialog',
    OPTION:'option', SUMMARY:'button', LABEL:'', SECTION:'region', DETAILS:'group'};
  const LEAF = new Set(['link','button','textbox','searchbox','checkbox','radio','combobox',
    'heading','img','option','tab','menuitem','switch','slider','spinbutton','columnheader',
    'cell']);
  const INTERACTIVE = new Set(['link','button','textbox','searchbox','checkbox','radio',
    'combobox','option','tab','menuitem','switch','slider','spinbutton']);
  const CONTAINER = new Set(['list','navigation','main','banner','contentinfo','complementary',
    'form','group','table','row','dialog','region','radiogroup','tablist','menu','listbox',
    'search']);
  const clean = (s) => (s || '').replace(/\s+/g, ' ').trim();
  const clip = (s) => s.length > MAXTXT ? s.slice(0, MAXTXT) + '...' : s;
  const q = (s) => '"' + clip(s).replace(/\\/g, '\\\\').replace(/"/g, '\\"') + '"';
  function roleOf(el) {
    const explicit = el.getAttribute('role');
    if (explicit) return explicit.split(' ')[0];
    if (el.tagName === 'INPUT') {
      const t = (el.getAttribute('type') || 'text').toLowerCase();
      if (t === 'hidden') return null;
      if (t === 'checkbox' || t === 'radio') return t;
      if (t === 'submit' || t === 'button' || t === 'reset' || t === 'image') return 'button';
      if (t === 'search') return 'searchbox';
      if (t === 'range') return 'slider';
      if (t === 'number') return 'spinbutton';
      return 'textbox';
    }
    if (el.tagName === 'A' && !el.hasAttribute('href')) return '';
    if (el.tagName === 'SECTION' && !(el.getAttribute('aria-label') ||
        el.getAttribute('aria-labelledby'))) return '';
    return IMPLICIT[el.tagName] || '';
  }
  function byIds(attr) {
    return attr.split(/\s+/).map(i => { const n = document.getElementById(i);
      return n ? n.textContent : ''; }).join(' ');
  }
  function nameOf(el, role) {
    let n = el.getAttribute('aria-label');
    if (n) return clean(n);
    const lb = el.getAttribute('aria-labelledby');
    if (lb) return clean(byIds(lb));
    if (el.tagName === 'INPUT' || el.tagName === 'TEXTAREA' || el.tagName === 'SELECT') {
      const t = (el.getAttribute('type') || '').toLowerCase();
      if (t === 'submit' || t === 'button' || t === 'reset') return clean(el.value);
      if (el.labels && el.labels.length) return clean(el.labels[0].textContent);
      return clean(el.getAttribute('placeholder') || el.getAttribute('title') || '');
    }
    if (el.tagName === 'IMG') return clean(el.getAttribute('alt') || el.getAttribute('title'));
    if (LEAF.has(role)) return clean(el.innerText !== undefined ? el.innerText : el.textContent);
    return '';
  }
  function hidden(el) {
    if (el.hidden || el.getAttribute('aria-hidden') === 'true') return true;
    return !el.checkVisibility({visibilityProperty: true});
  }
  function idOf(el, role) {
    let id = el.getAttribute('data-agid');
    if (id === null && opts.stamp && INTERACTIVE.has(role)) {
      if (next === null) {
        // Continue after the largest id in the document (set_content keeps the window).
        next = 0;
        for (const e of document.querySelectorAll('[data-agid]')) {
          const n = parseInt(e.getAttribute('data-agid'), 10);
          if (n >= next) next = n + 1;
        }
      }
      id = String(next++); el.setAttribute('data-agid', id);
    }
    return id;
  }
  function walk(node, depth) {
    for (let c = node.firstChild; c; c = c.nextSibling) {
      if (c.nodeType === 3) {
        // A label wrapping its control already names it: do not repeat its words.
        if (node.tagName === 'LABEL' && node.control && node.contains(node.control)) continue;
        const t = clean(c.nodeValue);
        if (t) lines.push('  '.repeat(depth) + 'text ' + q(t));
        continue;
      }
      if (c.nodeType !== 1 || SKIP.has(c.tagName) || hidden(c)) continue;
      const role = roleOf(c);
      if (role === null) continue;
      if (LEAF.has(role)) {
        const id = idOf(c, role);
        let line = '  '.repeat(depth) + (id !== null ? '[' + id + '] ' : '') + role;
        const name = nameOf(c, role);
        if (name) line += ' ' + q(name);
        if (role === 'heading') { const lv = c.getAttribute('aria-level') ||
          (/^H[1-6]$/.test(c.tagName) ? c.tagName[1] : ''); if (lv) line += ' level=' + lv; }
        if (role === 'textbox' || role === 'searchbox' || role === 'spinbutton' ||
            role === 'combobox') {
          const v = clean(c.value || '');
          if (v || role !== 'combobox') line += ' value=' + q(v);
        }
        if ((role === 'checkbox' || role === 'radio' || role === 'switch') &&
            (c.checked || c.getAttribute('aria-checked') === 'true')) line += ' checked';
        if (c.getAttribute('aria-selected') === 'true' || (role === 'option' && c.selected))
          line += ' selected';
        if (c.getAttribute('aria-current') && c.getAttribute('aria-current') !== 'false')
          line += ' current';
        if (c.disabled || c.getAttribute('aria-disabled') === 'true') line += ' disabled';
        if (c === document.activeElement) line += ' focused';
        if (id !== null) ids.push([id, role]);
        lines.push(line);
        if (role === 'combobox' && c.tagName === 'SELECT') walk(c, depth + 1);
        continue;
      }
      if (CONTAINER.has(role)) {
        const name = nameOf(c, role);
        lines.push('  '.repeat(depth) + role + (name ? ' ' + q(name) : ''));
        walk(c, depth + 1);
        continue;
      }
      walk(c, depth);
    }
  }
  walk(document.body || document.documentElement, 0);
  const f = document.activeElement;
  return {lines: lines, ids: ids, title: document.title || '', url: location.href,
          loads: window.__agentgymLoads || 0,
          focused: f && f !== document.body && f.getAttribute ? f.getAttribute('data-agid') : null};
}
"""


# ---------------------------------------------------------------------------- the runtime
class _Runtime:
    """The process's Playwright thread, its browser and the refcount of open contexts."""

    def __init__(self) -> None:
        self.pid = os.getpid()
        self._lock = threading.Lock()
        self._jobs: queue.SimpleQueue[Any] = queue.SimpleQueue()
        self._thread: threading.Thread | None = None
        self._playwright: Any = None
        self._browser: Any = None
        self.refs = 0
        self.launches = 0
        #: Set by the atexit hook: from then on nothing may start the thread again.
        self.stopped = False

    # The thread -----------------------------------------------------------
    def _loop(self) -> None:
        while True:
            job = self._jobs.get()
            if job is None:
                return
            fn, args, fut = job
            if fut.set_running_or_notify_cancel():
                try:
                    fut.set_result(fn(*args))
                except BaseException as exc:  # handed to the caller, who decides
                    fut.set_exception(exc)
                    del exc
            # Drop the references now, not when the next job arrives: a finished job must
            # not keep its env (bound methods, pages) alive.
            del job, fn, args, fut

    def on_thread(self) -> bool:
        return self._thread is not None and threading.current_thread() is self._thread

    def call(self, fn: Callable[..., T], *args: Any) -> T:
        """Run ``fn(*args)`` on the Playwright thread and return its result (or raise)."""
        if self.on_thread():
            return fn(*args)
        with self._lock:
            if self.stopped:
                raise BrowserError("the browser runtime has shut down (interpreter exit)")
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(
                    target=self._loop, name="agentgym-playwright", daemon=True
                )
                self._thread.start()
        fut: concurrent.futures.Future[T] = concurrent.futures.Future()
        self._jobs.put((fn, args, fut))
        return fut.result()

    def call_soon(self, fn: Callable[..., Any], *args: Any) -> None:
        """Queue ``fn(*args)`` for the Playwright thread without waiting for it."""
        fut: concurrent.futures.Future[Any] = concurrent.futures.Future()
        self._jobs.put((fn, args, fut))

    # The browser (these run on the Playwright thread) ----------------------
    def _ensure_browser(self) -> Any:
        if self._browser is not None and self._browser.is_connected():
            return self._browser
        if self._playwright is None:
            try:
                from playwright.sync_api import sync_playwright
            except ImportError as exc:
                raise BrowserUnavailable(
                    "playwright is not installed; run scripts/install_browser.sh"
                ) from exc
            self._playwright = sync_playwright().start()
        exe = chromium_path()
        if not os.access(exe, os.X_OK):
            raise BrowserUnavailable(
                f"no Chromium at {exe}; run scripts/install_browser.sh or set AGENTGYM_CHROMIUM"
            )
        self._browser = self._playwright.chromium.launch(
            executable_path=exe, args=list(LAUNCH_ARGS), headless=True
        )
        self.launches += 1
        return self._browser

    def _shutdown_browser(self) -> None:
        browser, self._browser = self._browser, None
        pw, self._playwright = self._playwright, None
        try:
            if browser is not None:
                browser.close()
        except Exception:  # already gone: nothing left to free
            pass
        try:
            if pw is not None:
                pw.stop()
        except Exception:
            pass

    # Refcounting ----------------------------------------------------------
    def acquire_context(self, factory: Callable[[Any], T]) -> T:
        """Launch the browser if needed and build a context with ``factory(browser)``."""

        def job() -> T:
            browser = self._ensure_browser()
            made = factory(browser)
            self.refs += 1
            return made

        return self.call(job)

    def release_context(self, closer: Callable[[], None]) -> None:
        def job() -> None:
            try:
                closer()
            finally:
                self.refs = max(0, self.refs - 1)
                if self.refs == 0:
                    self._shutdown_browser()

        self.call(job)

    def shutdown(self) -> None:
        """Close the browser and stop the thread (atexit; contexts left open die with it)."""
        if self._thread is None or not self._thread.is_alive():
            self.stopped = True
            return
        if self.pid == os.getpid():
            with contextlib.suppress(Exception):
                self.call(self._shutdown_browser)
        with self._lock:
            self.stopped = True
        self._jobs.put(None)
        self._thread.join(timeout=10)


_RUNTIME: _Runtime | None = None
_RUNTIME_LOCK = threading.Lock()


def _runtime() -> _Runtime:
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


def browser_pids() -> list[int]:
    """Pids of the Chromium processes this process started (read from /proc; Linux only).

    Walks the process tree below this process and keeps the ones whose executable name
    contains ``chrom`` (the browser, its renderers, GPU and utility processes).
    """
    children: dict[int, list[int]] = {}
    names: dict[int, str] = {}
    try:
        entries = os.listdir("/proc")
    except OSError:
        return []
    for entry in entries:
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as fh:
                stat = fh.read().decode("ascii", "replace")
        except OSError:
            continue
        # The command name is in parentheses and may contain spaces; the ppid follows it.
        name = stat[stat.find("(") + 1 : stat.rfind(")")]
        fields = stat[stat.rfind(")") + 2 :].split()
        pid, ppid = int(entry), int(fields[1])
        names[pid] = name
        children.setdefault(ppid, []).append(pid)
    found = []
    stack = list(children.get(os.getpid(), []))
    while stack:
        pid = stack.pop()
        if "chrom" in names.get(pid, "").lower():
            found.append(pid)
        stack.extend(children.get(pid, []))
    return sorted(found)


# ---------------------------------------------------------------------------- contexts
@dataclass
class Observation:
    """The accessibility-tree text of a page, with the element ids it lists."""

    text: str
    #: Element ids in page order, each with the role it is shown with.
    roles: dict[str, str]
    title: str
    url: str
    #: In-place loads the page has started so far (``window.__agentgymLoads``; 0 if none).
    loads: int = 0
    #: The id of the element that has the keyboard focus, if it has one.
    focused: str | None = None

    @property
    def ids(self) -> list[str]:
        """The element ids listed, in page order."""
        return list(self.roles)


def _host_allowed(url: str, allowed_origins: frozenset[str] | None) -> bool:
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


# ---------------------------------------------------------------------------- actions
#: Keys :func:`parse_browser_action` accepts for ``press``; no modifier chords, so no browser
#: shortcut (history, tabs, devtools) is reachable.
KEYS: dict[str, str] = {
    k.lower(): k
    for k in (
        "Enter", "Tab", "Escape", "Backspace", "Delete", "Space", "ArrowUp", "ArrowDown",
        "ArrowLeft", "ArrowRight", "PageUp", "PageDown", "Home", "End",
    )
}  # fmt: skip
KEYS.update({"esc": "Escape", "return": "Enter", "up": "ArrowUp", "down": "ArrowDown"})

#: The action grammar, for prompts and error messages.
ACTION_HELP = (
    'click(ID), fill(ID, "text"), press(KEY) with KEY one of Enter, Tab, Escape, Backspace, '
    "ArrowUp, ArrowDown, PageUp, PageDown, Space; scroll(up) or scroll(down); back()"
)
MAX_FILL_CHARS = 512
_CALL = re.compile(r"^\s*([A-Za-z_]+)\s*(?:\((.*)\)|\s(.*)|)\s*$", re.DOTALL)
_ID = re.compile(r"^[A-Za-z0-9_-]{1,32}$")


@dataclass(frozen=True)
class BrowserAction:
    """One parsed browser action: ``verb`` in click/fill/press/scroll/back plus its arguments.

    >>> parse_browser_action('fill(7, "red shoes")')[0]
    BrowserAction(verb='fill', target='7', text='red shoes')
    """

    verb: str
    target: str = ""
    text: str = ""

    def __str__(self) -> str:
        if self.verb == "fill":
            return f'fill({self.target}, "{self.text}")'
        if self.verb in ("click",):
            return f"click({self.target})"
        if self.verb in ("press", "scroll"):
            return f"{self.verb}({self.text})"
        return "back()"


def _unquote(arg: str) -> str:
    arg = arg.strip()
    if len(arg) >= 2 and arg[0] == arg[-1] and arg[0] in "\"'":
        inner = arg[1:-1]
        return inner.replace("\\" + arg[0], arg[0]).replace("\\\\", "\\")
    return arg


def _element_id(arg: str) -> str | None:
    arg = _unquote(arg)
    if len(arg) >= 2 and arg[0] == "[" and arg[-1] == "]":
        arg = arg[1:-1].strip()
    return arg if _ID.match(arg) else None


def parse_browser_action(text: str) -> tuple[BrowserAction | None, str]:
    """Parse ``click(12)``, ``fill(7, "text")``, ``press(Enter)``, ``scroll(down)``, ``back()``.

    Never raises; returns ``(None, error)`` for anything else. Lenient with case, spaces,
    quotes and brackets around ids; strict about the verb and argument count.

    >>> parse_browser_action("Click [12]")
    (BrowserAction(verb='click', target='12', text=''), '')
    >>> parse_browser_action("press(enter)")[0].text
    'Enter'
    >>> parse_browser_action("clik(3)")[1][:29]
    "unknown action 'clik'; use on"
    """
    if not isinstance(text, str):
        return None, f"action must be a string; use one of: {ACTION_HELP}"
    m = _CALL.match(text)
    if not m:
        return None, f"could not read {text[:60]!r} as an action; use one of: {ACTION_HELP}"
    verb = m.group(1).lower()
    raw = m.group(2) if m.group(2) is not None else (m.group(3) or "")
    if verb == "click":
        target = _element_id(raw)
        if target is None:
            return None, f"click needs one element id, e.g. click(12); got {raw[:40]!r}"
        return BrowserAction("click", target), ""
    if verb in ("fill", "type"):
        head, comma, rest = raw.partition(",")
        target = _element_id(head)
        if not comma or target is None:
            return (
                None,
                f'fill needs an element id and text, e.g. fill(7, "red shoes"); got {raw[:40]!r}',
            )
        value = _unquote(rest)
        if len(value) > MAX_FILL_CHARS:
            return None, f"fill text is {len(value)} characters; the limit is {MAX_FILL_CHARS}"
        if any(ch < " " and ch not in "\t" for ch in value):
            return None, "fill text must be one line of printable characters"
        return BrowserAction("fill", target, value), ""
    if verb == "press":
        key = KEYS.get(_unquote(raw).lower().replace(" ", ""))
        if key is None:
            return (
                None,
                f"press needs one key ({', '.join(sorted(set(KEYS.values())))}); got {raw[:40]!r}",
            )
        return BrowserAction("press", text=key), ""
    if verb == "scroll":
        direction = _unquote(raw).lower()
        if direction not in ("up", "down"):
            return None, f"scroll takes up or down, e.g. scroll(down); got {raw[:40]!r}"
        return BrowserAction("scroll", text=direction), ""
    if verb in ("back", "goback", "go_back"):
        if raw.strip():
            return None, "back takes no argument: back()"
        return BrowserAction("back"), ""
    return None, f"unknown action {verb[:20]!r}; use one of: {ACTION_HELP}"


# Finds the element, checks it, and (unless ``mode`` is "inspect") acts on it in the same call:
# "fill" sets the value and fires input/change; "click" clicks it unless the click would
# navigate, in which case the caller clicks it again inside an expect_navigation() block.
_ELEMENT_JS = r"""
([id, mode, text]) => {
  const el = document.querySelector('[data-agid="' + id + '"]');
  if (!el) return {found: false};
  const tag = el.tagName;
  const type = (el.getAttribute('type') || '').toLowerCase();
  const NOTEXT = ['checkbox','radio','submit','button','reset','image','hidden','file','range',
                  'color'];
  const editable = ((tag === 'TEXTAREA' || (tag === 'INPUT' && !NOTEXT.includes(type)) ||
                    el.isContentEditable) && !el.readOnly);
  let nav = false;
  const a = el.closest('a[href]');
  if (a) {
    const h = (a.getAttribute('href') || '').trim().toLowerCase();
    nav = !h.startsWith('#') && !h.startsWith('javascript:') && a.target !== '_blank' &&
          !a.hasAttribute('download');
  } else if ((tag === 'BUTTON' && (type === '' || type === 'submit')) ||
             (tag === 'INPUT' && (type === 'submit' || type === 'image'))) {
    nav = !!el.form;
  }
  // A page that loads in place handles its links and forms itself: nothing to wait for here.
  if (typeof window.__agentgymSettle === 'function') nav = false;
  const info = {found: true, editable: editable, nav: nav, done: false, loading: false,
                visible: el.checkVisibility({visibilityProperty: true}),
                disabled: !!el.disabled || el.getAttribute('aria-disabled') === 'true'};
  if (!info.visible || info.disabled || mode === 'inspect') return info;
  if (mode === 'fill') {
    if (!editable) return info;
    el.focus();
    if (el.isContentEditable) el.textContent = text; else el.value = text;
    el.dispatchEvent(new Event('input', {bubbles: true}));
    el.dispatchEvent(new Event('change', {bubbles: true}));
    info.done = true;
  } else if (mode === 'click' && !nav) {
    const before = window.__agentgymLoads || 0;
    if (el.focus) el.focus();
    el.click();
    info.loading = (window.__agentgymLoads || 0) !== before;
    info.done = true;
  } else if (mode === 'click-now') {
    if (el.focus) el.focus();
    el.click();
    info.done = true;
  }
  return info;
}
"""

_KEY_NAV_JS = r"""
(key) => {
  const el = document.activeElement;
  if (!el || el === document.body) return false;
  if (typeof window.__agentgymSettle === 'function') return false;
  const tag = el.tagName;
  const type = (el.getAttribute('type') || 'text').toLowerCase();
  const submit = (tag === 'BUTTON' && (type === 'submit' || !el.getAttribute('type'))) ||
                 (tag === 'INPUT' && (type === 'submit' || type === 'image'));
  if (key === 'Enter') {
    const a = el.closest('a[href]');
    if (a) return !(a.getAttribute('href') || '#').startsWith('#');
    if (submit) return !!el.form;
    const TEXT = ['text','search','email','url','tel','number','password'];
    if (tag === 'INPUT' && TEXT.includes(type) && el.form) {
      const f = el.form;
      if (f.querySelector('button:not([type]),button[type=submit],input[type=submit]'))
        return true;
      return Array.from(f.elements).filter(e => e.tagName === 'INPUT' &&
        TEXT.includes((e.getAttribute('type') || 'text').toLowerCase())).length === 1;
    }
    return false;
  }
  if (key === ' ') return submit && !!el.form;
  return false;
}
"""


@dataclass
class ActionResult:
    """What :meth:`BrowserContextHandle.perform` did: ``error`` is empty on success."""

    error: str = ""
    navigated: bool = False


def _blocked_pattern(allowed_origins: frozenset[str] | None) -> re.Pattern[str]:
    """A regex matching every URL outside ``allowed_origins`` (or outside loopback)."""
    if allowed_origins is None:
        allowed = r"https?://(?:127\.0\.0\.1|localhost|\[::1\])(?::\d+)?"
    else:
        allowed = "(?:" + "|".join(re.escape(o) for o in sorted(allowed_origins)) + ")"
    return re.compile(r"^(?!" + allowed + r"(?:[/?#]|$))", re.IGNORECASE)


class BrowserContextHandle:
    """One env's private browser context (cookies, storage, history) and its one page.

    Every method marshals to the Playwright thread, so a handle is safe to use from any thread
    and from inside a running asyncio loop. :meth:`run` executes an arbitrary function with
    the Playwright ``page`` there, for env-specific action code.
    """

    def __init__(
        self,
        *,
        allowed_origins: Iterable[str] | None = None,
        viewport: tuple[int, int] = (1024, 768),
        timeout_ms: int = DEFAULT_TIMEOUT_MS,
        real_input: bool = False,
    ) -> None:
        self._rt = _runtime()
        #: Use Playwright's mouse and keyboard for click/fill instead of DOM calls.
        self.real_input = bool(real_input)
        self.allowed_origins = (
            None
            if allowed_origins is None
            else frozenset(o.rstrip("/").lower() for o in allowed_origins)
        )
        self.viewport = viewport
        self.timeout_ms = int(timeout_ms)
        #: URLs the router aborted (most recent last, capped), for tests and debugging.
        self.blocked: list[str] = []
        self._closed = False
        self._context: Any = None
        self._page: Any = None
        self._cdp: Any = None
        self._context, self._page = self._rt.acquire_context(self._make)

    # Built on the Playwright thread.
    def _make(self, browser: Any) -> tuple[Any, Any]:
        context = browser.new_context(
            viewport={"width": self.viewport[0], "height": self.viewport[1]},
            service_workers="block",
            accept_downloads=False,
            java_script_enabled=True,
        )
        context.set_default_timeout(self.timeout_ms)
        context.set_default_navigation_timeout(self.timeout_ms)
        # Only requests that are not allowed are routed (the pattern is matched inside the
        # driver), so the shop's own requests never make a round trip through Python.
        context.route(_blocked_pattern(self.allowed_origins), self._route)
        page = context.new_page()
        # Popups would be pages the env does not watch: close them at once.
        context.on("page", lambda p: p.close() if p is not page else None)
        return context, page

    def _route(self, route: Any) -> None:
        url = route.request.url
        if _host_allowed(url, self.allowed_origins):
            route.continue_()
            return
        self.blocked.append(url[:200])
        del self.blocked[:-100]
        route.abort("blockedbyclient")

    # ------------------------------------------------------------------ generic API
    @property
    def closed(self) -> bool:
        """True once :meth:`close` has run."""
        return self._closed

    def run(self, fn: Callable[..., T], *args: Any) -> T:
        """Call ``fn(page, *args)`` on the Playwright thread and return its result."""
        if self._closed:
            raise BrowserError("the browser context is closed")
        return self._rt.call(fn, self._page, *args)

    def perform(self, action: BrowserAction, *, click_timeout_ms: int = 2000) -> ActionResult:
        """Run one action and wait until any navigation it started has loaded.

        Never raises for a bad target: a missing, hidden, disabled or wrong-kind element is an
        :class:`ActionResult` with ``error`` set. ``back`` refuses to leave the allowed origins.
        """
        return self.run(lambda page: perform_action(self, page, action, click_timeout_ms))

    def goto(self, url: str) -> None:
        """Navigate to ``url`` (blocked hosts raise :class:`BrowserError`) and wait for load."""
        if not _host_allowed(url, self.allowed_origins):
            raise BrowserError(f"navigation outside the allowed origins refused: {url[:200]}")
        self.run(lambda page: page.goto(url, wait_until="load"))

    def set_content(self, html: str) -> None:
        """Replace the page with ``html`` (tests and static pages)."""
        self.run(lambda page: page.set_content(html, wait_until="load"))

    def url(self) -> str:
        """The page's current URL."""
        return self.run(lambda page: page.url)

    def observe(self, *, stamp: bool = True, max_text: int = 300) -> str:
        """The page as accessibility-tree text, ``[id] role "name"`` lines (:data:`AXTREE_JS`)."""
        return self.snapshot(stamp=stamp, max_text=max_text).text

    def snapshot(self, *, stamp: bool = True, max_text: int = 300) -> Observation:
        """Like :meth:`observe`, with the ids, title and URL."""
        return self.run(lambda page: page_snapshot(page, stamp=stamp, max_text=max_text))

    def screenshot(self) -> np.ndarray:
        """The viewport as an ``(H, W, 3)`` uint8 RGB array."""
        return decode_png(self.run(self._png))

    def screenshot_png(self, *, full_page: bool = False) -> bytes:
        """The viewport (or whole page) as PNG bytes, for saving."""
        return self.run(lambda page: page.screenshot(type="png", full_page=full_page))

    def collect_garbage(self) -> None:
        """Run V8's garbage collector in the page now (memory measurements, tests)."""
        self.run(lambda page: self._cdp_session(page).send("HeapProfiler.collectGarbage"))

    def _cdp_session(self, page: Any) -> Any:
        if self._cdp is None:
            self._cdp = self._context.new_cdp_session(page)
        return self._cdp

    def _png(self, page: Any) -> bytes:
        shot = self._cdp_session(page).send(
            "Page.captureScreenshot",
            {"format": "png", "optimizeForSpeed": True, "captureBeyondViewport": False},
        )
        return base64.b64decode(shot["data"])

    def close(self, *, wait: bool = True) -> None:
        """Close the context (idempotent); closing the last context closes the browser.

        ``wait=False`` only queues the closing for the Playwright thread (for finalizers,
        which may run on any thread, including one the browser is waiting for).
        """
        if self._closed:
            return
        self._closed = True
        context, self._context, self._page, self._cdp = self._context, None, None, None

        def closer() -> None:
            # The browser may have died first; then there is nothing left to free.
            with contextlib.suppress(Exception):
                context.close()

        with contextlib.suppress(Exception):
            if self._rt.on_thread() or not wait:
                # From inside a Playwright call (a garbage-collected env's finalizer), closing
                # here would re-enter Playwright: close right after that call instead.
                self._rt.call_soon(self._rt.release_context, closer)
            else:
                self._rt.release_context(closer)

    def __enter__(self) -> BrowserContextHandle:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __del__(self) -> None:
        # A forgotten env must not keep the browser alive forever; the Playwright thread does
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


def _nav_wait(page: Any, nav: bool, timeout_ms: int, act: Callable[[], None]) -> None:
    if not nav:
        act()
        return
    with page.expect_navigation(wait_until="load", timeout=timeout_ms):
        act()


def perform_action(
    handle: BrowserContextHandle, page: Any, action: BrowserAction, click_timeout_ms: int = 2000
) -> ActionResult:
    """The body of :meth:`BrowserContextHandle.perform` (runs on the Playwright thread).

    Clicks and fills run as DOM calls (``el.click()``, setting ``value`` and firing
    ``input``/``change``) in one ``evaluate``: on a 2-core machine Playwright's actionability
    checks (scroll, two animation frames of stability, hit test) cost 50-100 ms a click.
    ``handle.real_input`` switches to Playwright's mouse clicks and typing instead.
    """
    from playwright.sync_api import Error as PlaywrightError

    try:
        if action.verb in ("click", "fill"):
            mode = "inspect" if handle.real_input else action.verb
            info = page.evaluate(_ELEMENT_JS, [action.target, mode, action.text])
            if not info["found"]:
                return ActionResult(f"there is no element [{action.target}] on this page")
            if not info["visible"]:
                return ActionResult(f"element [{action.target}] is not visible")
            if info["disabled"]:
                return ActionResult(f"element [{action.target}] is disabled")
            if action.verb == "fill" and not info["editable"]:
                return ActionResult(f"element [{action.target}] is not a text box")
            if info["done"]:
                return ActionResult(navigated=bool(info.get("loading")))
            nav = bool(info["nav"])
            if handle.real_input:
                loc = page.locator(f'[data-agid="{action.target}"]').first
                if action.verb == "fill":
                    loc.fill(action.text, timeout=click_timeout_ms)
                    return ActionResult()
                _nav_wait(page, nav, handle.timeout_ms, lambda: loc.click(timeout=click_timeout_ms))
            else:
                _nav_wait(
                    page,
                    nav,
                    handle.timeout_ms,
                    lambda: page.evaluate(_ELEMENT_JS, [action.target, "click-now", ""]),
                )
            return ActionResult(navigated=nav)
        if action.verb == "press":
            key = " " if action.text == "Space" else action.text
            nav = bool(page.evaluate(_KEY_NAV_JS, key))
            _nav_wait(page, nav, handle.timeout_ms, lambda: page.keyboard.press(action.text))
            return ActionResult(navigated=nav)
        if action.verb == "scroll":
            sign = -1 if action.text == "up" else 1
            page.evaluate("(dy) => window.scrollBy(0, dy)", sign * int(handle.viewport[1] * 0.8))
            return ActionResult()
        if action.verb == "back":
            return _go_back(handle, page)
    except PlaywrightError as exc:
        # Timeouts and detached elements land here; the page is still usable.
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        return ActionResult(f"the browser could not {action.verb}: {first[:160]}")
    return ActionResult(f"unknown action {action.verb!r}")


def _go_back(handle: BrowserContextHandle, page: Any) -> ActionResult:
    history = handle._cdp_session(page).send("Page.getNavigationHistory")
    index = int(history["currentIndex"])
    previous = history["entries"][index - 1]["url"] if index > 0 else ""
    # about:blank (where every context starts) is no place to go back to.
    if not previous.startswith(("http://", "https://")) or not _host_allowed(
        previous, handle.allowed_origins
    ):
        return ActionResult("there is no earlier page to go back to")
    page.go_back(wait_until="load")
    return ActionResult(navigated=True)


def page_snapshot(page: Any, *, stamp: bool = True, max_text: int = 300) -> Observation:
    """Run :data:`AXTREE_JS` in ``page`` (call on the Playwright thread, e.g. inside ``run``)."""
    got = page.evaluate(AXTREE_JS, {"stamp": stamp, "maxText": max_text})
    text = "\n".join(to_ascii(line) for line in got["lines"]) or "(empty page)"
    return Observation(
        text=text,
        roles={str(i): str(r) for i, r in got["ids"]},
        title=to_ascii(got["title"]),
        url=str(got["url"]),
        loads=int(got.get("loads") or 0),
        focused=None if got.get("focused") is None else str(got["focused"]),
    )


def new_context(
    *,
    allowed_origins: Iterable[str] | None = None,
    viewport: tuple[int, int] = (1024, 768),
    timeout_ms: int = DEFAULT_TIMEOUT_MS,
    real_input: bool = False,
) -> BrowserContextHandle:
    """A fresh isolated context with one page; launches this process's browser if needed.

    ``allowed_origins`` (e.g. ``["http://127.0.0.1:8123"]``) narrows the loopback-only
    request filter to those origins; ``real_input`` makes click/fill use Playwright's mouse
    and keyboard (slower, fires trusted events). Raises :class:`BrowserUnavailable` without
    Chromium.
    """
    return BrowserContextHandle(
        allowed_origins=allowed_origins,
        viewport=viewport,
        timeout_ms=timeout_ms,
        real_input=real_input,
    )
