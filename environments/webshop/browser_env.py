"""WebShop in a real browser: Chromium on the in-process site, accessibility tree in, clicks out.

``gym.make("agentgym/WebShop-v0", mode="browser")`` gives a :class:`BrowserWebShopEnv`, the
text mode's sibling over the same engine, goals and rewards (:mod:`.base`): the agent sees
the page as an accessibility tree with element ids and acts with BrowserGym-style calls. The
page is :mod:`.site`'s HTML, answered by this env's own browser context (Playwright's routing,
no server, no port); every ``search``/``click`` reaches the engine through a request the page
makes, so what the agent does in the browser is exactly what gets scored.

Needs Playwright and Chromium (``pip install 'agentgym[browser]'`` and ``bash
scripts/install_browser.sh``); without them the constructor (so ``gym.make``) fails with
:class:`~agentgym.browser.BrowserUnavailable` naming those commands.

>>> from agentgym.browser import browser_available
>>> if browser_available():
...     env = BrowserWebShopEnv(num_products=2000, goal_index=0)
...     obs, info = env.reset(seed=0)
...     print(obs.splitlines()[-1])
...     env.close()
... else:
...     print("Steps left: 15.")
Steps left: 15.
"""

from __future__ import annotations

import functools
import importlib.util
import json
import weakref
from typing import Any, ClassVar

import numpy as np

from agentgym import browser as _browser
from agentgym.action_result import ActionResult
from agentgym.browser import (
    ELEMENT_ID,
    MAX_FILL_CHARS,
    BrowserAction,
    BrowserContextHandle,
    BrowserTimeout,
    BrowserUnavailable,
    Observation,
    browser_available,
    chromium_path,
    page_snapshot,
    parse_browser_action,
    perform_action,
    perform_and_observe,
    to_ascii,
)
from agentgym.core import Outcome

from .base import BROWSER_INSTALL_HINT, WebShopBase
from .catalog import DEFAULT_NUM_PRODUCTS
from .config import (
    DEFAULT_INVALID_PENALTY,
    DEFAULT_MAX_INVALID,
    DEFAULT_MAX_STEPS,
    BrowserWebShopConfig,
)
from .engine import BACK_TO_SEARCH, PREV, Page
from .pages import SEARCH_BOX_ID, SEARCH_BUTTON_ID, element_ids
from .site import ShopSite

__all__ = ["BrowserWebShopEnv"]

_TEXT_ROLES = frozenset({"textbox", "searchbox"})
# Loads ``url`` in place when the page can (the site's script), resolving to true when done.
_LOAD_JS = (
    "(u) => typeof window.__agentgymLoad === 'function'"
    " ? window.__agentgymLoad(u).then(() => true) : false"
)
# The non-empty text of every text box with an id (id -> value): the page's own word on what
# is typed, read back after a step that can edit a box (fill, and press: Backspace, Delete,
# Space and Escape edit a focused search box; the box also drops what its maxlength and
# line-free value refuse).
_BOX_VALUES_JS = (
    "() => { const out = {}; for (const e of document.querySelectorAll('[data-agid]')) {"
    " const box = e.tagName === 'TEXTAREA' || (e.tagName === 'INPUT'"
    " && ['text', 'search'].includes(e.type));"
    " if (box && e.value) { out[e.dataset.agid] = e.value; } } return out; }"
)
# Gives the keyboard focus to the element with this id (or to nothing).
_FOCUS_JS = (
    '(id) => { const e = id === null ? null : document.querySelector(`[data-agid="${id}"]`);'
    " if (e) { e.focus(); } else if (document.activeElement) { document.activeElement.blur(); } }"
)


def _require_browser() -> None:
    """Fail in one line, naming the install commands, when Playwright or Chromium is missing."""
    if browser_available() and importlib.util.find_spec("jinja2") is not None:
        return
    if importlib.util.find_spec("playwright") is None:
        missing = "Playwright is not installed"
    elif importlib.util.find_spec("jinja2") is None:
        missing = "Jinja2 is not installed"
    else:
        missing = f"there is no Chromium at {chromium_path()} (or set AGENTGYM_CHROMIUM)"
    raise BrowserUnavailable(f"WebShop mode='browser' needs a browser: {missing}; run "
                             f"{BROWSER_INSTALL_HINT}")


def _weak_page(ref: weakref.ref) -> Page:
    env = ref()
    if env is None:
        raise LookupError("this shop's env is gone")
    return env._current_page()


def _weak_act(ref: weakref.ref, kind: str, arg: str) -> ActionResult | None:
    env = ref()
    return None if env is None else env._site_act(kind, arg)


# Browser-side jobs. They run on the browser's event loop (Playwright's asyncio API) and take
# plain data, never the env: a job's frame can outlive the call (a cancelled job, a pending
# callback), and a frame holding ``self`` would keep a forgotten env from being collected.
async def _load_job(
    page: Any, ctx: BrowserContextHandle, origin: str, typed: dict[str, str], focus: str | None
) -> tuple[Observation, dict[str, str]]:
    """Show the engine's current page (fresh links), re-type the boxes, restore the focus;
    the snapshot and what the boxes now hold."""
    url = origin + "/page"
    if not (page.url.startswith(origin + "/") and await page.evaluate(_LOAD_JS, url)):
        await page.goto(url, wait_until="load")
    for agid, text in typed.items():
        await perform_action(ctx, page, BrowserAction("fill", agid, text))
    await page.evaluate(_FOCUS_JS, focus)
    values = await page.evaluate(_BOX_VALUES_JS)
    return await page_snapshot(page, stamp=False, max_text=4000), values


async def _step_job(
    page: Any,
    ctx: BrowserContextHandle,
    origin: str,
    typed: dict[str, str],
    focus: str | None,
    action: BrowserAction,
) -> tuple[ActionResult, Observation, dict[str, str] | None, bool]:
    """Run one action and observe: its result, the snapshot, what the boxes hold after a
    ``fill`` or ``press`` (None after another action, which leaves them as they were) and
    ``True`` last when the page had to be reloaded."""
    if not page.url.startswith(origin + "/"):
        # A blank page put in place after a timed-out step: show the engine's page first.
        await _load_job(page, ctx, origin, typed, focus)
    result, snap = await perform_and_observe(ctx, page, action, stamp=False, max_text=4000)
    if not page.url.startswith(origin + "/"):
        # Somewhere outside the shop (a blocked page): back to the engine's page.
        snap, values = await _load_job(page, ctx, origin, typed, focus)
        return result, snap, values, True
    # Only a fill or a key can edit a box: the other steps skip this round trip.
    values = await page.evaluate(_BOX_VALUES_JS) if action.verb in ("fill", "press") else None
    return result, snap, values, False


def _release(ctx: BrowserContextHandle, wait: bool = False) -> None:
    """Free an env's browser context (and with it the shop it served).

    As the finalizer of a garbage-collected env it must not block (it may run on the thread
    the browser is waiting for), so it only queues the work; close() waits for it.
    """
    ctx.close(wait=wait)


class BrowserWebShopEnv(WebShopBase):
    """WebShop through Chromium: accessibility-tree observations, click/fill/press actions.

    Kwargs: those of :class:`~.base.WebShopBase` (``split``, ``goal_index``,
    ``num_products``, ``gamma``, ``max_steps`` 15, ``invalid_penalty`` -0.1,
    ``max_invalid`` 5, ``reward_mode``, ``render_mode``, ``score_process``) plus:

    * ``viewport_width`` (1024; 320-3840) and ``viewport_height`` (768; 240-2160): the page
      size, which is also the ``rgb_array`` render size;
    * ``timeout_ms`` (10,000; 1,000-120,000): the limit for one step's browser work; a step
      that runs past it is an invalid action and costs only this env a fresh page;
    * ``full_navigation`` (False): every click and search is a full Chromium navigation
      instead of the site's in-place load (the same URL loaded by the page's script and
      swapped into the page body, several times faster); rewards and observations are the
      same either way.

    Observation: ``Instruction: ...``, the page as accessibility-tree lines (``[3] button
    "Back to Search"``, ``[1] searchbox "Search" value=""``, ``[9] radio "large" checked``,
    ``text "Price: $12.99"``), then the steps left. The action format stands in
    :attr:`rules` (the system prompt) only.

    Rendering: ``render_mode="rgb_array"`` makes :meth:`render` return the viewport as an
    ``(H, W, 3)`` uint8 array; :meth:`screenshot_png` gives PNG bytes in any render mode
    (``Path("shop.png").write_bytes(env.unwrapped.screenshot_png())``, no image library).

    Actions (one per step, every one uses a step):

    * ``click(ID)``: click the element (a link, option, tab, Buy Now, the Search button);
    * ``fill(ID, "text")``: type into the search box (replacing its text);
    * ``press(KEY)``: e.g. ``press(Enter)`` submits the search box when it has focus;
    * ``scroll(up)`` / ``scroll(down)``: move the viewport (the tree always lists the whole
      page, so this only changes what a screenshot shows);
    * ``back()``: the shop's own way back: ``< Prev`` where the page has it, else ``Back to
      Search`` (browser history is not used, so every page stays one the engine shows).

    Rewards and ``info`` mean exactly what they mean in text mode: a search submitted in the
    browser is ``search[query]``, a click on a clickable is ``click[label]``, and both are
    scored by the same code (:meth:`~.base.WebShopBase._moved`). A step that does not reach
    the engine (``fill``, ``scroll``, a click on the search box) scores like a state that did
    not change, ``(gamma - 1) * phi``, i.e. 0 by default, and is valid. An action naming an
    id that is not on the page, a search the engine refuses (e.g. an empty query) or a step
    the browser could not finish is invalid (``valid_action`` False, ``invalid_penalty``).
    """

    mode: ClassVar[str] = "browser"
    config_model = BrowserWebShopConfig
    metadata: ClassVar[dict[str, Any]] = {"render_modes": ["ansi", "rgb_array"], "render_fps": 4}
    max_observation_length: ClassVar[int] = 16384
    blocking_io: ClassVar[bool] = True  # Playwright blocks: the env server uses a thread
    #: Two Chromium processes and ~100 MB each: the server caps these (``max_heavy_sessions``).
    heavy_session: ClassVar[bool] = True
    rules: ClassVar[str] = (
        "You are shopping on WebShop, in a web browser, for the product described by an "
        "instruction. Each observation shows the instruction, then the page as an "
        "accessibility tree: one element a line, interactive ones with an id in brackets "
        "before their role and name, then the steps left.\n"
        "Pages: a search page (search box), results (10 products a page, with < Prev / "
        "Next > / Back to Search), a product page (option groups such as size or color, "
        "title, price, tabs Description / Features / Reviews, and Buy Now).\n"
        'Actions: click(ID), fill(ID, "text") to type into the search box, press(Enter) to '
        "submit it, scroll(up) / scroll(down), back(); ID is an element's id from the "
        "page.\n"
        "Buy the product that best matches the instruction: its type, every requested "
        "attribute, every requested option (click each one on the product page before Buy "
        "Now) and a price under the limit. Buying ends the episode with a score from 0 to 1; "
        "you can buy only once, and the episode also ends when the steps run out."
    )

    def __init__(
        self,
        split: str = "test",
        goal_index: int | None = None,
        num_products: int = DEFAULT_NUM_PRODUCTS,
        gamma: float = 1.0,
        *,
        viewport_width: int = 1024,
        viewport_height: int = 768,
        timeout_ms: int = 10_000,
        full_navigation: bool = False,
        reward_mode: str = "both",
        render_mode: str | None = None,
        score_process: bool = True,
        max_steps: int = DEFAULT_MAX_STEPS,
        invalid_penalty: float = DEFAULT_INVALID_PENALTY,
        max_invalid: int = DEFAULT_MAX_INVALID,
    ) -> None:
        cfg = BrowserWebShopConfig.of(locals(), owner="BrowserWebShopEnv")
        self.viewport = (cfg.viewport_width, cfg.viewport_height)
        self.timeout_ms = cfg.timeout_ms
        self.full_navigation = cfg.full_navigation
        _require_browser()  # before the catalog is loaded: fail fast, in one line
        super().__init__(cfg)
        self._ctx: BrowserContextHandle | None = None
        self._site: ShopSite | None = None
        self._finalizer: weakref.finalize | None = None
        self._origin = ""
        self._snap: Observation | None = None
        #: Text typed into boxes on the current page (id -> text); part of the state.
        self._typed: dict[str, str] = {}
        self._loads = 0
        #: The id of the focused element (part of the state: press(Enter) depends on it).
        self._focus: str | None = None
        #: What the browser page shows (see :meth:`_view`); None when unknown.
        self._shown: tuple[Any, ...] | None = None
        #: True while score_actions tries a move: it reaches the engine, not the browser.
        self._offline = False

    # ------------------------------------------------------------------ browser plumbing
    def _ensure_browser(self) -> BrowserContextHandle:
        if self._closed:
            raise RuntimeError("the env is closed")
        if self._ctx is not None and not self._ctx.closed:
            return self._ctx
        # The context serves the site (its route handlers hold it), so the site must not keep
        # a forgotten env alive: it reaches the env through a weak reference, and a finalizer
        # frees the browser context when the env is collected without close().
        ref = weakref.ref(self)
        site = ShopSite(
            page=functools.partial(_weak_page, ref),
            act=functools.partial(_weak_act, ref),
            inpage=not self.full_navigation,
        )
        ctx = _browser.new_context(site=site, viewport=self.viewport, timeout_ms=self.timeout_ms)
        self._finalizer = weakref.finalize(self, _release, ctx)
        self._site, self._ctx, self._origin = site, ctx, site.origin
        self._shown = None
        return ctx

    def _replace_browser(self) -> BrowserContextHandle:
        """A fresh context and site after the old ones died (crashed page or browser).

        The engine holds the whole episode, so nothing is lost: the page is reloaded from it.
        """
        old = self._finalizer
        self._ctx = self._site = self._finalizer = None
        try:
            ctx = self._ensure_browser()  # before closing the old one: keeps Chromium running
        finally:
            detached = old.detach() if old is not None else None
            if detached is not None:
                _, _, (old_ctx,), _ = detached
                _release(old_ctx, wait=True)
        self._loads = 0
        self._snap = self._observed(*ctx.run(_load_job, *self._page_args(ctx)), reloaded=True)
        self._shown = self._view()
        return ctx

    def _current_page(self) -> Page:
        return self.engine.page()

    def _site_act(self, kind: str, arg: str) -> ActionResult | None:
        """The site's call (on the browser's thread, under the site's lock, only inside one of
        this env's steps) for a search or click: the engine's answer, or None if not applied."""
        if self._engine is None or self.is_over:
            return None
        new, result = self._transition((kind, arg))
        if result.ok:
            self.engine.state = new
        return result

    def _page_args(self, ctx: BrowserContextHandle) -> tuple[Any, ...]:
        return (ctx, self._origin, dict(self._typed), self._focus)

    def _load_page(self) -> Observation:
        """Show the engine's page in the browser and observe it; a dead browser is replaced."""
        try:
            ctx = self._ensure_browser()
            snap, values = ctx.run(_load_job, *self._page_args(ctx))
        except BrowserUnavailable:
            raise
        except Exception:
            if self._closed:
                raise
            self._replace_browser()  # reloads the page itself
            assert self._snap is not None
            return self._snap
        snap = self._observed(snap, values, reloaded=True)
        self._shown = self._view()
        return snap

    def _observed(self, snap: Observation, values: dict[str, str] | None = None, *,
                  reloaded: bool = False) -> Observation:
        """Record what a snapshot says about the page state (typed text, focus).

        ``values`` (the boxes' text read from the page) replaces what the env thought was
        typed: a key such as Backspace edits the box without the env seeing the text, and
        score_actions, the oracle and get_state must see what a search would send.
        """
        if values is not None:
            self._typed = {str(k): str(v) for k, v in values.items()}
        elif snap.loads != self._loads and not reloaded:
            # The page was replaced: whatever was typed into it is gone.
            self._typed = {}
        self._loads = snap.loads
        self._focus = snap.focused
        return snap

    def _view(self) -> tuple[Any, ...]:
        """Everything the browser page depends on: goal, engine state, typed text, focus."""
        engine = json.dumps(self.engine.to_dict(), sort_keys=True)
        return (self.engine.goal.index, engine, tuple(sorted(self._typed.items())), self._focus)

    # ------------------------------------------------------------------ TextEnv hooks
    def _new_episode(self, rng: np.random.Generator, options: dict[str, Any]) -> None:
        super()._new_episode(rng, options)
        self._ensure_browser()
        assert self._site is not None
        self._site.bump()
        self._typed = {}
        self._focus = None
        self._snap = self._load_page()

    def _observe(self) -> str:
        if self._snap is None:
            return "The browser is not ready; call reset()."
        footer = self._status() or f"Steps left: {self.steps_left}."
        lines = [f"Instruction: {to_ascii(self.engine.goal.instruction)}", "", self._snap.text, ""]
        text = "\n".join([*lines, footer])
        if len(text) > self.max_observation_length:
            keep = self.max_observation_length - 80
            text = text[:keep] + "\n... (page truncated)\n" + footer
        return text[: self.max_observation_length]

    def _legal_actions(self) -> list[str]:
        page = self.engine.page()
        out = []
        if page.has_search_bar:
            query = self.engine.goal.search_query.replace('"', "'")
            out.append(f'fill({SEARCH_BOX_ID}, "{query}")')
            out.append(f"click({SEARCH_BUTTON_ID})")
        ids = element_ids(page)
        out += [f"click({ids[i]})" for i, el in enumerate(page.elements) if el.label is not None]
        return out

    def _parse(self, text: str) -> tuple[Any, str]:
        action, error = parse_browser_action(text)
        if action is None:
            return None, error
        roles = self._snap.roles if self._snap is not None else {}
        if action.verb in ("click", "fill"):
            role = roles.get(action.target)
            if role is None:
                shown = ", ".join(list(roles)[:40]) or "none"
                return None, (
                    f"there is no element [{action.target}] on this page; ids here: {shown}"
                )
            if action.verb == "fill" and role not in _TEXT_ROLES:
                return None, f"element [{action.target}] is a {role}, not a text box"
        if action.verb == "back" and self._back_label() is None:
            return None, "there is no page to go back to from here"
        return action, ""

    def _back_label(self) -> str | None:
        clickables = self.engine.page().clickables()
        for label in (PREV, BACK_TO_SEARCH):
            if label in clickables:
                return label
        return None

    def _to_click(self, action: BrowserAction) -> BrowserAction:
        """``back()`` is the shop's own back button: a click on its element."""
        if action.verb != "back":
            return action
        label = self._back_label()
        page = self.engine.page()
        ids = element_ids(page)
        for i, el in enumerate(page.elements):
            if el.label == label:
                return BrowserAction("click", ids[i])
        return action

    def _apply(self, move: Any) -> Outcome:
        if self._offline:
            return self._apply_offline(move)
        action = self._to_click(move)
        ctx = self._ensure_browser()
        site = self._site
        assert site is not None
        # The site applies at most one engine action, and only between these two calls.
        site.begin_step()
        try:
            try:
                result, snap, values, reloaded = ctx.run(_step_job, *self._page_args(ctx),
                                                         action)
            finally:
                taken = site.end_step()
        except BrowserUnavailable:
            raise
        except BrowserTimeout as exc:
            # The runtime already gave the page a blank replacement (the next step reloads
            # the engine's page); the context and the episode are intact.
            error, navigated = str(exc), False
            self._shown = None
        except Exception as exc:
            # The page, context or browser died under the action. The engine knows whether
            # the action reached it (taken); rebuild the browser from the engine.
            self._replace_browser()
            first = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
            error, navigated = f"the browser failed and was restarted: {first[:160]}", False
        else:
            self._snap = self._observed(snap, values, reloaded=reloaded)
            error, navigated = result.error, result.navigated
            if navigated and values is None:
                self._typed = {}
            self._shown = self._view()
        if taken is not None:  # the action reached the engine: its answer decides
            if not taken.ok:
                return Outcome(valid=False, error=taken.error)
            return self._moved(taken)
        if error:
            return Outcome(valid=False, error=error)
        return self._unmoved()

    def _apply_offline(self, move: Any) -> Outcome:
        """What :meth:`_apply` would score, from the engine alone (the browser is untouched)."""
        engine_move = self._engine_move(move)
        if engine_move is None:
            return self._unmoved()
        return self._apply_engine(engine_move)

    # ------------------------------------------------------------------ oracle and scoring
    def _score(self, move: Any, snapshot: bytes) -> float:
        # The base class applies the move and restores the snapshot; offline, the move only
        # reaches the engine, and the restore then finds the page already showing the
        # snapshot's state (see _load_state_dict), so scoring never drives the browser.
        self._offline = True
        try:
            return super()._score(move, snapshot)
        finally:
            self._offline = False

    def _engine_move(self, move: Any) -> tuple[str, str] | None:
        """The engine action a browser action would cause, or None (no engine action)."""
        if not isinstance(move, BrowserAction):
            return None
        move = self._to_click(move)
        page = self.engine.page()
        if move.verb == "press" and move.text in ("Enter", "Space"):
            focused = self._focus
            if focused is None:
                return None
            if focused == SEARCH_BOX_ID and page.has_search_bar:
                if move.text == "Enter":
                    return ("search", self._typed.get(SEARCH_BOX_ID, ""))
                return None  # a space typed into the box
            if move.text == "Space" and focused != SEARCH_BUTTON_ID:
                return None  # links ignore Space; only the Search button is a real button
            move = BrowserAction("click", str(focused))
        if move.verb != "click":
            return None
        if move.target == SEARCH_BUTTON_ID and page.has_search_bar:
            return ("search", self._typed.get(SEARCH_BOX_ID, ""))
        for i, agid in element_ids(page).items():
            el = page.elements[i]
            if agid == move.target and el.label is not None:
                return ("click", el.label)
        return None

    def _oracle_plan(self) -> str | None:
        plan = self._engine_plan()
        if plan is None:
            return None
        verb, _, rest = plan.partition("[")
        arg = rest[:-1]
        page = self.engine.page()
        if verb == "search":
            typed = " ".join(self._typed.get(SEARCH_BOX_ID, "").split())
            if typed.lower() == " ".join(arg.split()).lower():
                return f"click({SEARCH_BUTTON_ID})"
            return f'fill({SEARCH_BOX_ID}, "{arg.replace(chr(34), chr(39))}")'
        for i, agid in element_ids(page).items():
            if page.elements[i].label == arg:
                return f"click({agid})"
        return None

    # ------------------------------------------------------------------ snapshots
    def _state_dict(self) -> dict[str, Any]:
        d = super()._state_dict()
        d["typed"] = dict(self._typed)
        d["focus"] = self._focus
        return d

    def _load_state_dict(self, d: dict[str, Any]) -> None:
        super()._load_state_dict(d)
        # Ids go into CSS selectors: keep only well-formed ones from a (maybe crafted) snapshot.
        self._typed = {
            str(k): str(v)[:MAX_FILL_CHARS]
            for k, v in dict(d.get("typed", {})).items()
            if ELEMENT_ID.match(str(k))
        }
        focus = d.get("focus")
        self._focus = str(focus) if focus is not None and ELEMENT_ID.match(str(focus)) else None
        live = self._snap is not None and self._ctx is not None and not self._ctx.closed
        if live and self._shown == self._view():
            return  # the page already shows this state (score_actions restores it so)
        self._ensure_browser()
        assert self._site is not None
        self._site.bump()
        self._snap = self._load_page()

    # ------------------------------------------------------------------ render and close
    def render(self) -> Any:
        """``rgb_array``: the viewport as an ``(H, W, 3)`` uint8 array; ``ansi``: the text."""
        if self.render_mode == "rgb_array":
            if self._ctx is None or self._ctx.closed:
                return np.zeros((self.viewport[1], self.viewport[0], 3), dtype=np.uint8)
            return self._ctx.screenshot()
        return super().render()

    def screenshot_png(self, *, full_page: bool = False) -> bytes:
        """The current page as PNG bytes, in any render mode; saving them needs no library.

        ``full_page=True`` captures the whole page instead of the viewport.

        >>> from pathlib import Path
        >>> from agentgym.browser import browser_available
        >>> if browser_available():
        ...     env = BrowserWebShopEnv(num_products=2000, goal_index=0)
        ...     _ = env.reset(seed=0)
        ...     png = env.screenshot_png()  # Path("shop.png").write_bytes(png) saves it
        ...     env.close()
        ...     print(png[:4])
        ... else:
        ...     print(b"\\x89PNG")
        b'\\x89PNG'
        """
        return self._ensure_browser().screenshot_png(full_page=full_page)

    def close(self) -> None:
        final, self._finalizer = self._finalizer, None
        self._ctx = self._site = None
        if final is not None:
            args = final.detach()
            if args is not None:
                _, _, (ctx,), _ = args
                _release(ctx, wait=True)
        self._snap = None
        self._shown = None
        super().close()
