"""Hidden tests for build-make-parallel. make runs as the agent through agentgym_harness.

The expected report is computed here from the task's data, embedded below, and from what
the tests themselves change: never from the copy's files, which the agent's Makefile could
rewrite while it runs."""
import json
from decimal import Decimal
from pathlib import Path

import agentgym_harness as agent
import pytest

# data/<region>.csv as the task ships it: the amounts of each region
DATA = {"east": ["7.10", "30.00", "2.35", "15.00"], "north": ["1.50", "12.00", "19.99"],
        "south": ["4.25"]}
VERSION = "3"
TEMPLATE = "{name}: {rows} sales, total {total:.2f}\n"


class Model:
    """What the inputs of the copy are, as this test made them."""

    def __init__(self) -> None:
        self.data = {name: [Decimal(a) for a in amounts] for name, amounts in DATA.items()}
        self.version = VERSION
        self.template = TEMPLATE

    def summary(self, name: str) -> dict:
        amounts = self.data[name]
        return {"name": name, "rows": len(amounts), "total": float(sum(amounts, Decimal(0)))}

    def report(self) -> str:
        lines, grand = [f"Sales report v{self.version}\n"], Decimal("0")
        for name in sorted(self.data):
            total = sum(self.data[name], Decimal("0"))
            grand += total
            lines.append(self.template.format(name=name, rows=len(self.data[name]), total=total))
        return "".join(lines) + f"TOTAL {grand:.2f}\n"


@pytest.fixture
def work():
    return Path(agent.copy_tree("/app", "build", "__pycache__", age_s=3600))


def make(work: Path, *args: str) -> agent.Completed:
    out = agent.run(["make", *args], cwd=str(work), timeout=30)
    assert out.returncode == 0, out.stdout + out.stderr
    return out


def report(work: Path) -> str:
    return (work / "build" / "report.txt").read_text()


def test_clean_builds_serial_and_parallel(work):
    model = Model()
    make(work)
    assert report(work) == model.report()
    for _ in range(2):
        make(work, "clean")
        assert not (work / "build").exists()
        make(work, "-j8")
        assert report(work) == model.report()


def test_single_targets_from_clean(work):
    model = Model()
    make(work, "-j8", "build/report.txt")
    assert report(work) == model.report()
    agent.remove(work / "build")
    make(work, "build/south.json")
    assert json.loads((work / "build" / "south.json").read_text()) == model.summary("south")
    agent.remove(work / "build")
    make(work, "-j4", "build/index.json")
    assert json.loads((work / "build" / "index.json").read_text()) == [
        model.summary(name) for name in sorted(model.data)]


def test_nothing_changed_nothing_rebuilt(work):
    make(work, "-j8")
    assert report(work) == Model().report()
    outputs = sorted((work / "build").glob("*"))
    names = {p.name for p in outputs}
    assert {"report.txt", "index.json", "east.json", "north.json", "south.json"} <= names
    stamps = {p: p.stat().st_mtime_ns for p in outputs}
    make(work)
    make(work, "-j8")
    assert {p: p.stat().st_mtime_ns for p in outputs} == stamps


def test_changes_propagate(work):
    model = Model()
    make(work, "-j8")
    agent.write(work / "data" / "south.csv", "fan,10.00\n", append=True)
    model.data["south"].append(Decimal("10.00"))
    make(work, "-j8")
    assert report(work) == model.report()
    agent.write(work / "VERSION", "4\n")
    model.version = "4"
    make(work)
    assert report(work) == model.report()
    model.template = "{name} -> {rows} / {total:.2f}\n"
    agent.write(work / "templates" / "report.tmpl", model.template)
    make(work, "-j8")
    assert report(work) == model.report()


def test_regions_added_and_removed(work):
    model = Model()
    make(work, "-j8")
    agent.write(work / "data" / "west.csv", "item,amount\nkite,9.90\n")
    model.data["west"] = [Decimal("9.90")]
    make(work, "-j8")
    assert "west: 1 sales, total 9.90" in report(work)
    assert report(work) == model.report()
    agent.remove(work / "data" / "north.csv")
    del model.data["north"]
    make(work, "-j8")
    assert report(work) == model.report()
    assert "north" not in report(work)
