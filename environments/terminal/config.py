"""Terminal-v0's declared kwargs (see :mod:`agentgym.config`).

A stranger (a remote client, a leaderboard bundle) may pick a bundled task or a split but
never a task directory on the host, and never the sandbox backend: the leaderboard validator
replays a bundle's shell commands under the hardened Docker backend whatever the bundle says
(:attr:`TerminalConfig.replay_overrides`).

>>> TerminalConfig.refuse_strangers({"backend": "bwrap"}, "bundle")
Traceback (most recent call last):
...
agentgym.config.ScopeError: backend is operator-only: a leaderboard bundle may not set it
>>> TerminalConfig.refuse_strangers({"task": BUNDLED_TASK_IDS[0]}, "client")
"""

from __future__ import annotations

from typing import Any, ClassVar, Literal

from agentgym.config import TextEnvConfig, setting

from .task import bundled_task_ids

__all__ = ["BUNDLED_TASK_IDS", "DEFAULT_INVALID_PENALTY", "DEFAULT_MAX_INVALID",
           "PUBLIC_MAX_STEPS", "TerminalConfig"]

#: The bundled tasks' ids (``agentgym tasks list``), read from the tasks folder at import:
#: the only tasks a stranger may pick.
BUNDLED_TASK_IDS: tuple[str, ...] = bundled_task_ids()
#: Small next to the outcome (1 for a solved task), as in WebShop: a malformed action costs a
#: little without drowning the signal.
DEFAULT_INVALID_PENALTY = -0.1
#: The longest step budget a stranger may ask for (the bundled tasks bring 20-40).
PUBLIC_MAX_STEPS = 100
DEFAULT_MAX_INVALID = 5


class TerminalConfig(TextEnvConfig):
    """The kwargs of :class:`~.env.TerminalEnv`."""

    task: str | None = setting(
        None, "null (the split's task seed % n) | a bundled id (agentgym tasks list) | a task "
        "directory (operator only)", public_choices=(None, *BUNDLED_TASK_IDS))
    split: Literal["train", "test"] = setting(
        "train", "the bundled tasks played when task is null (fixed per task in its task.toml)")
    backend: Literal["auto", "docker", "bwrap"] = setting(
        "auto", "sandbox: docker, bwrap (weaker: no seccomp, no memory or CPU limit) or auto "
        "(docker where a daemon answers, else bwrap)", scope="operator")
    gamma: float = setting(1.0, "discount of the milestone shaping reward", gt=0, le=1)
    max_steps: int | None = setting(
        None, "step budget; null: the task's [metadata.agentgym].max_steps", ge=1, le=100_000,
        # A replayed step costs seconds (a command in a container): a leaderboard bundle at
        # 100,000 steps would hold the validator for days. The tasks ask for 20-40.
        public_max=PUBLIC_MAX_STEPS)
    invalid_penalty: float = setting(
        DEFAULT_INVALID_PENALTY, "process reward of an invalid action", le=0)
    max_invalid: int = setting(
        DEFAULT_MAX_INVALID, "invalid actions that end the episode, truncated", ge=1,
        le=100_000)

    #: The leaderboard validator replays a bundle's commands in the hardened sandbox only.
    replay_overrides: ClassVar[dict[str, Any]] = {"backend": "docker"}
