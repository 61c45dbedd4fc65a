"""The SearchQA-v0 baselines table: oracle, question-as-query and random on a split.

Exact match, F1 and the share of gold passages retrieved, read from the last step's
``info`` of every episode (``agentgym eval`` reports exact match as its success rate).

    .venv/bin/python benchmarks/searchqa_baselines.py                      # the test split
    .venv/bin/python benchmarks/searchqa_baselines.py '{"split": "test", "min_hops": 3}'
    .venv/bin/python benchmarks/searchqa_baselines.py '{"corpus": "example"}'
"""

from __future__ import annotations

import json
import sys
from collections import defaultdict

import gymnasium as gym

import agentgym  # noqa: F401  (registers the ids)
from agentgym.agents import make_agent

AGENTS = ("oracle", "searchqa-question", "random")


def baselines(kwargs: dict) -> list[str]:
    """One Markdown table row per agent over every task of the env made with ``kwargs``."""
    env = gym.make("agentgym/SearchQA-v0", **kwargs)
    count = env.unwrapped.task_count() or 200
    rows = []
    for name in AGENTS:
        agent = make_agent(name)
        totals = defaultdict(float)
        by_hops: dict[int, list[float]] = defaultdict(list)
        for seed in range(count):
            obs, info = env.reset(seed=seed)
            agent.reset(env, seed=seed)
            while True:
                obs, _, terminated, truncated, info = env.step(agent.act(obs, info))
                totals["steps"] += 1
                if terminated or truncated:
                    break
            for key in ("exact_match", "f1", "gold_retrieved"):
                totals[key] += info[key]
            # The question's hop count is in the last step's info only (it would tell the agent
            # how many gold passages to look for).
            by_hops[info["hops"]].append(info["exact_match"])
        hops_text = " / ".join(f"{sum(v) / len(v):.2f} (n={len(v)})"
                               for _, v in sorted(by_hops.items()))
        rows.append(f"| {name} | {totals['exact_match'] / count:.3f} | "
                    f"{totals['f1'] / count:.3f} | {totals['gold_retrieved'] / count:.3f} | "
                    f"{totals['steps'] / count:.2f} | {hops_text} |")
    env.close()
    return rows


if __name__ == "__main__":
    kwargs = json.loads(sys.argv[1]) if len(sys.argv) > 1 else {"split": "test"}
    print(f"agentgym/SearchQA-v0 {json.dumps(kwargs)}")
    print("| agent | EM | F1 | gold passages retrieved | steps | EM by hops |")
    print("|---|---|---|---|---|---|")
    print("\n".join(baselines(kwargs)))
