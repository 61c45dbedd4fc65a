"""Task sets: pinned splits, --limit slices, custom seeds, trials and their agent seeds."""

from __future__ import annotations

import pytest
from test_cli import COUNTER, register_toys

import agentgym
from agentgym.evaluation import agent_seed, evaluate, resolve_tasks
from agentgym.registry import ENVIRONMENTS
from agentgym.splits import task_set_hash

register_toys()


def test_default_task_set_is_the_envs_first_split():
    tasks = resolve_tasks("agentgym/Sokoban-v0")
    first = next(e for e in ENVIRONMENTS if e.id == "agentgym/Sokoban-v0").splits[0]
    assert tasks.split == first.name == "test"
    assert tasks.seeds == first.seeds and len(tasks.seeds) == 100
    assert tasks.seeds[:2] == (100_000, 100_001)


def test_limit_keeps_the_first_tasks_and_user_kwargs_update_the_splits():
    tasks = resolve_tasks("agentgym/WebShop-v0", limit=3, env_kwargs={"num_products": 2000})
    assert tasks.seeds == (0, 1, 2)
    # The split's own kwarg stays unless the user overrides it.
    assert tasks.env_kwargs == {"split": "test", "num_products": 2000}
    override = resolve_tasks("agentgym/WebShop-v0", limit=1, env_kwargs={"split": "eval"})
    assert override.env_kwargs == {"split": "eval"}


def test_custom_seeds_have_no_split():
    tasks = resolve_tasks("agentgym/Sokoban-v0", seed=7, episodes=3)
    assert (tasks.split, tasks.seeds) == (None, (7, 8, 9))
    assert resolve_tasks("agentgym/Sokoban-v0", episodes=2).seeds == (0, 1)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"split": "dev"}, "agentgym/Sokoban-v0 has no split 'dev'; its splits: test"),
        ({"limit": 101}, "--limit 101 is over the 100 tasks of agentgym/Sokoban-v0's split"),
        ({"limit": 0}, "--limit must be a positive int, got 0"),
        ({"split": "test", "seed": 3}, "not both"),
        ({"limit": 2, "episodes": 3}, "not both"),
        ({"seed": -1}, "seed must be a non-negative int"),
        ({"episodes": 0}, "episodes must be a positive int"),
    ],
)
def test_bad_task_sets_are_refused(kwargs, message):
    with pytest.raises(ValueError) as info:
        resolve_tasks("agentgym/Sokoban-v0", **kwargs)
    assert message in str(info.value)


def test_an_env_outside_the_registry_needs_custom_seeds():
    with pytest.raises(ValueError, match=r"has no pinned evaluation splits.*--seed S --episodes N"):
        resolve_tasks(COUNTER)
    with pytest.raises(ValueError, match="unknown env id 'agentgym/Nope-v0'"):
        resolve_tasks("agentgym/Nope-v0")


def test_agent_seeds_follow_the_schema():
    # Hand-computed: trial t of the task seeded s seeds its agent s + 1_000_003 * t.
    assert [agent_seed(100_000, t) for t in range(3)] == [100_000, 1_100_003, 2_100_006]


def test_a_run_with_trials_records_its_task_set_and_agent_seeds():
    report = evaluate("agentgym/TicTacToe-v0", "random", limit=2, trials=3, progress=False)
    data = report.to_json()
    assert data["split"] == "test" and data["task_seeds"] == [100_000, 100_001]
    assert data["task_set_hash"] == task_set_hash("agentgym/TicTacToe-v0", {}, [100_000, 100_001])
    assert [(e["episode"], e["task"], e["trial"]) for e in data["episodes"]] == [
        (0, 0, 0), (1, 0, 1), (2, 0, 2), (3, 1, 0), (4, 1, 1), (5, 1, 2)
    ]
    assert [e["seed"] for e in data["episodes"]] == [100_000] * 3 + [100_001] * 3
    assert [e["agent_seed"] for e in data["episodes"]] == [
        100_000, 1_100_003, 2_100_006, 100_001, 1_100_004, 2_100_007
    ]
    assert data["summary"]["trials"] == 3 and "pass^3" in data["summary"]
    assert data["verifier"]["name"] and data["verifier"]["version"]


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"trials": 0}, "trials must be a positive int"),
    ({"workers": 0}, "workers must be a positive int"),
])
def test_bad_trials_and_workers_are_refused(kwargs, message):
    with pytest.raises(ValueError, match=message):
        evaluate("agentgym/TicTacToe-v0", "random", limit=1, progress=False, **kwargs)


def test_every_registered_env_has_a_default_split():
    for env_id in agentgym.env_ids():
        tasks = resolve_tasks(env_id, limit=1)
        assert tasks.split is not None and len(tasks.seeds) == 1
