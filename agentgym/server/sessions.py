"""The server's session store: one env per explicit session, replies remembered per request id.

* Session ids come from :func:`secrets.token_urlsafe` and are never handed out twice (closed
  and expired ids are remembered, so a late request names its session as gone, not unknown).
* A session's env calls run one at a time while other sessions run concurrently. A ``step``
  (and ``state``, and a ``score`` of at most :data:`INLINE_SCORE` actions) of an env whose
  ``blocking_io`` is False (every :class:`agentgym.core.TextEnv` but the browser and terminal
  envs) is called inline on the event loop: the call has no ``await``, so nothing else runs
  during it, and the session's :class:`asyncio.Lock` is taken only on the slow path. Every
  other call (building the env, ``reset``, which may build a SearchQA world, ``set_state``,
  ``oracle``, a larger ``score``, and any call of a ``blocking_io`` env) runs in a worker
  thread of :class:`CallPool` under the lock, so the loop keeps answering other clients
  (``/health`` included). A session whose inline step once takes longer than
  :data:`SLOW_INLINE` seconds has all its later calls moved to the threads, and so does one
  whose state the client supplied (``set_state``, or ``reset`` with options such as a level):
  a crafted state can make every step slow (a Minesweeper frontier, an open Sokoban room).
* A call in a thread has ``call_timeout`` seconds: past it, the request is answered 504 and
  the session is closed (its env is closed when the call finally returns; until then it still
  counts against ``max_sessions``).
* A mutating request (create, reset, step, set_state, close) with a ``request_id`` already
  answered in that session is not applied again: the stored reply is sent (the last
  ``replay_window`` replies per session are kept). A retry after a dropped connection
  therefore neither loses nor doubles a step. The id is bound to its request: the same id with
  another op or other fields is refused with 409, naming what differs.
* A create's request id is scoped to its client: to the ``client_token`` field when the body
  carries one (:class:`agentgym.remote.RemoteEnv` sends a random one per env, so its retry on
  a new connection finds its reply), else to the connection (``client`` passed to
  :meth:`SessionStore.handle`). Another client reusing the id makes a session of its own.
* ``max_sessions`` bounds the live sessions: a create beyond it is answered 503 with
  ``Retry-After``. ``max_heavy_sessions`` (default 8) bounds, the same way, the sessions whose
  env holds a browser or a container (:func:`heavy_session`), each tens to hundreds of MB and
  a few processes. A session idle for ``idle_timeout`` seconds is closed.

Every call returns a :class:`Reply` (status, JSON body, headers); errors are one line.

>>> import asyncio, agentgym
>>> store = SessionStore(["agentgym/TicTacToe-v0"])
>>> reply = asyncio.run(store.handle("create", None, {"env_id": "agentgym/TicTacToe-v0"}))
>>> reply.status, sorted(reply.body)[:2]
(200, ['env', 'env_id'])
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import queue
import secrets
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, cast

import gymnasium as gym

from agentgym.envinfo import check_kwargs, env_creator, refuse_strangers
from agentgym.server.protocol import (
    MAX_REQUEST_ID,
    MUTATING_OPS,
    ProtocolError,
    check_fields,
    parse_request_id,
)

__all__ = ["DEFAULT_CALL_TIMEOUT", "DEFAULT_MAX_HEAVY_SESSIONS", "CallPool", "Reply",
           "Session", "SessionStore", "describe_env", "heavy_session"]

log = logging.getLogger("agentgym.server")

#: Kwargs that would make a server session a client of another server: refused.
_REMOTE_KWARGS = frozenset({"server_url", "token", "retry_for"})
#: Seconds one env call in a worker thread may take (building the largest SearchQA world,
#: scale 742, takes about two minutes on one core).
DEFAULT_CALL_TIMEOUT = 300.0
#: Heavy sessions (a browser or a container each) allowed at once by default. A WebShop
#: browser session holds about 70-120 MB and two Chromium processes, a Terminal session a
#: container: 8 of them are about 1 GB, where the 256 of ``max_sessions`` would be 30 GB.
DEFAULT_MAX_HEAVY_SESSIONS = 8
#: A ``score`` of at most this many actions runs inline (a larger one in a thread).
INLINE_SCORE = 32
#: An inline call slower than this (seconds) moves its session's later calls to the threads.
SLOW_INLINE = 0.05
#: Ops that may run inline on the event loop (the rest always run in a worker thread).
_INLINE_OPS = frozenset({"step", "state", "score"})


class CallPool:
    """Daemon worker threads for env calls that may take long, each awaited with a time limit.

    Daemon threads, not a :class:`concurrent.futures.ThreadPoolExecutor`: the interpreter
    waits for an executor's threads at exit, so one runaway call would keep a SIGTERMed
    server alive until it ended.

    >>> pool = CallPool(2)
    >>> asyncio.run(pool.call(sum, [1, 2], timeout=5.0))
    3
    """

    def __init__(self, threads: int = 32) -> None:
        if threads < 1:
            raise ValueError(f"threads must be >= 1, got {threads}")
        self.threads = threads
        self._queue: queue.SimpleQueue[Any] = queue.SimpleQueue()
        self._started = 0
        self._idle = 0
        self._lock = threading.Lock()

    def submit(self, fn: Callable[..., Any], *args: Any) -> asyncio.Future[Any]:
        """Run ``fn(*args)`` in a worker thread; the future settles on the calling loop."""
        loop = asyncio.get_running_loop()
        future = loop.create_future()
        with self._lock:
            if self._idle > 0:  # a waiting worker takes it
                self._idle -= 1
            elif self._started < self.threads:
                self._started += 1
                threading.Thread(target=self._work, name=f"agentgym-call-{self._started}",
                                 daemon=True).start()
        self._queue.put((loop, future, fn, args))
        return future

    async def call(self, fn: Callable[..., Any], *args: Any, timeout: float) -> Any:
        """``fn(*args)`` in a thread; :class:`TimeoutError` after ``timeout`` seconds (the call
        itself runs on to its end: a thread cannot be stopped)."""
        future = self.submit(fn, *args)
        return await asyncio.wait_for(asyncio.shield(future), timeout)

    def _work(self) -> None:
        while True:
            loop, future, fn, args = self._queue.get()
            try:
                result, error = fn(*args), None
            except BaseException as exc:  # handed to the awaiting coroutine
                result, error = None, exc
            with contextlib.suppress(RuntimeError):  # the loop is closed: nobody waits
                loop.call_soon_threadsafe(_settle, future, result, error)
            with self._lock:
                self._idle += 1


def _settle(future: asyncio.Future[Any], result: Any, error: BaseException | None) -> None:
    if future.cancelled():
        return
    if error is not None:
        future.set_exception(error)
    else:
        future.set_result(result)


@dataclass(frozen=True, slots=True)
class Reply:
    """What the server answers: an HTTP status, a JSON-able body and extra headers."""

    status: int
    body: dict[str, Any]
    headers: dict[str, str] = field(default_factory=dict)


@dataclass(eq=False)
class Session:
    """One live session: its env, its lock and the replies it remembers."""

    id: str
    env_id: str
    env: gym.Env
    last_used: float
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    #: Env calls run on the event loop (the env's ``blocking_io`` is False), not in a thread.
    inline: bool = False
    #: Its env holds a browser or a container (counts against ``max_heavy_sessions``).
    heavy: bool = False
    #: request id -> (op, the fields it was sent with, the reply).
    replies: OrderedDict[str, tuple[str, dict[str, Any], Reply]] = field(
        default_factory=OrderedDict)


def _mismatch(rid: str, op: str, fields: dict[str, Any], seen_op: str,
              seen: dict[str, Any]) -> Reply | None:
    """None when a reused ``rid`` repeats its request, else the 409 naming what differs."""
    if op == seen_op and fields == seen:
        return None
    if op != seen_op:
        what = f"op {seen_op!r}, not {op!r}"
    else:
        names = sorted(k for k in set(fields) | set(seen) if fields.get(k) != seen.get(k))
        what = f"{seen_op} with other {', '.join(repr(n) for n in names)}"
    return Reply(409, {"error": f"request_id {rid!r} was already used for {what}; a new "
                                "request needs a new request_id", "type": "RequestIdReused"})


def _space(space: Any) -> dict[str, Any]:
    if isinstance(space, gym.spaces.Text):
        return {
            "type": "Text",
            "min_length": space.min_length,
            "max_length": space.max_length,
            "charset": space.characters,
        }
    return {"type": type(space).__name__}


def describe_env(env: gym.Env) -> dict[str, Any]:
    """What a client needs to mirror ``env`` locally: spaces, render modes, config and rules."""
    # Any registered id may be hosted, not only a TextEnv: what its env lacks is reported as None.
    inner: Any = env.unwrapped
    out: dict[str, Any] = {
        "observation_space": _space(env.observation_space),
        "action_space": _space(env.action_space),
        "render_modes": list(getattr(inner, "metadata", {}).get("render_modes", [])),
        "render_mode": getattr(inner, "render_mode", None),
    }
    for name, read in (
        ("config", lambda: inner.config()),
        ("rules", lambda: inner.rules),
        ("system_prompt", lambda: inner.system_prompt()),
        ("max_steps", lambda: inner.max_steps),
    ):
        try:
            out[name] = read()
        except Exception:  # an env without the attribute simply does not report it
            out[name] = None
    return out


def heavy_session(env_id: str, kwargs: Mapping[str, Any]) -> bool:
    """Whether a session of ``env_id`` made with ``kwargs`` holds a browser or a container.

    Told by the entry point, before anything is built: a class says it with a
    ``heavy_session`` ClassVar, a factory with a ``heavy_session(kwargs) -> bool`` attribute
    (WebShop's says so for ``mode="browser"``). An env that says nothing is light.

    >>> heavy_session("agentgym/TicTacToe-v0", {})
    False
    >>> heavy_session("agentgym/WebShop-v0", {"mode": "browser"})
    True
    """
    creator = env_creator(env_id)
    said = getattr(creator, "heavy_session", False)
    if callable(said) and not isinstance(creator, type):
        return bool(said(dict(kwargs)))
    return bool(said)


def _error(exc: BaseException) -> Reply:
    """An env's exception as a reply: bad input (ValueError, TypeError, a Gymnasium error) is
    400 with its first line; anything else is 500 naming the exception's type only.

    >>> _error(RuntimeError("no browser at /home/me/chrome")).body["error"]
    "RuntimeError: the env failed on the server; see the server's log"
    """
    lines = [line.strip() for line in str(exc).splitlines() if line.strip()]
    message = (lines[0] if lines else type(exc).__name__)[:400]
    kind = type(exc).__name__
    if isinstance(exc, gym.error.ResetNeeded):
        return Reply(400, {"error": message, "type": "ResetNeeded"})
    if isinstance(exc, (ValueError, TypeError, gym.error.Error)):
        return Reply(400, {"error": message, "type": kind})
    # A failure on the server's side (a missing browser, a dead container, a bug) may name
    # host paths, users or addresses: the client gets its type only, the log gets it all.
    log.error("env call failed", exc_info=exc)
    return Reply(500, {"error": f"{kind}: the env failed on the server; see the server's log",
                       "type": kind})


class SessionStore:
    """Sessions of the env ids a server hosts; see the module docstring for the rules.

    Args:
        env_ids: the ids this server hosts (a create naming another is refused).
        max_sessions: live sessions allowed at once (503 + ``Retry-After`` beyond).
        max_heavy_sessions: of those, sessions whose env holds a browser or a container
            (see :func:`heavy_session`) allowed at once (503 + ``Retry-After`` beyond).
        idle_timeout: seconds without a request after which a session is closed.
        replay_window: replies remembered per session for request-id dedupe.
        call_timeout: seconds one env call in a worker thread may take (504 beyond, and the
            session is closed).
        operator_kwargs: per env id, the kwargs the operator set when starting the server
            (``agentgym serve ID -k key=value``): every session of that id gets them, and no
            client may change them; a client sets only other kwargs its env's declared config
            opens to clients.
        threads: worker threads for env calls.
        clock: seconds, monotonic (tests pass a fake one).
    """

    def __init__(
        self,
        env_ids: Sequence[str],
        *,
        max_sessions: int = 256,
        max_heavy_sessions: int = DEFAULT_MAX_HEAVY_SESSIONS,
        idle_timeout: float = 600.0,
        replay_window: int = 64,
        call_timeout: float = DEFAULT_CALL_TIMEOUT,
        threads: int = 32,
        clock: Callable[[], float] = time.monotonic,
        operator_kwargs: Mapping[str, Mapping[str, Any]] | None = None,
    ) -> None:
        if not env_ids:
            raise ValueError("a server hosts at least one env id")
        for env_id in env_ids:
            env_creator(env_id)  # unknown ids fail at start, not at the first create
        self.operator_kwargs = {k: dict(v) for k, v in (operator_kwargs or {}).items()}
        for env_id, given in self.operator_kwargs.items():
            if env_id not in env_ids:
                raise ValueError(f"operator kwargs for {env_id}, which is not served")
            check_kwargs(env_id, given)
        if max_sessions < 1:
            raise ValueError(f"max_sessions must be >= 1, got {max_sessions}")
        if max_heavy_sessions < 0:
            raise ValueError(f"max_heavy_sessions must be >= 0, got {max_heavy_sessions}")
        if idle_timeout <= 0:
            raise ValueError(f"idle_timeout must be > 0, got {idle_timeout}")
        if call_timeout <= 0:
            raise ValueError(f"call_timeout must be > 0, got {call_timeout}")
        self.env_ids = tuple(dict.fromkeys(env_ids))
        self.max_sessions = max_sessions
        self.max_heavy_sessions = max_heavy_sessions
        self.idle_timeout = float(idle_timeout)
        self.replay_window = replay_window
        self.call_timeout = float(call_timeout)
        self.pool = CallPool(threads)
        self.clock = clock
        self.sessions: dict[str, Session] = {}
        self._reserved = 0  # creates under way and calls past their limit (count as sessions)
        self._heavy_reserved = 0  # the same, of heavy envs (count against max_heavy_sessions)
        self._gone: OrderedDict[str, str] = OrderedDict()  # closed/expired id -> why
        # (client scope, create request id) -> (fields, reply), and the creates under way.
        self._created: OrderedDict[tuple[Any, str], tuple[dict[str, Any], Reply]] = (
            OrderedDict())
        self._creating: dict[tuple[Any, str], tuple[dict[str, Any], asyncio.Future[Reply]]] = {}
        self.created_total = 0
        self.expired_total = 0
        self.timed_out_total = 0

    # ------------------------------------------------------------------ entry point
    async def handle(
        self, op: str, session_id: str | None, body: dict[str, Any], client: Any = None
    ) -> Reply:
        """Run one operation; never raises for bad input (the reply says what was wrong).

        ``client`` names the connection the request came on (any hashable); it scopes the
        request ids of creates that carry no ``client_token``.

        A mutating operation runs in a task of its own that a cancelled request (a client that
        hung up) does not stop: once begun, it is applied and its reply stored, so the retry
        finds the reply instead of applying the request a second time.
        """
        if op in _INLINE_OPS:
            # The fast path (benchmark rows server-{http,ws}-16-clients): no task, no lock, no
            # thread. It runs to its end without yielding, so a cancelled request cannot
            # interrupt it and the shield below is not needed.
            reply = self._inline(op, session_id, body)
            if reply is not None:
                return reply
        if op in MUTATING_OPS:
            return await asyncio.shield(asyncio.ensure_future(
                self._handle(op, session_id, body, client)))
        return await self._handle(op, session_id, body, client)

    async def _handle(
        self, op: str, session_id: str | None, body: dict[str, Any], client: Any
    ) -> Reply:
        try:
            rid = parse_request_id(body)
            fields = check_fields(op, body)
            if op == "create":
                return await self._create(fields, rid, _create_scope(body, client))
            if not isinstance(session_id, str) or not session_id:
                raise ProtocolError(f"{op}: missing session_id")
            if op == "close":
                return await self._close(session_id, rid)
            return await self._session_op(op, session_id, fields, rid)
        except ProtocolError as exc:
            return Reply(exc.status, {"error": str(exc)}, exc.headers)

    # ------------------------------------------------------------------ create / close
    async def _create(self, fields: dict[str, Any], rid: str | None, scope: Any) -> Reply:
        if rid is not None:
            key = (scope, rid)
            if key in self._created:
                seen, reply = self._created[key]
                return _mismatch(rid, "create", fields, "create", seen) or reply
            if key in self._creating:  # the first try is still building the env
                seen, pending = self._creating[key]
                return (_mismatch(rid, "create", fields, "create", seen)
                        or await asyncio.shield(pending))
        env_id, kwargs = fields["env_id"], dict(fields["kwargs"] or {})
        if env_id not in self.env_ids:
            raise ProtocolError(
                f"env id {env_id!r} is not served here; served: {', '.join(self.env_ids)}", 404
            )
        remote = sorted(_REMOTE_KWARGS & set(kwargs))
        if remote:
            raise ProtocolError(f"kwargs {remote} are client options, not env kwargs")
        try:
            # Judged on the keys and declared rules alone, so the answer is the same whether
            # or not a path the client names exists on this host.
            refuse_strangers(env_id, kwargs, "client")
        except ValueError as exc:
            raise ProtocolError(str(exc)) from None
        pinned = self.operator_kwargs.get(env_id, {})
        for name in kwargs:
            if name in pinned:
                # The operator's value is the server's: a client may not swap a catalog size,
                # a task or a corpus the operator chose for another.
                raise ProtocolError(f"{name} is set by this server's operator; a remote "
                                    "client may not change it")
        kwargs = {**pinned, **kwargs}
        # Judged before the env is built: a browser launched only to be refused would cost
        # what the cap is there to bound.
        heavy = heavy_session(env_id, kwargs)
        if self._full(heavy):
            await self.expire()
        if self._full(heavy):
            raise self._busy(heavy)
        future: asyncio.Future[Reply] | None = None
        if rid is not None:
            future = asyncio.get_running_loop().create_future()
            self._creating[(scope, rid)] = (fields, future)
        self._reserved += 1
        self._heavy_reserved += heavy
        reply = Reply(500, {"error": "the session could not be created"})
        try:
            reply = await self._build(env_id, kwargs, heavy)
        finally:
            self._reserved -= 1
            self._heavy_reserved -= heavy
            if rid is not None:
                self._creating.pop((scope, rid), None)
                self._remember_create((scope, rid), fields, reply)
            if future is not None:  # a retry waiting on this try gets the same reply
                future.set_result(reply)
        return reply

    def heavy_count(self) -> int:
        """Live heavy sessions plus heavy creates under way and heavy calls past their limit."""
        return sum(s.heavy for s in self.sessions.values()) + self._heavy_reserved

    def _full(self, heavy: bool) -> bool:
        return (len(self.sessions) + self._reserved >= self.max_sessions
                or (heavy and self.heavy_count() >= self.max_heavy_sessions))

    def _busy(self, heavy: bool) -> ProtocolError:
        if len(self.sessions) + self._reserved >= self.max_sessions or not heavy:
            what = f"{self.max_sessions} sessions open"
        else:
            what = (f"{self.max_heavy_sessions} sessions holding a browser or a container "
                    "open")
        return ProtocolError(f"server busy: {what}; retry later", 503, {"Retry-After": "1"})

    async def _build(self, env_id: str, kwargs: dict[str, Any], heavy: bool) -> Reply:
        def build() -> tuple[gym.Env, dict[str, Any]]:
            check_kwargs(env_id, kwargs)
            # The bare env: Gymnasium's order check would refuse a step after set_state,
            # which the contract allows (a snapshot starts an episode).
            env = gym.make(env_id, disable_env_checker=True, **kwargs).unwrapped
            return env, describe_env(env)

        future = self.pool.submit(build)
        try:
            env, described = await asyncio.wait_for(asyncio.shield(future),
                                                    self.call_timeout)
        except Exception as exc:
            if isinstance(exc, TimeoutError) and not future.done():
                self._outlive(future, lambda built: built[0].close(), heavy)
                return self._timed_out("building the env")
            return _error(exc)
        if not heavy and getattr(env, "heavy_session", False):
            # An entry point that did not say so built a heavy env: it counts from now on,
            # and is closed at once when the heavy sessions are already at their cap.
            heavy = True
            if self.heavy_count() >= self.max_heavy_sessions:
                self.pool.submit(_quietly, env.close)
                busy = self._busy(True)
                return Reply(busy.status, {"error": str(busy)}, busy.headers)
        sid = secrets.token_urlsafe(16)
        while sid in self.sessions or sid in self._gone:  # never reuse an id
            sid = secrets.token_urlsafe(16)
        inline = getattr(env, "blocking_io", True) is False  # unknown envs: a thread
        self.sessions[sid] = Session(sid, env_id, env, self.clock(), inline=inline,
                                     heavy=heavy)
        self.created_total += 1
        return Reply(200, {"session_id": sid, "env_id": env_id, "env": described})

    def _timed_out(self, what: str, sid: str | None = None) -> Reply:
        self.timed_out_total += 1
        closed = f"; session {sid!r} is closed" if sid else ""
        return Reply(504, {"error": f"{what} ran past the server's limit of "
                                    f"{self.call_timeout:g} s for one env call{closed}",
                           "type": "Timeout"})

    def _outlive(self, future: asyncio.Future[Any], cleanup: Callable[[Any], Any],
                 heavy: bool) -> None:
        """A call past its limit runs on in its thread: it counts against ``max_sessions``
        (and a heavy env's against ``max_heavy_sessions``) until it ends, and then what it
        made (or used) is cleaned up, in a thread."""
        self._reserved += 1
        self._heavy_reserved += heavy

        def done(f: asyncio.Future[Any]) -> None:
            self._reserved -= 1
            self._heavy_reserved -= heavy
            if not f.cancelled() and f.exception() is None:
                self.pool.submit(_quietly, cleanup, f.result())

        future.add_done_callback(done)

    def _remember_create(self, key: tuple[Any, str], fields: dict[str, Any],
                         reply: Reply) -> None:
        self._created[key] = (fields, reply)
        while len(self._created) > self.max_sessions + 1024:  # a retry comes soon or never
            self._created.popitem(last=False)

    async def _close(self, sid: str, rid: str | None) -> Reply:
        session = self.sessions.get(sid)
        if session is None:
            if sid in self._gone:  # a retried close (or one after expiry) is answered, not 404
                return Reply(200, {"closed": True, "session_id": sid})
            raise ProtocolError(f"unknown session id {sid!r}", 404)
        async with session.lock:
            if self.sessions.get(sid) is session:
                await self._drop(session, "closed")
        return Reply(200, {"closed": True, "session_id": sid})

    def _forget(self, session: Session, why: str) -> None:
        self.sessions.pop(session.id, None)
        self._gone[session.id] = why
        while len(self._gone) > 100_000:
            self._gone.popitem(last=False)

    async def _drop(self, session: Session, why: str, timeout: float | None = None) -> None:
        self._forget(session, why)
        future = self.pool.submit(session.env.close)
        try:
            await asyncio.wait_for(asyncio.shield(future), timeout or self.call_timeout)
        except TimeoutError:
            log.warning("closing session %s ran past its limit", session.id)
        except Exception:
            log.exception("closing session %s failed", session.id)

    async def expire(self) -> int:
        """Close every session idle for longer than ``idle_timeout``; returns how many."""
        now = self.clock()
        stale = [
            s for s in self.sessions.values()
            if not s.lock.locked() and now - s.last_used > self.idle_timeout
        ]
        for session in stale:
            await self._drop(session, f"expired after {self.idle_timeout:g} s idle")
        self.expired_total += len(stale)
        return len(stale)

    async def close_all(self, timeout: float = 2.0) -> None:
        """Close every session (server shutdown), waiting at most ``timeout`` seconds: a
        session whose call is still running in a thread is left to the process exit."""
        sessions = list(self.sessions.values())
        for session in sessions:
            self._forget(session, "closed at shutdown")
        idle = [self.pool.submit(_quietly, s.env.close) for s in sessions if not s.lock.locked()]
        if idle:
            await asyncio.wait(idle, timeout=timeout)

    # ------------------------------------------------------------------ session ops
    def _session(self, sid: str) -> Session:
        session = self.sessions.get(sid)
        if session is None:
            why = self._gone.get(sid)
            if why is not None:
                raise ProtocolError(f"session {sid!r} is gone ({why})", 404)
            raise ProtocolError(f"unknown session id {sid!r}", 404)
        return session

    def _inline(self, op: str, sid: str | None, body: dict[str, Any]) -> Reply | None:
        """``op`` run at once on the event loop, or None: take the slow path (the session is
        unknown, gone, due to expire, busy, its env blocks, or the call may take long)."""
        session = self.sessions.get(sid) if isinstance(sid, str) else None
        if session is None or not session.inline or session.lock.locked():
            return None
        now = self.clock()
        if now - session.last_used > self.idle_timeout:
            return None
        try:
            rid = parse_request_id(body)
            fields = check_fields(op, body)
        except ProtocolError as exc:
            return Reply(exc.status, {"error": str(exc)}, exc.headers)
        if op == "score" and len(fields["actions"]) > INLINE_SCORE:
            return None
        # The id this request's reply is remembered under, or None (not remembered).
        remembered = rid if op in MUTATING_OPS else None
        if remembered is not None:
            seen = session.replies.get(remembered)
            if seen is not None:
                session.last_used = now
                return _mismatch(remembered, op, fields, seen[0], seen[1]) or seen[2]
        start = time.perf_counter()
        reply = _call(op, session.env, fields)
        if time.perf_counter() - start > SLOW_INLINE:
            # This env's calls can take long: from now on they run in a thread.
            session.inline = False
            log.warning("session %s (%s): a %s took %.2f s on the event loop; its calls now "
                        "run in a thread", session.id, session.env_id, op,
                        time.perf_counter() - start)
        self._finish(session, op, fields, remembered, reply)
        return reply

    def _finish(self, session: Session, op: str, fields: dict[str, Any], rid: str | None,
                reply: Reply) -> None:
        """Mark ``session`` used and remember ``reply`` under ``rid`` (unless None)."""
        session.last_used = self.clock()
        if rid is not None:
            replies = session.replies
            replies[rid] = (op, fields, reply)
            if len(replies) > self.replay_window:
                replies.popitem(last=False)

    async def _session_op(
        self, op: str, sid: str, fields: dict[str, Any], rid: str | None
    ) -> Reply:
        session = self._session(sid)
        if (
            not session.lock.locked()
            and self.clock() - session.last_used > self.idle_timeout
        ):
            await self._drop(session, f"expired after {self.idle_timeout:g} s idle")
            self.expired_total += 1
            raise ProtocolError(f"session {sid!r} is gone (expired)", 404)
        remember = rid is not None and op in MUTATING_OPS
        async with session.lock:
            if self.sessions.get(sid) is not session:
                raise ProtocolError(f"session {sid!r} is gone ({self._gone.get(sid)})", 404)
            if remember and rid in session.replies:
                session.last_used = self.clock()
                seen_op, seen, reply = session.replies[rid]
                return _mismatch(rid, op, fields, seen_op, seen) or reply
            if (session.inline and op in _INLINE_OPS
                    and not (op == "score" and len(fields["actions"]) > INLINE_SCORE)):
                reply = _call(op, session.env, fields)
            else:
                future = self.pool.submit(_call, op, session.env, fields)
                try:
                    reply = await asyncio.wait_for(asyncio.shield(future), self.call_timeout)
                except TimeoutError:
                    self._forget(session, f"its {op} ran past the {self.call_timeout:g} s "
                                          "limit for one env call")
                    self._outlive(future, lambda _: session.env.close(), session.heavy)
                    return self._timed_out(f"the {op}", sid)
            if op == "set_state" or (op == "reset" and fields.get("options")):
                # The state is the client's now (a snapshot, a hand-drawn level): one can be
                # crafted so that each step is slow, so its steps run in a thread from here on.
                session.inline = False
            self._finish(session, op, fields, rid if remember else None, reply)
            return reply


def _quietly(fn: Callable[..., Any], *args: Any) -> None:
    try:
        fn(*args)
    except Exception:
        log.exception("cleaning up after an env call failed")


def _create_scope(body: dict[str, Any], client: Any) -> Any:
    """What a create's request id is scoped to: the body's ``client_token``, else the
    connection."""
    token = body.get("client_token")
    if token is None:
        return ("connection", client)
    if not isinstance(token, str) or not token or len(token) > MAX_REQUEST_ID:
        raise ProtocolError(f"client_token must be a non-empty string of at most "
                            f"{MAX_REQUEST_ID} characters")
    return ("token", token)


# ---------------------------------------------------------------------- env calls
def _call(op: str, env: gym.Env, fields: dict[str, Any]) -> Reply:
    """One env call as a reply (on the event loop or in a worker thread)."""
    try:
        return Reply(200, _OPS[op](env, fields))
    except Exception as exc:
        return _error(exc)


def _reset(env: gym.Env, f: dict[str, Any]) -> dict[str, Any]:
    obs, info = env.reset(seed=f["seed"], options=f["options"])
    return {"observation": obs, "info": info}


def _step(env: gym.Env, f: dict[str, Any]) -> dict[str, Any]:
    obs, reward, terminated, truncated, info = env.step(f["action"])
    return {
        "observation": obs,
        "reward": float(reward),
        "terminated": bool(terminated),
        "truncated": bool(truncated),
        "info": info,
    }


class _ContractEnv(Protocol):
    """What the state, set_state, score and oracle ops call beyond gym.Env (agentgym's
    :class:`agentgym.core.TextEnv` has it all)."""

    def get_state(self) -> bytes: ...

    def set_state(self, state: bytes) -> None: ...

    def score_actions(self, actions: list[str]) -> Iterable[float]: ...

    def oracle_actions(self) -> Iterable[str]: ...

    def render(self) -> Any: ...


def _contract(env: gym.Env) -> _ContractEnv:
    """``env``'s bare env, typed by the contract the ops call. Unchecked on purpose: a hosted
    env that lacks a method (an id that is not a TextEnv) raises AttributeError at the call,
    which :func:`_call` answers as an error reply."""
    return cast(_ContractEnv, env.unwrapped)


def _get_state(env: gym.Env, f: dict[str, Any]) -> dict[str, Any]:
    return {"state": _contract(env).get_state().decode()}


def _set_state(env: gym.Env, f: dict[str, Any]) -> dict[str, Any]:
    inner = _contract(env)
    inner.set_state(f["state"].encode())
    render = inner.render() if getattr(inner, "render_mode", None) == "ansi" else None
    return {"episode_seed": getattr(inner, "episode_seed", None), "render": render}


def _score(env: gym.Env, f: dict[str, Any]) -> dict[str, Any]:
    return {"scores": [float(s) for s in _contract(env).score_actions(list(f["actions"]))]}


def _oracle(env: gym.Env, f: dict[str, Any]) -> dict[str, Any]:
    return {"actions": list(_contract(env).oracle_actions())}


_OPS: dict[str, Callable[[gym.Env, dict[str, Any]], dict[str, Any]]] = {
    "reset": _reset,
    "step": _step,
    "state": _get_state,
    "set_state": _set_state,
    "score": _score,
    "oracle": _oracle,
}
