"""Advantage functions against tables computed by hand (the working is in the comments)."""

from __future__ import annotations

import doctest
import math

import numpy as np
import pytest

import agentgym.trainers as trainers_package
from agentgym.trainers import advantages
from agentgym.trainers.advantages import (
    discounted_returns,
    dr_grpo,
    gigpo,
    grpo,
    scale_negatives,
    vpr,
    zero_spread_fraction,
)

EPS = 1e-6


# --- GRPO -----------------------------------------------------------------------------------


def test_grpo_one_group_of_four():
    # mean 0.5; deviations +-0.5; population std 0.5 -> +-0.5 / (0.5 + eps) = +-1 (up to eps).
    out = grpo([1.0, 0.0, 0.0, 1.0], [0, 0, 0, 0])
    unit = 0.5 / (0.5 + EPS)
    assert out.tolist() == pytest.approx([unit, -unit, -unit, unit], rel=1e-12)


def test_grpo_uses_the_population_std_per_group_with_interleaved_labels():
    # Group "x" (rows 0, 2, 4): [3, 1, 5], mean 3, deviations [0, -2, 2],
    #   population var (0 + 4 + 4) / 3 = 8/3, std sqrt(8/3) -> [0, -sqrt(3/2), +sqrt(3/2)].
    #   (The sample std would be 2 and give [0, -1, 1].)
    # Group "y" (rows 1, 3, 5): [0, 2, 4], mean 2, deviations [-2, 0, 2] -> same scale.
    r = math.sqrt(1.5)  # 1.2247448713915890
    out = grpo([3.0, 0.0, 1.0, 2.0, 5.0, 4.0], ["x", "y", "x", "y", "x", "y"], eps=0.0)
    assert out.tolist() == pytest.approx([0.0, -r, -r, 0.0, r, r], rel=1e-12)


def test_grpo_eps_is_added_to_the_std():
    # [1, 0, 0, 1]: deviations +-0.5, std 0.5; eps 0.5 -> +-0.5 / 1.0 = +-0.5.
    assert grpo([1, 0, 0, 1], [0] * 4, eps=0.5).tolist() == [0.5, -0.5, -0.5, 0.5]
    assert grpo([1, 0, 0, 1], [0] * 4, eps=0).tolist() == [1.0, -1.0, -1.0, 1.0]


def test_grpo_zero_spread_and_singleton_groups_are_exactly_zero():
    # 0.1 three times: the float mean is not 0.1 bit for bit, so a naive (r - mean) / eps
    # would give rounding noise amplified a million times.
    out = grpo([0.1, 0.1, 0.1, 7.0, 2.0, 4.0], [0, 0, 0, 1, 2, 2], eps=0.0)
    # Group 2: [2, 4] -> mean 3, std 1 -> [-1, 1].
    assert out.tolist() == [0.0, 0.0, 0.0, 0.0, -1.0, 1.0]


def test_grpo_label_types_do_not_change_the_result():
    rewards = [1.0, 0.0, 2.0, 2.0, 5.0]
    ints = grpo(rewards, [4, 4, 9, 9, 9])
    strings = grpo(rewards, ["a", "a", "b", "b", "b"])
    arrays = grpo(np.array(rewards), np.array([4, 4, 9, 9, 9]))
    assert ints.tolist() == strings.tolist() == arrays.tolist()


def test_grpo_of_nothing_is_empty():
    assert grpo([], []).shape == (0,)


# --- Dr.GRPO --------------------------------------------------------------------------------


def test_dr_grpo_centres_without_scaling():
    # Group 0: [1, 0, 0, 1], mean 0.5 -> [0.5, -0.5, -0.5, 0.5].
    # Group 1: [4, 2], mean 3 -> [1, -1] (GRPO would give the same +-1 for [40, 20]; Dr.GRPO
    # gives +-10 there).
    assert dr_grpo([1, 0, 0, 1, 4, 2], [0, 0, 0, 0, 1, 1]).tolist() == [
        0.5, -0.5, -0.5, 0.5, 1.0, -1.0,
    ]
    assert dr_grpo([40, 20], [0, 0]).tolist() == [10.0, -10.0]


def test_dr_grpo_zero_spread_is_exactly_zero():
    assert dr_grpo([0.1, 0.1, 0.1], ["g"] * 3).tolist() == [0.0, 0.0, 0.0]


# --- discounted returns ---------------------------------------------------------------------


def test_discounted_returns_by_hand():
    # Trajectory "a" has rewards [1, 0, 2] at rows 0, 2, 3 (interleaved with "b").
    # gamma 0.5: R_2 = 2, R_1 = 0 + 0.5 * 2 = 1, R_0 = 1 + 0.5 * 1 = 1.5.
    # Trajectory "b": rows 1, 4 with rewards [10, -4]: R_1 = -4, R_0 = 10 + 0.5 * -4 = 8.
    rewards = [1.0, 10.0, 0.0, 2.0, -4.0]
    trajectories = ["a", "b", "a", "a", "b"]
    assert discounted_returns(rewards, trajectories, 0.5).tolist() == [1.5, 8.0, 1.0, 2.0, -4.0]
    # gamma 1: plain sums to go; gamma 0: the rewards themselves.
    assert discounted_returns(rewards, trajectories, 1.0).tolist() == [3.0, 6.0, 2.0, 2.0, -4.0]
    assert discounted_returns(rewards, trajectories, 0.0).tolist() == rewards


def test_discounted_returns_gamma_power_grows_with_distance():
    # Four steps, reward only at the end: R_t = 0.9^(3 - t).
    out = discounted_returns([0, 0, 0, 1], [0] * 4, 0.9)
    assert out.tolist() == pytest.approx([0.729, 0.81, 0.9, 1.0], rel=1e-12)


# --- GiGPO ----------------------------------------------------------------------------------


def gigpo_example():
    """Two trajectories of group 0, plus a one-trajectory group 1 that also visits s0.

    A: states [s0, s1, s0, s2], step rewards [0, 0, 0, 1], episode return 1.
    B: states [s0, s1, s3],     step rewards [0, -1, 0],   episode return 0.
    C (group 1): state [s0], step reward [5], episode return 5.
    """
    return dict(
        episode_returns=[1, 1, 1, 1, 0, 0, 0, 5],
        step_rewards=[0, 0, 0, 1, 0, -1, 0, 5],
        groups=[0, 0, 0, 0, 0, 0, 0, 1],
        trajectories=["A", "A", "A", "A", "B", "B", "B", "C"],
        state_keys=["s0", "s1", "s0", "s2", "s0", "s1", "s3", "s0"],
    )


def test_gigpo_by_hand_on_two_trajectories():
    # Episode part, one value per trajectory (A: 1, B: 0 in group 0): mean 0.5, std 0.5 ->
    #   A +1, B -1 on every step. (Per step, A's four rows would pull the mean to 4/7.)
    #   C is alone in group 1 -> 0.
    # Step returns, gamma 0.5:
    #   A: R_3 = 1, R_2 = 0.5, R_1 = 0.25, R_0 = 0.125
    #   B: R_2 = 0, R_1 = -1, R_0 = -0.5
    #   C: R_0 = 5
    # Anchor groups (group, state):
    #   (0, s0) = {A0 1/8, A2 4/8, B0 -4/8}: mean 1/24; deviations 2/24, 11/24, -13/24;
    #     var (4 + 121 + 169) / 576 / 3 = 98/576, std 7*sqrt(2)/24
    #     -> A_step = 2/(7 sqrt 2), 11/(7 sqrt 2), -13/(7 sqrt 2) = 0.20203, 1.11117, -1.31320
    #   (0, s1) = {A1 0.25, B1 -1}: mean -0.375, deviations +-0.625, std 0.625 -> +1, -1
    #   (0, s2), (0, s3), (1, s0): one step each -> 0 (C's s0 is another group's anchor)
    # weight 0.5: A = A_episode + 0.5 * A_step.
    s = 7 * math.sqrt(2)
    expected = [
        1 + 0.5 * 2 / s,
        1 + 0.5 * 1,
        1 + 0.5 * 11 / s,
        1 + 0.0,
        -1 + 0.5 * -13 / s,
        -1 + 0.5 * -1,
        -1 + 0.0,
        0.0,
    ]
    out = gigpo(**gigpo_example(), gamma=0.5, weight=0.5, eps=0.0)
    assert out.tolist() == pytest.approx(expected, rel=1e-12)
    assert out.tolist() == pytest.approx(
        [1.10102, 1.5, 1.55558, 1.0, -1.65660, -1.5, -1.0, 0.0], abs=1e-5
    )


def test_gigpo_with_weight_zero_is_grpo_over_trajectories():
    out = gigpo(**gigpo_example(), gamma=0.5, weight=0.0, eps=0.0)
    assert out.tolist() == [1.0, 1.0, 1.0, 1.0, -1.0, -1.0, -1.0, 0.0]


def test_gigpo_does_not_depend_on_how_trajectories_interleave():
    example = gigpo_example()
    # Rows A0 B0 A1 B1 A2 B2 A3 C0: each trajectory still in turn order.
    order = [0, 4, 1, 5, 2, 6, 3, 7]
    shuffled = {k: [v[i] for i in order] for k, v in example.items()}
    straight = gigpo(**example, gamma=0.5, weight=0.5)
    interleaved = gigpo(**shuffled, gamma=0.5, weight=0.5)
    assert interleaved.tolist() == pytest.approx([straight[i] for i in order], rel=1e-12)


def test_gigpo_refuses_inconsistent_trajectories():
    example = gigpo_example()
    example["episode_returns"] = [1, 1, 0, 1, 0, 0, 0, 5]  # A's third row disagrees
    with pytest.raises(ValueError, match="constant within a trajectory; row 2"):
        gigpo(**example, gamma=0.5)
    example = gigpo_example()
    example["groups"] = [0, 0, 1, 0, 0, 0, 0, 1]  # A moves to group 1 on row 2
    with pytest.raises(ValueError, match="one group; row 2"):
        gigpo(**example, gamma=0.5)


# --- VPR ------------------------------------------------------------------------------------


def test_vpr_centres_drops_and_whitens_by_hand():
    # State P (K = 4): [1, 0, 0, 0], mean 0.25 -> c = [0.75, -0.25, -0.25, -0.25]
    # State Q: [2, 2, 2, 2]  -> zero spread: dropped
    # State R: [1, 1, 0, -2], mean 0 -> c = [1, 1, 0, -2]
    # State S: [7] alone     -> zero spread: dropped
    # Kept c: [0.75, -0.25, -0.25, -0.25, 1, 1, 0, -2], mean 0,
    #   var (0.5625 + 3 * 0.0625 + 1 + 1 + 0 + 4) / 8 = 6.75 / 8 = 27/32, std 3 sqrt(6) / 8
    #   -> A = c * 8 / (3 sqrt 6): 0.75 -> 2/sqrt6, -0.25 -> -2/(3 sqrt6), 1 -> 8/(3 sqrt6).
    scores = [1, 0, 0, 0, 2, 2, 2, 2, 1, 1, 0, -2, 7]
    states = ["P"] * 4 + ["Q"] * 4 + ["R"] * 4 + ["S"]
    out = vpr(scores, states, eps=0.0)
    k = 8 / (3 * math.sqrt(6))
    expected = [0.75 * k, -0.25 * k, -0.25 * k, -0.25 * k, 0, 0, 0, 0, k, k, 0.0, -2 * k, 0]
    assert out.advantages.tolist() == pytest.approx(expected, rel=1e-12)
    assert out.advantages[0] == pytest.approx(0.81650, abs=1e-5)
    assert out.keep.tolist() == [True] * 4 + [False] * 4 + [True] * 4 + [False]
    assert out.dropped_groups == 2
    kept = out.advantages[out.keep]
    assert kept.mean() == pytest.approx(0.0, abs=1e-12)
    assert kept.std() == pytest.approx(1.0, rel=1e-12)


def test_vpr_whitens_across_the_batch_not_per_group():
    # P alone: c = [0.75, -0.25, -0.25, -0.25], std sqrt(0.1875) -> 0.75 / 0.4330 = 1.7321.
    # With R in the batch the std is 3 sqrt(6)/8 and P's best gets 0.8165 instead.
    alone = vpr([1, 0, 0, 0], ["P"] * 4, eps=0.0).advantages
    together = vpr([1, 0, 0, 0, 1, 1, 0, -2], ["P"] * 4 + ["R"] * 4, eps=0.0).advantages
    assert alone[0] == pytest.approx(math.sqrt(3), rel=1e-12)
    assert together[0] == pytest.approx(2 / math.sqrt(6), rel=1e-12)


def test_vpr_all_flat_batch_keeps_nothing():
    out = vpr([1, 1, 0, 0, 3], [0, 0, 1, 1, 2])
    assert out.advantages.tolist() == [0.0] * 5
    assert out.keep.tolist() == [False] * 5
    assert out.dropped_groups == 3


def test_vpr_result_unpacks_as_a_triple():
    advantages_, keep, dropped = vpr([1, 0], [0, 0])
    assert keep.tolist() == [True, True] and dropped == 0
    assert advantages_.tolist() == pytest.approx([1.0, -1.0], rel=1e-5)


# --- zero-spread fraction -------------------------------------------------------------------


def test_scale_negatives_by_hand():
    adv = [2.0, -1.0, 0.0, -0.5, 0.25]
    assert scale_negatives(adv, 0.5).tolist() == [2.0, -0.5, 0.0, -0.25, 0.25]
    assert scale_negatives(adv, 0.0).tolist() == [2.0, 0.0, 0.0, 0.0, 0.25]
    assert scale_negatives(adv, 1.0).tolist() == adv


def test_zero_spread_fraction_by_hand():
    # "a" [1, 1] equal; "b" [0, 1] not; "c" [3] alone counts as equal; "d" [2, 2, 2] equal
    # -> 3 of 4 groups.
    values = [1, 1, 0, 1, 3, 2, 2, 2]
    groups = ["a", "a", "b", "b", "c", "d", "d", "d"]
    assert zero_spread_fraction(values, groups) == 0.75
    assert zero_spread_fraction([0, 1, 5, 6], [0, 0, 1, 1]) == 0.0
    assert zero_spread_fraction([0.1, 0.1], [0, 0]) == 1.0


def test_zero_spread_fraction_matches_what_grpo_zeroes():
    values = [1, 1, 0, 1, 3, 2, 2, 2]
    groups = [0, 0, 1, 1, 2, 3, 3, 3]
    zeroed = grpo(values, groups) == 0.0
    flat_groups = {g for g, z in zip(groups, zeroed, strict=True) if z}
    assert zero_spread_fraction(values, groups) == len(flat_groups) / 4


# --- bad input ------------------------------------------------------------------------------


def one_line_error(call):
    with pytest.raises(ValueError) as info:
        call()
    message = str(info.value)
    assert message and "\n" not in message
    return message


@pytest.mark.parametrize(
    ("call", "words"),
    [
        (lambda: grpo([1, 0, 1], [0, 0]), "groups has 2 entries but there are 3"),
        (lambda: dr_grpo([1, 0], [0, 0, 0]), "groups has 3 entries"),
        (lambda: discounted_returns([1, 0], [0], 0.9), "trajectories has 1 entries"),
        (lambda: vpr([1, 0], [0]), "state_groups has 1 entries"),
        (lambda: zero_spread_fraction([1], [0, 0]), "groups has 2 entries"),
        (lambda: gigpo([1, 1], [0], [0, 0], [0, 0], ["s", "t"], 0.9), "step_rewards has 1"),
        (lambda: gigpo([1, 1], [0, 1], [0, 0], [0, 0], ["s"], 0.9), "state_keys has 1"),
        (lambda: grpo([1.0, math.nan], [0, 0]), "rewards must be finite, got nan at index 1"),
        (lambda: grpo([1.0, math.inf], [0, 0]), "rewards must be finite, got inf"),
        (lambda: dr_grpo([math.nan], [0]), "rewards must be finite"),
        (lambda: vpr([0.0, math.nan], [0, 0]), "scores must be finite"),
        (lambda: zero_spread_fraction([math.nan], [0]), "values must be finite"),
        (lambda: discounted_returns([math.nan], [0], 0.5), "rewards must be finite"),
        (lambda: gigpo([math.nan], [0], [0], [0], ["s"], 0.5), "episode_returns must be finite"),
        (lambda: gigpo([1], [math.nan], [0], [0], ["s"], 0.5), "step_rewards must be finite"),
        (lambda: grpo([[1, 0], [0, 1]], [0, 0]), "rewards must be 1-D"),
        (lambda: grpo(["a", "b"], [0, 0]), "rewards must be a 1-D sequence of numbers"),
        (lambda: grpo([1, 0], np.zeros((2, 1))), "groups must be 1-D"),
        (lambda: grpo([1, 0], [[0], [1]]), "groups[0] is not hashable"),
        (lambda: discounted_returns([1], [0], -0.1), "gamma must be in [0, 1], got -0.1"),
        (lambda: discounted_returns([1], [0], 1.5), "gamma must be in [0, 1], got 1.5"),
        (lambda: discounted_returns([1], [0], math.nan), "gamma must be in [0, 1]"),
        (lambda: discounted_returns([1], [0], True), "gamma must be a number"),
        (lambda: gigpo([1], [0], [0], [0], ["s"], 2.0), "gamma must be in [0, 1]"),
        (lambda: grpo([1, 0], [0, 0], eps=-1e-6), "eps must be >= 0"),
        (lambda: vpr([1, 0], [0, 0], eps=math.inf), "eps must be a finite number"),
        (lambda: gigpo([1], [0], [0], [0], ["s"], 0.5, weight=math.nan), "weight must be"),
        (lambda: zero_spread_fraction([], []), "needs at least one value"),
        (lambda: scale_negatives([1.0, -1.0], 1.5), "weight must be in [0, 1], got 1.5"),
        (lambda: scale_negatives([1.0, -1.0], -0.1), "weight must be in [0, 1]"),
        (lambda: scale_negatives([math.nan], 0.5), "advantages must be finite"),
    ],
)
def test_bad_input_is_refused_in_one_line(call, words):
    assert words in one_line_error(call)


# --- docstrings -----------------------------------------------------------------------------


@pytest.mark.parametrize("module", [advantages, trainers_package])
def test_docstring_examples_run(module):
    results = doctest.testmod(module)
    assert results.failed == 0 and results.attempted > 0
