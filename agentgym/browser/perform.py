"""Carrying out a :class:`~.actions.BrowserAction` in a page, on the browser's event loop.

Clicks and fills run as DOM calls (``el.click()``, setting ``value`` and firing
``input``/``change``) in one ``evaluate``: on a 2-core machine Playwright's actionability
checks (scroll, two animation frames of stability, hit test) cost 50-100 ms a click. A
context made with ``real_input=True`` uses Playwright's mouse clicks and typing instead.
Actions wait on navigations, never on timers. :func:`perform_and_observe` acts and reads the
accessibility tree in one ``evaluate`` when the action does not navigate: a round trip to
the page costs 1-3 ms on two busy cores, a good part of a step.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from agentgym.action_result import ActionResult

from .actions import BrowserAction
from .axtree import AXTREE_JS, Observation, observation_of, page_snapshot
from .fence import host_allowed

if TYPE_CHECKING:
    from .context import BrowserContextHandle

__all__ = ["perform_action", "perform_and_observe"]

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

# The element step of _ELEMENT_JS, then (when nothing is left for Python to do: an error, or
# an action done in the page) the accessibility-tree walk, which awaits any in-place load.
_ACT_OBSERVE_JS = (
    "async ([id, mode, text, opts]) => {\n  const act = " + _ELEMENT_JS.strip() + ";\n"
    "  const walk = " + AXTREE_JS.strip() + ";\n"
    "  const info = act([id, mode, text]);\n"
    "  const final = !info.found || !info.visible || info.disabled || info.done ||\n"
    "    (mode === 'fill' && !info.editable);\n"
    "  return {info: info, obs: final ? await walk(opts) : null};\n}"
)


async def _nav_wait(
    page: Any, nav: bool, timeout_ms: int, act: Callable[[], Awaitable[Any]]
) -> None:
    if not nav:
        await act()
        return
    async with page.expect_navigation(wait_until="load", timeout=timeout_ms):
        await act()


async def perform_and_observe(
    handle: BrowserContextHandle,
    page: Any,
    action: BrowserAction,
    *,
    stamp: bool = True,
    max_text: int = 300,
) -> tuple[ActionResult, Observation]:
    """:func:`perform_action`, then :func:`~.axtree.page_snapshot` of the page it leaves.

    A DOM click or fill that needs no navigation (every action on a page that loads in place)
    is done with its snapshot in one ``evaluate``; anything else takes the two calls.
    """
    opts = {"stamp": stamp, "maxText": max_text}
    if action.verb in ("click", "fill") and not handle.real_input:
        got = await page.evaluate(_ACT_OBSERVE_JS, [action.target, action.verb, action.text, opts])
        result = await perform_action(handle, page, action, info=got["info"])
        if got["obs"] is not None:
            return result, observation_of(got["obs"])
    else:
        result = await perform_action(handle, page, action)
    return result, await page_snapshot(page, stamp=stamp, max_text=max_text)


async def perform_action(
    handle: BrowserContextHandle,
    page: Any,
    action: BrowserAction,
    click_timeout_ms: int = 2000,
    *,
    info: dict[str, Any] | None = None,
) -> ActionResult:
    """The body of :meth:`.BrowserContextHandle.perform` (await it inside a browser job).

    Never raises for a bad target: a missing, hidden, disabled or wrong-kind element is an
    :class:`~agentgym.action_result.ActionResult` with ``error`` set. ``info`` is what
    ``_ELEMENT_JS`` already returned for this click or fill (see :func:`perform_and_observe`).
    """
    from playwright.async_api import Error as PlaywrightError

    try:
        if action.verb in ("click", "fill"):
            mode = "inspect" if handle.real_input else action.verb
            # What _ELEMENT_JS returns (an object on every path), unless the caller has it.
            element: dict[str, Any] = (
                info
                if info is not None
                else await page.evaluate(_ELEMENT_JS, [action.target, mode, action.text])
            )
            if not element["found"]:
                return ActionResult(f"there is no element [{action.target}] on this page")
            if not element["visible"]:
                return ActionResult(f"element [{action.target}] is not visible")
            if element["disabled"]:
                return ActionResult(f"element [{action.target}] is disabled")
            if action.verb == "fill" and not element["editable"]:
                return ActionResult(f"element [{action.target}] is not a text box")
            if element["done"]:
                return ActionResult(navigated=bool(element.get("loading")))
            nav = bool(element["nav"])
            if handle.real_input:
                loc = page.locator(f'[data-agid="{action.target}"]').first
                if action.verb == "fill":
                    await loc.fill(action.text, timeout=click_timeout_ms)
                    return ActionResult()
                await _nav_wait(
                    page, nav, handle.inner_timeout_ms, lambda: loc.click(timeout=click_timeout_ms)
                )
            else:
                await _nav_wait(
                    page,
                    nav,
                    handle.inner_timeout_ms,
                    lambda: page.evaluate(_ELEMENT_JS, [action.target, "click-now", ""]),
                )
            return ActionResult(navigated=nav)
        if action.verb == "press":
            key = " " if action.text == "Space" else action.text
            nav = bool(await page.evaluate(_KEY_NAV_JS, key))
            await _nav_wait(
                page, nav, handle.inner_timeout_ms, lambda: page.keyboard.press(action.text)
            )
            return ActionResult(navigated=nav)
        if action.verb == "scroll":
            sign = -1 if action.text == "up" else 1
            dy = sign * int(handle.viewport[1] * 0.8)
            await page.evaluate("(dy) => window.scrollBy(0, dy)", dy)
            return ActionResult()
        if action.verb == "back":
            return await _go_back(handle, page)
    except PlaywrightError as exc:
        # Playwright's own timeouts and detached elements land here; the page is still usable.
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        return ActionResult(f"the browser could not {action.verb}: {first[:160]}")
    return ActionResult(f"unknown action {action.verb!r}")


async def _go_back(handle: BrowserContextHandle, page: Any) -> ActionResult:
    cdp = await handle.cdp_session(page)
    history = await cdp.send("Page.getNavigationHistory")
    index = int(history["currentIndex"])
    previous = history["entries"][index - 1]["url"] if index > 0 else ""
    # about:blank (where every context starts) is no place to go back to.
    if not previous.startswith(("http://", "https://")) or not host_allowed(
        previous, handle.allowed_origins
    ):
        return ActionResult("there is no earlier page to go back to")
    await page.go_back(wait_until="load")
    return ActionResult(navigated=True)
