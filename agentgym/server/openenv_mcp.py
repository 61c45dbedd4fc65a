"""MCP on an OpenEnv base URL: the env's moves as one tool, ``step``, over JSON-RPC 2.0.

OpenEnv's newer envs are MCP tool servers, and ``openenv validate`` checks that ``POST /mcp``
answers JSON-RPC. :class:`McpHandler` answers ``POST {server}/openenv/{env_id}/mcp`` the way
OpenEnv's own server does, so ``openenv.core.MCPToolClient`` plays agentgym envs:

=========================  ====================================================================
method                     what
=========================  ====================================================================
``initialize``, ``ping``   MCP's handshake (tools capability only) and liveness
``tools/list``             one tool, ``step``: ``{"action": str}`` (the env's max length)
``tools/call``             ``{"name": "step", "arguments": {"action"}, "session_id"}``: one
                           step of that session's env; the result's ``data`` (and
                           ``structuredContent``) is ``{"observation", "reward", "done",
                           "terminated", "truncated", "info"}``, ``content`` the observation
``openenv/session/create`` a new session of this env (``params.env_kwargs`` optional):
                           ``{"session_id"}``; reset it over ``WS /ws?session_id=...``
``openenv/session/close``  ``{"session_id"}`` -> ``{"session_id", "closed": true}``
=========================  ====================================================================

The model gets no reset tool: starting an episode (and its seed) is the trainer's business,
done over the WebSocket attached to the session, as OpenEnv's ``MCPToolClient`` does.
Sessions are the server's own (capacity, idle expiry, metrics, bearer token).

Errors: a request that is not JSON, is a batch, or is over the server's body limit is refused
at the HTTP level (400 / 413) with a one-line JSON-RPC error body; a JSON object that is not a
valid request (OpenEnv's validator posts ``{}``), an unknown method, bad params or a step the
env refuses is a JSON-RPC error at HTTP 200, as JSON-RPC and OpenEnv's clients expect.
Notifications (no ``id``) get 202 and no body, and are not run: a session created by one
would be named to nobody and hold a slot until it expired.

>>> step_tool(16)["inputSchema"]["properties"]["action"]["maxLength"]
16
>>> rpc_error(None, INVALID_REQUEST, "no method")["error"]
{'code': -32600, 'message': 'no method'}
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import agentgym
from agentgym.server.sessions import Reply

__all__ = ["INVALID_PARAMS", "INVALID_REQUEST", "METHOD_NOT_FOUND", "PARSE_ERROR",
           "SERVER_ERROR", "McpHandler", "rpc_error", "step_tool"]

PARSE_ERROR, INVALID_REQUEST, METHOD_NOT_FOUND, INVALID_PARAMS = -32700, -32600, -32601, -32602
#: JSON-RPC's range for implementation errors: the session or the env refused the call.
SERVER_ERROR = -32000

#: The MCP protocol revision answered when the client names none.
PROTOCOL_VERSION = "2025-06-18"

RunOp = Callable[..., Awaitable[Reply]]


def step_tool(max_length: int) -> dict[str, Any]:
    """The one MCP tool of an env whose actions are at most ``max_length`` characters."""
    return {
        "name": "step",
        "description": ("Carry out one action in the environment, written the way its rules "
                        "ask; returns the new observation, the reward and whether the "
                        "episode is over."),
        "inputSchema": {
            "type": "object",
            "properties": {"action": {"type": "string", "maxLength": max_length,
                                      "description": "the action text"}},
            "required": ["action"],
            "additionalProperties": False,
        },
    }


def rpc_error(request_id: Any, code: int, message: str) -> dict[str, Any]:
    """A JSON-RPC 2.0 error response (the message on one line)."""
    return {"jsonrpc": "2.0", "id": request_id,
            "error": {"code": code, "message": " ".join(str(message).split())}}


def _result(request_id: Any, result: dict[str, Any]) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "result": result}


class _RpcError(Exception):
    def __init__(self, code: int, message: str) -> None:
        super().__init__(message)
        self.code = code


def _valid_id(value: Any) -> bool:
    return value is None or (isinstance(value, (str, int)) and not isinstance(value, bool))


class McpHandler:
    """JSON-RPC over ``POST .../mcp`` for one server's env ids (see the module docstring).

    ``run`` is the server's op runner; ``session_env_id(sid)`` the env id of a live session
    (None when there is none), so a session of one env cannot be stepped through another's URL;
    ``action_length(env_id)`` the env's longest action.
    """

    def __init__(self, run: RunOp, session_env_id: Callable[[str], str | None],
                 action_length: Callable[[str], int], new_request_id: Callable[[], str]) -> None:
        self.run = run
        self.session_env_id = session_env_id
        self.action_length = action_length
        self.rid = new_request_id

    async def answer(self, env_id: str, message: Any) -> tuple[int, dict[str, Any] | None]:
        """(HTTP status, JSON-RPC response or None for a notification) for one parsed body."""
        if isinstance(message, list):
            return 400, rpc_error(None, INVALID_REQUEST, "JSON-RPC batches are not supported")
        if not isinstance(message, dict):
            return 400, rpc_error(None, INVALID_REQUEST, "a JSON-RPC request is a JSON object")
        request_id = message.get("id")
        if not _valid_id(request_id):
            return 200, rpc_error(None, INVALID_REQUEST, "id must be a string, an integer or null")
        method, params = message.get("method"), message.get("params", {})
        if message.get("jsonrpc") != "2.0" or not isinstance(method, str):
            return 200, rpc_error(request_id, INVALID_REQUEST,
                                  'a request is {"jsonrpc": "2.0", "method": str, "id", "params"}')
        if params is None:
            params = {}
        if not isinstance(params, dict):
            return 200, rpc_error(request_id, INVALID_PARAMS, "params must be an object")
        if "id" not in message:
            # A notification gets no reply, so nothing it could make (a session) would ever be
            # named to its sender: only MCP's own notifications/* are taken, and they do
            # nothing here. Any other method sent without an id is not run.
            return 202, None
        try:
            result = await self._call(env_id, method, params)
        except _RpcError as exc:
            return 200, rpc_error(request_id, exc.code, str(exc))
        return 200, _result(request_id, result)

    async def _call(self, env_id: str, method: str, params: dict[str, Any]) -> dict[str, Any]:
        if method == "initialize":
            version = params.get("protocolVersion")
            return {"protocolVersion": version if isinstance(version, str) else PROTOCOL_VERSION,
                    "capabilities": {"tools": {"listChanged": False}},
                    "serverInfo": {"name": f"agentgym {env_id}",
                                   "version": agentgym.__version__}}
        if method == "ping" or method.startswith("notifications/"):
            return {}
        if method == "tools/list":
            return {"tools": [step_tool(self.action_length(env_id))]}
        if method == "tools/call":
            return await self._step(env_id, params)
        if method == "openenv/session/create":
            kwargs = params.get("env_kwargs") or {}
            if not isinstance(kwargs, dict):
                raise _RpcError(INVALID_PARAMS, "env_kwargs must be an object")
            reply = await self.run("create", None, {"env_id": env_id, "kwargs": kwargs,
                                                    "request_id": self.rid()})
            return {"session_id": self._ok(reply)["session_id"]}
        if method == "openenv/session/close":
            sid = self._session(env_id, params)
            self._ok(await self.run("close", sid, {"request_id": self.rid()}))
            return {"session_id": sid, "closed": True}
        raise _RpcError(METHOD_NOT_FOUND, f"unknown method {method[:80]!r}; methods: "
                        "initialize, ping, tools/list, tools/call, openenv/session/create, "
                        "openenv/session/close")

    def _session(self, env_id: str, params: dict[str, Any]) -> str:
        sid = params.get("session_id")
        if not isinstance(sid, str) or not sid:
            raise _RpcError(INVALID_PARAMS, "session_id (a string from openenv/session/create) "
                                            "is required")
        if self.session_env_id(sid) != env_id:
            raise _RpcError(INVALID_PARAMS, f"no session {sid[:64]!r} of {env_id} here")
        return sid

    async def _step(self, env_id: str, params: dict[str, Any]) -> dict[str, Any]:
        name, arguments = params.get("name"), params.get("arguments", {})
        if name != "step":
            raise _RpcError(INVALID_PARAMS, f"unknown tool {str(name)[:80]!r}; tools: step")
        if not isinstance(arguments, dict) or set(arguments) != {"action"}:
            raise _RpcError(INVALID_PARAMS, 'the arguments of step are {"action": str}')
        action = arguments["action"]
        if not isinstance(action, str):
            raise _RpcError(INVALID_PARAMS,
                            f"action must be a string, got {type(action).__name__}")
        sid = self._session(env_id, params)
        body = self._ok(await self.run("step", sid, {"action": action,
                                                     "request_id": self.rid()}))
        terminated, truncated = bool(body["terminated"]), bool(body["truncated"])
        data = {"observation": body["observation"], "reward": body["reward"],
                "done": terminated or truncated, "terminated": terminated,
                "truncated": truncated, "info": body["info"]}
        return {"content": [{"type": "text", "text": body["observation"]}],
                "structuredContent": data, "data": data, "isError": False}

    @staticmethod
    def _ok(reply: Reply) -> dict[str, Any]:
        if reply.status >= 400:
            raise _RpcError(SERVER_ERROR, reply.body.get("error", f"status {reply.status}"))
        return reply.body
