"""The loopback shop server without a browser: Host checks, bounded connections, step windows."""

from __future__ import annotations

import socket
import threading
import time

import pytest

from agentgym.environments.webshop.engine import Element, Page
from agentgym.environments.webshop.site import (
    BASE_CONNECTIONS,
    CONNECTIONS_PER_SESSION,
    COOKIE_NAME,
    ShopSession,
    get_server,
    release_session,
)

PAGE = Page("results", (Element("button", "Next >", "Next >"),))


class Recorder:
    """An env stand-in: records the actions the site hands it."""

    def __init__(self) -> None:
        self.acts: list[tuple[str, str]] = []

    def act(self, kind: str, arg: str) -> str:
        self.acts.append((kind, arg))
        return f"did {kind} {arg}"


@pytest.fixture
def served():
    recorder = Recorder()
    session = ShopSession(page=lambda: PAGE, act=recorder.act)
    server = get_server(session)
    yield server, session, recorder
    release_session(session)


def raw_get(server, path: str, host: str | None, cookie: str = "") -> tuple[int, str]:
    """One HTTP/1.1 GET over a raw socket (so the Host header is exactly what we say)."""
    port = int(server.origin.rsplit(":", 1)[1])
    lines = [f"GET {path} HTTP/1.1"]
    if host is not None:
        lines.append(f"Host: {host}")
    if cookie:
        lines.append(f"Cookie: {COOKIE_NAME}={cookie}")
    lines += ["Connection: close", "", ""]
    with socket.create_connection(("127.0.0.1", port), timeout=30) as sock:
        sock.sendall("\r\n".join(lines).encode())
        data = b""
        while chunk := sock.recv(65536):
            data += chunk
    head, _, body = data.decode("utf-8", "replace").partition("\r\n\r\n")
    return int(head.split()[1]), body


def test_only_the_servers_own_host_is_answered(served):
    server, session, recorder = served
    own = server.origin.removeprefix("http://")
    assert raw_get(server, "/page", own, session.secret)[0] == 200
    assert raw_get(server, "/page", own.upper(), session.secret)[0] == 200  # case-insensitive
    for host in ("evil.example", f"evil.example:{own.rsplit(':', 1)[1]}", "localhost",
                 "127.0.0.1", "127.0.0.1:1"):
        status, body = raw_get(server, "/page", host, session.secret)
        assert status == 421 and "Next" not in body, host  # a rebinding page reads nothing
    assert raw_get(server, "/page", None, session.secret)[0] == 400
    session.begin_step()
    status, _ = raw_get(server, "/click?v=0&l=Next+%3E", "evil.example", session.secret)
    assert status == 421 and session.end_step() is None and recorder.acts == []


def test_actions_apply_only_inside_a_step_and_once(served):
    server, session, recorder = served
    own = server.origin.removeprefix("http://")
    click = "/click?v={}&l=Next+%3E"
    assert raw_get(server, click.format(0), own, session.secret)[0] == 200
    assert recorder.acts == [] and session.version == 0  # outside a step: nothing happens
    session.begin_step()
    raw_get(server, click.format(0), own, session.secret)
    raw_get(server, click.format(1), own, session.secret)  # a second action in the same step
    assert session.end_step() == "did click Next >"
    assert recorder.acts == [("click", "Next >")] and session.version == 1
    raw_get(server, click.format(1), own, session.secret)  # after the step: nothing
    assert recorder.acts == [("click", "Next >")]


def test_end_step_waits_for_an_action_being_applied():
    release = threading.Event()
    started = threading.Event()

    def slow_act(kind: str, arg: str) -> str:
        started.set()
        release.wait(30)
        return "applied"

    session = ShopSession(page=lambda: PAGE, act=slow_act)
    session.begin_step()
    request = threading.Thread(target=session.request, args=("click", "Next >", "0"))
    request.start()
    assert started.wait(30)
    result: list[object] = []
    ender = threading.Thread(target=lambda: result.append(session.end_step()))
    ender.start()
    ender.join(0.3)
    # The step cannot close (and the env cannot read its result) while the action runs.
    assert ender.is_alive() and result == []
    release.set()
    ender.join(30)
    request.join(30)
    assert result == ["applied"] and session.actions == 1


def test_connections_are_bounded(served):
    server, session, _ = served
    limit = server.max_connections()
    assert limit == BASE_CONNECTIONS + CONNECTIONS_PER_SESSION * 1
    port = int(server.origin.rsplit(":", 1)[1])
    held = []
    try:
        # Idle connections that never send a request each hold a server thread.
        for _ in range(limit):
            held.append(socket.create_connection(("127.0.0.1", port), timeout=30))
        # Connections are accepted in order, so once these extra ones are answered, the
        # held ones occupy every slot.
        for _ in range(5):
            with socket.create_connection(("127.0.0.1", port), timeout=30) as extra:
                answer = extra.recv(200)
                assert answer.startswith(b"HTTP/1.1 503"), answer
                assert extra.recv(200) == b""  # and closed
        assert server.active_connections == limit
    finally:
        for sock in held:
            sock.close()
    # The held connections end when their clients go; the server answers again.
    for _ in range(3000):
        if server.active_connections == 0:
            break
        time.sleep(0.01)
    assert server.active_connections == 0
    own = server.origin.removeprefix("http://")
    assert raw_get(server, "/page", own, session.secret)[0] == 200
