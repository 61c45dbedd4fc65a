"""The harness boundary in a real verifier container: what the agent's code can reach when a
hidden test runs it, tried from inside as an attacker would (issue 29, attack 1).

A root "pytest" stand-in keeps a secret and a report in ``/verifier/out`` (0700, as the
verifier makes it) and runs attacker code through ``agentgym_harness``. The attacker looks for
the root process under ``/proc`` and tries to read its memory and environment, signal it,
attach to it with ptrace, read or overwrite the report, and leave a daemon behind to rewrite
the report later. Every attempt must fail, and nothing of the agent's may survive the call.
"""

from __future__ import annotations

import io
import json
import os
import tarfile
import time
from pathlib import Path

import pytest
from terminal_support import needs_docker

from agentgym.environments.terminal.verifier import harness_source
from agentgym.sandbox import Limits

pytestmark = needs_docker
IMAGE = "agentgym/base:bookworm"

# Runs as uid 1000 through agent.python(): each attempt reports "denied" or what it got.
ATTACK = r'''
import ctypes, os, signal, time
root = int(open("/tmp/root.pid").read())
out = {"uid": os.getuid(), "euid": os.geteuid()}
status = open("/proc/self/status").read()
out["no_new_privs"] = "NoNewPrivs:\t1" in status
out["cap_eff"] = [l.split()[1] for l in status.splitlines() if l.startswith("CapEff")][0]

def attempt(name, fn):
    try:
        out[name] = repr(fn())[:80]
    except OSError as exc:
        out[name] = "denied" if exc.errno in (1, 13) else f"errno {exc.errno}"

attempt("read_secret", lambda: open("/verifier/out/secret").read())
attempt("list_verifier_out", lambda: os.listdir("/verifier/out"))
attempt("write_report", lambda: open("/verifier/out/junit.xml", "w").write("<forged/>"))
attempt("read_tests", lambda: os.listdir("/verifier/tests"))
attempt("read_memory", lambda: open(f"/proc/{root}/mem", "rb").read(1))
attempt("read_environ", lambda: open(f"/proc/{root}/environ", "rb").read())
attempt("open_stdout", lambda: open(f"/proc/{root}/fd/1", "w").write("forged\n"))
attempt("kill_root", lambda: os.kill(root, signal.SIGKILL))
libc = ctypes.CDLL(None, use_errno=True)
rc = libc.ptrace(16, root, None, None)  # PTRACE_ATTACH
out["ptrace_attach"] = "denied" if rc != 0 else "attached"
if os.fork() == 0:  # a daemon that outlives the call and rewrites the report later
    os.setsid()
    if os.fork() == 0:
        for _ in range(200):
            try:
                open("/verifier/out/junit.xml", "w").write("<forged/>")
            except OSError:
                pass
            time.sleep(0.05)
    os._exit(0)
time.sleep(0.2)
result = out
'''

# The root side: keeps a secret and a report, runs the attack, then looks for survivors.
DRIVER = r'''
import json, os, sys, time
sys.path.insert(0, "/verifier/tests")
import agentgym_harness as agent
open("/verifier/out/secret", "w").write("the expected answer")
open("/verifier/out/junit.xml", "w").write("<real/>")
open("/tmp/root.pid", "w").write(str(os.getpid()))
got = agent.python(open("/verifier/attack.py").read(), path="/app")
time.sleep(0.5)
report = {"attack": got, "survivors": agent._agent_pids(),
          "report": open("/verifier/out/junit.xml").read(),
          "driver_alive": True}
print(json.dumps(report))
'''


def _tar(files: dict[str, tuple[bytes, int]], dirs: dict[str, int]) -> bytes:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w") as tar:
        for name, mode in dirs.items():
            info = tarfile.TarInfo(name)
            info.type, info.mode = tarfile.DIRTYPE, mode
            tar.addfile(info)
        for name, (data, mode) in files.items():
            info = tarfile.TarInfo(name)
            info.size, info.mode = len(data), mode
            tar.addfile(info, io.BytesIO(data))
    return buf.getvalue()


@pytest.fixture(scope="module")
def report():
    from agentgym.sandbox.docker_backend import DockerBackend

    backend = DockerBackend(pool_size=0)
    try:
        box = backend.start_clean(IMAGE, Limits(), workdir="/app", user="root")
        box.copy_in(_tar({"verifier/tests/agentgym_harness.py": (harness_source().encode(), 0o600),
                          "verifier/attack.py": (ATTACK.encode(), 0o600)},
                         {"verifier/tests": 0o700, "verifier/out": 0o700}), "/")
        ran = box.run_argv(["python3", "-I", "-c", DRIVER], user="0:0", workdir="/app",
                           env={"PATH": "/usr/bin:/bin", "AGENTGYM_HARNESS_UID": "1000"},
                           timeout_s=60)
        assert ran.exit_code == 0, ran.stderr
        yield json.loads(ran.stdout.strip().splitlines()[-1])
    finally:
        backend.close()


def test_the_agents_code_runs_as_the_agent_without_privileges(report):
    attack = report["attack"]
    assert (attack["uid"], attack["euid"]) == (1000, 1000)
    assert attack["no_new_privs"] and int(attack["cap_eff"], 16) == 0


@pytest.mark.parametrize("attempt", ["read_secret", "list_verifier_out", "write_report",
                                     "read_tests", "read_memory", "read_environ",
                                     "open_stdout", "kill_root", "ptrace_attach"])
def test_the_agents_code_cannot_reach_the_test_process_or_its_files(report, attempt):
    assert report["attack"][attempt] == "denied", report["attack"]


def test_nothing_the_agent_started_survives_the_call(report):
    assert report["survivors"] == []
    assert report["report"] == "<real/>" and report["driver_alive"]


def test_outside_the_verifier_the_harness_runs_children_as_the_caller():
    from agentgym.sandbox import harness

    assert harness.call("math", "gcd", 12, 18, path="/") == 6
    with pytest.raises(harness.AgentError) as raised:
        harness.call("math", "sqrt", -1, path="/")
    assert raised.value.isa("ValueError")
    assert harness.call_many("nosuchmodule_xyz", "f", [(1,), (2,)], path="/")[1].raised(
        "ModuleNotFoundError")


def test_scratch_files_go_through_the_agent(tmp_path):
    from agentgym.sandbox import harness

    src = tmp_path / "app"
    (src / "build").mkdir(parents=True)
    (src / "a.txt").write_text("a")
    (src / "build" / "x").write_text("x")
    copy = harness.copy_tree(str(src), "build", age_s=3600)
    try:
        assert sorted(p.name for p in Path(copy).iterdir()) == ["a.txt"]
        assert os.stat(f"{copy}/a.txt").st_mtime < time.time() - 3000
        harness.write(f"{copy}/a.txt", "b", append=True)
        assert harness.read(f"{copy}/a.txt") == "ab"
        with pytest.raises(harness.AgentError):
            harness.read(f"{copy}/missing")
    finally:
        harness.remove(str(Path(copy).parent))
    assert not os.path.exists(copy)


def test_a_truncated_output_says_so():
    from agentgym.sandbox import harness

    done = harness.sh(f"head -c {harness.MAX_OUTPUT + 10} /dev/zero", cwd="/")
    assert done.truncated and len(done.stdout) == harness.MAX_OUTPUT
    assert not harness.sh("echo hi", cwd="/").truncated


@pytest.mark.parametrize(("body", "reward"), [("assert 1 + 1 == 2", "1"),
                                              ("assert 1 + 1 == 3", "0")])
def test_harbor_verify_writes_harbors_reward(tmp_path, body, reward):
    from agentgym.sandbox import harness

    tests = tmp_path / "tests"
    tests.mkdir()
    (tests / "test_x.py").write_text(f"def test_x():\n    {body}\n")
    harness.harbor_verify(str(tests), reward_file=str(tmp_path / "logs" / "reward.txt"))
    assert (tmp_path / "logs" / "reward.txt").read_text().strip() == reward
