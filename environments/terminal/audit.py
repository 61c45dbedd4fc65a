"""What ``agentgym audit agentgym/Terminal-v0`` reads: its :class:`~agentgym.audit.AuditSpec`.

The audit needs Docker (:func:`needs` says why not where no daemon answers or the base image
is missing): the verifier's guarantees are the Docker backend's, and the audit plays the
forgeries of :mod:`.exploits` against them. The process reward is potential-based shaping on
the task's milestones, settled to the outcome at the end (the verdict on submit, 0 when the
episode is cut before it), declared to :class:`~agentgym.core.TextEnv`
(``TerminalEnv._shaping_potential``), so the audit checks every step against that hook.

>>> from agentgym.audit import audit_spec
>>> "fake-junit" in audit_spec("agentgym/Terminal-v0").exploits
True
"""

from __future__ import annotations

from typing import Any

from agentgym.audit import AuditSpec, register_audit

from .exploits import EXPLOITS

__all__ = ["SPEC", "needs"]


def needs(kwargs: dict[str, Any] | None = None) -> str:
    """"" where a Docker daemon answers and holds the base image the tasks build on, else
    why the audit cannot run here (one line)."""
    from agentgym.sandbox.base_image import base_image_present

    if base_image_present():
        return ""
    return ("Terminal-v0's audit needs Docker: no Docker daemon answers, or "
            "agentgym/base:bookworm is missing (start dockerd; agentgym docker build-base)")


SPEC = AuditSpec(
    # The oracle runs the task's reference solution as one command, then submits.
    references=("oracle",),
    exploits=EXPLOITS,
    public_info=frozenset({
        # the bundled task's id: the instruction shown is that task's instruction.md, and
        # `agentgym tasks list` pairs each instruction with its id
        "task_id",
        # the task's metadata (task.toml), listed beside its id by `agentgym tasks list`
        "difficulty",
        "category",
        # the last command's exit code and working directory: the observation's "exit code N"
        # and "cwd PATH" lines
        "exit_code",
        "cwd",
        # whether it was killed at the timeout: the observation's "[timed out after ...]" line
        "timed_out",
    }),
    # success is "every hidden test passed" on submit, the step whose outcome (the share
    # passed) is 1.0
    success_threshold=1.0,
    # Any non-empty text is a shell command: the grammar has no numeric or enumerated slot,
    # so no extreme-argument forms (each would only be a command not found, and every scored
    # command replays the episode in a fresh container).
    templates=(),
    stop_actions=("submit",),
    # One small task (its image is built once), with Docker's verifier (bubblewrap's is not
    # isolated), and 3 steps: the oracle needs 2, and each forgery is one command (two where
    # they stack) before submit. The task's own 20 steps would make every generic policy
    # that never submits run 20 commands, each scored in a fresh container (~1 s) and the
    # submit candidate by the verifier (~3 s): minutes per episode.
    kwargs={"task": "csv-column-sum", "backend": "docker", "max_steps": 3},
    needs=needs,
)

register_audit("agentgym/Terminal-v0", SPEC)
