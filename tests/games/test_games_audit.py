"""``agentgym audit`` on the games: each id's declared AuditSpec passes a short audit, plays
the family's own exploits, and declares a potential only where the rewards telescope.

These runs are short enough for the suite (3 episodes, 2 s of search) and still play every
policy and check of the audit; ``agentgym audit`` runs the longer ones.
"""

from __future__ import annotations

import dataclasses

import gymnasium as gym
import pytest

import agentgym  # noqa: F401  (registers the ids)
from agentgym.audit import audit_spec, run_audit
from agentgym.environments.games.shaping import PROGRESS_TOTAL, step_cost

GAMES = ["agentgym/Sokoban-v0", "agentgym/Sudoku-v0", "agentgym/Minesweeper-v0",
         "agentgym/TicTacToe-v0"]


@pytest.mark.parametrize("env_id", GAMES)
def test_short_audit_passes_and_plays_the_family_exploits(env_id):
    spec = audit_spec(env_id)
    assert spec is not None and spec.exploits, env_id
    report = run_audit(env_id, episodes=3, budget_s=2)
    assert report.passed, [(row.name, row.detail) for row in report.failures()]
    names = {row.name for row in report.rows}
    assert {f"{name} (family)" for name in spec.exploits} <= names


@pytest.mark.parametrize("env_id", ["agentgym/Sokoban-v0", "agentgym/Minesweeper-v0"])
def test_progress_potential_counts_only_valid_steps(env_id):
    """The declared potential matches every step, invalid ones included; a potential that
    charged the step cost on invalid steps too (the obvious ``cost * steps``) would not:
    an invalid action pays only the invalid penalty."""
    env = gym.make(env_id, max_invalid=3).unwrapped
    potential = audit_spec(env_id).potential
    cost = step_cost(PROGRESS_TOTAL, env.max_steps)

    def naive(e):
        return potential(e) - cost * e.invalid_actions if not e.is_over else potential(e)

    env.reset(seed=0)
    before, before_naive = potential(env), naive(env)
    for action in ["\x00?", *env.oracle_actions()[:1], "\x00?"]:
        _, reward, terminated, truncated, info = env.step(action)
        paid = info["reward_components"]["process"]
        if not info["valid_action"]:
            paid -= env.invalid_penalty
        after, after_naive = potential(env), naive(env)
        assert paid == pytest.approx(after - before), action
        if not info["valid_action"]:
            assert paid != pytest.approx(after_naive - before_naive), action
        before, before_naive = after, after_naive
        assert not (terminated or truncated)


def test_sokoban_shaping_check_catches_a_wrong_potential():
    """The audit's shaping row reads the declaration: a potential without the step cost
    fails it, so a passing row means the declared one is exact."""
    spec = audit_spec("agentgym/Sokoban-v0")

    def cost_free(env):
        if env.is_over:
            return spec.potential(env)
        cost = step_cost(PROGRESS_TOTAL, env.max_steps)
        return spec.potential(env) + cost * (env.steps - env.invalid_actions)

    wrong = dataclasses.replace(spec, potential=cost_free)
    report = run_audit("agentgym/Sokoban-v0", episodes=1, budget_s=0, spec=wrong)
    row = next(row for row in report.rows if row.name == "shaping identity")
    assert row.verdict == "fail", row.detail
