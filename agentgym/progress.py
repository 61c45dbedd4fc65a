"""The progress bar of long runs (evaluations, training), one look for every command.

>>> with progress_bar(False) as bar:
...     task = bar.add_task("episodes", total=2)
...     bar.advance(task)
"""

from __future__ import annotations

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)

__all__ = ["progress_bar"]


def progress_bar(
    enabled: bool = True, console: Console | None = None, *, status: bool = False
) -> Progress:
    """A rich progress bar: label, bar, done/total, elapsed, remaining.

    ``enabled=False`` gives one that draws nothing (the same calls work). ``status=True`` adds
    a last column showing each task's ``status`` field (``add_task(..., status="")``).
    """
    columns = [
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TimeRemainingColumn(),
    ]
    if status:
        columns.append(TextColumn("{task.fields[status]}"))
    return Progress(*columns, console=console, disable=not enabled)
