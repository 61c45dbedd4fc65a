"""OpenEnv's wire protocol on the env server: ``openenv-core``'s own clients step agentgym envs.

Every env id the server hosts is also an OpenEnv env at its own base URL,
``{server}/openenv/{env_id}`` (OpenEnv's clients assume one env per base URL and append the
route to it). What is served there, as ``openenv-core`` 0.3.0 speaks it:

==================  ==========================================================================
route               what
==================  ==========================================================================
``WS /ws``          the session: one env per connection, messages ``{"type", "data"}``
``GET /health``     ``{"status": "healthy"}``
``GET /schema``     ``{"action", "observation", "state"}``: JSON schemas
``GET /metadata``   ``{"name", "description", "version", ...}``
``POST /reset``     stateless, as OpenEnv's: a fresh env is reset and closed (one observation)
``POST /step``      refused (400): OpenEnv's HTTP step runs on a fresh, never-reset env
``GET /state``      stateless, as OpenEnv's: a fresh env's state
``POST /mcp``       MCP's JSON-RPC: the env's moves as one tool, ``step``, on a session made by
                    ``openenv/session/create`` (see :mod:`agentgym.server.openenv_mcp`)
``GET               an OpenAPI 3.1 document of these routes, ``info.version`` = OpenEnv's HTTP
/openapi.json``     API version (``1.0.0``): ``openenv validate`` reads the mode from its paths
                    (``/reset``, ``/step``, ``/state``: OpenEnv's "simulation" mode)
==================  ==========================================================================

``openenv validate --url {server}/openenv/{env_id}`` (openenv 0.10) passes all six checks.

WebSocket messages (client -> server; each answered by one message, in order):

* ``{"type": "reset", "data": {"seed", "episode_id", "options", "env_kwargs"}}`` (all
  optional; other keys are ignored, as OpenEnv ignores what the env's ``reset`` does not take)
  -> ``{"type": "observation", "data": {"observation", "reward": null, "done": false}}``.
  The session is created at the first reset, with ``env_kwargs`` (the env's constructor
  kwargs); a later reset with other ``env_kwargs`` replaces it.
* ``{"type": "step", "data": {"text": ACTION}}`` -> ``{"type": "observation", "data":
  {"observation", "reward", "done"}}``, ``done`` = terminated or truncated.
* ``WS /ws?session_id=SID`` attaches the connection to a session made by MCP's
  ``openenv/session/create`` (OpenEnv's ``MCPToolClient`` does this: reset over the WebSocket,
  ``step`` as an MCP tool call, one env); the session outlives such a connection, and a reset
  there takes no ``env_kwargs``.
* ``{"type": "state"}`` -> ``{"type": "state", "data": {"episode_id", "step_count", "env_id",
  "session_id"}}``; ``{"type": "close"}`` ends the connection (no reply).
* an error: ``{"type": "error", "data": {"message", "code"}}``, ``code`` one of OpenEnv's
  (``INVALID_JSON``, ``UNKNOWN_TYPE``, ``VALIDATION_ERROR``, ``EXECUTION_ERROR``,
  ``CAPACITY_REACHED``, ``FACTORY_ERROR``); the connection stays open.

An observation is ``{"text": the env's observation, "info": its info dict, "terminated",
"truncated"}``. Underneath, each connection is one session of the server's
:class:`~agentgym.server.sessions.SessionStore` (the same capacity, idle expiry and metrics as
the agentgym protocol; a fresh request id per message, since OpenEnv never retries one); the
session is closed when the connection ends. The bearer token applies here too: OpenEnv's
clients send it with ``headers={"Authorization": "Bearer TOKEN"}`` (openenv >= 0.10).

The action schema is titled ``TextAction``: verifiers' OpenEnv taskset reads a schema titled
``Action`` as OpenEnv's generic tool-calling env and would send ``{"type": "list_tools"}``.

>>> openenv_url("http://127.0.0.1:8000/", "agentgym/TicTacToe-v0")
'http://127.0.0.1:8000/openenv/agentgym/TicTacToe-v0'
>>> split_openenv_path("/openenv/agentgym/TicTacToe-v0/ws")
('agentgym/TicTacToe-v0', 'ws')
"""

from __future__ import annotations

import functools
import logging
import uuid
from collections.abc import Awaitable, Callable, Sequence
from typing import Any
from urllib.parse import parse_qs

from pydantic import BaseModel, ConfigDict, Field, create_model
from starlette.types import Receive, Scope, Send

import agentgym
from agentgym.envinfo import env_creator
from agentgym.server.openenv_mcp import PARSE_ERROR, McpHandler, rpc_error
from agentgym.server.protocol import ProtocolError, dumps, loads, loads_object
from agentgym.server.sessions import Reply

__all__ = ["OPENENV_API_VERSION", "OPENENV_PREFIX", "OpenEnvRoutes", "openapi_document",
           "openenv_url", "split_openenv_path"]

log = logging.getLogger("agentgym.server")

#: The path every OpenEnv base URL starts with: ``{server}/openenv/{env_id}``.
OPENENV_PREFIX = "/openenv/"

#: The version of OpenEnv's HTTP API served (``openenv validate``'s profile ``openenv-http/1.x``).
OPENENV_API_VERSION = "1.0.0"

#: ``run(op, session_id, body)``: one agentgym protocol op through the store (and metrics).
RunOp = Callable[..., Awaitable[Reply]]

class State(BaseModel):
    """What OpenEnv's ``State`` holds (``episode_id``, ``step_count``), plus ours."""

    model_config = ConfigDict(title="State")

    episode_id: str | None = None
    step_count: int = Field(0, ge=0)
    env_id: str
    session_id: str | None = None


@functools.cache
def _schemas(observation_length: int, action_length: int,
             info_keys: tuple[str, ...]) -> dict[str, Any]:
    """``/schema``'s action, observation and state, from typed models of the env's lengths."""
    # "TextAction", not "Action": verifiers' OpenEnv taskset takes a schema titled "Action" for
    # OpenEnv's generic MCP env and asks it for tools instead of sending the text.
    action = create_model(
        "TextAction", __config__=ConfigDict(extra="forbid"),
        text=(str, Field(max_length=action_length)),
        metadata=(dict[str, Any], Field(default_factory=dict)),
    )
    observation = create_model(
        "Observation",
        text=(str, Field(max_length=observation_length)),
        info=(dict[str, Any], Field(description="the env's info dict; keys: "
                                    + ", ".join(info_keys))),
        terminated=(bool, False), truncated=(bool, False),
    )
    return {"action": action.model_json_schema(), "observation": observation.model_json_schema(),
            "state": State.model_json_schema()}


_ACTION_KEYS = frozenset({"text", "metadata"})


def openenv_url(server_url: str, env_id: str) -> str:
    """The base URL an OpenEnv client takes for ``env_id`` on the agentgym server at
    ``server_url`` (see the module docstring for an example)."""
    return f"{server_url.rstrip('/')}{OPENENV_PREFIX}{env_id}"


def split_openenv_path(path: str) -> tuple[str, str] | None:
    """(env id, route) of a path under :data:`OPENENV_PREFIX`, or None for any other path.

    The route is the last path segment; everything between the prefix and it is the env id
    (ids hold a ``/``: ``agentgym/Sudoku-v0``).

    >>> split_openenv_path("/openenv/x") is None, split_openenv_path("/ws") is None
    (True, True)
    """
    if not path.startswith(OPENENV_PREFIX):
        return None
    env_id, _, route = path[len(OPENENV_PREFIX):].rpartition("/")
    return (env_id, route) if env_id and route else None


def openapi_document(env_id: str) -> dict[str, Any]:
    """The OpenAPI 3.1 document of an OpenEnv base URL's routes (``GET .../openapi.json``).

    >>> doc = openapi_document("agentgym/TicTacToe-v0")
    >>> doc["info"]["version"], sorted(doc["paths"])[:3]
    ('1.0.0', ['/health', '/mcp', '/metadata'])
    """
    def op(method: str, summary: str, body: bool = False) -> dict[str, Any]:
        entry: dict[str, Any] = {"summary": summary, "responses": {
            "200": {"description": "OK", "content": {"application/json": {"schema": {}}}}}}
        if body:
            entry["requestBody"] = {"content": {"application/json": {"schema": {
                "type": "object"}}}}
        return {method: entry}

    return {
        "openapi": "3.1.0",
        "info": {"title": f"agentgym {env_id} (OpenEnv HTTP API)",
                 "version": OPENENV_API_VERSION,
                 "description": f"agentgym {agentgym.__version__}; the session is the "
                                "WebSocket /ws (see /schema for the message types)"},
        "paths": {
            "/health": op("get", "liveness: {\"status\": \"healthy\"}"),
            "/metadata": op("get", "the env's name, description and version"),
            "/schema": op("get", "JSON schemas of the action, observation and state"),
            "/reset": op("post", "stateless: a fresh env reset and closed", body=True),
            "/step": op("post", "refused (400): step over the WebSocket /ws", body=True),
            "/state": op("get", "stateless: a fresh env's state"),
            "/mcp": op("post", "MCP JSON-RPC 2.0: tools/list, tools/call (the step tool)",
                       body=True),
            "/ws": op("get", "the WebSocket session: reset, step, state, close"),
        },
    }


def _observation(body: dict[str, Any], reward: float | None) -> dict[str, Any]:
    """An agentgym reset/step reply as OpenEnv's ``{"observation", "reward", "done"}``."""
    terminated = bool(body.get("terminated", False))
    truncated = bool(body.get("truncated", False))
    return {
        "observation": {"text": body["observation"], "info": body["info"],
                        "terminated": terminated, "truncated": truncated},
        "reward": reward,
        "done": terminated or truncated,
    }


class _OpenEnvError(Exception):
    """A message refused with one of OpenEnv's error codes."""

    def __init__(self, message: str, code: str = "EXECUTION_ERROR", status: int = 400) -> None:
        super().__init__(message)
        self.code = code
        #: The HTTP status of ``POST /reset``: 400 for the client's fault, the session
        #: store's 5xx (503 full, 500 the env failed, 504 past the limit) for the server's.
        self.status = status


def _check(reply: Reply, code: str = "EXECUTION_ERROR") -> dict[str, Any]:
    if reply.status == 503:
        raise _OpenEnvError(reply.body.get("error", "server full"), "CAPACITY_REACHED", 503)
    if reply.status >= 400:
        # A server-side failure keeps its 5xx: a client must not read it as its own bad input.
        raise _OpenEnvError(reply.body.get("error", f"status {reply.status}"), code,
                            reply.status if reply.status >= 500 else 400)
    return reply.body


def _rid() -> str:
    return uuid.uuid4().hex


class _Connection:
    """One OpenEnv WebSocket connection: at most one agentgym session at a time."""

    def __init__(self, run: RunOp, env_id: str, attached: str | None = None) -> None:
        self.run, self.env_id = run, env_id
        #: an MCP session this connection is attached to (not its own: left open at the end)
        self.attached = attached
        self.sid: str | None = attached
        self.kwargs: dict[str, Any] | None = {} if attached else None
        self.episode_id: str | None = None
        self.step_count = 0

    async def close(self) -> None:
        if self.sid is not None and self.attached is None:
            sid, self.sid = self.sid, None
            await self.run("close", sid, {"request_id": _rid()})

    async def answer(self, kind: str, data: Any) -> dict[str, Any]:
        if not isinstance(data, dict):
            raise _OpenEnvError(f"{kind}: data must be an object, got {type(data).__name__}",
                                "VALIDATION_ERROR")
        if kind == "reset":
            return {"type": "observation", "data": await self.reset(data)}
        if kind == "step":
            return {"type": "observation", "data": await self.step(data)}
        if kind == "state":
            return {"type": "state", "data": {
                "episode_id": self.episode_id, "step_count": self.step_count,
                "env_id": self.env_id, "session_id": self.sid}}
        raise _OpenEnvError(f"unknown message type {kind!r}; types: reset, step, state, close",
                            "UNKNOWN_TYPE")

    async def reset(self, data: dict[str, Any]) -> dict[str, Any]:
        kwargs = data.get("env_kwargs") or {}
        seed, options, episode_id = data.get("seed"), data.get("options"), data.get("episode_id")
        if not isinstance(kwargs, dict):
            raise _OpenEnvError("reset: env_kwargs must be an object", "VALIDATION_ERROR")
        if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int)):
            raise _OpenEnvError(f"reset: seed must be an integer, got {seed!r}",
                                "VALIDATION_ERROR")
        if options is not None and not isinstance(options, dict):
            raise _OpenEnvError("reset: options must be an object", "VALIDATION_ERROR")
        if episode_id is not None and not isinstance(episode_id, str):
            raise _OpenEnvError("reset: episode_id must be a string", "VALIDATION_ERROR")
        if self.attached is not None and kwargs:
            raise _OpenEnvError("reset: a connection attached to a session takes no env_kwargs "
                                "(give them to openenv/session/create)", "VALIDATION_ERROR")
        if self.sid is None or kwargs != self.kwargs:
            await self.close()
            body = _check(await self.run("create", None, {
                "env_id": self.env_id, "kwargs": kwargs, "request_id": _rid()}),
                "FACTORY_ERROR")
            self.sid, self.kwargs = body["session_id"], kwargs
        body = _check(await self.run("reset", self.sid, {
            "seed": seed, "options": options, "request_id": _rid()}))
        self.episode_id = episode_id if episode_id is not None else _rid()
        self.step_count = 0
        return _observation(body, None)

    async def step(self, data: dict[str, Any]) -> dict[str, Any]:
        extra = set(data) - _ACTION_KEYS
        if "text" not in data or extra:
            raise _OpenEnvError(
                'step: the action is {"text": str}'
                + (f"; unknown field(s) {sorted(extra)}" if extra else ""),
                "VALIDATION_ERROR")
        if not isinstance(data["text"], str):
            raise _OpenEnvError(f"step: text must be a string, got {type(data['text']).__name__}",
                                "VALIDATION_ERROR")
        if self.sid is None:
            raise _OpenEnvError("step before reset: send a reset first")
        body = _check(await self.run("step", self.sid, {
            "action": data["text"], "request_id": _rid()}))
        self.step_count += 1
        return _observation(body, body["reward"])


class OpenEnvRoutes:
    """The OpenEnv routes of an agentgym server, as a plain ASGI handler.

    :func:`agentgym.server.app.create_app` calls it for every path under
    :data:`OPENENV_PREFIX`; ``run`` is its op runner (the session store, with metrics).

    Example (the server built by ``create_app``, driven by openenv-core's generic client)::

        from openenv.core import GenericEnvClient
        url = openenv_url("http://127.0.0.1:8000", "agentgym/TicTacToe-v0")
        with GenericEnvClient(base_url=url).sync() as env:
            result = env.reset(seed=0)
            result = env.step({"text": "2 2"})
            result.observation["text"], result.reward, result.done
    """

    def __init__(self, env_ids: Sequence[str], run: RunOp, *, max_body: int,
                 session_env_id: Callable[[str], str | None] = lambda sid: None) -> None:
        self.env_ids = tuple(env_ids)
        self.run = run
        self.max_body = max_body
        #: the env id of a live session of the server (None: no such session)
        self.session_env_id = session_env_id
        self.mcp = McpHandler(run, session_env_id, self._action_length, _rid)

    @staticmethod
    def _action_length(env_id: str) -> int:
        from agentgym.server.app import env_schema

        return int(env_schema(env_id)["action_space"]["max_length"])

    async def __call__(self, scope: Scope, receive: Receive, send: Send, path: str) -> None:
        split = split_openenv_path(path)
        env_id, route = split if split is not None else ("", "")
        if scope["type"] == "websocket":
            if route == "ws" and env_id in self.env_ids:
                attached = _query_session(scope)
                if attached is None or self.session_env_id(attached) == env_id:
                    return await self._ws(scope, receive, send, env_id, attached)
            # Refused before the handshake: the client's connect fails (HTTP 403).
            await send({"type": "websocket.close", "code": 1008})
            return None
        if env_id not in self.env_ids:
            served = ", ".join(self.env_ids)
            return await _send(send, 404, {"error": f"no OpenEnv env at {path!r}; base URLs are "
                                                    f"{OPENENV_PREFIX}<id> for ids: {served}"})
        method = scope["method"]
        handler = {
            ("GET", "health"): self._health, ("GET", "schema"): self._schema,
            ("GET", "metadata"): self._metadata, ("GET", "state"): self._state,
            ("POST", "reset"): self._http_reset, ("POST", "step"): self._http_step,
            ("POST", "mcp"): self._mcp, ("GET", "openapi.json"): self._openapi,
        }.get((method, route))
        if handler is None:
            return await _send(send, 404, {"error": f"no route {method} {path}"})
        try:
            status, body = await handler(env_id, scope, receive)
        except ProtocolError as exc:
            status, body = exc.status, {"error": str(exc)}
            if route == "mcp":  # a JSON-RPC client reads a JSON-RPC error, even at 4xx
                body = rpc_error(None, PARSE_ERROR if status == 400 else -32600, str(exc))
        except Exception:  # a bug, not bad input: one JSON line, never a stack trace
            log.exception("OpenEnv %s %s failed", method, route)
            status, body = 500, {"error": "internal server error"}
        return await _send(send, status, body)

    # ------------------------------------------------------------------ HTTP
    async def _health(self, env_id: str, scope: Scope, receive: Receive) -> tuple[int, Any]:
        return 200, {"status": "healthy"}

    async def _schema(self, env_id: str, scope: Scope, receive: Receive) -> tuple[int, Any]:
        from agentgym.server.app import env_schema

        spaces = env_schema(env_id)
        return 200, _schemas(spaces["observation_space"]["max_length"],
                             spaces["action_space"]["max_length"], tuple(spaces["info"]))

    async def _metadata(self, env_id: str, scope: Scope, receive: Receive) -> tuple[int, Any]:
        doc = (env_creator(env_id).__doc__ or "").strip()
        return 200, {
            "name": env_id, "description": doc.splitlines()[0] if doc else env_id,
            "readme_content": None, "version": agentgym.__version__, "author": None,
            "documentation_url": None,
        }

    async def _state(self, env_id: str, scope: Scope, receive: Receive) -> tuple[int, Any]:
        # OpenEnv's HTTP state is a fresh env's: no episode, no step.
        return 200, {"episode_id": None, "step_count": 0, "env_id": env_id, "session_id": None}

    async def _http_reset(self, env_id: str, scope: Scope, receive: Receive) -> tuple[int, Any]:
        data = await _read_json(receive, self.max_body)
        conn = _Connection(self.run, env_id)
        try:
            return 200, await conn.reset(data)
        except _OpenEnvError as exc:
            return exc.status, {"error": str(exc)}
        finally:
            await conn.close()

    async def _openapi(self, env_id: str, scope: Scope, receive: Receive) -> tuple[int, Any]:
        return 200, openapi_document(env_id)

    async def _mcp(self, env_id: str, scope: Scope, receive: Receive) -> tuple[int, Any]:
        raw = await _read_raw(receive, self.max_body)
        try:
            message = loads(raw)
        except ValueError as exc:
            raise ProtocolError(f"Parse error: {exc}", 400) from None
        return await self.mcp.answer(env_id, message)

    async def _http_step(self, env_id: str, scope: Scope, receive: Receive) -> tuple[int, Any]:
        await _read_json(receive, self.max_body)
        return 400, {"error": "OpenEnv's HTTP /step is stateless (a fresh, never-reset env per "
                              "request); step over the WebSocket /ws"}

    # ------------------------------------------------------------------ WebSocket
    async def _ws(self, scope: Scope, receive: Receive, send: Send, env_id: str,
                  attached: str | None = None) -> None:
        if (await receive())["type"] != "websocket.connect":
            return
        await send({"type": "websocket.accept"})
        conn = _Connection(self.run, env_id, attached)
        try:
            while True:
                message = await receive()
                if message["type"] == "websocket.disconnect":
                    return
                if message["type"] != "websocket.receive":
                    continue
                raw = message.get("text") or message.get("bytes") or b""
                reply = await self._ws_answer(conn, raw)
                if reply is None:  # {"type": "close"}: OpenEnv's client expects no reply
                    await send({"type": "websocket.close", "code": 1000})
                    return
                try:
                    await send({"type": "websocket.send", "text": dumps(reply).decode()})
                except OSError:  # the client is gone (uvicorn's ClientDisconnected)
                    return
        finally:
            await conn.close()

    async def _ws_answer(self, conn: _Connection, raw: str | bytes) -> dict[str, Any] | None:
        try:
            if len(raw) > self.max_body:
                raise _OpenEnvError(f"message over {self.max_body} bytes", "VALIDATION_ERROR")
            try:
                message = loads(raw)
            except ValueError as exc:
                raise _OpenEnvError(f"Invalid JSON: {exc}", "INVALID_JSON") from None
            if not isinstance(message, dict):
                raise _OpenEnvError("a message is a JSON object", "VALIDATION_ERROR")
            kind = message.get("type", "")
            if kind == "close":
                return None
            return await conn.answer(kind, message.get("data", {}))
        except _OpenEnvError as exc:
            return {"type": "error", "data": {"message": str(exc), "code": exc.code}}
        except Exception:  # a bug, not bad input: the connection (and its session) stay
            log.exception("an OpenEnv message failed")
            return {"type": "error", "data": {"message": "internal server error",
                                              "code": "EXECUTION_ERROR"}}


def _query_session(scope: Scope) -> str | None:
    """The ``session_id`` of a WebSocket URL's query (MCPToolClient's attach), or None."""
    values = parse_qs(scope.get("query_string", b"").decode("latin-1")).get("session_id")
    return values[-1] if values else None


async def _read_json(receive: Receive, max_body: int) -> dict[str, Any]:
    """A request's JSON object body (``{}`` when empty); :class:`ProtocolError` if not one."""
    raw = await _read_raw(receive, max_body)
    if not raw.strip():
        return {}
    return loads_object(raw)


async def _read_raw(receive: Receive, max_body: int) -> bytes:
    """A request's body; :class:`ProtocolError` (413) past ``max_body`` bytes."""
    chunks: list[bytes] = []
    size = 0
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            break
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > max_body:
            raise ProtocolError(f"request body over {max_body} bytes", 413)
        chunks.append(chunk)
        if not message.get("more_body", False):
            break
    return b"".join(chunks)


async def _send(send: Send, status: int, body: Any) -> None:
    data = b"" if body is None else dumps(body)
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json"),
                            (b"content-length", str(len(data)).encode())]})
    await send({"type": "http.response.body", "body": data})
