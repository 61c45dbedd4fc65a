"""Unsafe, oversized, incomplete or padded archives are refused before anything is unpacked."""

from __future__ import annotations

import gzip
import io
import json
import tarfile
from pathlib import Path

import pytest
from lb_helpers import raw_tar, read_members

from agentgym.leaderboard.bundle import Limits, unpack_bundle, write_bundle
from agentgym.leaderboard.errors import Rejected
from agentgym.leaderboard.manifest import listed_files
from agentgym.leaderboard.validate import validate_bundle


def _file(name: str) -> tarfile.TarInfo:
    return tarfile.TarInfo(name)


def _manifest_of(bundle: Path) -> bytes:
    return read_members(bundle)["manifest.json"]


def _refused(path: Path, dest: Path, *fragments: str, limits: Limits | None = None) -> str:
    with pytest.raises(Rejected) as caught:
        unpack_bundle(path, dest, expected=listed_files, limits=limits)
    message = str(caught.value)
    for fragment in fragments:
        assert fragment in message, message
    assert not dest.exists(), "nothing may be written before every header is checked"
    return message


@pytest.mark.parametrize("name, why", [
    ("../evil.json", "path with '..'"),
    ("results/../../evil.json", "path with '..'"),
    ("/etc/cron.d/evil", "absolute path"),
])
def test_unsafe_member_names(bundles: dict[str, Path], tmp_path: Path, name: str,
                             why: str) -> None:
    manifest = _manifest_of(bundles["oracle"])
    path = raw_tar(tmp_path / "b.tar.gz", [(_file("manifest.json"), manifest),
                                           (_file(name), b"{}")])
    _refused(path, tmp_path / "out", f"member {name!r}: {why}")


def test_path_traversal_refused_even_as_first_member(tmp_path: Path) -> None:
    path = raw_tar(tmp_path / "b.tar.gz", [(_file("../manifest.json"), b"{}")])
    _refused(path, tmp_path / "out", "path with '..'")


@pytest.mark.parametrize("kind, why", [
    (tarfile.SYMTYPE, "a link"), (tarfile.LNKTYPE, "a link"),
    (tarfile.CHRTYPE, "a device or fifo"), (tarfile.FIFOTYPE, "a device or fifo"),
    (tarfile.DIRTYPE, "a directory"),
])
def test_links_devices_and_directories_refused(bundles: dict[str, Path], tmp_path: Path,
                                               kind: bytes, why: str) -> None:
    info = _file("results/000-tictactoe-v0.json")
    info.type, info.linkname = kind, "/etc/passwd"
    path = raw_tar(tmp_path / "b.tar.gz", [(_file("manifest.json"),
                                            _manifest_of(bundles["oracle"])), (info, b"")])
    _refused(path, tmp_path / "out", why, "only regular files allowed")


def test_member_not_in_the_manifest(bundles: dict[str, Path], tmp_path: Path) -> None:
    members = read_members(bundles["oracle"])
    path = raw_tar(tmp_path / "b.tar.gz", [(_file(n), d) for n, d in members.items()]
                   + [(_file("results/extra.json"), b"{}")])
    _refused(path, tmp_path / "out", "member 'results/extra.json': not a file manifest.json lists")


def test_member_twice(bundles: dict[str, Path], tmp_path: Path) -> None:
    members = list(read_members(bundles["oracle"]).items())
    path = raw_tar(tmp_path / "b.tar.gz", [(_file(n), d) for n, d in members + members[1:2]])
    _refused(path, tmp_path / "out", "appears twice")


def test_listed_file_missing(bundles: dict[str, Path], tmp_path: Path) -> None:
    members = list(read_members(bundles["oracle"]).items())
    path = raw_tar(tmp_path / "b.tar.gz", [(_file(n), d) for n, d in members[:-1]])
    _refused(path, tmp_path / "out", "results/002-sokoban-v0.json: listed in manifest.json but "
             "not in the bundle")


def test_missing_manifest(bundles: dict[str, Path], tmp_path: Path) -> None:
    members = read_members(bundles["oracle"])
    del members["manifest.json"]
    path = raw_tar(tmp_path / "b.tar.gz", [(_file(n), d) for n, d in members.items()])
    _refused(path, tmp_path / "out", "manifest.json: missing")
    empty = raw_tar(tmp_path / "e.tar.gz", [])
    _refused(empty, tmp_path / "out", "manifest.json: missing (the archive is empty)")


def test_manifest_wrong_types(tmp_path: Path) -> None:
    manifest = {"schema": "agentgym.bundle/1", "agentgym_version": "0.1.0",
                "git": {"commit": None, "dirty": False, "source": "installed"},
                "agent": {"name": "x", "description": "", "prompt": "standard"},
                "files": [{"path": "results/a.json", "sha256": "0" * 64, "bytes": "12"}]}
    path = write_bundle(tmp_path / "b.tar.gz", manifest, {})
    _refused(path, tmp_path / "out", "manifest.json: files[0].bytes: wrong type, got \"12\"")
    manifest["git"]["dirty"] = "no"
    path = write_bundle(tmp_path / "b.tar.gz", manifest, {})
    _refused(path, tmp_path / "out", "manifest.json: git.dirty: expected true or false")


def test_not_a_tar_gz(tmp_path: Path) -> None:
    path = tmp_path / "b.tar.gz"
    path.write_text("hello")
    _refused(path, tmp_path / "out", "not a .tar.gz bundle")


def test_oversized_bundle_refused_by_its_size(bundles: dict[str, Path], tmp_path: Path) -> None:
    size = bundles["oracle"].stat().st_size
    message = _refused(bundles["oracle"], tmp_path / "out",
                       limits=Limits(max_bundle_bytes=size - 1))
    assert message == (f"oracle.tar.gz: {size} bytes, over the bundle size limit of {size - 1}")
    with pytest.raises(Rejected, match="over the bundle size limit"):
        validate_bundle(bundles["oracle"], limits=Limits(max_bundle_bytes=1000))


def test_gzip_bomb_refused_at_its_header(bundles: dict[str, Path], tmp_path: Path) -> None:
    # 64 MiB of zeros in a listed member compress to ~64 KiB; the unpacked cap is 1 MiB.
    name = "results/000-tictactoe-v0.json"
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w") as tar:
        manifest = _manifest_of(bundles["oracle"])
        info = _file("manifest.json")
        info.size = len(manifest)
        tar.addfile(info, io.BytesIO(manifest))
        info = _file(name)
        info.size = 64 << 20
        tar.addfile(info, io.BytesIO(bytes(info.size)))
    path = tmp_path / "bomb.tar.gz"
    path.write_bytes(gzip.compress(raw.getvalue()))
    assert path.stat().st_size < 1 << 20
    limits = Limits(max_bundle_bytes=1 << 20, max_unpacked_bytes=1 << 20)
    _refused(path, tmp_path / "out", f"member {name!r}: unpacked size passes the limit "
             f"of {1 << 20} bytes", limits=limits)


def test_safe_bundle_unpacks_with_hashes(bundles: dict[str, Path], tmp_path: Path) -> None:
    import hashlib

    digests = unpack_bundle(bundles["oracle"], tmp_path / "out", expected=listed_files)
    manifest = json.loads((tmp_path / "out" / "manifest.json").read_text())
    assert digests == {f["path"]: f["sha256"] for f in manifest["files"]}
    for name, digest in digests.items():
        assert hashlib.sha256((tmp_path / "out" / name).read_bytes()).hexdigest() == digest


def test_copy_out_counts_bytes_too(bundles: dict[str, Path], tmp_path: Path,
                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """Defence in depth: even with the header pass fooled, the copy stops at the cap."""
    import agentgym.leaderboard.bundle as bundle_module

    name = "results/000-tictactoe-v0.json"
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w") as tar:
        manifest = _manifest_of(bundles["oracle"])
        info = _file("manifest.json")
        info.size = len(manifest)
        tar.addfile(info, io.BytesIO(manifest))
        info = _file(name)
        info.size = 8 << 20
        tar.addfile(info, io.BytesIO(bytes(info.size)))
    path = tmp_path / "bomb.tar.gz"
    path.write_bytes(gzip.compress(raw.getvalue()))
    monkeypatch.setattr(bundle_module, "_headers",
                        lambda *args: ({}, ["manifest.json", name]))
    with pytest.raises(Rejected, match="unpacked size passes the limit"):
        unpack_bundle(path, tmp_path / "out", expected=listed_files,
                      limits=Limits(max_unpacked_bytes=2 << 20))
    assert (tmp_path / "out" / name).stat().st_size <= 2 << 20
