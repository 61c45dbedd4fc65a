"""The engine's :class:`~.engine.Page` as HTML: Jinja2 templates with autoescape.

Every page the browser mode shows is :func:`render_page` of the page model the text mode joins
with ``[SEP]``, so both modes show the same strings and offer the same clickables.
:func:`layout` groups the page's elements into blocks (a navigation bar, a results list, the
product card, ...); ``templates/page.html`` draws them. Every string reaches the HTML through
Jinja2's autoescape, so a product title cannot inject markup.

Interactive elements carry ``data-agid`` ids (:func:`element_ids`), which the
accessibility-tree observation prints as ``[12] button "Buy Now"``. Links name the action and
the page version they act at (``/click?v=3&l=Buy+Now``); the site (:mod:`.site`) decides
whether it applies. Pages are self-contained: inline CSS, no images, no external URLs and one
inline script (``templates/loader.js``, the in-place loader), allowed by its hash in the
Content-Security-Policy (:data:`CSP`).

>>> from agentgym.environments.webshop.engine import Element, Page
>>> page = Page("item", (Element("button", "Back to Search", "Back to Search"),
...                      Element("item_title", "Red <b>Shoe</b>"),
...                      Element("buy", "Buy Now", "Buy Now")))
>>> element_ids(page)
{0: '1', 2: '2'}
>>> html = render_page(page, version=3)
>>> 'data-agid="2"' in html and "/click?v=3&amp;l=Buy+Now" in html
True
>>> "Red &lt;b&gt;Shoe&lt;/b&gt;" in html
True
"""

from __future__ import annotations

import base64
import functools
import hashlib
import urllib.parse
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import jinja2

__all__ = [
    "CSP",
    "MAX_QUERY_CHARS",
    "SEARCH_BOX_ID",
    "SEARCH_BUTTON_ID",
    "Block",
    "Link",
    "element_ids",
    "layout",
    "message_page",
    "render_page",
]

#: The search box and its submit button always have these ids (ids are page-local).
SEARCH_BOX_ID = "1"
SEARCH_BUTTON_ID = "2"
#: The longest query (and click label) the search form and the site accept.
MAX_QUERY_CHARS = 1000

TEMPLATES = Path(__file__).resolve().parent / "templates"

# Clickable element kinds and the ARIA role each is shown with.
_ROLE = {
    "button": "button",
    "product_link": "link",
    "option": "radio",
    "tab": "tab",
    "buy": "button",
}
# Elements shown as one line of text: kind -> (tag, class).
_TEXT = {
    "site_title": ("h1", "site"),
    "item_title": ("h2", "title"),
    "item_price": ("div", "price"),
    "product_price": ("div", "price"),
    "item_rating": ("div", "rating"),
    "heading": ("h3", ""),
    "message": ("p", "msg"),
}
# What may follow the option groups inside the product card.
_ITEM_DETAILS = ("item_title", "item_price", "item_rating", "tab", "buy")

_CSS = (TEMPLATES / "shop.css").read_text(encoding="utf-8")
_SCRIPT = (TEMPLATES / "loader.js").read_text(encoding="utf-8")
_SCRIPT_HASH = base64.b64encode(hashlib.sha256(_SCRIPT.encode()).digest()).decode()

#: Nothing may be loaded from anywhere; only the loader runs, and it may only talk to the shop.
CSP = (
    "default-src 'none'; style-src 'unsafe-inline'; img-src data:; form-action 'self'; "
    f"script-src 'sha256-{_SCRIPT_HASH}'; connect-src 'self'; "
    "base-uri 'none'; frame-ancestors 'none'"
)


@dataclass(frozen=True)
class Link:
    """A clickable element as an ``<a>``: its text, the URL of its action, role and id."""

    text: str
    href: str
    role: str
    agid: str | None
    cls: str = ""
    #: ``aria-checked`` of an option (a radio); None for every other role.
    checked: bool | None = None


@dataclass(frozen=True)
class Block:
    """One piece of the page body, drawn by the template's branch for ``kind``.

    ``text`` blocks have a ``tag`` and ``cls``; ``nav`` holds links and page-info strings,
    ``tabs`` links, ``item`` option links and option-group names (then its ``details``),
    ``results`` one row per product (its link and its title / price cells).
    """

    kind: str
    text: str = ""
    label: str = ""
    tag: str = ""
    cls: str = ""
    link: Link | None = None
    items: tuple[Any, ...] = field(default_factory=tuple)
    rows: tuple[tuple[Link, tuple[tuple[str, str], ...]], ...] = field(default_factory=tuple)
    #: The product card's right column (title, price, rating, tabs, Buy Now).
    details: tuple[Block, ...] = field(default_factory=tuple)


def element_ids(page: Any) -> dict[int, str]:
    """``data-agid`` of each interactive element, keyed by its index in ``page.elements``.

    The search box is always ``"1"`` (its submit button ``"2"``); clickables are numbered
    from ``"1"`` (or ``"3"`` when there is a search box) in page order, so an id is a pure
    function of the page.
    """
    ids: dict[int, str] = {}
    n = 3 if page.has_search_bar else 1
    for i, el in enumerate(page.elements):
        if el.kind == "search_box":
            ids[i] = SEARCH_BOX_ID
        elif el.label is not None:
            ids[i] = str(n)
            n += 1
    return ids


def _click_href(version: int, label: str) -> str:
    return "/click?" + urllib.parse.urlencode({"v": version, "l": label})


def layout(page: Any, version: int) -> list[Block]:
    """The page's elements grouped into the blocks the template draws (a pure function)."""
    ids = element_ids(page)
    elements = list(page.elements)

    def link(i: int, cls: str = "") -> Link:
        el = elements[i]
        role = _ROLE.get(el.kind, "button")
        if role == "radio":
            return Link(
                el.text, _click_href(version, el.label), role, ids.get(i), "opt", bool(el.selected)
            )
        return Link(el.text, _click_href(version, el.label), role, ids.get(i), cls)

    def run(i: int, kinds: tuple[str, ...]) -> int:
        """The index after the run of ``kinds`` starting at ``i``."""
        while i < len(elements) and elements[i].kind in kinds:
            i += 1
        return i

    blocks: list[Block] = []
    i = 0
    while i < len(elements):
        el = elements[i]
        k = el.kind
        if k == "button" and el.label is not None:
            # Buttons in a row, with the page info ("Page 2 (Total results: 50)") between them.
            items: list[Any] = []
            while i < len(elements) and (
                (elements[i].kind == "button" and elements[i].label is not None)
                or elements[i].kind == "page_info"
            ):
                items.append(link(i, "btn") if elements[i].kind == "button" else elements[i].text)
                i += 1
            blocks.append(Block("nav", items=tuple(items)))
            continue
        if k == "instruction_label":
            nxt = elements[i + 1] if i + 1 < len(elements) else None
            text = nxt.text if nxt is not None and nxt.kind == "instruction" else ""
            blocks.append(Block("instruction_label", text=text, label=el.text))
            i += 2 if text else 1
            continue
        if k == "product_link":
            # A result: its link, title and price share one row of the list.
            rows = []
            while i < len(elements) and elements[i].kind == "product_link":
                row_link = link(i)
                end = run(i + 1, ("product_title", "product_price"))
                cells = tuple(
                    ("price" if e.kind == "product_price" else "title", e.text)
                    for e in elements[i + 1 : end]
                )
                rows.append((row_link, cells))
                i = end
            blocks.append(Block("results", rows=tuple(rows)))
            continue
        if k in ("option_group", "option"):
            end = run(i, ("option_group", "option"))
            options = tuple(
                link(j) if elements[j].kind == "option" else elements[j].text for j in range(i, end)
            )
            details = run(end, _ITEM_DETAILS)
            column = tuple(_details(elements, range(end, details), link))
            blocks.append(Block("item", items=options, details=column))
            i = details
            continue
        if k == "tab":
            end = run(i, ("tab",))
            blocks.append(Block("tabs", items=tuple(link(j) for j in range(i, end))))
            i = end
            continue
        if k == "instruction":
            blocks.append(Block("instruction", text=el.text))
        elif k == "search_box":
            blocks.append(Block("search", text=el.text))
        elif k == "buy":
            blocks.append(Block("link", link=link(i, "buy")))
        elif k in _TEXT:
            tag, cls = _TEXT[k]
            blocks.append(Block("text", text=el.text, tag=tag, cls=cls))
        elif el.label is not None:
            blocks.append(Block("link", link=link(i, "btn")))
        else:
            blocks.append(Block("text", text=el.text, tag="p"))
        i += 1
    return blocks


def _details(elements: list[Any], span: range, link: Any) -> list[Block]:
    """The product card's right column: title, price, rating, the tabs in a row, Buy Now."""
    out: list[Block] = []
    tabs: list[Link] = []
    for j in span:
        el = elements[j]
        if el.kind == "tab":
            tabs.append(link(j))
            continue
        if tabs:
            out.append(Block("tabs", items=tuple(tabs)))
            tabs = []
        if el.kind == "buy":
            out.append(Block("link", link=link(j, "buy")))
        else:
            tag, cls = _TEXT[el.kind]
            out.append(Block("text", text=el.text, tag=tag, cls=cls))
    if tabs:
        out.append(Block("tabs", items=tuple(tabs)))
    return out


@functools.cache
def _templates() -> jinja2.Environment:
    # Imported here: Jinja2 comes with the browser extra, and the text mode never renders HTML.
    import jinja2

    # autoescape=True: every {{ }} in these HTML templates is escaped unless marked Markup.
    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(TEMPLATES),
        autoescape=True,
        trim_blocks=True,
        lstrip_blocks=True,
        undefined=jinja2.StrictUndefined,
    )


def render_page(page: Any, *, version: int, inpage: bool = True) -> str:
    """The HTML of ``page`` whose links act at ``version``; a pure function of its inputs.

    ``inpage`` includes the script that loads pages in place (``templates/loader.js``).
    """
    template = _templates().get_template("page.html")
    return template.render(
        blocks=layout(page, version),
        kind=page.kind,
        version=version,
        css=_markup(_CSS),
        script=_markup(_SCRIPT) if inpage else None,
        max_query=MAX_QUERY_CHARS,
        search_box_id=SEARCH_BOX_ID,
        search_button_id=SEARCH_BUTTON_ID,
    )


def message_page(title: str, text: str) -> str:
    """A plain page for the site's refusals (not found, method not allowed).

    >>> "Not &lt;found&gt;" in message_page("Not <found>", "x")
    True
    """
    template = _templates().get_template("message.html")
    return template.render(title=title, text=text, css=_markup(_CSS))


def _markup(text: str) -> Any:
    """``text`` marked safe: the shop's own stylesheet and script, inlined verbatim."""
    from markupsafe import Markup

    return Markup(text)
