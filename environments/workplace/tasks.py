"""Tasks, correct by construction: drawn from a template, solved by the planner's gold plan
through the same tools, their gold end state taken from that run.

:func:`generate` builds the domain's database from a seed, draws a template of the split and
a target the template's preconditions allow (a pending order to cancel, a delayed flight to
compensate), then runs the gold plan in a :class:`~.session.Session`. A plan that fails a
tool, breaks a policy rule, or leaves a required fact untold is discarded and the next
database seed tried, so no generated task is forbidden or names an id that is not there.

Splits: ``train`` and ``test`` draw disjoint templates, and their databases come from
disjoint seed sequences (``[seed, split, domain, attempt]`` with split 0 or 1).

>>> task = load_task("travel", "test", 3)
>>> task.template, task.split, len(task.gold_hash)
('compensation', 'test', 64)
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np

from agentgym.draws import Draws

from .domain import Domain, Step, TemplateDraw
from .domains import DOMAIN_NAMES, DOMAINS
from .session import Session
from .turns import format_call, format_message
from .user import proposal

__all__ = ["END", "SPLITS", "Task", "confirm_text", "generate", "load_task", "render_step",
           "step_done", "tell_text"]

SPLITS = ("train", "test")
END = format_call("end_conversation", {})
_ATTEMPTS = 32


@dataclass(frozen=True)
class Task:
    """A generated task: the database it starts from, the user, the gold plan and end state."""

    domain: Domain
    split: str
    seed: int
    template: str
    rows: dict[str, list[tuple[Any, ...]]]
    drawn: TemplateDraw
    gold_hash: str
    #: Cells the gold plan changes: ``(table, pk column, key, column, gold value)``.
    changes: tuple[tuple[str, str, str, str, Any], ...]
    #: Result fields (and their gold values) the user must be told.
    required: tuple[tuple[str, str], ...]

    def session(self) -> Session:
        """A fresh session on the task's starting database."""
        return Session(self.domain, seed=self.seed, facts=self.drawn.facts,
                       wants=self.drawn.wants, device=self.drawn.device, rows=self.rows)


def confirm_text(domain: Domain, name: str, arguments: dict[str, Any]) -> str:
    """The canonical confirmation request for a write."""
    return proposal(domain.tool(name), arguments)


def tell_text(field: str, value: str) -> str:
    """The canonical message telling the user a result."""
    return f"For your records: the {field.replace('_', ' ')} is {value}."


def render_step(domain: Domain, session: Session, step: Step) -> str:
    """The action text of a plan step in the session's current state."""
    if step.kind == "ask":
        return format_message(next(f for f in domain.facts if f.name == step.name).question)
    if step.kind == "call":
        return format_call(step.name, step.arguments)
    if step.kind == "confirm":
        return format_message(confirm_text(domain, step.name, step.arguments))
    if step.kind == "instruct":
        return format_message(next(a for a in domain.user_actions
                                   if a.name == step.name).instruction)
    if step.kind == "tell":
        value = next((v for f, v in session.results if f == step.name), "")
        return format_message(tell_text(step.name, value))
    return END


def step_done(session: Session, step: Step) -> bool:
    """Whether the session already did what ``step`` does (the oracle skips it)."""
    key = Session.key(step.name, step.arguments)
    if step.kind == "ask":
        return step.name in session.revealed
    if step.kind == "call":
        tool = session.domain.tool(step.name)
        return key in (session.done if tool.writes else session.reads)
    if step.kind == "confirm":
        return key in session.confirmed
    if step.kind == "instruct":
        return step.name in session.performed
    if step.kind == "tell":
        values = [v for f, v in session.results if f == step.name]
        return bool(values) and session.told(values[-1])
    return False


def _run_plan(domain: Domain, session: Session, plan: tuple[Step, ...]) -> bool:
    for step in plan:
        if step.kind == "end":
            break
        if step.kind == "call":
            result, error = session.call(step.name, step.arguments)
            if error:
                return False
        else:
            session.say(render_step(domain, session, step)[len("<message>"):-len("</message>")])
        if not step_done(session, step):
            return False
    return not session.broken


def _diff(before: dict, after: dict, domain: Domain) -> tuple:
    pks = dict(domain.tables)
    changed = []
    for cell in sorted(set(before) | set(after), key=repr):
        if before.get(cell, _MISSING) != after.get(cell, _MISSING):
            table, key, column = cell
            changed.append((table, pks[table], key, column, after.get(cell)))
    return tuple(changed)


_MISSING = object()


def generate(domain_name: str, split: str, seed: int) -> Task:
    """The task of ``seed`` in ``split`` of the domain (see the module's docstring)."""
    domain = DOMAINS[domain_name]
    templates = [t for t in domain.templates if t.split == split]
    split_id, domain_id = SPLITS.index(split), DOMAIN_NAMES.index(domain_name)
    for attempt in range(_ATTEMPTS):
        draws = Draws(np.random.default_rng([seed, split_id, domain_id, attempt]))
        rows = domain.build(draws)
        template = draws.pick(templates)
        session = Session(domain, seed=seed, facts={}, wants=(), device="", rows=rows)
        drawn = template.draw(draws, session.conn)
        if drawn is None:
            session.close()
            continue
        session.facts, session.wants, session.device = drawn.facts, drawn.wants, drawn.device
        before = session.cells()
        if not _run_plan(domain, session, drawn.plan):
            session.close()
            continue
        task = Task(domain, split, seed, template.name, rows, drawn, session.state_hash(),
                    _diff(before, session.cells(), domain), tuple(session.results))
        session.close()
        return task
    raise RuntimeError(f"no valid {split} task for seed {seed} in {domain_name}")


@lru_cache(maxsize=512)
def load_task(domain_name: str, split: str, seed: int) -> Task:
    """:func:`generate`, memoised per process (tasks are immutable)."""
    return generate(domain_name, split, seed)
