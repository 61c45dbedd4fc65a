"""95% intervals for the learning benchmark: pure functions, no I/O.

* :func:`wilson_interval`: a success rate over independent episodes (one policy, one seed set).
* :func:`bootstrap_mean_interval`: the mean over training seeds of a per-seed figure.
* :func:`paired_bootstrap_interval`: the mean of ``a - b`` paired by training seed (VPR minus
  GRPO with the same seed), resampling the pairs, never the two arms apart.
* :func:`bootstrap_difference_interval`: the mean over training seeds minus a reference rate
  measured on its own episodes (a trained policy against the best board-blind script).

Percentile bootstrap throughout, from a seeded NumPy generator, so a figure is the same on
every run. With 5 seeds a percentile bootstrap is narrow-biased (it cannot reach past the most
extreme seed); that is why every per-seed figure is also written out, not only its interval.

>>> lo, hi = wilson_interval(8, 10)
>>> round(lo, 3), round(hi, 3)
(0.49, 0.943)
>>> paired_bootstrap_interval([0.5, 0.7, 0.9], [0.4, 0.6, 0.8])
(0.1, 0.1, 0.1)
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

__all__ = [
    "Z95",
    "bootstrap_difference_interval",
    "bootstrap_mean_interval",
    "excludes_zero",
    "paired_bootstrap_interval",
    "wilson_interval",
]

#: The two-sided 95% normal quantile.
Z95 = 1.959963984540054


def _check_level(level: float) -> None:
    if not 0.0 < level < 1.0:
        raise ValueError(f"level must be in (0, 1), got {level}")


def _as_values(name: str, values: Sequence[float]) -> np.ndarray:
    arr = np.asarray(values, dtype=float)
    if arr.ndim != 1 or arr.size == 0:
        raise ValueError(f"{name} must be a non-empty 1-D sequence, got shape {arr.shape}")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} must be finite numbers")
    return arr


def wilson_interval(successes: int, n: int, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval of a binomial proportion ``successes / n``.

    Unlike the normal (Wald) interval it stays inside [0, 1] and is not empty at 0 or n.

    >>> wilson_interval(0, 20)[0], round(wilson_interval(0, 20)[1], 4)
    (0.0, 0.1611)
    """
    if isinstance(successes, bool) or isinstance(n, bool):
        raise TypeError("successes and n must be integers, not booleans")
    if int(successes) != successes or int(n) != n:
        raise ValueError(f"successes and n must be whole numbers, got {successes}, {n}")
    if n < 1 or not 0 <= successes <= n:
        raise ValueError(f"need n >= 1 and 0 <= successes <= n, got {successes} of {n}")
    if not z > 0:
        raise ValueError(f"z must be positive, got {z}")
    p = successes / n
    denom = 1.0 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    # At 0 or n successes one bound is exactly 0 or 1; the formula leaves rounding there.
    lo = 0.0 if successes == 0 else max(0.0, centre - half)
    hi = 1.0 if successes == n else min(1.0, centre + half)
    return lo, hi


def _percentiles(draws: np.ndarray, level: float) -> tuple[float, float]:
    tail = 100 * (1 - level) / 2
    lo, hi = np.percentile(draws, [tail, 100 - tail])
    return float(lo), float(hi)


def bootstrap_mean_interval(values: Sequence[float], level: float = 0.95,
                            n_boot: int = 10_000, seed: int = 0) -> tuple[float, float, float]:
    """``(mean, lo, hi)``: the mean of ``values`` and its percentile-bootstrap interval.

    >>> bootstrap_mean_interval([0.3, 0.3, 0.3])
    (0.3, 0.3, 0.3)
    """
    _check_level(level)
    arr = _as_values("values", values)
    rng = np.random.default_rng(seed)
    draws = arr[rng.integers(0, arr.size, size=(n_boot, arr.size))].mean(axis=1)
    lo, hi = _percentiles(draws, level)
    return float(arr.mean()), lo, hi


def paired_bootstrap_interval(a: Sequence[float], b: Sequence[float], level: float = 0.95,
                              n_boot: int = 10_000, seed: int = 0) -> tuple[float, float, float]:
    """``(mean, lo, hi)`` of ``a[i] - b[i]``, resampling the pairs ``i`` (training seeds).

    Pairing removes what the two arms share through a seed (the same warm start, the same
    first rollout seeds); resampling the arms apart would ignore it.

    >>> paired_bootstrap_interval([0.2, 0.9], [0.1, 0.8])
    (0.1, 0.1, 0.1)
    """
    arr_a, arr_b = _as_values("a", a), _as_values("b", b)
    if arr_a.size != arr_b.size:
        raise ValueError(f"a and b must pair up, got {arr_a.size} and {arr_b.size} values")
    mean, lo, hi = bootstrap_mean_interval(arr_a - arr_b, level, n_boot, seed)
    # The differences of equal floats are rounded; round the figures to 12 places so that
    # a constant difference reads as itself.
    return round(mean, 12), round(lo, 12), round(hi, 12)


def bootstrap_difference_interval(values: Sequence[float], reference: Sequence[float],
                                  level: float = 0.95, n_boot: int = 10_000,
                                  seed: int = 0) -> tuple[float, float, float]:
    """``(mean, lo, hi)`` of ``mean(values) - mean(reference)``, two independent samples.

    ``values``: one figure per training seed; ``reference``: the reference's per-episode
    outcomes (0/1 for a script's test episodes). Each is resampled on its own, so the
    interval carries the seeds' spread and the reference's episode noise.

    >>> bootstrap_difference_interval([0.5, 0.5], [1, 0, 1, 0])
    (0.0, -0.5, 0.5)
    """
    _check_level(level)
    arr, ref = _as_values("values", values), _as_values("reference", reference)
    rng = np.random.default_rng(seed)
    draws_a = arr[rng.integers(0, arr.size, size=(n_boot, arr.size))].mean(axis=1)
    draws_r = ref[rng.integers(0, ref.size, size=(n_boot, ref.size))].mean(axis=1)
    lo, hi = _percentiles(draws_a - draws_r, level)
    return round(float(arr.mean() - ref.mean()), 12), round(lo, 12), round(hi, 12)


def excludes_zero(interval: tuple[float, float, float]) -> bool:
    """Whether a ``(mean, lo, hi)`` interval lies wholly above or wholly below zero.

    >>> excludes_zero((0.1, 0.02, 0.2)), excludes_zero((0.1, 0.0, 0.2))
    (True, False)
    """
    _, lo, hi = interval
    return lo > 0 or hi < 0
