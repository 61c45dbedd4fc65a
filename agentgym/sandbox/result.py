"""What one command in a sandbox did, and how raw output bytes become readable text.

>>> from agentgym.sandbox.result import CommandResult, decode_output
>>> decode_output(b"ok\\x00\\xff\\n")
'ok\\\\x00\\ufffd\\n'
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["EXIT_KILLED", "EXIT_TIMEOUT", "CommandResult", "decode_output", "error_result"]

#: Exit codes the shell conventions give these endings (``timeout(1)`` and ``128 + SIGKILL``).
EXIT_TIMEOUT = 124
EXIT_KILLED = 137

# C0 controls and DEL, except tab and newline: a terminal would act on them, a reader
# (or an LLM) needs to see them.
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")


@dataclass(frozen=True)
class CommandResult:
    """The outcome of one command.

    ``exit_code`` is 124 when the command ran past its timeout (its whole process group was
    killed; ``timed_out`` is then True) and 137 when it was killed by SIGKILL (the
    out-of-memory killer, or the sandbox's main process ending; ``stderr`` says which).
    ``truncated`` means stdout + stderr hit the output limit: ``dropped_bytes`` more were
    read and thrown away.

    >>> r = CommandResult("hi\\n", "", 0, False, False, "/app", 0.01)
    >>> r.ok, r.dropped_bytes
    (True, 0)
    """

    stdout: str
    stderr: str
    exit_code: int
    timed_out: bool
    truncated: bool
    cwd: str
    duration_s: float
    dropped_bytes: int = 0

    @property
    def ok(self) -> bool:
        """True when the command exited 0."""
        return self.exit_code == 0


def decode_output(data: bytes) -> str:
    """Bytes a command wrote, as text a reader can trust.

    UTF-8 with undecodable bytes replaced (U+FFFD); control characters other than tab and
    newline are written as ``\\xNN`` escapes, and a CR-LF pair becomes a newline, so binary
    output cannot move a terminal's cursor or hide text.

    >>> decode_output(b"a\\r\\nb\\x1b[2J")
    'a\\nb\\\\x1b[2J'
    """
    text = data.decode("utf-8", errors="replace").replace("\r\n", "\n")
    return _CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}", text)


def error_result(message: str, *, cwd: str, exit_code: int = EXIT_KILLED,
                 duration_s: float = 0.0) -> CommandResult:
    """A result for a command the sandbox could not run (``message`` goes to stderr).

    >>> error_result("the sandbox is closed", cwd="/app").stderr
    'the sandbox is closed\\n'
    """
    return CommandResult("", message.rstrip("\n") + "\n", exit_code, False, False, cwd,
                         duration_s)
