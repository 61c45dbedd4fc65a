"""Resource limits of one sandbox (a container or a bubblewrap jail).

>>> from agentgym.sandbox.limits import Limits
>>> Limits(memory_mb=256).memory_mb, Limits().network
(256, False)
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Limits"]


@dataclass(frozen=True)
class Limits:
    """What one sandbox may use; the defaults suit a small shell task.

    ``network`` is off by default (``--network none``). ``workspace_mb`` and ``tmp_mb`` cap
    the writable workspace and ``/tmp`` (both memory-backed, so they also count towards
    ``memory_mb`` when filled). ``output_limit`` is the number of bytes of stdout + stderr
    one command keeps; the rest is read and dropped.

    >>> Limits(cpus=0.5).cpus
    0.5
    >>> Limits(pids=0)
    Traceback (most recent call last):
    ...
    ValueError: Limits.pids must be >= 8, got 0
    """

    memory_mb: int = 512
    cpus: float = 1.0
    pids: int = 128
    network: bool = False
    workspace_mb: int = 256
    tmp_mb: int = 64
    command_timeout_s: float = 10.0
    output_limit: int = 16_384

    def __post_init__(self) -> None:
        # The runner, its shell and the container's sleep need a few processes and megabytes.
        minimums = {"memory_mb": 32, "pids": 8, "workspace_mb": 1, "tmp_mb": 1, "output_limit": 0}
        for name, low in minimums.items():
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < low:
                raise ValueError(f"Limits.{name} must be >= {low}, got {value!r}")
        for name in ("cpus", "command_timeout_s"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int | float) or value <= 0:
                raise ValueError(f"Limits.{name} must be a positive number, got {value!r}")
        if not isinstance(self.network, bool):
            raise ValueError(f"Limits.network must be a bool, got {self.network!r}")
