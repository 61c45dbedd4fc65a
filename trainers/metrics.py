"""Run metrics: one JSON object per update in ``metrics.jsonl`` (and the same rows as
``metrics.csv`` beside it, for spreadsheets and plotting tools), PNG curves at the end.

Each row is flat (``update`` first, then numbers). Rows whose keys are in
:data:`TIMING_KEYS` measure the machine, not the run: they are the only values that differ
between two runs of the same config (the resume test compares everything else).
"""

from __future__ import annotations

import csv
import json
import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from agentgym.rewards import combine_rewards

from .records import StepTable

__all__ = [
    "TIMING_KEYS",
    "MetricsLog",
    "plot_metrics",
    "read_metrics",
    "rollout_metrics",
    "without_timing",
]

#: Wall-clock measurements: they vary from run to run.
TIMING_KEYS = frozenset(
    {"tokens_per_s", "env_time_share", "rollout_s", "update_s", "elapsed_s", "gen_s", "env_s",
     "eval_s"}
)

#: The curves plotted by default, when a run logged them.
DEFAULT_PLOTS = (
    "reward_mean",
    "success_rate",
    "eval_success_rate",
    "valid_action_rate",
    "zero_spread_fraction",
    "loss",
    "entropy",
    "approx_kl",
    "tokens_per_s",
)


def without_timing(row: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in row.items() if k not in TIMING_KEYS}


class MetricsLog:
    """Append-only JSONL metrics; ``rows`` keeps them in memory for checkpoints and plots.

    Every row also goes to ``metrics.csv`` in the same folder: one column per key seen so
    far (in order of first appearance), empty where a row lacks the key (a skipped update
    has no loss). The CSV is rewritten whole on each row, since a new key adds a column.

    >>> import tempfile, pathlib
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     log = MetricsLog(pathlib.Path(tmp) / "metrics.jsonl")
    ...     log.log({"update": 1, "reward_mean": 0.5})
    ...     log.log({"update": 2, "reward_mean": 0.25, "loss": 1.0})
    ...     print(log.csv_path.read_text(), end="")
    update,reward_mean,loss
    1,0.5,
    2,0.25,1.0
    """

    def __init__(self, path: str | Path, rows: Sequence[dict[str, Any]] = ()) -> None:
        self.path = Path(path)
        self.csv_path = self.path.with_suffix(".csv")
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.rows: list[dict[str, Any]] = [dict(r) for r in rows]
        # Rewrite the file from ``rows``: on resume, rows logged after the checkpoint go.
        with self.path.open("w", encoding="utf-8") as out:
            for row in self.rows:
                out.write(json.dumps(row) + "\n")
        self._write_csv()

    def log(self, row: dict[str, Any]) -> None:
        clean = {k: (None if isinstance(v, float) and not math.isfinite(v) else v)
                 for k, v in row.items()}
        self.rows.append(clean)
        with self.path.open("a", encoding="utf-8") as out:
            out.write(json.dumps(clean) + "\n")
        self._write_csv()

    def _write_csv(self) -> None:
        columns = list(dict.fromkeys(key for row in self.rows for key in row))
        with self.csv_path.open("w", encoding="utf-8", newline="") as out:
            writer = csv.DictWriter(out, fieldnames=columns, restval="")
            if columns:
                writer.writeheader()
            for row in self.rows:
                writer.writerow({k: ("" if v is None else v) for k, v in row.items()})


def read_metrics(path: str | Path) -> list[dict[str, Any]]:
    with Path(path).open(encoding="utf-8") as lines:
        return [json.loads(line) for line in lines if line.strip()]


def plot_metrics(
    rows: Sequence[dict[str, Any]],
    out: str | Path,
    keys: Sequence[str] = DEFAULT_PLOTS,
    *,
    x: str = "update",
    title: str = "",
) -> Path | None:
    """One PNG with a panel per logged key (``None`` when there is nothing to plot)."""
    import matplotlib

    matplotlib.use("Agg")  # files only: no display needed
    import matplotlib.pyplot as plt

    present = [k for k in keys if any(isinstance(r.get(k), (int, float)) for r in rows)]
    if not present:
        return None
    cols = min(4, len(present))
    nrows = math.ceil(len(present) / cols)
    fig, axes = plt.subplots(nrows, cols, figsize=(4 * cols, 3 * nrows), squeeze=False)
    for ax, key in zip(axes.flat, present, strict=False):
        points = [(r[x], r[key]) for r in rows if isinstance(r.get(key), (int, float))]
        ax.plot([p[0] for p in points], [p[1] for p in points], marker="o", markersize=3)
        ax.set_title(key)
        ax.set_xlabel(x)
        ax.grid(alpha=0.3)
    for ax in list(axes.flat)[len(present):]:
        ax.axis("off")
    if title:
        fig.suptitle(title)
    fig.tight_layout()
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, dpi=100)
    plt.close(fig)
    return out


def rollout_metrics(table: Any, reward_mode: str, rollout_s: float) -> dict[str, float]:
    """What a rollout's step table says about the policy, as one metrics row's numbers.

    Episode numbers read the rows that were played: all of them for episode groups, only
    the committed candidate at each state for a state-group (VPR) rollout. ``reward_mean``
    is the mean episode return in ``reward_mode``, ``process_return`` / ``outcome_return``
    its parts. From ``table.stats`` (:class:`~agentgym.trainers.rollout.RolloutStats`):
    ``success_rate``, ``valid_action_rate``, ``tokens_per_s`` (generated tokens per second
    of generation) and ``env_time_share`` (env time over env + generation time). A table
    without ``stats`` (a custom rollout) gets success from the rows (terminated with a
    positive outcome) and tokens per second of the whole rollout.
    """
    stats = getattr(table, "stats", None)
    rows = list(table)
    committed = list(getattr(stats, "committed", None) or [True] * len(rows))
    played = [r for r, c in zip(rows, committed, strict=True) if c]
    n_episodes = len(getattr(stats, "episode_success", None) or []) or len(
        {r.trajectory for r in played}
    )
    n = max(n_episodes, 1)
    played_table = StepTable(played) if stats is None or all(committed) else None
    ret = sum(combine_rewards(r.reward_components, reward_mode) for r in played)
    tokens = sum(len(r.completion_ids) for r in rows)
    out: dict[str, float] = {
        "episodes": n_episodes,
        "env_steps": len(played),
        "reward_mean": ret / n,
        "process_return": sum(r.process for r in played) / n,
        "outcome_return": sum(r.outcome for r in played) / n,
        "completion_tokens": tokens,
        "rollout_s": rollout_s,
    }
    if stats is not None:
        out["success_rate"] = float(stats.success_rate)
        out["valid_action_rate"] = float(stats.valid_action_rate)
        gen_s, env_s = stats.generation_seconds, stats.env_seconds
        out["gen_s"], out["env_s"] = gen_s, env_s
        out["tokens_per_s"] = stats.generated_tokens / gen_s if gen_s > 0 else 0.0
        out["env_time_share"] = env_s / (env_s + gen_s) if env_s + gen_s > 0 else 0.0
    else:
        assert played_table is not None
        ends = [t[len(t) - 1] for t in played_table.by_trajectory().values()]
        out["success_rate"] = sum(r.terminated and r.outcome > 0 for r in ends) / n
        out["tokens_per_s"] = tokens / rollout_s if rollout_s > 0 else 0.0
    return out
