"""The command runner on its own (a host subprocess speaking JSON lines): no Docker needed."""

from __future__ import annotations

import base64
import json
import shutil
import subprocess
import sys
import time

import pytest

from agentgym.sandbox.policy import runner_source

pytestmark = pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")


@pytest.fixture()
def runner(tmp_path):
    config = json.dumps({"env": {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"},
                         "workdir": str(tmp_path)})
    proc = subprocess.Popen([sys.executable, "-I", "-c", runner_source(), config],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    assert json.loads(proc.stdout.readline())["ready"]

    def ask(**request):
        proc.stdin.write(json.dumps(request).encode() + b"\n")
        proc.stdin.flush()
        answer = json.loads(proc.stdout.readline())
        for key in ("stdout", "stderr"):
            if key in answer:
                answer[key] = base64.b64decode(answer[key])
        return answer

    yield ask, tmp_path
    proc.stdin.close()
    proc.wait(timeout=10)


def test_run_reports_output_exit_code_and_cwd(runner):
    ask, home = runner
    out = ask(op="run", cmd="echo out; echo err >&2; mkdir -p d; cd d; exit 3", cwd=str(home),
              timeout=5, limit=100)
    assert (out["stdout"], out["stderr"], out["exit"]) == (b"out\n", b"err\n", 3)
    assert out["cwd"] == str(home / "d") and not out["timed_out"]
    assert ask(op="run", cmd="pwd", cwd=out["cwd"], timeout=5, limit=100)["stdout"] == \
        f"{home}/d\n".encode()
    gone = ask(op="run", cmd="pwd", cwd="/no/such/dir", timeout=5, limit=100)
    assert gone["stdout"] == f"{home}\n".encode()  # a vanished cwd falls back to the workdir


def test_timeout_kills_the_group_and_output_is_capped(runner):
    ask, home = runner
    started = time.monotonic()
    # Durations no other test uses, so a host-wide pgrep sees only this command's sleeps.
    slow = ask(op="run", cmd="sleep 50.417 & sleep 51.417", cwd=str(home), timeout=0.3,
               limit=100)
    assert slow["timed_out"] and slow["exit"] == 124 and time.monotonic() - started < 3
    assert subprocess.run(["pgrep", "-f", r"sleep 5[01]\.417"],
                          capture_output=True).stdout == b""
    flood = ask(op="run", cmd="head -c 100000 /dev/zero", cwd=str(home), timeout=5, limit=1000)
    assert len(flood["stdout"]) == 1000 and flood["dropped"] == 99_000
    big = ask(op="run", cmd="printf %s " + "z" * 1_000_000 + " | wc -c", cwd=str(home),
              timeout=10, limit=100)
    assert big["stdout"].strip() == b"1000000"


def test_stdin_scripts_and_bad_requests(runner):
    ask, home = runner
    fed = ask(op="run", cmd="wc -c", cwd=str(home), timeout=5, limit=100,
              stdin=base64.b64encode(b"12345").decode())
    assert fed["stdout"].strip() == b"5"
    script = ask(op="script", script="echo from-sh\nexit 2\n", cwd=str(home), timeout=5)
    assert script["stdout"] == b"from-sh\n" and script["exit"] == 2
    assert "unknown op" in ask(op="nope")["error"]
    assert "bad request" in ask(op="run")["error"]
    assert ask(op="ping")["pong"]


def test_a_malformed_op_is_an_error_answer_not_a_dead_runner(runner):
    ask, home = runner
    # An unhashable op used to raise TypeError outside the runner's guard and end it.
    assert ask(op=["run"], cmd="true")["error"] == "unknown op ['run']"
    assert ask(op=None)["error"] == "unknown op None"
    assert ask(op="run", cmd="echo still here", cwd=str(home), timeout=5,
               limit=100)["stdout"] == b"still here\n"
