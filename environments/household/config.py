"""Household-v0's declared kwargs (see :mod:`agentgym.config`).

``planner_nodes`` is the one costly kwarg: it bounds each A* search of the oracle
(``oracle_actions()``, ``plan()``, a server's ``/oracle``), whose time and memory grow with
the states it expands (about 0.15-0.2 ms and 0.5 KB a state in a large room). Generated tasks
need a few hundred states at most, so the default budget of 20,000 is only ever spent on a
state no generated episode reaches (a crafted snapshot); a stranger (a remote client or a
leaderboard bundle) may lower it but not raise it (:data:`PUBLIC_PLANNER_NODES`).

>>> HouseholdConfig.parse({"gamma": 0})
Traceback (most recent call last):
...
ValueError: gamma must be in (0, 1], got 0
"""

from __future__ import annotations

from typing import Literal

from agentgym.config import TextEnvConfig, setting

from .planner import PLANNER_MAX_NODES
from .tasks import TaskType

__all__ = ["MAX_PLANNER_NODES", "PUBLIC_PLANNER_NODES", "HouseholdConfig"]

#: The largest search budget the operator may set.
MAX_PLANNER_NODES = 10_000_000
#: The largest a stranger may set: the default (a search that runs to it took 3 s and 15 MB
#: in a crafted 42-receptacle room).
PUBLIC_PLANNER_NODES = PLANNER_MAX_NODES


class HouseholdConfig(TextEnvConfig):
    """The kwargs of :class:`~.env.HouseholdEnv`."""

    task_type: Literal["any", TaskType] = setting(
        "any", "one of ALFWorld's six task types, or any (drawn per episode)")
    split: Literal["train", "seen", "unseen"] = setting(
        "train", "train | seen (new tasks in training layouts) | unseen (layouts never in "
        "train)")
    gamma: float = setting(1.0, "discount of the shaping (process) reward", gt=0, le=1)
    planner_nodes: int = setting(
        PLANNER_MAX_NODES, "states one oracle search (A*) may expand", ge=1,
        le=MAX_PLANNER_NODES, public_max=PUBLIC_PLANNER_NODES)
    max_steps: int = setting(50, "step budget; running out truncates", ge=1, le=100_000)
    invalid_penalty: float = setting(
        -0.1, "process reward of an invalid command (added to the unchanged-state shaping)",
        le=0)
    max_invalid: int = setting(50, "invalid commands that end the episode, truncated",
                               ge=1, le=100_000)
