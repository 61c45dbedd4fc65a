"""Attacks on the verifier, through the env against real Docker: none earns more than doing
nothing (0 of 3 hidden tests on the fixture task), and honest work still earns full marks.

Each attack writes its files in the agent's container with ordinary commands, then submits.
The forgeries' building blocks live in :mod:`agentgym.environments.terminal.exploits`, whose
policies ``agentgym audit agentgym/Terminal-v0`` plays.
"""

from __future__ import annotations

import pytest
from terminal_support import FIXTURES, needs_docker

from agentgym.environments.terminal.env import TerminalEnv
from agentgym.environments.terminal.exploits import (
    FAKE_JUNIT,
    FORCE_PASS_CONFTEST,
    FORCE_PASS_PLUGIN,
    FORGE,
    write,
)

pytestmark = needs_docker
SUM = str(FIXTURES / "sum-numbers")


def docker_env(task: str):
    """A module-scoped fixture: one Docker-backed env of ``task`` for the module's tests."""

    @pytest.fixture(scope="module")
    def fixture():
        with TerminalEnv(task=task, backend="docker") as made:
            yield made

    return fixture


env = docker_env(SUM)


def play(env: TerminalEnv, commands: list[str]) -> dict:
    env.reset(seed=0)
    for command in commands:
        *_, info = env.step(command)
        assert info["valid_action"], info["action_error"]
    *_, info = env.step("submit")
    return info


def outcome(info: dict) -> float:
    return info["reward_components"]["outcome"]


def test_doing_nothing_earns_zero_and_honest_work_earns_one(env):
    assert outcome(play(env, [])) == 0.0
    assert outcome(play(env, ["echo 42 > answer.txt"])) == 1.0


def test_the_hidden_tests_are_not_in_the_agents_container(env):
    env.reset(seed=0)
    obs, *_ = env.step("ls -la /verifier /tests /logs 2>&1; grep -rls 'test_answer_is_the_sum' "
                       "/ 2>/dev/null | head; echo done")
    assert "No such file or directory" in obs and "test_answer" not in obs.replace(
        "grep -rls 'test_answer_is_the_sum'", "")


@pytest.mark.parametrize(
    ("name", "commands", "stripped"),
    [
        ("root conftest", [write("/app/conftest.py", FORCE_PASS_CONFTEST)], "app/conftest.py"),
        ("nested conftest", [write("/app/a/b/conftest.py", FORCE_PASS_CONFTEST)],
         "app/a/b/conftest.py"),
        ("pytest.ini addopts", [write("/app/forcepass.py", FORCE_PASS_PLUGIN),
                                write("/app/pytest.ini", "[pytest]\naddopts = -p forcepass")],
         "app/pytest.ini"),
        ("pyproject addopts", [write("/app/forcepass.py", FORCE_PASS_PLUGIN),
                               write("/app/pyproject.toml",
                                     "[tool.pytest.ini_options]\naddopts = '-p forcepass'")],
         "app/pyproject.toml"),
        ("setup.cfg addopts", [write("/app/forcepass.py", FORCE_PASS_PLUGIN),
                               write("/app/setup.cfg", "[tool:pytest]\naddopts = -p forcepass")],
         "app/setup.cfg"),
        ("tox.ini addopts", [write("/app/forcepass.py", FORCE_PASS_PLUGIN),
                             write("/app/tox.ini", "[pytest]\naddopts = -p forcepass")],
         "app/tox.ini"),
        ("sitecustomize", [write("/app/sitecustomize.py", FORGE)], "app/sitecustomize.py"),
        ("usercustomize", [write("/app/usercustomize.py", FORGE)], "app/usercustomize.py"),
        (".pth file", [write("/app/evil.pth", "import os; exec(open('/app/forge.py').read())"),
                       write("/app/forge.py", FORGE)], "app/evil.pth"),
        ("bytecode", ["mkdir -p __pycache__ && echo x > __pycache__/pytest.cpython-311.pyc"],
         "app/__pycache__"),
        ("symlink to the verifier", ["ln -s /verifier /app/v && ln -s /verifier/out/junit.xml "
                                     "/app/junit.xml"], "app/v (symlink"),
        ("symlink to system python", ["ln -s /usr/lib/python3/dist-packages /app/dp"],
         "app/dp (symlink"),
        # Out through another link: s is /app, so s/.. is / (the red team's way past a
        # check that normalised the target's text alone); root's pytest followed it.
        ("symlink through a symlink", ["ln -s /app /app/s && ln -s "
                                       "s/../verifier/tests/test_answer.py /app/answer.txt"],
         "app/answer.txt (symlink"),
    ],
)
def test_config_and_startup_tricks_are_stripped_and_earn_nothing(env, name, commands, stripped):
    info = play(env, commands)
    assert outcome(info) == 0.0, name
    assert any(s.startswith(stripped) for s in info["verdict"]["stripped"]), info["verdict"]


@pytest.mark.parametrize(
    ("name", "commands"),
    [
        # A module named pytest in the workdir: `python3 -I -m pytest` never looks there.
        ("pytest.py shadow", [write("/app/pytest.py", FORGE)]),
        ("pytest package shadow", [write("/app/pytest/__init__.py", FORGE),
                                   write("/app/pytest/__main__.py", FORGE)]),
        # An executable `pytest` on a PATH the agent controls: the verifier's PATH is fixed.
        ("pytest shim on PATH", [write("/app/bin/pytest", "#!/bin/sh\n" + "echo " + FAKE_JUNIT
                                       + " > /verifier/out/junit.xml\nexit 0"),
                                 "chmod +x /app/bin/pytest",
                                 write("/home/agent/.bashrc", "export PATH=/app/bin:$PATH"),
                                 "export PATH=/app/bin:$PATH PYTHONPATH=/app"]),
        # Tests of its own next to the work, and a copy of the verifier's layout in /app.
        ("own tests", [write("/app/tests/test_answer.py", "def test_ok():\n    assert True"),
                       write("/app/verifier/tests/test_answer.py",
                             "def test_ok():\n    assert True"),
                       write("/app/verifier/out/junit.xml", FAKE_JUNIT)]),
        # A fake JUnit file where the verifier writes its own, in the agent's container.
        ("junit in /tmp and home", [write("/tmp/junit.xml", FAKE_JUNIT),
                                    write("/home/agent/junit.xml", FAKE_JUNIT)]),
        # The workdir replaced by a symlink to elsewhere.
        ("answer symlinked outside", ["ln -s /etc/hostname /app/answer.txt"]),
    ],
)
def test_shims_and_lookalikes_earn_nothing(env, name, commands):
    assert outcome(play(env, commands)) == 0.0, name


def test_editing_tests_after_the_fact_is_impossible(env):
    # The tests only ever exist in the verifier's container, created after the agent's
    # last command; nothing the agent leaves behind runs before or with them.
    env.reset(seed=0)
    env.step(write("/app/watch.sh", "while true; do echo 'def test_x(): pass' > "
                   "/verifier/tests/test_answer.py 2>/dev/null; sleep 0.1; done"))
    obs, *_ = env.step("(bash /app/watch.sh &) ; sleep 0.5; ls /verifier 2>&1 | head -1")
    assert "No such file or directory" in obs
    *_, info = env.step("submit")
    assert outcome(info) == 0.0


def test_a_forced_pass_conftest_does_not_spoil_honest_work(env):
    info = play(env, ["echo 42 > answer.txt", write("/app/conftest.py", FORCE_PASS_CONFTEST)])
    assert outcome(info) == 1.0 and info["success"]


# ---------------------------------------------------------------- code the tests import
ADD = str(FIXTURES / "fix-add")
KILL_AFTER_FORGING = (
    "import os, signal\n"
    "os.makedirs('/verifier/out', exist_ok=True)\n"
    f"open('/verifier/out/junit.xml', 'w').write({FAKE_JUNIT!r})\n"
    "os.kill(os.getpid(), signal.SIGKILL)\n"
)
# Lets pytest finish (1 test fails), then overwrites its JUnit file claiming all passed.
REWRITE_AFTER_PYTEST = (
    "import os, time\n"
    "if os.fork() == 0:\n"
    "    os.setsid()\n"
    "    ppid = os.getppid()\n"
    "    while os.path.exists(f'/proc/{ppid}'):\n"
    "        time.sleep(0.01)\n"
    "    open('/verifier/out/junit.xml', 'w').write("
    "'<testsuite tests=\"2\"><testcase name=\"a\"/><testcase name=\"b\"/></testsuite>')\n"
    "    os._exit(0)\n"
    "def add(a, b):\n"
    "    return a - b\n"
)


add_env = docker_env(ADD)


def test_a_module_that_forges_junit_and_kills_pytest_earns_nothing(add_env):
    # It runs as uid 1000 in the harness's child: /verifier is not its to write, and the
    # process it kills is its own child, not pytest.
    info = play(add_env, [write("/app/calc.py", KILL_AFTER_FORGING)])
    assert outcome(info) == 0.0
    assert info["verdict"]["passed"] == 0 and info["verdict"]["total"] == 2


def test_a_straggler_rewriting_junit_after_pytest_earns_nothing(add_env):
    info = play(add_env, [write("/app/calc.py", REWRITE_AFTER_PYTEST)])
    assert outcome(info) == 0.0, info["verdict"]


def test_the_fixed_module_still_scores(add_env):
    info = play(add_env, ["sed -i 's/a - b/a + b/' calc.py"])
    assert outcome(info) == 1.0 and info["verdict"]["isolated"]


# An imported module that makes every test "pass": pytest's report hook patched at import,
# then the JUnit file and the exit status made to agree (issue 29, attack 2). It worked
# while the hidden tests imported the agent's module inside pytest.
REWRITE_PYTEST_REPORTS = (
    "import os, sys\n"
    "try:\n"
    "    import _pytest.reports as reports\n"
    "    reports.TestReport.passed = property(lambda self: True)\n"
    "    reports.TestReport.failed = property(lambda self: False)\n"
    "    import _pytest.junitxml as junit\n"
    "    junit.LogXML.pytest_sessionfinish = lambda self: open(self.logfile, 'w').write("
    "'<testsuite tests=\"2\"><testcase name=\"a\"/><testcase name=\"b\"/></testsuite>')\n"
    "    import _pytest.main as main\n"
    "    main.ExitCode.TESTS_FAILED = 0\n"
    "except Exception:\n"
    "    pass\n"
    "def add(a, b):\n"
    "    return a - b\n"
)


def test_a_module_rewriting_pytests_reports_earns_nothing(add_env):
    info = play(add_env, [write("/app/calc.py", REWRITE_PYTEST_REPORTS)])
    assert outcome(info) == 0.0 and info["verdict"]["passed"] == 0, info["verdict"]


# ---------------------------------------------------------------- programs the tests run
BUILD = str(FIXTURES / "run-build")
# build.sh, run by a hidden test, goes after the verdict the way the landed verifier allowed
# (issue 29, attack 1): find the root shell and pytest, steal from their memory, write a fake
# exit line into their stdout, rewrite the JUnit file after pytest, kill what stands in the way.
FORGED = '<testsuite tests="2"><testcase name="a"/><testcase name="b"/></testsuite>'
# Run by build.sh. Against the landed verifier (root everywhere, the status as a nonce line
# on the root shell's stdout, first line wins) this forged success: it finds the nonce in
# the memory of the shell that will print it, writes "exit 0" with it into that shell's
# stdout, and leaves a daemon that rewrites the JUnit file once pytest has ended. (Run
# against the landed code with a root-run build.sh, it scored 1.0 with the task untouched.)
STEAL_NONCE = r"""
import os, re, time
forged = open("/tmp/forged.xml").read()
nonces, shells = set(), []
for pid in [int(p) for p in os.listdir("/proc") if p.isdigit() and int(p) != os.getpid()]:
    try:
        if open(f"/proc/{pid}/cmdline", "rb").read() == b"/bin/sh\0-s\0":
            shells.append(pid)  # the shell that runs pytest, then prints the status line
        maps = open(f"/proc/{pid}/maps").read().splitlines()
        mem = open(f"/proc/{pid}/mem", "rb")
    except OSError:
        continue
    for line in maps:
        span, perms = line.split()[:2]
        if not perms.startswith("rw"):
            continue
        lo, hi = (int(x, 16) for x in span.split("-"))
        try:
            mem.seek(lo)
            chunk = mem.read(min(hi - lo, 1 << 24))
        except (OSError, ValueError, OverflowError):
            continue
        nonces.update(re.findall(rb"AGENTGYM_EXIT ([0-9a-f]{16})", chunk))
for pid in shells:
    for nonce in nonces:
        try:
            with open(f"/proc/{pid}/fd/1", "w") as out:
                out.write(f"AGENTGYM_EXIT {nonce.decode()} 0\n")
        except OSError:
            pass
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        def pytest_runs():
            for p in os.listdir("/proc"):
                try:
                    if p.isdigit() and b"pytest" in open(f"/proc/{p}/cmdline", "rb").read():
                        return True
                except OSError:
                    pass
            return False
        for _ in range(600):
            if not pytest_runs():
                break
            time.sleep(0.02)
        for _ in range(50):
            try:
                open("/verifier/out/junit.xml", "w").write(forged)
            except OSError:
                pass
            time.sleep(0.02)
    os._exit(0)
"""
STEAL_AND_FORGE = f"""#!/bin/bash
echo '{FORGED}' > /tmp/forged.xml
cat > /tmp/forge.py <<'FORGE'
{STEAL_NONCE}
FORGE
python3 /tmp/forge.py
exit 0
"""


build_env = docker_env(BUILD)


def test_a_program_run_by_the_tests_cannot_forge_the_verdict(build_env):
    info = play(build_env, [write("/app/build.sh", STEAL_AND_FORGE), "chmod +x build.sh"])
    assert outcome(info) == 0.0 and not info["success"]
    # pytest ended normally (nothing killed it) and counted both of its tests as failed.
    assert info["verdict"]["passed"] == 0 and info["verdict"]["total"] == 2, info["verdict"]


def test_an_honest_build_script_scores(build_env):
    script = ("#!/bin/bash\n"
              "mkdir -p out && awk '{ s += $1 } END { print s }' numbers.txt > out/total.txt")
    info = play(build_env, [write("/app/build.sh", script)])
    assert outcome(info) == 1.0 and info["success"]


# ---------------------------------------------------------------- milestones
# Imported by fix-add's milestone: when it finds itself with privileges it had not, it leaves
# a process behind (issue 29, attack 3: milestones ran the agent's code as root).
MILESTONE_SQUATTER = (
    "import os, subprocess\n"
    "open('/tmp/milestone-uid', 'w').write(str(os.getuid()))\n"
    "if os.getuid() != 1000:\n"
    "    subprocess.Popen(['sleep', '1000'], start_new_session=True)\n"
    "def add(a, b):\n"
    "    return a + b\n"
)


def test_milestones_run_unprivileged_and_leave_nothing_running(add_env):
    add_env.reset(seed=0)
    *_, info = add_env.step(write("/app/calc.py", MILESTONE_SQUATTER))
    # The milestone ran the agent's module, and it held.
    assert info["reward_components"]["milestones"] == 1.0
    obs, *_ = add_env.step("cat /tmp/milestone-uid; echo; ps -eo args= | grep -c '[s]leep 1000'")
    uid, squatters = obs.split("\n")[1:3]
    assert uid == "1001"  # neither root nor the agent
    assert squatters.strip() == "0"


# ---------------------------------------------------------------- the declared count
def test_a_junit_total_other_than_the_declared_count_fails(tmp_path):
    import shutil

    task = tmp_path / "sum-numbers"
    shutil.copytree(SUM, task)
    toml = task / "task.toml"
    toml.write_text(toml.read_text().replace("test_count = 3", "test_count = 4"))
    with TerminalEnv(task=str(task), backend="docker") as env:
        info = play(env, ["echo 42 > answer.txt"])
    assert outcome(info) == 0.0 and not info["success"]
    assert info["verdict"]["reason"] == "the JUnit XML lists 3 tests; the task declares 4"


# ---------------------------------------------------------------- git as committed
# `git replace` overlays a reworded commit on the old one: every hash stays, and git log
# shows the new message unless replace objects are off. It scored 5 of 5 on
# git-reword-commit without rewriting any history; the harness now runs git without them.
REPLACE_INSTEAD_OF_REWORD = (
    "cd /app && c=$(git rev-parse main~3) && n=$(git cat-file commit $c | sed "
    "'s/^Add pagnation to list endpoint$/Add pagination to the list endpoint/' | "
    "git hash-object -t commit -w --stdin) && git replace $c $n"
)


def test_a_replace_overlay_does_not_pass_for_a_rewritten_history():
    with TerminalEnv(task="git-reword-commit", backend="docker") as env:
        info = play(env, [REPLACE_INSTEAD_OF_REWORD])
    assert outcome(info) == 0.0 and not info["success"], info["verdict"]
