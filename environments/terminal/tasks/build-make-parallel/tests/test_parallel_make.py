"""Hidden tests for build-make-parallel. The expected report is recomputed here from the
CSV files, independently of the tools. make runs as the agent through agentgym_harness."""
import csv
from decimal import Decimal
from pathlib import Path

import agentgym_harness as agent
import pytest


@pytest.fixture
def work():
    return Path(agent.copy_tree("/app", "build", "__pycache__", age_s=3600))


def make(work: Path, *args: str) -> agent.Completed:
    out = agent.run(["make", *args], cwd=str(work), timeout=30)
    assert out.returncode == 0, out.stdout + out.stderr
    return out


def expected(work: Path) -> str:
    version = (work / "VERSION").read_text().strip()
    line = (work / "templates" / "report.tmpl").read_text()
    lines, grand = [f"Sales report v{version}\n"], Decimal("0")
    for path in sorted((work / "data").glob("*.csv"), key=lambda p: p.stem):
        with path.open(newline="") as fh:
            amounts = [Decimal(r["amount"]) for r in csv.DictReader(fh)]
        total = sum(amounts, Decimal("0"))
        grand += total
        lines.append(line.format(name=path.stem, rows=len(amounts), total=total))
    return "".join(lines) + f"TOTAL {grand:.2f}\n"


def report(work: Path) -> str:
    return (work / "build" / "report.txt").read_text()


def test_clean_builds_serial_and_parallel(work):
    make(work)
    assert report(work) == expected(work)
    for _ in range(2):
        make(work, "clean")
        assert not (work / "build").exists()
        make(work, "-j8")
        assert report(work) == expected(work)


def test_single_targets_from_clean(work):
    make(work, "-j8", "build/report.txt")
    assert report(work) == expected(work)
    agent.remove(work / "build")
    make(work, "build/south.json")
    assert (work / "build").exists()
    agent.remove(work / "build")
    make(work, "-j4", "build/index.json")
    assert "north" in (work / "build" / "index.json").read_text()


def test_nothing_changed_nothing_rebuilt(work):
    make(work, "-j8")
    outputs = sorted((work / "build").glob("*"))
    stamps = {p: p.stat().st_mtime_ns for p in outputs}
    make(work)
    make(work, "-j8")
    assert {p: p.stat().st_mtime_ns for p in outputs} == stamps


def test_changes_propagate(work):
    make(work, "-j8")
    agent.write(work / "data" / "south.csv", "fan,10.00\n", append=True)
    make(work, "-j8")
    assert report(work) == expected(work)
    agent.write(work / "VERSION", "4\n")
    make(work)
    assert report(work).startswith("Sales report v4\n")
    agent.write(work / "templates" / "report.tmpl", "{name} -> {rows} / {total:.2f}\n")
    make(work, "-j8")
    assert report(work) == expected(work)


def test_regions_added_and_removed(work):
    make(work, "-j8")
    agent.write(work / "data" / "west.csv", "item,amount\nkite,9.90\n")
    make(work, "-j8")
    assert "west: 1 sales, total 9.90" in report(work)
    assert (work / "data" / "north.csv").exists()
    agent.remove(work / "data" / "north.csv")
    make(work, "-j8")
    assert report(work) == expected(work)
    assert "north" not in report(work)
