"""The env server under hostile and careless clients (issue 33): one test per case.

Each runs against a live server on a free loopback port, with bounded loops and time limits:
no request may hang the server, no client may get another's session, no input gets a
traceback.
"""

from __future__ import annotations

import contextlib
import json
import signal
import socket
import threading
import time

import gymnasium as gym
import httpx
import pytest
from server_support import ServerProcess
from websockets.sync.client import connect

import agentgym  # noqa: F401 (registers the ids)
from agentgym.server.openenv import openenv_url

SEARCHQA = "agentgym/SearchQA-v0"
SOKOBAN = "agentgym/Sokoban-v0"
TTT = "agentgym/TicTacToe-v0"
MINES = "agentgym/Minesweeper-v0"


def health_ms(url: str) -> float:
    """Milliseconds ``/health`` takes to answer, on a new connection (a plain socket: httpx's
    own set-up would be counted too)."""
    host, port = url.removeprefix("http://").split(":")
    start = time.perf_counter()
    with socket.create_connection((host, int(port)), timeout=5.0) as s:
        s.sendall(b"GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        data = b""
        while chunk := s.recv(65536):
            data += chunk
    assert data.startswith(b"HTTP/1.1 200"), data[:100]
    return (time.perf_counter() - start) * 1000


def one_line_error(reply: httpx.Response, status: int) -> str:
    assert reply.status_code == status, (reply.status_code, reply.text[:300])
    body = reply.json()
    assert set(body) <= {"error", "type"} and "\n" not in body["error"], body
    assert "Traceback" not in reply.text
    return body["error"]


@pytest.fixture(scope="module")
def mixed():
    proc = ServerProcess((SOKOBAN, TTT, MINES)).start()
    yield proc
    proc.stop()


# ------------------------------------------------------------------------------ case 1
def test_1_a_searchqa_scale_past_the_names_is_refused_at_create_and_the_server_lives():
    """scale >= 743 drew city names forever, inline on the event loop: no reply ever again."""
    server = ServerProcess((SEARCHQA, TTT)).start()
    try:
        with httpx.Client(base_url=server.url, timeout=10.0) as client:
            reply = client.post("/sessions", json={"env_id": SEARCHQA,
                                                   "kwargs": {"scale": 743}})
            assert "742" in one_line_error(reply, 400)
            assert health_ms(server.url) < 1000
    finally:
        server.stop()


# ------------------------------------------------------------------------------ case 2
@pytest.mark.slow  # a server building the largest world
def test_2_a_world_build_at_the_maximum_scale_stalls_no_one_and_sigterm_stops_the_server():
    """A reset that builds the largest world runs off the event loop: /health answers within
    100 ms and another session steps meanwhile; SIGTERM stops the server in a few seconds.
    Only the operator may ask for that size (``serve -k scale=742``): a client is capped."""
    server = ServerProcess((SEARCHQA, TTT), args=("-k", "scale=742")).start()
    try:
        with httpx.Client(base_url=server.url, timeout=10.0) as client:
            capped = client.post("/sessions", json={"env_id": SEARCHQA,
                                                    "kwargs": {"scale": 742}})
            assert "when a remote client sets it" in one_line_error(capped, 400)
            big = client.post("/sessions", json={"env_id": SEARCHQA})
            assert big.status_code == 200, big.text
            small = client.post("/sessions", json={"env_id": TTT}).json()["session_id"]
            client.post(f"/sessions/{small}/reset", json={"seed": 0})

        def build() -> None:  # never answered before the server stops
            with contextlib.suppress(httpx.HTTPError):
                httpx.post(f"{server.url}/sessions/{big.json()['session_id']}/reset",
                           json={"seed": 0}, timeout=15.0)

        builder = threading.Thread(target=build, daemon=True)
        builder.start()
        time.sleep(1.0)  # the build is under way
        latencies = []
        with httpx.Client(base_url=server.url, timeout=5.0) as client:
            for _ in range(20):
                latencies.append(health_ms(server.url))
                step = client.post(f"/sessions/{small}/step", json={"action": "1 1"}, timeout=5.0)
                assert step.status_code == 200, step.text
                client.post(f"/sessions/{small}/reset", json={"seed": 0}, timeout=5.0)
                time.sleep(0.05)
        latencies.sort()
        assert latencies[len(latencies) // 2] < 100, latencies
        start = time.monotonic()
        server.proc.send_signal(signal.SIGTERM)
        server.proc.wait(timeout=15)
        assert time.monotonic() - start < 6.0
    finally:
        server.stop()


def test_2_a_call_past_its_limit_ends_that_session_with_a_clear_error():
    server = ServerProcess((SEARCHQA, TTT),
                           args=("--call-timeout", "1", "-k", "scale=300")).start()
    try:
        with httpx.Client(base_url=server.url, timeout=20.0) as client:
            sid = client.post("/sessions", json={"env_id": SEARCHQA}).json()["session_id"]
            start = time.monotonic()
            error = one_line_error(client.post(f"/sessions/{sid}/reset", json={"seed": 0}), 504)
            assert time.monotonic() - start < 5.0
            assert "limit of 1 s" in error and "closed" in error
            gone = client.post(f"/sessions/{sid}/step", json={"action": "x"})
            assert "ran past" in one_line_error(gone, 404)
            other = client.post("/sessions", json={"env_id": TTT}).json()["session_id"]
            assert client.post(f"/sessions/{other}/reset", json={"seed": 1}).status_code == 200
    finally:
        server.stop()


def test_2_score_and_list_fields_are_capped(mixed):
    with httpx.Client(base_url=mixed.url, timeout=10.0) as client:
        sid = client.post("/sessions", json={"env_id": SOKOBAN}).json()["session_id"]
        client.post(f"/sessions/{sid}/reset", json={"seed": 0})
        start = time.monotonic()
        reply = client.post(f"/sessions/{sid}/score", json={"actions": ["up"] * 200_000})
        assert "at most 1024" in one_line_error(reply, 413)
        assert time.monotonic() - start < 2.0
        nested = client.post(f"/sessions/{sid}/reset",
                             json={"seed": 0, "options": {"x": [list(range(5000))]}})
        one_line_error(nested, 413)
        ok = client.post(f"/sessions/{sid}/score", json={"actions": ["up"] * 100})
        assert ok.status_code == 200 and len(ok.json()["scores"]) == 100


# ------------------------------------------------------------------------------ case 3
def test_3_create_request_ids_are_scoped_to_their_client(mixed):
    """Client B's create with client A's request id used to return A's session."""
    with httpx.Client(base_url=mixed.url, timeout=10.0) as a, \
            httpx.Client(base_url=mixed.url, timeout=10.0) as b:
        first = a.post("/sessions", json={"env_id": SOKOBAN, "request_id": "1"}).json()
        second = b.post("/sessions", json={"env_id": MINES, "request_id": "1"}).json()
        assert second["env_id"] == MINES and second["session_id"] != first["session_id"]
        # The same body too: B gets a session of its own.
        with httpx.Client(base_url=mixed.url, timeout=10.0) as c:
            third = c.post("/sessions", json={"env_id": SOKOBAN, "request_id": "1"}).json()
        assert third["session_id"] != first["session_id"]
        # A retry of A's on the same connection finds A's reply.
        again = a.post("/sessions", json={"env_id": SOKOBAN, "request_id": "1"}).json()
        assert again["session_id"] == first["session_id"]
        # A client token scopes across connections (RemoteEnv's retries).
        body = {"env_id": TTT, "request_id": "7", "client_token": "secret-a"}
        made = a.post("/sessions", json=body).json()["session_id"]
        assert b.post("/sessions", json=body).json()["session_id"] == made
        other = b.post("/sessions", json={**body, "client_token": "secret-b"}).json()
        assert other["session_id"] != made
    with connect(mixed.url.replace("http", "ws") + "/ws") as ws:
        ws.send(json.dumps({"op": "create", "request_id": "1", "env_id": MINES}))
        over_ws = json.loads(ws.recv(timeout=10))
        assert over_ws["ok"] and over_ws["session_id"] != first["session_id"]


# ------------------------------------------------------------------------------ case 4
def test_4_a_reused_request_id_with_another_body_is_a_409_naming_the_difference(mixed):
    with httpx.Client(base_url=mixed.url, timeout=10.0) as client:
        sid = client.post("/sessions", json={"env_id": SOKOBAN}).json()["session_id"]
        client.post(f"/sessions/{sid}/reset", json={"seed": 3})
        first = client.post(f"/sessions/{sid}/step", json={"action": "up", "request_id": "s1"})
        assert first.status_code == 200
        same = client.post(f"/sessions/{sid}/step", json={"action": "up", "request_id": "s1"})
        assert same.json() == first.json()
        error = one_line_error(client.post(
            f"/sessions/{sid}/step", json={"action": "down", "request_id": "s1"}), 409)
        assert "'action'" in error and "s1" in error
        error = one_line_error(client.post(
            f"/sessions/{sid}/reset", json={"seed": 3, "request_id": "s1"}), 409)
        assert "'step'" in error
        made = client.post("/sessions", json={"env_id": SOKOBAN, "request_id": "c1"})
        error = one_line_error(client.post("/sessions", json={"env_id": TTT, "request_id": "c1"}),
                               409)
        assert "'env_id'" in error and made.status_code == 200


# ------------------------------------------------------------------------------ case 5
_MALFORMED = {
    "depth 10,000": b"[" * 10_000 + b"]" * 10_000,
    "objects 10,000 deep": b'{"a":' * 10_000 + b"1" + b"}" * 10_000,
    "deep with a long number": b"[" * 10_000 + b"1" * 30,
    "invalid UTF-8": b'{"env_id": "\xff\xfe"}',
    "a 100,000-digit integer": b'{"env_id": 1' + b"0" * 100_000 + b"}",
    "NaN": b'{"env_id": NaN}',
    "a lone surrogate": b'{"env_id": "\\ud800"}',
}


@pytest.mark.parametrize("name", list(_MALFORMED))
def test_5_malformed_json_is_a_one_line_4xx_over_http(mixed, name):
    with httpx.Client(base_url=mixed.url, timeout=10.0) as client:
        reply = client.post("/sessions", content=_MALFORMED[name],
                            headers={"content-type": "application/json"})
        assert 400 <= reply.status_code < 500, (reply.status_code, reply.text[:200])
        one_line_error(reply, reply.status_code)
        openenv = client.post(f"/openenv/{TTT}/reset", content=_MALFORMED[name])
        if name == "a lone surrogate":  # valid JSON: an unknown key OpenEnv's reset ignores
            assert openenv.status_code == 200
        else:
            assert 400 <= openenv.status_code < 500 and "\n" not in openenv.json()["error"]


def test_5_malformed_json_over_websockets_keeps_the_connection_and_its_sessions(mixed):
    with connect(mixed.url.replace("http", "ws") + "/ws", max_size=2**24) as ws:
        ws.send(json.dumps({"op": "create", "request_id": "c", "env_id": TTT}))
        sid = json.loads(ws.recv(timeout=10))["session_id"]
        ws.send(json.dumps({"op": "reset", "request_id": "r", "session_id": sid, "seed": 0}))
        assert json.loads(ws.recv(timeout=10))["ok"]
        for raw in _MALFORMED.values():
            ws.send(raw)  # a binary frame: the server decodes it
            reply = json.loads(ws.recv(timeout=10))
            assert reply["ok"] is False and 400 <= reply["status"] < 500, reply
            assert "\n" not in reply["error"]
        ws.send(json.dumps({"op": "step", "request_id": "s", "session_id": sid,
                            "action": "1 1"}))
        assert json.loads(ws.recv(timeout=10))["ok"]
    with connect(openenv_url(mixed.url, TTT).replace("http", "ws") + "/ws") as ws:
        ws.send(json.dumps({"type": "reset", "data": {"seed": 0}}))
        assert json.loads(ws.recv(timeout=10))["type"] == "observation"
        for raw in _MALFORMED.values():
            ws.send(raw)
            reply = json.loads(ws.recv(timeout=10))
            assert reply["type"] == "error", reply
        ws.send(json.dumps({"type": "step", "data": {"text": "1 1"}}))
        assert json.loads(ws.recv(timeout=10))["type"] == "observation"


# ------------------------------------------------------------------------------ case 6
@pytest.mark.parametrize("seed", [2**64, 2**64 - 1, 2**200])
def test_6_a_big_seed_plays_the_same_episode_remotely_as_locally(mixed, seed):
    local = gym.make(TTT)
    remote = gym.make(TTT, server_url=mixed.url)
    try:
        assert remote.reset(seed=seed) == local.reset(seed=seed)
        with pytest.raises(ValueError, match="non-negative"):
            remote.reset(seed=-1)
        with pytest.raises(ValueError, match="non-negative"):
            local.reset(seed=-1)
    finally:
        remote.close()
        local.close()
    with httpx.Client(base_url=mixed.url, timeout=10.0) as client:
        sid = client.post("/sessions", json={"env_id": TTT}).json()["session_id"]
        raw = b'{"seed": -' + str(seed).encode() + b"}"
        reply = client.post(f"/sessions/{sid}/reset", content=raw)
        assert "non-negative" in one_line_error(reply, 400)
