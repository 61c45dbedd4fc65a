"""What families code against: a running :class:`Sandbox`, and the :class:`Backend` that
starts them. Docker (:mod:`agentgym.sandbox.docker_backend`) and bubblewrap
(:mod:`agentgym.sandbox.bwrap_backend`) both satisfy these, structurally (no base class).

>>> def passes(box: Sandbox) -> bool:
...     return box.run("test -s /app/out.txt").ok
>>> passes.__annotations__["box"]
'Sandbox'
"""

from __future__ import annotations

from pathlib import Path
from typing import Protocol, runtime_checkable

from agentgym.sandbox.limits import Limits
from agentgym.sandbox.result import CommandResult

__all__ = ["Backend", "Sandbox"]


@runtime_checkable
class Sandbox(Protocol):
    """One running container (or bubblewrap jail) for one episode."""

    workdir: str
    #: True when ``run_argv(user=...)`` really runs as that uid (Docker; not bubblewrap).
    separate_uids: bool

    def run(self, command: str, *, timeout_s: float | None = None) -> CommandResult:
        """Run a shell command as the sandbox's user in the current cwd (``cd`` persists)."""
        ...

    def run_as_root_script(self, script: str, *, timeout_s: float = 10.0) -> CommandResult:
        """Run a script as root through ``sh -s`` on stdin, never as a file in the sandbox."""
        ...

    def run_argv(self, argv: list[str], *, user: str | None = None, stdin: bytes | None = None,
                 env: dict[str, str] | None = None, workdir: str = "/",
                 timeout_s: float = 120.0) -> CommandResult:
        """Run ``argv`` in a process of its own as ``user`` (``"uid:gid"``); the exit code
        is the backend's own view of that process where it has one (Docker's API)."""
        ...

    def run_check(self, script: str, *, timeout_s: float = 5.0) -> CommandResult:
        """Run a check (a milestone) with ``bash -s``, as a uid apart from the agent's where
        the backend has one; nothing it starts survives it."""
        ...

    def copy_out(self, paths: list[str]) -> bytes:
        """A tar of those absolute paths."""
        ...

    def copy_in(self, tar_bytes: bytes, dest: str) -> None:
        """Extract a tar into ``dest``."""
        ...

    def close(self) -> None:
        """Remove the sandbox (idempotent)."""
        ...


@runtime_checkable
class Backend(Protocol):
    """Starts sandboxes; ``close`` removes every one it started."""

    name: str

    def prepare(self, image_context: Path, *, tag: str) -> str:
        """Build (or reuse) the image of a directory; return its reference."""
        ...

    def start(self, image: str, limits: Limits, *, workdir: str) -> Sandbox:
        """A sandbox for an episode as the agent user (from the warm pool when ready)."""
        ...

    def start_clean(self, image: str, limits: Limits, *, workdir: str,
                    user: str = "root") -> Sandbox:
        """A fresh sandbox straight from the image, for the verifier (never pooled)."""
        ...

    def close(self) -> None:
        """Remove every sandbox this backend started."""
        ...
