"""200 short episodes leave no container, volume, process or thread behind (real Docker)."""

from __future__ import annotations

import os
import subprocess
import threading
import time
from pathlib import Path

import pytest
from terminal_support import needs_docker

from agentgym.environments.terminal.env import TerminalEnv

pytestmark = [needs_docker, pytest.mark.slow]


def docker_lines(*args: str) -> set[str]:
    run = subprocess.run(["docker", *args], capture_output=True, text=True, check=True)
    return set(run.stdout.split())


def children() -> set[int]:
    """PIDs of this process's child processes."""
    me, kids = os.getpid(), set()
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == me:
                kids.add(int(entry.name))
    return kids


def test_200_episodes_leave_nothing_behind(task_copy):
    # An image of its own, so the containers counted here are this test's whatever else runs
    # on the machine: the extra file is copied into the image. (Only present in the build
    # context, it changed the tag but not the image: `ancestor=` then also matched the
    # containers of another worker's sum-numbers test, and CI twice "found" 3 of them.)
    root = task_copy("sum-numbers")
    (root / "environment" / "leak-test.txt").write_text("an image of this test's own\n")
    dockerfile = root / "environment" / "Dockerfile"
    dockerfile.write_text(dockerfile.read_text() + "COPY leak-test.txt /leak-test.txt\n")
    volumes, kids = docker_lines("volume", "ls", "-q"), children()
    env = TerminalEnv(task=str(root), backend="docker", score_process=False)
    start = time.monotonic()
    try:
        for seed in range(200):
            env.reset(seed=seed)
            env.step("echo $((6 * 7)) > answer.txt" if seed % 40 == 0 else "ls")
            if seed % 40 == 0:
                *_, info = env.step("submit")
                assert info["reward_components"]["outcome"] == 1.0
        image = next(iter(env._images.values()))
        backend = env._get_backend().id
    finally:
        env.close()
    elapsed = time.monotonic() - start
    left = subprocess.run(
        ["docker", "ps", "-a", "--filter", f"ancestor={image}", "--format",
         "{{.ID}} {{.Names}} {{.Status}} {{.Label \"agentgym.sandbox.role\"}}"],
        capture_output=True, text=True, check=True).stdout.splitlines()
    assert left == [], f"{len(left)} containers of {image} left after close(): {left}"
    assert docker_lines("ps", "-aq", "--filter", f"label=agentgym.sandbox.backend={backend}") \
        == set()
    assert docker_lines("volume", "ls", "-q") - volumes == set()
    assert children() <= kids
    assert not [t.name for t in threading.enumerate() if t.name == "agentgym-warm-pool"]
    print(f"200 episodes in {elapsed:.1f} s")
