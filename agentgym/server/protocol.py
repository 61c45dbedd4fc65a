"""The env server's message shapes: one protocol for every env id, over HTTP and WebSocket.

Every request body is a JSON object; every mutating request carries a ``request_id`` (a
client-chosen string) so that a retry after a dropped connection is applied once and answered
with the same reply. Replies are JSON objects; an error is ``{"error": "one line"}`` with a 4xx
or 5xx status (over WebSocket: ``{"request_id", "ok": false, "error", "status"}``).

=========================  =====================================  ==================================
request                    body                                   reply
=========================  =====================================  ==================================
POST /sessions             env_id, kwargs, request_id             session_id, env_id, env
POST /sessions/{sid}/reset seed, options, request_id              observation, info
POST /sessions/{sid}/step  action, request_id                     observation, reward, terminated,
                                                                  truncated, info
GET /sessions/{sid}/state                                         state (the snapshot, as text)
PUT /sessions/{sid}/state  state, request_id                      episode_seed, render
POST /sessions/{sid}/score actions                                scores
GET /sessions/{sid}/oracle                                        actions
DELETE /sessions/{sid}     (request_id)                           closed
=========================  =====================================  ==================================

Over WebSocket (``/ws``) the same operations are messages ``{"op": ..., "request_id",
"session_id", ...the same fields}``, ``op`` one of :data:`WS_OPS` (``state`` reads the
snapshot, ``set_state`` loads one). One connection may drive several sessions; its messages
are answered one at a time, in order, each with its ``request_id``.

>>> parse_request_id({"request_id": "a1"})
'a1'
>>> check_fields("step", {"action": "up"})
{'action': 'up'}
"""

from __future__ import annotations

import json
import re
from typing import Any

import orjson

__all__ = [
    "MAX_DEPTH",
    "MAX_LIST",
    "MAX_REQUEST_ID",
    "MUTATING_OPS",
    "WS_OPS",
    "ProtocolError",
    "check_fields",
    "dumps",
    "loads",
    "loads_object",
    "parse_request_id",
]

_ORJSON_OPTIONS = orjson.OPT_SERIALIZE_NUMPY | orjson.OPT_NON_STR_KEYS
#: Deepest JSON nesting read (orjson's own limit; the standard library is held to it too).
MAX_DEPTH = 1024
#: Longest list a request field may hold (``score``'s ``actions``): 413 beyond.
MAX_LIST = 1024


def dumps(value: Any) -> bytes:
    """``value`` as JSON bytes: orjson, or the standard library where orjson cannot.

    orjson refuses strings that are not valid UTF-8 (a lone surrogate, which an action
    fuzzer or a model's sampler can produce); the standard library writes them as
    ``\\ud800`` escapes, which :func:`loads` reads back into the same string.

    >>> loads(dumps({"action": "\\ud800"})) == {"action": "\\ud800"}
    True
    """
    try:
        return orjson.dumps(value, option=_ORJSON_OPTIONS)
    except TypeError:
        return json.dumps(value, separators=(",", ":")).encode()


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


#: A run of digits orjson may read as a float (an integer outside 64 bits loses its value):
#: such a text is parsed by the standard library, which keeps every integer exact.
_LONG_DIGITS_BYTES = re.compile(rb"\d{19}")
_LONG_DIGITS_STR = re.compile(r"\d{19}")


def _std_loads(raw: str | bytes) -> Any:
    try:
        return json.loads(raw, parse_constant=_refuse_constant)
    except RecursionError:
        raise ValueError(f"nesting deeper than {MAX_DEPTH} levels") from None
    except UnicodeError as exc:
        raise ValueError(f"not UTF-8: {exc}") from None


def loads(raw: str | bytes) -> Any:
    """Parse JSON (orjson; the standard library for what only it reads, e.g. surrogates).

    Integers keep their value at any size (orjson would read one past 64 bits as a float);
    NaN and Infinity are refused, and so is nesting deeper than :data:`MAX_DEPTH`.

    >>> loads(b'{"seed": 18446744073709551616}')["seed"] == 2**64
    True
    >>> loads(b"[" * 5000)
    Traceback (most recent call last):
    ...
    ValueError: nesting deeper than 1024 levels

    Raises:
        ValueError: ``raw`` is not JSON (one line saying why).
    """
    # One branch per type: a bytes pattern searches only bytes, a str pattern only str.
    if isinstance(raw, (bytes, bytearray)):
        long_digits = _LONG_DIGITS_BYTES.search(raw) is not None
    else:
        long_digits = _LONG_DIGITS_STR.search(raw) is not None
    if long_digits:
        return _std_loads(raw)
    try:
        return orjson.loads(raw)
    except orjson.JSONDecodeError as exc:
        message = str(exc)
        if "depth" in message:  # never recurse in the standard library on what orjson refused
            raise ValueError(f"nesting deeper than {MAX_DEPTH} levels") from None
        try:
            return _std_loads(raw)
        except ValueError:
            raise ValueError(message) from None


#: Operations a WebSocket message may name (``create`` makes a session, ``close`` ends it).
WS_OPS: tuple[str, ...] = (
    "create", "reset", "step", "state", "set_state", "score", "oracle", "close",
)
#: Operations that change a session: their replies are remembered per request id.
MUTATING_OPS: frozenset[str] = frozenset({"create", "reset", "step", "set_state", "close"})
#: Longest request id accepted (a UUID is 36 characters).
MAX_REQUEST_ID = 128


class ProtocolError(ValueError):
    """A request the server refuses before touching an env; ``status`` is the HTTP status.

    >>> ProtocolError("unknown session id 'x'", 404).status
    404
    """

    def __init__(self, message: str, status: int = 400, headers: dict[str, str] | None = None):
        super().__init__(message)
        self.status = status
        self.headers = dict(headers or {})


def loads_object(raw: str | bytes) -> dict[str, Any]:
    """A message that must be one JSON object (an HTTP body, a WebSocket frame).

    >>> loads_object(b'{"op": "reset"}')
    {'op': 'reset'}
    >>> loads_object("[1]")
    Traceback (most recent call last):
    ...
    agentgym.server.protocol.ProtocolError: the body must be a JSON object, got list
    """
    try:
        payload = loads(raw)
    except ValueError as exc:
        raise ProtocolError(f"malformed JSON: {exc}") from None
    if not isinstance(payload, dict):
        raise ProtocolError(f"the body must be a JSON object, got {type(payload).__name__}")
    return payload


def parse_request_id(body: dict[str, Any]) -> str | None:
    """The body's ``request_id`` (None when absent), or :class:`ProtocolError` if malformed.

    >>> parse_request_id({}) is None
    True
    """
    rid = body.get("request_id")
    if rid is None:
        return None
    if not isinstance(rid, str) or not rid or len(rid) > MAX_REQUEST_ID:
        raise ProtocolError(f"request_id must be a non-empty string of at most {MAX_REQUEST_ID} "
                            "characters")
    return rid


# Per op: field -> (accepted JSON types, required). Unknown fields are ignored (forward-
# compatible clients), missing optional ones default to None.
_FIELDS: dict[str, dict[str, tuple[tuple[type, ...], bool]]] = {
    "create": {"env_id": ((str,), True), "kwargs": ((dict, type(None)), False)},
    "reset": {"seed": ((object,), False), "options": ((dict, type(None)), False)},
    # An action is passed through as sent: a non-string is the env's to refuse (an invalid
    # step), exactly as in process.
    "step": {"action": ((object,), True)},
    "state": {},
    "set_state": {"state": ((str,), True)},
    "score": {"actions": ((list,), True)},
    "oracle": {},
    "close": {},
}


def check_fields(op: str, body: dict[str, Any]) -> dict[str, Any]:
    """The fields ``op`` reads from ``body``, checked for presence and JSON type.

    Raises:
        ProtocolError: a required field is missing or has the wrong type (status 400).

    >>> check_fields("set_state", {"state": 3})
    Traceback (most recent call last):
    ...
    agentgym.server.protocol.ProtocolError: set_state: field 'state' must be str, got int
    """
    if op not in _FIELDS:
        raise ProtocolError(f"unknown op {op!r}; ops: {', '.join(WS_OPS)}")
    out: dict[str, Any] = {}
    for name, (types, required) in _FIELDS[op].items():
        if name not in body:
            if required:
                raise ProtocolError(f"{op}: missing field {name!r}")
            out[name] = None
            continue
        value = body[name]
        if object not in types and not isinstance(value, types):
            wanted = " or ".join("null" if t is type(None) else t.__name__ for t in types)
            raise ProtocolError(
                f"{op}: field {name!r} must be {wanted}, got {type(value).__name__}"
            )
        if isinstance(value, (list, dict)):
            _check_lists(op, name, value)
        out[name] = value
    return out


def _check_lists(op: str, name: str, value: list[Any] | dict[str, Any]) -> None:
    """Refuse (413) a field holding a list longer than :data:`MAX_LIST`, at any depth.

    >>> _check_lists("score", "actions", [["up"] * 2000])
    Traceback (most recent call last):
    ...
    agentgym.server.protocol.ProtocolError: score: 'actions' holds a list of 2000; at most 1024
    """
    stack: list[Any] = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, list):
            if len(item) > MAX_LIST:
                raise ProtocolError(f"{op}: {name!r} holds a list of {len(item)}; at most "
                                    f"{MAX_LIST}", 413)
            stack.extend(x for x in item if isinstance(x, (list, dict)))
        elif isinstance(item, dict):
            stack.extend(x for x in item.values() if isinstance(x, (list, dict)))
