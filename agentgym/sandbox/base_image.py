"""The base image every task image starts ``FROM``: a minimal Debian built offline.

No registry can be pulled from here, so the image is made from scratch: ``debootstrap
--variant=minbase bookworm`` with :data:`BASE_PACKAGES`, a user ``agent`` (uid 1000, home
``/home/agent``), a system ``/etc/gitconfig`` (author, ``init.defaultBranch=main``,
``safe.directory=*``), the hidden tests' harness as ``agentgym_harness``
(:data:`HARNESS_PATH`; the image's ``agentgym.harness`` label names its version, and an image
with an older one is imported again), then ``docker import``. The root filesystem stays in
the agentgym cache (``agentgym.cache.cache_dir("sandbox", "rootfs-bookworm")``): the
bubblewrap backend runs on it.

>>> BASE_IMAGE
'agentgym/base:bookworm'
>>> "python3-pytest" in BASE_PACKAGES
True
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

from agentgym.cache import cache_dir
from agentgym.sandbox.docker_client import connect, docker_available
from agentgym.sandbox.errors import SandboxError, first_line

__all__ = [
    "BASE_IMAGE",
    "BASE_PACKAGES",
    "HARNESS_PATH",
    "SUITE",
    "base_image_present",
    "base_rootfs",
    "build_base",
    "export_rootfs",
    "gitconfig",
    "harness_digest",
    "harness_source",
    "import_rootfs",
]

BASE_IMAGE = "agentgym/base:bookworm"
SUITE = "bookworm"
BASE_PACKAGES = (
    "python3", "python3-pytest", "git", "sqlite3", "make", "procps", "jq", "gawk", "bc",
    "patch", "file", "xz-utils", "bzip2",
)
#: Where the image carries the harness: on Debian python3's path, so a Harbor ``test.sh``
#: that runs the hidden tests outside agentgym's verifier imports it too.
HARNESS_PATH = "/usr/lib/python3/dist-packages/agentgym_harness.py"
IMAGE_ENV = ("PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
             "LANG=C.UTF-8")
_DEFAULT_MIRROR = "http://deb.debian.org/debian"


def gitconfig() -> str:
    """The system git configuration of the image: commits work without setup.

    >>> "defaultBranch = main" in gitconfig()
    True
    """
    return ("[user]\n\tname = agent\n\temail = agent@agentgym.invalid\n"
            "[init]\n\tdefaultBranch = main\n[safe]\n\tdirectory = *\n")


def base_rootfs() -> Path:
    """Where :func:`build_base` keeps the root filesystem (the bwrap backend's root)."""
    return cache_dir("sandbox", f"rootfs-{SUITE}")


def _run(argv: list[str], what: str, log: Callable[[str], None]) -> None:
    log(f"{what} ...")
    done = subprocess.run(argv, capture_output=True, text=True)
    if done.returncode != 0:
        tail = (done.stderr or done.stdout).strip().splitlines()[-1:] or ["no output"]
        raise SandboxError(f"{what} failed (exit {done.returncode}): {tail[0][:300]}")


def _debootstrap(target: Path, log: Callable[[str], None]) -> None:
    """A fresh rootfs in ``target`` (built beside it, renamed into place when complete)."""
    if os.geteuid() != 0:
        raise SandboxError("building the base image needs root (debootstrap, chroot): run "
                           "`sudo agentgym docker build-base`")
    if shutil.which("debootstrap") is None:
        raise SandboxError("debootstrap is missing: apt-get install debootstrap "
                           "(scripts/start_docker.sh installs it)")
    partial = target.with_name(target.name + ".partial")
    shutil.rmtree(partial, ignore_errors=True)
    partial.parent.mkdir(parents=True, exist_ok=True)
    mirror = os.environ.get("AGENTGYM_DEBIAN_MIRROR", _DEFAULT_MIRROR)
    _run(["debootstrap", "--variant=minbase", f"--include={','.join(BASE_PACKAGES)}", SUITE,
          str(partial), mirror], f"debootstrap {SUITE} into {partial}", log)
    _run(["chroot", str(partial), "useradd", "-m", "-u", "1000", "-U", "-s", "/bin/bash",
          "agent"], "adding the user agent", log)
    (partial / "etc" / "gitconfig").write_text(gitconfig())
    for junk in ("var/cache/apt/archives", "var/lib/apt/lists"):
        for item in (partial / junk).glob("*"):
            if item.is_file():
                item.unlink()
    shutil.rmtree(target, ignore_errors=True)
    partial.rename(target)


def export_rootfs(target: Path, *, image: str = BASE_IMAGE, client: Any = None) -> Path:
    """Unpack ``image``'s filesystem into ``target`` (for the bwrap backend on a machine whose
    base image was built elsewhere); returns ``target``. Needs root to keep file owners."""
    client = client or connect()
    target = Path(target)
    partial = target.with_name(target.name + ".partial")
    shutil.rmtree(partial, ignore_errors=True)
    partial.mkdir(parents=True)
    container = client.containers.create(image, command=["true"],
                                         labels={"agentgym.sandbox": "1",
                                                 "agentgym.sandbox.role": "export"})
    try:
        tar = subprocess.Popen(["tar", "-x", "--numeric-owner", "-C", str(partial)],
                               stdin=subprocess.PIPE, stderr=subprocess.PIPE)
        assert tar.stdin is not None and tar.stderr is not None  # both are pipes
        for chunk in container.export():
            tar.stdin.write(chunk)
        tar.stdin.close()
        err = tar.stderr.read().decode(errors="replace").strip()
        if tar.wait() != 0:
            raise SandboxError(f"unpacking {image} into {partial} failed: {first_line(err)}")
    finally:
        container.remove(force=True)
    shutil.rmtree(target, ignore_errors=True)
    partial.rename(target)
    return target


def harness_source() -> str:
    """The text of :mod:`agentgym.sandbox.harness`: the image carries it as
    ``agentgym_harness`` (:data:`HARNESS_PATH`), the verifier ships it beside the tests."""
    return (Path(__file__).with_name("harness.py")).read_text(encoding="utf-8")


def harness_digest() -> str:
    """16 hex of the harness's hash: the base image's ``agentgym.harness`` label.

    >>> len(harness_digest())
    16
    """
    return hashlib.sha256(harness_source().encode()).hexdigest()[:16]


def import_rootfs(rootfs: Path, ref: str, *, client: Any = None) -> str:
    """``tar -C rootfs -c . | docker import`` with the image's ENV and the current harness
    (written into ``rootfs`` first, labelled with its digest); returns the image id."""
    client = client or connect()
    target = Path(rootfs) / HARNESS_PATH.lstrip("/")
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(harness_source(), encoding="utf-8")
    target.chmod(0o644)
    tar = subprocess.Popen(["tar", "--numeric-owner", "-C", str(rootfs), "-c", "."],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert tar.stdout is not None and tar.stderr is not None  # both are pipes
    repository, _, tag = ref.partition(":")
    try:
        client.api.import_image_from_stream(
            tar.stdout, repository=repository, tag=tag or "latest",
            changes=[*(f"ENV {pair}" for pair in IMAGE_ENV),
                     f"LABEL agentgym.harness={harness_digest()}"])
    except Exception as exc:  # docker.errors.APIError
        tar.kill()
        raise SandboxError(f"docker import of {rootfs} failed: {first_line(exc)}") from exc
    finally:
        tar.stdout.close()
        err = tar.stderr.read().decode(errors="replace").strip()
        tar.wait()
    if tar.returncode != 0:
        raise SandboxError(f"tar of {rootfs} failed: {first_line(err or tar.returncode)}")
    return client.images.get(ref).id


def base_image_present(image: str = BASE_IMAGE) -> bool:
    """True when a Docker daemon answers and holds ``image`` (what the Docker tests need).

    >>> isinstance(base_image_present(), bool)
    True
    """
    if not docker_available():
        return False
    try:
        connect().images.get(image)
    except Exception:  # ImageNotFound, or the daemon went away: not usable either way
        return False
    return True


def build_base(force: bool = False, log: Callable[[str], None] | None = None, *,
               image: str = BASE_IMAGE, rootfs: Path | None = None) -> str:
    """Build ``agentgym/base:bookworm`` offline and return its image id; reuse it when present.

    ``force`` rebuilds the root filesystem and the image. ``log`` gets one line per stage
    (default: nothing). ``image`` and ``rootfs`` (default :func:`base_rootfs`) exist for
    tests. Raises SandboxError with one line when Docker, root or debootstrap is missing, or
    a stage fails.

    >>> build_base(log=print)  # doctest: +SKIP
    reusing agentgym/base:bookworm (sha256:4ebc22...)
    'sha256:4ebc22...'
    """
    say = log or (lambda _line: None)
    client = connect()
    found = None
    if not force:
        try:
            found = client.images.get(image)
        except Exception:  # ImageNotFound: build it
            pass
        else:
            labels = found.attrs.get("Config", {}).get("Labels") or {}
            if labels.get("agentgym.harness") == harness_digest():
                say(f"reusing {image} ({found.id[:19]})")
                return found.id
            say(f"{image} carries an older agentgym_harness: importing it again")
    rootfs = Path(rootfs) if rootfs is not None else base_rootfs()
    if found is not None and not (rootfs / "etc" / "gitconfig").is_file():
        export_rootfs(rootfs, image=image, client=client)  # built elsewhere: no debootstrap
    if force or not (rootfs / "etc" / "gitconfig").is_file():
        _debootstrap(rootfs, say)
    else:
        say(f"reusing the root filesystem in {rootfs}")
    say(f"importing {rootfs} as {image}")
    image_id = import_rootfs(rootfs, image, client=client)
    say(f"built {image} ({image_id[:19]})")
    return image_id
