"""The generated tables of the README and the docs pages, and the eval runs behind them.

Every success rate, return or score that the docs quote from ``agentgym eval`` is one run in
``RUNS``. ``docs/results.json`` keeps what each run measured; the tables are rendered from it
between ``<!-- begin generated: NAME -->`` and ``<!-- end generated: NAME -->`` markers.

    .venv/bin/python docs/tables.py --measure          # play every run again (minutes)
    .venv/bin/python docs/tables.py --measure KEY ...  # only these runs (--list shows them)
    .venv/bin/python docs/tables.py                    # rewrite the generated blocks

``tests/test_readme.py`` checks both halves: each block equals its rendering of
results.json, and each run still measures what results.json says. So a number in a
generated table cannot drift from what ``agentgym eval`` measures. The env table lives in
``env_table`` only; a new column goes there.
"""

from __future__ import annotations

import argparse
import datetime
import json
import re
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "docs" / "results.json"

#: The docs page of each env family (relative to docs/).
FAMILY_PAGES = {
    "games": "games.md",
    "webshop": "webshop.md",
    "markets": "markets.md",
    "terminal": "terminal.md",
    "household": "household.md",
    "searchqa": "searchqa.md",
    "workplace": "workplace.md",
}


@dataclass(frozen=True)
class Run:
    """One ``agentgym eval`` run: an agent on a task set (a pinned split or seeds)."""

    key: str
    env_id: str
    agent: str
    kwargs: dict[str, Any] = field(default_factory=dict)
    split: str | None = None
    seed: int | None = None
    episodes: int | None = None
    #: More than a few seconds (a catalog, Docker, an oracle that plays ahead): the tests
    #: mark its check slow, so the fast lane leaves it out.
    slow: bool = False
    #: Needs a Docker daemon and the base image (Terminal-v0).
    docker: bool = False

    def command(self) -> str:
        """The ``agentgym eval`` command line that measures this run."""
        from agentgym.envinfo import format_value

        parts = ["agentgym eval", self.env_id, "--agent", self.agent]
        parts += [f"-k {k}={format_value(v)}" for k, v in self.kwargs.items()]
        if self.split is not None:
            parts += ["--split", self.split]
        if self.seed is not None:
            parts += ["--seed", str(self.seed), "--episodes", str(self.episodes)]
        return " ".join(parts)

    def tasks(self) -> str:
        """The task set in words: ``seeds 0-199`` or ``test split``, with any kwargs."""
        if self.seed is not None:
            text = f"seeds {self.seed}-{self.seed + self.episodes - 1}"
        else:
            from agentgym.envinfo import entry_for

            split = entry_for(self.env_id).split(self.split)
            text = f"`{split.name}` split ({split.count})"
        if self.kwargs:
            text += ", " + ", ".join(f"`{k}={_kw(v)}`" for k, v in self.kwargs.items())
        return text


def _kw(value: Any) -> str:
    from agentgym.envinfo import format_value

    return format_value(value)


def _runs() -> list[Run]:
    runs: list[Run] = []
    seeds200 = {"seed": 0, "episodes": 200}
    seeds50 = {"seed": 0, "episodes": 50}
    for game in ("Sokoban", "Sudoku", "Minesweeper", "TicTacToe"):
        for agent in ("random", "oracle"):
            runs.append(Run(f"{game}/{agent}", f"agentgym/{game}-v0", agent, **seeds200))
            runs.append(Run(f"{game}-vpr/{agent}", f"agentgym/{game}-v0", agent,
                            {"preset": "vpr"}, **seeds200))
    # The figures of TicTacToeEnv's docstring: each opponent, the agent as X and as O.
    for opponent in ("random", "optimal"):
        for side, first in (("X", True), ("O", False)):
            for agent in ("random", "oracle"):
                runs.append(Run(f"TicTacToe-{opponent}-{side}/{agent}", "agentgym/TicTacToe-v0",
                                agent, {"opponent": opponent, "agent_first": first},
                                **seeds200))
    for agent in ("random", "webshop-rule", "oracle"):
        runs.append(Run(f"WebShop/{agent}", "agentgym/WebShop-v0", agent, split="test",
                        slow=True))
    for agent in ("random", "negotiation-fair", "oracle"):
        runs.append(Run(f"Negotiation/{agent}", "agentgym/Negotiation-v0", agent,
                        {"role": "random"}, **seeds200))
    for agent in ("random", "bazaar-b2c-baseline"):
        runs.append(Run(f"BazaarB2C/{agent}", "agentgym/BazaarB2C-v0", agent, **seeds50))
    # The oracle scores every price by playing the market on: about 10 s a seed, so 20.
    runs.append(Run("BazaarB2C/oracle", "agentgym/BazaarB2C-v0", "oracle", seed=0, episodes=20,
                    slow=True))
    for sybils in (3, 6, 9):
        for agent in ("random", "bazaar-c2c-baseline", "oracle"):
            # The oracle scores each action on a copy of the market: 10-40 s a run.
            runs.append(Run(f"BazaarC2C-K{sybils}/{agent}", "agentgym/BazaarC2C-v0", agent,
                            {"sybils": sybils}, **seeds50, slow=agent == "oracle"))
    runs.append(Run("BazaarC2C-seller/bazaar-c2c-baseline", "agentgym/BazaarC2C-v0",
                    "bazaar-c2c-baseline", {"role": "seller"}, **seeds50))
    for agent in ("random", "oracle"):
        runs.append(Run(f"Terminal/{agent}", "agentgym/Terminal-v0", agent, split="test",
                        slow=True, docker=True))
    for agent in ("random", "household-heuristic", "oracle"):
        runs.append(Run(f"Household/{agent}", "agentgym/Household-v0", agent, split="test"))
    for task_type in HOUSEHOLD_TYPES:
        # 300 episodes that mostly run out their 50 steps: a few seconds each.
        runs.append(Run(f"Household-{task_type}/random", "agentgym/Household-v0", "random",
                        {"task_type": task_type}, seed=0, episodes=300, slow=True))
    for agent in ("random", "searchqa-question", "oracle"):
        runs.append(Run(f"SearchQA/{agent}", "agentgym/SearchQA-v0", agent, split="test"))
    for knob in SEARCHQA_KNOBS:
        runs.append(Run(f"SearchQA-{knob}/searchqa-question", "agentgym/SearchQA-v0",
                        "searchqa-question", SEARCHQA_KNOBS[knob], split="test"))
    for agent in ("searchqa-question", "oracle"):
        runs.append(Run(f"SearchQA-example/{agent}", "agentgym/SearchQA-v0", agent,
                        {"corpus": "example"}, seed=0, episodes=12))
    for agent in ("random", "workplace-heuristic", "oracle"):
        # The oracle scores every listed action on a copy of the session: ~0.4 s a task.
        runs.append(Run(f"Workplace/{agent}", "agentgym/Workplace-v0", agent, split="test",
                        slow=agent == "oracle"))
    return runs


#: ALFWorld's six task types, in the order of the docs' Household tables, with their headers.
HOUSEHOLD_TYPES = {
    "pick_and_place_simple": "pick & place",
    "look_at_obj_in_light": "look in light",
    "pick_clean_then_place_in_recep": "clean & place",
    "pick_heat_then_place_in_recep": "heat & place",
    "pick_cool_then_place_in_recep": "cool & place",
    "pick_two_obj_and_place": "pick two",
}

#: SearchQA's question knobs, each measured on the test split with the question as the query.
SEARCHQA_KNOBS = {
    "min_hops=3": {"min_hops": 3},
    "namesakes": {"namesakes": True},
    "described": {"described": True},
    "paraphrase": {"paraphrase": True},
    "comparison": {"comparison": True},
}

RUNS: dict[str, Run] = {run.key: run for run in _runs()}


# ---------------------------------------------------------------------- measuring
def measure(run: Run) -> dict[str, Any]:
    """Play ``run`` and keep the figures the tables show (rounded to 6 decimals)."""
    import agentgym  # noqa: F401  (registers the ids)
    from agentgym.evaluation import evaluate

    report = evaluate(run.env_id, run.agent, split=run.split, seed=run.seed,
                      episodes=run.episodes, env_kwargs=dict(run.kwargs), progress=False)
    summary = report.summary
    figures: dict[str, Any] = {
        key: round(float(summary[key]), 6)
        for key in ("success_rate", "mean_return", "mean_outcome_return", "score",
                    "mean_steps", "mean_f1")
        if key in summary
    }
    figures["episodes"] = int(summary["episodes"])
    by_type: dict[str, list] = {}
    for episode in report.episodes:
        task_type = episode.extras.get("task_type")
        if task_type is not None:
            by_type.setdefault(task_type, []).append(episode)
    if by_type:
        figures["by_task_type"] = {
            name: {"success_rate": round(sum(e.success for e in eps) / len(eps), 6),
                   "mean_steps": round(sum(e.steps for e in eps) / len(eps), 6),
                   "episodes": len(eps)}
            for name, eps in sorted(by_type.items())
        }
    return figures


def _commit() -> str | None:
    try:
        out = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, text=True,
                             capture_output=True, check=True)
    except (OSError, subprocess.CalledProcessError):
        return None
    return out.stdout.strip() or None


def measure_all(keys: list[str] | None = None) -> dict[str, Any]:
    """Measure ``keys`` (default: every run) into results.json, keeping the other runs."""
    data = load_results() if RESULTS.exists() else {"runs": {}}
    for key in keys or list(RUNS):
        run = RUNS[key]
        print(f"{key}: {run.command()}", file=sys.stderr, flush=True)
        data["runs"][key] = {"command": run.command(), "measured": str(datetime.date.today()),
                             "commit": _commit(), **measure(run)}
        # Written after every run, so a long measurement keeps what it has when stopped.
        data["runs"] = {k: data["runs"][k] for k in RUNS if k in data["runs"]}
        RESULTS.write_text(json.dumps(data, indent=1) + "\n")
    return data


def load_results() -> dict[str, Any]:
    return json.loads(RESULTS.read_text())


# ---------------------------------------------------------------------- formatting
def pct(x: float) -> str:
    """A rate as the docs print it: ``0%``, ``4.0%``, ``100%``."""
    return {0: "0%", 1: "100%"}.get(x, f"{100 * x:.1f}%")


def num(x: float, digits: int = 2) -> str:
    text = f"{x:.{digits}f}"
    return "0." + "0" * digits if text == "-0." + "0" * digits else text


def _table(header: list[str], rows: list[list[str]], align: str = "---") -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join([align] * len(header)) + "|"]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines)


# ---------------------------------------------------------------------- the tables
#: Per id: the runs the env table shows as (random, oracle, baseline); the baseline is the
#: family's scripted agent, where it has one.
ENV_TABLE_RUNS = {
    "agentgym/Sokoban-v0": ("Sokoban/random", "Sokoban/oracle", None),
    "agentgym/Sudoku-v0": ("Sudoku/random", "Sudoku/oracle", None),
    "agentgym/Minesweeper-v0": ("Minesweeper/random", "Minesweeper/oracle", None),
    "agentgym/TicTacToe-v0": ("TicTacToe/random", "TicTacToe/oracle", None),
    "agentgym/WebShop-v0": ("WebShop/random", "WebShop/oracle", "WebShop/webshop-rule"),
    "agentgym/Negotiation-v0": ("Negotiation/random", "Negotiation/oracle",
                                "Negotiation/negotiation-fair"),
    "agentgym/BazaarB2C-v0": ("BazaarB2C/random", "BazaarB2C/oracle",
                              "BazaarB2C/bazaar-b2c-baseline"),
    "agentgym/BazaarC2C-v0": ("BazaarC2C-K3/random", "BazaarC2C-K3/oracle",
                              "BazaarC2C-K3/bazaar-c2c-baseline"),
    "agentgym/Household-v0": ("Household/random", "Household/oracle",
                              "Household/household-heuristic"),
    "agentgym/Terminal-v0": ("Terminal/random", "Terminal/oracle", None),
    "agentgym/SearchQA-v0": ("SearchQA/random", "SearchQA/oracle", "SearchQA/searchqa-question"),
    "agentgym/Workplace-v0": ("Workplace/random", "Workplace/oracle",
                              "Workplace/workplace-heuristic"),
}


def env_table(results: dict[str, Any], pages: str = "docs/") -> str:
    """The README's (and docs/index.md's) table: every registered id, its family page, the
    registry's summary and success rates measured by ``agentgym eval``. ``pages`` is the
    path from the file holding the table to docs/."""
    import agentgym
    from agentgym.audit import recorded_audit

    runs = results["runs"]
    audits = recorded_audit()
    rows = []
    for entry in agentgym.ENVIRONMENTS:
        if entry.id not in ENV_TABLE_RUNS:
            raise KeyError(f"{entry.id} has no runs in docs/tables.py ENV_TABLE_RUNS")
        random_key, oracle_key, baseline_key = ENV_TABLE_RUNS[entry.id]
        baseline = "-"
        if baseline_key is not None:
            baseline = f"{pct(runs[baseline_key]['success_rate'])} `{RUNS[baseline_key].agent}`"
        tasks = RUNS[random_key].tasks()
        if baseline_key is not None and RUNS[baseline_key].tasks() != tasks:
            raise ValueError(f"{entry.id}: its random and baseline runs play different tasks")
        oracle = pct(runs[oracle_key]["success_rate"])
        if RUNS[oracle_key].tasks() != tasks:
            oracle += f" ({RUNS[oracle_key].tasks()})"
        page = f"[{entry.family}]({pages}{FAMILY_PAGES[entry.family]})"
        # The summary is plain text: a pipe would split the cell, a <tag> would be HTML.
        what = entry.summary.replace("|", "\\|").replace("<", "&lt;")
        # The recorded `agentgym audit --all` (agentgym/audit/recorded.json), linked to its page.
        audit = audits.get(entry.id, {}).get("status", "not run")
        rows.append([f"`{entry.id}`", page, what,
                     pct(runs[random_key]["success_rate"]), oracle, baseline, tasks,
                     f"[{audit}]({pages}audit.md)"])
    header = ["id", "docs", "what", "success: random", "oracle", "baseline", "tasks", "audit"]
    return _table(header, rows)


def games_table(results: dict[str, Any]) -> str:
    """Return (summed reward) and success of random and oracle per game and config."""
    runs = results["runs"]
    rows = []
    for game, label in (("Sokoban", "Sokoban"), ("Minesweeper", "Minesweeper"),
                        ("Sudoku", "Sudoku 9x9"), ("TicTacToe", "Tic-tac-toe")):
        for suffix, config in (("", "default"), ("-vpr", '`preset="vpr"`')):
            cells = [f"{label} ({config})"]
            for agent in ("random", "oracle"):
                r = runs[f"{game}{suffix}/{agent}"]
                cells.append(f"{num(r['mean_return'])}, {pct(r['success_rate'])}")
            rows.append(cells)
    return _table(["game (config)", "random: return, success", "oracle: return, success"], rows)


#: The original WebShop paper's figures on its own data (Yao et al., 2022, table 2), quoted.
WEBSHOP_PAPER = {"webshop-rule": ("45.6", "9.6%"), "IL+RL (paper)": ("62.4", "28.7%"),
                 "human expert (paper)": ("82.1", "59.6%")}


def webshop_table(results: dict[str, Any]) -> str:
    runs = results["runs"]
    rows = []
    for agent, label in (("oracle", "oracle (knows the goal)"),
                         ("webshop-rule", "rule baseline (`webshop-rule`)"),
                         ("random", "random")):
        r = runs[f"WebShop/{agent}"]
        paper = WEBSHOP_PAPER.get(agent, ("", ""))
        rows.append([label, num(r["score"], 1), pct(r["success_rate"]), *paper])
    for label in ("IL+RL (paper)", "human expert (paper)"):
        rows.append([label, "", "", *WEBSHOP_PAPER[label]])
    header = ["agent", "agentgym WebShop score", "success", "original WebShop score", "success"]
    return _table(header, rows)


def household_table(results: dict[str, Any]) -> str:
    runs = results["runs"]
    rows = []
    for agent, label in (("oracle", "oracle (planner)"),
                         ("household-heuristic", "`household-heuristic` (scripted search)"),
                         ("random", "random (admissible commands)")):
        by_type = runs[f"Household/{agent}"]["by_task_type"]
        rows.append([label] + [f"{pct(by_type[t]['success_rate'])} / "
                               f"{num(by_type[t]['mean_steps'], 1)}" for t in HOUSEHOLD_TYPES])
    rows.append(["random, 300 seeds of one type (`train` split)"]
                + [pct(runs[f"Household-{t}/random"]["success_rate"]) for t in HOUSEHOLD_TYPES])
    return _table(["agent (success / mean steps)", *HOUSEHOLD_TYPES.values()], rows)


def searchqa_table(results: dict[str, Any]) -> str:
    runs = results["runs"]
    rows = []
    for agent, label in (("oracle", "oracle (bridge searches, then the answer)"),
                         ("searchqa-question", "question-as-query (`searchqa-question`)"),
                         ("random", "random over `available_actions`")):
        r = runs[f"SearchQA/{agent}"]
        rows.append([label, num(r["success_rate"], 3), num(r["mean_f1"], 3),
                     num(r["mean_steps"])])
    table = _table(["test split (200 questions)", "EM", "F1", "steps"], rows)
    knobs = [["default", num(runs["SearchQA/searchqa-question"]["success_rate"], 3)]]
    knobs += [[f"`{knob}`", num(runs[f"SearchQA-{knob}/searchqa-question"]["success_rate"], 3)]
              for knob in SEARCHQA_KNOBS]
    example = runs["SearchQA-example/searchqa-question"]["success_rate"]
    knobs.append(['`corpus="example"` (12 questions)', num(example, 3)])
    return table + "\n\n" + _table(["question-as-query on", "EM"], knobs)


def markets_table(results: dict[str, Any]) -> str:
    runs = results["runs"]
    rows = []
    keys = [("Negotiation", "Negotiation", a) for a in ("random", "negotiation-fair", "oracle")]
    keys += [("BazaarB2C", "BazaarB2C", a) for a in ("random", "bazaar-b2c-baseline", "oracle")]
    for k in (3, 6, 9):
        keys += [(f"BazaarC2C-K{k}", f"BazaarC2C K={k}", a)
                 for a in ("random", "bazaar-c2c-baseline", "oracle")]
    keys.append(("BazaarC2C-seller", "BazaarC2C seller", "bazaar-c2c-baseline"))
    for prefix, label, agent in keys:
        key = f"{prefix}/{agent}"
        r = runs[key]
        rows.append([label, f"`{agent}`", RUNS[key].tasks(), num(r["mean_return"], 3),
                     num(r["mean_outcome_return"], 3), pct(r["success_rate"]),
                     num(r["mean_steps"], 1)])
    return _table(["env", "agent", "tasks", "return", "outcome", "success", "mean steps"], rows)


def terminal_table(results: dict[str, Any]) -> str:
    runs = results["runs"]
    rows = [[f"`{agent}`", pct(runs[f"Terminal/{agent}"]["success_rate"]),
             num(runs[f"Terminal/{agent}"]["mean_outcome_return"])]
            for agent in ("oracle", "random")]
    return _table(["agent (`test` split, 10 tasks)", "success", "mean outcome"], rows)


#: file (relative to the repository) -> block name -> renderer.
BLOCKS = {
    "README.md": {"env-table": lambda r: env_table(r, "docs/")},
    "docs/index.md": {"env-table": lambda r: env_table(r, "")},
    "docs/games.md": {"games-returns": games_table},
    "docs/webshop.md": {"webshop-scores": webshop_table},
    "docs/markets.md": {"markets-baselines": markets_table},
    "docs/terminal.md": {"terminal-baselines": terminal_table},
    "docs/household.md": {"household-baselines": household_table},
    "docs/searchqa.md": {"searchqa-baselines": searchqa_table},
}


def block_pattern(name: str) -> re.Pattern[str]:
    return re.compile(rf"(<!-- begin generated: {re.escape(name)} [^\n]*-->\n)(.*?)"
                      rf"(<!-- end generated: {re.escape(name)} -->)", re.DOTALL)


def generated_block(text: str, name: str) -> str | None:
    """The text between a file's markers for ``name`` (None without markers)."""
    match = block_pattern(name).search(text)
    return match.group(2) if match else None


def render(path: str, name: str, results: dict[str, Any]) -> str:
    """The text between the markers of block ``name`` in ``path``."""
    return BLOCKS[path][name](results) + "\n"


def write_blocks(results: dict[str, Any]) -> list[str]:
    """Rewrite every generated block; return the files that changed."""
    changed = []
    for path, blocks in BLOCKS.items():
        file = ROOT / path
        text = file.read_text()
        new = text
        for name in blocks:
            if generated_block(new, name) is None:
                raise ValueError(f"{path} has no markers for the generated block {name!r}")
            body = render(path, name, results)
            new = block_pattern(name).sub(lambda m, b=body: m.group(1) + b + m.group(3), new)
        if new != text:
            file.write_text(new)
            changed.append(path)
    return changed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--measure", nargs="*", metavar="KEY",
                        help="play the runs (all, or these keys) and update docs/results.json")
    parser.add_argument("--list", action="store_true", help="print each run's key and command")
    args = parser.parse_args(argv)
    if args.list:
        for key, run in RUNS.items():
            print(f"{key:45s} {run.command()}")
        return 0
    if args.measure is not None:
        unknown = [k for k in args.measure if k not in RUNS]
        if unknown:
            parser.error(f"unknown run keys: {', '.join(unknown)} (see --list)")
        measure_all(args.measure or None)
    for path in write_blocks(load_results()):
        print(f"rewrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
