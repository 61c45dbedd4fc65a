"""The page as text: the accessibility-tree script and the :class:`Observation` it gives.

:data:`AXTREE_JS` walks the DOM once in the page and returns accessibility-tree lines with
element ids (``[12] button "Buy Now"``), in about a millisecond on a shop page; Playwright's
``aria_snapshot`` gives the same picture in ~40 ms and has no stable ids. Sites stamp
``data-agid`` on interactive elements (BrowserGym's bid idea); pages that do not get ids
stamped by the walker.

The walk first awaits the page's settle hook (:data:`SETTLE_HOOK`). That wait has no clock
of its own in the page: the browser job that runs the walk is bounded by its context's
``timeout_ms`` (see :meth:`.context.BrowserContextHandle.run`), which cancels it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .ascii import to_ascii

__all__ = ["AXTREE_JS", "SETTLE_HOOK", "Observation", "observation_of", "page_snapshot"]

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


async def page_snapshot(page: Any, *, stamp: bool = True, max_text: int = 300) -> Observation:
    """Run :data:`AXTREE_JS` in ``page`` (await it inside a browser job, e.g. in ``run``)."""
    return observation_of(await page.evaluate(AXTREE_JS, {"stamp": stamp, "maxText": max_text}))


def observation_of(got: dict[str, Any]) -> Observation:
    """The :class:`Observation` of what :data:`AXTREE_JS` returned."""
    text = "\n".join(to_ascii(line) for line in got["lines"]) or "(empty page)"
    return Observation(
        text=text,
        roles={str(i): str(r) for i, r in got["ids"]},
        title=to_ascii(got["title"]),
        url=str(got["url"]),
        loads=int(got.get("loads") or 0),
        focused=None if got.get("focused") is None else str(got["focused"]),
    )
