"""BrowserGym as a benchmark peer, in its own virtual environment, driven over a pipe.

BrowserGym (``browsergym-core`` 0.14.3) pins ``playwright==1.44``, which cannot share the
project venv (agentgym uses Playwright 1.65 with the system Chromium), so it lives in
``.venv-browsergym`` (``scripts/bench.sh`` creates it; ``$BROWSERGYM_VENV`` names another
one). This one file holds both ends of the pipe:

* **peer side** (``python benchmarks/browsergym_peer.py`` under the BrowserGym venv; stdlib
  and BrowserGym only, no agentgym import): a loop that reads one JSON command a line on
  stdin, runs it against real ``browsergym.core.env.BrowserEnv`` objects and answers one JSON
  line. ``step`` performs one ``BrowserEnv.step`` and nothing else, so the pytest side can
  time a real BrowserGym step as one round trip.
* **pytest side** (:class:`BrowserGymPeer`): starts the peer, sends commands, reads answers
  with a time limit.

The page BrowserGym looks at is answered by the *pytest* process (the WebShop site of
``environments/webshop/site.py``, what the agentgym browser env serves), the same way the
agentgym env's own context answers it: Playwright's routing (``route.fulfill``), no server.
The peer's context routes every request for the shop's origin to the pipe: it writes a
``{"fetch": {"name", "method", "url"}}`` line and the pytest side, still inside the call that
caused the request, answers ``{"status", "headers", "body"}`` from that env's site
(:class:`BrowserGymPeer`'s ``serve``). Both sides browse the very same HTML.

Commands (``{"cmd": ..., ...}`` -> answer; an answer with ``"error"`` means it failed):

* ``hello`` -> versions of browsergym-core, playwright, gymnasium, numpy and Python;
* ``open`` (``name``, ``config``, ``origin``, ``goal``, ``seed``) -> makes a
  ``BrowserEnv`` with the config's knobs (:data:`CONFIGS`) and resets it (``inner_s``);
* ``search`` (``name``, ``query``): fills the search box and clicks Search, two steps;
* ``prepare`` (``name``, ``label``, ``expect``): checks that the last observation's AXTree
  shows ``expect`` (``ok``), then looks up the BrowserGym id of the link or button whose
  text is ``label`` and keeps ``click("<bid>")`` for the next ``step``;
* ``step`` (``name``) -> ``inner_s`` (the peer's own clock around ``env.step``) and
  ``action_error`` (BrowserGym's ``last_action_error``, ``""`` when the action worked);
* ``reset`` (``name``, ``seed``) -> ``inner_s``;
* ``memory`` -> PSS / RSS of the peer's Playwright driver and Chromium processes and the
  peer's own RSS;
* ``cpu`` (``when``) -> CPU seconds used so far by the peer and everything it started
  (see :func:`process_cpu_s`);
* ``close`` (``name``), ``quit``.

>>> sorted(CONFIGS)
['default', 'tuned']
>>> process_tree(-1)
[]
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import select
import subprocess
import sys
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

__all__ = [
    "BROWSERGYM_SPEC",
    "CONFIGS",
    "BrowserGymPeer",
    "PeerError",
    "default_venv",
    "own_rss_mib",
    "process_cpu_s",
    "process_tree",
    "tree_cpu_s",
    "tree_memory",
    "venv_python",
    "venv_version",
]

#: What scripts/bench.sh installs into the BrowserGym venv (in this order; pip warns that
#: playwright 1.65.2 breaks browsergym-core's ``playwright==1.44`` pin, which is intended:
#: 1.44 cannot drive the system Chromium, and both sides then use the same Playwright).
BROWSERGYM_SPEC: tuple[str, ...] = (
    "browsergym-core==0.14.3",
    "gymnasium==1.4.0",
    "playwright==1.65.2",
)

#: BrowserEnv keyword arguments per configuration. ``default`` is what a BrowserGym user gets:
#: the task's ``slow_mo`` (1000 ms on every Playwright call, AbstractBrowserTask's default)
#: and ``pre_observation_delay=0.5`` s. ``tuned`` turns both off, BrowserGym's fastest
#: documented setting; the observation (AXTree, DOM snapshot, screenshot) stays as it is.
CONFIGS: dict[str, dict[str, Any]] = {
    "default": {},
    "tuned": {"slow_mo": 0, "pre_observation_delay": 0.0},
}

#: Our browser env's viewport; the peer's task uses the same one (screenshot cost scales with it).
VIEWPORT = {"width": 1024, "height": 768}

_REPO = Path(__file__).resolve().parent.parent


# ----------------------------------------------------------------- helpers for both sides
def default_venv() -> Path:
    """``$BROWSERGYM_VENV``, else ``.venv-browsergym`` at the repository root."""
    env = os.environ.get("BROWSERGYM_VENV")
    path = Path(env) if env else _REPO / ".venv-browsergym"
    return path if path.is_absolute() else _REPO / path


def venv_python(venv: Path) -> Path:
    """The interpreter of a virtual environment (it may not exist)."""
    return venv / "bin" / "python"


def venv_version(venv: Path, dist: str) -> str | None:
    """Version of ``dist`` installed in ``venv`` (read from its dist-info, no interpreter run).

    >>> venv_version(Path("/nonexistent"), "browsergym-core") is None
    True
    """
    stem = dist.replace("-", "_").lower()
    for site in sorted(venv.glob("lib/python*/site-packages")):
        for info in site.glob("*.dist-info"):
            name, _, version = info.name[: -len(".dist-info")].rpartition("-")
            if name.replace("-", "_").lower() == stem:
                return version
    return None


def _proc_table() -> tuple[dict[int, list[int]], dict[int, str]]:
    children: dict[int, list[int]] = {}
    names: dict[int, str] = {}
    try:
        entries = os.listdir("/proc")
    except OSError:
        return children, names
    for entry in entries:
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as fh:
                stat = fh.read().decode("ascii", "replace")
        except OSError:
            continue
        # The command name sits in parentheses and may hold spaces; the ppid follows it.
        names[int(entry)] = stat[stat.find("(") + 1 : stat.rfind(")")]
        ppid = int(stat[stat.rfind(")") + 2 :].split()[1])
        children.setdefault(ppid, []).append(int(entry))
    return children, names


def process_tree(root: int, exclude: Iterable[int] = ()) -> list[int]:
    """Pids of every descendant of ``root`` (not ``root``), minus the subtrees of ``exclude``.

    The pytest process excludes the peer (a child of it) when it measures its own browser.
    """
    children, _ = _proc_table()
    skip = set(exclude)
    found: list[int] = []
    stack = [p for p in children.get(root, []) if p not in skip]
    while stack:
        pid = stack.pop()
        found.append(pid)
        stack.extend(p for p in children.get(pid, []) if p not in skip)
    return sorted(found)


def _kib(path: str, key: str) -> int:
    total = 0
    try:
        with open(path) as fh:
            for line in fh:
                if line.startswith(key):
                    total += int(line.split()[1])
    except OSError:
        pass
    return total


def tree_memory(root: int, exclude: Iterable[int] = ()) -> dict[str, float]:
    """PSS and RSS (MiB) summed over ``root``'s descendants: Playwright's driver and Chromium.

    PSS splits shared pages between the processes that map them, so PSS sums add up; RSS
    sums count shared libraries once per process and overstate the total.
    """
    pids = process_tree(root, exclude)
    pss = sum(_kib(f"/proc/{p}/smaps_rollup", "Pss:") for p in pids)
    rss = sum(_kib(f"/proc/{p}/status", "VmRSS:") for p in pids)
    return {"pss_mib": pss / 1024, "rss_mib": rss / 1024, "processes": len(pids)}


def tree_cpu_s(root: int, exclude: Iterable[int] = (), *, include_root: bool = True) -> float:
    """CPU seconds (user + system, all threads) used so far by ``root``'s process tree.

    Each process counts its own time plus that of the children it has reaped, so Chromium
    processes that already exited (a BrowserGym reset closes two browsers) still count,
    through their parent. Differences of this over a call give the CPU the call cost in every
    process involved (Python, Playwright's driver, Chromium's browser, GPU and renderer
    processes), which a busy machine does not inflate the way it inflates wall time.
    """
    ticks = 0
    pids = process_tree(root, exclude)
    for pid in [*pids, root] if include_root else pids:
        try:
            with open(f"/proc/{pid}/stat", "rb") as fh:
                fields = fh.read().decode("ascii", "replace").rsplit(")", 1)[1].split()
        except OSError:
            continue
        ticks += sum(int(f) for f in fields[11:15])  # utime, stime, cutime, cstime
    return ticks / os.sysconf("SC_CLK_TCK")


def process_cpu_s(root: int, exclude: Iterable[int] = (), *, when: str = "start") -> float:
    """This process's CPU (``time.process_time``, exact) plus its tree's (from /proc).

    Reading /proc costs this process a few milliseconds; ``when="start"`` reads this
    process's clock last and ``"stop"`` reads it first, so that cost stays outside the
    interval measured between a start and a stop.
    """
    if when == "stop":
        own = time.process_time()
        return own + tree_cpu_s(root, exclude, include_root=False)
    others = tree_cpu_s(root, exclude, include_root=False)
    return others + time.process_time()


def own_rss_mib() -> float:
    """This process's resident set in MiB."""
    return _kib("/proc/self/status", "VmRSS:") / 1024


# ----------------------------------------------------------------------------- pytest side
class PeerError(RuntimeError):
    """The peer failed, timed out or exited; the message ends with its log's last lines."""


class BrowserGymPeer:
    """The pytest side of the pipe: ``call("step", name="tuned")`` is one BrowserGym step.

    ``python`` is the BrowserGym venv's interpreter; the peer's stderr goes to ``log``.
    ``serve(name, method, url) -> (status, headers, body)`` answers the page requests of the
    peer's env ``name`` while a call runs (see the module doc).
    """

    def __init__(
        self,
        python: Path,
        log: Path,
        *,
        serve: Callable[[str, str, str], tuple[int, dict[str, str], str]] | None = None,
        timeout_s: float = 180.0,
    ) -> None:
        self.timeout_s = timeout_s
        self.serve = serve
        self.log = log
        log.parent.mkdir(parents=True, exist_ok=True)
        self._log_fh = open(log, "wb")  # noqa: SIM115 (lives as long as the peer)
        self._buf = b""
        self.proc = subprocess.Popen(
            [str(python), "-u", str(Path(__file__).resolve())],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self._log_fh,
            bufsize=0,
            cwd=str(_REPO),
        )
        self.pid = self.proc.pid

    def log_tail(self, lines: int = 15) -> str:
        try:
            text = self.log.read_text(errors="replace").strip().splitlines()
        except OSError:
            return ""
        return "\n".join(text[-lines:])

    def _readline(self, timeout_s: float) -> bytes:
        assert self.proc.stdout is not None
        fd = self.proc.stdout.fileno()
        deadline = time.monotonic() + timeout_s
        while b"\n" not in self._buf:
            left = deadline - time.monotonic()
            if left <= 0:
                raise PeerError(f"BrowserGym peer gave no answer in {timeout_s:.0f} s")
            ready, _, _ = select.select([fd], [], [], left)
            if ready:
                chunk = os.read(fd, 1 << 16)
                if not chunk:
                    raise PeerError(f"BrowserGym peer exited (status {self.proc.poll()})")
                self._buf += chunk
        line, _, self._buf = self._buf.partition(b"\n")
        return line

    def call(self, cmd: str, *, timeout_s: float | None = None, **args: Any) -> dict[str, Any]:
        """Send one command and return the peer's answer; raise :class:`PeerError` on failure."""
        assert self.proc.stdin is not None
        try:
            self.proc.stdin.write(json.dumps({"cmd": cmd, **args}).encode() + b"\n")
            answer = json.loads(self._readline(timeout_s or self.timeout_s))
            while "fetch" in answer:  # a page request of the peer's browser, mid-call
                self.proc.stdin.write(json.dumps(self._fetch(answer["fetch"])).encode() + b"\n")
                answer = json.loads(self._readline(timeout_s or self.timeout_s))
        except (OSError, ValueError, PeerError) as exc:
            raise PeerError(f"{cmd}: {exc}\n{self.log_tail()}") from exc
        if "error" in answer:
            raise PeerError(f"{cmd}: {answer['error']}\n{self.log_tail()}")
        return answer

    def _fetch(self, request: dict[str, Any]) -> dict[str, Any]:
        if self.serve is None:
            return {"status": 404, "headers": {}, "body": "no site is served"}
        status, headers, body = self.serve(request["name"], request["method"], request["url"])
        return {"status": status, "headers": dict(headers), "body": body}

    def close(self) -> None:
        """Ask the peer to quit (it closes its browsers), then make sure it is gone."""
        if self.proc.poll() is None:
            with contextlib.suppress(PeerError):
                self.call("quit", timeout_s=60)
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        for pipe in (self.proc.stdin, self.proc.stdout):
            if pipe is not None:
                pipe.close()
        self._log_fh.close()


# ------------------------------------------------------------------------------- peer side
_FIND_BID_JS = """(label) => {
  for (const e of document.querySelectorAll('a, button')) {
    if (e.textContent.trim() === label) return e.getAttribute('bid');
  }
  return null;
}"""


def _ax_text(obs: dict[str, Any]) -> str:
    """Every accessible name in a BrowserGym observation's AXTree, joined."""
    nodes = (obs.get("axtree_object") or {}).get("nodes", [])
    return " ".join(str((n.get("name") or {}).get("value", "")) for n in nodes)


def _serve() -> int:  # pragma: no cover - runs in the BrowserGym venv
    # The protocol owns the real stdout; anything a library prints goes to stderr (the log).
    out = os.fdopen(os.dup(1), "w", buffering=1)
    os.dup2(2, 1)

    from importlib import metadata

    import playwright.sync_api

    # BrowserGym launches a second Chromium per env for its chat window (browsergym/core/
    # chat.py) without an executable path, and Playwright's own Chromium is not installed
    # here: point every launch at the system Chromium, as agentgym does.
    chromium = os.environ.get("AGENTGYM_CHROMIUM", "/usr/bin/chromium")
    launch = playwright.sync_api.BrowserType.launch

    def launch_system(self: Any, **kwargs: Any) -> Any:
        kwargs.setdefault("executable_path", chromium)
        return launch(self, **kwargs)

    playwright.sync_api.BrowserType.launch = launch_system  # type: ignore[method-assign]

    from browsergym.core.env import BrowserEnv
    from browsergym.core.task import AbstractBrowserTask

    class ShopTask(AbstractBrowserTask):
        """Open the shop page of one session; no validation (agentgym scores, not BrowserGym)."""

        @classmethod
        def get_task_id(cls) -> str:
            return "agentgym-webshop"

        def __init__(self, seed: int, origin: str, name: str, goal: str) -> None:
            super().__init__(seed)
            self.viewport = dict(VIEWPORT)
            self.origin, self.name, self.goal = origin, name, goal

        def serve(self, route: Any) -> None:
            """Answer a shop request through the pipe (see the module doc)."""
            request = route.request
            ask = {"name": self.name, "method": request.method, "url": request.url}
            out.write(json.dumps({"fetch": ask}) + "\n")
            reply = json.loads(sys.stdin.readline())
            route.fulfill(status=reply["status"], headers=reply["headers"], body=reply["body"])

        def setup(self, page: Any) -> tuple[str, dict[str, Any]]:
            shop = re.compile("^" + re.escape(self.origin) + r"(?:[/?#]|$)")
            page.context.route(shop, self.serve)
            page.goto(self.origin + "/page")
            return self.goal, {}

        def validate(self, page: Any, chat_messages: Any) -> tuple[float, bool, str, dict]:
            return 0.0, False, "", {}

    envs: dict[str, Any] = {}
    last_obs: dict[str, dict[str, Any]] = {}
    prepared: dict[str, str] = {}

    def bid_of(name: str, label: str) -> str:
        bid = envs[name].page.evaluate(_FIND_BID_JS, label)
        if bid is None:
            raise LookupError(f"no link or button {label!r} on {envs[name].page.url}")
        return str(bid)

    def step(name: str, action: str) -> dict[str, Any]:
        start = time.perf_counter()
        obs, *_ = envs[name].step(action)
        inner = time.perf_counter() - start
        last_obs[name] = obs
        return {"inner_s": inner, "action_error": obs["last_action_error"]}

    def handle(req: dict[str, Any]) -> dict[str, Any]:
        cmd, name = req["cmd"], req.get("name", "")
        if cmd == "hello":
            return {
                "pid": os.getpid(),
                "python": sys.version.split()[0],
                "chromium": chromium,
                "versions": {
                    d: metadata.version(d)
                    for d in ("browsergym-core", "playwright", "gymnasium", "numpy")
                },
            }
        if cmd == "open":
            env = BrowserEnv(
                task_entrypoint=ShopTask,
                task_kwargs={"origin": req["origin"], "name": name, "goal": req["goal"]},
                headless=True,
                **CONFIGS[req["config"]],
            )
            envs[name] = env
            start = time.perf_counter()
            obs, _ = env.reset(seed=req.get("seed", 0))
            inner = time.perf_counter() - start
            last_obs[name] = obs
            return {
                "inner_s": inner,
                "browser": env.browser.version,
                "axtree_nodes": len(obs["axtree_object"].get("nodes", [])),
                "dom_chars": len(json.dumps(obs["dom_object"])),
                "screenshot": list(obs["screenshot"].shape),
            }
        if cmd == "search":
            box = envs[name].page.evaluate(
                "() => document.querySelector('input[name=q]').getAttribute('bid')"
            )
            first = step(name, f"fill({json.dumps(box)}, {json.dumps(req['query'])})")
            button = envs[name].page.evaluate(
                "() => document.querySelector('button[type=submit]').getAttribute('bid')"
            )
            second = step(name, f"click({json.dumps(button)})")
            return {"action_errors": [first["action_error"], second["action_error"]]}
        if cmd == "prepare":
            text = _ax_text(last_obs[name])
            prepared[name] = f"click({json.dumps(bid_of(name, req['label']))})"
            return {"ok": req.get("expect", "") in text, "action": prepared[name]}
        if cmd == "step":
            return step(name, prepared.pop(name))
        if cmd == "reset":
            start = time.perf_counter()
            obs, _ = envs[name].reset(seed=req.get("seed"))
            last_obs[name] = obs
            return {"inner_s": time.perf_counter() - start}
        if cmd == "check":
            return {"ok": req["expect"] in _ax_text(last_obs[name])}
        if cmd == "cpu":
            return {"cpu_s": process_cpu_s(os.getpid(), when=req.get("when", "start"))}
        if cmd == "memory":
            return {**tree_memory(os.getpid()), "python_rss_mib": own_rss_mib()}
        if cmd == "close":
            envs.pop(name).close()
            last_obs.pop(name, None)
            return {}
        if cmd == "quit":
            for env in envs.values():
                env.close()
            envs.clear()
            return {}
        raise ValueError(f"unknown command {cmd!r}")

    for line in sys.stdin:
        if not line.strip():
            continue
        try:
            req = json.loads(line)
            answer = handle(req)
        except Exception as exc:  # reported to the pytest side, which fails or skips with it
            answer = {"error": f"{type(exc).__name__}: {str(exc).strip()[:2000]}"}
            req = {}
        out.write(json.dumps(answer) + "\n")
        if req.get("cmd") == "quit":
            break
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(_serve())
