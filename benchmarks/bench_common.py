"""Shared helpers: the agentgym side of each benchmark and the ``extra_info`` every benchmark
records so ``benchmarks/report.py`` can turn the saved JSON into ours/peer ratios.

Conventions (the report relies on them):

* one pytest-benchmark ``group`` per comparison, our side and the peers side by side;
* ``extra_info``: ``side`` (``"agentgym"`` or ``"peer"``), ``impl`` (label with version),
  ``peer`` (distribution name, peers only), ``variant`` (``""`` for the peer's default
  setup), ``unit`` (what one unit of work is, e.g. ``"step"``), ``per_round`` (units done in
  one timed call), ``primary`` (the agentgym entry the ratios are taken against) and
  optionally ``target`` (the performance claim, checked by the report);
* step benchmarks reset *outside* the timing on both sides (``benchmark.pedantic`` with a
  ``setup`` that restores a pre-made start state) and time a fixed list of valid actions.

>>> scaled(100) >= 3
True
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import pytest

__all__ = [
    "SCALE",
    "OursEpisode",
    "describe",
    "make_ours",
    "ours_play",
    "record_rounds",
    "scaled",
    "seed_counter",
]

# Multiplies every round count: AGENTGYM_BENCH_SCALE=0.2 for a quick smoke run, 3 for a
# steadier one. Only the number of samples changes, never the work per sample.
SCALE: float = float(os.environ.get("AGENTGYM_BENCH_SCALE", "1") or "1")


def scaled(rounds: int, minimum: int = 3) -> int:
    """Round count after :data:`SCALE`, never below ``minimum``."""
    return max(minimum, round(rounds * SCALE))


def describe(
    benchmark: Any,
    *,
    group: str,
    side: str,
    impl: str,
    unit: str,
    per_round: int = 1,
    peer: str | None = None,
    variant: str = "",
    primary: bool = False,
    target: dict[str, Any] | None = None,
    **extra: Any,
) -> None:
    """Set the group and the ``extra_info`` fields :mod:`report` reads."""
    if side not in ("agentgym", "peer"):
        raise ValueError(f"side must be 'agentgym' or 'peer', got {side!r}")
    benchmark.group = group
    benchmark.extra_info.update(
        {
            "side": side,
            "impl": impl,
            "peer": peer,
            "variant": variant,
            "unit": unit,
            "per_round": int(per_round),
            "primary": bool(primary),
            "target": target,
            **extra,
        }
    )


def seed_counter(start: int = 0) -> Callable[[], int]:
    """A fresh seed per call (so no generator can serve a cached answer)."""
    counter = itertools.count(start)
    return lambda: next(counter)


def make_ours(env_id: str, **kwargs: Any) -> Any:
    """``gymnasium.make`` an agentgym env, skipping (with the reason) while it is unwritten."""
    import gymnasium as gym

    import agentgym  # noqa: F401  (registers the ids)

    try:
        return gym.make(env_id, **kwargs)
    except (ImportError, AttributeError, NotImplementedError, gym.error.Error) as exc:
        pytest.skip(f"{env_id} is not available in this checkout: {exc!r}")


@dataclass
class OursEpisode:
    """A start state (``get_state`` bytes) plus the valid actions replayed from it."""

    snapshot: bytes
    actions: list[str]


def ours_play(env: Any, actions: Sequence[str]) -> None:
    """The Gymnasium loop: ``step`` returns the next observation and the (oracle) reward."""
    for action in actions:
        env.step(action)


def record_rounds(
    benchmark: Any,
    play: Callable[[Any, Sequence[str]], None],
    starts: Sequence[Callable[[], Any]],
    actions: Sequence[Sequence[str]],
    rounds: int,
) -> None:
    """Time ``play(env, actions[i])`` with ``starts[i]()`` (untimed) before each round.

    Rounds cycle through the pre-made episodes, so every side replays the same episodes in
    the same order and no round pays for a reset or a generation.
    """
    order = itertools.cycle(range(len(starts)))

    def setup() -> tuple[tuple[Any, Sequence[str]], dict[str, Any]]:
        i = next(order)
        return (starts[i](), actions[i]), {}

    benchmark.pedantic(play, setup=setup, rounds=rounds, warmup_rounds=1)
