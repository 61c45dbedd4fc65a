"""Tools as data: typed parameters, OpenAI function schemas, strict argument checks.

A :class:`Tool` names its parameters (each an id, an enum, a small int or a short text, with
the pattern its values must match), whether it writes, and the function that runs it on the
episode's database through parameterised queries. :func:`check_arguments` is the one gate
every agent argument passes: unknown or missing names, wrong types, nested values, strings
over the cap or outside the pattern (SQL text among them) are refused before any query runs.

>>> p = Param("order_id", "the order", pattern=ID_PATTERN)
>>> check_arguments((p,), {"order_id": "O-1234"})
({'order_id': 'O-1234'}, '')
>>> check_arguments((p,), {"order_id": "1; DROP TABLE orders"})[1]
"argument 'order_id' must match ^[A-Z]{1,2}-[0-9]{3,4}$, got '1; DROP TABLE orders'"
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

__all__ = [
    "EMAIL_PATTERN",
    "ID_PATTERN",
    "TEXT_PATTERN",
    "Param",
    "Tool",
    "ToolError",
    "check_arguments",
]

#: Every database id: one or two capital letters, a dash, three or four digits (``O-1234``).
ID_PATTERN = r"^[A-Z]{1,2}-[0-9]{3,4}$"
EMAIL_PATTERN = r"^[a-z0-9.]{1,60}@example\.com$"
#: Free text (an address): letters, digits, spaces and , . # - only, so no quote or ; reaches
#: even a parameterised query.
TEXT_PATTERN = r"^[A-Za-z0-9 ,.#-]{1,120}$"
_MAX_STRING = 200


class ToolError(Exception):
    """A tool refused on the database's state (unknown id, wrong status): nothing changed."""


@dataclass(frozen=True)
class Param:
    """One tool parameter: a string matching ``pattern``, or one of ``choices`` (str or int).

    ``source`` names the pool of values the agent has seen that fit it (``"order_id"``); the
    env lists calls built from those pools in ``available_actions``.
    """

    name: str
    description: str
    pattern: str = ""
    choices: tuple[Any, ...] = ()
    source: str = ""

    def schema(self) -> dict[str, Any]:
        """The JSON schema of the parameter (OpenAI function-calling form)."""
        if self.choices:
            kind = "integer" if isinstance(self.choices[0], int) else "string"
            return {"type": kind, "enum": list(self.choices), "description": self.description}
        return {"type": "string", "pattern": self.pattern, "description": self.description}

    def check(self, value: Any) -> str:
        """Why ``value`` is not an acceptable argument ("" when it is)."""
        if self.choices:
            want = int if isinstance(self.choices[0], int) else str
            if isinstance(value, bool) or not isinstance(value, want) or value not in self.choices:
                return (f"argument {self.name!r} must be one of {list(self.choices)}, "
                        f"got {_short(value)}")
            return ""
        if not isinstance(value, str):
            return f"argument {self.name!r} must be a string, got {type(value).__name__}"
        if len(value) > _MAX_STRING:
            return f"argument {self.name!r} is {len(value)} characters; the limit is {_MAX_STRING}"
        if not re.fullmatch(self.pattern, value):
            return f"argument {self.name!r} must match {self.pattern}, got {_short(value)}"
        return ""


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


Runner = Callable[[Any, dict[str, Any]], dict[str, Any]]


@dataclass(frozen=True)
class Tool:
    """A function the agent may call.

    ``run(session, args)`` reads or writes ``session.conn`` with parameterised queries and
    returns a JSON-able result, or raises :class:`ToolError`. A writing tool also names
    ``owner(session, args)`` (the account the target belongs to, for the authentication rule),
    ``rules(session, args)`` (the domain's policy rules it breaks, checked before it runs) and
    ``tells`` (result fields the user must be told).
    """

    name: str
    description: str
    params: tuple[Param, ...]
    run: Runner
    writes: bool = False
    owner: Callable[[Any, dict[str, Any]], str | None] | None = None
    rules: Callable[[Any, dict[str, Any]], list[str]] | None = None
    tells: tuple[str, ...] = ()
    verb: str = ""
    authenticates: bool = False
    extra: dict[str, Any] = field(default_factory=dict)

    def schema(self) -> dict[str, Any]:
        """The tool as an OpenAI ``tools`` entry."""
        return {
            "type": "function",
            "function": {
                "name": self.name,
                "description": self.description,
                "parameters": {
                    "type": "object",
                    "properties": {p.name: p.schema() for p in self.params},
                    "required": [p.name for p in self.params],
                    "additionalProperties": False,
                },
            },
        }


def check_arguments(params: tuple[Param, ...], arguments: Any) -> tuple[dict[str, Any], str]:
    """``(arguments, "")`` when they are exactly the parameters with acceptable values, else
    ``({}, why)``.

    >>> check_arguments((Param("n", "count", choices=(1, 2)),), {"n": 1, "x": 2})[1]
    "unexpected argument 'x'; this tool takes ['n']"
    """
    if not isinstance(arguments, dict):
        return {}, f"arguments must be a JSON object, got {type(arguments).__name__}"
    names = [p.name for p in params]
    extra = sorted(set(arguments) - set(names))
    if extra:
        return {}, f"unexpected argument {extra[0]!r}; this tool takes {names}"
    missing = [n for n in names if n not in arguments]
    if missing:
        return {}, f"missing argument {missing[0]!r}; this tool takes {names}"
    for p in params:
        error = p.check(arguments[p.name])
        if error:
            return {}, error
    return {p.name: arguments[p.name] for p in params}, ""
