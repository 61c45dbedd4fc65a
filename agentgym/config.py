"""Declared env configs: each env's kwargs as one typed model that everything else reads.

An env declares its kwargs once, as a strict pydantic model (a subclass of
:class:`TextEnvConfig`). Each field carries a type, bounds, a default, a one-line description
and a **scope**, which says who besides the env's operator may set it:

* ``"public"``: remote clients of ``agentgym serve`` and leaderboard bundles;
* ``"client"``: remote clients only;
* ``"operator"``: nobody but whoever builds the env in their own process, or starts the server
  with ``agentgym serve ID -k key=value``. Paths, sandbox backends and anything else that
  reads the host are operator-only.

A field may also narrow what strangers (clients and bundles) may choose without narrowing the
operator: ``public_max`` caps a size that costs memory or time, and ``public_choices`` lists the
only values a stranger may pick (SearchQA's bundled ``corpus="example"``, never a path).

The model is the single source for the constructor's checks and their one-line errors
(:meth:`EnvConfig.parse`), ``agentgym list`` (:meth:`EnvConfig.table`), the server's ``/schema``
and OpenEnv's schema (:meth:`EnvConfig.stranger_schema`), what the server and the leaderboard
validator accept (:meth:`EnvConfig.refuse_strangers`) and the README's env table.

>>> class GridConfig(TextEnvConfig):
...     size: int = setting(6, "grid side", ge=3, le=1000, public_max=20)
...     corpus: str | None = setting(None, "a JSONL file", scope="operator")
>>> GridConfig.parse({"size": 8}).size
8
>>> GridConfig.parse({"size": 2000})
Traceback (most recent call last):
...
ValueError: size must be in [3, 1000], got 2000
>>> GridConfig.refuse_strangers({"size": 50}, "client")
Traceback (most recent call last):
...
agentgym.config.ScopeError: size must be in [3, 20] when a remote client sets it; ...
>>> GridConfig.refuse_strangers({"corpus": "/etc/passwd"}, "bundle")
Traceback (most recent call last):
...
agentgym.config.ScopeError: corpus is operator-only: a leaderboard bundle may not set it
"""

from __future__ import annotations

import functools
import math
import types
import typing
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, Literal, Self

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

__all__ = [
    "SCOPES",
    "ConfigRow",
    "EnvConfig",
    "ScopeError",
    "Stranger",
    "TextEnvConfig",
    "allowed_text",
    "setting",
]

Scope = Literal["operator", "client", "public"]
#: Who may set a field besides the operator (see the module docstring).
SCOPES: tuple[str, ...] = typing.get_args(Scope)
#: A stranger: a remote client of ``agentgym serve`` or a submitted leaderboard bundle.
Stranger = Literal["client", "bundle"]
_WHO = {"client": "a remote client", "bundle": "a leaderboard bundle"}
_MAY_SET: dict[str, frozenset[str]] = {
    "operator": frozenset(),
    "client": frozenset({"client"}),
    "public": frozenset({"client", "bundle"}),
}


class ScopeError(ValueError):
    """A stranger asked for a kwarg (or a value) only the operator may set."""


def setting(
    default: Any,
    description: str,
    *,
    scope: Scope = "public",
    public_max: float | None = None,
    public_choices: Iterable[Any] | None = None,
    **constraints: Any,
) -> Any:
    """A config field: its default, a one-line description, who may set it, and its bounds.

    ``constraints`` are pydantic's (``ge``, ``le``, ``gt``, ``lt``, ...). ``public_max`` is the
    ceiling for strangers on a numeric field, ``public_choices`` the only values they may pick.

    >>> setting(6, "grid side", ge=3, le=10).json_schema_extra["scope"]
    'public'
    """
    if scope not in SCOPES:
        raise ValueError(f"scope must be one of {SCOPES}, got {scope!r}")
    extra: dict[str, Any] = {"scope": scope}
    if public_max is not None:
        extra["public_max"] = public_max
    if public_choices is not None:
        extra["public_choices"] = list(public_choices)
    return Field(default, description=description, json_schema_extra=extra, **constraints)


# ---------------------------------------------------------------------- reading a field
@dataclass(frozen=True)
class _Kind:
    """What a field's annotation allows, reduced to what the messages and docs need."""

    base: str  # "bool", "int", "float", "str", "choice" or "other"
    optional: bool
    choices: tuple[Any, ...] = ()


@functools.cache
def _kind(annotation: Any) -> _Kind:
    args = typing.get_args(annotation)
    optional = False
    if typing.get_origin(annotation) in (typing.Union, types.UnionType):
        rest = tuple(a for a in args if a is not type(None))
        optional = len(rest) < len(args)
        if len(rest) == 1:
            inner = _kind(rest[0])
            return _Kind(inner.base, optional or inner.optional, inner.choices)
        if all(typing.get_origin(a) is Literal for a in rest):
            choices = tuple(v for a in rest for v in typing.get_args(a))
            return _Kind("choice", optional, choices)
        return _Kind("other", optional)
    if typing.get_origin(annotation) is Literal:
        values = tuple(v for v in args if v is not None)
        return _Kind("choice", None in args, values)
    for base in (bool, int, float, str):
        if annotation is base:
            return _Kind(base.__name__, False)
    return _Kind("other", False)


def _bounds(field: Any) -> dict[str, float]:
    out: dict[str, float] = {}
    for meta in field.metadata:
        for name in ("ge", "gt", "le", "lt"):
            value = getattr(meta, name, None)
            if value is not None:
                out[name] = value
    return out


def _extra(field: Any) -> dict[str, Any]:
    extra = field.json_schema_extra
    return extra if isinstance(extra, dict) else {}


def _number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else str(value)


def _interval(bounds: Mapping[str, float]) -> str:
    """``[0, 1]``, ``(0, 1]`` or ``>= 0`` for the bounds of a field."""
    low_bracket, low = ("[", bounds["ge"]) if "ge" in bounds else ("(", bounds.get("gt"))
    high_bracket, high = ("]", bounds["le"]) if "le" in bounds else (")", bounds.get("lt"))
    if low is not None and high is not None:
        return f"{low_bracket}{_number(low)}, {_number(high)}{high_bracket}"
    if low is not None:
        return f"{'>=' if low_bracket == '[' else '>'} {_number(low)}"
    if high is not None:
        return f"{'<=' if high_bracket == ']' else '<'} {_number(high)}"
    return ""


def _plain(value: Any) -> str:
    """A value as a user types it after ``-k name=`` (``null``, ``true``, bare strings)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def allowed_text(field: Any) -> str:
    """A field's allowed values as ``agentgym list`` shows them (``5-10``, ``a | b``).

    >>> allowed_text(TextEnvConfig.model_fields["max_invalid"])
    '1-100000'
    >>> allowed_text(TextEnvConfig.model_fields["render_mode"])
    'null | text'
    """
    if field.annotation is type(None):  # a kwarg kept for its signature that may only be None
        return "null"
    kind = _kind(field.annotation)
    bounds = _bounds(field)
    if kind.base == "bool":
        text = "true | false"
    elif kind.base == "choice":
        text = " | ".join(_plain(v) for v in kind.choices)
    elif kind.base == "int":
        if "ge" in bounds and "le" in bounds:
            text = f"{_number(bounds['ge'])}-{_number(bounds['le'])}"
        else:
            text = f"an integer {_interval(bounds)}".rstrip()
    elif kind.base == "float":
        interval = _interval(bounds)
        text = f"a number in {interval}" if "," in interval else f"a number {interval}".rstrip()
    elif kind.base == "str":
        text = "text"
    else:
        text = "see the description"
    return f"null | {text}" if kind.optional else text


def _must_be(field: Any) -> str:
    """What a field must be, for an error message: ``an integer in [5, 10]``."""
    kind = _kind(field.annotation)
    bounds = _bounds(field)
    interval = _interval(bounds)
    if kind.base == "bool":
        text = "True or False"
    elif kind.base == "choice":
        text = f"one of {kind.choices!r}"
    elif kind.base == "int":
        text = f"an integer in {interval}" if "," in interval else f"an integer {interval}"
    elif kind.base == "float":
        where = f"in {interval}" if "," in interval else interval
        text = f"a finite number {where}"
    elif kind.base == "str":
        text = "a string"
    else:
        text = f"of type {field.annotation}"
    text = text.rstrip()
    return f"None or {text}" if kind.optional else text


def _native(value: Any) -> Any:
    """numpy scalars as the Python values they hold (a seed sweep passes ``np.int64``)."""
    return value.item() if isinstance(value, np.generic) else value


# ---------------------------------------------------------------------- the models
@dataclass(frozen=True)
class ConfigRow:
    """One field as ``agentgym list`` and the README's table show it."""

    name: str
    default: Any
    allowed: str
    description: str
    scope: str
    public_max: float | None = None
    public_choices: tuple[Any, ...] | None = None


class EnvConfig(BaseModel):
    """Base of every declared config: strict, frozen, no unknown keys, one-line errors.

    ``replay_overrides`` are the values the leaderboard validator forces whatever a bundle or
    a split says (Terminal-v0's hardened ``backend="docker"``).
    """

    model_config = ConfigDict(
        strict=True, extra="forbid", frozen=True, allow_inf_nan=False, validate_default=False
    )

    replay_overrides: ClassVar[dict[str, Any]] = {}
    #: The largest magnitude of any number field: reward constants of 1e308 summed to inf,
    #: which no result file or metric can hold.
    max_magnitude: ClassVar[float] = 1e6

    @model_validator(mode="before")
    @classmethod
    def _exact_values(cls, values: Any) -> Any:
        if not isinstance(values, dict):
            return values
        for name, value in values.items():
            field = cls.model_fields.get(name)
            if field is None or value is None:
                continue
            kind = _kind(field.annotation)
            # Strict mode still lets a Literal take a value that only equals a choice (9.0
            # for 9, 1 for True): a choice must be one of the values, of its type.
            if kind.base == "choice" and not any(
                value == c and type(value) is type(c) for c in kind.choices
            ):
                raise ValueError(f"{name} must be {_must_be(field)}, got {value!r}")
            if (kind.base == "float" and isinstance(value, (int, float))
                    and not isinstance(value, bool) and math.isfinite(value)
                    and abs(value) > cls.max_magnitude):  # inf and nan: "a finite number"
                raise ValueError(f"{name} must be within +-{cls.max_magnitude:g}, got {value!r}")
        return values

    @classmethod
    def parse(cls, kwargs: Mapping[str, Any], *, owner: str | None = None) -> Self:
        """Validate ``kwargs`` (missing keys take their defaults) or raise a one-line ValueError.

        The message names the first bad key and what it must be, as ``check_range`` always
        did (``size must be in [5, 10], got 11``); an unknown key lists the valid ones.
        """
        values = {k: _native(v) for k, v in kwargs.items()}
        try:
            return cls(**values)
        except ValidationError as exc:
            raise ValueError(cls._message(exc, values, owner)) from None

    @classmethod
    def of(cls, namespace: Mapping[str, Any], *, owner: str | None = None) -> Self:
        """:meth:`parse` of the model's fields taken from ``namespace`` (a constructor's
        ``locals()``), so a constructor with explicit parameters validates them in one call."""
        return cls.parse(cls.pick(namespace), owner=owner)

    @classmethod
    def pick(cls, namespace: Mapping[str, Any]) -> dict[str, Any]:
        """The entries of ``namespace`` that name a field, unchecked (for a preset to fill)."""
        return {k: namespace[k] for k in cls.model_fields if k in namespace}

    @classmethod
    def _message(cls, exc: ValidationError, values: Mapping[str, Any], owner: str | None) -> str:
        error = exc.errors(include_url=False)[0]
        loc = error.get("loc") or ()
        name = str(loc[0]) if loc else ""
        if error["type"] == "extra_forbidden":
            unknown = sorted(set(values) - set(cls.model_fields))
            what = "kwarg" if len(unknown) == 1 else "kwargs"
            return (f"{owner or cls.__name__} takes no {what} {', '.join(map(repr, unknown))}; "
                    f"valid kwargs: {', '.join(cls.model_fields)}")
        if error["type"] == "value_error":
            # A model or field validator's own message, without pydantic's prefix.
            assert "ctx" in error  # pydantic gives every value_error one (typed NotRequired)
            return str(error["ctx"]["error"])
        field = cls.model_fields.get(name)
        if field is None:
            return f"{name or 'config'}: {error['msg']}"
        value = values.get(name)
        kind = _kind(field.annotation)
        in_type = (kind.base in ("int", "float") and isinstance(value, (int, float))
                   and not isinstance(value, bool))
        if in_type and error["type"] in ("greater_than", "greater_than_equal", "less_than",
                                          "less_than_equal"):
            interval = _interval(_bounds(field))
            where = f"in {interval}" if "," in interval else interval
            return f"{name} must be {where}, got {value}"
        return f"{name} must be {_must_be(field)}, got {value!r}"

    @classmethod
    def takes_text(cls, name: str) -> bool:
        """Whether ``name`` holds text (a string, or a choice among strings), so that a value
        typed after ``-k name=`` is that text as is: ``task=001`` stays ``"001"``.

        >>> TextEnvConfig.takes_text("reward_mode"), TextEnvConfig.takes_text("max_steps")
        (True, False)
        """
        field = cls.model_fields.get(name)
        if field is None:
            return False
        kind = _kind(field.annotation)
        return kind.base == "str" or (
            kind.base == "choice" and all(isinstance(c, str) for c in kind.choices))

    @classmethod
    def defaults(cls) -> dict[str, Any]:
        """Every field's default, by name."""
        return {name: field.default for name, field in cls.model_fields.items()}

    @classmethod
    def table(cls, who: Stranger | None = None) -> list[ConfigRow]:
        """Every field as ``agentgym list`` shows it, in declaration order; with ``who``, only
        the fields that stranger may set, their allowed values narrowed to its ceilings."""
        out = []
        for name, field in cls.model_fields.items():
            extra = _extra(field)
            scope = extra.get("scope", "public")
            if who is not None and who not in _MAY_SET[scope]:
                continue
            choices = extra.get("public_choices")
            ceiling = extra.get("public_max")
            allowed = allowed_text(field)
            if who is not None and choices is not None:
                allowed = " | ".join(_plain(c) for c in choices)
            elif who is not None and ceiling is not None:
                bounds = _bounds(field)
                low = bounds.get("ge", bounds.get("gt", 0))
                allowed = f"{_number(low)}-{_number(ceiling)}"
            out.append(ConfigRow(
                name, field.default, allowed, field.description or "", scope, ceiling,
                tuple(choices) if choices is not None else None,
            ))
        return out

    @classmethod
    def may_set(cls, who: Stranger) -> list[str]:
        """The fields ``who`` may set."""
        return [name for name, field in cls.model_fields.items()
                if who in _MAY_SET[_extra(field).get("scope", "public")]]

    @classmethod
    def refuse_strangers(cls, kwargs: Mapping[str, Any], who: Stranger) -> None:
        """Raise :class:`ScopeError` unless a stranger may set every key and value of ``kwargs``.

        Checked before anything reads a value, so a refusal reads the same whether or not a
        path exists. Keys the model lacks are left to :meth:`parse` (its list of valid kwargs).
        """
        for name, value in kwargs.items():
            field = cls.model_fields.get(name)
            if field is None:
                continue
            extra = _extra(field)
            if who not in _MAY_SET[extra.get("scope", "public")]:
                raise ScopeError(f"{name} is operator-only: {_WHO[who]} may not set it")
            value = _native(value)
            choices = extra.get("public_choices")
            if choices is not None and not any(
                value == c and type(value) is type(c) for c in choices
            ):
                raise ScopeError(
                    f"{name} must be one of {tuple(choices)!r} when {_WHO[who]} sets it; "
                    "other values are operator-only"
                )
            ceiling = extra.get("public_max")
            if (ceiling is not None and isinstance(value, (int, float))
                    and not isinstance(value, bool) and value > ceiling):
                bounds = dict(_bounds(field))
                top = bounds.pop("le", None)
                bounds.pop("lt", None)
                bounds["le"] = ceiling
                raise ScopeError(
                    f"{name} must be in {_interval(bounds)} when {_WHO[who]} sets it; the "
                    f"operator may set up to {_number(top) if top is not None else 'any value'}"
                    f" (agentgym serve ID -k {name}=...)"
                )

    @classmethod
    def stranger_schema(cls, who: Stranger) -> dict[str, Any]:
        """The JSON schema of what ``who`` may set, with the strangers' ceilings and choices.

        Fields only the operator may set are left out; each property keeps its description
        and default, and says its scope.
        """
        return _stranger_schema(cls, who)


@functools.cache
def _stranger_schema(cls: type[EnvConfig], who: Stranger) -> dict[str, Any]:
    full = cls.model_json_schema()
    allowed = set(cls.may_set(who))
    properties = {}
    for name, prop in full.get("properties", {}).items():
        if name not in allowed:
            continue
        prop = dict(prop)
        ceiling = prop.pop("public_max", None)
        if ceiling is not None:
            _cap(prop, ceiling)
        choices = prop.pop("public_choices", None)
        if choices is not None:
            prop = {k: v for k, v in prop.items() if k not in ("anyOf", "type", "enum")}
            prop["enum"] = choices
        properties[name] = prop
    schema = {k: v for k, v in full.items() if k not in ("properties", "required")}
    schema["properties"] = properties
    schema["additionalProperties"] = False
    return schema


def _cap(prop: dict[str, Any], ceiling: float) -> None:
    """Lower a property's ``maximum`` (also inside ``anyOf``) to ``ceiling``."""
    if "anyOf" in prop:
        for option in prop["anyOf"]:
            if option.get("type") in ("integer", "number"):
                option["maximum"] = min(option.get("maximum", ceiling), ceiling)
    elif prop.get("type") in ("integer", "number"):
        prop["maximum"] = min(prop.get("maximum", ceiling), ceiling)


class TextEnvConfig(EnvConfig):
    """The kwargs every :class:`~agentgym.core.TextEnv` takes; families subclass it and
    redeclare a field to change its default or narrow its bounds.

    >>> TextEnvConfig.parse({"max_invalid": 0})
    Traceback (most recent call last):
    ...
    ValueError: max_invalid must be in [1, 100000], got 0
    """

    reward_mode: Literal["both", "process", "outcome"] = setting(
        "both", "which rewards the step returns: their sum, the process or the outcome alone")
    render_mode: str | None = setting(
        None, "null or one of the env's metadata render modes (ansi)")
    score_process: bool = setting(
        True, "false skips per-step scoring where the dynamics allow (process reward 0)")
    max_steps: int = setting(100, "step budget; running out truncates", ge=1, le=100_000)
    invalid_penalty: float = setting(
        -1.0, "process reward of an invalid action", le=0)
    max_invalid: int = setting(
        3, "invalid actions that end the episode, truncated", ge=1, le=100_000)

    #: The contract's fields, passed on to ``TextEnv.__init__``.
    CONTRACT: ClassVar[tuple[str, ...]] = (
        "reward_mode", "render_mode", "score_process", "max_steps", "invalid_penalty",
        "max_invalid",
    )

    def contract(self) -> dict[str, Any]:
        """The contract's kwargs, for ``super().__init__(**config.contract())``."""
        return {name: getattr(self, name) for name in self.CONTRACT}
