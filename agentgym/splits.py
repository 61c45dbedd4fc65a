"""Pinned evaluation task sets: which kwargs and which seeds a split of an env plays.

A :class:`TaskSplit` names tasks by seed: task ``i`` of a split is ``reset(seed=seeds[i])`` on
the env made with the split's kwargs. Envs are deterministic per seed, so the split pins the
episodes exactly; :func:`task_set_hash` fingerprints it for result files and leaderboard
bundles. Each env's splits live in its :class:`agentgym.registry.EnvEntry`.

>>> split = TaskSplit("test", kwargs={"split": "test"}, start=0, count=3)
>>> split.seeds
(0, 1, 2)
>>> len(task_set_hash("agentgym/WebShop-v0", split.kwargs, split.seeds))
16
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

__all__ = ["TaskSplit", "task_set_hash"]


@dataclass(frozen=True)
class TaskSplit:
    """``count`` tasks with seeds ``start .. start+count-1`` on the env made with ``kwargs``."""

    name: str
    kwargs: dict[str, Any] = field(default_factory=dict)
    start: int = 0
    count: int = 100
    #: One line for ``agentgym list`` and the leaderboard ("WebShop's 500 test goals").
    description: str = ""

    def __post_init__(self) -> None:
        if self.start < 0 or self.count < 1:
            raise ValueError(f"split {self.name!r}: start must be >= 0 and count >= 1")

    @property
    def seeds(self) -> tuple[int, ...]:
        return tuple(range(self.start, self.start + self.count))


def task_set_hash(env_id: str, kwargs: dict[str, Any], seeds: Sequence[int]) -> str:
    """A short fingerprint of a task set: the env, the kwargs it is made with, the seeds."""
    blob = json.dumps(
        {"env_id": env_id, "kwargs": kwargs, "seeds": [int(s) for s in seeds]},
        sort_keys=True, separators=(",", ":"),
    )
    return hashlib.sha256(blob.encode()).hexdigest()[:16]
