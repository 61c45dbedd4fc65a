"""What a domain declares: its policy, schema, tools, the user's facts and actions, templates.

Each domain module (:mod:`.domains.retail`, :mod:`.domains.travel`, :mod:`.domains.helpdesk`)
builds one :class:`Domain`. The engine (:mod:`.session`), the task generator (:mod:`.tasks`)
and the env read only these fields.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from agentgym.draws import Draws

from .tools import Tool

__all__ = ["Domain", "Fact", "Step", "Template", "TemplateDraw", "UserAction"]


@dataclass(frozen=True)
class Fact:
    """A private fact of the user: revealed when a message matches one keyword group (every
    word of the group present, lower-cased). ``question`` is the canonical way to ask."""

    name: str
    label: str
    question: str
    keywords: tuple[tuple[str, ...], ...]


@dataclass(frozen=True)
class UserAction:
    """Something only the user can do on their own device (dual control), asked for by a
    message matching a keyword group; ``run(session)`` changes the device's row and returns
    what the user says. ``needs`` names a read tool the agent must have run on the user's
    device first (a policy rule the ledger checks)."""

    name: str
    instruction: str
    keywords: tuple[tuple[str, ...], ...]
    run: Callable[[Any], str]
    needs: str = ""


@dataclass(frozen=True)
class Step:
    """One step of a gold plan: ``ask`` a fact, ``call`` a tool, ``confirm`` a write,
    ``instruct`` a user action, ``tell`` a result field, or ``end``."""

    kind: str
    name: str = ""
    args: tuple[tuple[str, Any], ...] = ()

    @property
    def arguments(self) -> dict[str, Any]:
        return dict(self.args)


def step(kind: str, name: str = "", **args: Any) -> Step:
    """A plan step with keyword arguments (kept in order)."""
    return Step(kind, name, tuple(args.items()))


@dataclass(frozen=True)
class TemplateDraw:
    """A drawn task: the user's facts, opening line and wanted writes, and the gold plan."""

    facts: dict[str, str]
    opening: str
    plan: tuple[Step, ...]
    wants: tuple[Step, ...]  # the writes (kind "call") the user confirms, exactly
    device: str = ""  # the user's device id (dual control), "" where there is none


@dataclass(frozen=True)
class Template:
    """A task template: ``draw(draws, conn)`` picks a target the policy allows (or None)."""

    name: str
    split: str  # "train" or "test": templates never cross
    draw: Callable[[Draws, Any], TemplateDraw | None]


@dataclass(frozen=True)
class Domain:
    """One domain: policy text, schema, seeded rows, tools, facts, user actions, templates."""

    name: str
    policy: str
    schema: tuple[str, ...]
    tables: tuple[tuple[str, str], ...]  # (table, primary key column), the hashed state
    build: Callable[[Draws], dict[str, list[tuple[Any, ...]]]]
    tools: tuple[Tool, ...]
    facts: tuple[Fact, ...]
    templates: tuple[Template, ...]
    user_actions: tuple[UserAction, ...] = ()
    extra: dict[str, Any] = field(default_factory=dict)

    def tool(self, name: str) -> Tool | None:
        return next((t for t in self.tools if t.name == name), None)
