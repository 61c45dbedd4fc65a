"""The bubblewrap fallback: the same Sandbox interface where no Docker daemon can be started.

Each sandbox is one ``bwrap`` jail: every namespace unshared (so no network but loopback),
``--die-with-parent``, ``--new-session``, the base root filesystem that ``build_base`` keeps
(``agentgym.sandbox.base_image.base_rootfs()``) bound read-only, size-capped tmpfs mounts on
the workspace, ``/tmp`` and the agent's home, no capabilities and ``no_new_privs`` (bwrap's
defaults). Inside runs the same command runner as in Docker (:mod:`agentgym.sandbox.runner`),
attached over pipes.

What it cannot promise, and says once (a ``RuntimeWarning``) when the first backend starts:
no memory cgroup (``RLIMIT_AS`` caps each process's address space instead), no CPU limit, the
process limit is ``RLIMIT_NPROC`` of the host user (not enforced for root: the jails then run
as uid 1000 when the root filesystem is readable to it), no seccomp filter, and milestone
scripts run as the agent's uid (there is no separate root in the jail). Killing the runner
ends the jail and its workspace.

Images: ``prepare`` reads the task's Dockerfile (``FROM agentgym/base:bookworm``, ``WORKDIR``,
``COPY``/``ADD`` of local files into the workdir, ``ENV``, ``RUN`` run in a jail on the
image's workdir) into a directory under the agentgym cache, keyed by the same content hash as
the Docker images.

>>> from agentgym.sandbox import Limits
>>> backend = BwrapBackend()  # doctest: +SKIP
>>> box = backend.start("agentgym/base:bookworm", Limits(), workdir="/app")  # doctest: +SKIP
>>> box.run("echo hi").stdout  # doctest: +SKIP
'hi\\n'
"""

from __future__ import annotations

import base64
import contextlib
import io
import json
import os
import resource
import select
import shlex
import shutil
import signal
import subprocess
import tarfile
import tempfile
import threading
import time
import warnings
from pathlib import Path
from typing import Any

from agentgym.cache import cache_dir
from agentgym.sandbox.base_image import BASE_IMAGE, base_rootfs
from agentgym.sandbox.errors import SandboxError
from agentgym.sandbox.images import context_hash
from agentgym.sandbox.limits import Limits
from agentgym.sandbox.policy import AGENT_HOME, CLEAN_WRITABLE, ROOT_ENV, runner_source
from agentgym.sandbox.result import EXIT_KILLED, EXIT_TIMEOUT, CommandResult, decode_output

__all__ = ["LACKING", "BwrapBackend", "BwrapSandbox", "parse_dockerfile"]

#: The guarantees of the Docker backend this one lacks (the one-time warning lists them).
LACKING = (
    "no memory cgroup (RLIMIT_AS per process instead)",
    "no CPU limit",
    "the process limit is RLIMIT_NPROC of the host user (none when it runs as root)",
    "no seccomp filter",
    "milestone scripts run as the agent's uid, not root",
    "killing the command runner ends the sandbox",
)
_warned = False
_warn_lock = threading.Lock()
_AGENT_ENV = {"PATH": "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
              "HOME": AGENT_HOME, "USER": "agent", "LOGNAME": "agent", "LANG": "C.UTF-8",
              "TERM": "dumb", "SHELL": "/bin/bash"}
_GRACE_S = 5.0


def _warn_once() -> None:
    global _warned
    with _warn_lock:
        if _warned:
            return
        _warned = True
    warnings.warn("agentgym.sandbox: using the bubblewrap fallback, which lacks: "
                  + "; ".join(LACKING) + ". Docker stays the default where a daemon answers "
                  "(scripts/start_docker.sh).", RuntimeWarning, stacklevel=3)


def _words(text: str) -> list[str]:
    text = text.strip()
    if text.startswith("["):
        try:
            value = json.loads(text)
        except ValueError:
            value = None
        if isinstance(value, list) and all(isinstance(v, str) for v in value):
            return value
    return shlex.split(text)


def parse_dockerfile(text: str, *, name: str = "Dockerfile") -> list[tuple[str, str]]:
    """``(INSTRUCTION, arguments)`` pairs, continuation lines joined, comments dropped.

    >>> parse_dockerfile("FROM a\\n# c\\nRUN echo 1 \\\\\\n  && echo 2\\nWORKDIR /app\\n")
    [('FROM', 'a'), ('RUN', 'echo 1   && echo 2'), ('WORKDIR', '/app')]
    """
    out: list[tuple[str, str]] = []
    pending = ""
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not pending and (not line or line.startswith("#")):
            continue
        if line.endswith("\\"):
            pending += line[:-1] + " "
            continue
        line = pending + line
        pending = ""
        head, _, rest = line.partition(" ")
        if not head.isalpha():
            raise SandboxError(f"{name}:{number}: not a Dockerfile instruction: {line[:60]!r}")
        out.append((head.upper(), rest.strip()))
    if pending:
        raise SandboxError(f"{name}: ends inside a continued line")
    return out


class BwrapSandbox:
    """One bubblewrap jail running the command runner (see the module docstring)."""

    #: One uid for everything in the jail: no check can run apart from the agent's code.
    separate_uids = False

    def __init__(self, argv: list[str], limits: Limits, *, workdir: str, env: dict[str, str],
                 run_as: int | None) -> None:
        self.limits = limits
        self.workdir = workdir
        self.cwd = workdir
        self.closed = False
        self._lock = threading.Lock()
        self._dead = ""
        # The jail's own stderr (bwrap's errors) for messages; lives as long as the jail.
        self._stderr = tempfile.TemporaryFile()  # noqa: SIM115
        rlimits = [(resource.RLIMIT_AS, (limits.memory_mb + 256) << 20),
                   (resource.RLIMIT_NPROC, limits.pids),
                   (resource.RLIMIT_CORE, 0)]

        def child_setup() -> None:  # runs between fork and exec: limits for the whole jail
            for which, value in rlimits:
                with contextlib.suppress(ValueError, OSError):
                    resource.setrlimit(which, (value, value))

        config = json.dumps({"env": env, "workdir": workdir})
        self._proc = subprocess.Popen(
            [*argv, "python3", "-I", "-c", runner_source(), config],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self._stderr,
            start_new_session=True, preexec_fn=child_setup,
            user=run_as, group=run_as, extra_groups=[] if run_as is not None else None)
        assert self._proc.stdin is not None and self._proc.stdout is not None  # both are pipes
        self._stdin, self._stdout = self._proc.stdin, self._proc.stdout
        self._buf = b""
        hello = self._receive(30.0)
        if not hello or not hello.get("ready"):
            self.close()
            raise SandboxError(f"the bwrap sandbox did not start: {self._why()}")

    def _why(self) -> str:
        self._stderr.seek(0)
        text = self._stderr.read().decode(errors="replace").strip()
        return (text.splitlines() or ["no output"])[-1][:300]

    def _receive(self, timeout: float) -> dict[str, Any] | None:
        deadline = time.monotonic() + timeout
        fd = self._stdout.fileno()
        while b"\n" not in self._buf:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError
            ready, _, _ = select.select([fd], [], [], left)
            if not ready:
                continue
            chunk = os.read(fd, 1 << 20)
            if not chunk:
                return None
            self._buf += chunk
        line, _, self._buf = self._buf.partition(b"\n")
        return json.loads(line)

    def _ask(self, request: dict[str, Any], timeout: float, cwd: str) -> dict[str, Any] | str:
        with self._lock:
            if self.closed:
                return "the sandbox is closed"
            if self._dead:
                return self._dead
            try:
                self._stdin.write(json.dumps(request).encode() + b"\n")
                self._stdin.flush()
                answer = self._receive(timeout + _GRACE_S)
            except TimeoutError:
                self._dead = "the command runner stopped answering; the sandbox was ended"
                self._kill()
                return self._dead
            except OSError:
                answer = None
            if answer is None:
                self._dead = ("the sandbox ended (its command runner was killed): start a new "
                              "sandbox")
                self._kill()
                return self._dead
            return answer

    def _result(self, answer: dict[str, Any] | str, cwd: str, started: float) -> CommandResult:
        if isinstance(answer, str):
            code = EXIT_TIMEOUT if "stopped answering" in answer else EXIT_KILLED
            return CommandResult("", answer + "\n", code, code == EXIT_TIMEOUT, False, cwd,
                                 time.monotonic() - started)
        if "error" in answer:
            return CommandResult("", f"the sandbox could not run the command: "
                                 f"{answer['error']}\n", 126, False, False, cwd,
                                 time.monotonic() - started)
        stderr = base64.b64decode(answer["stderr"])
        note = answer.get("note", "")
        sep = "\n" if stderr and not stderr.endswith(b"\n") and note else ""
        return CommandResult(
            decode_output(base64.b64decode(answer["stdout"])), decode_output(stderr) + sep + note,
            int(answer["exit"]), bool(answer["timed_out"]), int(answer["dropped"]) > 0,
            answer.get("cwd") or cwd, time.monotonic() - started, int(answer["dropped"]))

    def _timeout(self, timeout_s: float | None) -> float:
        timeout = self.limits.command_timeout_s if timeout_s is None else timeout_s
        if isinstance(timeout, bool) or not isinstance(timeout, int | float) or timeout <= 0:
            raise ValueError(f"timeout_s must be a positive number, got {timeout_s!r}")
        return float(timeout)

    def run(self, command: str, *, timeout_s: float | None = None) -> CommandResult:
        """Run one shell command as the agent in the current cwd (``cd`` persists)."""
        if not isinstance(command, str):
            raise TypeError(f"command must be a str, got {type(command).__name__}")
        timeout = self._timeout(timeout_s)
        started = time.monotonic()
        answer = self._ask({"op": "run", "cmd": command, "cwd": self.cwd, "timeout": timeout,
                            "limit": self.limits.output_limit}, timeout, self.cwd)
        result = self._result(answer, self.cwd, started)
        self.cwd = result.cwd
        return result

    def run_as_root_script(self, script: str, *, timeout_s: float = 10.0) -> CommandResult:
        """Run ``script`` through ``sh -s`` on stdin (as the agent's uid: see LACKING)."""
        return self._script(script, "/bin/sh", timeout_s)

    def _script(self, script: str, shell: str, timeout_s: float) -> CommandResult:
        if not isinstance(script, str):
            raise TypeError(f"script must be a str, got {type(script).__name__}")
        timeout = self._timeout(timeout_s)
        started = time.monotonic()
        answer = self._ask({"op": "script", "script": script, "cwd": self.workdir,
                            "timeout": timeout, "limit": self.limits.output_limit,
                            "env": ROOT_ENV, "shell": shell}, timeout, self.workdir)
        return self._result(answer, self.workdir, started)

    def run_argv(self, argv: list[str], *, user: str | None = None, stdin: bytes | None = None,
                 env: dict[str, str] | None = None, workdir: str = "/",
                 timeout_s: float = 120.0) -> CommandResult:
        """Run ``argv`` (the Docker backend's call). A jail has one uid, so ``user`` is not
        honoured, and the exit code is the runner's report from inside the jail: nothing
        here separates the agent from a check (the verifier marks such verdicts
        ``isolated: false``)."""
        if not isinstance(argv, list) or not argv or not all(isinstance(a, str) for a in argv):
            raise TypeError("argv must be a non-empty list of strings")
        timeout = self._timeout(timeout_s)
        started = time.monotonic()
        command = shlex.join(argv)
        if env is not None:
            command = shlex.join(["env", "-i", *(f"{k}={v}" for k, v in env.items())]) + \
                " " + command
        request: dict[str, Any] = {"op": "run", "cmd": command, "cwd": workdir,
                                   "timeout": timeout, "limit": self.limits.output_limit}
        if stdin is not None:
            request["stdin"] = base64.b64encode(stdin).decode()
        return self._result(self._ask(request, timeout, workdir), workdir, started)

    def run_check(self, script: str, *, timeout_s: float = 5.0) -> CommandResult:
        """Run ``script`` with ``bash -s`` in the workdir (the Docker backend's call); a jail
        has one uid, so the check runs as the agent's."""
        return self._script(script, "/bin/bash", timeout_s)

    def _pipe(self, command: str, stdin: bytes | None, limit: int) -> dict[str, Any]:
        request: dict[str, Any] = {"op": "run", "cmd": command, "cwd": "/", "timeout": 120.0,
                                   "limit": limit}
        if stdin is not None:
            request["stdin"] = base64.b64encode(stdin).decode()
        answer = self._ask(request, 120.0, "/")
        if isinstance(answer, str) or "error" in answer:
            raise SandboxError(answer if isinstance(answer, str) else answer["error"])
        if int(answer["exit"]) != 0:
            err = base64.b64decode(answer["stderr"]).decode(errors="replace").strip()
            raise SandboxError((err.splitlines() or [f"exit {answer['exit']}"])[0][:300])
        if int(answer["dropped"]):
            raise SandboxError(f"output larger than {limit >> 20} MB")
        return answer

    def copy_out(self, paths: list[str]) -> bytes:
        """A tar of the given absolute paths (member names without the leading ``/``)."""
        rel = []
        for path in paths:
            if not isinstance(path, str) or not path.startswith("/"):
                raise ValueError(f"copy_out paths must be absolute, got {path!r}")
            rel.append(shlex.quote(os.path.normpath(path).lstrip("/") or "."))
        cap = (self.limits.workspace_mb + self.limits.tmp_mb + 64) << 20
        try:
            answer = self._pipe(f"tar -c -C / --ignore-failed-read -- {' '.join(rel)}", None, cap)
        except SandboxError as exc:
            raise SandboxError(f"copy_out {paths} failed: {exc}") from exc
        return base64.b64decode(answer["stdout"])

    def copy_in(self, tar_bytes: bytes, dest: str) -> None:
        """Extract a tar into ``dest`` (created if missing), files owned by the jail's user."""
        if not isinstance(dest, str) or not dest.startswith("/"):
            raise ValueError(f"copy_in dest must be an absolute path, got {dest!r}")
        q = shlex.quote(dest)
        try:
            self._pipe(f"mkdir -p -- {q} && tar -x -p --no-same-owner -C {q}", tar_bytes, 1 << 16)
        except SandboxError as exc:
            raise SandboxError(f"copy_in to {dest} failed: {exc}") from exc

    def _kill(self) -> None:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self._proc.pid, signal.SIGKILL)
        with contextlib.suppress(subprocess.TimeoutExpired):
            self._proc.wait(timeout=10)

    def close(self, wait: bool = True) -> None:
        """End the jail and everything in it (idempotent); ``wait`` is accepted for parity
        with DockerSandbox (ending a jail is immediate)."""
        if self.closed:
            return
        self.closed = True
        with contextlib.suppress(OSError):
            self._stdin.close()
        self._kill()
        for pipe in (self._stdout, self._stderr):
            with contextlib.suppress(OSError):
                pipe.close()

    def __enter__(self) -> BwrapSandbox:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class BwrapBackend:
    """Starts bubblewrap jails on the base root filesystem (see the module docstring)."""

    name = "bwrap"

    def __init__(self, rootfs: Path | str | None = None, *, pool_size: int = 0,
                 max_pools: int = 0) -> None:
        # pool_size / max_pools: accepted so make_backend(**kwargs) works for both; a jail
        # starts in tens of milliseconds, so there is nothing to pool.
        bwrap = shutil.which("bwrap")
        if bwrap is None:
            raise SandboxError("bwrap is missing: apt-get install bubblewrap")
        self.bwrap = bwrap
        self.rootfs = Path(rootfs or os.environ.get("AGENTGYM_BWRAP_ROOTFS") or base_rootfs())
        if not (self.rootfs / "usr" / "bin" / "python3").exists():
            raise SandboxError(f"no root filesystem in {self.rootfs}: run `agentgym docker "
                               "build-base` (it keeps one there) or set AGENTGYM_BWRAP_ROOTFS")
        self._run_as = self._jail_uid()
        self._sandboxes: set[BwrapSandbox] = set()
        self._lock = threading.Lock()
        self.closed = False
        _warn_once()

    def _jail_uid(self) -> int | None:
        """uid 1000 on the host when we are root and it can read the rootfs (so that
        RLIMIT_NPROC binds); otherwise our own uid."""
        if os.geteuid() != 0:
            return None
        probe = subprocess.run([self.bwrap, "--unshare-all", *self._root_args(), "true"],
                               capture_output=True, user=1000, group=1000, extra_groups=[])
        return 1000 if probe.returncode == 0 else None

    def _root_args(self) -> list[str]:
        """A tmpfs root with the rootfs's top-level entries bound read-only into it, so mount
        points like the workdir can be made (``--remount-ro /`` seals it afterwards)."""
        args = ["--tmpfs", "/"]
        for entry in sorted(self.rootfs.iterdir()):
            name = "/" + entry.name
            if entry.is_symlink():
                args += ["--symlink", os.readlink(entry), name]
            elif entry.name not in ("proc", "dev", "tmp", "sys", "run"):
                args += ["--ro-bind", str(entry), name]
        return [*args, "--proc", "/proc", "--dev", "/dev", "--dir", "/run"]

    def _argv(self, limits: Limits, workdir: str, *, uid: int, seeded_dirs: list[str],
              env: dict[str, str]) -> list[str]:
        argv = [self.bwrap, "--unshare-all", "--die-with-parent", "--new-session",
                *self._root_args(), "--hostname", "sandbox"]
        if limits.network:
            argv.append("--share-net")
        argv += ["--size", str(limits.tmp_mb << 20), "--perms", "1777", "--tmpfs", "/tmp"]
        for path, mb in ((workdir, limits.workspace_mb), (AGENT_HOME, limits.tmp_mb),
                         *((d, limits.tmp_mb) for d in seeded_dirs)):
            argv += ["--size", str(mb << 20), "--perms", "0755", "--tmpfs", path]
        argv += ["--remount-ro", "/", "--uid", str(uid), "--gid", str(uid), "--chdir", "/",
                 "--clearenv"]
        for key, value in env.items():
            argv += ["--setenv", key, value]
        return argv

    def prepare(self, image_context: Path, *, tag: str) -> str:
        """Turn a task's ``environment/`` directory into a workspace template; return its path.

        Raises SandboxError naming the Dockerfile line it cannot carry out.
        """
        context = Path(image_context)
        dockerfile = context / "Dockerfile"
        if not dockerfile.is_file():
            raise SandboxError(f"{dockerfile}: no Dockerfile in the image directory")
        target = cache_dir("sandbox", "bwrap-images",
                           f"{tag.replace('/', '_')}-{context_hash(context)}")
        if (target / "meta.json").is_file():
            return str(target)
        steps = parse_dockerfile(dockerfile.read_text(), name=str(dockerfile))
        if not steps or steps[0][0] != "FROM" or steps[0][1].split()[0] != BASE_IMAGE:
            raise SandboxError(f"{dockerfile}: the bwrap backend needs `FROM {BASE_IMAGE}`")
        work = Path(tempfile.mkdtemp(prefix="agentgym-bwrap-image-"))
        files = work / "files"
        files.mkdir()
        os.chmod(work, 0o755)
        if self._run_as is not None:
            os.chown(files, self._run_as, self._run_as)
        workdir, env = "/", dict(_AGENT_ENV)
        try:
            for instruction, args in steps[1:]:
                if instruction == "WORKDIR":
                    workdir = os.path.normpath(os.path.join(workdir, args))
                elif instruction in ("COPY", "ADD"):
                    self._copy(context, files, workdir, args, dockerfile)
                elif instruction == "ENV":
                    env.update(_env_pairs(args))
                elif instruction == "RUN":
                    self._build_run(files, workdir, args, env, dockerfile)
                elif instruction not in ("USER", "LABEL", "CMD", "ENTRYPOINT", "EXPOSE", "ARG"):
                    raise SandboxError(f"{dockerfile}: {instruction} is not supported by the "
                                       "bwrap backend")
            (work / "meta.json").write_text(json.dumps({"workdir": workdir, "env": env}))
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.rmtree(target, ignore_errors=True)
            work.rename(target)
        finally:
            shutil.rmtree(work, ignore_errors=True)
        return str(target)

    def _copy(self, context: Path, files: Path, workdir: str, args: str,
              dockerfile: Path) -> None:
        words = [w for w in _words(args) if not w.startswith("--")]
        *sources, dest = words
        dest_abs = os.path.normpath(os.path.join(workdir, dest))
        if dest_abs != workdir and not dest_abs.startswith(workdir.rstrip("/") + "/"):
            raise SandboxError(f"{dockerfile}: COPY to {dest_abs} (outside WORKDIR {workdir}) "
                               "is not supported by the bwrap backend")
        into = files / os.path.relpath(dest_abs, workdir)
        for source in sources:
            src = (context / source).resolve()
            if not src.exists() or context.resolve() not in (src, *src.parents):
                raise SandboxError(f"{dockerfile}: COPY source {source} is missing")
            if src.is_dir():
                shutil.copytree(src, into, dirs_exist_ok=True, symlinks=True)
            else:
                target = into / src.name if dest.endswith("/") or into.is_dir() else into
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(src, target)
        if self._run_as is not None:
            # The build jail runs as uid 1000 on the host (see _jail_uid): it writes here.
            for root, dirs, names in os.walk(files):
                for name in [*dirs, *names]:
                    os.lchown(os.path.join(root, name), self._run_as, self._run_as)
            os.chown(files, self._run_as, self._run_as)

    def _build_run(self, files: Path, workdir: str, args: str, env: dict[str, str],
                   dockerfile: Path) -> None:
        words = _words(args)
        command = words if args.strip().startswith("[") else ["/bin/sh", "-c", args]
        if args.strip().startswith("chown "):
            return  # ownership: the workspace is copied in as the agent anyway
        argv = [self.bwrap, "--unshare-all", "--die-with-parent", *self._root_args(),
                "--tmpfs", "/tmp", "--bind", str(files), workdir, "--chdir", workdir,
                "--clearenv"]
        for key, value in env.items():
            argv += ["--setenv", key, value]
        done = subprocess.run([*argv, *command], capture_output=True, text=True, timeout=600,
                              user=self._run_as, group=self._run_as,
                              extra_groups=[] if self._run_as is not None else None)
        if done.returncode != 0:
            tail = (done.stderr or done.stdout).strip().splitlines()[-1:] or ["no output"]
            raise SandboxError(f"{dockerfile}: RUN {args[:60]} failed in bwrap "
                               f"(exit {done.returncode}): {tail[0][:200]}")

    def _image(self, image: str, workdir: str) -> tuple[bytes, dict[str, str]]:
        """(a tar of the workspace template, the image's environment)."""
        if image == BASE_IMAGE:
            return b"", dict(_AGENT_ENV)
        path = Path(image)
        meta_file = path / "meta.json"
        if not meta_file.is_file():
            raise SandboxError(f"image {image} is not a prepared bwrap image (call prepare)")
        meta = json.loads(meta_file.read_text())
        buf = io.BytesIO()
        with tarfile.open(fileobj=buf, mode="w") as archive:
            for child in sorted((path / "files").iterdir()):
                archive.add(child, arcname=child.name)
        return buf.getvalue(), {**_AGENT_ENV, **meta.get("env", {})}

    def _start(self, image: str, limits: Limits, workdir: str, uid: int,
               extra_dirs: list[str]) -> BwrapSandbox:
        if self.closed:
            raise SandboxError("the bwrap backend is closed")
        if not isinstance(workdir, str) or not workdir.startswith("/") or workdir == "/":
            raise ValueError(f"workdir must be an absolute path below /, got {workdir!r}")
        seed, env = self._image(image, workdir)
        if uid == 0:
            env = {**env, "HOME": "/root", "USER": "root", "LOGNAME": "root"}
        box = BwrapSandbox(self._argv(limits, workdir, uid=uid, seeded_dirs=extra_dirs,
                                      env=env),
                           limits, workdir=workdir, env=env, run_as=self._run_as)
        with self._lock:
            self._sandboxes.add(box)
        try:
            if seed:
                box.copy_in(seed, workdir)
        except BaseException:
            box.close()
            raise
        return box

    def start(self, image: str, limits: Limits, *, workdir: str) -> BwrapSandbox:
        """A jail for one episode as the agent (uid 1000), workspace seeded from the image."""
        return self._start(image, limits, workdir, 1000, [])

    def start_clean(self, image: str, limits: Limits, *, workdir: str,
                    user: str = "root") -> BwrapSandbox:
        """A fresh jail for the verifier: like the Docker backend's, ``/root`` and
        ``CLEAN_WRITABLE`` (``/verifier``, ``/tests``, ``/logs``) are writable tmpfs mounts
        too; the rest of the root filesystem is read-only."""
        uid = 0 if user in ("root", "0", "0:0") else 1000
        return self._start(image, limits, workdir, uid, ["/root", *CLEAN_WRITABLE])

    def close(self) -> None:
        """End every jail this backend started (idempotent)."""
        self.closed = True
        with self._lock:
            boxes, self._sandboxes = list(self._sandboxes), set()
        for box in boxes:
            box.close()

    def __enter__(self) -> BwrapBackend:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _env_pairs(args: str) -> dict[str, str]:
    """``ENV`` arguments: ``K=V K2=V2`` or the legacy ``K V``.

    >>> _env_pairs('A=1 B="two words"'), _env_pairs("PYTHONPATH /app/src")
    ({'A': '1', 'B': 'two words'}, {'PYTHONPATH': '/app/src'})
    """
    words = shlex.split(args)
    if words and "=" not in words[0]:
        return {words[0]: " ".join(words[1:])}
    return dict(w.split("=", 1) for w in words if "=" in w)
