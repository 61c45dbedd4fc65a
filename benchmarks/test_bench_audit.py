"""The audit's search adversary: complete episodes it checks per second (issue 34).

One round of benchmark = one search of a fixed step budget from the honest reference's seeds:
``search_exploit`` with a time budget would make every round take the same time, so the rows
fix the budget in seconds and report episodes / second in ``extra_info``. Rows:

* ``search-sokoban``: Sokoban-v0 at its defaults (a game: cheap steps, snapshots of a grid);
* ``search-webshop-text``: WebShop-v0 in text mode, 1000 products (pages, search, snapshots
  of the engine state).

    .venv/bin/pytest benchmarks/test_bench_audit.py --benchmark-only
"""

from __future__ import annotations

import gymnasium as gym
import pytest

import agentgym  # noqa: F401  (registers the ids)
from agentgym.agents import make_agent
from agentgym.audit import audit_spec
from agentgym.audit.episodes import play_episode
from agentgym.audit.search import search_exploit

#: Seconds each search round runs; the figure is the episodes it completes in them.
BUDGET_S = 2.0

CASES = {
    "sokoban": ("agentgym/Sokoban-v0", {}),
    "webshop-text": ("agentgym/WebShop-v0", {"num_products": 1000}),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_search_episodes_per_second(benchmark, case):
    env_id, kwargs = CASES[case]
    env = gym.make(env_id, **kwargs).unwrapped
    spec = audit_spec(env_id)
    assert spec is not None, f"{env_id} registers no AuditSpec"
    assert spec.references == ("oracle",)
    refs = {s: play_episode(env, make_agent("oracle"), s, spec) for s in range(3)}
    benchmark.group = "audit-search"
    results = []

    def search() -> None:
        results.append(search_exploit(env, spec, refs, budget_s=BUDGET_S, seed=len(results)))

    benchmark.pedantic(search, rounds=3, iterations=1)
    episodes = sum(r.episodes for r in results)
    seconds = sum(r.seconds for r in results)
    benchmark.extra_info["episodes_per_second"] = round(episodes / seconds, 1)
    benchmark.extra_info["steps_per_second"] = round(sum(r.steps for r in results) / seconds)
    assert episodes > 0
