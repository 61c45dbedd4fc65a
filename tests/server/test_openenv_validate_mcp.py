"""OpenEnv 0.10 against ``agentgym serve``: ``openenv validate``, MCP tools, bearer tokens.

* ``openenv validate --url {server}/openenv/{id}``'s own check (``validate_running_environment``,
  what the CLI runs) passes all six criteria, simulation mode.
* OpenEnv's ``MCPToolClient`` (HTTP MCP session + the WebSocket attached to it) plays whole
  episodes with the ``step`` tool; every reward equals the local env's.
* OpenEnv's clients send the server's bearer token with ``headers=``; without it they are refused.
* Hostile JSON-RPC bodies get one-line errors (4xx for what is not a JSON-RPC request at all).
"""

from __future__ import annotations

import asyncio

import gymnasium as gym
import httpx
import pytest
from starlette.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

import agentgym  # noqa: F401 (registers the ids)
from agentgym.server.app import create_app
from agentgym.server.openenv import openenv_url

pytest.importorskip("openenv.core", reason="openenv is not installed (pip install 'openenv>=0.10')")
from openenv.cli._validation import validate_running_environment
from openenv.core import GenericEnvClient, MCPToolClient
from server_support import ServerProcess

TTT, SUDOKU = "agentgym/TicTacToe-v0", "agentgym/Sudoku-v0"
TOKEN = "s3cret-token"


@pytest.fixture(scope="module")
def plain_server():
    proc = ServerProcess(env_ids=(TTT, SUDOKU)).start()
    yield proc
    proc.stop()


@pytest.fixture(scope="module")
def client():
    with TestClient(create_app([TTT, SUDOKU], max_body=4096)) as test_client:
        yield test_client


@pytest.mark.parametrize("env_id", [TTT, SUDOKU])
def test_openenv_validate_passes_every_check(plain_server, env_id):
    report = validate_running_environment(openenv_url(plain_server.url, env_id))
    failed = [c for c in report["criteria"] if not c["passed"]]
    assert failed == [] and report["passed"], failed
    assert len(report["criteria"]) == 6
    assert report["mode"] == "simulation" and report["standard_profile"] == "openenv-http/1.x"


def test_action_schema_is_titled_textaction(client):
    # verifiers' OpenEnv taskset treats a schema titled "Action" as a tool-calling env.
    schema = client.get(f"/openenv/{TTT}/schema").json()
    assert schema["action"]["title"] == "TextAction"
    assert schema["action"]["required"] == ["text"]


def _legal(info: dict) -> str:
    return (info.get("available_actions") or ["1 1"])[0]


@pytest.mark.parametrize("env_id", [TTT, SUDOKU])
def test_mcp_tool_client_plays_episodes_equal_to_the_local_env(plain_server, env_id):
    async def play(seed: int) -> tuple[list[float], list[float], bool]:
        local = gym.make(env_id)
        _, info = local.reset(seed=seed)
        want: list[float] = []
        got: list[float] = []
        async with MCPToolClient(base_url=openenv_url(plain_server.url, env_id)) as env:
            await env.reset(seed=seed)
            assert [t.name for t in await env.list_tools()] == ["step"]
            done = False
            while not done and len(got) < 40:
                action = _legal(info) if len(got) % 3 else "not a move"
                obs, reward, terminated, truncated, info = local.step(action)
                out = await env.call_tool("step", action=action)
                assert out["observation"] == obs
                assert (out["terminated"], out["truncated"]) == (terminated, truncated)
                want.append(float(reward))
                got.append(out["reward"])
                done = terminated or truncated
                assert out["done"] is done
        local.close()
        return want, got, out["info"]["success"] == info["success"]

    for seed in (0, 1):
        want, got, same_success = asyncio.run(play(seed))
        assert got == want and len(got) >= 3
        assert same_success


def test_bearer_token_goes_through_openenv_headers():
    proc = ServerProcess(env_ids=(TTT,), args=("--token", TOKEN)).start()
    try:
        url = openenv_url(proc.url, TTT)
        local = gym.make(TTT)
        _, info = local.reset(seed=2)
        headers = {"Authorization": f"Bearer {TOKEN}"}
        with GenericEnvClient(base_url=url, headers=headers).sync() as env:
            env.reset(seed=2)
            action = _legal(info)
            _, reward, _, _, _ = local.step(action)
            assert env.step({"text": action}).reward == reward

        async def mcp_step() -> float:
            async with MCPToolClient(base_url=url, headers=headers) as env:
                await env.reset(seed=2)
                return (await env.call_tool("step", action=action))["reward"]

        assert asyncio.run(mcp_step()) == reward
        local.close()
        with pytest.raises(ConnectionError), GenericEnvClient(base_url=url).sync() as env:
            env.reset(seed=2)
        with pytest.raises(ConnectionError), GenericEnvClient(
                base_url=url, headers={"Authorization": "Bearer wrong"}).sync() as env:
            env.reset(seed=2)
        assert httpx.post(f"{url}/mcp", json={"jsonrpc": "2.0", "id": 1,
                                             "method": "tools/list"}).status_code == 401
    finally:
        proc.stop()


def _rpc(client: TestClient, body: dict, env_id: str = TTT) -> dict:
    response = client.post(f"/openenv/{env_id}/mcp", json=body)
    assert response.status_code == 200, response.text
    assert response.json()["jsonrpc"] == "2.0"
    return response.json()


def _session(client: TestClient, env_id: str = TTT) -> str:
    reply = _rpc(client, {"jsonrpc": "2.0", "id": 1, "method": "openenv/session/create"}, env_id)
    return reply["result"]["session_id"]


def test_mcp_methods(client):
    init = _rpc(client, {"jsonrpc": "2.0", "id": "a", "method": "initialize",
                         "params": {"protocolVersion": "2025-03-26"}})
    assert init["id"] == "a" and init["result"]["protocolVersion"] == "2025-03-26"
    assert "tools" in init["result"]["capabilities"]
    note = client.post(f"/openenv/{TTT}/mcp",
                       json={"jsonrpc": "2.0", "method": "notifications/initialized"})
    assert note.status_code == 202 and note.content == b""
    tools = _rpc(client, {"jsonrpc": "2.0", "id": 2, "method": "tools/list"})["result"]["tools"]
    assert [t["name"] for t in tools] == ["step"]
    assert tools[0]["inputSchema"]["required"] == ["action"]
    sid = _session(client)
    call = {"jsonrpc": "2.0", "id": 3, "method": "tools/call",
            "params": {"name": "step", "arguments": {"action": "2 2"}, "session_id": sid}}
    before_reset = _rpc(client, call)
    assert before_reset["error"]["code"] == -32000 and "reset" in before_reset["error"]["message"]
    with client.websocket_connect(f"/openenv/{TTT}/ws?session_id={sid}") as ws:
        ws.send_json({"type": "reset", "data": {"seed": 0}})
        assert ws.receive_json()["type"] == "observation"
        ws.send_json({"type": "reset", "data": {"seed": 0, "env_kwargs": {"max_steps": 2}}})
        assert "attached" in ws.receive_json()["data"]["message"]
    # The attached session outlives its WebSocket: the MCP client steps it afterwards.
    local = gym.make(TTT)
    local.reset(seed=0)
    _, reward, terminated, _, info = local.step("2 2")
    local.close()
    result = _rpc(client, call)["result"]
    assert result["data"]["reward"] == reward and result["isError"] is False
    assert result["content"][0]["text"] == result["data"]["observation"]
    assert result["data"]["info"]["valid_action"] is info["valid_action"]
    closed = _rpc(client, {"jsonrpc": "2.0", "id": 4, "method": "openenv/session/close",
                           "params": {"session_id": sid}})
    assert closed["result"] == {"session_id": sid, "closed": True}
    assert _rpc(client, call)["error"]["code"] == -32602


@pytest.mark.parametrize(("body", "status"), [
    (b"not json", 400),
    (b"{\"jsonrpc\": \"2.0\", ", 400),
    (b"[{\"jsonrpc\": \"2.0\", \"id\": 1, \"method\": \"tools/list\"}]", 400),
    (b"\"a string\"", 400),
    (b"{\"x\": \"" + b"a" * 5000 + b"\"}", 413),
    (b"{}", 200),
    (b"{\"jsonrpc\": \"1.0\", \"id\": 1, \"method\": \"tools/list\"}", 200),
    (b"{\"jsonrpc\": \"2.0\", \"id\": true, \"method\": \"tools/list\"}", 200),
    (b"{\"jsonrpc\": \"2.0\", \"id\": 1, \"method\": 5}", 200),
    (b"{\"jsonrpc\": \"2.0\", \"id\": 1, \"method\": \"tools/list\", \"params\": [1]}", 200),
    (b"{\"jsonrpc\": \"2.0\", \"id\": 1, \"method\": \"rm -rf /\"}", 200),
])
def test_hostile_mcp_bodies_get_one_line_errors(client, body, status):
    response = client.post(f"/openenv/{TTT}/mcp", content=body)
    assert response.status_code == status
    reply = response.json()
    assert reply["jsonrpc"] == "2.0" and "result" not in reply
    assert "\n" not in response.text and "Traceback" not in response.text
    assert reply["error"]["code"] in (-32700, -32600, -32601, -32602)


@pytest.mark.parametrize("params", [
    {"name": "step", "arguments": {"action": "1 1"}},                      # no session
    {"name": "step", "arguments": {"action": "1 1"}, "session_id": 7},     # not a string
    {"name": "step", "arguments": {"action": "1 1"}, "session_id": "nope"},
    {"name": "step", "arguments": {"action": 11}, "session_id": "S"},
    {"name": "step", "arguments": {"action": "1 1", "x": 1}, "session_id": "S"},
    {"name": "step", "arguments": "1 1", "session_id": "S"},
    {"name": "reset", "arguments": {"seed": 1}, "session_id": "S"},        # no reset tool
    {"name": "step", "arguments": {"action": "1 1"}, "session_id": "OTHER"},
])
def test_tool_calls_with_bad_params_are_refused(client, params):
    sid, other = _session(client), _session(client, SUDOKU)
    params = {k: (sid if v == "S" else other if v == "OTHER" else v) for k, v in params.items()}
    reply = _rpc(client, {"jsonrpc": "2.0", "id": 9, "method": "tools/call", "params": params})
    assert reply["error"]["code"] == -32602 and "\n" not in reply["error"]["message"]


def test_websocket_attach_only_to_a_session_of_that_env(client):
    other = _session(client, SUDOKU)
    for query in (f"?session_id={other}", "?session_id=unknown"):
        with pytest.raises(WebSocketDisconnect), client.websocket_connect(
                f"/openenv/{TTT}/ws{query}") as ws:
            ws.receive_json()


def test_openapi_lists_the_simulation_mode_routes(client):
    doc = client.get(f"/openenv/{TTT}/openapi.json").json()
    assert doc["info"]["version"] == "1.0.0"
    assert {"/reset", "/step", "/state", "/mcp", "/health", "/schema"} <= set(doc["paths"])
    assert client.get("/openenv/agentgym/Nope-v0/openapi.json").status_code == 404
