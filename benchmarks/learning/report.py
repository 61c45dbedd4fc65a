"""The learning benchmark's figures from its runs: every figure with a 95% interval, and the plot.

:func:`summarize` is pure (dicts in, a dict out); :func:`plot` draws it. The inputs are what
:mod:`run` writes: an evaluation is ``{"outcomes": [0/1 per episode], ...}``, a run is
``{"arm", "seed", "curve": [evaluation with "env_steps"], "final_sampled"}``, and the
baselines are :mod:`baselines`' JSON for the same setting.

What is reported, and how (:mod:`intervals`):

* each evaluation: its success rate over its episodes, Wilson 95%;
* each arm at each evaluation point: the mean over training seeds, percentile bootstrap over
  the seeds;
* each arm's final policy minus the best board-blind script, and minus the warm start: a
  two-sample bootstrap (seeds of the arm, episodes of the reference); ``beats`` is true only
  when the whole interval is above zero;
* each pair of arms (``vpr - grpo``, and any variant against standard GRPO): a paired
  bootstrap over the training seeds both arms ran.

>>> ev = {"outcomes": [1, 0, 0, 1]}
>>> s = summarize(ev, [{"arm": "grpo", "seed": 1, "curve": [{**ev, "env_steps": 50}]}], None)
>>> s["arms"]["grpo"]["final"]["mean"]
0.5
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from intervals import (
    bootstrap_difference_interval,
    bootstrap_mean_interval,
    excludes_zero,
    paired_bootstrap_interval,
    wilson_interval,
)

__all__ = ["REFERENCE_LINES", "pairs", "plot", "rate", "summarize"]

#: The plot's reference lines: (key in the summary's ``references``, label, style).
REFERENCE_LINES = (
    ("oracle", "oracle", "-"),
    ("best_script", "best board-blind script", "-."),
    ("warm_start", "SFT warm start", "--"),
    ("random", "random legal moves", ":"),
)


def rate(evaluation: dict[str, Any]) -> dict[str, Any]:
    """An evaluation's success rate, with its Wilson 95% interval.

    >>> rate({"outcomes": [1, 1, 0, 0]})["success"]
    0.5
    """
    outcomes = [int(bool(x)) for x in evaluation["outcomes"]]
    if not outcomes:
        raise ValueError("an evaluation with no episodes has no success rate")
    k, n = sum(outcomes), len(outcomes)
    lo, hi = wilson_interval(k, n)
    return {"success": k / n, "ci95": [lo, hi], "successes": k, "episodes": n}


def _interval(t: tuple[float, float, float]) -> dict[str, Any]:
    return {"mean": t[0], "ci95": [t[1], t[2]], "excludes_zero": excludes_zero(t)}


def pairs(arms: list[str]) -> list[tuple[str, str]]:
    """The paired differences to report: VPR and every GRPO variant against standard GRPO.

    >>> pairs(["grpo", "grpo-pos", "vpr"])
    [('vpr', 'grpo'), ('grpo-pos', 'grpo')]
    """
    if "grpo" not in arms:
        return []
    out = [("vpr", "grpo")] if "vpr" in arms else []
    return out + [(a, "grpo") for a in arms if a.startswith("grpo-")]


def summarize(warm: dict[str, Any], runs: list[dict[str, Any]],
              baselines: dict[str, Any] | None, n_boot: int = 10_000) -> dict[str, Any]:
    """Every reported figure (see the module docstring). ``baselines`` may be None (no
    script or oracle lines, no difference to the script)."""
    refs: dict[str, Any] = {"warm_start": rate(warm)}
    script_outcomes = None
    if baselines is not None:
        refs["random"] = baselines["random"]
        refs["oracle"] = baselines["oracle"]
        refs["best_script"] = baselines["best_script"]["test"]
        script_outcomes = baselines["best_script"].get("test_outcomes")
    if warm.get("sampled"):
        refs["warm_start_sampled"] = rate(warm["sampled"])
    by_arm: dict[str, list[dict[str, Any]]] = {}
    for r in sorted(runs, key=lambda r: (r["arm"], r["seed"])):
        if len(r.get("curve") or []) < 1:
            continue  # a run with no evaluation after the warm start has no figure
        by_arm.setdefault(r["arm"], []).append(r)
    arms: dict[str, Any] = {}
    for arm, rs in by_arm.items():
        finals = {r["seed"]: rate(r["curve"][-1]) for r in rs}
        values = [finals[r["seed"]]["success"] for r in rs]
        n_points = min(len(r["curve"]) for r in rs)
        curve = []
        for i in range(n_points):
            ys = [rate(r["curve"][i])["success"] for r in rs]
            mean, lo, hi = bootstrap_mean_interval(ys, n_boot=n_boot)
            steps = sum(r["curve"][i]["env_steps"] for r in rs) / len(rs)
            curve.append({"env_steps": steps, "mean": mean, "ci95": [lo, hi]})
        mean, lo, hi = bootstrap_mean_interval(values, n_boot=n_boot)
        entry: dict[str, Any] = {
            "seeds": [r["seed"] for r in rs],
            "per_seed_final": {str(s): f for s, f in finals.items()},
            "final_env_steps": [r["curve"][-1]["env_steps"] for r in rs],
            "final": {"mean": mean, "ci95": [lo, hi]},
            "curve": curve,
            "minus_warm_start": _interval(bootstrap_difference_interval(
                values, warm["outcomes"], n_boot=n_boot)),
        }
        sampled = [rate(r["final_sampled"])["success"] for r in rs if r.get("final_sampled")]
        if sampled:
            m, lo_s, hi_s = bootstrap_mean_interval(sampled, n_boot=n_boot)
            entry["final_sampled"] = {"mean": m, "ci95": [lo_s, hi_s], "seeds": len(sampled)}
        if script_outcomes:
            diff = _interval(bootstrap_difference_interval(values, script_outcomes,
                                                           n_boot=n_boot))
            entry["minus_best_script"] = diff
            entry["beats_best_script"] = diff["excludes_zero"] and diff["mean"] > 0
        arms[arm] = entry
    paired = {}
    for a, b in pairs(sorted(arms)):
        seeds = sorted(set(arms[a]["seeds"]) & set(arms[b]["seeds"]))
        if not seeds:
            continue
        xa = [arms[a]["per_seed_final"][str(s)]["success"] for s in seeds]
        xb = [arms[b]["per_seed_final"][str(s)]["success"] for s in seeds]
        paired[f"{a} - {b}"] = {**_interval(paired_bootstrap_interval(xa, xb, n_boot=n_boot)),
                                "seeds": seeds}
    return {"references": refs, "arms": arms, "paired": paired}


def plot(summary: dict[str, Any], path: Path, title: str = "") -> None:
    """Held-out success against env steps: each arm's mean over seeds with its bootstrap band,
    each seed thin, and the reference lines (oracle, best board-blind script, warm start,
    random legal moves) with their Wilson bands."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    colors = {"grpo": "tab:blue", "vpr": "tab:orange"}
    fig, ax = plt.subplots(figsize=(8, 4.5))
    for key, label, style in REFERENCE_LINES:
        ref = summary["references"].get(key)
        if ref is None:
            continue
        lo, hi = ref["ci95"]
        line = ax.axhline(ref["success"], ls=style, color="gray" if key != "best_script"
                          else "tab:red", lw=1.2,
                          label=f"{label}: {ref['success']:.0%} [{lo:.0%}, {hi:.0%}]")
        ax.axhspan(lo, hi, color=line.get_color(), alpha=0.08)
    # Every run starts from the warm start: each curve begins at its point, env step 0.
    warm = summary["references"]["warm_start"]
    start = [{"env_steps": 0, "mean": warm["success"], "ci95": warm["ci95"]}]
    for i, (arm, entry) in enumerate(sorted(summary["arms"].items())):
        color = colors.get(arm, f"C{i + 2}")
        points = start + entry["curve"]
        xs = [p["env_steps"] for p in points]
        ax.plot(xs, [p["mean"] for p in points], color=color, lw=2.5, marker="o",
                label=f"{arm}: mean of {len(entry['seeds'])} seeds, 95% bootstrap band")
        ax.fill_between(xs, [p["ci95"][0] for p in points], [p["ci95"][1] for p in points],
                        color=color, alpha=0.2)
    ax.set_xlabel("env steps (env.step calls)")
    ax.set_ylabel("held-out success (greedy)")
    ax.set_ylim(-0.02, 1.02)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7, loc="best")
    ax.set_title(title, fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
