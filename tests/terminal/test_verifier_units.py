"""The verifier's parts: artifact stripping, JUnit and reward parsing, the declared count, the
harness shipped with the tests, and the milestones (those against real Docker)."""

from __future__ import annotations

import io
import tarfile

import pytest
from terminal_support import FIXTURES, needs_docker

from agentgym.environments.terminal.task import load_task
from agentgym.environments.terminal.verifier import (
    PYTEST_INI,
    JUnitResult,
    harness_source,
    hidden_tests_env,
    hidden_tests_tar,
    judge_count,
    milestone_results,
    parse_junit,
    parse_reward,
    read_tar_member,
    strip_artifacts,
)


def make_tar(members: list[tuple]) -> bytes:
    """members: (name, kind, payload) with kind file | dir | sym | hard | fifo | chr."""
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w") as tar:
        for name, kind, payload in members:
            info = tarfile.TarInfo(name)
            info.uid = info.gid = 1000
            data = None
            if kind == "file":
                data = payload.encode() if isinstance(payload, str) else payload
                info.size, info.mode = len(data), 0o644
            elif kind == "suid":
                data = b"#!/bin/sh\n"
                info.size, info.mode = len(data), 0o4755
            elif kind == "dir":
                info.type, info.mode = tarfile.DIRTYPE, 0o755
            elif kind == "sym":
                info.type, info.linkname = tarfile.SYMTYPE, payload
            elif kind == "hard":
                info.type, info.linkname = tarfile.LNKTYPE, payload
            elif kind == "fifo":
                info.type = tarfile.FIFOTYPE
            elif kind == "chr":
                info.type, info.devmajor, info.devminor = tarfile.CHRTYPE, 1, 3
            tar.addfile(info, io.BytesIO(data) if data is not None else None)
    return buf.getvalue()


def names(tar_bytes: bytes) -> list[str]:
    with tarfile.open(fileobj=io.BytesIO(tar_bytes)) as tar:
        return [m.name for m in tar]


def test_plain_artifacts_pass_through_with_content_and_owner():
    raw = make_tar([("app", "dir", None), ("app/main.py", "file", "print(1)\n"),
                    ("app/pkg", "dir", None), ("app/pkg/mod.py", "file", "x = 1\n"),
                    ("app/link", "sym", "pkg/mod.py"), ("app/abs", "sym", "/app/pkg"),
                    ("app/hard", "hard", "app/main.py"),
                    ("app/pyproject.toml", "file", "[project]\nname = 'x'\n"),
                    ("app/setup.cfg", "file", "[metadata]\nname = x\n")])
    result = strip_artifacts(raw, ["/app"])
    assert result.stripped == ()
    assert names(result.tar) == names(raw)
    assert read_tar_member(result.tar, "/app/main.py") == b"print(1)\n"
    with tarfile.open(fileobj=io.BytesIO(result.tar)) as tar:
        assert {m.uid for m in tar} == {1000}


@pytest.mark.parametrize(
    ("member", "why"),
    [
        (("app/conftest.py", "file", "import pytest\n"), "configuration"),
        (("app/deep/er/conftest.py", "file", ""), "configuration"),
        (("app/pytest.ini", "file", "[pytest]\naddopts = -p x\n"), "configuration"),
        (("app/.pytest.ini", "file", "[pytest]\n"), "configuration"),
        (("app/tox.ini", "file", "[pytest]\n"), "configuration"),
        (("app/sitecustomize.py", "file", "import os\n"), "configuration"),
        (("app/lib/usercustomize.py", "file", ""), "configuration"),
        (("app/evil.pth", "file", "import os; os.system('x')\n"), ".pth"),
        (("app/pyproject.toml", "file", "[tool.pytest.ini_options]\naddopts = '-x'\n"),
         "[tool.pytest]"),
        (("app/setup.cfg", "file", "[tool:pytest]\naddopts = -x\n"), "pytest section"),
        (("app/__pycache__/m.cpython-311.pyc", "file", b"\x00"), "bytecode"),
        (("app/m.pyc", "file", b"\x00"), "bytecode"),
        (("app/escape", "sym", "/verifier/tests"), "leaves the artifacts"),
        (("app/up", "sym", "../verifier"), "leaves the artifacts"),
        (("app/sneaky", "sym", "/app/../etc/passwd"), "leaves the artifacts"),
        (("app/hl", "hard", "etc/shadow"), "hard link"),
        (("app/fifo", "fifo", None), "special file"),
        (("app/null", "chr", None), "special file"),
        (("etc/passwd", "file", "root::0:0\n"), "outside the artifacts"),
        (("/app/abs.py", "file", ""), "absolute or escaping"),
        (("app/../etc/x", "file", ""), "absolute or escaping"),
        (("application/x", "file", ""), "outside the artifacts"),
    ],
)
def test_what_can_bend_the_tests_is_stripped_and_reported(member, why):
    raw = make_tar([("app", "dir", None), ("app/keep.py", "file", "ok"), member])
    result = strip_artifacts(raw, ["/app"])
    assert len(result.stripped) == 1 and why in result.stripped[0], result.stripped
    assert names(result.tar) == ["app", "app/keep.py"]
    assert member[0].lstrip("/") not in names(result.tar)


def test_everything_below_a_stripped_directory_goes_too():
    raw = make_tar([("app", "dir", None), ("app/__pycache__", "dir", None),
                    ("app/__pycache__/x.txt", "file", "anything")])
    result = strip_artifacts(raw, ["/app"])
    assert names(result.tar) == ["app"]
    assert result.stripped == ("app/__pycache__ (bytecode)",)


def test_set_uid_bits_are_cleared():
    result = strip_artifacts(make_tar([("app/tool", "suid", None)]), ["/app"])
    with tarfile.open(fileobj=io.BytesIO(result.tar)) as tar:
        assert tar.getmember("app/tool").mode == 0o755


def test_member_names_with_dot_slash_are_normalised():
    result = strip_artifacts(make_tar([("./app/a.py", "file", "1")]), ["/app"])
    assert names(result.tar) == ["app/a.py"] and result.stripped == ()


def test_a_hard_link_to_a_stripped_file_is_stripped():
    raw = make_tar([("app/conftest.py", "file", "x"),
                    ("app/innocent.py", "hard", "app/conftest.py")])
    result = strip_artifacts(raw, ["/app"])
    assert names(result.tar) == [] and len(result.stripped) == 2


def test_hidden_tests_tar_is_root_owned_private_and_carries_the_ini():
    task = load_task(FIXTURES / "sum-numbers")
    with tarfile.open(fileobj=io.BytesIO(hidden_tests_tar(task))) as tar:
        members = {m.name: m for m in tar}
    assert "verifier/tests/test_answer.py" in members and "verifier/out" in members
    assert all(m.uid == 0 and m.gid == 0 for m in members.values())
    assert all(m.mode == 0o700 for m in members.values() if m.isdir())
    ini = read_tar_member(hidden_tests_tar(task), "/verifier/pytest.ini")
    assert ini == PYTEST_INI.encode()
    harbor = load_task(FIXTURES / "harbor-sum")
    with tarfile.open(fileobj=io.BytesIO(hidden_tests_tar(harbor))) as tar:
        assert {"tests/test.sh", "logs/verifier"} <= set(tar.getnames())


JUNIT = b"""<?xml version="1.0" encoding="utf-8"?><testsuites><testsuite name="pytest" errors="0"
failures="1" skipped="1" tests="4"><testcase classname="t" name="a"/><testcase name="b">
<failure message="no"/></testcase><testcase name="c"><skipped/></testcase>
<testcase name="d"><system-out>x</system-out></testcase></testsuite></testsuites>"""


def test_junit_counts_failures_skips_and_errors_as_not_passed():
    assert parse_junit(JUNIT) == parse_junit(JUNIT.replace(b"<testsuites>", b"")
                                             .replace(b"</testsuites>", b""))
    result = parse_junit(JUNIT)
    assert (result.passed, result.total, result.reason) == (2, 4, "")
    # A collection error: pytest lists it as an errored testcase and in the errors count.
    error = (b'<testsuite tests="1" errors="1"><testcase name="t"><error message="boom"/>'
             b"</testcase></testsuite>")
    assert (parse_junit(error).passed, parse_junit(error).total) == (0, 1)
    # A suite that says it ran more tests than it lists: the missing ones did not pass.
    assert parse_junit(b'<testsuite tests="3"><testcase name="a"/></testsuite>').total == 3


@pytest.mark.parametrize(
    ("xml", "reason"),
    [
        (None, "no JUnit XML"),
        (b"", "malformed"),
        (b"<testsuite><testcase", "malformed"),
        (b"<html/>", "not JUnit XML"),
        (b'<testsuite tests="0"/>', "no tests were collected"),
        (b'<testsuite tests="x"><testcase name="a"/></testsuite>', "non-integer"),
        (b'<!DOCTYPE x [<!ENTITY a "b">]><testsuite tests="1"><testcase name="&a;"/>'
         b"</testsuite>", "DOCTYPE"),
        (b"<testsuite>" + b"<testcase/>" * 800_000 + b"</testsuite>", "too large"),
    ],
)
def test_bad_junit_is_zero_with_a_reason(xml, reason):
    result = parse_junit(xml)
    assert (result.passed, result.total) == (0, 0) and reason in result.reason


@pytest.mark.parametrize(
    ("txt", "js", "expected"),
    [
        (b"1.0\n", None, 1.0), (b"0.25", None, 0.25), (b"0", None, 0.0),
        (None, b'{"reward": 1}', 1.0), (b"1.5", None, 0.0), (b"-0.1", None, 0.0),
        (b"nan", None, 0.0), (b"inf", None, 0.0), (b"passed", None, 0.0), (None, None, 0.0),
        (None, b"[1]", 0.0),
    ],
)
def test_harbor_reward_files(txt, js, expected):
    value, reason = parse_reward(txt, js)
    assert value == expected
    assert (reason == "") == (expected > 0 or txt == b"0")


@needs_docker
def test_milestones_hold_by_dockers_exit_status_each_in_its_own_exec():
    from agentgym.sandbox import Limits
    from agentgym.sandbox.docker_backend import DockerBackend

    scripts = [
        "test -f /etc/hostname",                  # holds
        "exit 3",                                 # fails
        "echo 0; echo '1 0'; false",              # prints what looks like a verdict, fails
        "cd /; exit 0",                           # holds; the cd does not leak
        "cat > /dev/null; test -d .",             # reads stdin: gets only its own text
        "sleep 30",                               # past its timeout: does not hold
        "test \"$(id -u)\" = 1001",               # neither root nor the agent
        "(setsid sleep 300 &) ; true",            # holds; the sleep is killed after it
        "! pgrep -u 1001 sleep",                  # so nothing of the last one is left
    ]
    with DockerBackend(pool_size=0) as backend:
        box = backend.start("agentgym/base:bookworm", Limits(), workdir="/app")
        held = milestone_results(box, scripts, timeout_s=2)
    assert held == [True, False, False, True, True, False, True, True, True]


def test_judge_count_holds_the_total_to_the_declared_count():
    assert judge_count(JUnitResult(3, 3), 3) == JUnitResult(3, 3)
    assert judge_count(JUnitResult(1, 1), 5).passed == 0  # a forged one-case file
    assert judge_count(JUnitResult(7, 7), 5).reason == ("the JUnit XML lists 7 tests; the task "
                                                        "declares 5")
    broken = JUnitResult(0, 0, "no JUnit XML was written")
    assert judge_count(broken, 5) == broken  # the first reason stays
    assert judge_count(JUnitResult(2, 2), None) == JUnitResult(2, 2)  # a Harbor test.sh


def test_the_tests_environment_is_whole_and_names_the_harness_uid_only_when_isolated():
    env = hidden_tests_env(True)
    assert env["AGENTGYM_HARNESS_UID"] == "1000" and "PYTHONPATH" not in env
    assert "AGENTGYM_HARNESS_UID" not in hidden_tests_env(False)


def test_the_harness_ships_beside_the_hidden_tests_and_replaces_a_tasks_own(tmp_path):
    import shutil

    task_dir = tmp_path / "fix-add"
    shutil.copytree(FIXTURES / "fix-add", task_dir)
    (task_dir / "tests" / "agentgym_harness.py").write_text("FORGED = True\n")
    tar = hidden_tests_tar(load_task(task_dir))
    shipped = read_tar_member(tar, "/verifier/tests/agentgym_harness.py")
    assert shipped == harness_source().encode()
    with tarfile.open(fileobj=io.BytesIO(tar)) as archive:
        names = [m.name for m in archive]
    assert names.count("verifier/tests/agentgym_harness.py") == 1


@pytest.mark.parametrize(
    ("members", "gone"),
    [
        # The red team's hole: the second link leaves through the first (`s` is /app itself,
        # so `s/..` is /), which normalising the text of the target alone cannot see.
        ([("app/s", "sym", "/app"), ("app/x", "sym", "s/../verifier/tests/test_x.py")],
         "app/x (symlink"),
        # The same with the links in the other order in the archive.
        ([("app/x", "sym", "s/../etc/passwd"), ("app/s", "sym", "/app")], "app/x (symlink"),
        ([("app/d", "sym", "sub"), ("app/x", "sym", "d/../../proc/self/environ")],
         "app/x (symlink"),
        ([("app/a", "sym", "b"), ("app/b", "sym", "a"), ("app/x", "sym", "a/f")],
         "app/x (symlink"),  # a loop
        # A file extracted below a link would be written through it.
        ([("app/out", "sym", "/app"), ("app/out/f.txt", "file", b"x")], "app/out/f.txt (below"),
    ],
)
def test_symlinks_are_judged_with_the_archives_other_links(members, gone):
    stripped = strip_artifacts(make_tar(members), ["/app"]).stripped
    assert any(s.startswith(gone) for s in stripped), stripped


def test_links_that_stay_inside_through_other_links_are_kept():
    tar = make_tar([("app/sub", "dir", None), ("app/sub/f.txt", "file", b"x"),
                    ("app/s", "sym", "sub"), ("app/x", "sym", "s/../sub/f.txt"),
                    ("app/y", "sym", "/app/sub/f.txt")])
    assert strip_artifacts(tar, ["/app"]).stripped == ()
