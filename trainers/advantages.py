"""Advantages as pure functions: GRPO, Dr.GRPO, GiGPO, VPR, and the zero-spread check.

Every function takes flat 1-D inputs, one entry per row (a step, or a trajectory where the
docstring says so), with group labels of any hashable type (ints, strings, ...), and returns
NumPy ``float64`` arrays aligned with its input. The trainer turns them into tensors.

Conventions shared by all of them:

* standard deviations are *population* ones (``ddof=0``: divide by the group size). TRL and
  verl use the Bessel-corrected one; for a group of 8 the two differ by a factor of
  ``sqrt(8 / 7)``, which the clipped loss mostly absorbs, but the tables in the tests pin
  ``ddof=0``;
* a group whose values are all equal (a *zero-spread* group, which includes every group of
  one) gets an advantage of exactly ``0.0``, not ``0 / eps`` of rounding noise;
* bad input raises a one-line :class:`ValueError`: lengths that differ, a reward that is NaN
  or infinite, ``gamma`` outside ``[0, 1]``, a negative ``eps``.

>>> grpo([1.0, 0.0, 0.0, 1.0], [0, 0, 0, 0]).round(3).tolist()
[1.0, -1.0, -1.0, 1.0]
>>> zero_spread_fraction([1.0, 1.0, 0.0, 1.0], ["a", "a", "b", "b"])
0.5
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import Any, NamedTuple

import numpy as np

__all__ = [
    "VPRAdvantages",
    "discounted_returns",
    "dr_grpo",
    "gigpo",
    "grpo",
    "scale_negatives",
    "vpr",
    "zero_spread_fraction",
]

ArrayLike = Sequence[float] | np.ndarray
Labels = Sequence[Hashable] | np.ndarray


# --- input checks ---------------------------------------------------------------------------


def _values(name: str, values: Any) -> np.ndarray:
    """``values`` as a 1-D float64 array, refusing NaN and infinities (they poison a batch)."""
    try:
        array = np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a 1-D sequence of numbers") from None
    if array.ndim != 1:
        raise ValueError(f"{name} must be 1-D, got shape {array.shape}")
    bad = np.flatnonzero(~np.isfinite(array))
    if bad.size:
        raise ValueError(f"{name} must be finite, got {array[bad[0]]} at index {bad[0]}")
    return array


def _labels(name: str, labels: Any, n: int) -> np.ndarray:
    """Dense group indices ``0..k-1`` (in order of first appearance) for ``n`` hashable labels."""
    if isinstance(labels, np.ndarray) and labels.ndim != 1:
        raise ValueError(f"{name} must be 1-D, got shape {labels.shape}")
    try:
        items = list(labels)
    except TypeError:
        raise ValueError(f"{name} must be a 1-D sequence of labels") from None
    if len(items) != n:
        raise ValueError(f"{name} has {len(items)} entries but there are {n} values")
    index: dict[Hashable, int] = {}
    out = np.empty(n, dtype=np.int64)
    for i, label in enumerate(items):
        try:
            out[i] = index.setdefault(label, len(index))
        except TypeError:
            raise ValueError(f"{name}[{i}] is not hashable: {label!r}") from None
    return out


def _number(name: str, value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise ValueError(f"{name} must be a finite number, got {value!r}")
    if not np.isfinite(value):
        raise ValueError(f"{name} must be a finite number, got {value}")
    return float(value)


def _eps(eps: Any) -> float:
    value = _number("eps", eps)
    if value < 0:
        raise ValueError(f"eps must be >= 0, got {eps}")
    return value


def _gamma(gamma: Any) -> float:
    if isinstance(gamma, bool) or not isinstance(gamma, (int, float, np.integer, np.floating)):
        raise ValueError(f"gamma must be a number in [0, 1], got {gamma!r}")
    if not 0.0 <= gamma <= 1.0:  # also refuses NaN
        raise ValueError(f"gamma must be in [0, 1], got {gamma}")
    return float(gamma)


# --- group statistics -----------------------------------------------------------------------


def _spread(values: np.ndarray, index: np.ndarray, k: int) -> np.ndarray:
    """Per group: True when its values are not all equal (exact comparison, no tolerance)."""
    high = np.full(k, -np.inf)
    low = np.full(k, np.inf)
    np.maximum.at(high, index, values)
    np.minimum.at(low, index, values)
    return high > low


def _centred(values: np.ndarray, index: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(values - group mean, population std per row, spread per row)``.

    Zero-spread groups are centred to exactly 0: the mean of equal floats need not equal them
    bit for bit, and ``1e-17 / eps`` would be a signal that is not there.
    """
    if values.size == 0:
        empty = np.zeros(0)
        return empty, empty, np.zeros(0, dtype=bool)
    k = int(index.max()) + 1
    counts = np.bincount(index, minlength=k)
    mean = np.bincount(index, weights=values, minlength=k) / counts
    centred = values - mean[index]
    # Two passes (mean, then squared deviations) for accuracy.
    std = np.sqrt(np.bincount(index, weights=centred**2, minlength=k) / counts)
    spread = _spread(values, index, k)[index]
    centred = np.where(spread, centred, 0.0)
    return centred, std[index], spread


def _normalised(values: np.ndarray, index: np.ndarray, eps: float) -> np.ndarray:
    centred, std, spread = _centred(values, index)
    # Zero-spread rows are already 0; dividing them by a 0 std (eps = 0) must not make NaN.
    return np.divide(centred, std + eps, out=np.zeros_like(centred), where=spread)


# --- advantages -----------------------------------------------------------------------------


def grpo(rewards: ArrayLike, groups: Labels, eps: float = 1e-6) -> np.ndarray:
    """GRPO: ``A_i = (r_i - mean_G) / (std_G + eps)`` within each group ``G``.

    ``std_G`` is the population standard deviation (``ddof=0``). A group whose rewards are
    all equal (or that has one member) gets exactly 0. Pass one reward per rollout (the
    episode return) and broadcast the result to the rollout's tokens.

    >>> grpo([1.0, 0.0, 0.0, 1.0, 3.0, 3.0], [7, 7, 7, 7, 8, 8]).round(4).tolist()
    [1.0, -1.0, -1.0, 1.0, 0.0, 0.0]
    """
    values = _values("rewards", rewards)
    return _normalised(values, _labels("groups", groups, values.size), _eps(eps))


def dr_grpo(rewards: ArrayLike, groups: Labels) -> np.ndarray:
    """Dr.GRPO: ``A_i = r_i - mean_G`` (no division by the group's std).

    Dividing by ``std_G`` up-weights groups that are nearly solved or nearly failed; Dr.GRPO
    drops it (and normalises the loss by a constant, which is the loss's business).

    >>> dr_grpo([1.0, 0.0, 0.0, 1.0, 4.0, 2.0], [0, 0, 0, 0, 1, 1]).tolist()
    [0.5, -0.5, -0.5, 0.5, 1.0, -1.0]
    """
    values = _values("rewards", rewards)
    centred, _, _ = _centred(values, _labels("groups", groups, values.size))
    return centred


def _returns(rewards: np.ndarray, trajectory: np.ndarray, gamma: float) -> np.ndarray:
    out = np.empty_like(rewards)
    following = np.zeros(int(trajectory.max()) + 1 if trajectory.size else 0)
    # Backwards through the rows: R_t = r_t + gamma * R_{t+1} within the row's trajectory.
    for i in range(rewards.size - 1, -1, -1):
        t = trajectory[i]
        following[t] = rewards[i] + gamma * following[t]
        out[i] = following[t]
    return out


def discounted_returns(rewards: ArrayLike, trajectories: Labels, gamma: float) -> np.ndarray:
    """Discounted return to go: ``R_t = sum_{k >= t} gamma^(k - t) r_k`` within a trajectory.

    Rows of one trajectory must come in turn order (as a ``StepTable`` keeps them); rows of
    different trajectories may interleave. ``gamma`` is in ``[0, 1]``.

    >>> discounted_returns([1.0, 10.0, 0.0, 2.0], ["a", "b", "a", "a"], 0.5).tolist()
    [1.5, 10.0, 1.0, 2.0]
    """
    values = _values("rewards", rewards)
    index = _labels("trajectories", trajectories, values.size)
    return _returns(values, index, _gamma(gamma))


def gigpo(
    episode_returns: ArrayLike,
    step_rewards: ArrayLike,
    groups: Labels,
    trajectories: Labels,
    state_keys: Labels,
    gamma: float,
    weight: float = 1.0,
    eps: float = 1e-6,
) -> np.ndarray:
    """GiGPO: ``A = A_episode + weight * A_step`` for every step (row).

    * ``A_episode``: GRPO over the group's trajectories, one value per trajectory (a long
      trajectory does not count more in the group's mean), broadcast to its steps.
      ``episode_returns`` is given per step and must be the same on every step of a
      trajectory.
    * ``A_step``: the steps of one group whose state keys are equal form an *anchor group*
      (the same state reached by different trajectories, or twice by one);
      ``R_t = sum_{k >= t} gamma^(k - t) r_k`` over the trajectory's ``step_rewards``, and
      ``A_step = (R_t - mean_anchor R) / (std_anchor R + eps)`` (population std); an anchor
      group of one step, or whose returns are all equal, gives 0.

    Rows of one trajectory come in turn order; a trajectory belongs to one group.

    Two trajectories from the start ``s``: ``a`` moves to ``x`` and then wins (+1), ``b``
    moves to ``y`` and then fails. They share the first state only:

    >>> A = gigpo([1, 1, 0, 0], [0, 1, 0, 0], [0] * 4, ["a", "a", "b", "b"],
    ...           ["s", "x", "s", "y"], gamma=0.5)
    >>> A.round(3).tolist()
    [2.0, 1.0, -2.0, -1.0]
    """
    returns = _values("episode_returns", episode_returns)
    n = returns.size
    rewards = _values("step_rewards", step_rewards)
    if rewards.size != n:
        raise ValueError(f"step_rewards has {rewards.size} entries but there are {n} steps")
    group = _labels("groups", groups, n)
    trajectory = _labels("trajectories", trajectories, n)
    keys = _labels("state_keys", state_keys, n)
    gamma, eps, weight = _gamma(gamma), _eps(eps), _number("weight", weight)
    if n == 0:
        return np.zeros(0)

    # One row per trajectory (its first) for the episode part.
    k = int(trajectory.max()) + 1
    first = np.full(k, -1)
    for i in range(n - 1, -1, -1):
        first[trajectory[i]] = i
    mismatch = np.flatnonzero(returns != returns[first[trajectory]])
    if mismatch.size:
        i = mismatch[0]
        raise ValueError(
            f"episode_returns must be constant within a trajectory; row {i} has "
            f"{returns[i]} but its trajectory's first row has {returns[first[trajectory[i]]]}"
        )
    mismatch = np.flatnonzero(group != group[first[trajectory]])
    if mismatch.size:
        raise ValueError(f"a trajectory must stay in one group; row {mismatch[0]} changes it")
    episode = _normalised(returns[first], group[first], eps)[trajectory]

    # Anchor groups: (group, state key) pairs.
    anchors = _labels("anchors", list(zip(group.tolist(), keys.tolist(), strict=True)), n)
    step = _normalised(_returns(rewards, trajectory, gamma), anchors, eps)
    return episode + weight * step


class VPRAdvantages(NamedTuple):
    """What :func:`vpr` returns: per-row advantages (0 where dropped), the keep mask, and how
    many state groups were dropped for having zero spread."""

    advantages: np.ndarray
    keep: np.ndarray
    dropped_groups: int


def vpr(scores: ArrayLike, state_groups: Labels, eps: float = 1e-6) -> VPRAdvantages:
    """VPR: centre each candidate's score on its state group, drop flat groups, whiten.

    1. ``c_i = s_i - mean_S s`` over the K candidates sampled at the same state ``S``;
    2. state groups whose scores are all equal (including groups of one) carry no signal:
       their rows get ``keep = False`` and advantage 0, and they are counted;
    3. the kept ``c`` are whitened across the whole batch:
       ``A_i = (c_i - mean c) / (std c + eps)`` (population std, kept rows only).

    >>> out = vpr([1.0, -1.0, 2.0, 2.0, 3.0, 1.0], [0, 0, 1, 1, 2, 2])
    >>> out.advantages.round(4).tolist(), out.keep.tolist(), out.dropped_groups
    ([1.0, -1.0, 0.0, 0.0, 1.0, -1.0], [True, True, False, False, True, True], 1)
    """
    values = _values("scores", scores)
    index = _labels("state_groups", state_groups, values.size)
    eps = _eps(eps)
    centred, _, keep = _centred(values, index)
    dropped = len(np.unique(index[~keep]))
    advantages = np.zeros_like(values)
    if keep.any():
        kept = centred[keep]
        # Each kept group's centred values sum to 0, so the mean is 0 up to rounding; it is
        # subtracted anyway so "mean 0" holds whatever the rounding did.
        kept = kept - kept.mean()
        advantages[keep] = kept / (kept.std() + eps)
    return VPRAdvantages(advantages, keep, dropped)


def scale_negatives(advantages: ArrayLike, weight: float) -> np.ndarray:
    """Multiply the negative advantages by ``weight`` in ``[0, 1]``; positives stay as they are.

    Why: with a small sampled batch, pushing a bad sample's log-prob down moves its
    probability onto moves nobody sampled, which are as often bad as good; pulling a good
    sample up moves it where the verifier said. ``weight = 1`` is the plain estimator;
    ``weight = 0`` trains on the better-than-average samples only (a filtered imitation of
    the policy's own good moves).

    >>> scale_negatives([1.5, -0.5, -1.0, 0.0], 0.2).tolist()
    [1.5, -0.1, -0.2, 0.0]
    """
    values = _values("advantages", advantages)
    weight = _number("weight", weight)
    if not 0.0 <= weight <= 1.0:
        raise ValueError(f"weight must be in [0, 1], got {weight}")
    return np.where(values < 0, values * weight, values)


def zero_spread_fraction(values: ArrayLike, groups: Labels) -> float:
    """The share of groups whose values are all equal (a group of one counts as equal).

    Such a group gives every member the same advantage 0: a batch made only of them trains on
    nothing while the loss looks fine, so a trainer logs this number every update.

    >>> zero_spread_fraction([0, 0, 1, 0, 5], [0, 0, 1, 1, 2])
    0.6666666666666666
    """
    array = _values("values", values)
    index = _labels("groups", groups, array.size)
    if array.size == 0:
        raise ValueError("zero_spread_fraction needs at least one value")
    k = int(index.max()) + 1
    return int(np.count_nonzero(~_spread(array, index, k))) / k
