"""Safe packing and unpacking of a submission bundle (a ``.tar.gz``).

A bundle holds ``manifest.json`` (first) and the results files it lists, under ``results/``.
Nothing else: no directories, links, devices, absolute names or ``..``.

Unpacking never trusts the archive. :func:`unpack_bundle`

1. refuses a file larger than :attr:`Limits.max_bundle_bytes` (one ``stat``, nothing read);
2. reads the member *headers* once, writing nothing: each name must be safe and in the expected
   set (``manifest.json``, then exactly the files the manifest lists, once each), each member a
   regular file, and the running total of declared sizes at most
   :attr:`Limits.max_unpacked_bytes` -- checked on each header before its data is decompressed,
   so a gzip bomb is refused after reading one header, not after filling the disk;
3. only then copies the members out in chunks, counting bytes again (a lying stream cannot get
   past the cap either) and hashing each file on the way.

>>> import tempfile, pathlib
>>> tmp = pathlib.Path(tempfile.mkdtemp())
>>> _ = write_bundle(tmp / "b.tar.gz", {"files": []}, {})
>>> unpack_bundle(tmp / "b.tar.gz", tmp / "out", expected=lambda manifest: [])
{}
"""

from __future__ import annotations

import hashlib
import io
import json
import re
import tarfile
import zlib
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

from .errors import Rejected

__all__ = ["MANIFEST", "Limits", "is_results_name", "unpack_bundle", "write_bundle"]

MANIFEST = "manifest.json"
_RESULTS_NAME = re.compile(r"results/[A-Za-z0-9][A-Za-z0-9._-]{0,120}\.json")
_CHUNK = 1 << 20


@dataclass(frozen=True)
class Limits:
    """Caps on what a bundle may make the validator read and write.

    The defaults: a 1 GB archive, 8 GB unpacked (results JSON compresses about 10:1, so an
    honest 1 GB bundle fits; a bomb does not), a 16 MiB manifest.
    """

    max_bundle_bytes: int = 1_000_000_000
    max_unpacked_bytes: int = 8_000_000_000
    max_manifest_bytes: int = 16 * 1024 * 1024


def is_results_name(name: str) -> bool:
    """Whether ``name`` is a member name a results file may have in a bundle.

    >>> is_results_name("results/000-sokoban.json"), is_results_name("results/../x.json")
    (True, False)
    """
    return bool(_RESULTS_NAME.fullmatch(name)) and ".." not in name


def write_bundle(path: str | Path, manifest: Mapping[str, Any],
                 files: Mapping[str, bytes]) -> Path:
    """Write ``manifest`` (as ``manifest.json``, first) and ``files`` (name -> bytes) to ``path``.

    Members get fixed metadata (mtime 0, uid 0, mode 0644) so a bundle's bytes depend only on
    its contents.
    """
    path = Path(path)
    for name in files:
        if not is_results_name(name):
            raise ValueError(f"bundle member name {name!r} is not results/NAME.json")
    members = [(MANIFEST, (json.dumps(manifest, indent=1, sort_keys=True) + "\n").encode())]
    members += list(files.items())
    if path.parent != Path():
        path.parent.mkdir(parents=True, exist_ok=True)
    with tarfile.open(path, "w:gz", format=tarfile.PAX_FORMAT) as tar:
        for name, data in members:
            info = tarfile.TarInfo(name)
            info.size, info.mode, info.mtime = len(data), 0o644, 0
            tar.addfile(info, io.BytesIO(data))
    return path


def _kind(member: tarfile.TarInfo) -> str:
    if member.issym() or member.islnk():
        return "a link"
    if member.isdev() or member.ischr() or member.isblk() or member.isfifo():
        return "a device or fifo"
    if member.isdir():
        return "a directory"
    if member.issparse():
        return "a sparse file"
    return "not a regular file"


def _check_member(member: tarfile.TarInfo, where: str) -> None:
    name = member.name
    pure = PurePosixPath(name)
    if name.startswith(("/", "\\")) or re.match(r"[A-Za-z]:", name) or pure.is_absolute():
        raise Rejected(f"{where}: member {name!r}: absolute path")
    if ".." in pure.parts or ".." in name.split("\\"):
        raise Rejected(f"{where}: member {name!r}: path with '..'")
    if not member.isfile() or member.issparse():  # a sparse file expands past its stored size
        raise Rejected(f"{where}: member {name!r}: {_kind(member)}, only regular files allowed")


def _open(path: Path, where: str) -> tarfile.TarFile:
    try:
        # Stream mode: members are read in order, never seeked; a bomb cannot make us read ahead.
        return tarfile.open(path, "r|gz")
    except (tarfile.TarError, OSError, EOFError) as exc:
        raise Rejected(f"{where}: not a .tar.gz bundle ({exc})") from exc


Expected = Callable[[dict[str, Any]], Iterable[str]]


def _headers(path: Path, limits: Limits, where: str,
             expected: Expected) -> tuple[dict[str, Any], list[str]]:
    """Pass 1: check every header (and read the manifest); write nothing."""
    manifest: dict[str, Any] | None = None
    allowed: set[str] = set()
    seen: list[str] = []
    total = 0
    tar = _open(path, where)
    try:
        for member in tar:
            _check_member(member, where)
            total += member.size
            if total > limits.max_unpacked_bytes:
                raise Rejected(f"{where}: member {member.name!r}: unpacked size passes the "
                               f"limit of {limits.max_unpacked_bytes} bytes")
            if manifest is None:
                if member.name != MANIFEST:
                    raise Rejected(f"{where}: {MANIFEST}: missing (it must be the first member; "
                                   f"found {member.name!r})")
                if member.size > limits.max_manifest_bytes:
                    raise Rejected(f"{where}: {MANIFEST}: {member.size} bytes, over the limit of "
                                   f"{limits.max_manifest_bytes}")
                stream = tar.extractfile(member)
                assert stream is not None  # a regular file, checked above
                try:
                    manifest = json.loads(stream.read())
                except (json.JSONDecodeError, UnicodeDecodeError) as exc:
                    raise Rejected(f"{where}: {MANIFEST}: not valid JSON ({exc})") from exc
                if not isinstance(manifest, dict):
                    raise Rejected(f"{where}: {MANIFEST}: expected an object")
                allowed = set(expected(manifest))
                seen.append(member.name)
                continue
            if member.name in seen:
                raise Rejected(f"{where}: member {member.name!r}: appears twice")
            if member.name not in allowed:
                raise Rejected(f"{where}: member {member.name!r}: not a file {MANIFEST} lists")
            seen.append(member.name)
    except (tarfile.TarError, EOFError, OSError, zlib.error) as exc:
        raise Rejected(f"{where}: cannot read the archive ({exc})") from exc
    finally:
        tar.close()
    if manifest is None:
        raise Rejected(f"{where}: {MANIFEST}: missing (the archive is empty)")
    missing = sorted(allowed - set(seen))
    if missing:
        raise Rejected(f"{where}: {missing[0]}: listed in {MANIFEST} but not in the bundle")
    return manifest, seen


def unpack_bundle(path: str | Path, dest: str | Path, *,
                  expected: Callable[[dict[str, Any]], Iterable[str]],
                  limits: Limits | None = None) -> dict[str, str]:
    """Check and unpack ``path`` into ``dest``; return ``{member name: sha256}`` of the results.

    ``expected(manifest)`` gives the results-file names the manifest lists (it may raise
    :class:`Rejected` for a malformed manifest); the manifest itself is ``dest/manifest.json``.

    Raises:
        Rejected: too large, an unsafe or unexpected member, a missing file, not a .tar.gz.
        OSError: ``path`` cannot be read (a usage error, not a verdict on the bundle).
    """
    limits = limits or Limits()
    path, dest = Path(path), Path(dest)
    where = path.name
    size = path.stat().st_size
    if size > limits.max_bundle_bytes:
        raise Rejected(f"{where}: {size} bytes, over the bundle size limit of "
                       f"{limits.max_bundle_bytes}")
    _, names = _headers(path, limits, where, expected)
    dest.mkdir(parents=True, exist_ok=True)
    digests: dict[str, str] = {}
    total = 0
    tar = _open(path, where)
    try:
        for member in tar:
            if member.name not in names:  # cannot happen unless the file changed under us
                raise Rejected(f"{where}: member {member.name!r}: changed while being read")
            stream = tar.extractfile(member)
            assert stream is not None
            target = dest / PurePosixPath(member.name)
            target.parent.mkdir(parents=True, exist_ok=True)
            digest = hashlib.sha256()
            with open(target, "wb") as out:
                while chunk := stream.read(_CHUNK):
                    total += len(chunk)
                    if total > limits.max_unpacked_bytes:
                        raise Rejected(f"{where}: member {member.name!r}: unpacked size passes "
                                       f"the limit of {limits.max_unpacked_bytes} bytes")
                    digest.update(chunk)
                    out.write(chunk)
            if member.name != MANIFEST:
                digests[member.name] = digest.hexdigest()
    except (tarfile.TarError, EOFError, zlib.error) as exc:
        raise Rejected(f"{where}: cannot read the archive ({exc})") from exc
    finally:
        tar.close()
    return digests
