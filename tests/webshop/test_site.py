"""The shop site without a browser: routes, the step window, versions, escaping, refusals."""

from __future__ import annotations

import html.parser
import threading

from agentgym.environments.webshop.engine import Element, Page
from agentgym.environments.webshop.pages import CSP, MAX_QUERY_CHARS, message_page, render_page
from agentgym.environments.webshop.site import SHOP_ORIGIN, ShopSite

PAGE = Page("results", (Element("button", "Next >", "Next >"),))


class Recorder:
    """An env stand-in: records the actions the site hands it."""

    def __init__(self) -> None:
        self.acts: list[tuple[str, str]] = []

    def act(self, kind: str, arg: str) -> str:
        self.acts.append((kind, arg))
        return f"did {kind} {arg}"


def make() -> tuple[ShopSite, Recorder]:
    recorder = Recorder()
    return ShopSite(page=lambda: PAGE, act=recorder.act), recorder


def get(site: ShopSite, path: str, method: str = "GET"):
    return site.answer(method, SHOP_ORIGIN + path)


def test_routes_and_headers():
    site, recorder = make()
    page = get(site, "/page")
    assert page.status == 200 and "Next &gt;" in page.body
    assert page.headers["Content-Security-Policy"] == CSP
    assert page.headers["Cache-Control"] == "no-store"
    assert get(site, "/").body == page.body
    for path in ("/buy?asin=B0&reward=1", "/item_page/B0", "/../../etc/passwd", "/click/x"):
        response = get(site, path)
        assert response.status == 404 and "Not found" in response.body, path
    for method in ("POST", "PUT", "DELETE", "OPTIONS", "PATCH"):
        assert get(site, "/click?v=0&l=Next+%3E", method).status == 405
    assert recorder.acts == [] and site.version == 0


def test_actions_apply_only_inside_a_step_and_once():
    site, recorder = make()
    click = "/click?v={}&l=Next+%3E"
    assert get(site, click.format(0)).status == 200
    assert recorder.acts == [] and site.version == 0  # outside a step: nothing happens
    site.begin_step()
    get(site, click.format(0))
    get(site, click.format(1))  # a second action in the same step
    assert site.end_step() == "did click Next >"
    assert recorder.acts == [("click", "Next >")] and site.version == 1
    get(site, click.format(1))  # after the step: nothing
    assert recorder.acts == [("click", "Next >")]


def test_stale_versions_garbage_and_oversized_queries():
    site, recorder = make()
    site.bump()  # a reset: links of version 0 are stale now
    site.begin_step()
    for path in (
        "/click?v=0&l=Next+%3E",  # stale
        "/click?l=Next+%3E",  # no version
        "/click?v=1&v=1&v=1&v=1&v=1&l=Next+%3E",  # more fields than any page sends
        "/click?v=%ZZ&l=%",
    ):
        assert get(site, path).status == 200
    assert site.end_step() is None and recorder.acts == []
    site.begin_step()
    get(site, "/search?v=1&q=" + "a" * (3 * MAX_QUERY_CHARS))
    assert site.end_step() == "did search " + "a" * MAX_QUERY_CHARS  # clipped, not refused


def test_end_step_waits_for_an_action_being_applied():
    release = threading.Event()
    started = threading.Event()

    def slow_act(kind: str, arg: str) -> str:
        started.set()
        release.wait(30)
        return "applied"

    site = ShopSite(page=lambda: PAGE, act=slow_act)
    site.begin_step()
    request = threading.Thread(target=site.request, args=("click", "Next >", "0"))
    request.start()
    assert started.wait(30)
    result: list[object] = []
    ender = threading.Thread(target=lambda: result.append(site.end_step()))
    ender.start()
    ender.join(0.3)
    # The step cannot close (and the env cannot read its result) while the action runs.
    assert ender.is_alive() and result == []
    release.set()
    ender.join(30)
    request.join(30)
    assert result == ["applied"] and site.actions == 1


class _Texts(html.parser.HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[str] = []
        self.hrefs: list[str] = []
        self.data: list[str] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        self.hrefs += [v for k, v in attrs if k == "href"]

    def handle_data(self, data):
        self.data.append(data)


def test_page_text_and_labels_are_escaped():
    evil = '<script>alert(1)</script>"><img src=x onerror=alert(2)>'
    page = Page(
        "item",
        (
            Element("button", evil, evil),
            Element("option_group", evil),
            Element("option", evil, evil),
            Element("item_title", evil),
            Element("tab", evil, evil),
            Element("buy", "Buy Now", "Buy Now"),
            Element("product_link", evil, evil),
            Element("product_title", evil),
            Element("heading", evil),
            Element("message", evil),
        ),
    )
    parsed = _Texts()
    parsed.feed(render_page(page, version=7))
    # Only the page's own tags: the loader script and no injected script or image.
    assert parsed.tags.count("script") == 1 and "img" not in parsed.tags
    assert sum(evil in d for d in parsed.data) == 9  # every string shown as text
    clicks = [h for h in parsed.hrefs if h.startswith("/click")]
    assert len(clicks) == 5 and "/click?v=7&l=Buy+Now" in clicks
    assert sum(h.startswith("/click?v=7&l=%3Cscript%3Ealert%281%29") for h in clicks) == 4
    without_script = render_page(page, version=7, inpage=False)
    assert "<script>" not in without_script.replace(evil, "")
    assert "&lt;b&gt;" in message_page("<b>", "x")
