"""The verifier: hidden tests run on the agent's artifacts in a clean container it never touched.

After ``submit`` (or when the budget runs out) :func:`verify`

1. copies the task's declared artifacts (``/app``) out of the agent's container;
2. strips from that tar everything that can change how tests run or what they import
   (:func:`strip_artifacts`: ``conftest.py``, pytest / tox / setup.cfg / pyproject test
   configuration, ``sitecustomize.py`` / ``usercustomize.py``, ``*.pth``, bytecode, links and
   members leaving the artifact roots, device files, set-uid bits);
3. starts a fresh container from the clean task image, empties the artifact roots there,
   copies the stripped artifacts in and hands them to the agent's uid (1000);
4. only then adds the hidden tests (root-owned, mode 0700: ``/verifier/tests``; Harbor's
   ``tests/`` go to ``/tests``), the harness beside them (``agentgym_harness.py``, see
   :mod:`agentgym.sandbox.harness`) and a pytest configuration of its own
   (``/verifier/pytest.ini``);
5. runs pytest (:data:`PYTEST_ARGV`) as root in its own ``docker exec`` with a clean
   environment (:func:`hidden_tests_env`) under the verifier timeout, or Harbor's
   ``bash /tests/test.sh``;
6. takes pytest's exit status from Docker's record of that exec (``ExecInspect``), never from
   text printed in the container, and reads the JUnit XML (:func:`parse_junit`) or Harbor's
   ``/logs/verifier/reward.txt`` (:func:`parse_reward`) back with ``copy_out``.

Where the agent's code runs while the verdict is decided: the hidden tests reach it only
through the harness, which runs it as uid 1000 with no capabilities and ``no_new_privs``
(``agentgym tasks check`` refuses tests that import the agent's code, start its programs or
run git in its repository themselves). A uid-1000 process cannot read ``/verifier`` (the
tests, the JUnit file), cannot signal or read the memory of root's pytest, and cannot write
what the host reads back; the harness kills every uid-1000 process after each call.

The counts are accepted only when pytest ended normally and agrees with them
(:func:`judge_pytest`: exit 0 means every test passed, 1 that some failed; killed, cut off
by the timeout or interrupted scores 0) and when the total is the task's declared test count
(:func:`judge_count`). The bubblewrap backend has one uid only: its verdicts run the agent's
code beside the tests and say ``isolated: false``.

Milestones (:func:`milestone_results`) are cheap hidden checks of the agent's live container
for the process reward (a shaping potential: the episode's sum still telescopes to the
verdict). Each runs as uid 1001 (``run_check``: neither root nor the agent, no capabilities),
its text on stdin, and holds when it exits 0; every process it started is killed before the
next one runs. A milestone that runs the agent's code can be bent by that code, which shares
its uid: that moves the shaping during the episode, never the episode's sum.

>>> parse_junit(b'<testsuite tests="2"><testcase name="a"/><testcase name="b">'
...             b'<failure message="x"/></testcase></testsuite>')
JUnitResult(passed=1, total=2, reason='')
"""

from __future__ import annotations

import io
import math
import posixpath
import re
import tarfile
import time
import xml.etree.ElementTree as ET
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from agentgym.sandbox import Backend, Limits, Sandbox
from agentgym.sandbox.base_image import harness_source

from .task import Task

__all__ = [
    "JUNIT_PATH",
    "PYTEST_ARGV",
    "PYTEST_INI",
    "JUnitResult",
    "StripResult",
    "Verdict",
    "hidden_tests_argv",
    "hidden_tests_env",
    "hidden_tests_tar",
    "judge_count",
    "judge_pytest",
    "milestone_results",
    "milestone_share",
    "parse_junit",
    "parse_reward",
    "read_tar_member",
    "strip_artifacts",
    "verify",
]

VERIFIER_DIR = "/verifier"
JUNIT_PATH = "/verifier/out/junit.xml"
HARBOR_REWARD = "/logs/verifier/reward.txt"
HARBOR_REWARD_JSON = "/logs/verifier/reward.json"
#: The verifier's own pytest configuration: nothing from the agent's tree is read.
PYTEST_INI = "[pytest]\naddopts =\npython_files = test_*.py *_test.py\n"
# PATH fixed, nothing inherited (PYTHONPATH, PYTHONSTARTUP, PYTEST_ADDOPTS...).
_CLEAN_ENV = {"PATH": "/usr/sbin:/usr/bin:/sbin:/bin", "HOME": "/root", "LANG": "C.UTF-8",
              "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1", "PYTHONDONTWRITEBYTECODE": "1"}
PYTEST_ARGV = ["python3", "-I", "-m", "pytest", "-p", "no:cacheprovider", "-c",
               f"{VERIFIER_DIR}/pytest.ini", "--rootdir", VERIFIER_DIR, "--junitxml", JUNIT_PATH,
               "-q", f"{VERIFIER_DIR}/tests"]
#: The harness the hidden tests reach the agent's code through (agentgym/sandbox/harness.py).
HARNESS_MODULE = "agentgym_harness.py"
#: Files whose presence anywhere in the artifacts changes how pytest or Python starts.
_CONFIG_NAMES = frozenset(
    {"conftest.py", "pytest.ini", ".pytest.ini", "pytest.toml", ".pytest.toml", "tox.ini",
     "sitecustomize.py", "usercustomize.py"}
)
_PYPROJECT_TEST_SECTION = re.compile(rb"^\s*\[\s*tool\s*\.\s*pytest", re.MULTILINE)
_SETUP_CFG_TEST_SECTION = re.compile(rb"^\s*\[\s*(tool\s*:\s*pytest|pytest)\s*\]", re.MULTILINE)
_MAX_JUNIT_BYTES = 8 * 1024 * 1024


# ---------------------------------------------------------------------- artifact stripping
@dataclass(frozen=True)
class StripResult:
    """The artifact tar with everything that could bend the tests removed, and what went."""

    tar: bytes
    stripped: tuple[str, ...]  # "path (why)" per removed member
    kept: int


def _member_name(name: str) -> str:
    """A member's path relative to ``/`` (``"app/x.py"``); copy_out tars name them so."""
    while name.startswith("./"):
        name = name[2:]
    return name.rstrip("/")


def _inside(path: str, roots: Sequence[str]) -> bool:
    """``path`` (absolute, normalised) is one of ``roots`` or below one."""
    return any(path == r or path.startswith(r.rstrip("/") + "/") for r in roots)


def _resolve(path: str, links: dict[str, str], roots: Sequence[str]) -> str | None:
    """Where ``path`` (absolute) leads once every symlink of the archive on the way is
    followed the way the kernel does (``..`` after a link leaves the link's target, not its
    name); None when the walk passes through anything but the roots and their ancestors, or
    loops.

    >>> _resolve("/app/x", {"/app/s": "/app", "/app/x": "s/../etc/passwd"}, ["/app"]) is None
    True
    >>> _resolve("/app/x", {"/app/s": "sub", "/app/x": "s/../y"}, ["/app"])
    '/app/y'
    """
    hops = 0
    parts = [p for p in path.split("/") if p]
    cur = "/"
    while parts:
        part = parts.pop(0)
        if part == ".":
            continue
        nxt = posixpath.dirname(cur) if part == ".." else posixpath.join(cur, part)
        if nxt in links:
            hops += 1
            if hops > 40:
                return None  # a loop
            target = links[nxt]
            parts = [p for p in target.split("/") if p] + parts
            nxt = "/" if target.startswith("/") else cur
        if not (_inside(nxt, roots) or any(_inside(r, [nxt]) for r in roots)):
            return None  # outside the artifacts (and not on the way to them)
        cur = nxt
    return cur if _inside(cur, roots) else None


def _why_stripped(member: tarfile.TarInfo, name: str, roots: Sequence[str],
                  data: bytes | None, kept: set[str], links: dict[str, str]) -> str:
    """Why ``member`` may not reach the test run ("" when it may)."""
    if member.name.startswith("/") or ".." in member.name.split("/"):
        return "absolute or escaping path"
    path = "/" + name
    if not _inside(path, roots):
        return "outside the artifacts"
    ancestors = [posixpath.dirname(path)]
    while ancestors[-1] != "/":
        ancestors.append(posixpath.dirname(ancestors[-1]))
    if any(a in links for a in ancestors):
        return "below a symlink"  # extracting it would write through the link
    parts = name.split("/")
    base = parts[-1]
    if "__pycache__" in parts or base.endswith((".pyc", ".pyo")):
        return "bytecode"
    if base in _CONFIG_NAMES:
        return "test or interpreter configuration"
    if base.endswith(".pth"):
        return "a .pth file runs code at interpreter start"
    if member.isreg() and data is not None:
        if base == "pyproject.toml" and _PYPROJECT_TEST_SECTION.search(data):
            return "pyproject.toml with a [tool.pytest] section"
        if base == "setup.cfg" and _SETUP_CFG_TEST_SECTION.search(data):
            return "setup.cfg with a pytest section"
    if member.issym():
        if _resolve(path, links, roots) is None:
            return f"symlink to {member.linkname} leaves the artifacts"
    elif member.islnk():
        target = _member_name(member.linkname)
        if ".." in target.split("/") or target not in kept:
            return f"hard link to {member.linkname} outside the kept artifacts"
    elif not (member.isreg() or member.isdir()):
        return "device, fifo or other special file"
    return ""


def strip_artifacts(tar_bytes: bytes, roots: Iterable[str]) -> StripResult:
    """Keep only the members of ``tar_bytes`` that are plain artifact content under ``roots``.

    ``roots`` are absolute paths (``("/app",)``); member names are relative to ``/`` as
    ``copy_out`` writes them (``app/main.py``). Removed: members outside the roots or with
    absolute / ``..`` names, ``conftest.py``, ``pytest.ini``, ``.pytest.ini``, ``pytest.toml``,
    ``tox.ini``, ``setup.cfg`` and ``pyproject.toml`` with a pytest section,
    ``sitecustomize.py``, ``usercustomize.py``, ``*.pth``, ``__pycache__/`` and ``*.pyc``,
    symlinks whose target leaves the roots once the archive's other links on the way are
    followed (:func:`_resolve`), members below a symlink, hard links to anything not kept,
    devices and fifos.
    Set-uid / set-gid bits are cleared. Anything below a removed directory goes with it.

    >>> buf = io.BytesIO()
    >>> with tarfile.open(fileobj=buf, mode="w") as tar:
    ...     for name in ("app/main.py", "app/conftest.py"):
    ...         tar.addfile(tarfile.TarInfo(name), io.BytesIO(b""))
    >>> strip_artifacts(buf.getvalue(), ["/app"]).stripped
    ('app/conftest.py (test or interpreter configuration)',)
    """
    roots = tuple(posixpath.normpath(r) for r in roots)
    out = io.BytesIO()
    stripped: list[str] = []
    kept: set[str] = set()
    removed_dirs: list[str] = []
    # Every symlink of the archive, judged together: one link's target may pass through
    # another (`s -> /app`, `x -> s/../etc`), whichever comes first in the tar.
    with tarfile.open(fileobj=io.BytesIO(tar_bytes), mode="r:*") as src:
        links = {"/" + _member_name(m.name): m.linkname for m in src if m.issym()}
    with tarfile.open(fileobj=io.BytesIO(tar_bytes), mode="r:*") as src, \
            tarfile.open(fileobj=out, mode="w", format=tarfile.PAX_FORMAT) as dst:
        for member in src:
            name = _member_name(member.name)
            if not name:
                continue
            if any(name.startswith(d + "/") for d in removed_dirs):
                continue  # below a stripped directory (__pycache__/, a bad path)
            data = None
            if member.isreg():
                handle = src.extractfile(member)
                data = handle.read() if handle is not None else b""
            why = _why_stripped(member, name, roots, data, kept, links)
            if why:
                stripped.append(f"{name} ({why})")
                if member.isdir():
                    removed_dirs.append(name)
                continue
            clean = tarfile.TarInfo(name)
            clean.type, clean.mode = member.type, member.mode & 0o1777  # no set-uid / set-gid
            clean.uid, clean.gid, clean.mtime = member.uid, member.gid, member.mtime
            clean.uname, clean.gname = member.uname, member.gname
            if member.issym():
                clean.linkname = member.linkname
            elif member.islnk():
                clean.linkname = _member_name(member.linkname)
            clean.size = len(data) if data is not None else 0
            dst.addfile(clean, io.BytesIO(data) if data is not None else None)
            kept.add(name)
    return StripResult(out.getvalue(), tuple(stripped), len(kept))


def hidden_tests_tar(task: Task) -> bytes:
    """The hidden tests as a tar to unpack at ``/``: root-owned, directories 0700.

    pytest tests go to ``/verifier/tests``; Harbor's ``tests/`` to ``/tests`` (where its
    ``test.sh`` expects them), with ``/logs/verifier`` for the reward file. The harness goes
    beside them as ``agentgym_harness.py``.
    """
    prefix = "verifier/tests" if task.test_kind == "pytest" else "tests"
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w", format=tarfile.PAX_FORMAT) as tar:

        def add_dir(name: str) -> None:
            info = tarfile.TarInfo(name)
            info.type, info.mode, info.uid, info.gid = tarfile.DIRTYPE, 0o700, 0, 0
            tar.addfile(info)

        add_dir(prefix.split("/")[0])
        if "/" in prefix:
            add_dir(prefix)
        add_dir("verifier" if task.test_kind == "harbor" else "verifier/out")
        if task.test_kind == "harbor":
            add_dir("verifier/out")
            add_dir("logs")
            add_dir("logs/verifier")
        def add_file(name: str, data: bytes) -> None:
            info = tarfile.TarInfo(name)
            info.size, info.mode, info.uid, info.gid = len(data), 0o600, 0, 0
            tar.addfile(info, io.BytesIO(data))

        add_file("verifier/pytest.ini", PYTEST_INI.encode())
        # Beside the tests, so `import agentgym_harness` finds it (pytest puts a test file's
        # directory on sys.path); a task's own file of that name is replaced by it.
        add_file(f"{prefix}/{HARNESS_MODULE}", harness_source().encode())
        for path in sorted(task.tests_dir.rglob("*")):
            rel = path.relative_to(task.tests_dir).as_posix()
            if "__pycache__" in rel.split("/") or path.is_symlink() or rel == HARNESS_MODULE:
                continue
            name = f"{prefix}/{rel}"
            if path.is_dir():
                add_dir(name)
            elif path.is_file():
                data = path.read_bytes()
                info = tarfile.TarInfo(name)
                info.size, info.uid, info.gid = len(data), 0, 0
                info.mode = 0o700 if path.suffix == ".sh" or path.stat().st_mode & 0o100 else 0o600
                tar.addfile(info, io.BytesIO(data))
    return out.getvalue()


def read_tar_member(tar_bytes: bytes, path: str) -> bytes | None:
    """The content of the regular file ``path`` (absolute) in a ``copy_out`` tar, else None.

    >>> buf = io.BytesIO()
    >>> with tarfile.open(fileobj=buf, mode="w") as tar:
    ...     info = tarfile.TarInfo("out/junit.xml"); info.size = 2
    ...     tar.addfile(info, io.BytesIO(b"<x"))
    >>> read_tar_member(buf.getvalue(), "/verifier/out/junit.xml")
    b'<x'
    """
    want = _member_name(path.lstrip("/"))
    base = posixpath.basename(want)
    try:
        with tarfile.open(fileobj=io.BytesIO(tar_bytes), mode="r:*") as tar:
            members = [m for m in tar if m.isreg()]
            # copy_out may name members from `/` ("verifier/out/junit.xml") or, like
            # `docker cp`, from the copied path's last component ("junit.xml").
            for m in members:
                name = _member_name(m.name)
                if name in (want, base) or want.endswith("/" + name):
                    handle = tar.extractfile(m)
                    return handle.read() if handle is not None else b""
    except (tarfile.TarError, OSError):
        return None
    return None


# ---------------------------------------------------------------------- results
@dataclass(frozen=True)
class JUnitResult:
    """Tests passed and run according to a JUnit XML file; ``reason`` says why it is 0/0."""

    passed: int
    total: int
    reason: str = ""


def parse_junit(xml: bytes | None) -> JUnitResult:
    """Count the passed and total test cases of pytest's JUnit XML.

    A test case passes when it has no ``failure``, ``error`` or ``skipped`` child; the total
    is the larger of the cases listed and the suites' ``tests`` counts (pytest counts
    errors, collection errors included, in ``tests``). A missing, oversized or malformed
    file, or one with a DOCTYPE (entity tricks), is 0 of 0 with a reason.

    >>> parse_junit(None)
    JUnitResult(passed=0, total=0, reason='no JUnit XML was written')
    >>> parse_junit(b'<testsuites><testsuite tests="2" errors="1"><testcase name="a"/>'
    ...             b'</testsuite></testsuites>')
    JUnitResult(passed=1, total=2, reason='')
    """
    if xml is None:
        return JUnitResult(0, 0, "no JUnit XML was written")
    if len(xml) > _MAX_JUNIT_BYTES:
        return JUnitResult(0, 0, f"the JUnit XML is {len(xml)} bytes; refused as too large")
    if b"<!DOCTYPE" in xml.upper() or b"<!ENTITY" in xml.upper():
        return JUnitResult(0, 0, "the JUnit XML has a DOCTYPE or ENTITY; refused")
    try:
        root = ET.fromstring(xml)
    except ET.ParseError as exc:
        return JUnitResult(0, 0, f"malformed JUnit XML: {exc}")
    suites = [root] if root.tag == "testsuite" else root.findall("testsuite")
    if root.tag not in ("testsuite", "testsuites"):
        return JUnitResult(0, 0, f"not JUnit XML (root element <{root.tag}>)")
    cases = [case for suite in suites for case in suite.iter("testcase")]
    passed = sum(
        1 for case in cases
        if not any(child.tag in ("failure", "error", "skipped") for child in case)
    )
    declared = 0
    for suite in suites:
        try:
            declared += int(suite.get("tests", "0"))
        except ValueError:
            return JUnitResult(0, 0, "malformed JUnit XML: a non-integer test count")
    total = max(len(cases), declared)
    if total == 0:
        return JUnitResult(0, 0, "no tests were collected")
    return JUnitResult(passed, total, "")


def parse_reward(text: bytes | None, json_text: bytes | None = None) -> tuple[float, str]:
    """Harbor's reward file: one float in [0, 1] (``reward.txt``, else ``reward.json``'s
    ``{"reward": x}``); anything else is 0.0 with a reason.

    >>> parse_reward(b"1.0\\n"), parse_reward(b"2"), parse_reward(None, b'{"reward": 0.5}')
    ((1.0, ''), (0.0, 'reward 2 is outside [0, 1]'), (0.5, ''))
    """
    import json

    raw: Any
    if text is not None:
        raw = text.decode("utf-8", errors="replace").strip()
    elif json_text is not None:
        try:
            raw = json.loads(json_text).get("reward")
        except (ValueError, AttributeError):
            return 0.0, "reward.json is not a JSON object with a reward"
    else:
        return 0.0, "no reward file was written"
    try:
        value = float(raw)
    except (TypeError, ValueError):
        return 0.0, f"reward {str(raw)[:40]!r} is not a number"
    if not math.isfinite(value) or not 0.0 <= value <= 1.0:
        return 0.0, f"reward {str(raw)[:40]} is outside [0, 1]"
    return value, ""


@dataclass(frozen=True)
class Verdict:
    """The verifier's answer: hidden tests passed of total, the reward, what it stripped.

    ``reward`` is ``passed / total`` for pytest (0 when nothing ran) and Harbor's reward for
    ``test.sh`` (then ``passed`` / ``total`` are 1 / 1 for a reward of 1, else 0 / 1).
    ``isolated`` is False where nothing kept the agent's code apart from the test run (the
    bubblewrap backend; a Harbor ``test.sh``).
    """

    passed: int
    total: int
    reward: float
    stripped: tuple[str, ...] = ()
    reason: str = ""
    duration_s: float = 0.0
    log: str = field(default="", repr=False)
    isolated: bool = True

    @property
    def success(self) -> bool:
        """Every hidden test passed (reward 1)."""
        return self.total > 0 and self.reward >= 1.0

    def to_dict(self) -> dict[str, Any]:
        """A JSON-able summary for ``info``: everything but the duration, so the same episode
        gives the same ``info`` on every run."""
        return {"passed": self.passed, "total": self.total, "reward": self.reward,
                "stripped": list(self.stripped), "reason": self.reason,
                "isolated": self.isolated}


# ---------------------------------------------------------------------- the run
#: The agent's uid, the one the harness gives the agent's code in the verifier's container.
AGENT_UID = 1000


def _prepare_roots_script(roots: Sequence[str]) -> str:
    # The clean image's copy of the workdir would otherwise survive where the agent
    # deleted files; the artifacts replace it entirely.
    quoted = " ".join(f"'{r}'" for r in roots)
    return f"for d in {quoted}; do mkdir -p \"$d\" && find \"$d\" -mindepth 1 -delete; done\n"


def _own_roots_script(roots: Sequence[str]) -> str:
    # The agent's code runs as uid 1000 under the harness (make, build.sh, git): it needs its
    # tree writable, as it was in its own container, and nothing else.
    quoted = " ".join(f"'{r}'" for r in roots)
    return f"chown -R -h {AGENT_UID}:{AGENT_UID} -- {quoted}\n"


def hidden_tests_argv(task: Task) -> list[str]:
    """The command that runs the hidden tests (as root, in the workdir, its own exec).

    >>> from agentgym.environments.terminal.task import TASKS_DIR, load_task
    >>> hidden_tests_argv(load_task(TASKS_DIR / "csv-column-sum"))[:4]
    ['python3', '-I', '-m', 'pytest']
    """
    if task.test_kind == "harbor":
        return ["bash", "/tests/test.sh"]
    return PYTEST_ARGV


def hidden_tests_env(isolated: bool) -> dict[str, str]:
    """The tests' whole environment: nothing inherited (``PYTHONPATH``, ``PYTEST_ADDOPTS``),
    plugins off, and ``AGENTGYM_HARNESS_UID`` where the harness must drop to the agent's uid.

    >>> env = hidden_tests_env(True)
    >>> env["AGENTGYM_HARNESS_UID"], "AGENTGYM_HARNESS_UID" in hidden_tests_env(False)
    ('1000', False)
    """
    env = dict(_CLEAN_ENV)
    if isolated:
        env["AGENTGYM_HARNESS_UID"] = str(AGENT_UID)
    return env


def judge_pytest(result: JUnitResult, status: int | None) -> JUnitResult:
    """Accept the JUnit counts only when pytest ended normally and agrees with them.

    pytest exits 0 when every test passed and 1 when some failed; anything else (killed,
    timed out, interrupted by a collection error, an internal error, nothing collected)
    means no test result can be trusted, and a file that claims all passed while pytest
    exited 1 (or the reverse) was not written by that run. Either way: 0 passed.

    >>> judge_pytest(JUnitResult(3, 3), 1)
    JUnitResult(passed=0, total=3, reason='the JUnit XML says 3 of 3 passed but pytest exited 1')
    >>> judge_pytest(JUnitResult(2, 3), 137).reason
    'pytest did not end normally (exit status 137)'
    """
    if status not in (0, 1):
        shown = "none: the run was cut off" if status is None else status
        return JUnitResult(0, result.total, result.reason or
                           f"pytest did not end normally (exit status {shown})")
    if result.total and (status == 0) != (result.passed == result.total):
        return JUnitResult(0, result.total, f"the JUnit XML says {result.passed} of "
                           f"{result.total} passed but pytest exited {status}")
    return result


def judge_count(result: JUnitResult, declared: int | None) -> JUnitResult:
    """Accept a JUnit total only when it is the task's declared test count.

    A forged report with one passing case, or a test file that failed to collect, would
    otherwise turn "2 of 5 pass" into "1 of 1 pass".

    >>> judge_count(JUnitResult(1, 1), 5)
    JUnitResult(passed=0, total=5, reason='the JUnit XML lists 1 tests; the task declares 5')
    >>> judge_count(JUnitResult(4, 5), 5)
    JUnitResult(passed=4, total=5, reason='')
    """
    if declared is None or result.total == declared or result.reason:
        return result
    return JUnitResult(0, declared, f"the JUnit XML lists {result.total} tests; the task "
                       f"declares {declared}")


def verify(backend: Backend, task: Task, image: str, agent_sandbox: Sandbox) -> Verdict:
    """Score the agent's artifacts with the hidden tests, in a clean container (see above).

    ``backend`` is an :mod:`agentgym.sandbox` backend, ``image`` the task image it prepared,
    ``agent_sandbox`` the agent's running sandbox (only read: ``copy_out``). Never raises: a
    failure to copy, to start the verifier's container or to run is a 0 verdict with a
    ``reason`` (and the reason says so, so infrastructure trouble is visible in ``info``).

    >>> verify.__name__  # needs Docker; see tests/terminal/test_verifier_adversarial.py
    'verify'
    """
    start = time.monotonic()
    isolated = False  # until the verifier's sandbox says it keeps uids apart

    def verdict(passed: int, total: int, reward: float, reason: str,
                stripped: tuple[str, ...] = (), log: str = "") -> Verdict:
        return Verdict(passed, total, reward, stripped, reason, time.monotonic() - start,
                       log, isolated)

    try:
        raw = agent_sandbox.copy_out(list(task.artifacts))
    except Exception as exc:  # SandboxError, a Docker error: the agent's container is gone
        return verdict(0, 0, 0.0, f"could not copy the artifacts out: {exc}")
    try:
        clean = strip_artifacts(raw, task.artifacts)
    except (tarfile.TarError, OSError) as exc:
        return verdict(0, 0, 0.0, f"the artifact archive is unreadable: {exc}")
    box = None
    try:
        box = backend.start_clean(image, _verifier_limits(task), workdir=task.workdir,
                                  user="root")
        # Only a sandbox with separate uids (Docker) lets the harness drop to the agent's
        # uid; a Harbor test.sh's verdict is only as isolated as the script makes it.
        isolated = bool(getattr(box, "separate_uids", False)) and task.test_kind == "pytest"
        prepared = box.run_argv(["sh", "-c", _prepare_roots_script(task.artifacts)],
                                user="0:0", timeout_s=30.0)
        if prepared.exit_code != 0:
            return verdict(0, 0, 0.0, "the verifier could not empty the artifact roots: "
                           f"{prepared.stderr.strip()[:200]}", clean.stripped)
        box.copy_in(clean.tar, "/")
        if getattr(box, "separate_uids", False):  # a one-uid jail owns everything already
            owned = box.run_argv(["sh", "-c", _own_roots_script(task.artifacts)], user="0:0",
                                 timeout_s=30.0)
            if owned.exit_code != 0:
                return verdict(0, 0, 0.0, "the verifier could not hand the artifacts to the "
                               f"agent's uid: {owned.stderr.strip()[:200]}", clean.stripped)
        box.copy_in(hidden_tests_tar(task), "/")
        ran = box.run_argv(hidden_tests_argv(task), user="0:0", env=hidden_tests_env(isolated),
                           workdir=task.workdir, timeout_s=task.verifier_timeout_s)
        # Docker's own record of the exec: no process inside the container can write it.
        status = None if ran.timed_out else ran.exit_code
        log = (ran.stdout + ran.stderr)[-4000:]
        if task.test_kind == "harbor":
            txt = _read(box, HARBOR_REWARD)
            js = None if txt is not None else _read(box, HARBOR_REWARD_JSON)
            reward, reason = parse_reward(txt, js)
            if status in (None, 137):  # killed by the timeout: what it wrote is not final
                reward, reason = 0.0, "test.sh was cut off by the verifier timeout"
            full = int(reward >= 1.0)
            return verdict(full, 1, reward, reason, clean.stripped, log)
        result = judge_pytest(parse_junit(_read(box, JUNIT_PATH)), status)
        result = judge_count(result, task.test_count)
        reward = result.passed / result.total if result.total else 0.0
        return verdict(result.passed, result.total, reward, result.reason, clean.stripped, log)
    except Exception as exc:  # never out of step(): a failed run is a 0 with its reason
        return verdict(0, 0, 0.0, f"the verifier's sandbox failed: {exc}", clean.stripped)
    finally:
        if box is not None:
            box.close()


def _read(box: Sandbox, path: str) -> bytes | None:
    from agentgym.sandbox import SandboxError

    try:
        return read_tar_member(box.copy_out([path]), path)
    except (SandboxError, OSError):
        return None


def _verifier_limits(task: Task) -> Limits:
    from dataclasses import replace

    # Never networked, whatever the task allows the agent; the timeout is the verifier's.
    return replace(task.limits, network=False, command_timeout_s=task.verifier_timeout_s + 10.0)


# ---------------------------------------------------------------------- milestones
def milestone_results(sandbox: Sandbox, scripts: Sequence[str], *,
                      timeout_s: float = 5.0) -> list[bool]:
    """Which milestones hold in the live ``sandbox``: each script through
    ``sandbox.run_check`` (Docker: uid 1001, neither root nor the agent; every process it
    started killed before the next one), holding when it exits 0.

    A milestone that fails to run, times out or cannot be started does not hold.
    """
    held = []
    for text in scripts:
        try:
            done = sandbox.run_check(text, timeout_s=timeout_s)
        except Exception:  # a stopped container, a Docker error: nothing holds
            held.append(False)
            continue
        held.append(done.exit_code == 0 and not done.timed_out)
    return held


def milestone_share(sandbox: Sandbox, task: Task | Sequence[str]) -> float:
    """The share of the task's milestones that hold in ``sandbox`` (0.0 without milestones).

    ``task`` is a :class:`Task` or the milestone scripts' texts.
    """
    scripts = [text for _, text in task.milestones()] if isinstance(task, Task) else list(task)
    if not scripts:
        return 0.0
    held = milestone_results(sandbox, scripts)
    return sum(held) / len(held)
