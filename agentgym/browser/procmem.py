"""The Chromium processes this process started, read from ``/proc`` (Linux only).

Tests and the memory benchmarks use it to check that closing the last context (or the
interpreter exiting) leaves no browser process behind.
"""

from __future__ import annotations

import os

__all__ = ["browser_pids"]


def browser_pids() -> list[int]:
    """Pids of the Chromium processes below this process, sorted (``[]`` without ``/proc``).

    Walks the process tree below this process and keeps the ones whose executable name
    contains ``chrom`` (the browser, its renderers, GPU and utility processes).

    >>> isinstance(browser_pids(), list)
    True
    """
    children: dict[int, list[int]] = {}
    names: dict[int, str] = {}
    try:
        entries = os.listdir("/proc")
    except OSError:
        return []
    for entry in entries:
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as fh:
                stat = fh.read().decode("ascii", "replace")
        except OSError:
            continue
        # The command name is in parentheses and may contain spaces; the ppid follows it.
        name = stat[stat.find("(") + 1 : stat.rfind(")")]
        fields = stat[stat.rfind(")") + 2 :].split()
        pid, ppid = int(entry), int(fields[1])
        names[pid] = name
        children.setdefault(ppid, []).append(pid)
    found = []
    stack = list(children.get(os.getpid(), []))
    while stack:
        pid = stack.pop()
        if "chrom" in names.get(pid, "").lower():
            found.append(pid)
        stack.extend(children.get(pid, []))
    return sorted(found)
