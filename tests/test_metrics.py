"""agentgym.metrics against hand-computed values."""

from __future__ import annotations

import math

import pytest

from agentgym.metrics import family_score, mean_se, pass_hat_k, summarise


def ep(task: int, success: bool, **fields) -> dict:
    return {"task": task, "success": success, **fields}


def test_pass_hat_k_table():
    # n=5 trials, c=3 successes: C(3,1)/C(5,1)=3/5, C(3,2)/C(5,2)=3/10, C(3,3)/C(5,3)=1/10.
    assert [pass_hat_k(3, 5, k) for k in (1, 2, 3, 4)] == [0.6, 0.3, 0.1, 0.0]
    assert pass_hat_k(0, 3, 1) == 0.0


@pytest.mark.parametrize("c,n,k", [(4, 3, 1), (-1, 3, 1), (1, 3, 0), (1, 3, 4)])
def test_pass_hat_k_refuses_impossible_counts(c, n, k):
    with pytest.raises(ValueError, match="pass"):
        pass_hat_k(c, n, k)


def test_pass_hat_averages_over_tasks():
    # Task 0: 3/3 -> pass^2 = 1; task 1: 1/3 -> pass^2 = 0; task 2: 2/3 -> C(2,2)/C(3,2) = 1/3.
    eps = [ep(0, True)] * 3 + [ep(1, True), ep(1, False), ep(1, False)] + \
          [ep(2, True), ep(2, True), ep(2, False)]
    s = summarise(eps, trials=3)
    assert s["pass^1"] == pytest.approx(6 / 9)
    assert s["pass^2"] == pytest.approx((1 + 0 + 1 / 3) / 3)
    assert s["pass^3"] == pytest.approx(1 / 3)
    assert s["tasks"] == 3 and s["episodes"] == 9


def test_means_rates_and_tokens():
    eps = [
        ep(0, True, episode_return=2.0, process_return=1.0, outcome_return=1.0, steps=4,
           invalid_actions=1, prompt_tokens=10, completion_tokens=5),
        ep(1, False, episode_return=0.0, process_return=0.0, outcome_return=0.0, steps=6,
           invalid_actions=0, truncated=True, failed=True, prompt_tokens=30, completion_tokens=7),
    ]
    s = summarise(eps)
    assert s["success_rate"] == 0.5
    assert s["success_rate_se"] == pytest.approx(math.sqrt(0.5 / 2))  # std(ddof=1)=sqrt(.5)
    assert s["mean_return"] == 1.0 and s["mean_process_return"] == 0.5
    assert s["mean_steps"] == 5.0 and s["invalid_action_rate"] == 0.1
    assert s["truncated_rate"] == 0.5 and s["failed_episodes"] == 1
    assert s["mean_prompt_tokens"] == 20.0 and s["mean_completion_tokens"] == 6.0
    assert s["mean_tokens"] == 26.0
    assert s["score"] == 50.0


def test_webshop_score_is_mean_outcome():
    eps = [ep(0, False, outcome_return=0.5), ep(1, True, outcome_return=1.0)]
    assert summarise(eps, family="webshop")["score"] == 75.0
    assert family_score("markets", {"success_rate": 0.2, "mean_outcome_return": 9.0}) == 20.0


def test_extras_give_per_type_success_and_f1():
    eps = [ep(0, True, extras={"task_type": "heat", "f1": 1.0, "exact_match": 1.0}),
           ep(1, False, extras={"task_type": "heat", "f1": 0.5, "exact_match": 0.0}),
           ep(2, True, extras={"task_type": "clean"})]
    s = summarise(eps)
    assert s["success_by_task_type"] == {"clean": 1.0, "heat": 0.5}
    assert s["mean_f1"] == 0.75 and s["exact_match"] == 0.5
    assert "mean_f1" not in summarise([ep(0, True)])


def test_bad_input():
    with pytest.raises(ValueError, match="no episodes"):
        summarise([])
    with pytest.raises(ValueError, match="trials"):
        summarise([ep(0, True)], trials=0)
    with pytest.raises(ValueError):
        mean_se([])
