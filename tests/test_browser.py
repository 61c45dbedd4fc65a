"""agentgym.browser: PNG decoding, the action grammar, and (with Chromium) the shared runtime.

Tests that need Chromium skip only when it is missing *and* ``CI`` is unset; in CI
(``scripts/install_browser.sh`` has run) they must run.
"""

from __future__ import annotations

import asyncio
import http.server
import os
import struct
import subprocess
import sys
import threading
import time
import zlib

import numpy as np
import pytest

from agentgym import browser as B
from agentgym.browser import (
    BrowserAction,
    BrowserError,
    browser_available,
    browser_pids,
    decode_png,
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
    assert B._host_allowed("http://127.0.0.1:8000/x", None)
    assert B._host_allowed("http://localhost:1/", None)
    assert B._host_allowed("http://127.0.0.1:8000/x?y", allowed)
    assert not B._host_allowed("http://127.0.0.1:8001/x", allowed)
    assert not B._host_allowed("http://example.com/", None)
    assert not B._host_allowed("https://10.0.0.1/", None)
    assert not B._host_allowed("http://127.0.0.1.evil.com/", None)
    assert not B._host_allowed("file:///etc/passwd", None)
    assert not B._host_allowed("ws://example.com/", None)
    # The route pattern (matched inside Playwright's driver) catches exactly the rest.
    anywhere = B._blocked_pattern(None)
    for url in ("http://example.com/", "https://10.0.0.1/x", "http://127.0.0.1.evil.com/"):
        assert anywhere.match(url), url
    for url in ("http://127.0.0.1:8000/x", "http://localhost/", "http://[::1]:9/"):
        assert not anywhere.match(url), url
    shop = B._blocked_pattern(allowed)
    assert not shop.match("http://127.0.0.1:8000/page?v=1")
    assert not shop.match("http://127.0.0.1:8000")
    assert shop.match("http://127.0.0.1:8001/page")
    assert shop.match("http://127.0.0.1:80000/")


# ----------------------------------------------------------------------------- Chromium
class _Site(http.server.BaseHTTPRequestHandler):
    """A tiny loopback site: /slow answers after 150 ms to catch actions that do not wait."""

    def do_GET(self) -> None:
        if self.path.startswith("/slow"):
            time.sleep(0.15)
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
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


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
