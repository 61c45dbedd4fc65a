"""The boundary between hidden tests and the agent's code: ``agentgym_harness`` in the tests.

The verifier runs pytest as root, and the verdict is only as sound as the wall between that
pytest process and the code it tests. So hidden tests never import the agent's modules and
never start the agent's programs themselves; they go through this module, which the verifier
ships beside them as ``agentgym_harness.py`` (``import agentgym_harness as agent``):

* :func:`run` / :func:`sh` start a program as uid 1000 (the agent's uid), with no
  capabilities, ``no_new_privs`` (set-uid binaries do not elevate), no supplementary groups
  and a clean environment, and return its exit code and output;
* :func:`call` / :func:`call_many` import a module from the agent's tree in such a child and
  call one function, and :func:`python` runs a snippet there; arguments go in and results
  come back as Python literals (``repr`` read back with :func:`ast.literal_eval`, so nothing
  the child sends can run code here). Send inputs, never expected answers, and compare on
  the test's side: the agent's code shares the child and can rewrite anything in it;
* after every call, every process of uid 1000 is killed, so nothing the agent started
  survives into the next check;
* :func:`tempdir`, :func:`copy_tree`, :func:`write`, :func:`read`, :func:`remove` and
  :func:`git_tree` handle scratch files as the agent (root never writes where the agent
  could have left a link);
* :func:`harbor_verify` is what a task's ``tests/test.sh`` runs under Harbor.

A process of uid 1000 cannot read or signal root's processes (pytest, the shell that started
it), cannot read ``/verifier`` (0700, where the tests and the JUnit report live) and holds no
capability, so it can neither see the expected answers nor bend the report. The exit status
the host trusts comes from Docker's view of pytest's exec, never from text.

Only inside agentgym's Docker verifier (which sets ``AGENTGYM_HARNESS_UID=1000`` and runs
pytest as root) does the harness change uid and kill; anywhere else (a doctest, Harbor's
``test.sh``, the bubblewrap backend, which has one uid only) children run as the current
user, and the verdict says so (``isolated: false``).

>>> import sys
>>> _literal([1, "a", (2.5, None), {"k": b"v"}])
"[1, 'a', (2.5, None), {'k': b'v'}]"
>>> _literal(object())
Traceback (most recent call last):
...
TypeError: not a plain literal: object
"""

from __future__ import annotations

import ast
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

__all__ = ["AGENT_UID", "AgentError", "Completed", "Outcome", "call", "call_many", "copy_tree",
           "git_tree", "harbor_verify", "python", "read", "remove", "run", "sh", "tempdir", "write"]

AGENT_UID = 1000
#: What a child may print back before the harness stops reading (results and output each).
MAX_OUTPUT = 4 << 20
_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
_SCALARS = (bool, int, float, complex, str, bytes, type(None))


class AgentError(Exception):
    """The agent's function raised (``kinds`` holds the built-in exception classes it is an
    instance of, e.g. ``("ValueError", "Exception", ...)``), or the child crashed, timed out
    or sent something that is not a plain literal (``kinds == ("HarnessError",)``)."""

    def __init__(self, kinds: Sequence[str], message: str) -> None:
        super().__init__(f"{kinds[0] if kinds else '?'}: {message}")
        self.kinds = tuple(kinds)
        self.message = message

    def isa(self, name: str) -> bool:
        """True when the agent's exception is an instance of the built-in class ``name``."""
        return name in self.kinds


@dataclass(frozen=True)
class Completed:
    """A finished program: exit code (``-9`` when the harness killed it at its timeout).

    ``truncated`` is True when stdout or stderr passed :data:`MAX_OUTPUT` and was cut: a test
    that asserts something is *absent* from the output must check it (padding the output
    would otherwise hide what it looks for).
    """

    returncode: int
    stdout: str
    stderr: str
    timed_out: bool = False
    truncated: bool = False


@dataclass(frozen=True)
class Outcome:
    """One call of :func:`call_many`: the value, or the error it raised."""

    value: Any = None
    error: AgentError | None = None

    def raised(self, name: str) -> bool:
        """True when the call raised an instance of the built-in exception class ``name``."""
        return self.error is not None and self.error.isa(name)


def _literal(value: Any, depth: int = 0) -> str:
    """``repr(value)`` when it is built only from plain literal types (checked exactly:
    no subclass can carry a lying ``__eq__`` or ``__repr__`` across)."""
    if depth > 50:
        raise TypeError("nested too deeply")
    kind = type(value)
    if kind in _SCALARS:
        return repr(value)
    if kind in (list, tuple, set, frozenset):
        for item in value:
            _literal(item, depth + 1)
        return repr(value)
    if kind is dict:
        for key, item in value.items():
            _literal(key, depth + 1)
            _literal(item, depth + 1)
        return repr(value)
    raise TypeError(f"not a plain literal: {kind.__name__}")


def _isolated() -> bool:
    """True inside agentgym's Docker verifier, which sets ``AGENTGYM_HARNESS_UID``; there the
    harness must be root, or it could not drop to the agent's uid (it refuses to go on)."""
    if os.environ.get("AGENTGYM_HARNESS_UID") != str(AGENT_UID):
        return False
    if os.geteuid() != 0:
        raise RuntimeError("agentgym_harness: the verifier runs the tests as root; got uid "
                           f"{os.geteuid()}")
    return True


def _drop_privileges() -> list[str]:
    """The argv prefix that runs a program as the agent (empty outside the verifier)."""
    if not _isolated():
        return []
    return ["setpriv", f"--reuid={AGENT_UID}", f"--regid={AGENT_UID}", "--clear-groups",
            "--no-new-privs", "--inh-caps=-all", "--"]


def _kill_agent_processes() -> None:
    """SIGKILL every process of the agent's uid (what a call started in the background).

    A forked child that becomes uid 1000 and calls ``kill(-1, SIGKILL)`` reaches exactly the
    processes that uid may signal, and never root's.
    """
    if not _isolated():
        return
    for _ in range(3):
        pid = os.fork()
        if pid == 0:  # pragma: no cover - the child only kills and exits
            try:
                os.setgroups([])
                os.setresgid(AGENT_UID, AGENT_UID, AGENT_UID)
                os.setresuid(AGENT_UID, AGENT_UID, AGENT_UID)
                os.kill(-1, signal.SIGKILL)
            finally:
                os._exit(0)
        os.waitpid(pid, 0)
        if not _agent_pids():
            return
        time.sleep(0.02)


def _agent_pids() -> list[int]:
    pids = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/status", encoding="ascii", errors="replace") as fh:
                for line in fh:
                    if line.startswith("Uid:"):
                        if int(line.split()[1]) == AGENT_UID:
                            pids.append(int(entry))
                        break
        except OSError:
            continue
    return pids


# git shows the history as committed: no `git replace` overlay (a reworded message without a
# new commit), no grafts file, no per-user configuration the agent could have left in /tmp.
_GIT_AS_COMMITTED = {"GIT_NO_REPLACE_OBJECTS": "1", "GIT_GRAFT_FILE": "/nonexistent",
                     "GIT_CONFIG_GLOBAL": "/dev/null"}


def run(argv: Sequence[str], *, cwd: str = "/app", timeout: float = 30.0,
        input: str | None = None, env: dict[str, str] | None = None) -> Completed:
    """Run ``argv`` as the agent's uid in ``cwd``; its output is captured (4 MiB each).

    The environment is ``PATH``, ``HOME=/tmp``, ``LANG=C.UTF-8``,
    ``PYTHONDONTWRITEBYTECODE=1`` and git's history as committed (``GIT_NO_REPLACE_OBJECTS``,
    no grafts, no global config), plus ``env``. After it ends (or is killed at ``timeout``)
    every process of the agent's uid is killed.

    >>> run(["echo", "hi"], cwd="/").stdout
    'hi\\n'
    """
    if isinstance(argv, str) or not argv or not all(isinstance(a, str) for a in argv):
        raise TypeError("argv must be a non-empty list of strings")
    environ = {"PATH": _PATH, "HOME": "/tmp", "LANG": "C.UTF-8", "PYTHONDONTWRITEBYTECODE": "1",
               **_GIT_AS_COMMITTED, **(env or {})}
    try:
        proc = subprocess.Popen([*_drop_privileges(), *argv], cwd=cwd, env=environ,
                                stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, start_new_session=True)
    except OSError as exc:
        _kill_agent_processes()
        return Completed(127, "", f"could not start {argv[0]}: {exc}\n")
    timed_out = False
    try:
        out, err = proc.communicate(None if input is None else input.encode(), timeout=timeout)
    except subprocess.TimeoutExpired:
        timed_out = True
        _kill_agent_processes()
        proc.kill()
        out, err = proc.communicate()
    finally:
        _kill_agent_processes()
    return Completed(-9 if timed_out else proc.returncode,
                     out[:MAX_OUTPUT].decode("utf-8", "replace"),
                     err[:MAX_OUTPUT].decode("utf-8", "replace"), timed_out,
                     len(out) > MAX_OUTPUT or len(err) > MAX_OUTPUT)


def sh(script: str, **kwargs: Any) -> Completed:
    """Run a bash script as the agent's uid (``run(["bash", "-c", script], ...)``).

    >>> sh("echo $((6 * 7))", cwd="/").stdout
    '42\\n'
    """
    return run(["bash", "-c", script], **kwargs)


# ---------------------------------------------------------------------- files, as the agent
# The agent's uid cannot enter root's tmp_path, and root must not write where the agent's
# programs could have left links: scratch copies are made, edited and removed as the agent.
_COPY = r"""
import os, shutil, sys, tempfile, time
from pathlib import Path
src, age, ignore = sys.argv[1], float(sys.argv[2]), sys.argv[3:]
dest = Path(tempfile.mkdtemp(prefix="hidden.", dir="/tmp")) / Path(src).name
shutil.copytree(src, dest, symlinks=True, ignore=shutil.ignore_patterns(*ignore))
if age:
    past = time.time() - age
    for path in [dest, *dest.rglob("*")]:
        os.utime(path, (past, past), follow_symlinks=False)
print(dest)
"""
_WRITE = "import sys; open(sys.argv[1], sys.argv[2]).write(sys.stdin.read())"


def _checked(done: Completed, what: str) -> Completed:
    if done.returncode != 0:
        raise AgentError(("HarnessError",), f"{what} failed: {done.stderr.strip()[-300:]}")
    return done


def tempdir() -> str:
    """A new empty directory under ``/tmp`` that the agent's uid owns.

    >>> import os; d = tempdir(); os.path.isdir(d)
    True
    >>> remove(d)
    """
    return _checked(run(["mktemp", "-d", "/tmp/hidden.XXXXXX"], cwd="/tmp"),
                    "mktemp").stdout.strip()


def copy_tree(src: str, *ignore: str, age_s: float = 0.0) -> str:
    """A scratch copy of ``src`` made by the agent's uid (``<tempdir>/<name of src>``),
    without names matching the ``ignore`` globs, links copied as links; with ``age_s``, every
    mtime that many seconds in the past (so ``make`` rebuilds what a test touches).

    >>> import os; d = copy_tree("/etc/apt", "*.d"); os.path.basename(d) == "apt"
    True
    >>> remove(os.path.dirname(d))
    """
    done = run(["python3", "-I", "-c", _COPY, src, str(float(age_s)), *ignore], cwd="/tmp")
    return _checked(done, f"copying {src}").stdout.strip()


def write(path: str, text: str, *, append: bool = False) -> None:
    """Write (or append) ``text`` to ``path`` as the agent's uid.

    >>> d = tempdir(); write(d + "/f", "a"); write(d + "/f", "b", append=True); read(d + "/f")
    'ab'
    >>> remove(d)
    """
    _checked(run(["python3", "-I", "-c", _WRITE, str(path), "a" if append else "w"],
                 cwd="/tmp", input=text), f"writing {path}")


def read(path: str) -> str:
    """The text of ``path`` as the agent's uid reads it (``cat``); raises :class:`AgentError`
    when it cannot, or when the file passes :data:`MAX_OUTPUT`."""
    done = _checked(run(["cat", "--", str(path)], cwd="/tmp"), f"reading {path}")
    if done.truncated:
        raise AgentError(("HarnessError",), f"{path} is larger than {MAX_OUTPUT} bytes")
    return done.stdout


def git_tree(repo: str, rev: str) -> str:
    """A new directory holding the tree of ``rev`` in the git repository ``repo``, written
    by the agent's uid (``git archive | tar -x``): code of any commit, to run as the agent."""
    dest = tempdir()
    _checked(run(["sh", "-c", 'git -C "$1" archive --format=tar "$2" | tar -x -C "$3"', "sh",
                  str(repo), str(rev), dest], cwd="/tmp"), f"extracting {rev} of {repo}")
    return dest


def remove(path: str) -> None:
    """``rm -rf path`` as the agent's uid."""
    _checked(run(["rm", "-rf", "--", str(path)], cwd="/tmp"), f"removing {path}")


# ---------------------------------------------------------------------- Harbor's test.sh
def harbor_verify(tests_dir: str, reward_file: str = "/logs/verifier/reward.txt") -> int:
    """What a task's ``tests/test.sh`` does under Harbor: run the pytest files in
    ``tests_dir`` (isolated: ``python3 -I``, no plugins, no configuration from the tree) and
    write 1 to ``reward_file`` when every test passed, else 0. Returns pytest's exit code.

    ``python3 -I -m agentgym_harness harbor /tests`` calls it (the base image carries this
    module).
    """
    env = {"PATH": _PATH, "LANG": "C.UTF-8", "HOME": "/root",
           "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}
    code = subprocess.call([sys.executable, "-I", "-m", "pytest", "-p", "no:cacheprovider", "-c",
                            "/dev/null", "--rootdir", tests_dir, "--confcutdir", tests_dir,
                            "-q", tests_dir], env=env)
    os.makedirs(os.path.dirname(reward_file), exist_ok=True)
    with open(reward_file, "w", encoding="ascii") as handle:
        handle.write("1\n" if code == 0 else "0\n")
    return code


# The child: import the module from the agent's tree, call the function on each argument
# tuple, print one JSON line per call on the real stdout; the agent's own prints go to stderr.
_CHILD = r"""
import json, os, sys
out = os.fdopen(os.dup(1), "w")
os.dup2(2, 1)
request = json.loads(sys.stdin.read())
sys.path.insert(0, request["path"])
import ast, importlib
ns = {}
exec(request["literal"], ns)
literal = ns["_literal"]
def builtin_kinds(exc):
    return [c.__name__ for c in type(exc).__mro__ if c.__module__ == "builtins"]
def _agentgym_python(source):
    scope = {"__name__": "__agentgym__"}
    exec(source, scope)
    return scope.get("result")
try:
    if request["function"] == "_agentgym_python":
        fn = _agentgym_python
    else:
        fn = getattr(importlib.import_module(request["module"]), request["function"])
except BaseException as exc:
    out.write(json.dumps({"import_error": [builtin_kinds(exc), str(exc)[:500]]}) + "\n")
    out.flush()
    os._exit(0)
for args, kwargs in ast.literal_eval(request["calls"]):
    try:
        answer = {"value": literal(fn(*args, **kwargs))}
    except BaseException as exc:
        answer = {"raised": [builtin_kinds(exc), str(exc)[:500]]}
    out.write(json.dumps(answer) + "\n")
    out.flush()
os._exit(0)
"""


def call_many(module: str, function: str, calls: Sequence[tuple[Any, ...] | dict[str, Any]],
              *, path: str = "/app", timeout: float = 30.0) -> list[Outcome]:
    """Call ``module.function`` once per item of ``calls``, all in ONE child as the agent.

    Each item is a tuple of positional arguments or a dict of keyword arguments, made of
    plain literals. A call that got no answer (the child died or timed out) is an
    :class:`Outcome` whose error has the kind ``HarnessError``; when the module does not
    import, every call carries that import's error.

    >>> [o.raised("ValueError") for o in call_many("math", "sqrt", [(4,), (-1,)], path="/")]
    [False, True]
    """
    items = [((), dict(c)) if isinstance(c, dict) else (tuple(c), {}) for c in calls]
    return _call(module, function, items, path, timeout)


def call(module: str, function: str, *args: Any, path: str = "/app", timeout: float = 30.0,
         **kwargs: Any) -> Any:
    """``module.function(*args, **kwargs)`` run as the agent: its value, or
    :class:`AgentError` when it raised (or the child failed).

    >>> call("math", "gcd", 12, 18, path="/")
    6
    """
    outcome = _call(module, function, [(args, kwargs)], path, timeout)[0]
    if outcome.error is not None:
        raise outcome.error
    return outcome.value


def python(source: str, *, path: str = "/app", timeout: float = 30.0) -> Any:
    """Run ``source`` as the agent with ``path`` on ``sys.path``; the plain-literal value it
    binds to ``result``, or :class:`AgentError` when it raised.

    Send inputs only, never the expected answers: the agent's code runs in the same child
    and can rewrite anything there, so compare on this side.

    >>> python("import math\\nresult = [math.isqrt(n) for n in (15, 16)]", path="/")
    [3, 4]
    """
    if not isinstance(source, str):
        raise TypeError("source must be a str")
    return call("__main__", "_agentgym_python", source, path=path, timeout=timeout)


def _call(module: str, function: str, items: list[tuple[tuple[Any, ...], dict[str, Any]]],
          path: str, timeout: float) -> list[Outcome]:
    import inspect

    # The child checks its results with the same _literal as the parent checks arguments.
    literal = ("from __future__ import annotations\n"
               "_SCALARS = (bool, int, float, complex, str, bytes, type(None))\n"
               + inspect.getsource(_literal))
    request = {"path": path, "module": module, "function": function,
               "calls": _literal(items), "literal": literal}
    done = run(["python3", "-I", "-c", _CHILD], cwd=path, timeout=timeout,
               input=json.dumps(request))
    lines = done.stdout.splitlines()
    if lines:
        try:
            first = json.loads(lines[0])
        except ValueError:
            first = None
        if isinstance(first, dict) and "import_error" in first:
            kinds, message = _error_parts(first["import_error"])
            return [Outcome(error=AgentError(kinds, message)) for _ in items]
    return [_read_answer(lines[i] if i < len(lines) else None, done) for i in range(len(items))]


def _error_parts(raw: Any) -> tuple[tuple[str, ...], str]:
    if (isinstance(raw, list) and len(raw) == 2 and isinstance(raw[0], list)
            and all(isinstance(k, str) for k in raw[0]) and isinstance(raw[1], str)):
        return tuple(raw[0]), raw[1]
    return ("HarnessError",), "the child sent a malformed error"


def _read_answer(line: str | None, done: Completed) -> Outcome:
    if line is None:
        why = "timed out" if done.timed_out else f"exited {done.returncode}"
        tail = done.stderr.strip().splitlines()[-1:] or [""]
        return Outcome(error=AgentError(("HarnessError",), f"no answer: the child {why} "
                                        f"{tail[0][:300]}".rstrip()))
    try:
        answer = json.loads(line)
        if "value" in answer:
            text = answer["value"]
            if not isinstance(text, str):
                raise ValueError("not a repr")
            return Outcome(value=ast.literal_eval(text))
        if "raised" in answer:
            kinds, message = _error_parts(answer["raised"])
            return Outcome(error=AgentError(kinds, message))
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        pass
    return Outcome(error=AgentError(("HarnessError",), "the child sent an unreadable answer"))


if __name__ == "__main__":  # python3 -I -m agentgym_harness harbor TESTS_DIR
    if len(sys.argv) != 3 or sys.argv[1] != "harbor":
        sys.exit("usage: python3 -m agentgym_harness harbor TESTS_DIR")
    sys.exit(0 if harbor_verify(sys.argv[2]) in (0, 1) else 1)
