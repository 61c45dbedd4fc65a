"""What the generic ``oracle`` and ``random`` agents play in a terminal task.

No agent class of its own: :class:`~.env.TerminalEnv` lists these moves and the agents of
:mod:`agentgym.agents` play them unchanged.

* ``oracle``: :meth:`TerminalEnv.oracle_actions` is ``[solve_command(solution)]`` until the
  reference solution has run, then ``["submit"]``. The whole ``solution/solve.sh`` is ONE
  command (:func:`solve_command`), so the oracle spends two steps of any budget.
* ``random``: ``available_actions`` is :func:`plausible_commands` (look around: ``ls``,
  ``pwd``, ``cat`` / ``wc`` / ``head`` of the files the workdir started with) and ``submit``;
  the random agent draws one per step, so it submits after a few harmless looks and solves
  nothing (about 0%).

>>> print(solve_command("echo hi > out.txt\\n", workdir="/app"))
cd /app && bash -c "$(cat <<'AGENTGYM_SOLUTION'
echo hi > out.txt
AGENTGYM_SOLUTION
)" solve.sh
>>> plausible_commands(["notes.txt"])[:3]
['ls', 'ls -R', 'pwd']
"""

from __future__ import annotations

import shlex
from collections.abc import Sequence

__all__ = ["SUBMIT", "plausible_commands", "solve_command"]

#: The action that ends an episode and runs the hidden tests.
SUBMIT = "submit"
# Only commands whose output is the same on every run (no timestamps, sizes or free space),
# so a seeded random episode repeats exactly.
_LOOK_AROUND = ("ls", "ls -R", "pwd", "whoami", "echo hello")


def solve_command(script: str, *, workdir: str) -> str:
    """``script`` (a ``solve.sh``) as one shell command run from ``workdir``.

    The script travels as ``bash -c`` 's argument, through a quoted here-document (no
    expansion), not on stdin: a solution that reads stdin (``cat``, ``git`` prompts) must not
    eat its own text. ``$0`` is ``solve.sh``. Its ``cd`` and variables end with it.
    """
    # Not just no line equal to the delimiter: inside $( ) bash also ends a here-document at
    # a line that merely starts with it, so it must occur nowhere in the script.
    delimiter = "AGENTGYM_SOLUTION"
    while delimiter in script:
        delimiter += "_"
    body = script.rstrip("\n")
    return (f"cd {shlex.quote(workdir)} && bash -c \"$(cat <<'{delimiter}'\n{body}\n"
            f"{delimiter}\n)\" solve.sh")


def plausible_commands(files: Sequence[str]) -> list[str]:
    """Harmless commands a newcomer to the directory would type, in a fixed order.

    ``files`` are paths relative to the workdir (the first 8 are used).

    >>> plausible_commands(["a b.txt"])[-3:]
    ["cat 'a b.txt'", "wc -l 'a b.txt'", "head -n 5 'a b.txt'"]
    """
    commands = list(_LOOK_AROUND)
    for name in list(files)[:8]:
        quoted = shlex.quote(name)
        commands += [f"cat {quoted}", f"wc -l {quoted}", f"head -n 5 {quoted}"]
    return commands
