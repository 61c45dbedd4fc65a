"""Shared browser machinery: one Chromium per process, one context per env.

Every browser env in agentgym goes through this package, so the lessons from BrowserGym are
learnt once. One module a concept:

* :mod:`.runtime`: the process's event-loop thread, its Chromium and the refcount of open
  contexts (one browser per process; works inside asyncio; every job has a time limit, and
  jobs of different contexts run concurrently, so a slow page costs only its own env);
  launch flags (``--no-sandbox`` only for root).
* :mod:`.context`: :func:`new_context` and :class:`BrowserContextHandle`, one env's context
  and page; ``timeout_ms`` bounds every call end to end, and a call that runs past it costs
  a fresh page, nothing else. Screenshots as PNG bytes (:meth:`~BrowserContextHandle.
  screenshot_png`, no library needed to save them) or as an RGB array (Pillow decodes).
* :mod:`.served`: a site answered from this process (``new_context(site=...)``): its
  pages' requests reach Python through Playwright's routing and one binding, with no port.
* :mod:`.fence`: offline by construction. Each context aborts every request whose host is
  not loopback (and, when ``allowed_origins`` is given, not one of those origins), blocks
  service workers, and the browser is launched with a dead proxy for non-loopback hosts.
* :mod:`.axtree`: the page as accessibility-tree text with element ids, one JS walk.
* :mod:`.actions`: the action grammar (``click(12)``, ``fill(7, "text")``, ...), pure;
  :mod:`.perform` carries an action out in a page, waiting on navigations, never on timers.
* :mod:`.ascii`: text folded to printable ASCII; :mod:`.procmem`: the browser's pids.

>>> from agentgym.browser import browser_available, new_context
>>> if browser_available():
...     ctx = new_context()
...     ctx.set_content('<button data-agid="1">Buy Now</button>')
...     print(ctx.observe())
...     ctx.close()
... else:
...     print('[1] button "Buy Now"')
[1] button "Buy Now"
"""

from agentgym.action_result import ActionResult

from .actions import (
    ACTION_HELP,
    ELEMENT_ID,
    KEYS,
    MAX_FILL_CHARS,
    BrowserAction,
    parse_browser_action,
)
from .ascii import to_ascii
from .axtree import AXTREE_JS, SETTLE_HOOK, Observation, page_snapshot
from .context import DEFAULT_TIMEOUT_MS, BrowserContextHandle, decode_png, new_context
from .fence import LOOPBACK_HOSTS
from .perform import perform_action, perform_and_observe
from .procmem import browser_pids
from .runtime import (
    LAUNCH_ARGS,
    BrowserError,
    BrowserTimeout,
    BrowserUnavailable,
    browser_available,
    chromium_path,
    launch_args,
    runtime_stats,
)
from .served import FETCH_BINDING, Site, SiteResponse

__all__ = [
    "ACTION_HELP",
    "AXTREE_JS",
    "DEFAULT_TIMEOUT_MS",
    "ELEMENT_ID",
    "FETCH_BINDING",
    "KEYS",
    "LAUNCH_ARGS",
    "LOOPBACK_HOSTS",
    "MAX_FILL_CHARS",
    "SETTLE_HOOK",
    "ActionResult",
    "BrowserAction",
    "BrowserContextHandle",
    "BrowserError",
    "BrowserTimeout",
    "BrowserUnavailable",
    "Observation",
    "Site",
    "SiteResponse",
    "browser_available",
    "browser_pids",
    "chromium_path",
    "decode_png",
    "launch_args",
    "new_context",
    "page_snapshot",
    "parse_browser_action",
    "perform_action",
    "perform_and_observe",
    "runtime_stats",
    "to_ascii",
]
