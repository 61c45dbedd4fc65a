"""The replay's pure parts against hand-computed values: comparisons, totals, the policy table."""

from __future__ import annotations

import pytest

from agentgym.evaluation import MAX_EPISODE_STEPS, step_fields
from agentgym.leaderboard.replay import (
    EXACT,
    FAMILY_POLICIES,
    episode_totals,
    policy_for,
    step_mismatches,
    total_mismatches,
)


def _step(reward: float, process: float, outcome: float, *, valid: bool = True,
          end: bool = False, success: bool = False, tokens: tuple[int, int] = (0, 0)) -> dict:
    return {"reward": reward, "reward_components": {"process": process, "outcome": outcome},
            "valid_action": valid, "terminated": end, "truncated": False, "success": success,
            "prompt_tokens": tokens[0], "completion_tokens": tokens[1]}


def test_episode_totals_by_hand() -> None:
    steps = [_step(0.25, 0.25, 0.0, tokens=(10, 2)), _step(-2.0, 0.0, 0.0, valid=False),
             _step(1.5, 0.5, 1.0, end=True, success=True, tokens=(12, 3))]
    assert episode_totals(steps) == {
        "steps": 3, "invalid_actions": 1, "episode_return": -0.25, "process_return": 0.75,
        "outcome_return": 1.0, "terminated": True, "truncated": False, "success": True,
        "prompt_tokens": 22, "completion_tokens": 5,
    }
    empty = episode_totals([])
    assert empty["steps"] == 0 and empty["episode_return"] == 0.0
    assert isinstance(empty["episode_return"], float)  # compares with a JSON 0.0


def test_floats_per_step_are_exact_totals_tolerant() -> None:
    assert step_mismatches({"reward": 0.1 + 0.2}, {"reward": 0.3}, EXACT) == [
        ("reward", 0.30000000000000004, 0.3)]
    assert total_mismatches({"episode_return": 0.1 + 0.2}, {"episode_return": 0.3}) == []
    assert total_mismatches({"episode_return": 1.0}, {"episode_return": 1.000001}) == [
        ("episode_return", 1.0, 1.000001)]


def test_types_are_not_coerced() -> None:
    # JSON true is not 1, and a count of 3.0 is not the int 3.
    assert total_mismatches({"success": True}, {"success": 1}) == [("success", True, 1)]
    assert total_mismatches({"steps": 3}, {"steps": 3.0}) == [("steps", 3, 3.0)]
    # (a JSON 1 for a boolean never gets here: the schema check refuses it first)
    assert step_mismatches({"valid_action": True}, {"valid_action": 1}, EXACT) == []
    assert step_mismatches({"valid_action": True}, {}, EXACT) == [("valid_action", True, None)]


def test_policy_table() -> None:
    assert set(FAMILY_POLICIES) == {"terminal"}
    assert policy_for(None) is EXACT and policy_for("webshop") is EXACT
    terminal = policy_for("terminal")
    assert not terminal.observations and terminal.fresh_env_per_episode and terminal.reason
    mine = {"reward": 1.0, "observation_sha": "aa", "success": True}
    assert step_mismatches(mine, {**mine, "observation_sha": "bb"}, terminal) == []
    assert step_mismatches(mine, {**mine, "success": False}, terminal) == [
        ("success", True, False)]


@pytest.mark.parametrize("index, truncated", [(MAX_EPISODE_STEPS - 2, False),
                                              (MAX_EPISODE_STEPS - 1, True)])
def test_eval_step_cap_is_replayed(index: int, truncated: bool) -> None:
    info = {"reward_components": {"process": 0.0, "outcome": 0.0}, "valid_action": True}
    step = step_fields("obs", 0.0, False, False, info, index=index)
    assert step["truncated"] is truncated
