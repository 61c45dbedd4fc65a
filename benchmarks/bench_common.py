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

import importlib.util
import itertools
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import pytest

__all__ = [
    "SCALE",
    "OursEpisode",
    "bench_ours_steps",
    "bench_score_all",
    "describe",
    "has_module",
    "make_ours",
    "oracle_moves",
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


def has_module(name: str) -> bool:
    """Whether ``name`` imports here: a framework's rows run only in that framework's venv.

    >>> has_module("os"), has_module("no_such_module.sub")
    (True, False)
    """
    try:
        return importlib.util.find_spec(name) is not None
    except ImportError:  # a missing parent package
        return False


def oracle_moves(env_id: str, seed: int) -> list[str]:
    """The oracle's moves from ``seed`` to the episode's end (what adapter benchmarks replay)."""
    env = make_ours(env_id)
    env.reset(seed=seed)
    actions, done = [], False
    while not done:
        actions.append(env.unwrapped.oracle_actions()[0])
        done = any(env.step(actions[-1])[2:4])
    return actions


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


def bench_ours_steps(
    benchmark: Any,
    env: Any,
    episodes: Sequence[OursEpisode],
    rounds: int,
    *,
    unit: str = "step",
    **describe_kwargs: Any,
) -> None:
    """Time agentgym's ``step`` loop over ``episodes``: the "ours" row of a step group.

    Each round restores one episode's snapshot with ``set_state`` (untimed), then times
    :func:`ours_play` over its actions. ``per_round`` is the episodes' common action count;
    ``describe_kwargs`` (``group``, ``impl``, ``primary``, ``target``, ...) go to
    :func:`describe` with ``side="agentgym"``. ``env`` must have been reset once, as
    ``gym.make``'s order check wants a reset before the first ``step``.

    >>> import gymnasium as gym, agentgym
    >>> from types import SimpleNamespace
    >>> bench = SimpleNamespace(extra_info={}, pedantic=lambda play, setup, rounds,
    ...     warmup_rounds: [play(*setup()[0]) for _ in range(rounds + warmup_rounds)])
    >>> env = gym.make("agentgym/TicTacToe-v0")
    >>> _ = env.reset(seed=0)
    >>> ep = OursEpisode(env.unwrapped.get_state(), env.unwrapped.oracle_actions()[:1])
    >>> bench_ours_steps(bench, env, [ep], 2, group="demo", impl="agentgym")
    >>> bench.group, bench.extra_info["per_round"], bench.extra_info["unit"]
    ('demo', 1, 'step')
    """
    lengths = {len(ep.actions) for ep in episodes}
    if len(lengths) != 1:
        # per_round is one number for the whole row, so every round must do the same work.
        raise ValueError(f"need episodes with one common action count, got {sorted(lengths)}")

    def start(ep: OursEpisode) -> Any:
        env.unwrapped.set_state(ep.snapshot)
        return env

    describe(benchmark, side="agentgym", unit=unit, per_round=lengths.pop(), **describe_kwargs)
    record_rounds(
        benchmark,
        ours_play,
        [lambda ep=ep: start(ep) for ep in episodes],
        [ep.actions for ep in episodes],
        rounds,
    )


def _score_actions(env: Any, actions: Sequence[str]) -> None:
    env.unwrapped.score_actions(actions)


def bench_score_all(
    benchmark: Any,
    env: Any,
    states: Sequence[bytes],
    legal: Sequence[Sequence[str]],
    rounds: int,
    **describe_kwargs: Any,
) -> None:
    """Time one ``score_actions(legal[i])`` call from ``states[i]``: an oracle group's row.

    Each round restores ``states[i]`` (untimed), then times scoring every action in
    ``legal[i]``. Recorded with ``side="agentgym"``, ``unit="call"`` and ``legal_actions``
    (the mean number of actions scored per call); ``describe_kwargs`` (``group``, ``impl``,
    ``primary``, ...) go to :func:`describe`.

    >>> import gymnasium as gym, agentgym
    >>> from types import SimpleNamespace
    >>> bench = SimpleNamespace(extra_info={}, pedantic=lambda play, setup, rounds,
    ...     warmup_rounds: [play(*setup()[0]) for _ in range(rounds + warmup_rounds)])
    >>> env = gym.make("agentgym/TicTacToe-v0")
    >>> _, info = env.reset(seed=0)
    >>> legal = [list(info["available_actions"])]
    >>> bench_score_all(bench, env, [env.unwrapped.get_state()], legal, 2, group="demo",
    ...                 impl="agentgym")
    >>> bench.extra_info["unit"], bench.extra_info["legal_actions"] == len(legal[0])
    ('call', True)
    """
    if len(states) != len(legal) or not states:
        raise ValueError(
            f"need one action list per state, got {len(states)} states and {len(legal)} lists"
        )

    def start(i: int) -> Any:
        env.unwrapped.set_state(states[i])
        return env

    describe(
        benchmark,
        side="agentgym",
        unit="call",
        legal_actions=round(sum(map(len, legal)) / len(legal), 1),
        **describe_kwargs,
    )
    record_rounds(
        benchmark, _score_actions, [lambda i=i: start(i) for i in range(len(states))], legal, rounds
    )
