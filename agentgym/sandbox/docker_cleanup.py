"""How sandbox containers are owned and removed: owner labels, the orphan reaper, and a
thread that removes closed containers in the background.

Every container carries the label ``agentgym.sandbox=1`` and its owning process (host, pid
and that process's start time). A backend that starts removes the containers of owners that
died (:func:`reap_orphans`, also ``agentgym docker reap``), so a ``kill -9`` leaks nothing
for longer than the next start.

>>> sorted(owner_labels())
['agentgym.sandbox.host', 'agentgym.sandbox.pid', 'agentgym.sandbox.pidstart']
"""

from __future__ import annotations

import logging
import os
import queue
import socket
import threading
import time
from typing import Any

from agentgym.sandbox.docker_client import connect

__all__ = ["LABEL", "Reaper", "owner_labels", "process_start", "reap_orphans", "remove_container",
           "remove_container_id"]

LABEL = "agentgym.sandbox"

log = logging.getLogger(__name__)


def process_start(pid: int) -> str:
    """When process ``pid`` started (clock ticks since boot, from ``/proc``), "" when it is
    gone: with the pid it names one process for good, so a reused pid is not its owner.

    >>> process_start(os.getpid()) != "" and process_start(2 ** 22 + 1) == ""
    True
    """
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as handle:
            return handle.read().rsplit(")", 1)[1].split()[19]
    except (OSError, IndexError):
        return ""


def owner_labels() -> dict[str, str]:
    """The labels naming this process as a container's owner (host, pid, its start time)."""
    pid = os.getpid()
    return {f"{LABEL}.pid": str(pid), f"{LABEL}.pidstart": process_start(pid),
            f"{LABEL}.host": socket.gethostname()}


def reap_orphans(client: Any = None) -> int:
    """Remove sandbox containers whose owning process (on this host) is gone: what a
    ``kill -9`` of a Python process leaves behind. Returns how many were removed.

    Every :class:`~agentgym.sandbox.docker_backend.DockerBackend` calls it when it starts;
    ``agentgym docker reap`` calls it by hand. Only containers labelled with this host's name
    are touched, so other machines' sandboxes on a shared daemon are left alone; a
    container's owner is gone when its pid no longer runs, or runs a process that started at
    another time (a reused pid).
    """
    client = client or connect()
    host = socket.gethostname()
    removed = 0
    # The low-level listing: containers.list() inspects each container after listing them,
    # and raises NotFound when another process removes one in between.
    for summary in client.api.containers(all=True, filters={"label": f"{LABEL}.host={host}"}):
        labels = summary.get("Labels") or {}
        try:
            pid = int(labels.get(f"{LABEL}.pid", ""))
        except ValueError:
            continue  # no owner recorded: not ours to judge
        started = process_start(pid)
        if started and started == labels.get(f"{LABEL}.pidstart", started):
            continue  # the owner still runs
        # Retried like every removal (a busy daemon); one already gone counts as removed.
        remove_container_id(client, summary["Id"])
        removed += 1
    return removed


def _is_not_found(exc: BaseException) -> bool:
    """Whether a Docker API error says the container does not exist (any more)."""
    status = getattr(getattr(exc, "response", None), "status_code", None)
    return status == 404 or type(exc).__name__ == "NotFound"


def remove_container(container: Any, *, attempts: int = 4, pause_s: float = 0.25) -> None:
    """Force-remove a container, retrying until it is gone; never raises.

    One already gone is done. Any other failure (a daemon too busy to answer in time, "removal
    already in progress", a kill that failed) is retried after ``pause_s``, doubling, up to
    ``attempts`` calls, then logged: a close that returned while its container still existed
    left containers behind on a loaded machine.

    >>> class Box:
    ...     calls = 0
    ...     def remove(self, force):
    ...         Box.calls += 1
    ...         if Box.calls < 3: raise RuntimeError("409 removal already in progress")
    >>> remove_container(Box(), pause_s=0); Box.calls
    3
    """
    for attempt in range(attempts):
        try:
            container.remove(force=True)
            return
        except Exception as exc:
            if _is_not_found(exc):
                return
            if attempt == attempts - 1:
                name = getattr(container, "short_id", None) or "?"
                log.warning("could not remove container %s: %s", name,
                            (str(exc).splitlines() or [type(exc).__name__])[0][:200])
                return
            time.sleep(pause_s * 2**attempt)


def remove_container_id(client: Any, container_id: str) -> None:
    """:func:`remove_container` for a container known only by its id (a listing's summary, a
    low-level create): no lookup first, which a container already gone would fail."""
    remove_container(client.containers.prepare_model({"Id": container_id}))


class Reaper:
    """Removes containers in the background so closing one does not wait for Docker.

    >>> class Box:
    ...     removed = False
    ...     def remove(self, force): self.removed = force
    >>> reaper, box = Reaper(), Box()
    >>> reaper.put(box); reaper.flush(); box.removed
    True
    """

    def __init__(self) -> None:
        self._queue: queue.Queue[Any] = queue.Queue()
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()

    def put(self, container: Any) -> None:
        """Queue ``container`` for removal (a thread starts when none runs)."""
        with self._lock:  # with _loop's exit check: no container waits on a thread that left
            self._queue.put(container)
            if self._thread is None:
                self._thread = threading.Thread(target=self._loop, name="agentgym-reaper",
                                                 daemon=True)
                self._thread.start()

    def _loop(self) -> None:
        while True:
            try:
                container = self._queue.get(timeout=1.0)
            except queue.Empty:
                with self._lock:
                    if self._queue.empty():
                        self._thread = None
                        return
                continue
            remove_container(container)
            self._queue.task_done()

    def flush(self) -> None:
        """Wait until every queued container is removed."""
        self._queue.join()
