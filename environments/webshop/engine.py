"""The WebShop site as a state machine, independent of how it is rendered.

Page model (stable: the text env and the HTML site both render from it)
=======================================================================

A :class:`Page` is a ``kind`` (one of :data:`PAGE_KINDS`) plus a tuple of :class:`Element`
in reading order. Each element has a ``kind`` (one of :data:`ELEMENT_KINDS`), the visible
``text`` and, when it can be clicked, a click ``label`` (``None`` otherwise). The text
observation is the visible texts joined with ``" [SEP] "``; the clickables are the labels in
page order. Renderers must not invent clickables: everything a user can click is an element
with a label, and clicking it is ``engine.click(label)``; submitting the search box (element
kind ``"search_box"``, present exactly when ``page.has_search_bar``) is
``engine.search(query)``. Option elements also carry ``group`` (the option type, e.g.
``"size"``) and ``selected`` (the radio button is checked); result and item elements carry
``ref`` (the product's ASIN) so a renderer can group a product's link, title and price.
In the text rendering a chosen option reads ``"<value> (selected)"`` (a browser shows a checked
radio button instead); its click label stays ``"<value>"``.

Pages and their elements, in order (``[label]`` marks clickables):

* ``search``: ``site_title`` "WebShop", ``instruction_label`` "Instruction:",
  ``instruction``, ``search_box`` "Search".
* ``results``: instruction pair, ``button`` [Back to Search], ``page_info``
  "Page 2 (Total results: 50)", ``button`` [< Prev] (page > 1), ``button`` [Next >] (not last
  page), then per product ``product_link`` [B0...] (the ASIN), ``product_title``,
  ``product_price``. With no hits: ``message`` "No results found for your search.".
* ``item``: instruction pair, ``button`` [Back to Search], ``button`` [< Prev], per option
  group an ``option_group`` (the group name) followed by its ``option`` values [value],
  ``item_title``, ``item_price``, ``item_rating``, ``tab`` [Description] [Features]
  [Reviews], ``buy`` [Buy Now].
* ``item_sub`` (one of the tabs): instruction pair, ``button`` [Back to Search],
  ``button`` [< Prev] (back to the item page, options kept), ``heading`` (the tab name), then
  ``text`` elements (the description paragraph, one per feature bullet, or one per review).
* ``done``: ``message`` "Thank you for shopping with us!", ``heading`` "Your order:",
  ``item_title``, ``text`` "Options: ...", ``item_price``. No clickables.

Deliberately absent: an Attributes tab, the goal's attributes/options/price ceiling (only the
instruction text is shown) and any score, so nothing on a page reveals how a purchase is
scored.

Navigation: results ``< Prev``/``Next >`` move between the pages of the 50 hits (10 a page);
item ``< Prev`` returns to the results page it came from (chosen options are dropped, as in
the original); sub-page ``< Prev`` returns to the item page with its options kept; ``Back to
Search`` goes to the search page from anywhere. Clicking an option selects it in its group
(radio semantics; only values the product offers are clickable). ``Buy Now`` exists only on
an item page and ends the episode (once): the purchase is scored with
:func:`~agentgym.environments.webshop.reward.purchase_reward`.

>>> from agentgym.environments.webshop.engine import WebShopEngine, get_shop
>>> shop = get_shop(2000)
>>> engine = WebShopEngine(shop, shop.goals.goal(0))
>>> engine.page().kind, engine.available_actions()["has_search_bar"]
('search', True)
>>> engine.search("shampoo").ok
True
>>> engine.page().kind
'results'
"""

from __future__ import annotations

import re
import string
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from agentgym.action_result import ActionResult

from .catalog import DEFAULT_NUM_PRODUCTS, Catalog, Product, price_cents
from .goals import Goal, GoalBank
from .reward import best_purchase, purchase_reward
from .search import SearchIndex, load_index

PAGE_SEARCH = "search"
PAGE_RESULTS = "results"
PAGE_ITEM = "item"
PAGE_SUB = "item_sub"
PAGE_DONE = "done"
PAGE_KINDS: tuple[str, ...] = (PAGE_SEARCH, PAGE_RESULTS, PAGE_ITEM, PAGE_SUB, PAGE_DONE)

ELEMENT_KINDS: tuple[str, ...] = (
    "site_title",
    "instruction_label",
    "instruction",
    "search_box",
    "button",
    "page_info",
    "message",
    "product_link",
    "product_title",
    "product_price",
    "option_group",
    "option",
    "item_title",
    "item_price",
    "item_rating",
    "tab",
    "buy",
    "heading",
    "text",
)

# Canonical labels of the fixed buttons (clicks are matched case-insensitively).
BACK_TO_SEARCH = "Back to Search"
PREV = "< Prev"
NEXT = "Next >"
BUY_NOW = "Buy Now"
TAB_DESCRIPTION = "Description"
TAB_FEATURES = "Features"
TAB_REVIEWS = "Reviews"
TABS: tuple[str, ...] = (TAB_DESCRIPTION, TAB_FEATURES, TAB_REVIEWS)

RESULTS_PER_PAGE = 10
MAX_RESULTS = 50
MAX_QUERY_CHARS = 500
SEP = " [SEP] "


@dataclass(frozen=True)
class Element:
    """One visible thing on a page; ``label`` is set exactly when it is clickable."""

    kind: str
    text: str
    label: str | None = None
    group: str | None = None
    selected: bool = False
    ref: str | None = None


@dataclass(frozen=True)
class Page:
    """A rendered-agnostic page: its kind, its elements in order, and whether it has a search box.

    >>> page = Page("search", (Element("site_title", "WebShop"), Element("search_box", "Search")),
    ...             has_search_bar=True)
    >>> page.text()
    'WebShop [SEP] Search'
    >>> page.clickables()
    []
    """

    kind: str
    elements: tuple[Element, ...]
    has_search_bar: bool = False

    def clickables(self) -> list[str]:
        """Click labels in page order."""
        return [e.label for e in self.elements if e.label is not None]

    def visible_strings(self) -> list[str]:
        """The visible texts in page order; a chosen option reads ``"<value> (selected)"``."""
        return [f"{e.text} (selected)" if e.selected else e.text for e in self.elements]

    def text(self) -> str:
        """The original WebShop text rendering: visible strings joined by ``" [SEP] "``."""
        return SEP.join(self.visible_strings())


@dataclass(frozen=True)
class Purchase:
    """What was bought and how it scored (``reward`` is a :class:`RewardBreakdown`)."""

    pid: int
    asin: str
    options: dict[str, str]
    price: float
    reward: Any

    def to_dict(self) -> dict[str, Any]:
        return {
            "asin": self.asin,
            "options": dict(self.options),
            "price": self.price,
            **self.reward.to_dict(),
        }


@dataclass
class EngineState:
    """Everything the site remembers; JSON-able via :meth:`to_dict` (no generator inside).

    ``results`` are the product ids of the current query's hits (at most 50, ranked);
    ``listed`` the ids shown on any results page so far (first-seen order; the shaping
    potential reads it); ``viewed`` the ids whose item page was opened; ``chosen`` the options
    picked on the current item page (group -> value).
    """

    page: str = PAGE_SEARCH
    query: str = ""
    results: list[int] = field(default_factory=list)
    results_page: int = 1
    product: int = -1
    sub_page: str = ""
    chosen: dict[str, str] = field(default_factory=dict)
    listed: list[int] = field(default_factory=list)
    viewed: list[int] = field(default_factory=list)
    purchased: dict[str, Any] | None = None

    def copy(self) -> EngineState:
        return EngineState(
            page=self.page,
            query=self.query,
            results=list(self.results),
            results_page=self.results_page,
            product=self.product,
            sub_page=self.sub_page,
            chosen=dict(self.chosen),
            listed=list(self.listed),
            viewed=list(self.viewed),
            purchased=None if self.purchased is None else dict(self.purchased),
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "page": self.page,
            "query": self.query,
            "results": list(self.results),
            "results_page": self.results_page,
            "product": self.product,
            "sub_page": self.sub_page,
            "chosen": dict(self.chosen),
            "listed": list(self.listed),
            "viewed": list(self.viewed),
            "purchased": None if self.purchased is None else dict(self.purchased),
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> EngineState:
        return cls(
            page=str(d["page"]),
            query=str(d["query"]),
            results=[int(x) for x in d["results"]],
            results_page=int(d["results_page"]),
            product=int(d["product"]),
            sub_page=str(d["sub_page"]),
            chosen={str(k): str(v) for k, v in d["chosen"].items()},
            listed=[int(x) for x in d["listed"]],
            viewed=[int(x) for x in d["viewed"]],
            purchased=None if d.get("purchased") is None else dict(d["purchased"]),
        )


# --------------------------------------------------------------------------- shared resources
class Shop:
    """What every episode on one catalog size shares: catalog, search index, goals, memos.

    Get it with :func:`get_shop`, which builds or loads it once per process.
    """

    def __init__(self, num_products: int = DEFAULT_NUM_PRODUCTS) -> None:
        self.index: SearchIndex = load_index(num_products)
        self.catalog: Catalog = self.index.catalog
        self.goals = GoalBank(self.index)
        self.search = lru_cache(maxsize=4096)(self._search)
        self.best = lru_cache(maxsize=65536)(self._best)

    def _search(self, query: str) -> tuple[int, ...]:
        return tuple(self.index.search(query, MAX_RESULTS))

    def _best(self, goal: Goal, pid: int) -> float:
        return best_purchase(self.catalog.product(pid), goal)[0]


def get_shop(num_products: int = DEFAULT_NUM_PRODUCTS) -> Shop:
    """The process-wide :class:`Shop` for ``num_products`` (first call builds or loads it)."""
    return _shop(int(num_products))


@lru_cache(maxsize=4)
def _shop(num_products: int) -> Shop:
    return Shop(num_products)


# --------------------------------------------------------------------------- rendering
def _instruction_elements(goal: Goal) -> list[Element]:
    return [Element("instruction_label", "Instruction:"), Element("instruction", goal.instruction)]


def _dollars(cents: int) -> str:
    return f"${cents / 100:.2f}"


def _item_price(product: Product, chosen: dict[str, str]) -> str:
    if len(product.prices) > 1 and product.options[0].name in chosen:
        return f"Price: {_dollars(price_cents(product, chosen))}"
    return f"Price: {product.price_text()}"


def num_result_pages(state: EngineState) -> int:
    """Results pages for the current query (at least 1)."""
    return max(1, -(-len(state.results) // RESULTS_PER_PAGE))


def page_products(state: EngineState, page: int | None = None) -> list[int]:
    """Product ids on results page ``page`` (default: the current one)."""
    p = state.results_page if page is None else page
    return state.results[(p - 1) * RESULTS_PER_PAGE : p * RESULTS_PER_PAGE]


def render_page(shop: Shop, goal: Goal, state: EngineState) -> Page:
    """The page ``state`` shows (pure function of its arguments)."""
    catalog = shop.catalog
    if state.page == PAGE_SEARCH:
        return Page(
            PAGE_SEARCH,
            (Element("site_title", "WebShop"), *_instruction_elements(goal),
             Element("search_box", "Search")),
            has_search_bar=True,
        )
    if state.page == PAGE_RESULTS:
        els = [*_instruction_elements(goal), Element("button", BACK_TO_SEARCH, BACK_TO_SEARCH)]
        if not state.results:
            els.append(Element("message", "No results found for your search."))
            return Page(PAGE_RESULTS, tuple(els))
        els.append(Element(
            "page_info", f"Page {state.results_page} (Total results: {len(state.results)})"))
        if state.results_page > 1:
            els.append(Element("button", PREV, PREV))
        if state.results_page < num_result_pages(state):
            els.append(Element("button", NEXT, NEXT))
        for pid in page_products(state):
            p = catalog.product(pid)
            els += [
                Element("product_link", p.asin, p.asin, ref=p.asin),
                Element("product_title", p.title, ref=p.asin),
                Element("product_price", p.price_text(), ref=p.asin),
            ]
        return Page(PAGE_RESULTS, tuple(els))
    if state.page in (PAGE_ITEM, PAGE_SUB):
        p = catalog.product(state.product)
        els = [
            *_instruction_elements(goal),
            Element("button", BACK_TO_SEARCH, BACK_TO_SEARCH),
            Element("button", PREV, PREV),
        ]
        if state.page == PAGE_SUB:
            els.append(Element("heading", state.sub_page, ref=p.asin))
            if state.sub_page == TAB_DESCRIPTION:
                els.append(Element("text", p.description, ref=p.asin))
            elif state.sub_page == TAB_FEATURES:
                els += [Element("text", b, ref=p.asin) for b in p.bullets]
            else:
                els += [Element("text", f"{r.rating} out of 5 stars: {r.text}", ref=p.asin)
                        for r in p.reviews]
            return Page(PAGE_SUB, tuple(els))
        for group in p.options:
            els.append(Element("option_group", group.name, ref=p.asin))
            for value in group.values:
                els.append(Element("option", value, value, group=group.name,
                                   selected=state.chosen.get(group.name) == value, ref=p.asin))
        els += [
            Element("item_title", p.title, ref=p.asin),
            Element("item_price", _item_price(p, state.chosen), ref=p.asin),
            Element("item_rating", f"Rating: {p.rating:.1f}", ref=p.asin),
            *(Element("tab", t, t, ref=p.asin) for t in TABS),
            Element("buy", BUY_NOW, BUY_NOW, ref=p.asin),
        ]
        return Page(PAGE_ITEM, tuple(els))
    # done
    bought = state.purchased or {}
    p = catalog.product(int(bought.get("pid", state.product)))
    options = ", ".join(f"{k}: {v}" for k, v in bought.get("options", {}).items()) or "none"
    return Page(
        PAGE_DONE,
        (
            Element("message", "Thank you for shopping with us!"),
            Element("heading", "Your order:"),
            Element("item_title", p.title, ref=p.asin),
            Element("text", f"Options: {options}", ref=p.asin),
            Element("item_price", f"Price: {_dollars(int(bought.get('price_cents', 0)))}",
                    ref=p.asin),
        ),
    )


# --------------------------------------------------------------------------- transitions
_SPACES = re.compile(r"\s+")
_PRINTABLE = frozenset(string.printable) - frozenset("\t\n\r\x0b\x0c")


def _norm(text: str) -> str:
    return _SPACES.sub(" ", text).strip().lower()


def clean_query(query: Any) -> tuple[str | None, str]:
    """``(query, "")`` with whitespace collapsed, or ``(None, why it is refused)``.

    >>> clean_query("  red   shoes ")
    ('red shoes', '')
    >>> clean_query("")[1]
    'the search query is empty; write some words, e.g. search[red running shoes]'
    >>> clean_query("<query>")[0] is None
    True
    """
    if not isinstance(query, str):
        return None, f"the search query must be text, got {type(query).__name__}"
    if len(query) > MAX_QUERY_CHARS:
        return None, (f"the search query is {len(query)} characters; the limit is "
                      f"{MAX_QUERY_CHARS}")
    q = _SPACES.sub(" ", query).strip()
    if not q:
        return None, "the search query is empty; write some words, e.g. search[red running shoes]"
    bad = sorted({c for c in q if c not in _PRINTABLE})
    if bad:
        return None, (f"the search query contains characters outside printable ASCII "
                      f"({''.join(bad)[:10]!r}); use plain English words")
    if not any(c.isalnum() for c in q):
        return None, "the search query has no letters or digits"
    if "<" in q or ">" in q:
        # A placeholder copied from the rules (search[<query>]) must not run as a search.
        return None, "the search query contains < or >; write your own words in their place"
    return q, ""


def resolve_label(page: Page, label: Any) -> tuple[str | None, str]:
    """The page's canonical clickable matching ``label`` (case and spacing ignored).

    A trailing ``" (selected)"``, as the text rendering shows chosen options, is accepted.
    """
    if not isinstance(label, str):
        return None, f"the click target must be text, got {type(label).__name__}"
    wanted = _norm(label)
    if wanted.endswith(" (selected)"):
        wanted = wanted[: -len(" (selected)")].rstrip()
    clickables = page.clickables()
    for c in clickables:
        if _norm(c) == wanted:
            return c, ""
    if page.kind == PAGE_DONE:
        return None, "the purchase is complete; nothing on this page can be clicked"
    shown = ", ".join(clickables[:30])
    if wanted == _norm(BUY_NOW):
        why = "Buy Now is only on a product's page; open a product first"
    elif len(label) > 60:
        why = f"{label[:60]!r}... is not clickable on this page"
    else:
        why = f"{label.strip()!r} is not clickable on this page"
    return None, f"{why}. Clickable here: {shown}"


def _list_page(state: EngineState) -> None:
    seen = set(state.listed)
    for pid in page_products(state):
        if pid not in seen:
            state.listed.append(pid)
            seen.add(pid)


def apply_search(
    shop: Shop, goal: Goal, state: EngineState, query: Any
) -> tuple[EngineState, ActionResult]:
    """Submit the search box; returns the new state (``state`` itself on error)."""
    if state.page != PAGE_SEARCH:
        where = "the purchase is complete" if state.page == PAGE_DONE else "this page has none"
        return state, ActionResult(
            f"there is no search box here ({where}); click[{BACK_TO_SEARCH}] first")
    q, error = clean_query(query)
    if q is None:
        return state, ActionResult(error)
    new = state.copy()
    new.page, new.query, new.results = PAGE_RESULTS, q, list(shop.search(q))
    new.results_page, new.product, new.sub_page, new.chosen = 1, -1, "", {}
    _list_page(new)
    return new, ActionResult()


def apply_click(
    shop: Shop, goal: Goal, state: EngineState, label: Any
) -> tuple[EngineState, ActionResult]:
    """Click ``label`` on the current page; returns the new state (``state`` itself on error)."""
    page = render_page(shop, goal, state)
    target, error = resolve_label(page, label)
    if target is None:
        return state, ActionResult(error)
    new = state.copy()
    if target == BACK_TO_SEARCH:
        new.page, new.product, new.sub_page, new.chosen = PAGE_SEARCH, -1, "", {}
        return new, ActionResult()
    if state.page == PAGE_RESULTS:
        if target == NEXT:
            new.results_page += 1
            _list_page(new)
        elif target == PREV:
            new.results_page -= 1
        else:  # a product link (the only other clickable)
            new.page, new.product, new.chosen = PAGE_ITEM, shop.catalog.pid_of(target), {}
            if new.product not in new.viewed:
                new.viewed.append(new.product)
        return new, ActionResult()
    if state.page == PAGE_SUB:  # only < Prev is left
        new.page, new.sub_page = PAGE_ITEM, ""
        return new, ActionResult()
    # item page
    product = shop.catalog.product(state.product)
    if target == PREV:
        new.page, new.product, new.chosen = PAGE_RESULTS, -1, {}
    elif target in TABS:
        new.page, new.sub_page = PAGE_SUB, target
    elif target == BUY_NOW:
        reward = purchase_reward(product, state.chosen, goal)
        purchase = Purchase(product.pid, product.asin, dict(state.chosen),
                            price_cents(product, state.chosen) / 100, reward)
        new.page = PAGE_DONE
        new.purchased = {"pid": product.pid, "options": dict(state.chosen),
                         "price_cents": price_cents(product, state.chosen),
                         "reward": reward.total}
        return new, ActionResult(detail=purchase)
    else:  # an option value offered by this product
        group = product.group_of(target)
        assert group is not None
        new.chosen[group] = target
    return new, ActionResult()


def potential(shop: Shop, goal: Goal, state: EngineState) -> float:
    """phi(s): the reward earned once bought, else the best ``R*`` among listed products."""
    if state.purchased is not None:
        return float(state.purchased["reward"])
    return max((shop.best(goal, pid) for pid in state.listed), default=0.0)


class WebShopEngine:
    """One shopper's session on the site: a goal, a state, and ``search``/``click``.

    No method raises on bad input; a refused action returns an
    :class:`~agentgym.action_result.ActionResult` with ``error`` set and leaves the state
    unchanged. Buy Now's result carries the :class:`Purchase` as ``detail``.
    """

    def __init__(self, shop: Shop, goal: Goal, state: EngineState | None = None) -> None:
        self.shop = shop
        self.goal = goal
        self.state = state if state is not None else EngineState()

    def page(self) -> Page:
        """The current page."""
        return render_page(self.shop, self.goal, self.state)

    def available_actions(self) -> dict[str, Any]:
        """``{"has_search_bar": bool, "clickables": [labels]}``, as in the original."""
        page = self.page()
        return {"has_search_bar": page.has_search_bar, "clickables": page.clickables()}

    def search(self, query: Any) -> ActionResult:
        """Type ``query`` into the search box and submit it."""
        self.state, result = apply_search(self.shop, self.goal, self.state, query)
        return result

    def click(self, label: Any) -> ActionResult:
        """Click the element whose label is ``label``."""
        self.state, result = apply_click(self.shop, self.goal, self.state, label)
        return result

    @property
    def done(self) -> bool:
        return self.state.purchased is not None

    def potential(self) -> float:
        """The shaping potential phi of the current state (see :mod:`.reward`)."""
        return potential(self.shop, self.goal, self.state)

    def to_dict(self) -> dict[str, Any]:
        return self.state.to_dict()

    def load_dict(self, d: dict[str, Any]) -> None:
        self.state = EngineState.from_dict(d)
