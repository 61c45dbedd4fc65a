"""Hidden tests for build-shell-script: build.sh runs in a copy of /app, as the agent
through agentgym_harness."""
import hashlib
import os
import tarfile
from pathlib import Path

import agentgym_harness as agent
import pytest

LISTED = ["bin/demo", "config/app.json", "config/logging.json", "docs/README.txt",
          "docs/user guide.txt"]
# sha256 of each listed file as the task ships it: the copy's own files could be rewritten by
# the build script it runs, so the bundle is compared with these
SHA256 = {'bin/demo': 'a5a301c60af0fd8cd3d77a140c73dd78dc87848025d499d5afcc1f2f7327572f',
 'config/app.json': '6a85855561a2291a074697955a2fb2a207638c2aae1c02858350424c08e3846a',
 'config/logging.json': 'ecfbe96c61c87c12980918b8275203ac0c2cbe49146cbe81b236c81c49fd5550',
 'docs/README.txt': '49ff8a159c339268d607076eae916603d1b587221696305542879da0561b60ad',
 'docs/user guide.txt': 'bf4cb2e8ffa4e4b174c61945e96c2cebad9ffd86ed67ce4f7c9fc4d3f094da94'}


@pytest.fixture
def work():
    return Path(agent.copy_tree("/app", "out"))


def build(work: Path, cwd: str | None = None) -> agent.Completed:
    # run through bash: /tmp (where the copy lives) may be mounted noexec
    return agent.run(["bash", str(work / "build.sh")], cwd=str(cwd or work), timeout=20)


def files_under(root: Path) -> list[str]:
    return sorted(str(p.relative_to(root)) for p in root.rglob("*") if p.is_file())


def test_bundle_has_exactly_the_listed_files(work):
    script = Path("/app/build.sh")
    assert os.access(script, os.X_OK), "build.sh is not executable"
    assert script.read_text().split("\n", 1)[0] in ("#!/bin/bash", "#!/usr/bin/env bash")
    out = build(work, cwd=agent.tempdir())
    assert out.returncode == 0, out.stderr
    bundle = work / "out" / "bundle"
    assert files_under(bundle) == sorted([*LISTED, "SHA256SUMS"])
    for rel in LISTED:
        assert hashlib.sha256((bundle / rel).read_bytes()).hexdigest() == SHA256[rel], rel


def test_checksums(work):
    assert build(work).returncode == 0
    bundle = work / "out" / "bundle"
    in_order = sorted(LISTED, key=lambda s: s.encode())
    expected = "".join(f"{SHA256[rel]}  {rel}\n" for rel in in_order)
    assert (bundle / "SHA256SUMS").read_text() == expected
    check = agent.run(["sha256sum", "-c", "SHA256SUMS"], cwd=str(bundle))
    assert check.returncode == 0


def test_tarball(work):
    assert build(work).returncode == 0
    with tarfile.open(work / "out" / "bundle.tar.gz", "r:gz") as tar:
        names = tar.getnames()
        files = sorted(m.name for m in tar.getmembers() if m.isfile())
        digests = {rel: hashlib.sha256(tar.extractfile(f"bundle/{rel}").read()).hexdigest()
                   for rel in LISTED if f"bundle/{rel}" in files}
    assert all(n == "bundle" or n.startswith("bundle/") for n in names)
    assert files == sorted(f"bundle/{rel}" for rel in [*LISTED, "SHA256SUMS"])
    assert digests == SHA256


def test_invalid_json_fails_and_leaves_no_tarball(work):
    assert build(work).returncode == 0
    assert (work / "out" / "bundle.tar.gz").exists()
    agent.write(work / "config" / "logging.json", '{"level": "info",,}\n')
    out = build(work)
    assert out.returncode != 0
    assert "logging.json" in out.stderr
    assert not (work / "out" / "bundle.tar.gz").exists()


def test_rebuild_is_fresh(work):
    assert build(work).returncode == 0
    manifest = work / "manifest.txt"
    agent.write(manifest, manifest.read_text().replace("docs/README.txt\n", ""))
    assert build(work).returncode == 0
    bundle = work / "out" / "bundle"
    assert not (bundle / "docs" / "README.txt").exists()
    assert "README.txt" not in (bundle / "SHA256SUMS").read_text()
