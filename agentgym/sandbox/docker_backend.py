"""The Docker backend: starts locked-down sandbox containers, keeps warm pools of them.

What each container may do is :func:`container_options` (a pure function); a running one is
a :class:`~agentgym.sandbox.docker_sandbox.DockerSandbox`. Containers are labelled
``agentgym.sandbox=1`` with their owning process, and a backend that starts removes those of
owners that died (:func:`~agentgym.sandbox.docker_cleanup.reap_orphans`, also ``agentgym
docker reap``), so a ``kill -9`` leaks nothing for longer than the next start. Each also
carries its backend's id (``agentgym.sandbox.backend``): ``DockerBackend.close`` removes the
sandboxes it tracked, then sweeps any container still carrying that label.

The workspace is a tmpfs (so filling it is contained by its size), seeded with the image's
workdir: a tar of it is captured once per image and streamed into ``tar -x`` through an
exec's stdin (``docker cp`` / ``put_archive`` cannot write into tmpfs mounts).

The names this module exported before the split (``SandboxError``, ``reap_orphans``,
``LABEL``, ``runner_source``, the users and their environments) are still importable from
it; their homes are :mod:`~agentgym.sandbox.errors`, :mod:`~agentgym.sandbox.docker_cleanup`
and :mod:`~agentgym.sandbox.policy`.

>>> backend = DockerBackend()  # doctest: +SKIP
>>> box = backend.start("agentgym/base:bookworm", Limits(), workdir="/app")  # doctest: +SKIP
>>> box.run("cd /tmp && pwd").stdout, box.run("pwd").cwd  # doctest: +SKIP
('/tmp\\n', '/tmp')
>>> backend.close()  # doctest: +SKIP
"""

from __future__ import annotations

import atexit
import contextlib
import io
import logging
import tarfile
import threading
import uuid
from pathlib import Path
from typing import Any

from agentgym.sandbox.docker_cleanup import (
    LABEL,
    Reaper,
    owner_labels,
    process_start,
    reap_orphans,
    remove_container,
    remove_container_id,
)
from agentgym.sandbox.docker_client import connect, docker_available
from agentgym.sandbox.docker_sandbox import DockerSandbox
from agentgym.sandbox.errors import SandboxError, first_line
from agentgym.sandbox.images import build_image
from agentgym.sandbox.limits import Limits
from agentgym.sandbox.policy import (
    AGENT_HOME,
    AGENT_USER,
    CHECK_ENV,
    CHECK_USER,
    CLEAN_WRITABLE,
    ROOT_PATH,
    runner_source,
)
from agentgym.sandbox.pool import WarmPool

__all__ = [
    "AGENT_USER",
    "CHECK_ENV",
    "CHECK_USER",
    "CLEAN_WRITABLE",
    "LABEL",
    "ROOT_PATH",
    "DockerBackend",
    "DockerSandbox",
    "SandboxError",
    "container_options",
    "docker_available",
    "owner_labels",
    "process_start",
    "reap_orphans",
    "runner_source",
]

# The capabilities the verifier's root needs to handle files the agent owns (copy them in
# with their owners, let tests write beside them); everything else stays dropped.
_CLEAN_ROOT_CAPS = ["CHOWN", "DAC_OVERRIDE", "FOWNER", "FSETID", "SETUID", "SETGID", "KILL"]


def _env_dict(pairs: list[str] | None) -> dict[str, str]:
    out = {}
    for pair in pairs or []:
        key, sep, value = pair.partition("=")
        if sep:
            out[key] = value
    return out


def container_options(limits: Limits, *, workdir: str, clean: bool, user: str) -> dict[str, Any]:
    """The ``containers.create`` keyword arguments of a sandbox (a pure function).

    Both kinds have a read-only root and size-capped tmpfs mounts where writing is allowed.
    ``clean`` containers are the verifier's: writable mounts on the workdir (seeded from the
    image, owners kept), ``/tmp``, ``/root`` and the verifier's :data:`CLEAN_WRITABLE`
    directories, and, for root, the few capabilities needed to handle the agent's files. The
    agent's code runs there during the tests: it must not be able to fill the host's disk.

    >>> opts = container_options(Limits(), workdir="/app", clean=False, user="1000:1000")
    >>> opts["network_mode"], opts["cap_drop"], opts["read_only"], opts["pids_limit"]
    ('none', ['ALL'], True, 128)
    >>> opts["tmpfs"]["/app"]
    'size=256m,uid=1000,gid=1000,mode=0755,nosuid,nodev,exec'
    >>> sorted(container_options(Limits(), workdir="/app", clean=True, user="0:0")["tmpfs"])
    ['/app', '/logs', '/root', '/tests', '/tmp', '/verifier']
    """
    memory = f"{limits.memory_mb}m"
    tmpfs = {"/tmp": f"size={limits.tmp_mb}m,mode=1777,exec,nosuid,nodev"}
    if not clean:
        owned = "uid=1000,gid=1000,mode=0755,nosuid,nodev"
        tmpfs[workdir] = f"size={limits.workspace_mb}m,{owned},exec"
        tmpfs[AGENT_HOME] = f"size={limits.tmp_mb}m,{owned}"
    else:
        tmpfs[workdir] = f"size={limits.workspace_mb}m,mode=0755,nosuid,nodev,exec"
        for path in ("/root", *CLEAN_WRITABLE):
            tmpfs.setdefault(path, f"size={limits.tmp_mb}m,mode=0755,nosuid,nodev,exec")
    opts: dict[str, Any] = {
        "command": ["sleep", "infinity"],
        "init": True,
        "user": user,
        "working_dir": workdir,
        "network_mode": "bridge" if limits.network else "none",
        "mem_limit": memory,
        "memswap_limit": memory,
        "nano_cpus": int(limits.cpus * 1e9),
        "pids_limit": limits.pids,
        "cap_drop": ["ALL"],
        "security_opt": ["no-new-privileges"],
        "read_only": True,
        "tmpfs": tmpfs,
        "shm_size": f"{limits.tmp_mb}m",
        "hostname": "sandbox",
        "labels": {LABEL: "1", **owner_labels(), f"{LABEL}.role": "clean" if clean else "agent"},
    }
    if clean and user.split(":")[0] in ("root", "0"):
        opts["cap_add"] = list(_CLEAN_ROOT_CAPS)
    return opts


log = logging.getLogger(__name__)

_BACKENDS: set[DockerBackend] = set()


@atexit.register
def _close_all() -> None:
    for backend in list(_BACKENDS):
        backend.close()


class DockerBackend:
    """Starts sandboxes from images, keeps a warm pool per (image, limits, workdir).

    ``pool_size`` warm containers wait per key (0 disables the pool); at most ``max_pools``
    keys keep a pool (the least recently used one is drained first), so cycling through many
    task images does not pile up containers.

    >>> backend = DockerBackend(pool_size=2)  # doctest: +SKIP
    >>> box = backend.start("agentgym/base:bookworm", Limits(), workdir="/app")  # doctest: +SKIP
    >>> backend.close()  # doctest: +SKIP
    """

    name = "docker"

    def __init__(self, *, pool_size: int = 2, max_pools: int = 4) -> None:
        if not isinstance(pool_size, int) or pool_size < 0:
            raise ValueError(f"pool_size must be an int >= 0, got {pool_size!r}")
        if not isinstance(max_pools, int) or max_pools < 1:
            raise ValueError(f"max_pools must be an int >= 1, got {max_pools!r}")
        self.client = connect()
        # What a kill -9 of an earlier process on this host left running (its episode and its
        # warm spares) goes now, before this backend adds its own.
        with contextlib.suppress(Exception):
            reap_orphans(self.client)
        self.pool_size = pool_size
        self.max_pools = max_pools
        self._pools: dict[tuple[str, Limits, str], WarmPool[DockerSandbox]] = {}
        self._retired: list[WarmPool[DockerSandbox]] = []
        # Strong references: a sandbox dropped without close() is still removed by close().
        self._sandboxes: set[DockerSandbox] = set()
        self._seeds: dict[tuple[str, str], bytes] = {}
        self._images: dict[str, tuple[str, dict[str, str]]] = {}
        self._lock = threading.Lock()
        self._reaper = Reaper()
        #: Labels every container this backend makes, so ``close`` can find any that a path
        #: it did not foresee left behind (a start that failed half-way, a race at close).
        self.id = uuid.uuid4().hex[:12]
        self.closed = False
        _BACKENDS.add(self)

    def prepare(self, image_context: Path, *, tag: str) -> str:
        """Build ``image_context`` (a directory with a Dockerfile), cached by its content hash;
        ``tag`` is the repository part, e.g. ``agentgym/task-csv-column-sum``."""
        return build_image(Path(image_context), tag_prefix=tag, client=self.client)

    def start(self, image: str, limits: Limits, *, workdir: str) -> DockerSandbox:
        """A sandbox for one episode as the agent user, from the warm pool when one is ready.

        Raises SandboxError (one line) when the image is missing or Docker fails.
        """
        self._check_open()
        key = (image, limits, workdir)
        if self.pool_size == 0:
            box = self._create(image, limits, workdir=workdir, user=AGENT_USER, clean=False)
            with self._lock:
                self._sandboxes.add(box)
            return box
        def factory() -> DockerSandbox:
            return self._create(image, limits, workdir=workdir, user=AGENT_USER, clean=False)

        with self._lock:
            pool = self._pools.pop(key, None)
            if pool is not None:
                self._pools[key] = pool  # most recently used last
        if pool is None:
            # The first start of a key is cold, and proves the image works before a refill
            # thread starts making containers from it.
            box = factory()
            with self._lock:
                pool = self._pools.pop(key, None) or WarmPool(factory, size=self.pool_size)
                self._pools[key] = pool
        else:
            try:
                box = pool.take()
            except RuntimeError:  # evicted by another thread meanwhile: start cold
                box = factory()
        with self._lock:
            self._sandboxes.add(box)
            evicted = [self._pools.pop(k) for k in list(self._pools)[: -self.max_pools]]
        self._retire(evicted)
        return box

    def warm(self, image: str, limits: Limits, *, workdir: str,
             wait_s: float | None = None) -> int:
        """Fill the pool of (image, limits, workdir) ahead of the first ``start``; with
        ``wait_s``, block until it is full (or that many seconds passed). Returns how many
        sandboxes are ready. Raises SandboxError when the image is missing.

        >>> backend.warm(BASE_IMAGE, Limits(), workdir="/app", wait_s=30)  # doctest: +SKIP
        2
        """
        self._check_open()
        if self.pool_size == 0:
            return 0
        self._image(image)  # fails fast, before a refill thread retries a missing image
        key = (image, limits, workdir)
        with self._lock:
            pool = self._pools.pop(key, None) or WarmPool(
                lambda: self._create(image, limits, workdir=workdir, user=AGENT_USER,
                                     clean=False), size=self.pool_size)
            self._pools[key] = pool
            evicted = [self._pools.pop(k) for k in list(self._pools)[: -self.max_pools]]
        self._retire(evicted)
        if wait_s is not None:
            pool.wait_ready(wait_s)
        return pool.ready()

    def start_clean(self, image: str, limits: Limits, *, workdir: str,
                    user: str = "root") -> DockerSandbox:
        """A fresh container straight from ``image`` (never pooled), for the verifier: the
        image's workdir as built (on a tmpfs), writable :data:`CLEAN_WRITABLE` directories,
        ``user`` for ``run``; everything else read-only."""
        self._check_open()
        uid = "0:0" if user in ("root", "0", "0:0") else AGENT_USER if user == "agent" else user
        box = self._create(image, limits, workdir=workdir, user=uid, clean=True)
        with self._lock:
            self._sandboxes.add(box)
        return box

    def _retire(self, pools: list[WarmPool[DockerSandbox]]) -> None:
        """Close evicted pools without waiting; ``close`` waits for their refill threads."""
        for pool in pools:
            pool.close(wait=False)
        with self._lock:
            self._retired.extend(pools)

    def _check_open(self) -> None:
        if self.closed:
            raise SandboxError("the Docker backend is closed")

    def _image(self, image: str) -> tuple[str, dict[str, str]]:
        """(image id, its environment), looked up once per image reference."""
        with self._lock:
            known = self._images.get(image)
        if known is not None:
            return known
        try:
            found = self.client.images.get(image)
        except Exception as exc:  # ImageNotFound, APIError
            hint = " (run `agentgym docker build-base`)" if "agentgym/base" in image else ""
            raise SandboxError(f"image {image} is not available: {first_line(exc)}{hint}") \
                from exc
        known = (found.id, _env_dict(found.attrs.get("Config", {}).get("Env")))
        with self._lock:
            self._images[image] = known
        return known

    def _seed(self, image_id: str, workdir: str) -> bytes:
        """A tar of the image's workdir (top directory included), captured once per image."""
        key = (image_id, workdir)
        with self._lock:
            if key in self._seeds:
                return self._seeds[key]
        api = self.client.api
        cid = api.create_container(image_id, command=["true"],
                                   labels={LABEL: "1", **owner_labels(),
                                           f"{LABEL}.backend": self.id,
                                           f"{LABEL}.role": "seed"})["Id"]
        try:
            stream, _ = api.get_archive(cid, workdir)
            data = b"".join(stream)
        except Exception as exc:  # docker.errors.NotFound: no such workdir
            if "404" not in str(exc) and "No such" not in str(exc):
                raise SandboxError(f"could not read {workdir} of the image: {first_line(exc)}") \
                    from exc
            data = b""
        finally:
            # Retried like every removal: a silent single try left seed containers behind.
            remove_container_id(self.client, cid)
        with self._lock:
            self._seeds[key] = data
        return data

    def _create(self, image: str, limits: Limits, *, workdir: str, user: str,
                clean: bool) -> DockerSandbox:
        if not isinstance(workdir, str) or not workdir.startswith("/") or workdir == "/":
            raise ValueError(f"workdir must be an absolute path below /, got {workdir!r}")
        image_id, image_env = self._image(image)
        seed = self._seed(image_id, workdir)
        opts = container_options(limits, workdir=workdir, clean=clean, user=user)
        opts["labels"][f"{LABEL}.backend"] = self.id
        name = f"agentgym-{'clean' if clean else 'sbx'}-{uuid.uuid4().hex[:12]}"
        try:
            container = self.client.containers.run(image_id, detach=True, name=name, **opts)
        except Exception as exc:  # docker.errors.*
            with contextlib.suppress(Exception):
                remove_container(self.client.containers.get(name))
            raise SandboxError(f"could not start a container from {image}: "
                               f"{first_line(exc)}") from exc
        box = DockerSandbox(self.client, container, limits, workdir=workdir, user=user,
                            image_env=image_env, reaper=self._reaper,
                            on_close=self._forget)
        try:
            if seed and _has_members(seed):
                box.seed_workspace(seed)
            if not clean:  # the verifier's checks use run_argv; its runner starts on demand
                box.start_runners()
        except BaseException:
            box.close()
            raise
        return box

    def _forget(self, box: DockerSandbox) -> None:
        with self._lock:
            self._sandboxes.discard(box)

    def close(self) -> None:
        """Remove every container this backend started (pools included); idempotent."""
        self.closed = True
        _BACKENDS.discard(self)
        with self._lock:
            pools, self._pools = [*self._pools.values(), *self._retired], {}
            self._retired = []
        for pool in pools:
            pool.close()
        with self._lock:
            boxes = list(self._sandboxes)
        for box in boxes:
            box.close(wait=False)
        self._reaper.flush()
        self._sweep()

    def _sweep(self) -> None:
        """Remove whatever still carries this backend's label: the last line of defence, for
        a container made on a path ``close`` did not track (a start that failed half-way,
        a daemon too slow to answer). A loaded CI run once found 3 after close()."""
        try:
            left = self.client.api.containers(
                all=True, filters={"label": f"{LABEL}.backend={self.id}"})
        except Exception as exc:  # the daemon went away: nothing more can be done here
            log.warning("could not list this backend's containers: %s", first_line(exc))
            return
        for summary in left:
            labels = summary.get("Labels") or {}
            log.info("removing container %s (%s) left after close", summary["Id"][:12],
                     labels.get(f"{LABEL}.role", "?"))
            remove_container_id(self.client, summary["Id"])

    def __enter__(self) -> DockerBackend:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()



def _has_members(tar_bytes: bytes) -> bool:
    """True when the archive holds more than its top directory."""
    with tarfile.open(fileobj=io.BytesIO(tar_bytes)) as archive:
        return sum(1 for _ in zip(archive, range(2), strict=False)) > 1
