"""The audit against planted defects: each toy env carries one, the audit must flag it by
name, and the same env without the defect must pass."""

from __future__ import annotations

import pytest
from planted_envs import TREASURE_ID, WALK_ID

from agentgym.audit import run_audit


def failing(report) -> set[str]:
    return {row.name for row in report.failures()}


def audit(env_id: str, defect: str, budget_s: float = 2.0):
    return run_audit(env_id, {"defect": defect}, episodes=3, budget_s=budget_s, seed=0)


def test_the_toy_envs_pass_without_their_defects():
    assert audit(WALK_ID, "").passed, audit(WALK_ID, "").failures()
    assert audit(TREASURE_ID, "").passed


def test_a_reward_paid_for_oscillation_is_flagged_by_the_oscillating_policy():
    report = audit(WALK_ID, "oscillation")
    flagged = [r for r in report.failures() if r.name.startswith("oscillate")]
    assert flagged, failing(report)
    assert all(row.success == 0.0 and row.ret > 1.5 for row in flagged)


def test_shaping_that_is_not_a_potential_fails_the_shaping_identity():
    report = audit(WALK_ID, "not-a-potential")
    assert "shaping identity" in failing(report)


def test_success_without_outcome_fails_success_means_outcome():
    report = audit(WALK_ID, "success-without-outcome")
    assert failing(report) == {"success means outcome"}


def test_a_hidden_value_in_info_is_flagged_by_the_key_check_and_the_peeker():
    report = audit(TREASURE_ID, "leak")
    assert {"info keys", "info peeker"} <= failing(report)
    peek = next(r for r in report.rows if r.name == "info-peeker")
    assert peek.success == 1.0


def test_an_exploit_only_the_search_finds():
    report = audit(WALK_ID, "combo", budget_s=20.0)
    # None of the fixed policies plays the four-move combo...
    assert failing(report) == {"search"}
    # ...and the search's evidence replays to the exploit.
    search = next(r for r in report.rows if r.name == "search")
    assert tuple(search.evidence["actions"][-4:]) == ("wait", "left", "up", "left")
    assert search.ret >= 5.0 and search.success == 0.0


def test_the_search_is_repeatable_for_a_seed():
    first = audit(WALK_ID, "combo", budget_s=20.0)
    second = audit(WALK_ID, "combo", budget_s=20.0)
    pick = lambda r: next(x for x in r.rows if x.name == "search").evidence  # noqa: E731
    assert pick(first)["actions"] == pick(second)["actions"]


@pytest.mark.parametrize("episodes, budget", [(0, 1.0), (1, -1.0), (1, float("nan"))])
def test_bad_arguments_are_one_line_errors(episodes, budget):
    with pytest.raises(ValueError, match="must be"):
        run_audit(WALK_ID, episodes=episodes, budget_s=budget)
