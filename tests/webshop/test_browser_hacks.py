"""Reward hacks against the browser mode: none may pay, and nothing may leak the goal.

The attacker is granted more than an agent has: it may navigate the page to any URL, run
script in the page (fetch, the site's binding), look for the shop on the machine's ports, and
rewrite the DOM so that its own links can be clicked with ``click(ID)``.
"""

from __future__ import annotations

import html.parser
import http.server
import json
import os
import threading
import urllib.parse

import pytest
from browser_support import keep_browser, needs_browser  # noqa: F401 (autouse fixture)

from agentgym.environments.webshop.browser_env import BrowserWebShopEnv
from agentgym.environments.webshop.engine import BUY_NOW
from agentgym.environments.webshop.env import WebShopEnv
from agentgym.environments.webshop.pages import SEARCH_BOX_ID

N = 2000

pytestmark = needs_browser



@pytest.fixture
def env():
    e = BrowserWebShopEnv(num_products=N, goal_index=1, max_steps=60)
    e.reset(seed=0)
    yield e
    e.close()


def to_item_page(env) -> None:
    """Search the instruction and open the goal's own product (the best one to steal)."""
    env.step(f'fill({SEARCH_BOX_ID}, "{env.goal.search_query}")')
    env.step("press(Enter)")
    while env.engine.page().kind == "results":
        action = env.oracle_actions()[0]
        env.step(action)
    assert env.engine.state.page == "item"


def page_html(env) -> str:
    return env._ctx.run(lambda page: page.content())


def goto(env, path: str) -> None:
    env._ctx.run(lambda page: page.goto(env._origin + path, wait_until="load"))


def inject_link(env, agid: str, href: str) -> None:
    """Put an attacker's link into the page; a step later the tree lists it."""
    env._ctx.run(
        lambda page: page.evaluate(
            "([id, href]) => { const a = document.createElement('a'); a.href = href;"
            " a.textContent = 'free'; a.setAttribute('data-agid', id);"
            " document.querySelector('main').prepend(a); }",
            [agid, href],
        )
    )
    env.step("scroll(down)")
    assert f'[{agid}] link "free"' in env._observe()


def current_version(env) -> int:
    return env._site.version


def in_page(env, script: str, arg=None):
    """Run ``script`` in the env's page (what a compromised page could do)."""
    return env._ctx.run(lambda page: page.evaluate(script, arg))


def listening_sockets() -> set[str]:
    """Inodes of the TCP sockets this process listens on (state 0A = LISTEN)."""
    mine = set()
    for fd in os.listdir("/proc/self/fd"):
        try:
            target = os.readlink(f"/proc/self/fd/{fd}")
        except OSError:
            continue
        if target.startswith("socket:["):
            mine.add(target[8:-1])
    found = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        with open(table) as fh:
            for line in fh.readlines()[1:]:
                fields = line.split()
                if fields[3] == "0A" and fields[9] in mine:
                    found.add(fields[9])
    return found


def test_crafted_purchase_urls_are_not_found_and_pay_nothing(env):
    to_item_page(env)
    goal = env.goal
    state = json.loads(env.get_state())["state"]
    options = urllib.parse.urlencode(goal.options)
    for path in (
        f"/buy?item={goal.asin}&{options}",
        f"/done?asin={goal.asin}&reward=1",
        f"/item_page/{goal.asin}?{options}",
        "/../../etc/passwd",
    ):
        goto(env, path)
        assert "Not found" in page_html(env)
    assert json.loads(env.get_state())["state"] == state
    _, reward, terminated, _, info = env.step("scroll(up)")  # the next step is clean
    assert reward == 0.0 and not terminated and info["page"] == "item"


def test_requests_outside_a_step_change_nothing(env):
    to_item_page(env)
    state = json.loads(env.get_state())["state"]
    taken = env._site.actions
    v = current_version(env)
    buy = "/click?" + urllib.parse.urlencode({"v": v, "l": BUY_NOW})
    # The page itself navigating (an agent has no goto; a script could) outside a step:
    goto(env, buy)
    # A script fetching it, or calling the site's binding, outside a step:
    body = in_page(env, "(u) => fetch(u).then((r) => r.text())", buy)
    assert "Buy Now" in body  # just the current page, unchanged
    assert "Buy Now" in in_page(env, "(u) => window.__agentgymFetch(u)", env._origin + buy)
    assert json.loads(env.get_state())["state"] == state
    assert env._site.actions == taken and current_version(env) == v
    # POST and friends are refused outright.
    for method in ("POST", "PUT", "DELETE"):
        status = in_page(env, "([u, m]) => fetch(u, {method: m, body: m === 'DELETE' ? null :"
                         " 'x'}).then((r) => r.status)", [buy, method])
        assert status == 405, method
    assert json.loads(env.get_state())["state"] == state


def test_the_shop_has_no_port_and_other_origins_are_unreachable():
    """Nothing outside the env's own browser context can reach its shop: there is no socket
    to connect to. And the page reaches nothing but the shop: a loopback server on another
    port (what the old shop server was) gets no request, by fetch, navigation or binding."""
    from playwright.async_api import Error as PlaywrightError  # the fast lane has no Playwright

    # Compared with before the env existed: another test in the same xdist worker may have
    # left a listener of its own (CI saw one), which is not the shop's.
    before = listening_sockets()
    env = BrowserWebShopEnv(num_products=N, goal_index=1, max_steps=60)
    env.reset(seed=0)
    try:
        assert listening_sockets() - before == set()
        _other_origins_are_unreachable(env, PlaywrightError)
    finally:
        env.close()


def _other_origins_are_unreachable(env, PlaywrightError) -> None:
    hits: list[str] = []

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            hits.append(self.path)
            self.send_response(200)
            self.end_headers()

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    other = f"http://127.0.0.1:{server.server_address[1]}"
    try:
        assert in_page(env, "(u) => fetch(u).then(() => 'reached', () => 'blocked')",
                       other + "/x") == "blocked"
        # The binding answers the shop's own URLs only.
        for url in (other + "/click?v=0&l=x", "http://example.com/", "javascript:1", 7):
            assert in_page(env, "(u) => window.__agentgymFetch(u)", url) == ""
        for url in (other + "/nav", "http://example.com/"):
            with pytest.raises(PlaywrightError):
                goto_url(env, url)
        assert hits == []
        assert any(other in url for url in env._ctx.blocked)
    finally:
        server.shutdown()
        server.server_close()
    _, reward, _, _, info = env.step("scroll(down)")  # the next step reloads the shop
    assert info["valid_action"] and reward == 0.0


def goto_url(env, url: str) -> None:
    env._ctx.run(lambda page: page.goto(url, wait_until="load"))


def test_options_the_product_does_not_have_are_refused(env):
    to_item_page(env)
    product = env.shop.catalog.product(env.engine.state.product)
    offered = set(product.option_values())
    foreign = next(v for v in ("xl", "navy", "12 pack", "king", "purple") if v not in offered)
    inject_link(
        env, "900", "/click?" + urllib.parse.urlencode({"v": current_version(env), "l": foreign})
    )
    _, reward, terminated, _, info = env.step("click(900)")
    assert not info["valid_action"] and "not clickable" in info["action_error"]
    assert reward == env.invalid_penalty and not terminated and env.engine.state.chosen == {}


def test_the_server_not_the_url_decides_the_purchased_options(env):
    to_item_page(env)
    goal = env.goal
    # A Buy Now link stuffed with the goal's options, clicked with nothing chosen.
    stuffed = {"v": current_version(env), "l": BUY_NOW, **goal.options, "options": "all"}
    inject_link(env, "901", "/click?" + urllib.parse.urlencode(stuffed))
    _, reward, terminated, _, info = env.step("click(901)")
    assert terminated and info["purchase"]["options"] == {}
    text = WebShopEnv(num_products=N, goal_index=1)
    text.reset(seed=0)
    text.engine.state = env.engine.state.copy()
    text.engine.state.page, text.engine.state.purchased = "item", None
    expected = text.step("click[Buy Now]")[4]["reward_components"]
    assert info["reward_components"] == expected
    if goal.options:
        assert info["reward_components"]["r_option"] < 1.0


def test_buy_now_off_an_item_page_is_refused(env):
    env.step(f'fill({SEARCH_BOX_ID}, "{env.goal.search_query}")')
    env.step("press(Enter)")
    inject_link(
        env, "902", "/click?" + urllib.parse.urlencode({"v": current_version(env), "l": BUY_NOW})
    )
    _, reward, terminated, _, info = env.step("click(902)")
    assert not info["valid_action"] and "only on a product's page" in info["action_error"]
    assert reward == env.invalid_penalty and not terminated and info["page"] == "results"


def test_buying_twice_pays_once(env):
    to_item_page(env)
    buy_id = next(
        line.split("]")[0].strip(" [")
        for line in env._observe().splitlines()
        if line.strip().endswith('button "Buy Now"')
    )
    v = current_version(env)
    taken = env._site.actions
    _, first, terminated, _, info = env.step(f"click({buy_id})")
    assert terminated and info["purchase"] is not None
    # Replaying the Buy Now request, by URL or by step, does nothing more.
    goto(env, "/click?" + urllib.parse.urlencode({"v": v, "l": BUY_NOW}))
    goto(env, "/click?" + urllib.parse.urlencode({"v": v + 1, "l": BUY_NOW}))
    _, again, terminated, _, info = env.step(f"click({buy_id})")
    assert again == 0.0 and terminated and "episode is over" in info["action_error"]
    assert env.engine.state.purchased is not None and env._site.actions == taken + 1


def test_stale_links_do_nothing(env):
    env.step(f'fill({SEARCH_BOX_ID}, "{env.goal.search_query}")')
    env.step("press(Enter)")
    old = current_version(env) - 1
    inject_link(env, "903", "/click?" + urllib.parse.urlencode({"v": old, "l": "Next >"}))
    state = json.loads(env.get_state())["state"]
    _, reward, _, _, info = env.step("click(903)")
    assert info["valid_action"] and reward == 0.0
    assert json.loads(env.get_state())["state"] == state


class _Collect(html.parser.HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.data: list[str] = []
        self.attrs: list[tuple[str, str, str]] = []
        self._raw = 0

    def handle_starttag(self, tag, attrs):
        self._raw += tag in ("script", "style")
        self.attrs += [(tag, k, v or "") for k, v in attrs]

    def handle_endtag(self, tag):
        self._raw -= tag in ("script", "style")

    def handle_data(self, data):
        if not self._raw and data.strip():
            self.data.append(" ".join(data.split()))


ATTR_VALUES = {
    "lang": {"en"}, "charset": {"utf-8"}, "rel": {"icon"}, "href": {"data:,"},
    "role": {"button", "link", "radio", "tab", "tablist", "search"},
    "aria-hidden": {"true"}, "aria-checked": {"true", "false"}, "aria-label": {"Search"},
    "placeholder": {"Search"}, "method": {"get"}, "action": {"/search"},
    "type": {"hidden", "search", "submit"}, "name": {"v", "q"}, "autocomplete": {"off"},
    "maxlength": {"1000"}, "novalidate": {""},
}  # fmt: skip


def assert_page_leaks_nothing(env) -> None:
    """Every text on the page is a visible string of the page model (or fixed chrome), and
    every attribute is structural: an id, a class, a role, or a link to a clickable."""
    source = page_html(env)
    page = env.engine.page()
    visible = {" ".join(e.text.split()) for e in page.elements}
    chrome = {"WebShop", "Web", "Shop", "Search"}  # title, logo, the search button
    parsed = _Collect()
    parsed.feed(source)
    for text in parsed.data:
        assert text in visible or text in chrome, text
    labels = set(page.clickables())
    version = str(env._site.version)
    for tag, name, value in parsed.attrs:
        if name == "data-agid":
            assert value.isdigit()
        elif name == "class":
            assert all(part.replace("-", "").isalpha() for part in value.split())
        elif name == "value":
            assert value == version  # the hidden version field of the search form
        elif tag == "a" and name == "href":
            url = urllib.parse.urlsplit(value)
            query = urllib.parse.parse_qs(url.query)
            assert url.path == "/click" and set(query) == {"v", "l"}
            assert query["v"] == [version] and query["l"][0] in labels
        else:
            assert value in ATTR_VALUES.get(name, set()), (tag, name, value)
    lowered = source.lower()
    for secret in (
        "r_type",
        "r_att",
        "r_option",
        "r_price",
        "reward",
        "price_ceiling",
        "goal",
        "attributes",
    ):
        assert secret not in lowered, secret


def test_pages_leak_neither_goal_nor_scores(env):
    assert_page_leaks_nothing(env)
    env.step(f'fill({SEARCH_BOX_ID}, "{env.goal.search_query}")')
    env.step("press(Enter)")
    for _ in range(12):
        assert_page_leaks_nothing(env)
        assert env.goal.asin not in env._ctx.url()
        _, _, terminated, _, _ = env.step(env.oracle_actions()[0])
        if terminated:
            break
    assert terminated
    assert_page_leaks_nothing(env)  # the done page shows what was bought, not its score
    # No session cookie: the context itself is the session.
    assert env._ctx.run(lambda page: page.context.cookies()) == []


def test_each_env_answers_only_its_own_page():
    """Two envs on the same goal share the origin, not the shop: a request in one page
    acts on its own engine only."""
    a = BrowserWebShopEnv(num_products=N, goal_index=1)
    b = BrowserWebShopEnv(num_products=N, goal_index=1)
    try:
        a.reset(seed=0)
        b.reset(seed=0)
        assert a._observe() == b._observe() and a._origin == b._origin
        query = urllib.parse.urlencode({"v": current_version(b), "q": b.goal.search_query})
        a._site.begin_step()
        b._site.begin_step()
        try:
            in_page(a, "(u) => fetch(u).then((r) => r.text())", "/search?" + query)
        finally:
            assert b._site.end_step() is None
            a._site.end_step()
        assert b.engine.state.page == "search" and b._site.actions == 0
    finally:
        a.close()
        b.close()
