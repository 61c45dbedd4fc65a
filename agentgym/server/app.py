"""The env server as an ASGI app (Starlette): sessions over HTTP and WebSocket, one protocol.

The routes and message shapes are in :mod:`agentgym.server.protocol`; the session rules
(request-id dedupe, capacity, idle expiry) in :mod:`agentgym.server.sessions`. This module adds
what sits in front of them: JSON (orjson) in and out, the bearer token (everything but
``/health`` is refused without it when one is set), the request size limit, 4xx replies that
are one JSON line (never a stack trace), ``/health``, ``/schema`` and ``/metrics``.

>>> from starlette.testclient import TestClient
>>> import agentgym
>>> with TestClient(create_app(["agentgym/TicTacToe-v0"])) as client:
...     client.get("/health").json()["status"]
'ok'
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import logging
import sys
from collections.abc import AsyncIterator, Mapping, Sequence
from time import perf_counter
from typing import Any

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response
from starlette.routing import Route
from starlette.types import ASGIApp, Receive, Scope, Send

from agentgym.core import CONTRACT_INFO_KEYS, TextEnv
from agentgym.envinfo import REQUIRED, env_creator, env_kwargs, stranger_model
from agentgym.server.metrics import Metrics
from agentgym.server.openenv import OPENENV_PREFIX, OpenEnvRoutes
from agentgym.server.protocol import WS_OPS, ProtocolError, dumps, loads_object
from agentgym.server.sessions import (
    DEFAULT_CALL_TIMEOUT,
    DEFAULT_MAX_HEAVY_SESSIONS,
    Reply,
    SessionStore,
)

__all__ = ["DEFAULT_MAX_BODY", "create_app", "env_schema", "serve"]

log = logging.getLogger("agentgym.server")

#: Largest request body (and WebSocket message) accepted, bytes.
DEFAULT_MAX_BODY = 4 * 1024 * 1024
#: How much of an oversized body is read (and dropped) before the 413 is sent.
_DRAIN_LIMIT = 64 * 1024 * 1024

#: The JSON type of each contract ``info`` key (every reset and step carries them).
INFO_SCHEMA: dict[str, str] = {
    "valid_action": "boolean",
    "action_error": "string",
    "available_actions": "array of strings",
    "reward_components": "object of numbers (process, outcome, named parts)",
    "success": "boolean",
    "verifier": "object (name, version, process_scored)",
    "invalid_actions": "integer",
    "step": "integer",
    "steps_left": "integer",
    "truncated_by": "string (on a truncating step only)",
}
assert set(INFO_SCHEMA) == CONTRACT_INFO_KEYS

#: The session routes, answered in plain ASGI (see :func:`_session_route`): (method, the path
#: after ``/sessions/{sid}``) -> (op, whether the op reads a body).
_SESSION_ROUTES: dict[tuple[str, str], tuple[str, bool]] = {
    ("POST", "/reset"): ("reset", True),
    ("POST", "/step"): ("step", True),
    ("GET", "/state"): ("state", False),
    ("PUT", "/state"): ("set_state", True),
    ("POST", "/score"): ("score", True),
    ("GET", "/oracle"): ("oracle", False),
    ("DELETE", ""): ("close", True),
}


def _session_route(method: str, path: str) -> tuple[str, bool, str | None] | None:
    """(op, has_body, session id) for a session request, or None (Starlette answers it).

    >>> _session_route("POST", "/sessions/abc/step")
    ('step', True, 'abc')
    >>> _session_route("POST", "/sessions/abc/") is None, _session_route("GET", "/x") is None
    (True, True)
    """
    if path == "/sessions":
        return ("create", True, None) if method == "POST" else None
    if not path.startswith("/sessions/"):
        return None
    rest = path[10:]
    cut = rest.find("/")
    sid, tail = (rest, "") if cut < 0 else (rest[:cut], rest[cut:])
    route = _SESSION_ROUTES.get((method, tail))
    if route is None or not sid:
        return None
    return route[0], route[1], sid


async def _send_json(
    send: Send, status: int, body: bytes, headers: dict[str, str] | None = None
) -> None:
    """One JSON response in plain ASGI (what :class:`JSONResponse` sends, without it)."""
    raw = [(b"content-type", b"application/json"),
           (b"content-length", str(len(body)).encode())]
    if headers:
        raw += [(k.lower().encode("latin-1"), v.encode("latin-1")) for k, v in headers.items()]
    await send({"type": "http.response.start", "status": status, "headers": raw})
    await send({"type": "http.response.body", "body": body})


class _SessionOp:
    """A session route as a plain ASGI endpoint (Starlette passes it ``scope`` as is)."""

    def __init__(self, handler: Any, op: str, *, has_body: bool = True) -> None:
        self.handler, self.op, self.has_body = handler, op, has_body

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        sid = scope.get("path_params", {}).get("sid")
        await self.handler(scope, receive, send, self.op, self.has_body, sid)


class _Disconnected(Exception):
    """The client hung up while its request body was being read."""


class JSONResponse(Response):
    """A response body serialised with orjson (see :func:`agentgym.server.protocol.dumps`)."""

    media_type = "application/json"

    def render(self, content: Any) -> bytes:
        return dumps(content)


def _json_value(value: Any) -> Any:
    if value is REQUIRED:
        return None
    try:
        dumps(value)
    except (TypeError, ValueError):
        return repr(value)
    return value


def env_schema(env_id: str, operator_kwargs: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """An env id's observation, action and info schema, and the kwargs a client may set.

    ``kwargs`` lists only what a remote client may set (the env's declared config, see
    :mod:`agentgym.config`, less what the operator pinned with ``agentgym serve ID -k
    key=value``), with the strangers' ceilings in ``allowed``; ``config`` is the same as a
    JSON schema.

    >>> import agentgym
    >>> schema = env_schema("agentgym/TicTacToe-v0")
    >>> schema["action_space"]["type"], "max_steps" in {k["name"] for k in schema["kwargs"]}
    ('Text', True)
    >>> "corpus" in {k["name"] for k in env_schema("agentgym/SearchQA-v0")["kwargs"]}
    True
    >>> "questions" in {k["name"] for k in env_schema("agentgym/SearchQA-v0")["kwargs"]}
    False
    """
    creator = env_creator(env_id)
    base = creator if isinstance(creator, type) and issubclass(creator, TextEnv) else TextEnv
    model = stranger_model(env_id)
    defaults = {k.name: k.default for k in env_kwargs(env_id)}
    pinned = set(operator_kwargs or {})
    config = dict(model.stranger_schema("client"))
    config["properties"] = {k: v for k, v in config["properties"].items() if k not in pinned}
    return {
        "observation_space": {"type": "Text", "min_length": 1,
                              "max_length": base.max_observation_length},
        "action_space": {"type": "Text", "min_length": 0, "max_length": base.max_action_length},
        "info": INFO_SCHEMA,
        "kwargs": [
            {
                "name": row.name,
                "default": _json_value(defaults.get(row.name, row.default)),
                "required": defaults.get(row.name, row.default) is REQUIRED,
                "allowed": row.allowed,
                "description": row.description,
            }
            for row in model.table("client")
            if row.name in defaults and row.name not in pinned
        ],
        "config": config,
    }


class _TokenGate:
    """ASGI middleware: refuse every request but ``/health`` unless it bears the token."""

    def __init__(self, app: ASGIApp, token: str | None) -> None:
        self.app = app
        self.token = token.encode() if token else None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if self.token is None or scope["type"] not in ("http", "websocket"):
            return await self.app(scope, receive, send)
        if scope["path"] == "/health" or self._authorised(scope):
            return await self.app(scope, receive, send)
        if scope["type"] == "websocket":
            await send(
                {"type": "websocket.close", "code": 1008, "reason": "missing or wrong token"}
            )
            return None
        body = dumps({"error": "missing or wrong bearer token"})
        await send({
            "type": "http.response.start",
            "status": 401,
            "headers": [(b"content-type", b"application/json"),
                        (b"www-authenticate", b"Bearer")],
        })
        await send({"type": "http.response.body", "body": body})
        return None

    def _authorised(self, scope: Scope) -> bool:
        assert self.token is not None
        for name, value in scope.get("headers", ()):
            if name == b"authorization":
                scheme, _, given = value.partition(b" ")
                return scheme.lower() == b"bearer" and hmac.compare_digest(given.strip(),
                                                                           self.token)
        return False


def create_app(
    env_ids: Sequence[str],
    *,
    max_sessions: int = 256,
    max_heavy_sessions: int = DEFAULT_MAX_HEAVY_SESSIONS,
    idle_timeout: float = 600.0,
    token: str | None = None,
    max_body: int = DEFAULT_MAX_BODY,
    replay_window: int = 64,
    openenv: bool = True,
    call_timeout: float = DEFAULT_CALL_TIMEOUT,
    operator_kwargs: Mapping[str, Mapping[str, Any]] | None = None,
) -> ASGIApp:
    """The server for ``env_ids``; see the module docstring. Refuses unknown ids at once.

    ``openenv``: also serve each id over OpenEnv's protocol at ``/openenv/{env_id}`` (see
    :mod:`agentgym.server.openenv`); new paths only, the agentgym routes are unchanged.
    ``call_timeout``: seconds one env call run off the event loop may take (see
    :mod:`agentgym.server.sessions`). ``operator_kwargs``: per id, the kwargs every session
    gets (``agentgym serve ID -k key=value``); a client may override only the ones its
    declared config lets a client set (paths, backends and the like are operator-only).
    ``max_heavy_sessions``: of ``max_sessions``, how many may hold a browser or a container.
    """
    store = SessionStore(
        env_ids, max_sessions=max_sessions, max_heavy_sessions=max_heavy_sessions,
        idle_timeout=idle_timeout,
        replay_window=replay_window, call_timeout=call_timeout, operator_kwargs=operator_kwargs,
    )
    metrics = Metrics()
    schemas = {env_id: env_schema(env_id, store.operator_kwargs.get(env_id))
               for env_id in store.env_ids}

    async def run(op: str, sid: str | None, body: dict[str, Any], client: Any = None) -> Reply:
        start = perf_counter()
        reply = await store.handle(op, sid, body, client)
        metrics.observe(op, reply.status, perf_counter() - start)
        return reply

    async def read_body(scope: Scope, receive: Receive) -> dict[str, Any]:
        too_big = False
        for name, value in scope["headers"]:
            if name == b"content-length":
                too_big = value.isdigit() and int(value) > max_body
                break
        chunks: list[bytes] = []
        size = 0
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                raise _Disconnected
            chunk = message.get("body", b"")
            size += len(chunk)
            if too_big or size > max_body:
                # Read on (and drop) what the client still sends, up to a bound, before
                # answering: closing on unread data resets the connection, and the client
                # would see a broken pipe instead of the 413.
                too_big = True
                if size > _DRAIN_LIMIT:
                    break
            else:
                chunks.append(chunk)
            if not message.get("more_body", False):
                break
        if too_big:
            raise ProtocolError(f"request body over {max_body} bytes", 413,
                                {"Connection": "close"})
        raw = chunks[0] if len(chunks) == 1 else b"".join(chunks)
        if not raw.strip():
            return {}
        return loads_object(raw)

    async def session_http(
        scope: Scope, receive: Receive, send: Send, op: str, has_body: bool, sid: str | None
    ) -> None:
        # The session routes in plain ASGI rather than Starlette routes, Request and Response
        # objects: about a third of the stack's cost per request (benchmark row
        # server-http-16-clients). Their replies are the ones the Starlette routes gave.
        try:
            body = await read_body(scope, receive) if has_body else {}
        except _Disconnected:
            return
        except ProtocolError as exc:
            metrics.observe(op, exc.status, 0.0)
            await _send_json(send, exc.status, dumps({"error": str(exc)}), exc.headers)
            return
        try:
            # The connection scopes create request ids (a client without a client_token).
            reply = await run(op, sid, body, ("http", scope.get("client")))
        except Exception:  # a bug, not bad input: one JSON line, never a stack trace
            log.exception("%s failed", op)
            await _send_json(send, 500, dumps({"error": "internal server error"}))
            return
        try:
            data = dumps(reply.body)
        except (TypeError, ValueError) as exc:
            await _send_json(send, 500, dumps({"error": f"the reply is not JSON: {exc}"}))
            return
        await _send_json(send, reply.status, data, reply.headers)

    async def health(request: Request) -> Response:
        return JSONResponse(
            {"status": "ok", "env_ids": list(store.env_ids), "sessions": len(store.sessions)}
        )

    async def schema(request: Request) -> Response:
        return JSONResponse({"env_ids": list(store.env_ids), "envs": schemas,
                             "ops": list(WS_OPS)})

    async def metrics_text(request: Request) -> Response:
        text = metrics.render(
            sessions=len(store.sessions), created=store.created_total,
            expired=store.expired_total,
        )
        return PlainTextResponse(text, media_type="text/plain; version=0.0.4")

    async def session_ws(scope: Scope, receive: Receive, send: Send) -> None:
        # /ws in plain ASGI rather than Starlette's WebSocket wrapper (benchmark row
        # server-ws-16-clients): one receive and one send per message, JSON as text frames.
        if (await receive())["type"] != "websocket.connect":
            return
        await send({"type": "websocket.accept"})
        connection = ("ws", object())  # scopes this connection's create request ids
        while True:
            message = await receive()
            kind = message["type"]
            if kind == "websocket.disconnect":
                return
            if kind != "websocket.receive":
                continue
            data = message.get("text") or message.get("bytes") or b""
            try:
                out = (await ws_answer(data, connection)).decode()
            except Exception:  # a bug: close with "internal error", never drop the connection
                log.exception("a WebSocket message failed")
                with contextlib.suppress(OSError):
                    await send({"type": "websocket.close", "code": 1011,
                                "reason": "internal server error"})
                return
            try:
                await send({"type": "websocket.send", "text": out})
            except OSError:  # the client is gone (uvicorn's ClientDisconnected)
                return

    async def ws_answer(data: str | bytes, connection: Any = None) -> bytes:
        rid: Any = None
        op: Any = None
        try:
            if len(data) > max_body:
                raise ProtocolError(f"message over {max_body} bytes", 413)
            payload = loads_object(data)
            rid = payload.get("request_id")
            op = payload.get("op")
            if op not in WS_OPS:
                raise ProtocolError(f"unknown op {op!r:.100}; ops: {', '.join(WS_OPS)}")
            reply = await run(op, payload.get("session_id"), payload, connection)
        except ProtocolError as exc:
            reply = Reply(exc.status, {"error": str(exc)})
        except Exception:  # a bug, not bad input: one JSON line, never a stack trace
            log.exception("%r failed", op)
            reply = Reply(500, {"error": "internal server error"})
        out = {"request_id": rid, "ok": reply.status < 400, **reply.body}
        if reply.status >= 400:
            out["status"] = reply.status
        try:
            return dumps(out)
        except (TypeError, ValueError) as exc:
            return dumps({"request_id": rid, "ok": False, "status": 500,
                                 "error": f"the reply is not JSON: {exc}"})

    async def http_error(request: Request, exc: Exception) -> Response:
        status = exc.status_code if isinstance(exc, HTTPException) else 500
        detail = exc.detail if isinstance(exc, HTTPException) else "internal server error"
        return JSONResponse({"error": str(detail)}, status)

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        async def sweep() -> None:
            while True:
                await asyncio.sleep(min(store.idle_timeout / 2, 10.0))
                await store.expire()

        task = asyncio.create_task(sweep())
        try:
            yield
        finally:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
            await store.close_all()  # bounded: a call still running is left to the exit

    routes = [
        Route("/health", health, methods=["GET"]),
        Route("/schema", schema, methods=["GET"]),
        Route("/metrics", metrics_text, methods=["GET"]),
        # `front` below answers these requests before Starlette is reached; the routes stay
        # so that Starlette gives what `front` leaves (HEAD, another method: 405) as before.
        Route("/sessions", _SessionOp(session_http, "create"), methods=["POST"]),
        Route("/sessions/{sid}/reset", _SessionOp(session_http, "reset"), methods=["POST"]),
        Route("/sessions/{sid}/step", _SessionOp(session_http, "step"), methods=["POST"]),
        Route("/sessions/{sid}/state", _SessionOp(session_http, "state", has_body=False),
              methods=["GET"]),
        Route("/sessions/{sid}/state", _SessionOp(session_http, "set_state"), methods=["PUT"]),
        Route("/sessions/{sid}/score", _SessionOp(session_http, "score"), methods=["POST"]),
        Route("/sessions/{sid}/oracle", _SessionOp(session_http, "oracle", has_body=False),
              methods=["GET"]),
        Route("/sessions/{sid}", _SessionOp(session_http, "close"), methods=["DELETE"]),
    ]
    app = Starlette(
        routes=routes,
        lifespan=lifespan,
        exception_handlers={HTTPException: http_error, Exception: http_error},
    )
    app.state.store = store
    app.state.metrics = metrics
    openenv_routes = OpenEnvRoutes(
        store.env_ids, run, max_body=max_body,
        # MCP sessions and the WebSockets attached to them are this store's sessions.
        session_env_id=lambda sid: getattr(store.sessions.get(sid), "env_id", None),
    ) if openenv else None

    async def front(scope: Scope, receive: Receive, send: Send) -> None:
        kind = scope["type"]
        if kind == "http" or kind == "websocket":
            path = scope["path"]
            root = scope.get("root_path", "")
            if root and path.startswith(root):
                path = path[len(root):]
            if openenv_routes is not None and path.startswith(OPENENV_PREFIX):
                return await openenv_routes(scope, receive, send, path)
            if kind == "websocket":
                if path == "/ws":
                    return await session_ws(scope, receive, send)
            else:
                route = _session_route(scope["method"], path)
                if route is not None:
                    return await session_http(scope, receive, send, *route)
        return await app(scope, receive, send)

    return _TokenGate(front, token)


def serve(
    env_ids: Sequence[str],
    *,
    host: str = "127.0.0.1",
    port: int = 8000,
    max_sessions: int = 256,
    max_heavy_sessions: int = DEFAULT_MAX_HEAVY_SESSIONS,
    idle_timeout: float = 600.0,
    token: str | None = None,
    max_body: int = DEFAULT_MAX_BODY,
    log_level: str = "warning",
    openenv: bool = True,
    call_timeout: float = DEFAULT_CALL_TIMEOUT,
    operator_kwargs: Mapping[str, Mapping[str, Any]] | None = None,
) -> None:
    """Run the server with uvicorn until interrupted (uvloop and httptools when installed).

    SIGTERM stops it within about 3 s: requests still running after 2 s are cancelled, and an
    env call still running in a worker thread does not hold the process (daemon threads).
    """
    import uvicorn

    # An env call in a worker thread (a world build) holds the GIL for up to the switch
    # interval at a time, and the event loop needs it back after every wait for I/O: at the
    # default 5 ms a /health took 170 ms (median) during a SearchQA world build; at 0.5 ms, the
    # loop gets it back ten times sooner. Only threads that contend pay for the switches.
    sys.setswitchinterval(0.0005)
    app = create_app(env_ids, max_sessions=max_sessions,
                     max_heavy_sessions=max_heavy_sessions, idle_timeout=idle_timeout,
                     token=token, max_body=max_body, openenv=openenv,
                     call_timeout=call_timeout, operator_kwargs=operator_kwargs)
    uvicorn.run(app, host=host, port=port, log_level=log_level, ws_max_size=max_body + 1024,
                timeout_graceful_shutdown=2)
