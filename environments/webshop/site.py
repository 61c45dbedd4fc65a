"""The WebShop site as HTML, served on loopback: what the browser mode's Chromium looks at.

Every page is :func:`render_page` of the engine's :class:`~.engine.Page` (the same page model
the text mode joins with ``[SEP]``), so both modes show the same strings and offer the same
clickables. Interactive elements carry ``data-agid`` ids (:func:`element_ids`), which the
accessibility-tree observation prints as ``[12] button "Buy Now"``.

State lives on the server, never in the URL. One :class:`ShopSession` per env holds a
``version`` counter and two callbacks into the env: ``page()`` (the current page) and
``act(kind, arg)`` (run ``search``/``click`` through the env's engine). The routes:

* ``GET /`` or ``/page``: the current page, no state change;
* ``GET /search?v=N&q=...``: the search box's form;
* ``GET /click?v=N&l=LABEL``: every clickable (a link to this URL);
* anything else: 404; a request without the session's cookie: 403; a ``Host`` header other
  than the server's own ``127.0.0.1:<port>``: 421 (400 without one), so a page on another
  name that resolves to loopback (DNS rebinding) is never served.

The server keeps at most ``16 + 8 x sessions`` connections open (one thread each); beyond
that a new connection is answered 503 and closed, so nothing on the machine can exhaust its
threads.

An action is applied only during one of the env's own steps (between
:meth:`ShopSession.begin_step` and :meth:`ShopSession.end_step`, at most once per step, under
the session's lock) and only when ``v`` equals the session's current version; each applied
action bumps it, so a reload, a replayed link, a request outside a step or a crafted URL for
an old page does nothing but show the current page. A click applies ``engine.click(label)``
to the *current* page: a label that page does not offer (an option the product lacks,
``Buy Now`` off an item page, a second ``Buy Now`` after the purchase) is refused by the
engine exactly as in text mode, and the purchased options are the engine's own, never read
from a URL. The session is named by an unguessable cookie (``agentgym_shop``) that the env
puts into its browser context; requests from elsewhere get 403.

Pages are self-contained: inline CSS, no images, no external URLs, one inline script (the
in-place loader, allowed by its hash) and a Content-Security-Policy that forbids loading
anything else.

>>> from agentgym.environments.webshop.engine import Element, Page
>>> page = Page("item", (Element("button", "Back to Search", "Back to Search"),
...                      Element("item_title", "Red Shoe"), Element("buy", "Buy Now", "Buy Now")))
>>> element_ids(page)
{0: '1', 2: '2'}
>>> html = render_page(page, version=3)
>>> 'data-agid="2"' in html and "/click?v=3&amp;l=Buy+Now" in html
True
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import html
import http.server
import secrets
import threading
import urllib.parse
from collections.abc import Callable
from typing import Any

__all__ = [
    "COOKIE_NAME",
    "SEARCH_BOX_ID",
    "SEARCH_BUTTON_ID",
    "ShopServer",
    "ShopSession",
    "element_ids",
    "get_server",
    "release_session",
    "render_page",
]

COOKIE_NAME = "agentgym_shop"
#: The search box and its submit button always have these ids (ids are page-local).
SEARCH_BOX_ID = "1"
SEARCH_BUTTON_ID = "2"
MAX_QUERY_CHARS = 1000

# Clickable element kinds and the ARIA role each is shown with.
_ROLE = {
    "button": "button",
    "product_link": "link",
    "option": "radio",
    "tab": "tab",
    "buy": "button",
}

_CSS = """
*{box-sizing:border-box}
body{margin:0;font:15px/1.45 "DejaVu Sans",Helvetica,Arial,sans-serif;color:#1d232b;
background:#eef1f5}
.bar{background:#1f3a5f;color:#fff;padding:10px 28px;display:flex;align-items:center;gap:12px}
.bar .logo{font-weight:700;letter-spacing:.5px;font-size:18px}
.bar .logo span{color:#f5b342}
main{max-width:980px;margin:18px auto;padding:0 18px}
.card{background:#fff;border:1px solid #d9dee6;border-radius:8px;padding:14px 18px;margin:10px 0}
.instr{background:#fff8e6;border-color:#f1d48a}
.instr .lbl{font-weight:700;margin-right:6px}
h1.site{font-size:40px;margin:40px 0 8px;text-align:center;color:#1f3a5f}
form.search{display:flex;gap:8px;margin:14px 0}
form.search input{flex:1;font-size:16px;padding:10px 12px;border:1px solid #b8c2d0;
border-radius:6px}
.btn,form.search button{display:inline-block;background:#fff;color:#1f3a5f;border:1px solid
#9fb0c7;border-radius:6px;padding:6px 14px;text-decoration:none;font-weight:600;
font-size:14px;cursor:pointer}
form.search button{background:#1f3a5f;color:#fff;border-color:#1f3a5f;font-size:16px}
.nav{display:flex;gap:8px;align-items:center;flex-wrap:wrap;margin:6px 0}
.info{color:#5b6675;margin:0 8px}
ul.results{list-style:none;margin:0;padding:0}
ul.results li{display:grid;grid-template-columns:130px 1fr 150px;gap:12px;align-items:center}
ul.results .price{text-align:right;white-space:nowrap}
ul.results li a{font-family:"DejaVu Sans Mono",monospace;color:#0a58ca;font-weight:600}
.price{font-weight:700;color:#b12704}
.item{display:grid;grid-template-columns:220px 1fr;gap:22px}
.thumb{height:220px;border-radius:8px;background:linear-gradient(135deg,#dfe7f2,#b9c9de);
position:relative}
.thumb:after{content:"";position:absolute;left:50%;top:50%;width:90px;height:70px;
margin:-35px 0 0 -45px;border:6px solid #fff;border-radius:10px;opacity:.8}
.opts .grp{font-weight:700;text-transform:capitalize;margin:10px 0 4px}
.opt{display:inline-block;margin:2px 4px 2px 0;padding:4px 12px;border:1px solid #9fb0c7;
border-radius:16px;color:#1d232b;text-decoration:none;font-size:14px}
.opt[aria-checked=true]{background:#1f3a5f;color:#fff;border-color:#1f3a5f}
h2.title{font-size:20px;margin:12px 0 6px}
.rating{color:#5b6675}
.tabs{display:flex;gap:6px;margin:12px 0}
.tabs a{padding:6px 14px;border:1px solid #9fb0c7;border-radius:6px 6px 0 0;
text-decoration:none;color:#1f3a5f}
.buy{display:inline-block;background:#f5b342;color:#1d232b;border:1px solid #d99a22;
border-radius:20px;padding:9px 30px;font-weight:700;text-decoration:none;margin-top:6px}
.msg{font-size:18px;font-weight:700;color:#1e7b34}
"""

# Loads pages in place: a click on a shop link or a search submit fetches the page (the same
# GET the browser would navigate to, cookie included) and swaps the <body>. A Chromium
# navigation costs 2-3x more on a small machine. ``__agentgymSettle`` is agentgym.browser's
# convention for "wait until the pending loads are shown"; ``__agentgymLoads`` counts loads.
# Without JavaScript the same links and forms navigate normally.
_SCRIPT = """(() => {
  let pending = Promise.resolve();
  window.__agentgymLoads = 0;
  const show = (html) => {
    const d = new DOMParser().parseFromString(html, 'text/html');
    document.title = d.title;
    document.body.replaceWith(d.body);
    window.scrollTo(0, 0);
  };
  const load = (url) => {
    window.__agentgymLoads += 1;
    pending = pending
      .then(() => fetch(url, {credentials: 'same-origin', cache: 'no-store'}))
      .then((r) => r.text())
      .then(show)
      .catch(() => { location.assign(url); });
    return pending;
  };
  document.addEventListener('click', (e) => {
    if (e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey ||
        e.altKey) return;
    const a = e.target.closest ? e.target.closest('a[href]') : null;
    if (!a || a.origin !== location.origin || a.target) return;
    e.preventDefault();
    load(a.href);
  });
  document.addEventListener('submit', (e) => {
    const f = e.target;
    if ((f.getAttribute('method') || 'get').toLowerCase() !== 'get') return;
    const u = new URL(f.getAttribute('action') || location.href, location.href);
    if (u.origin !== location.origin) return;
    e.preventDefault();
    u.search = new URLSearchParams(new FormData(f)).toString();
    load(u.href);
  });
  window.__agentgymSettle = () => pending;
  window.__agentgymLoad = load;
})();"""
_SCRIPT_HASH = base64.b64encode(hashlib.sha256(_SCRIPT.encode()).digest()).decode()

# Nothing may be loaded from anywhere; only this exact script runs, and it may only talk to
# the shop itself.
_CSP = (
    "default-src 'none'; style-src 'unsafe-inline'; img-src data:; form-action 'self'; "
    f"script-src 'sha256-{_SCRIPT_HASH}'; connect-src 'self'; "
    "base-uri 'none'; frame-ancestors 'none'"
)


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


def _e(text: Any) -> str:
    return html.escape(str(text), quote=True)


def _click_href(version: int, label: str) -> str:
    return "/click?" + urllib.parse.urlencode({"v": version, "l": label})


def render_page(page: Any, *, version: int, inpage: bool = True) -> str:
    """The HTML of ``page`` whose links act at ``version``; a pure function of its inputs.

    ``inpage`` includes the script that loads pages in place (see :data:`_SCRIPT`).
    """
    ids = element_ids(page)
    body: list[str] = []
    elements = list(page.elements)
    i = 0
    nav_open = False

    def close_nav() -> None:
        nonlocal nav_open
        if nav_open:
            body.append("</div>")
            nav_open = False

    while i < len(elements):
        el = elements[i]
        k = el.kind
        agid = ids.get(i)
        if k in ("button",) and el.label is not None:
            if not nav_open:
                body.append('<div class="nav">')
                nav_open = True
            body.append(_link(el, agid, version, "btn"))
            i += 1
            continue
        if k == "page_info" and nav_open:
            body.append(f'<span class="info">{_e(el.text)}</span>')
            i += 1
            continue
        close_nav()
        if k == "site_title":
            body.append(f'<h1 class="site">{_e(el.text)}</h1>')
        elif k == "instruction_label":
            nxt = elements[i + 1] if i + 1 < len(elements) else None
            text = _e(nxt.text) if nxt is not None and nxt.kind == "instruction" else ""
            body.append(
                f'<div class="card instr"><span class="lbl">{_e(el.text)}</span>'
                f"<span>{text}</span></div>"
            )
            i += 2 if text else 1
            continue
        elif k == "instruction":
            body.append(f'<div class="card instr"><span>{_e(el.text)}</span></div>')
        elif k == "search_box":
            body.append(
                f'<form class="search" role="search" action="/search" method="get" novalidate>'
                f'<input type="hidden" name="v" value="{version}">'
                f'<input type="search" name="q" data-agid="{SEARCH_BOX_ID}" '
                f'aria-label="{_e(el.text)}" placeholder="{_e(el.text)}" autocomplete="off" '
                f'maxlength="{MAX_QUERY_CHARS}">'
                f'<button type="submit" data-agid="{SEARCH_BUTTON_ID}">{_e(el.text)}</button>'
                "</form>"
            )
        elif k == "product_link":
            # A result: its link, title and price share one row of the list.
            rows = []
            while i < len(elements) and elements[i].kind == "product_link":
                row = [_link(elements[i], ids.get(i), version, "")]
                i += 1
                while i < len(elements) and elements[i].kind in ("product_title", "product_price"):
                    cls = "price" if elements[i].kind == "product_price" else "title"
                    row.append(f'<span class="{cls}">{_e(elements[i].text)}</span>')
                    i += 1
                rows.append('<li class="card">' + "".join(row) + "</li>")
            body.append('<ul class="results">' + "".join(rows) + "</ul>")
            continue
        elif k in ("option_group", "option"):
            i = _render_item(elements, ids, i, version, body)
            continue
        elif k == "tab":
            tabs = []
            while i < len(elements) and elements[i].kind == "tab":
                tabs.append(_link(elements[i], ids.get(i), version, ""))
                i += 1
            body.append('<div class="tabs" role="tablist">' + "".join(tabs) + "</div>")
            continue
        elif k == "buy":
            body.append(_link(el, agid, version, "buy"))
        elif k in ("item_title",):
            body.append(f'<h2 class="title">{_e(el.text)}</h2>')
        elif k in ("item_price", "product_price"):
            body.append(f'<div class="price">{_e(el.text)}</div>')
        elif k == "item_rating":
            body.append(f'<div class="rating">{_e(el.text)}</div>')
        elif k == "heading":
            body.append(f"<h3>{_e(el.text)}</h3>")
        elif k == "message":
            body.append(f'<p class="msg">{_e(el.text)}</p>')
        elif el.label is not None:
            body.append(_link(el, agid, version, "btn"))
        else:
            body.append(f"<p>{_e(el.text)}</p>")
        i += 1
    close_nav()
    return (
        '<!doctype html><html lang="en"><head><meta charset="utf-8">'
        f"<title>WebShop</title>"
        '<link rel="icon" href="data:,">'
        f"<style>{_CSS}</style>"
        + (f"<script>{_SCRIPT}</script>" if inpage else "")
        + "</head><body>"
        '<div class="bar" aria-hidden="true"><span class="logo">Web<span>Shop</span></span></div>'
        f'<main class="page-{_e(page.kind)}">' + "".join(body) + "</main></body></html>"
    )


def _link(el: Any, agid: str | None, version: int, cls: str) -> str:
    role = _ROLE.get(el.kind, "button")
    attrs = [f'href="{_e(_click_href(version, el.label))}"', f'role="{role}"']
    if agid is not None:
        attrs.append(f'data-agid="{agid}"')
    if cls:
        attrs.append(f'class="{cls}"')
    if role == "radio":
        attrs.append(f'aria-checked="{"true" if el.selected else "false"}" class="opt"')
    return f"<a {' '.join(attrs)}>{_e(el.text)}</a>"


def _render_item(
    elements: list[Any], ids: dict[int, str], i: int, version: int, body: list[str]
) -> int:
    """Option groups (and whatever follows them on an item page) in a two-column layout."""
    opts: list[str] = []
    while i < len(elements) and elements[i].kind in ("option_group", "option"):
        el = elements[i]
        if el.kind == "option_group":
            opts.append(f'<div class="grp">{_e(el.text)}</div>')
        else:
            opts.append(_link(el, ids.get(i), version, ""))
        i += 1
    body.append(
        '<div class="card item"><div class="thumb" aria-hidden="true"></div>'
        f'<div class="opts">{"".join(opts)}'
    )
    # The rest of the item page (title, price, rating, tabs, Buy Now) sits in the right column.
    rest: list[str] = []
    tabs: list[str] = []
    while i < len(elements) and elements[i].kind in (
        "item_title",
        "item_price",
        "item_rating",
        "tab",
        "buy",
    ):
        el = elements[i]
        if el.kind == "item_title":
            rest.append(f'<h2 class="title">{_e(el.text)}</h2>')
        elif el.kind == "item_price":
            rest.append(f'<div class="price">{_e(el.text)}</div>')
        elif el.kind == "item_rating":
            rest.append(f'<div class="rating">{_e(el.text)}</div>')
        elif el.kind == "tab":
            tabs.append(_link(el, ids.get(i), version, ""))
        else:
            if tabs:
                rest.append('<div class="tabs" role="tablist">' + "".join(tabs) + "</div>")
                tabs = []
            rest.append(_link(el, ids.get(i), version, "buy"))
        i += 1
    if tabs:
        rest.append('<div class="tabs" role="tablist">' + "".join(tabs) + "</div>")
    body.append("".join(rest) + "</div></div>")
    return i


# ---------------------------------------------------------------------------- sessions
class ShopSession:
    """One env's browsing session on the server: its cookie, version and engine callbacks.

    ``page()`` returns the current :class:`~.engine.Page`; ``act(kind, arg)`` runs
    ``search``/``click`` through the env (which scores it) and returns what it did, or
    ``None`` when the env declines. The env brackets each of its steps with
    :meth:`begin_step` / :meth:`end_step`; ``act`` is called only in between, at most once,
    always under :attr:`lock`, so the env reads the step's result only after any request
    being applied has finished. ``actions`` counts applied actions.
    """

    def __init__(
        self,
        page: Callable[[], Any],
        act: Callable[[str, str], Any],
        *,
        inpage: bool = True,
    ) -> None:
        self.secret = secrets.token_urlsafe(32)
        self.inpage = inpage
        self.version = 0
        self.actions = 0
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


class _Handler(http.server.BaseHTTPRequestHandler):
    server_version = "WebShop"
    sys_version = ""
    protocol_version = "HTTP/1.1"
    # Headers and body leave in two writes; with Nagle on, the body then waits for the
    # browser's delayed ACK (~40 ms a request).
    disable_nagle_algorithm = True
    # An idle keep-alive connection holds a server thread; let it go quickly.
    timeout = 15

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def _send(self, status: int, body: str, content_type: str = "text/html; charset=utf-8") -> None:
        data = body.encode("utf-8", "replace")
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        self.send_header("Cache-Control", "no-store")
        self.send_header("Content-Security-Policy", _CSP)
        self.send_header("X-Content-Type-Options", "nosniff")
        self.send_header("Referrer-Policy", "no-referrer")
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(data)

    def _session(self) -> ShopSession | None:
        header = self.headers.get("Cookie", "")
        for part in header.split(";"):
            name, _, value = part.strip().partition("=")
            if name == COOKIE_NAME:
                return self.server.shop.session(value)  # type: ignore[attr-defined]
        return None

    def _host_ok(self) -> bool:
        """Refuse a request not addressed to this server's own host:port (DNS rebinding)."""
        host = self.headers.get("Host")
        if host is None:
            self._send(400, _message_page("Bad request", "The request has no Host header."))
            return False
        if host.strip().lower() != self.server.shop.host:  # type: ignore[attr-defined]
            self._send(421, _message_page("Misdirected request", "This is not that host."))
            return False
        return True

    def do_GET(self) -> None:
        try:
            if self._host_ok():
                self._get()
        except Exception as exc:  # a bug must not kill the server thread silently
            self._send(500, _message_page("Internal error", type(exc).__name__))

    do_HEAD = do_GET

    def _get(self) -> None:
        url = urllib.parse.urlsplit(self.path)
        if url.path == "/favicon.ico":
            self._send(404, "")
            return
        session = self._session()
        if session is None:
            self._send(403, _message_page("Forbidden", "This shop session is not yours."))
            return
        try:
            params = urllib.parse.parse_qs(
                url.query, keep_blank_values=True, max_num_fields=4, strict_parsing=False
            )
        except ValueError:
            params = {}
        version = (params.get("v") or [""])[0]
        if url.path in ("/", "/page"):
            self._send(200, session.render())
        elif url.path == "/search":
            query = (params.get("q") or [""])[0][:MAX_QUERY_CHARS]
            self._send(200, session.request("search", query, version))
        elif url.path == "/click":
            label = (params.get("l") or [""])[0][:MAX_QUERY_CHARS]
            self._send(200, session.request("click", label, version))
        else:
            self._send(404, _message_page("Not found", "There is no such page in this shop."))

    def _refuse(self) -> None:
        if self._host_ok():
            self._send(405, _message_page("Method not allowed", "This shop only answers GET."))

    do_POST = do_PUT = do_DELETE = do_PATCH = do_OPTIONS = _refuse


def _message_page(title: str, text: str) -> str:
    return (
        f'<!doctype html><html lang="en"><head><meta charset="utf-8"><title>{_e(title)}</title>'
        f"<style>{_CSS}</style></head><body><main><h1>{_e(title)}</h1>"
        f"<p>{_e(text)}</p></main></body></html>"
    )


#: Connections (each a thread) the server keeps open: a base plus a few per session, far
#: more than a Chromium context uses (it keeps a handful of keep-alive sockets per origin).
BASE_CONNECTIONS = 16
CONNECTIONS_PER_SESSION = 8
_BUSY = b"HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"


class _BoundedHTTPServer(http.server.ThreadingHTTPServer):
    """A threading HTTP server that holds at most ``limit()`` connections at once."""

    daemon_threads = True
    # Closing must not wait for an idle keep-alive connection's 15 s timeout.
    block_on_close = False
    request_queue_size = 64

    def __init__(self, address: tuple[str, int], limit: Callable[[], int]) -> None:
        super().__init__(address, _Handler)
        self._limit = limit
        self._count_lock = threading.Lock()
        self.active = 0

    def process_request(self, request: Any, client_address: Any) -> None:
        with self._count_lock:
            full = self.active >= self._limit()
            if not full:
                self.active += 1
        if full:
            # Answered from the accepting thread: one small write to a fresh loopback socket
            # never blocks for long, and no thread is started.
            try:
                request.settimeout(1.0)
                request.sendall(_BUSY)
            except OSError:
                pass
            self.shutdown_request(request)
            return
        try:
            super().process_request(request, client_address)
        except BaseException:
            self._release()
            raise

    def process_request_thread(self, request: Any, client_address: Any) -> None:
        try:
            super().process_request_thread(request, client_address)
        finally:
            self._release()

    def _release(self) -> None:
        with self._count_lock:
            self.active -= 1


class ShopServer:
    """A loopback HTTP server for every :class:`ShopSession` of this process.

    Use :func:`get_server`: one server per process, started with its first session and
    stopped with its last (``release``).
    """

    def __init__(self) -> None:
        self._sessions: dict[str, ShopSession] = {}
        self._lock = threading.Lock()
        self._httpd = _BoundedHTTPServer(("127.0.0.1", 0), self.max_connections)
        # Chromium drops idle keep-alive and speculative connections; that is no error.
        self._httpd.handle_error = lambda request, client_address: None  # type: ignore[method-assign]
        self._httpd.shop = self  # type: ignore[attr-defined]
        host, port = self._httpd.server_address[:2]
        self.origin = f"http://{host}:{port}"
        #: The only Host header answered (lower case).
        self.host = f"{host}:{port}"
        self._thread = threading.Thread(
            target=self._httpd.serve_forever,
            # shutdown() waits up to one poll interval; closing the last env should be quick.
            kwargs={"poll_interval": 0.05},
            name="agentgym-webshop-site",
            daemon=True,
        )
        self._thread.start()
        self.running = True

    def max_connections(self) -> int:
        """How many connections may be open at once (grows with the sessions)."""
        with self._lock:
            sessions = len(self._sessions)
        return BASE_CONNECTIONS + CONNECTIONS_PER_SESSION * sessions

    @property
    def active_connections(self) -> int:
        """Connections being served now."""
        return self._httpd.active

    def session(self, secret: str) -> ShopSession | None:
        """The session whose cookie is ``secret`` (constant-time compare), or None."""
        with self._lock:
            found = self._sessions.get(secret)
        if found is not None and hmac.compare_digest(found.secret, secret):
            return found
        return None

    def add(self, session: ShopSession) -> None:
        with self._lock:
            self._sessions[session.secret] = session

    def remove(self, session: ShopSession) -> int:
        """Forget ``session``; returns how many sessions are left."""
        with self._lock:
            self._sessions.pop(session.secret, None)
            return len(self._sessions)

    def stop(self) -> None:
        if self.running:
            self.running = False
            self._httpd.shutdown()
            self._httpd.server_close()
            self._thread.join(timeout=5)


_SERVER: ShopServer | None = None
_SERVER_LOCK = threading.Lock()


def get_server(session: ShopSession) -> ShopServer:
    """Register ``session`` with this process's server, starting the server if needed."""
    global _SERVER
    with _SERVER_LOCK:
        if _SERVER is None or not _SERVER.running:
            _SERVER = ShopServer()
        _SERVER.add(session)
        return _SERVER


def release_session(session: ShopSession, *, wait: bool = True) -> None:
    """Unregister ``session``; the last one out stops the server.

    ``wait=False`` stops the server from a helper thread (for finalizers, which must not
    block: one may run on a server thread).
    """
    global _SERVER
    with _SERVER_LOCK:
        if _SERVER is None:
            return
        if _SERVER.remove(session) != 0:
            return
        server, _SERVER = _SERVER, None
    if wait:
        server.stop()
    else:
        threading.Thread(target=server.stop, name="agentgym-webshop-stop", daemon=True).start()
