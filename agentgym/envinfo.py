"""What an env id is and takes, read without playing it: its class, kwargs, defaults and ranges.

The CLI and :func:`agentgym.evaluation.evaluate` make envs through :func:`make_text_env`, which
refuses, each in one clear ``ValueError`` line and before anything heavy is built,

* an id that is not registered (the message lists the agentgym ids);
* a registered id that is not an agentgym text env (``CartPole-v1``);
* a kwarg the env does not take (the message lists the ones it does).

Defaults come from the entry point's signature (``inspect.signature``; a class is read up its
MRO while an ``__init__`` passes ``**kwargs`` on), overridden by the kwargs the id was registered
with. Ranges come from :data:`CONTRACT_KWARGS_DOC` (the kwargs every :class:`~agentgym.core.TextEnv`
takes) and the registry entry's ``kwargs_doc``.

>>> import agentgym
>>> from agentgym.envinfo import env_kwargs
>>> {k.name: k.default for k in env_kwargs("agentgym/TicTacToe-v0")}["reward_mode"]
'both'
"""

from __future__ import annotations

import inspect
import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import gymnasium as gym
from gymnasium.envs.registration import load_env_creator

from agentgym.core import TextEnv
from agentgym.registry import ENVIRONMENTS, EnvEntry, env_ids

__all__ = [
    "CONTRACT_KWARGS_DOC",
    "REQUIRED",
    "UNKNOWN",
    "KwargInfo",
    "check_kwargs",
    "entry_for",
    "env_creator",
    "env_kwargs",
    "family_of",
    "format_value",
    "make_text_env",
]

#: The allowed values of the kwargs every TextEnv takes (a family's ``kwargs_doc`` may narrow
#: them). Written as a user types them after ``-k name=``.
CONTRACT_KWARGS_DOC: dict[str, str] = {
    "reward_mode": "both | process | outcome",
    "render_mode": "null | ansi",
    "score_process": "true | false",
    "max_steps": "1-100000",
    "invalid_penalty": "a number <= 0",
    "max_invalid": "1-100000",
}


class _Marker:
    def __init__(self, name: str) -> None:
        self._name = name

    def __repr__(self) -> str:
        return self._name


#: The default of a kwarg that has none (shown as ``required``).
REQUIRED: Any = _Marker("REQUIRED")
#: The default of a documented kwarg that a factory passes on through ``**kwargs`` (shown as
#: ``?``): the signature cannot tell it.
UNKNOWN: Any = _Marker("UNKNOWN")


@dataclass(frozen=True)
class KwargInfo:
    """One kwarg an env id takes: its default (or :data:`REQUIRED`) and its documented range."""

    name: str
    default: Any
    allowed: str


def entry_for(env_id: str) -> EnvEntry | None:
    """The registry entry of an agentgym id, or None for an id registered elsewhere."""
    return next((e for e in ENVIRONMENTS if e.id == env_id), None)


def family_of(env_id: str) -> str | None:
    """The env family (``"games"``, ``"webshop"``) of an agentgym id, else None.

    >>> family_of("agentgym/Sudoku-v0"), family_of("CartPole-v1")
    ('games', None)
    """
    entry = entry_for(env_id)
    return entry.family if entry is not None else None


def _known_ids() -> str:
    return ", ".join(env_ids())


def env_creator(env_id: str) -> Callable[..., Any]:
    """The class or factory ``gym.make(env_id)`` calls, loaded without calling it.

    Raises:
        ValueError: the id is not registered with Gymnasium.
    """
    if not isinstance(env_id, str) or env_id not in gym.registry:
        raise ValueError(f"unknown env id {env_id!r}; agentgym ids: {_known_ids()}")
    entry_point = gym.registry[env_id].entry_point
    try:
        if callable(entry_point):
            # agentgym's ids register an EnvCreator (it adds server_url=...); its __wrapped__
            # is the entry point itself.
            return inspect.unwrap(entry_point)
        return load_env_creator(entry_point)
    except (ImportError, AttributeError, ValueError) as exc:
        raise ValueError(f"{env_id}: cannot load its entry point {entry_point!r}: {exc}") from exc


def _signature_kwargs(creator: Callable[..., Any]) -> tuple[dict[str, Any], bool]:
    """Keyword parameters (name -> default) of ``creator`` and whether it takes more (**kwargs).

    A class is read up its MRO while each ``__init__`` forwards ``**kwargs`` to the next one,
    so ``CounterEnv(goal=3, **kwargs)`` over ``TextEnv(*, reward_mode=..., ...)`` lists both.
    """
    if isinstance(creator, type):
        targets = [c.__init__ for c in creator.__mro__ if "__init__" in vars(c) and c is not object]
    else:
        targets = [creator]
    params: dict[str, Any] = {}
    for target in targets:
        try:
            signature = inspect.signature(target)
        except (TypeError, ValueError):
            return params, True
        more = False
        for name, p in signature.parameters.items():
            if p.kind is p.VAR_KEYWORD:
                more = True
            elif p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY) and name != "self":
                params.setdefault(name, REQUIRED if p.default is p.empty else p.default)
        if not more:
            return params, False
    return params, True


def env_kwargs(env_id: str) -> list[KwargInfo]:
    """Every kwarg ``env_id`` is known to take, in signature order, with default and range.

    Defaults are the ones ``gym.make(env_id)`` uses (the registered kwargs override the
    signature's). ``allowed`` is the documented range, ``""`` where none is documented.
    """
    creator = env_creator(env_id)
    params, _ = _signature_kwargs(creator)
    entry = entry_for(env_id)
    docs: dict[str, str] = {}
    if entry is not None or (isinstance(creator, type) and issubclass(creator, TextEnv)):
        docs.update(CONTRACT_KWARGS_DOC)
        modes = getattr(creator, "metadata", {}).get("render_modes")
        if isinstance(modes, (list, tuple)):
            docs["render_mode"] = " | ".join(["null", *map(str, modes)])
    docs.update(entry.kwargs_doc if entry is not None else {})
    for name in entry.kwargs_doc if entry is not None else ():
        params.setdefault(name, UNKNOWN)
    params.update(gym.registry[env_id].kwargs)
    out = []
    for name, default in params.items():
        allowed = docs.get(name, "")
        if not allowed and isinstance(default, bool):
            allowed = "true | false"
        out.append(KwargInfo(name, default, allowed))
    return out


def check_kwargs(env_id: str, kwargs: dict[str, Any]) -> None:
    """Raise ``ValueError`` listing the valid kwargs if ``kwargs`` names one ``env_id`` lacks.

    An entry point that takes ``**kwargs`` it does not document is given the benefit of the
    doubt (the env itself then judges).
    """
    creator = env_creator(env_id)
    params, more = _signature_kwargs(creator)
    entry = entry_for(env_id)
    known = set(params) | set(entry.kwargs_doc if entry is not None else ())
    if more:
        return
    unknown = sorted(set(kwargs) - known)
    if unknown:
        names = ", ".join(k.name for k in env_kwargs(env_id))
        what = "kwarg" if len(unknown) == 1 else "kwargs"
        raise ValueError(
            f"{env_id} takes no {what} {', '.join(map(repr, unknown))}; valid kwargs: {names}"
        )


def make_text_env(env_id: str, kwargs: dict[str, Any] | None = None) -> gym.Env:
    """``gym.make(env_id, **kwargs)`` for agentgym text envs only, with one-line errors.

    Raises:
        ValueError: unknown id, an id that is not an agentgym text env, or an unknown kwarg.

    >>> import agentgym
    >>> make_text_env("CartPole-v1")
    Traceback (most recent call last):
    ...
    ValueError: CartPole-v1 is a Gymnasium env but not an agentgym text env; agentgym ids: ...
    """
    kwargs = dict(kwargs or {})
    creator = env_creator(env_id)
    not_text = (
        f"{env_id} is a Gymnasium env but not an agentgym text env; agentgym ids: {_known_ids()}"
    )
    # A class is judged without building it; a factory has to be called to know.
    if isinstance(creator, type) and not issubclass(creator, TextEnv):
        raise ValueError(not_text)
    check_kwargs(env_id, kwargs)
    env = gym.make(env_id, **kwargs)
    if not isinstance(env.unwrapped, TextEnv):
        env.close()
        raise ValueError(not_text)
    return env


def format_value(value: Any) -> str:
    """A kwarg value as a user types it after ``-k name=`` (JSON; plain text for strings).

    >>> format_value(None), format_value(True), format_value("shortest"), format_value(-1.0)
    ('null', 'true', 'shortest', '-1.0')
    """
    if value is REQUIRED:
        return "required"
    if value is UNKNOWN:
        return "?"
    if isinstance(value, str):
        return value
    try:
        return json.dumps(value)
    except (TypeError, ValueError):
        return repr(value)
