"""The JSON types of a results file (``agentgym.eval/2``), checked before anything is replayed.

:func:`check_results` walks a parsed results file and raises :class:`~.errors.Rejected` at the
first field that is missing or of the wrong JSON type, naming the file and the field path
(``results/000.json: episodes[3].trace[0].reward: expected a number, got "1"``). Booleans are
not numbers here (JSON ``true`` is not ``1``), integers are numbers, and ``null`` is only
accepted where the schema allows it. What the values *mean* is :mod:`.validate`'s business.

>>> try:
...     check_results({"schema": "agentgym.eval/1"}, "r.json")
... except Rejected as exc:
...     print(exc)
r.json: schema: expected 'agentgym.eval/2', got 'agentgym.eval/1'
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any

from .errors import Rejected

__all__ = ["RESULTS_SCHEMA", "check_results", "prompt_kind", "type_name"]

RESULTS_SCHEMA = "agentgym.eval/2"

Check = Callable[[Any], bool]


def _int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _num(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _str(v: Any) -> bool:
    return isinstance(v, str)


def _bool(v: Any) -> bool:
    return isinstance(v, bool)


def _dict(v: Any) -> bool:
    return isinstance(v, dict)


def _list(v: Any) -> bool:
    return isinstance(v, list)


def _opt(check: Check) -> Check:
    def optional(v: Any) -> bool:
        return v is None or check(v)

    optional.__name__ = f"{check.__name__}_or_null"
    return optional


_EXPECTED = {
    "_int": "an integer", "_num": "a number", "_str": "a string", "_bool": "true or false",
    "_dict": "an object", "_list": "an array", "_int_or_null": "an integer or null",
    "_str_or_null": "a string or null",
}

#: Top-level fields (``episodes`` and ``summary`` are walked further below).
TOP: dict[str, Check] = {
    "schema": _str, "env_id": _str, "env_kwargs": _dict, "split": _opt(_str),
    "task_seeds": _list, "task_set_hash": _str, "trials": _int, "verifier": _dict,
    "agent": _dict, "episodes": _list, "summary": _dict, "versions": _dict,
}
EPISODE: dict[str, Check] = {
    "episode": _int, "task": _int, "trial": _int, "seed": _int, "agent_seed": _int,
    "success": _bool, "episode_return": _num, "process_return": _num, "outcome_return": _num,
    "steps": _int, "invalid_actions": _int, "terminated": _bool, "truncated": _bool,
    "failed": _bool, "failure": _str, "prompt_tokens": _int, "completion_tokens": _int,
    "initial_observation_sha": _str, "trace": _list,
}
STEP: dict[str, Check] = {
    "action": _str, "raw_text": _opt(_str), "reward": _num, "reward_components": _dict,
    "valid_action": _bool, "action_error": _str, "terminated": _bool, "truncated": _bool,
    "success": _bool, "observation_sha": _str, "prompt_tokens": _int, "completion_tokens": _int,
}
#: Timings are not replayable and not checked, but when present they must be numbers.
OPTIONAL_EPISODE: dict[str, Check] = {"wall_s": _num, "extras": _dict}
OPTIONAL_STEP: dict[str, Check] = {"agent_s": _num, "env_s": _num}


def prompt_kind(agent: dict[str, Any]) -> str:
    """``"standard"`` or ``"custom"``: the agent's system prompt (scripted agents: standard).

    >>> prompt_kind({"name": "oracle"}), prompt_kind({"name": "llm", "prompt": "custom"})
    ('standard', 'custom')
    """
    return str(agent.get("prompt", "standard"))


def type_name(value: Any) -> str:
    """How a value reads in a message: JSON text, cut short.

    >>> type_name("1"), type_name(None), type_name(True)
    ('"1"', 'null', 'true')
    """
    text = json.dumps(value, default=str)
    return text if len(text) <= 40 else text[:37] + "..."


def _fields(obj: Any, spec: Mapping[str, Check], optional: Mapping[str, Check],
            where: str, path: str) -> None:
    if not isinstance(obj, dict):
        raise Rejected(f"{where}: {path or 'file'}: expected an object, got {type_name(obj)}")
    prefix = f"{path}." if path else ""
    for name, check in spec.items():
        if name not in obj:
            raise Rejected(f"{where}: {prefix}{name}: missing")
        if not check(obj[name]):
            raise Rejected(f"{where}: {prefix}{name}: expected {_EXPECTED[check.__name__]}, "
                           f"got {type_name(obj[name])}")
    for name, check in optional.items():
        if name in obj and not check(obj[name]):
            raise Rejected(f"{where}: {prefix}{name}: expected {_EXPECTED[check.__name__]}, "
                           f"got {type_name(obj[name])}")


def _numbers(obj: dict[str, Any], where: str, path: str) -> None:
    for key, value in obj.items():
        if not _num(value):
            raise Rejected(f"{where}: {path}.{key}: expected a number, got {type_name(value)}")


_TYPES = {_int: (int,), _num: (int, float), _str: (str,), _bool: (bool,), _dict: (dict,),
          _list: (list,)}


def _table(spec: Mapping[str, Check]) -> tuple[tuple[str, tuple[type, ...], bool], ...]:
    # (name, the exact types allowed, null allowed): json.loads makes exact types only, so
    # ``type(v) in types`` is the check above (bool is no int here: its type is bool); a
    # subclass (not from JSON) falls back to the slow path, which accepts it.
    out = []
    for name, check in spec.items():
        base = {f.__name__ + "_or_null": f for f in _TYPES}.get(check.__name__, check)
        out.append((name, _TYPES[base], base is not check))
    return tuple(out)


_STEP_TABLE, _OPTIONAL_STEP_TABLE = _table(STEP), _table(OPTIONAL_STEP)
_MISSING = object()


def _step_ok(step: Any) -> bool:
    """The fast path of ``_fields(step, STEP, OPTIONAL_STEP, ...)`` and the reward components'
    check: True when both pass (a trace has most of a file's values; :func:`_fields` then
    names the field only where this says no)."""
    if type(step) is not dict:
        return False
    get = step.get
    for name, types, nullable in _STEP_TABLE:
        value = get(name, _MISSING)
        if type(value) not in types and not (nullable and value is None):
            return False
    for name, types, _ in _OPTIONAL_STEP_TABLE:
        value = get(name, _MISSING)
        if value is not _MISSING and type(value) not in types:
            return False
    return all(type(v) in (int, float) for v in step["reward_components"].values())


def check_results(data: Any, where: str) -> None:
    """Raise :class:`Rejected` unless ``data`` has every field of the schema, each of its type.

    ``where`` names the file in the message.
    """
    _fields(data, {"schema": _str}, {}, where, "")
    if data["schema"] != RESULTS_SCHEMA:
        raise Rejected(f"{where}: schema: expected {RESULTS_SCHEMA!r}, got {data['schema']!r}")
    _fields(data, TOP, {}, where, "")
    for i, seed in enumerate(data["task_seeds"]):
        if not _int(seed):
            raise Rejected(f"{where}: task_seeds[{i}]: expected an integer, got {type_name(seed)}")
    _fields(data["verifier"], {"name": _str, "version": _str}, {}, where, "verifier")
    _fields(data["agent"], {"name": _str}, {"prompt": _str}, where, "agent")
    if data["agent"].get("prompt", "standard") not in ("standard", "custom"):
        raise Rejected(f"{where}: agent.prompt: expected \"standard\" or \"custom\", "
                       f"got {type_name(data['agent'].get('prompt'))}")
    _fields(data["versions"], {"agentgym": _str}, {}, where, "versions")
    for e, episode in enumerate(data["episodes"]):
        epath = f"episodes[{e}]"
        _fields(episode, EPISODE, OPTIONAL_EPISODE, where, epath)
        for s, step in enumerate(episode["trace"]):
            if _step_ok(step):
                continue
            spath = f"{epath}.trace[{s}]"
            _fields(step, STEP, OPTIONAL_STEP, where, spath)
            _numbers(step["reward_components"], where, f"{spath}.reward_components")
