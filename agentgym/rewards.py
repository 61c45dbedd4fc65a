"""Reward modes: one env serves outcome-only, process-only and combined training.

>>> combine_rewards({"process": 2.0, "outcome": 1.0}, "both")
3.0
>>> combine_rewards({"process": 2.0, "outcome": 1.0}, "outcome")
1.0
"""

from __future__ import annotations

from collections.abc import Mapping

REWARD_MODES: tuple[str, ...] = ("both", "process", "outcome")

__all__ = ["REWARD_MODES", "combine_rewards"]


def combine_rewards(components: Mapping[str, float], mode: str) -> float:
    """The scalar reward for ``mode`` from ``reward_components`` (other named parts ignored)."""
    if mode == "both":
        return float(components["process"]) + float(components["outcome"])
    if mode == "process":
        return float(components["process"])
    if mode == "outcome":
        return float(components["outcome"])
    raise ValueError(f"reward mode must be one of {REWARD_MODES}, got {mode!r}")
