"""What an env id is and takes, read without playing it: its class, kwargs, defaults and ranges.

The CLI and :func:`agentgym.evaluation.evaluate` make envs through :func:`make_text_env`, which
refuses, each in one clear ``ValueError`` line and before anything heavy is built,

* an id that is not registered (the message lists the agentgym ids);
* a registered id that is not an agentgym text env (``CartPole-v1``);
* a kwarg the env does not take (the message lists the ones it does).

An env that declares its config (a ``config_model``, see :mod:`agentgym.config`) is read from
that model: defaults, allowed values, descriptions and scopes. Every agentgym id does. An env
registered elsewhere that adds kwargs without declaring them is read from its entry point's
signature (``inspect.signature``; a class is read up its MRO while an ``__init__`` passes
``**kwargs`` on), with the contract's ranges from :class:`~agentgym.config.TextEnvConfig`; its
undeclared kwargs are operator-only. Either way the kwargs the id was registered with override
the defaults.

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

from agentgym.config import EnvConfig, ScopeError, Stranger, TextEnvConfig
from agentgym.core import TextEnv
from agentgym.registry import ENVIRONMENTS, EnvEntry, env_ids

__all__ = [
    "REQUIRED",
    "KwargInfo",
    "check_kwargs",
    "config_model",
    "entry_for",
    "env_creator",
    "env_kwargs",
    "family_of",
    "format_value",
    "kwargs_markdown",
    "make_text_env",
    "refuse_strangers",
    "stranger_model",
]

class _Marker:
    def __init__(self, name: str) -> None:
        self._name = name

    def __repr__(self) -> str:
        return self._name


#: The default of a kwarg that has none (shown as ``required``).
REQUIRED: Any = _Marker("REQUIRED")


@dataclass(frozen=True)
class KwargInfo:
    """One kwarg an env id takes: its default (or :data:`REQUIRED`), allowed values, meaning
    and scope (who besides the operator may set it; see :mod:`agentgym.config`)."""

    name: str
    default: Any
    allowed: str
    description: str = ""
    scope: str = "operator"


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
        if not isinstance(entry_point, str):
            raise ValueError("it registers no entry point")
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


def config_model(env_id: str) -> type[EnvConfig] | None:
    """The declared config of ``env_id``, or None when its entry point declares none (or
    takes kwargs its model does not declare, as a subclass that adds some may).

    >>> import agentgym
    >>> config_model("agentgym/Sokoban-v0").__name__
    'SokobanConfig'
    """
    creator = env_creator(env_id)
    model = getattr(creator, "config_model", None)
    if not (isinstance(model, type) and issubclass(model, EnvConfig)):
        return None
    params, _ = _signature_kwargs(creator)
    return None if set(params) - set(model.model_fields) else model


def env_kwargs(env_id: str) -> list[KwargInfo]:
    """Every kwarg ``env_id`` is known to take, with default, allowed values and scope.

    Defaults are the ones ``gym.make(env_id)`` uses (the registered kwargs override the
    model's or the signature's); ``allowed`` is ``""`` where nothing documents it.
    """
    registered = gym.registry[env_id].kwargs
    creator = env_creator(env_id)
    modes = getattr(creator, "metadata", {}).get("render_modes")
    render_modes = (" | ".join(["null", *map(str, modes)])
                    if isinstance(modes, (list, tuple)) else "")
    model = config_model(env_id)
    if model is not None:
        rows = model.table()
        # The family's own kwargs first, then the contract's (pydantic lists inherited first).
        rows.sort(key=lambda row: row.name in TextEnvConfig.CONTRACT)
        return [
            KwargInfo(row.name, registered.get(row.name, row.default),
                      render_modes if row.name == "render_mode" and render_modes else row.allowed,
                      row.description, row.scope)
            for row in rows
        ]
    params, _ = _signature_kwargs(creator)
    contract = {}
    if isinstance(creator, type) and issubclass(creator, TextEnv):
        contract = {row.name: row for row in TextEnvConfig.table()}
    params.update(registered)
    out = []
    for name, default in params.items():
        row = contract.get(name)
        allowed = row.allowed if row is not None else ""
        if name == "render_mode" and row is not None and render_modes:
            allowed = render_modes
        if not allowed and isinstance(default, bool):
            allowed = "true | false"
        out.append(KwargInfo(name, default, allowed,
                             row.description if row is not None else "",
                             row.scope if row is not None else "operator"))
    return out


def check_kwargs(env_id: str, kwargs: dict[str, Any]) -> None:
    """Raise ``ValueError`` listing the valid kwargs if ``kwargs`` names one ``env_id`` lacks.

    An entry point that takes ``**kwargs`` it does not declare is given the benefit of the
    doubt (the env itself then judges).
    """
    model = config_model(env_id)
    if model is not None:
        known = set(model.model_fields)
    else:
        params, more = _signature_kwargs(env_creator(env_id))
        if more:
            return
        known = set(params)
    unknown = sorted(set(kwargs) - known)
    if unknown:
        names = ", ".join(k.name for k in env_kwargs(env_id))
        what = "kwarg" if len(unknown) == 1 else "kwargs"
        raise ValueError(
            f"{env_id} takes no {what} {', '.join(map(repr, unknown))}; valid kwargs: {names}"
        )


def stranger_model(env_id: str) -> type[EnvConfig]:
    """The model a stranger's kwargs for ``env_id`` are judged by: the declared config, or
    for an env that declares none, the contract alone (so its other kwargs are operator-only).
    """
    return config_model(env_id) or TextEnvConfig


def refuse_strangers(env_id: str, kwargs: dict[str, Any], who: Stranger) -> None:
    """Raise :class:`~agentgym.config.ScopeError` (one line) unless ``who`` (a remote client or
    a leaderboard bundle) may set every key and value of ``kwargs`` for ``env_id``.

    Judged from the keys and the declared rules only, before the env is built, so the answer
    never depends on what exists on the host.

    >>> import agentgym
    >>> refuse_strangers("agentgym/SearchQA-v0", {"corpus": "/etc/passwd"}, "client")
    Traceback (most recent call last):
    ...
    agentgym.config.ScopeError: corpus must be one of (None, 'example') when a remote client ...
    """
    declared = config_model(env_id)  # read once: it inspects the entry point's signature
    model = declared or TextEnvConfig
    if declared is None:
        for name in kwargs:
            if name not in model.model_fields:
                raise ScopeError(f"{name} is operator-only: {env_id} declares no config for it")
    model.refuse_strangers(kwargs, who)


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


_WHO = {"public": "anyone", "client": "clients", "operator": "operator"}


def kwargs_markdown(ids: list[str] | None = None) -> str:
    """The kwargs reference of ``ids`` (default: every agentgym id) as Markdown, read from the
    declared configs; ``docs/envs.md`` is this text (a test keeps them equal).

    "who" says who besides the operator may set a kwarg: ``anyone`` (remote clients and
    leaderboard bundles), ``clients`` or ``operator`` (only in your own process or with
    ``agentgym serve ID -k``). A ceiling for strangers follows the operator's range.
    """
    lines = [
        "# Environment kwargs",
        "",
        "Generated from each env's declared config (`agentgym list --markdown`); pass a kwarg",
        "as `-k NAME=VALUE` or `gym.make(ID, NAME=VALUE)`. *who*: besides the operator, who may",
        "set it: *anyone* (a remote client of `agentgym serve` and a leaderboard bundle),",
        "*clients*, or *operator* only (in your own process, or `agentgym serve ID -k`).",
        "Where strangers have a narrower range, it follows as *strangers:*.",
        "",
    ]
    for env_id in ids or env_ids():
        model = config_model(env_id)
        strangers = {row.name: row.allowed for row in model.table("client")} if model else {}
        lines += [f"## `{env_id}`", "", "| kwarg | default | allowed | who | what |",
                  "|---|---|---|---|---|"]
        for kwarg in env_kwargs(env_id):
            allowed = kwarg.allowed
            narrow = strangers.get(kwarg.name)
            if narrow is not None and narrow != allowed and kwarg.name != "render_mode":
                allowed = f"{allowed}; strangers: {narrow}"
            cells = [f"`{kwarg.name}`", f"`{format_value(kwarg.default)}`", allowed,
                     _WHO.get(kwarg.scope, kwarg.scope), kwarg.description]
            lines.append("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
        lines.append("")
    return "\n".join(lines)


def format_value(value: Any) -> str:
    """A kwarg value as a user types it after ``-k name=`` (JSON; plain text for strings).

    >>> format_value(None), format_value(True), format_value("shortest"), format_value(-1.0)
    ('null', 'true', 'shortest', '-1.0')
    """
    if value is REQUIRED:
        return "required"
    if isinstance(value, str):
        return value
    try:
        return json.dumps(value)
    except (TypeError, ValueError):
        return repr(value)
