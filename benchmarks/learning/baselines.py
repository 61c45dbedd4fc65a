"""Reference lines of the learning benchmark, no model needed: random, board-blind script, oracle.

    .venv/bin/python benchmarks/learning/baselines.py --out runs/baselines   # every setting
    .venv/bin/python benchmarks/learning/baselines.py --settings tictactoe-vpr --out runs/baselines

For each setting (an env id and its kwargs, :data:`SETTINGS`) on fresh seeds:

* **random**: uniformly random legal actions (:class:`agentgym.agents.scripted.RandomAgent`);
* **oracle**: the env's oracle (:class:`agentgym.agents.scripted.OracleAgent`);
* **best board-blind script**: the best of ``--scripts`` random fixed action lists
  (:mod:`blind`: they read only which actions are legal, never the board's contents),
  **chosen on validation seeds** in two stages (every script on the first ``--screen`` of
  them, then the ``--top`` best on all ``--val-episodes``) and **reported on disjoint test
  seeds**, which nothing was chosen on. The validation figure of the chosen script is
  written too: it is biased upwards by the choice (the winner's curse), the test figure is not.

Every rate has a 95% Wilson interval (:func:`intervals.wilson_interval`). The test seeds are
:data:`TEST_SEED` onwards and the validation seeds :data:`VAL_SEED` onwards, both disjoint
from the trainers' rollout seeds (``cfg.seed + update * groups + g``, small numbers) and from
the 30 seeds (900000-900029) the old runs chose their configurations on.

Writes ``<out>/<setting>.json`` per setting (the chosen script's per-episode test outcomes
included, for :mod:`run`'s differences) and ``<out>/baselines.json`` with every setting
found there, and prints a table. Errors are one line (``error: ...``) and exit status 2.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from blind import Mode, Script, random_scripts  # noqa: E402
from intervals import wilson_interval  # noqa: E402

__all__ = ["SETTINGS", "TEST_SEED", "VAL_SEED", "Setting", "measure", "play", "rate"]

#: First validation seed (configuration and script choice) and first test seed (reported).
VAL_SEED = 700_000
TEST_SEED = 800_000


@dataclass(frozen=True)
class Setting:
    """An env, its kwargs, and the action vocabulary and mode of its board-blind scripts."""

    env_id: str
    kwargs: dict[str, Any]
    vocabulary: tuple[str, ...]
    mode: Mode
    length: int = 0  # sequence scripts only
    note: str = ""


_CELLS3 = tuple(f"{r} {c}" for r in range(1, 4) for c in range(1, 4))
#: The usual hand-written order: centre, corners, edges.
CENTRE_CORNERS_EDGES = ("2 2", "1 1", "1 3", "3 1", "3 3", "1 2", "2 1", "2 3", "3 2")

SETTINGS: dict[str, Setting] = {
    # The old runs' setting (the README's 13% -> 60-77%): X against the random opponent.
    "tictactoe-random-x": Setting(
        "agentgym/TicTacToe-v0",
        {"opponent": "random", "agent_first": True, "optimal_reward": 1.0, "legal_reward": 0.0},
        _CELLS3, "priority", note="the old learning runs' setting"),
    # The VPR paper's search example: the optimal opponent, the side drawn per episode.
    "tictactoe-vpr": Setting("agentgym/TicTacToe-v0", {"preset": "vpr"}, _CELLS3, "priority"),
    "sokoban-5x5-vpr": Setting("agentgym/Sokoban-v0", {"size": 5, "preset": "vpr"},
                               ("up", "down", "left", "right"), "sequence", length=15),
    "minesweeper-5x5-vpr": Setting(
        "agentgym/Minesweeper-v0", {"preset": "vpr"},
        tuple(f"reveal {r} {c}" for r in range(1, 6) for c in range(1, 6)), "priority"),
    "sudoku-4x4-vpr": Setting(
        "agentgym/Sudoku-v0", {"size": 4, "preset": "vpr"},
        tuple(f"{r} {c} {d}" for r in range(1, 5) for c in range(1, 5) for d in range(1, 5)),
        "priority"),
}


class ScriptAgent:
    """A :class:`blind.Script` behind the agents' ``reset`` / ``act`` interface."""

    def __init__(self, script: Script) -> None:
        self.script = script

    def reset(self, env: Any, *, seed: int | None = None) -> None:
        self.script.reset()

    def act(self, observation: str, info: dict[str, Any]) -> str:
        return self.script.act(info)


def play(env: Any, agent: Any, seed: int) -> bool:
    """One episode of ``agent`` on ``env`` from ``seed``; whether it ended in success."""
    obs, info = env.reset(seed=seed)
    agent.reset(env, seed=seed)
    while True:
        obs, _, terminated, truncated, info = env.step(agent.act(obs, info))
        if terminated or truncated:
            return bool(info.get("success"))


def rate(outcomes: list[bool]) -> dict[str, Any]:
    """A success rate with its 95% Wilson interval.

    >>> rate([True, False, False, False])["success"]
    0.25
    """
    k, n = sum(outcomes), len(outcomes)
    lo, hi = wilson_interval(k, n)
    return {"success": k / n, "ci95": [lo, hi], "successes": k, "episodes": n}


def _outcomes(env: Any, agent: Any, seeds: range, bar: Any = None, task: Any = None) -> list[bool]:
    out = []
    for s in seeds:
        out.append(play(env, agent, s))
        if bar is not None:
            bar.advance(task)
    return out


def measure(name: str, setting: Setting, *, scripts: int, screen: int, top: int,
            val_episodes: int, test_episodes: int, val_seed: int, test_seed: int,
            search_seed: int, progress: bool = True) -> dict[str, Any]:
    """Every reference figure of one setting (see the module docstring)."""
    import gymnasium as gym

    import agentgym  # noqa: F401  (registers the ids)
    from agentgym.agents.scripted import OracleAgent, RandomAgent
    from agentgym.progress import progress_bar

    if not 1 <= screen <= val_episodes or top < 1 or scripts < 1 or test_episodes < 1:
        raise ValueError("need scripts >= 1, top >= 1, test-episodes >= 1 and "
                         "1 <= screen <= val-episodes")
    val = range(val_seed, val_seed + val_episodes)
    test = range(test_seed, test_seed + test_episodes)
    if set(val) & set(test):
        raise ValueError("validation and test seeds overlap")
    env = gym.make(setting.env_id, **setting.kwargs)
    began = time.perf_counter()
    candidates = random_scripts(setting.vocabulary, setting.mode, scripts, setting.length,
                                seed=search_seed)
    with progress_bar(progress) as bar:
        task = bar.add_task(f"{name}: screen", total=scripts * screen)
        screened = [(sum(_outcomes(env, ScriptAgent(s), val[:screen], bar, task)), i)
                    for i, s in enumerate(candidates)]
        # Ties broken by the draw order, so the choice is reproducible.
        shortlist = [i for _, i in sorted(screened, key=lambda x: (-x[0], x[1]))[:top]]
        task = bar.add_task(f"{name}: validate top {top}", total=len(shortlist) * len(val))
        validated = [(sum(_outcomes(env, ScriptAgent(candidates[i]), val, bar, task)), i)
                     for i in shortlist]
        best_k, best = sorted(validated, key=lambda x: (-x[0], x[1]))[0]
        task = bar.add_task(f"{name}: test", total=4 * len(test))
        best_test = _outcomes(env, ScriptAgent(candidates[best]), test, bar, task)
        random_test = _outcomes(env, RandomAgent(), test, bar, task)
        oracle_test = _outcomes(env, OracleAgent(), test, bar, task)
        named = {}
        if setting.vocabulary == _CELLS3:
            fixed = ScriptAgent(Script(CENTRE_CORNERS_EDGES, "priority"))
            named["centre-corners-edges"] = {
                "actions": list(CENTRE_CORNERS_EDGES),
                "val": rate(_outcomes(env, fixed, val)),
                "test": rate(_outcomes(env, fixed, test, bar, task))}
    return {
        "setting": name, "env": setting.env_id, "env_kwargs": setting.kwargs,
        "note": setting.note,
        "val_seeds": [val.start, val.stop - 1], "test_seeds": [test.start, test.stop - 1],
        "random": rate(random_test), "oracle": rate(oracle_test),
        "best_script": {
            "mode": setting.mode, "actions": list(candidates[best].actions),
            "searched": scripts, "screen_episodes": screen, "shortlist": top,
            "search_seed": search_seed,
            "screen": rate([True] * screened[best][0] + [False] * (screen - screened[best][0])),
            "val": rate([True] * best_k + [False] * (len(val) - best_k)),
            "test": rate(best_test),
            "test_outcomes": [int(x) for x in best_test]},
        "named_scripts": named,
        "wall_s": time.perf_counter() - began,
    }


def _pct(r: dict[str, Any]) -> str:
    lo, hi = r["ci95"]
    return f"{100 * r['success']:.1f} [{100 * lo:.1f}, {100 * hi:.1f}]"


def table(results: list[dict[str, Any]]) -> str:
    """A Markdown table of the results (percent, 95% Wilson intervals)."""
    lines = ["| setting | random legal | best board-blind, val | best board-blind, test | "
             "oracle | val / test seeds |", "|---|---|---|---|---|---|"]
    for r in results:
        b = r["best_script"]
        name = f"{r['setting']} ({r['tag']})" if r.get("tag") else r["setting"]
        lines.append(
            f"| {name} | {_pct(r['random'])} | {_pct(b['val'])} | "
            f"{_pct(b['test'])} | "
            f"{_pct(r['oracle'])} | {r['val_seeds'][0]}-{r['val_seeds'][1]} / "
            f"{r['test_seeds'][0]}-{r['test_seeds'][1]} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--out", default="runs/baselines", help="output folder")
    p.add_argument("--settings", default=",".join(SETTINGS),
                   help=f"comma-separated subset of {', '.join(SETTINGS)}")
    p.add_argument("--scripts", type=int, default=3000, help="random scripts searched")
    p.add_argument("--screen", type=int, default=60,
                   help="validation seeds every script plays (stage 1)")
    p.add_argument("--top", type=int, default=20, help="scripts re-played on every val seed")
    p.add_argument("--val-episodes", type=int, default=500)
    p.add_argument("--test-episodes", type=int, default=1000)
    p.add_argument("--val-seed", type=int, default=VAL_SEED)
    p.add_argument("--test-seed", type=int, default=TEST_SEED)
    p.add_argument("--search-seed", type=int, default=0, help="seed of the random scripts")
    p.add_argument("--tag", default="", help="a name for this measurement: <setting>-<tag>.json")
    p.add_argument("--progress", type=int, choices=(0, 1), default=1)
    args = p.parse_args(argv)
    names = [n for n in args.settings.split(",") if n]
    for n in names:
        if n not in SETTINGS:
            raise ValueError(f"unknown setting {n!r}; known: {', '.join(SETTINGS)}")
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    for n in names:
        result = measure(n, SETTINGS[n], scripts=args.scripts, screen=args.screen,
                         top=args.top, val_episodes=args.val_episodes,
                         test_episodes=args.test_episodes, val_seed=args.val_seed,
                         test_seed=args.test_seed, search_seed=args.search_seed,
                         progress=bool(args.progress))
        result["tag"] = args.tag
        name = f"{n}-{args.tag}" if args.tag else n
        (out / f"{name}.json").write_text(json.dumps(result, indent=1))
    found = [json.loads(f.read_text()) for f in sorted(out.glob("*.json"))
             if f.name != "baselines.json"]
    (out / "baselines.json").write_text(json.dumps(found, indent=1))
    print(table(found))
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        sys.exit(2)
