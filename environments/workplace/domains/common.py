"""What the domains share: seeded names and ids, row lookups by parameterised query."""

from __future__ import annotations

from typing import Any

from agentgym.draws import Draws

from ..tools import ToolError

__all__ = ["FIRST", "LAST", "email_of", "one", "people", "unique_ids"]

FIRST = ("ada", "ben", "cara", "dev", "eli", "fay", "gus", "hana", "ivo", "jun", "kai", "lea",
         "milo", "nora", "omar", "pia", "raj", "sara", "tomas", "uma", "vera", "wes", "yara",
         "zane")
LAST = ("adams", "brook", "chen", "diaz", "evans", "fischer", "garcia", "haddad", "ito",
        "jones", "kim", "lopez", "moreau", "novak", "okafor", "patel", "quinn", "rossi",
        "silva", "tanaka")


def unique_ids(draws: Draws, prefix: str, count: int) -> list[str]:
    """``count`` distinct ids ``PREFIX-dddd`` (four digits, never starting with 0)."""
    seen: dict[int, None] = {}
    while len(seen) < count:  # rejection: cheaper than a 9,000-item pool per call
        seen.setdefault(1000 + draws.below(9000))
    return [f"{prefix}-{n}" for n in seen]


def people(draws: Draws, count: int) -> list[tuple[str, str]]:
    """``count`` (name, email) pairs with distinct emails."""
    out = []
    for k in range(count):
        first, last = draws.pick(FIRST), draws.pick(LAST)
        out.append((f"{first.title()} {last.title()}", f"{first}.{last}{k + 1}@example.com"))
    return out


def email_of(name_email: tuple[str, str]) -> str:
    return name_email[1]


def one(conn: Any, sql: str, params: tuple[Any, ...], missing: str) -> tuple[Any, ...]:
    """The one row ``sql`` selects with ``params``, or :class:`ToolError` ``missing``."""
    row = conn.execute(sql, params).fetchone()
    if row is None:
        raise ToolError(missing)
    return row
