"""Task images: ``docker build`` of a directory, cached by a hash of its files.

The tag is ``<tag_prefix>:<12 hex of the content hash>``, so a changed file gives a new tag
and an unchanged directory is never rebuilt (the tag already exists).

>>> import tempfile, pathlib
>>> d = pathlib.Path(tempfile.mkdtemp())
>>> _ = (d / "Dockerfile").write_text("FROM agentgym/base:bookworm\\n")
>>> len(context_hash(d)), context_hash(d) == context_hash(d)
(12, True)
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from agentgym.sandbox.docker_client import connect
from agentgym.sandbox.errors import SandboxError, first_line

__all__ = ["build_image", "context_hash", "image_tag"]


def context_hash(context_dir: Path) -> str:
    """12 hex digits of a sha256 over every file's relative path, exec bit and bytes.

    Symlinks count by their target text; directories only through the files in them.
    """
    root = Path(context_dir)
    digest = hashlib.sha256()
    for path in sorted(p for p in root.rglob("*") if p.is_file() or p.is_symlink()):
        rel = path.relative_to(root).as_posix()
        if path.is_symlink():
            kind, body = b"L", os.readlink(path).encode()
        else:
            kind = b"X" if os.access(path, os.X_OK) else b"F"
            body = path.read_bytes()
        for part in (rel.encode(), kind, len(body).to_bytes(8, "big"), body):
            digest.update(part)
            digest.update(b"\0")
    return digest.hexdigest()[:12]


def image_tag(context_dir: Path, tag_prefix: str, *, base_id: str = "") -> str:
    """The tag :func:`build_image` gives ``context_dir`` built on the image ``base_id``.

    The base image's id is part of the hash: after ``agentgym docker build-base --force`` every
    task image gets a new tag, so none keeps running on the old base.

    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> image_tag(d, "agentgym/task-x").startswith("agentgym/task-x:")
    True
    >>> image_tag(d, "agentgym/task-x", base_id="sha256:1") != image_tag(d, "agentgym/task-x")
    True
    """
    digest = context_hash(context_dir)
    if base_id:
        digest = hashlib.sha256(f"{digest}\0{base_id}".encode()).hexdigest()[:12]
    return f"{tag_prefix}:{digest}"


def _base_id(dockerfile: Path, client: Any) -> str:
    """The local id of the image the Dockerfile's first ``FROM`` names ("" if it has none)."""
    for line in dockerfile.read_text(encoding="utf-8", errors="replace").splitlines():
        words = line.split()
        if words and words[0].upper() == "FROM":
            refs = [w for w in words[1:] if not w.startswith("--")]
            if not refs:
                return ""
            try:
                return str(client.images.get(refs[0]).id)
            except Exception:  # not built here: the build itself reports it
                return ""
    return ""


def build_image(context_dir: Path, *, tag_prefix: str, client: Any = None,
                log: Callable[[str], None] | None = None, timeout_s: float = 600.0) -> str:
    """Build ``context_dir`` (its ``Dockerfile``) offline and return the tag; reuse the tag
    when it exists.

    The build runs with ``--network none`` and never pulls: its ``FROM`` must be a local
    image (``agentgym/base:bookworm``). Raises SandboxError naming the Dockerfile and the
    step's error.

    >>> build_image(Path("tasks/x/environment"), tag_prefix="agentgym/task-x")  # doctest: +SKIP
    'agentgym/task-x:3f2a9c0d1b7e'
    """
    context = Path(context_dir)
    dockerfile = context / "Dockerfile"
    if not dockerfile.is_file():
        raise SandboxError(f"{dockerfile}: no Dockerfile in the image directory")
    if not tag_prefix or ":" in tag_prefix.rsplit("/", 1)[-1]:
        raise ValueError(f"tag_prefix must be a repository name without a tag, got {tag_prefix!r}")
    client = client or connect()
    tag = image_tag(context, tag_prefix, base_id=_base_id(dockerfile, client))
    try:
        client.images.get(tag)
        return tag
    except Exception:  # ImageNotFound: build it below
        pass
    if log:
        log(f"building {tag} from {context}")
    try:
        _, lines = client.images.build(path=str(context), tag=tag, rm=True, forcerm=True,
                                       pull=False, network_mode="none", timeout=timeout_s,
                                       labels={"agentgym.image": "1"})
    except Exception as exc:  # docker.errors.BuildError / APIError
        detail = _build_error(exc)
        raise SandboxError(f"{dockerfile}: image build failed: {detail}") from exc
    if log:
        for entry in lines:
            text = str(entry.get("stream", "")).strip()
            if text.startswith("Step "):
                log(text)
    return tag


def _build_error(exc: BaseException) -> str:
    """The last meaningful line of a failed build (the step's own error)."""
    build_log = getattr(exc, "build_log", None) or []
    lines = [str(e.get("stream") or e.get("error") or "").strip() for e in build_log]
    lines = [line for line in lines if line and not line.startswith("--->")]
    return first_line(" | ".join(lines[-3:]) if lines else exc)
