"""The one error a bundle check raises: :class:`Rejected`, a one-line reason naming file and field.

``agentgym leaderboard validate`` turns it into exit status 1 (the bundle was read and refused);
any other error (a path that cannot be read, a bad option) stays a usage error, exit status 2.

>>> isinstance(Rejected("results/000.json: episodes[2].trace[0].reward: ..."), ValueError)
True
"""

from __future__ import annotations

__all__ = ["Rejected"]


class Rejected(ValueError):
    """A bundle (or a results file in it) is refused; the message is one line."""
