"""What every sandbox is given, whichever backend runs it: its users and their environments,
where a verifier may write, and the command runner it starts.

The Docker backend (:mod:`agentgym.sandbox.docker_sandbox`) and the bubblewrap one
(:mod:`agentgym.sandbox.bwrap_backend`) read these, so the agent, a milestone check and the
verifier see the same identities and paths under either.

>>> AGENT_USER, CHECK_USER, ROOT_ENV["PATH"]
('1000:1000', '1001:1001', '/usr/sbin:/usr/bin:/sbin:/bin')
>>> "def main" in runner_source()
True
"""

from __future__ import annotations

from pathlib import Path

__all__ = [
    "AGENT_HOME",
    "AGENT_PATH",
    "AGENT_USER",
    "CHECK_ENV",
    "CHECK_USER",
    "CLEAN_WRITABLE",
    "ROOT_ENV",
    "ROOT_PATH",
    "runner_source",
]

#: The agent's uid:gid and home (the base image's user ``agent``).
AGENT_USER = "1000:1000"
AGENT_HOME = "/home/agent"
#: The agent's PATH when the image sets none.
AGENT_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
ROOT_PATH = "/usr/sbin:/usr/bin:/sbin:/bin"
ROOT_ENV = {"PATH": ROOT_PATH, "HOME": "/root", "LANG": "C.UTF-8", "USER": "root"}
#: The uid of checks in an agent's sandbox (milestones): neither root nor the agent.
CHECK_USER = "1001:1001"
#: Their environment: no home to read configuration from, no git config but the system's.
CHECK_ENV = {"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": "/nonexistent", "LANG": "C.UTF-8",
             "PYTHONDONTWRITEBYTECODE": "1", "GIT_CONFIG_GLOBAL": "/dev/null"}
#: Where a verifier container may write besides its workdir, /tmp and /root (tmpfs mounts,
#: each ``tmp_mb``): the hidden tests and their reports (``/verifier``), Harbor's ``/tests``
#: and ``/logs``.
CLEAN_WRITABLE = ("/verifier", "/tests", "/logs")


def runner_source() -> str:
    """The runner's source (:mod:`agentgym.sandbox.runner`), shipped to ``python3 -c``:
    nothing is written in the sandbox."""
    return (Path(__file__).with_name("runner.py")).read_text()
