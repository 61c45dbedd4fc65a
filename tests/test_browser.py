"""agentgym.browser: PNG decoding, the action grammar, and (with Chromium) the shared runtime.

Tests that need Chromium skip only when it is missing *and* ``CI`` is unset; in CI
(``scripts/install_browser.sh`` has run) they must run.
"""

from __future__ import annotations

import asyncio
import contextlib
import http.server
import os
import struct
import subprocess
import sys
import threading
import time
import zlib
from collections.abc import Iterator

import numpy as np
import pytest

from agentgym.browser import (
    LAUNCH_ARGS,
    BrowserAction,
    BrowserError,
    BrowserTimeout,
    SiteResponse,
    browser_available,
    browser_pids,
    decode_png,
    fence,
    launch_args,
    new_context,
    parse_browser_action,
    runtime_stats,
    to_ascii,
)

needs_browser = pytest.mark.skipif(
    not browser_available() and not os.environ.get("CI"),
    reason="Chromium/playwright not installed (scripts/install_browser.sh); required in CI",
)


# ----------------------------------------------------------------------------- PNG
def _png(width: int, height: int, raw_rows: list[bytes], color: int = 2) -> bytes:
    def chunk(kind: bytes, body: bytes) -> bytes:
        crc = zlib.crc32(kind + body) & 0xFFFFFFFF
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", crc)

    ihdr = struct.pack(">IIBBBBB", width, height, 8, color, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", ihdr)
        + chunk(b"IDAT", zlib.compress(b"".join(raw_rows)))
        + chunk(b"IEND", b"")
    )


def test_decode_png_hand_filtered_rows() -> None:
    # A 2x2 RGB image: row 0 = (10,20,30) (50,60,70); row 1 = (11,22,33) (200,100,0).
    # Row 0 filtered "Sub": second pixel stored as the difference to the first.
    row0 = bytes([1, 10, 20, 30, 40, 40, 40])
    # Row 1 filtered "Up": differences to row 0 (mod 256): (1,2,3) and (150,40,186).
    row1 = bytes([2, 1, 2, 3, 150, 40, 186])
    img = decode_png(_png(2, 2, [row0, row1]))
    assert img.tolist() == [[[10, 20, 30], [50, 60, 70]], [[11, 22, 33], [200, 100, 0]]]


def test_decode_png_average_and_paeth() -> None:
    # 1x2 RGB... use a 2x2 image: row 0 "None" = (100,0,0) (0,100,0).
    row0 = bytes([0, 100, 0, 0, 0, 100, 0])
    # Row 1 "Average": predictor = (left + up) // 2. Target row (110,10,5) (60,60,60).
    # px0: left 0, up (100,0,0) -> pred (50,0,0) -> stored (60,10,5).
    # px1: left (110,10,5), up (0,100,0) -> pred (55,55,2) -> stored (5,5,58).
    row1 = bytes([3, 60, 10, 5, 5, 5, 58])
    img = decode_png(_png(2, 2, [row0, row1]))
    assert img[1].tolist() == [[110, 10, 5], [60, 60, 60]]
    # Row 1 "Paeth" with the same target: px0 a=0,b=100,c=0 -> p=100 -> pred b=100 for R;
    # G/B: a=0,b=0,c=0 -> 0. stored (10,10,5).
    # px1: R a=110,b=0,c=100 -> p=10, pa=100,pb=10,pc=90 -> pred b=0 -> stored 60.
    #      G a=10,b=100,c=0 -> p=110, pa=100,pb=10,pc=110 -> pred b=100 -> stored 216.
    #      B a=5,b=0,c=0 -> p=5, pa=0 -> pred a=5 -> stored 55.
    row1p = bytes([4, 10, 10, 5, 60, 216, 55])
    img = decode_png(_png(2, 2, [row0, row1p]))
    assert img[1].tolist() == [[110, 10, 5], [60, 60, 60]]


def test_decode_png_rgba_drops_alpha_and_rejects_garbage() -> None:
    img = decode_png(_png(1, 1, [bytes([0, 1, 2, 3, 4])], color=6))
    assert img.shape == (1, 1, 3) and img.tolist() == [[[1, 2, 3]]]
    with pytest.raises(ValueError):
        decode_png(b"not a png at all")


# ----------------------------------------------------------------------------- grammar
@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("click(12)", BrowserAction("click", "12")),
        ("  CLICK ( 12 ) ", BrowserAction("click", "12")),
        ("click [12]", BrowserAction("click", "12")),
        ('click("12")', BrowserAction("click", "12")),
        ("click([7])", BrowserAction("click", "7")),
        ('fill(7, "red shoes")', BrowserAction("fill", "7", "red shoes")),
        ("fill(7, red shoes, size 9)", BrowserAction("fill", "7", "red shoes, size 9")),
        ("fill(7, '')", BrowserAction("fill", "7", "")),
        ('fill(7, "say \\"hi\\"")', BrowserAction("fill", "7", 'say "hi"')),
        ("press(Enter)", BrowserAction("press", text="Enter")),
        ("press('enter')", BrowserAction("press", text="Enter")),
        ("press(arrow down)", BrowserAction("press", text="ArrowDown")),
        ("scroll(DOWN)", BrowserAction("scroll", text="down")),
        ("scroll up", BrowserAction("scroll", text="up")),
        ("back()", BrowserAction("back")),
        ("back", BrowserAction("back")),
    ],
)
def test_parse_valid(text: str, expected: BrowserAction) -> None:
    assert parse_browser_action(text) == (expected, "")


@pytest.mark.parametrize(
    "text",
    [
        "",
        "   ",
        "x" * 100_000,
        "click()",
        "click(1 2)",
        "click(<script>)",
        "clik(3)",
        "fill(7)",
        "fill(, text)",
        "fill(7, " + "a" * 600 + ")",
        "fill(7, line\nbreak)",
        "press(Control+L)",
        "press(F12)",
        "scroll(left)",
        "back(2)",
        "search[shoes]",
        "click[Buy Now]",
        "点击(3)",
        "goto(http://example.com)",
        None,
    ],
)
def test_parse_invalid_never_raises(text: object) -> None:
    action, error = parse_browser_action(text)  # type: ignore[arg-type]
    assert action is None
    assert error and len(error) < 400


def test_action_round_trip_str() -> None:
    for text in ["click(3)", 'fill(1, "a b")', "press(Enter)", "scroll(up)", "back()"]:
        action, _ = parse_browser_action(text)
        assert str(action) == text
        assert parse_browser_action(str(action))[0] == action


def test_to_ascii_and_host_filter() -> None:
    assert to_ascii("naïve — “quoted” ☃") == 'naive - "quoted" ?'
    allowed = frozenset({"http://127.0.0.1:8000"})
    assert fence.host_allowed("http://127.0.0.1:8000/x", None)
    assert fence.host_allowed("http://localhost:1/", None)
    assert fence.host_allowed("http://127.0.0.1:8000/x?y", allowed)
    assert not fence.host_allowed("http://127.0.0.1:8001/x", allowed)
    assert not fence.host_allowed("http://example.com/", None)
    assert not fence.host_allowed("https://10.0.0.1/", None)
    assert not fence.host_allowed("http://127.0.0.1.evil.com/", None)
    assert not fence.host_allowed("file:///etc/passwd", None)
    assert not fence.host_allowed("ws://example.com/", None)
    # The route pattern (matched inside Playwright's driver) catches exactly the rest.
    anywhere = fence.blocked_pattern(None)
    for url in ("http://example.com/", "https://10.0.0.1/x", "http://127.0.0.1.evil.com/"):
        assert anywhere.match(url), url
    for url in ("http://127.0.0.1:8000/x", "http://localhost/", "http://[::1]:9/"):
        assert not anywhere.match(url), url
    shop = fence.blocked_pattern(allowed)
    assert not shop.match("http://127.0.0.1:8000/page?v=1")
    assert not shop.match("http://127.0.0.1:8000")
    assert shop.match("http://127.0.0.1:8001/page")
    assert shop.match("http://127.0.0.1:80000/")


def test_no_sandbox_only_for_root() -> None:
    assert "--no-sandbox" in launch_args(euid=0)
    assert "--no-sandbox" not in launch_args(euid=1000)
    assert "--no-sandbox" not in LAUNCH_ARGS
    assert ("--no-sandbox" in launch_args()) == (os.geteuid() == 0)
    # The dead proxy (the second network fence) is there either way.
    assert set(fence.PROXY_ARGS) <= set(launch_args(euid=1000))


@pytest.mark.parametrize("bad", [0, -5, "1000", None, True])
def test_timeout_must_be_positive_milliseconds(bad: object) -> None:
    with pytest.raises(ValueError, match="timeout_ms"):
        new_context(timeout_ms=bad)  # type: ignore[arg-type]


# ----------------------------------------------------------------------------- Chromium
class _Site(http.server.BaseHTTPRequestHandler):
    """A tiny loopback site: /slow answers after 150 ms to catch actions that do not wait."""

    #: ``/stall`` holds its answer until this is set (at most STALL_S): a server that hangs.
    release = threading.Event()
    #: Set when a ``/stall`` request has arrived.
    arrived = threading.Event()

    def do_GET(self) -> None:
        if self.path.startswith("/slow"):
            time.sleep(0.15)
        if self.path.startswith("/stall"):
            _Site.arrived.set()
            _Site.release.wait(STALL_S)
        if self.path.startswith("/inplace"):
            self._send(INPLACE_PAGE.encode())
            return
        body = (
            "<html><head><title>T</title></head><body>"
            f"<p>at {self.path}</p>"
            '<a data-agid="1" href="/slow?page=2">next page</a>'
            '<a data-agid="5" href="http://example.com/">elsewhere</a>'
            '<form action="/slow"><input data-agid="2" name="q" aria-label="Query">'
            '<button data-agid="3">Go</button></form>'
            '<span data-agid="4" hidden>secret</span>'
            '<img src="http://203.0.113.9/pixel.png" alt="">'
            "</body></html>"
        ).encode()
        self._send(body)

    def _send(self, body: bytes) -> None:
        with contextlib.suppress(ConnectionError):  # a page that gave up on a stalled answer
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


#: The longest a ``/stall`` request is held (the tests release it sooner).
STALL_S = 10.0
#: A page that loads in place (the SETTLE_HOOK convention): the link fetches ``/stall`` and the
#: observation waits for that fetch, as WebShop's site does for every click.
INPLACE_PAGE = (
    "<html><body><p>in place</p><a data-agid='1' href='/stall'>load</a><script>"
    "let pending = Promise.resolve();"
    "window.__agentgymSettle = () => pending;"
    "document.addEventListener('click', (e) => {"
    "  const a = e.target.closest('a'); if (!a) return;"
    "  e.preventDefault(); pending = fetch(a.href).then((r) => r.text());"
    "});"
    "</script></body></html>"
)


@pytest.fixture
def stall() -> Iterator[type[_Site]]:
    """The site's ``/stall`` endpoint, reset before and released after the test."""
    _Site.release.clear()
    _Site.arrived.clear()
    yield _Site
    _Site.release.set()


@pytest.fixture(scope="module")
def site() -> str:
    srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Site)
    thread = threading.Thread(target=srv.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{srv.server_address[1]}"
    srv.shutdown()
    srv.server_close()


PAGE = (
    "<html><body><h1>Shop</h1><nav aria-label='Pages'><a href='/p2'>Next</a></nav>"
    "<p>Price: <b>$3.50</b></p>"
    "<form><input aria-label='Search' value='socks'>"
    "<label><input type=radio name=s checked>small</label>"
    "<label><input type=radio name=s>large</label>"
    "<button>Buy Now</button></form>"
    "<div style='display:none'><button>Hidden</button></div>"
    "<script>var x = 1;</script></body></html>"
)


@needs_browser
def test_observation_lines_with_stamped_ids() -> None:
    with new_context() as ctx:
        ctx.set_content(PAGE)
        snap = ctx.snapshot()
        assert snap.text.splitlines() == [
            'heading "Shop" level=1',
            'navigation "Pages"',
            '  [0] link "Next"',
            'text "Price:"',
            'text "$3.50"',
            "form",
            '  [1] textbox "Search" value="socks"',
            '  [2] radio "small" checked',
            '  [3] radio "large"',
            '  [4] button "Buy Now"',
        ]
        assert snap.roles == {
            "0": "link",
            "1": "textbox",
            "2": "radio",
            "3": "radio",
            "4": "button",
        }
        # Ids are stamped once: a second walk gives the same ids.
        assert ctx.observe() == snap.text


@needs_browser
def test_site_ids_and_hidden_elements(site: str) -> None:
    with new_context(allowed_origins=[site]) as ctx:
        ctx.goto(site + "/")
        snap = ctx.snapshot(stamp=False)
        assert snap.ids == ["1", "5", "2", "3"]  # [4] is hidden
        assert "secret" not in snap.text
        assert '[1] link "next page"' in snap.text


@needs_browser
def test_requests_outside_loopback_are_blocked(site: str) -> None:
    with new_context(allowed_origins=[site]) as ctx:
        ctx.goto(site + "/")
        assert any("203.0.113.9" in url for url in ctx.blocked)  # the <img>
        with pytest.raises(BrowserError):
            ctx.goto("http://example.com/")
        # A page-initiated fetch to the internet fails inside the page.
        result = ctx.run(
            lambda page: page.evaluate(
                "() => fetch('http://example.com/x').then(() => 'reached', () => 'blocked')"
            )
        )
        assert result == "blocked"
        # Clicking a link that leaves the shop does not get anywhere either.
        out = ctx.perform(BrowserAction("click", "5"))
        assert out.error
        assert not ctx.url().startswith("http://example.com")


@needs_browser
@pytest.mark.parametrize("real_input", [False, True])
def test_actions_wait_for_navigation(site: str, real_input: bool) -> None:
    with new_context(allowed_origins=[site], real_input=real_input) as ctx:
        ctx.goto(site + "/")
        out = ctx.perform(BrowserAction("click", "1"))
        assert (out.error, out.navigated) == ("", True)
        # The observation already shows the slow page: the click waited for it.
        assert ctx.observe().splitlines()[0] == 'text "at /slow?page=2"'
        assert ctx.perform(BrowserAction("back")).navigated
        assert ctx.observe().splitlines()[0] == 'text "at /"'
        # The first page's "previous" entry is about:blank: back refuses to go there.
        assert "no earlier page" in ctx.perform(BrowserAction("back")).error
        assert ctx.perform(BrowserAction("fill", "2", "blue socks")).error == ""
        assert 'value="blue socks"' in ctx.observe()
        out = ctx.perform(BrowserAction("press", text="Enter"))
        assert out.navigated
        assert ctx.observe().splitlines()[0] == 'text "at /slow?q=blue+socks"'
        assert "no element [99]" in ctx.perform(BrowserAction("click", "99")).error
        assert "not visible" in ctx.perform(BrowserAction("click", "4")).error
        assert "not a text box" in ctx.perform(BrowserAction("fill", "1", "x")).error
        assert ctx.perform(BrowserAction("scroll", text="down")).error == ""
        assert ctx.perform(BrowserAction("press", text="Tab")).navigated is False


@needs_browser
def test_screenshot_pixels() -> None:
    with new_context(viewport=(320, 200)) as ctx:
        ctx.set_content(
            "<body style='margin:0;background:#fff'>"
            "<div style='width:100px;height:50px;background:rgb(200,30,40)'></div></body>"
        )
        img = ctx.screenshot()
        assert img.shape == (200, 320, 3) and img.dtype == np.uint8
        assert img[10, 10].tolist() == [200, 30, 40]
        assert img[150, 300].tolist() == [255, 255, 255]
        # The PNG bytes (what one saves to a file) show the same pixels.
        png = ctx.screenshot_png()
        assert png[:8] == b"\x89PNG\r\n\x1a\n"
        assert np.array_equal(decode_png(png), img)


@needs_browser
def test_a_stalled_server_costs_one_timeout_and_a_fresh_page(site: str, stall: type) -> None:
    with new_context(allowed_origins=[site], timeout_ms=2000) as ctx:
        ctx.goto(site + "/inplace")
        assert ctx.perform(BrowserAction("click", "1")).error == ""  # the page starts a fetch
        start = time.monotonic()
        with pytest.raises(BrowserTimeout, match="timeout_ms=2000"):
            ctx.observe()  # waits on the page's settle hook, i.e. on the stalled fetch
        # A stall check, not a speed test: the call comes back long before the server would.
        assert time.monotonic() - start < 2.0 + 3.0
        assert ctx.timeouts == 1
        assert ctx.url() == "about:blank"  # the wedged page is gone...
        ctx.set_content("<button>ok</button>")  # ...and the context goes on with a fresh one
        assert ctx.observe() == '[0] button "ok"'
        # A navigation that never loads is bounded the same way.
        start = time.monotonic()
        with pytest.raises(BrowserTimeout):
            ctx.goto(site + "/stall?nav=1")
        assert time.monotonic() - start < 2.0 + 3.0
        assert ctx.timeouts == 2


@needs_browser
def test_the_limit_bounds_a_whole_job_not_each_call() -> None:
    async def three_waits(page: object) -> None:
        for _ in range(3):  # each wait is within the limit alone; the three are not
            await page.evaluate("() => new Promise((done) => setTimeout(done, 600))")  # type: ignore[attr-defined]

    with new_context(timeout_ms=1000) as ctx:
        with pytest.raises(BrowserTimeout):
            ctx.run(three_waits)
        assert ctx.timeouts == 1


@needs_browser
def test_a_stalled_page_does_not_hold_up_other_contexts(site: str, stall: type) -> None:
    slow = new_context(allowed_origins=[site], timeout_ms=8000)
    other = new_context()
    try:
        slow.goto(site + "/inplace")
        slow.perform(BrowserAction("click", "1"))
        assert stall.arrived.wait(STALL_S)
        got: dict[str, str] = {}
        waiter = threading.Thread(target=lambda: got.update(obs=slow.observe()))
        waiter.start()
        for i in range(3):  # while `slow` waits on its server, `other` steps as usual
            other.set_content(f"<button>b{i}</button>")
            assert other.observe() == f'[0] button "b{i}"'
        # All three came back while the stalled call was still waiting (the old runtime ran
        # one call at a time, so they queued behind it until the server answered).
        assert waiter.is_alive()
        stall.release.set()
        waiter.join(STALL_S)
        assert got["obs"].splitlines()[0] == 'text "in place"'  # it finishes once answered
    finally:
        slow.close()
        other.close()


@needs_browser
def test_a_page_stuck_in_a_script_costs_only_its_own_page() -> None:
    stuck = new_context(timeout_ms=1000)
    other = new_context()
    errors: list[BaseException] = []

    def spin() -> None:
        try:
            stuck.run(lambda page: page.evaluate("() => { for (;;) {} }"))
        except BaseException as exc:
            errors.append(exc)

    try:
        thread = threading.Thread(target=spin)
        thread.start()
        other.set_content("<button>ok</button>")
        assert other.observe() == '[0] button "ok"'
        thread.join(STALL_S)
        assert not thread.is_alive()
        assert len(errors) == 1 and isinstance(errors[0], BrowserTimeout)
        stuck.set_content("<p>again</p>")
        assert stuck.observe() == 'text "again"'
    finally:
        stuck.close()
        other.close()


@needs_browser
def test_a_queued_close_is_done_before_the_next_call() -> None:
    keep = new_context()
    try:
        before = runtime_stats()["contexts"]
        ctx = new_context()
        assert runtime_stats()["contexts"] == before + 1
        ctx.close(wait=False)  # what a garbage-collected env's finalizer does
        keep.url()
        assert runtime_stats()["contexts"] == before
    finally:
        keep.close()


@needs_browser
def test_one_browser_many_contexts_refcounted() -> None:
    assert runtime_stats()["contexts"] == 0
    a = new_context()
    b = new_context()
    stats = runtime_stats()
    assert stats["contexts"] == 2 and stats["browser_running"] == 1
    launches = stats["launches"]
    pids = browser_pids()
    assert pids, "the browser runs as a child of this process"
    a.close()
    a.close()  # idempotent
    assert runtime_stats()["contexts"] == 1 and runtime_stats()["browser_running"] == 1
    with pytest.raises(BrowserError):
        a.observe()
    b.set_content("<button>ok</button>")
    assert b.observe() == '[0] button "ok"'
    b.close()
    assert runtime_stats() == {"contexts": 0, "launches": launches, "browser_running": 0}
    assert browser_pids() == []
    assert all(not os.path.exists(f"/proc/{pid}") or _zombie(pid) for pid in pids)


def _zombie(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().rsplit(")", 1)[1].split()[0] == "Z"
    except OSError:
        return True


@needs_browser
def test_works_inside_a_running_asyncio_loop() -> None:
    async def agent() -> str:
        # Sync Playwright raises "using Playwright Sync API inside the asyncio loop" when
        # called here directly; the handle marshals to its own thread instead.
        ctx = new_context()
        try:
            ctx.set_content("<a href='#x'>link</a>")
            await asyncio.sleep(0)
            return ctx.observe()
        finally:
            ctx.close()

    assert asyncio.run(agent()) == '[0] link "link"'


@needs_browser
def test_concurrent_callers_from_threads() -> None:
    contexts = [new_context() for _ in range(3)]
    errors: list[BaseException] = []

    def work(i: int) -> None:
        try:
            for j in range(5):
                contexts[i].set_content(f"<button>b{i}-{j}</button>")
                assert contexts[i].observe() == f'[0] button "b{i}-{j}"'
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for ctx in contexts:
        ctx.close()
    assert errors == []


@needs_browser
def test_browser_dies_with_the_interpreter_without_close() -> None:
    code = (
        "from agentgym.browser import new_context, browser_pids\n"
        "ctx = new_context()\n"
        "ctx.set_content('<p>hi</p>')\n"
        "print(' '.join(map(str, browser_pids())))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True
    )
    pids = [int(p) for p in out.stdout.split()]
    assert pids
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and not all(
        not os.path.exists(f"/proc/{p}") or _zombie(p) for p in pids
    ):
        time.sleep(0.05)
    assert all(not os.path.exists(f"/proc/{p}") or _zombie(p) for p in pids)


# ------------------------------------------------------------------- served sites
class _Served:
    """An in-process site for new_context(site=...): records what reached it."""

    origin = "http://127.0.0.1"

    def __init__(self) -> None:
        self.requests: list[tuple[str, str]] = []

    def answer(self, method: str, url: str) -> SiteResponse:
        self.requests.append((method, url))
        if url.endswith("/boom"):
            raise RuntimeError("a bug in the site")
        return SiteResponse(200, f"<html><body><h1>{method} {url[-5:]}</h1></body></html>")


def test_a_served_site_must_be_loopback() -> None:
    class Remote(_Served):
        origin = "http://example.com"

    class WithPath(_Served):
        origin = "http://127.0.0.1/shop"

    for bad in (Remote(), WithPath()):
        with pytest.raises(ValueError, match="loopback"):
            new_context(site=bad)


@needs_browser
def test_a_served_site_answers_its_pages_without_a_port(site: str) -> None:
    served = _Served()
    with new_context(site=served) as ctx:
        ctx.goto("http://127.0.0.1/first")
        assert 'heading "GET first"' in ctx.observe()
        fetched = ctx.run(
            lambda page: page.evaluate(
                "() => fetch('/x?a=1', {method: 'POST', body: 'b'}).then((r) => r.text())"
            )
        )
        assert "POST x?a=1" in fetched
        # The binding (in-place loads) answers the site's own URLs only, always as GET.
        bound = ctx.run(
            lambda page: page.evaluate(
                "(urls) => Promise.all(urls.map((u) => window.__agentgymFetch(u)))",
                ["http://127.0.0.1/bind", site + "/", "http://example.com/", 5],
            )
        )
        assert "GET /bind" in bound[0] and bound[1:] == ["", "", ""]
        # A bug in the site is a 500 page, not a hung request.
        status = ctx.run(
            lambda page: page.evaluate("() => fetch('/boom').then((r) => r.status)")
        )
        assert status == 500
        # Another loopback origin (a real server) stays fenced off.
        result = ctx.run(
            lambda page: page.evaluate(
                "(u) => fetch(u).then(() => 'reached', () => 'blocked')", site + "/"
            )
        )
        assert result == "blocked" and any(site in url for url in ctx.blocked)
    assert [m for m, _ in served.requests] == ["GET", "POST", "GET", "GET"]
    assert all(url.startswith("http://127.0.0.1/") for _, url in served.requests)
