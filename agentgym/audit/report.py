"""An audit's result: one row per policy or check, a verdict each, as JSON and as a table.

>>> row = Row("oscillate", "exploit", "pass", episodes=2, ret=0.5, success=0.0, outcome=0.0)
>>> report = AuditReport("agentgym/Toy-v0", {}, seed=0, episodes=2, budget_s=1.0, rows=[row])
>>> report.passed, report.failures()
(True, [])
"""

from __future__ import annotations

import json
import platform
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Literal

from rich.table import Table
from rich.text import Text

import agentgym

__all__ = ["RECORDED", "AuditReport", "Row", "load_reports", "recorded_audit"]

#: The audit of every registered id at the CI budget (``agentgym audit --all --episodes 3
#: --budget 2 --json agentgym/audit/recorded.json``), shipped with the package: the README's
#: env table and the leaderboard site show its statuses, and CI checks they still hold.
RECORDED = Path(__file__).with_name("recorded.json")

Verdict = Literal["pass", "fail", "n/a"]
Kind = Literal["reference", "exploit", "search", "check"]


@dataclass
class Row:
    """One line of the audit table: a policy's figures over the audited seeds, or a check."""

    name: str
    kind: Kind
    verdict: Verdict
    episodes: int = 0
    ret: float | None = None
    success: float | None = None
    outcome: float | None = None
    detail: str = ""
    evidence: dict[str, Any] = field(default_factory=dict)


@dataclass
class AuditReport:
    """Everything one ``agentgym audit ID`` found; ``passed`` when no row failed."""

    env_id: str
    kwargs: dict[str, Any]
    seed: int
    episodes: int
    budget_s: float
    rows: list[Row] = field(default_factory=list)
    wall_s: float = 0.0
    skipped: str = ""
    version: str = agentgym.__version__

    @property
    def passed(self) -> bool:
        return not self.failures()

    def failures(self) -> list[Row]:
        return [row for row in self.rows if row.verdict == "fail"]

    @property
    def status(self) -> str:
        """One word for tables: ``pass``, ``fail (N)`` or ``skipped``."""
        if self.skipped:
            return "skipped"
        failed = len(self.failures())
        return "pass" if not failed else f"fail ({failed})"

    def to_dict(self) -> dict[str, Any]:
        return {
            "env_id": self.env_id,
            "kwargs": self.kwargs,
            "seed": self.seed,
            "episodes": self.episodes,
            "budget_s": self.budget_s,
            "wall_s": round(self.wall_s, 2),
            "passed": self.passed,
            "status": self.status,
            "skipped": self.skipped,
            "agentgym_version": self.version,
            "python": platform.python_version(),
            "rows": [asdict(row) for row in self.rows],
        }

    def table(self) -> Table:
        """The rich table ``agentgym audit`` prints."""
        table = Table(title=f"{self.env_id} audit", title_justify="left", header_style="bold")
        for column in ("exploit", "episodes", "return", "success", "outcome", "verdict"):
            justify = "right" if column in ("episodes", "return", "success", "outcome") else "left"
            table.add_column(column, justify=justify, no_wrap=column != "exploit")
        table.add_column("detail", ratio=1, overflow="fold")
        styles = {"pass": "green", "fail": "bold red", "n/a": "dim"}
        for row in self.rows:
            table.add_row(
                Text(row.name),
                Text(str(row.episodes) if row.episodes else ""),
                Text(_fmt(row.ret)),
                Text("" if row.success is None else f"{row.success:.0%}"),
                Text(_fmt(row.outcome)),
                Text(row.verdict, style=styles[row.verdict]),
                Text(row.detail),
            )
        return table


def _fmt(value: float | None) -> str:
    return "" if value is None else f"{value:.3f}"


def write_reports(reports: list[AuditReport], path: Path) -> None:
    """Write ``reports`` as one JSON file (a list, one object per id)."""
    path.write_text(json.dumps([r.to_dict() for r in reports], indent=1) + "\n")


def load_reports(path: Path) -> dict[str, dict[str, Any]]:
    """The reports of a JSON file ``agentgym audit --json`` wrote, by env id."""
    data = json.loads(Path(path).read_text())
    if isinstance(data, dict):
        data = [data]
    return {item["env_id"]: item for item in data}


def recorded_audit() -> dict[str, dict[str, Any]]:
    """The recorded audit (:data:`RECORDED`) by env id; empty when the file is missing.

    >>> all(report["status"] for report in recorded_audit().values())
    True
    """
    return load_reports(RECORDED) if RECORDED.is_file() else {}
