"""One conversation's engine: the SQLite database, the tools, the scripted user, the ledger.

:class:`Session` is what both the env and the task generator's oracle run drive, so the
gold end state comes from the same code an agent's calls go through. Every write is entered
in :attr:`Session.ledger` with the policy rules it broke, judged from the database and the
recorded confirmations at the moment of the call, never from the conversation's text.

>>> from .domains import DOMAINS
>>> from .tasks import load_task
>>> task = load_task("retail", "train", 0)
>>> s = task.session()
>>> s.call("find_user", {"email": "nobody@example.com"})[1]
'no customer has that email'
"""

from __future__ import annotations

import copy
import hashlib
import json
import sqlite3
from typing import Any

from .domain import Domain, Step
from .tools import ToolError
from .user import names_only, respond

__all__ = ["Session"]


class Session:
    """The database, user and ledger of one episode (built from a task's rows)."""

    def __init__(self, domain: Domain, *, seed: int, facts: dict[str, str],
                 wants: tuple[Step, ...], device: str,
                 rows: dict[str, list[tuple[Any, ...]]]) -> None:
        self.domain, self.seed, self.facts, self.wants, self.device = (domain, seed, facts,
                                                                        wants, device)
        self.conn = sqlite3.connect(":memory:", isolation_level=None, check_same_thread=False)
        for statement in domain.schema:
            self.conn.execute(statement)
        for table, _ in domain.tables:
            if rows.get(table):
                marks = ", ".join("?" * len(rows[table][0]))
                self.conn.executemany(f"INSERT INTO {table} VALUES ({marks})", rows[table])
        self.turn = 0
        self.revealed: list[str] = []
        self.confirmed: list[str] = []
        self.performed: list[str] = []
        self.reads: list[str] = []
        self.done: list[str] = []  # keys of writes that changed the database
        self.messages: list[str] = []
        self.results: list[tuple[str, str]] = []  # (field, value) the user must be told
        self.known: dict[str, list[str]] = {}
        self.ledger: list[dict[str, Any]] = []
        self.auth: str | None = None
        # Every action taken, as the env replays it: ["message", text], ["call", name,
        # arguments] or ["invalid", why]. A snapshot is the task plus this list only.
        self.moves: list[list[Any]] = []

    @staticmethod
    def key(name: str, arguments: dict[str, Any]) -> str:
        """The canonical key of a call (a write's identity for confirmations)."""
        return json.dumps([name, arguments], sort_keys=True)

    # ------------------------------------------------------------------ acting
    def call(self, name: str, arguments: dict[str, Any]) -> tuple[dict[str, Any] | None, str]:
        """Run a tool with checked arguments: ``(result, "")`` or ``(None, why it refused)``."""
        tool = self.domain.tool(name)
        key = self.key(name, arguments)
        broken: list[str] = []
        if tool.writes:
            if key not in self.confirmed:
                broken.append("changed without the user's confirmation")
            owner = tool.owner(self, arguments) if tool.owner else None
            if owner is not None and owner != self.auth:
                broken.append("acted on an account that was not authenticated")
            if tool.rules and owner is not None:
                broken += tool.rules(self, arguments)
        self.conn.execute("SAVEPOINT call")
        try:
            result = tool.run(self, arguments)
        except (ToolError, sqlite3.Error) as exc:
            self.conn.execute("ROLLBACK TO call")
            self.conn.execute("RELEASE call")
            if tool.writes:
                self.ledger.append({"actor": "agent", "tool": name, "arguments": arguments,
                                    "ok": False, "broken": []})
            return None, str(exc) or "refused"
        self.conn.execute("RELEASE call")
        if tool.writes:
            self.ledger.append({"actor": "agent", "tool": name, "arguments": arguments,
                                "ok": True, "broken": broken})
            self.done.append(key)
            self.results += [(f, str(result[f])) for f in tool.tells]
        else:
            if key not in self.reads:
                self.reads.append(key)
            if tool.authenticates:
                self.auth = next((v for k, v in result.items() if k.endswith("_id")), None)
        self._learn(result)
        return result, ""

    def say(self, text: str) -> str:
        """The agent's message; returns the user's reply."""
        self.messages.append(text)
        before = list(self.performed)
        reply = respond(self, text)
        for name in self.performed[len(before):]:
            action = next(a for a in self.domain.user_actions if a.name == name)
            unread = action.needs and self.key(action.needs,
                                               {"device_id": self.device}) not in self.reads
            broken = [f"run {action.needs} before asking the user to act"] if unread else []
            self.ledger.append({"actor": "user", "tool": name, "arguments": {}, "ok": True,
                                "broken": broken})
        for name in self.revealed:
            fact = self.facts[name]
            bucket = self.known.setdefault(name, [])
            if fact not in bucket:
                bucket.append(fact)
        return reply

    def _learn(self, value: Any, key: str = "") -> None:
        """Remember the ids a tool result showed (they fill ``available_actions``)."""
        if isinstance(value, dict):
            for k, v in value.items():
                self._learn(v, k)
        elif isinstance(value, list):
            for v in value:
                self._learn(v, key)
        elif key.endswith("_id") and isinstance(value, str):
            bucket = self.known.setdefault(key, [])
            if value not in bucket:
                bucket.append(value)

    # ------------------------------------------------------------------ judging
    @property
    def broken(self) -> list[str]:
        """Every policy rule broken so far, from the ledger."""
        return [rule for entry in self.ledger for rule in entry["broken"]]

    def told(self, value: str) -> bool:
        """Some message names ``value`` and no other value of its kind (a list of every
        candidate amount tells nothing)."""
        return any(names_only(m, value) for m in self.messages)

    def state_hash(self) -> str:
        """SHA-256 of every row of the domain's tables, in primary-key order."""
        digest = hashlib.sha256()
        for table, pk in self.domain.tables:
            rows = self.conn.execute(f"SELECT * FROM {table} ORDER BY {pk}").fetchall()
            digest.update(json.dumps([table, rows]).encode())
        return digest.hexdigest()

    def cells(self) -> dict[tuple[str, str, str], Any]:
        """Every cell as ``(table, primary key, column) -> value``."""
        out = {}
        for table, pk in self.domain.tables:
            cursor = self.conn.execute(f"SELECT * FROM {table}")
            columns = [c[0] for c in cursor.description]
            for row in cursor.fetchall():
                record = dict(zip(columns, row, strict=True))
                for column, value in record.items():
                    out[(table, record[pk], column)] = value
        return out

    def cell(self, table: str, pk: str, key: str, column: str) -> Any:
        # Table and column names come from the domain's own gold diff, never from the agent.
        row = self.conn.execute(f"SELECT {column} FROM {table} WHERE {pk} = ?",
                                (key,)).fetchone()
        return row[0] if row else None

    # ------------------------------------------------------------------ snapshots
    def rows(self) -> dict[str, list[list[Any]]]:
        return {table: [list(r) for r in self.conn.execute(
                    f"SELECT * FROM {table} ORDER BY {pk}").fetchall()]
                for table, pk in self.domain.tables}

    def to_dict(self) -> dict[str, Any]:
        return {"rows": self.rows(), "turn": self.turn, "revealed": self.revealed,
                "confirmed": self.confirmed, "performed": self.performed, "reads": self.reads,
                "done": self.done, "messages": self.messages,
                "results": [list(r) for r in self.results], "known": self.known,
                "ledger": self.ledger, "auth": self.auth, "moves": self.moves}

    def clone(self) -> Session:
        """An independent copy (the database through SQLite's backup API): what the oracle
        scores a move on without touching the episode."""
        twin = Session.__new__(Session)
        twin.__dict__.update(copy.deepcopy({k: v for k, v in self.__dict__.items()
                                            if k not in ("conn", "domain", "wants")}))
        twin.domain, twin.wants = self.domain, self.wants
        twin.conn = sqlite3.connect(":memory:", isolation_level=None, check_same_thread=False)
        self.conn.backup(twin.conn)
        return twin

    def close(self) -> None:
        self.conn.close()
