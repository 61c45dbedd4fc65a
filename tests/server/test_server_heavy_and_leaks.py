"""Red-team breaks of the server, each kept as a test: a cap on sessions that hold a browser or
a container, server-side failures that reach the client without host detail, and MCP
notifications that must not run a method."""

from __future__ import annotations

import asyncio
import logging

import gymnasium as gym
import pytest
from starlette.testclient import TestClient
from toy_env import CounterEnv

from agentgym.server.app import create_app
from agentgym.server.sessions import DEFAULT_MAX_HEAVY_SESSIONS, SessionStore, heavy_session

HEAVY = "agentgym-test/HeavyCounter-v0"
LIGHT = "agentgym-test/LightCounter-v0"
SNEAKY = "agentgym-test/SneakyHeavy-v0"
FACTORY = "agentgym-test/HeavyFactory-v0"
BROKEN = "agentgym-test/BrokenBuild-v0"
BROKEN_RESET = "agentgym-test/BrokenReset-v0"
SECRET = "/home/operator/secret-dir/chrome-linux/chrome"


class HeavyCounterEnv(CounterEnv):
    """Stands for WebShop's browser mode or Terminal-v0: says it holds a costly resource."""

    heavy_session = True
    closed = 0

    def close(self) -> None:
        type(self).closed += 1
        super().close()


def sneaky_heavy() -> CounterEnv:
    """A factory that says nothing, yet builds a heavy env (the server's backstop counts it)."""
    return HeavyCounterEnv()


def counter_factory(heavy: bool = False) -> CounterEnv:
    return HeavyCounterEnv() if heavy else CounterEnv()


counter_factory.heavy_session = lambda kwargs: bool(kwargs.get("heavy"))  # type: ignore[attr-defined]


class BrowserGone(RuntimeError):
    """Like BrowserUnavailable: a server-side failure whose text names a host path."""


def broken_build() -> CounterEnv:
    raise BrowserGone(f"there is no Chromium at {SECRET} (or set AGENTGYM_CHROMIUM)")


class BrokenResetEnv(CounterEnv):
    def _new_episode(self, rng, options):
        raise OSError(f"[Errno 2] No such file or directory: '{SECRET}'\nsecond line")


for _id, _entry in ((HEAVY, HeavyCounterEnv), (LIGHT, CounterEnv), (SNEAKY, sneaky_heavy),
                    (FACTORY, counter_factory), (BROKEN, broken_build),
                    (BROKEN_RESET, BrokenResetEnv)):
    if _id not in gym.registry:
        gym.register(id=_id, entry_point=_entry)


def run(coro):
    return asyncio.run(coro)


async def create(store: SessionStore, env_id: str):
    return await store.handle("create", None, {"env_id": env_id})


# ------------------------------------------------------------------ 1. heavy-session cap
def test_heavy_sessions_have_their_own_small_cap_and_light_ones_are_not_held_by_it():
    async def scenario():
        store = SessionStore([HEAVY, LIGHT], max_sessions=50, max_heavy_sessions=2)
        made = [await create(store, HEAVY) for _ in range(2)]
        assert [r.status for r in made] == [200, 200]
        busy = await create(store, HEAVY)
        assert busy.status == 503 and busy.headers["Retry-After"] == "1"
        assert "\n" not in busy.body["error"] and "browser or a container" in busy.body["error"]
        # The flat cap is far off: light sessions are still made.
        assert [(await create(store, LIGHT)).status for _ in range(10)] == [200] * 10
        # Closing a heavy session frees its slot.
        await store.handle("close", made[0].body["session_id"], {})
        assert (await create(store, HEAVY)).status == 200
        assert store.heavy_count() == 2

    run(scenario())


def test_a_refused_heavy_create_builds_nothing():
    async def scenario():
        store = SessionStore([HEAVY], max_heavy_sessions=1)
        assert (await create(store, HEAVY)).status == 200
        built = len(store.sessions)
        for _ in range(20):  # one client hammering: nothing is built, nothing piles up
            assert (await create(store, HEAVY)).status == 503
        assert len(store.sessions) == built and store.created_total == 1

    run(scenario())


def test_the_cap_is_judged_before_the_build_from_a_factorys_kwargs():
    async def scenario():
        store = SessionStore([FACTORY], max_heavy_sessions=1,
                             operator_kwargs={FACTORY: {"heavy": True}})
        assert (await create(store, FACTORY)).status == 200
        before = HeavyCounterEnv.closed
        assert (await create(store, FACTORY)).status == 503
        assert HeavyCounterEnv.closed == before  # refused before building (nothing to close)

    assert heavy_session(FACTORY, {"heavy": True}) and not heavy_session(FACTORY, {})
    run(scenario())


def test_an_undeclared_heavy_env_is_counted_and_closed_when_over_the_cap():
    async def scenario():
        store = SessionStore([SNEAKY], max_heavy_sessions=1)
        first = await create(store, SNEAKY)
        assert first.status == 200 and store.sessions[first.body["session_id"]].heavy
        before = HeavyCounterEnv.closed
        second = await create(store, SNEAKY)
        assert second.status == 503 and second.headers["Retry-After"] == "1"
        for _ in range(100):  # closed in a worker thread
            if HeavyCounterEnv.closed > before:
                break
            await asyncio.sleep(0.01)
        assert HeavyCounterEnv.closed == before + 1 and len(store.sessions) == 1

    run(scenario())


def test_webshop_browser_mode_and_terminal_are_heavy_text_mode_is_not():
    assert heavy_session("agentgym/WebShop-v0", {"mode": "browser"})
    assert not heavy_session("agentgym/WebShop-v0", {"mode": "text"})
    assert not heavy_session("agentgym/WebShop-v0", {})
    assert heavy_session("agentgym/Terminal-v0", {})
    assert not heavy_session("agentgym/TicTacToe-v0", {})
    assert 1 <= DEFAULT_MAX_HEAVY_SESSIONS <= 16


def test_webshop_browser_creates_past_the_cap_get_503_over_mcp():
    """The red team's attack: browser-mode WebShop sessions made over MCP by any client."""
    webshop = "agentgym/WebShop-v0"
    with TestClient(create_app([webshop], max_heavy_sessions=0)) as client:
        reply = client.post(f"/openenv/{webshop}/mcp", json={
            "jsonrpc": "2.0", "id": 1, "method": "openenv/session/create",
            "params": {"env_kwargs": {"mode": "browser", "num_products": 1000}}})
        assert reply.status_code == 200
        assert "browser or a container" in reply.json()["error"]["message"]
        native = client.post("/sessions", json={"env_id": webshop,
                                                "kwargs": {"mode": "browser"}})
        assert native.status_code == 503 and native.headers["retry-after"] == "1"
        assert client.get("/health").json()["sessions"] == 0  # and no Chromium was launched


@pytest.mark.parametrize("bad", [-1, -8])
def test_a_negative_heavy_cap_is_refused(bad):
    with pytest.raises(ValueError, match="max_heavy_sessions"):
        SessionStore([LIGHT], max_heavy_sessions=bad)


# ------------------------------------------------------------------ 2. no host detail
def test_a_server_side_failure_names_its_type_only_and_is_logged_in_full(caplog):
    async def scenario():
        store = SessionStore([BROKEN, BROKEN_RESET])
        built = await create(store, BROKEN)
        sid = (await create(store, BROKEN_RESET)).body["session_id"]
        reset = await store.handle("reset", sid, {"seed": 0})
        return built, reset

    with caplog.at_level(logging.ERROR, logger="agentgym.server"):
        built, reset = run(scenario())
    assert built.status == 500 and built.body == {
        "error": "BrowserGone: the env failed on the server; see the server's log",
        "type": "BrowserGone"}
    assert reset.status == 500 and reset.body["type"] == "OSError"
    for reply in (built, reset):
        assert SECRET not in reply.body["error"] and "\n" not in reply.body["error"]
    assert SECRET in caplog.text  # the operator still sees everything


def test_bad_input_still_names_its_cause():
    async def scenario():
        store = SessionStore([LIGHT])
        sid = (await create(store, LIGHT)).body["session_id"]
        return await store.handle("set_state", sid, {"state": "not json"})

    reply = run(scenario())
    assert reply.status == 400 and "the env failed on the server" not in reply.body["error"]


def test_every_route_hides_the_path_and_openenv_reset_answers_5xx():
    with TestClient(create_app([BROKEN])) as client:
        native = client.post("/sessions", json={"env_id": BROKEN})
        mcp = client.post(f"/openenv/{BROKEN}/mcp", json={
            "jsonrpc": "2.0", "id": 1, "method": "openenv/session/create"})
        reset = client.post(f"/openenv/{BROKEN}/reset", json={})
        with client.websocket_connect(f"/openenv/{BROKEN}/ws") as ws:
            ws.send_json({"type": "reset", "data": {"seed": 0}})
            ws_reply = ws.receive_json()
    assert native.status_code == 500
    assert reset.status_code == 500  # the server's failure, not the client's bad input
    for text in (native.text, mcp.text, reset.text, str(ws_reply)):
        assert SECRET not in text and "secret-dir" not in text
        assert "BrowserGone" in text


# ------------------------------------------------------------------ 3. MCP notifications
@pytest.mark.parametrize("method, params", [
    ("openenv/session/create", {}),
    ("openenv/session/create", {"env_kwargs": {}}),
    ("tools/call", {"name": "step", "arguments": {"action": "inc"}}),
    ("initialize", {}),
    ("no/such/method", {}),
])
def test_a_notification_runs_nothing(method, params):
    with TestClient(create_app([LIGHT], max_sessions=2)) as client:
        url = f"/openenv/{LIGHT}/mcp"
        for _ in range(4):  # more than max_sessions: none of them may take a slot
            reply = client.post(url, json={"jsonrpc": "2.0", "method": method,
                                           "params": params})
            assert reply.status_code == 202 and reply.content == b""
        assert client.get("/health").json()["sessions"] == 0
        real = client.post(url, json={"jsonrpc": "2.0", "id": 1,
                                      "method": "openenv/session/create"})
        assert "session_id" in real.json()["result"]


def test_a_notification_does_not_step_a_session():
    with TestClient(create_app([LIGHT])) as client:
        url = f"/openenv/{LIGHT}/mcp"
        sid = client.post(url, json={"jsonrpc": "2.0", "id": 1,
                                     "method": "openenv/session/create"}).json()["result"][
                                         "session_id"]
        with client.websocket_connect(f"/openenv/{LIGHT}/ws?session_id={sid}") as ws:
            ws.send_json({"type": "reset", "data": {"seed": 0}})
            ws.receive_json()
        for _ in range(3):
            note = client.post(url, json={"jsonrpc": "2.0", "method": "tools/call", "params": {
                "name": "step", "arguments": {"action": "inc"}, "session_id": sid}})
            assert note.status_code == 202
        step = client.post(url, json={"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                                      "params": {"name": "step", "arguments": {"action": "inc"},
                                                 "session_id": sid}})
        assert step.json()["result"]["data"]["info"]["step"] == 1  # the first step of all


def test_mcps_own_notifications_are_still_accepted():
    with TestClient(create_app([LIGHT])) as client:
        reply = client.post(f"/openenv/{LIGHT}/mcp",
                            json={"jsonrpc": "2.0", "method": "notifications/initialized"})
        assert reply.status_code == 202 and reply.content == b""
