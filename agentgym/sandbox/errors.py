"""The sandbox's one error type, and the one-line messages it carries.

Both backends, the image builds and the base image raise :class:`SandboxError` with a single
line: an env puts it into ``info`` (or a 0 verdict's reason), where a traceback from the
Docker SDK would be noise.

>>> str(SandboxError(first_line(ValueError("no such image\\nat line 3"))))
'no such image'
"""

from __future__ import annotations

__all__ = ["SandboxError", "first_line"]


class SandboxError(RuntimeError):
    """A sandbox could not be started, or a file copy failed (one-line message)."""


def first_line(exc: BaseException | str | int) -> str:
    """The first line of an error (its type's name when it says nothing), at most 300 chars.

    >>> first_line(OSError()), first_line("tar: short read\\nmore"), first_line(2)
    ('OSError', 'tar: short read', '2')
    """
    text = str(exc).strip() or type(exc).__name__
    return text.splitlines()[0][:300]
