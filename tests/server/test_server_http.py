"""The server's protocol over raw HTTP and WebSocket: replies, dedupe, refusals and limits.

Every refusal is a 4xx JSON object with an ``error`` line; none carries a stack trace.
"""

from __future__ import annotations

import doctest
import importlib
import json
import re
import time
import uuid
from pathlib import Path

import gymnasium as gym
import httpx
import pytest
from server_support import ServerProcess
from websockets.exceptions import InvalidStatus
from websockets.sync.client import connect

from agentgym.envinfo import env_creator
from agentgym.remote import RemoteEnv, RemoteEnvError

TTT = "agentgym/TicTacToe-v0"


def rid() -> str:
    return uuid.uuid4().hex


def assert_refusal(response: httpx.Response, status: int, *words: str) -> dict:
    assert response.status_code == status, response.text
    assert response.headers["content-type"].startswith("application/json")
    body = response.json()
    assert isinstance(body["error"], str) and body["error"].strip()
    assert "Traceback" not in response.text and "File \"" not in response.text
    for word in words:
        assert word in body["error"], body["error"]
    return body


@pytest.fixture
def http(server):
    with httpx.Client(base_url=server.url, timeout=10) as client:
        yield client


def create(http: httpx.Client, env_id: str = TTT, **kwargs) -> str:
    reply = http.post("/sessions", json={"env_id": env_id, "kwargs": kwargs, "request_id": rid()})
    assert reply.status_code == 200, reply.text
    return reply.json()["session_id"]


def test_a_session_plays_over_http(http):
    sid = create(http)
    reset = http.post(f"/sessions/{sid}/reset", json={"seed": 3, "request_id": rid()}).json()
    local = gym.make(TTT)
    obs, info = local.reset(seed=3)
    assert (reset["observation"], reset["info"]) == (obs, info)
    action = info["available_actions"][0]
    step = http.post(f"/sessions/{sid}/step", json={"action": action, "request_id": rid()}).json()
    assert [step[k] for k in ("observation", "reward", "terminated", "truncated", "info")] == list(
        local.step(action)
    )
    state = http.get(f"/sessions/{sid}/state").json()["state"]
    assert state == local.unwrapped.get_state().decode()
    scores = http.post(f"/sessions/{sid}/score", json={"actions": ["1 1", "junk"]}).json()
    assert scores["scores"] == local.unwrapped.score_actions(["1 1", "junk"])
    oracle = http.get(f"/sessions/{sid}/oracle").json()["actions"]
    assert oracle == local.unwrapped.oracle_actions()
    put = http.put(f"/sessions/{sid}/state", json={"state": state, "request_id": rid()})
    assert put.status_code == 200 and put.json()["episode_seed"] == 3
    assert http.delete(f"/sessions/{sid}").json()["closed"] is True
    assert_refusal(http.post(f"/sessions/{sid}/step", json={"action": "1 1"}), 404, "closed")
    assert http.delete(f"/sessions/{sid}").status_code == 200  # a retried close is answered
    local.close()


def test_a_retried_step_is_applied_once_and_answered_the_same(http):
    sid = create(http)
    http.post(f"/sessions/{sid}/reset", json={"seed": 0, "request_id": rid()})
    body = {"action": "2 2", "request_id": "step-1"}
    first = http.post(f"/sessions/{sid}/step", json=body)
    again = http.post(f"/sessions/{sid}/step", json=body)
    assert first.content == again.content and first.json()["info"]["step"] == 1
    state = json.loads(http.get(f"/sessions/{sid}/state").json()["state"])
    assert state["steps"] == 1  # the retry did not step the env
    nxt = http.post(f"/sessions/{sid}/step", json={"action": "1 1", "request_id": "step-2"})
    assert nxt.json()["info"]["step"] == 2
    # A retried create gives the same session, not a second one.
    body = {"env_id": TTT, "request_id": "create-1"}
    assert http.post("/sessions", json=body).json() == http.post("/sessions", json=body).json()
    http.delete(f"/sessions/{sid}")


def test_malformed_json_and_wrong_shapes_are_400_with_a_message(http):
    sid = create(http)
    assert_refusal(http.post("/sessions", content=b"{not json"), 400, "malformed JSON")
    assert_refusal(http.post("/sessions", content=b"[1, 2]"), 400, "JSON object")
    assert_refusal(http.post(f"/sessions/{sid}/step", content=b'{"action": '), 400, "malformed")
    assert_refusal(http.post(f"/sessions/{sid}/step", json={"request_id": rid()}), 400, "action")
    assert_refusal(http.put(f"/sessions/{sid}/state", json={"state": 3}), 400, "state")
    assert_refusal(http.post(f"/sessions/{sid}/step", json={"action": "x", "request_id": 5}), 400,
                   "request_id")
    assert_refusal(http.post("/sessions", json={"kwargs": {}}), 400, "env_id")
    http.delete(f"/sessions/{sid}")


def test_bad_ids_kwargs_seeds_and_snapshots_are_4xx_with_the_envs_message(http):
    assert_refusal(http.post("/sessions", json={"env_id": "agentgym/Sudoku-v0"}), 404,
                   "not served")
    assert_refusal(http.post("/sessions", json={"env_id": TTT, "kwargs": {"bogus": 1}}), 400,
                   "bogus")
    assert_refusal(http.post("/sessions", json={"env_id": TTT, "kwargs": {"max_steps": 0}}), 400,
                   "max_steps")
    assert_refusal(http.post("/sessions", json={"env_id": TTT,
                                                "kwargs": {"server_url": "http://x"}}),
                   400, "server_url")
    sid = create(http)
    body = assert_refusal(http.post(f"/sessions/{sid}/step", json={"action": "1 1"}), 400,
                          "reset")
    assert body["type"] == "ResetNeeded"
    assert_refusal(http.post(f"/sessions/{sid}/reset", json={"seed": "3"}), 400, "seed")
    assert_refusal(http.put(f"/sessions/{sid}/state", json={"state": "{}"}), 400, "snapshot")
    http.delete(f"/sessions/{sid}")


def test_unknown_sessions_routes_and_methods_are_json_4xx(http):
    assert_refusal(http.post("/sessions/nope/step", json={"action": "1 1"}), 404, "unknown")
    assert_refusal(http.get("/sessions/nope/state"), 404, "unknown")
    assert_refusal(http.delete("/sessions/nope"), 404, "unknown")
    assert_refusal(http.get("/no/such/route"), 404)
    assert_refusal(http.get("/sessions"), 405)


def test_an_oversized_body_is_413(http):
    sid = create(http)
    huge = b'{"action": "' + b"x" * (5 * 1024 * 1024) + b'"}'
    assert_refusal(http.post(f"/sessions/{sid}/step", content=huge), 413, "bytes")
    # Sent in chunks, with no Content-Length to judge by up front.
    chunks = (huge[i : i + 65536] for i in range(0, len(huge), 65536))
    assert_refusal(http.post(f"/sessions/{sid}/step", content=chunks), 413, "bytes")
    # The server is still fine.
    assert http.get("/health").json()["status"] == "ok"
    http.delete(f"/sessions/{sid}")


def test_health_schema_and_metrics(http):
    health = http.get("/health").json()
    assert health["status"] == "ok" and set(health["env_ids"]) == {TTT, "agentgym/Sokoban-v0"}
    schema = http.get("/schema").json()
    ttt = schema["envs"][TTT]
    assert ttt["observation_space"]["type"] == "Text" and "valid_action" in ttt["info"]
    kwargs = {k["name"]: k for k in ttt["kwargs"]}
    assert kwargs["opponent"]["default"] == "random" and kwargs["max_invalid"]["allowed"]
    assert "step" in schema["ops"]
    create(http)
    text = http.get("/metrics").text
    assert "agentgym_sessions " in text and 'agentgym_requests_total{op="create"' in text
    assert "agentgym_request_seconds_bucket" in text


def test_the_websocket_speaks_the_same_protocol(server):
    url = server.url.replace("http://", "ws://") + "/ws"
    with connect(url, open_timeout=10) as ws:

        def receive() -> dict:
            return json.loads(ws.recv(timeout=10))

        ws.send(json.dumps({"op": "create", "request_id": "c", "env_id": TTT}))
        created = receive()
        assert created["ok"] and created["request_id"] == "c"
        sid = created["session_id"]
        ws.send(json.dumps({"op": "reset", "request_id": "r", "session_id": sid,
                                 "seed": 1}))
        assert receive()["info"]["step"] == 0
        step = {"op": "step", "request_id": "s1", "session_id": sid, "action": "2 2"}
        ws.send(json.dumps(step))
        first = receive()
        ws.send(json.dumps(step))  # a retry: the same reply, not a second step
        assert receive() == first and first["info"]["step"] == 1
        ws.send(json.dumps({"op": "state", "request_id": "g", "session_id": sid}))
        assert json.loads(receive()["state"])["steps"] == 1
        ws.send("{broken")
        broken = receive()
        assert broken["ok"] is False and broken["status"] == 400 and "malformed" in broken["error"]
        ws.send(json.dumps({"op": "fly", "request_id": "f"}))
        assert receive()["error"].startswith("unknown op")
        ws.send(json.dumps({"op": "step", "request_id": "u", "session_id": "nope",
                                 "action": "1 1"}))
        assert receive()["status"] == 404
        ws.send(json.dumps({"op": "close", "request_id": "x", "session_id": sid}))
        assert receive()["closed"] is True


def test_a_token_guards_everything_but_health():
    proc = ServerProcess((TTT,), ("--token", "s3cret")).start()
    try:
        with httpx.Client(base_url=proc.url, timeout=10) as http:
            assert http.get("/health").status_code == 200
            assert_refusal(http.get("/schema"), 401, "token")
            assert_refusal(http.post("/sessions", json={"env_id": TTT}), 401, "token")
            assert_refusal(http.post("/sessions", json={"env_id": TTT},
                                     headers={"Authorization": "Bearer wrong"}), 401, "token")
            good = {"Authorization": "Bearer s3cret"}
            assert http.post("/sessions", json={"env_id": TTT}, headers=good).status_code == 200
        ws_url = proc.url.replace("http://", "ws://") + "/ws"
        with pytest.raises(InvalidStatus):
            connect(ws_url, open_timeout=10).close()
        with connect(ws_url, open_timeout=10, additional_headers=good) as ws:
            ws.send(json.dumps({"op": "create", "request_id": "c", "env_id": TTT}))
            assert json.loads(ws.recv(timeout=10))["ok"] is True
        with pytest.raises(RemoteEnvError, match="token"):
            RemoteEnv(TTT, server_url=proc.url, token="wrong", retry_for=0)
        env = gym.make(TTT, server_url=proc.url, token="s3cret")
        assert env.reset(seed=0)[1]["step"] == 0
        env.close()
    finally:
        proc.stop()


def test_the_token_comes_from_the_environment(monkeypatch):
    monkeypatch.setenv("AGENTGYM_TOKEN", "from-env")  # read by the server and the client
    proc = ServerProcess((TTT,)).start()
    try:
        assert_refusal(httpx.get(f"{proc.url}/schema", timeout=10), 401, "token")
        env = gym.make(TTT, server_url=proc.url)
        env.reset(seed=0)
        env.close()
    finally:
        proc.stop()


def test_capacity_is_503_with_retry_after():
    proc = ServerProcess((TTT,), ("--max-sessions", "2")).start()
    try:
        with httpx.Client(base_url=proc.url, timeout=10) as http:
            sids = [create(http) for _ in range(2)]
            busy = http.post("/sessions", json={"env_id": TTT})
            assert_refusal(busy, 503, "busy")
            assert int(busy.headers["retry-after"]) >= 1
            with pytest.raises(RemoteEnvError, match="busy") as caught:
                gym.make(TTT, server_url=proc.url)
            assert caught.value.status == 503
            http.delete(f"/sessions/{sids[0]}")
            assert http.post("/sessions", json={"env_id": TTT}).status_code == 200
    finally:
        proc.stop()


def test_idle_sessions_expire():
    proc = ServerProcess((TTT,), ("--idle-timeout", "2")).start()
    try:
        env = gym.make(TTT, server_url=proc.url)
        env.reset(seed=0)
        time.sleep(4.5)  # over two idle timeouts: the session is gone, however the sweep ran
        with pytest.raises(RemoteEnvError, match="expired") as caught:
            env.step("1 1")
        assert caught.value.status == 404
        env.close()
        fresh = gym.make(TTT, server_url=proc.url)  # new sessions are served as before
        assert fresh.reset(seed=0)[1]["step"] == 0
        fresh.close()
    finally:
        proc.stop()


@pytest.mark.parametrize(
    "module",
    ["agentgym.server.protocol", "agentgym.server.sessions", "agentgym.server.app",
     "agentgym.server.metrics", "agentgym.remote", "agentgym.registry"],
)
def test_docstring_examples_run(module):
    results = doctest.testmod(importlib.import_module(module), optionflags=doctest.ELLIPSIS)
    assert results.failed == 0 and results.attempted > 0


def test_gym_make_without_server_url_is_the_local_class():
    env = gym.make(TTT)
    assert type(env.unwrapped).__name__ == "TicTacToeEnv"
    assert env_creator(TTT) is type(env.unwrapped)
    assert type(gym.make(TTT, server_url=None).unwrapped) is type(env.unwrapped)
    env.close()


def test_the_readme_example_runs_against_a_live_server(server):
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text()
    section = readme.split("## Env server", 1)[1].split("\n## ", 1)[0]
    block = re.search(r"```python\n(.*?)```", section, re.DOTALL).group(1)
    assert "http://127.0.0.1:8000" in block
    scope: dict = {}
    exec(compile(block.replace("http://127.0.0.1:8000", server.url), "README", "exec"), scope)
    local = gym.make("agentgym/Sokoban-v0", size=6)
    local.reset(seed=42)
    _, expected, *_ = local.step(local.unwrapped.oracle_actions()[0])
    local.close()
    assert scope["reward"] == expected > 0 and json.loads(scope["snapshot"])["seed"] == 42


def test_remote_env_is_exported_lazily():
    import agentgym

    assert agentgym.RemoteEnv is RemoteEnv


def test_actions_json_cannot_spell_in_utf8_and_numpy_seeds_play_as_in_process(server):
    import numpy as np

    remote, local = gym.make(TTT, server_url=server.url), gym.make(TTT)
    assert remote.reset(seed=np.int64(4)) == local.reset(seed=np.int64(4))
    for action in ("\ud800", "<action>\udfff 1</action>", "é 1", "2 2"):
        assert remote.step(action) == local.step(action), repr(action)
    remote.close()
    local.close()
