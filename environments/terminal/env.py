"""``agentgym/Terminal-v0``: shell and coding tasks in a sandbox, scored by hidden tests.

See :class:`TerminalEnv` for the kwargs, the action format, the rewards and the costs.
"""

from __future__ import annotations

import contextlib
import re
import typing
from typing import Any, ClassVar

import numpy as np

from agentgym.core import TEXT_CHARSET, Outcome, TextEnv, settle, shaping
from agentgym.draws import below

from .agents import SUBMIT, plausible_commands, solve_command
from .config import DEFAULT_INVALID_PENALTY, DEFAULT_MAX_INVALID, TerminalConfig
from .task import Task, find_task, tasks_in_split
from .verifier import Verdict, milestone_results, verify

__all__ = ["BACKENDS", "DEFAULT_INVALID_PENALTY", "DEFAULT_MAX_INVALID", "TerminalEnv"]

#: The sandbox backends ``backend`` may name (operator-only: :class:`.config.TerminalConfig`).
BACKENDS: tuple[str, ...] = typing.get_args(TerminalConfig.model_fields["backend"].annotation)
#: Seconds each milestone may run before it counts as not holding.
MILESTONE_TIMEOUT_S = 5.0
# How much of a command the observation echoes after "$ ".
_ECHO_CHARS = 300
_NOT_TEXT = re.compile(f"[^{re.escape(TEXT_CHARSET)}]")

RULES = (
    "You work in a Linux shell (bash) inside a sandbox, as the user `agent`, to complete the "
    "task the first observation describes. Each turn, send exactly one shell command as "
    "<action>COMMAND</action>. It runs non-interactively (no editors, no prompts, no network) "
    "in the current directory: a `cd` carries over to the next command, environment "
    "variables do not, and a command that runs too long is killed. You then see its stdout, "
    "stderr, exit code, the working directory and the steps left; long output is cut with a "
    "visible marker. When the task is done, answer <action>submit</action>: hidden tests then "
    "check your work, and the reward is the share of them that pass. Work that is never "
    "submitted (the steps or the valid actions run out first) earns nothing."
)

# (image, milestone texts) -> share holding in a fresh sandbox; image -> files it starts with.
# Both depend only on the image (its tag carries a hash of the task's environment), so one
# measurement serves every later reset.
_START_PHI: dict[tuple[str, tuple[str, ...]], float] = {}
_START_FILES: dict[str, list[str]] = {}


def _text(s: str) -> str:
    """``s`` with every character outside the observation charset written as an escape."""

    def escape(m: re.Match[str]) -> str:
        code = ord(m.group())
        return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}" if code < 0x10000 else (
            f"\\U{code:08x}")

    return _NOT_TEXT.sub(escape, s)


def _close_soon(sandbox: Any) -> None:
    """Close ``sandbox``, handing the removal to the backend's reaper where it has one (the
    Docker backend: ~50-100 ms off every reset; ``backend.close()`` waits for them)."""
    try:
        sandbox.close(wait=False)
    except TypeError:
        sandbox.close()


class TerminalEnv(TextEnv):
    """A terminal task: one shell command per step in a sandboxed container, then hidden tests.

    Kwargs (declared in :class:`.config.TerminalConfig`):

    * ``task`` (``None``): a bundled task id (``"csv-column-sum"``, ``agentgym tasks list``) or
      the path of a task directory (operator-only: a remote client or a leaderboard bundle
      may pick only the bundled ids). ``None`` plays the ``split``'s tasks: task
      ``seed % len(split)`` after ``reset(seed=seed)`` (so seeds ``0..n-1`` play each once),
      one drawn from the env's generator after ``reset()`` without a seed.
    * ``split`` (``"train"``): ``"train"`` or ``"test"``, fixed per task id in its
      ``task.toml``; used when ``task`` is ``None``.
    * ``backend`` (``"auto"``, operator-only): ``"docker"``, ``"bwrap"`` or ``"auto"``
      (Docker where a daemon answers, else bubblewrap, which warns once about the guarantees
      it lacks). The leaderboard validator always replays with ``"docker"``.
    * ``gamma`` (1.0; in (0, 1]): discount of the shaping reward.
    * ``max_steps`` (``None``: the task's ``[metadata.agentgym].max_steps``),
      ``invalid_penalty`` (-0.1), ``max_invalid`` (5), ``reward_mode``, ``render_mode``,
      ``score_process``: as in :class:`agentgym.core.TextEnv`.

    Actions: one shell command (bare or ``<action>COMMAND</action>``, up to 32,768
    characters; a longer text, an empty one or a NUL byte is invalid), or ``submit`` (any
    case). A command runs as the non-root ``agent`` user with the task's per-command timeout;
    its whole process group is killed at the timeout.

    Rewards (``gamma * phi(s') - phi(s)``, the potential-based shaping that
    :class:`~agentgym.core.TextEnv` applies to the potential the env declares):

    * ``phi`` is the share of the task's hidden milestones (``milestones/*.sh``) that hold,
      checked after each command as uid 1001 (neither root nor the agent; the script on
      stdin, never a file in the container; what it starts is killed); at the end of an
      episode ``phi(s_T)`` is the outcome (the base's end rule). The process rewards of an
      episode therefore add up to ``gamma``-discounted ``outcome - phi(s_0)`` and no loop can
      farm them; the shaping cannot change the optimal policy.
    * outcome: after ``submit`` the verifier (:mod:`.verifier`) runs the hidden tests on the
      artifacts in a clean container; the outcome is the share that passed, and **success**
      means all passed. An episode truncated before ``submit`` (out of steps or of invalid
      actions) is not graded: its outcome is 0, like WebShop's unbought cart, so the
      potential ends at 0 too. Why not grade it as a final submit would: the contract grants
      success only to a terminated episode and the budget must truncate (the conformance
      suite checks both), so a graded truncation paid the solver's return (2.0 on a solved
      task) with no success, which ``agentgym audit`` flagged (greedy and repeat-best ran
      the solution and never submitted). Paying unsubmitted work nothing makes success mean
      the outcome and gives every policy a reason to submit; it also saves the verifier's
      run (seconds) on every truncated episode.
    * an invalid action changes nothing: ``gamma * phi - phi`` (0 by default) plus
      ``invalid_penalty``.

    ``info["reward_components"]`` has ``tests_passed``, ``tests_total`` (0 until the verifier
    ran) and ``milestones`` (the share holding after the step); ``info["verdict"]`` the
    verifier's summary (what it stripped, why a run scored 0, ``isolated``: whether the
    agent's code ran apart from the tests, False under bubblewrap) on the submitting step.

    Costs: ``get_state`` is a JSON record (the task, the command history, the potential);
    ``set_state`` replays the history in a fresh sandbox (one warm container plus the time of
    every command so far; free when the history is the one already in the live sandbox).
    ``score_actions`` runs the verifier on the live sandbox for ``submit`` (about a second)
    and, for a command, replays the history plus the command in a fresh sandbox. Scores match
    ``step`` exactly for deterministic commands. ``oracle_actions`` is free: the reference
    solution as one command, then ``submit`` (it is not among ``available_actions``, which
    list harmless looks and ``submit`` for the random agent).

    ``close()`` removes the episode's container and the backend's warm pool.

    Where the family departs from the games' habits (inherent to a shell): any non-empty
    text is a legal command (only an empty, oversized or NUL-carrying action is invalid);
    ``oracle_actions()`` is not among ``available_actions`` (listing the solution would hand
    it to every agent); the oracle ends an episode in two steps; nothing ends the episode
    with a grade but ``submit``.

    >>> env = TerminalEnv(task="csv-column-sum")   # doctest: +SKIP
    >>> obs, info = env.reset(seed=0)              # doctest: +SKIP
    """

    verifier_name: ClassVar[str] = "terminal-hidden-tests"
    # 2: an episode cut before submit is not graded (outcome 0, the potential ends at 0).
    verifier_version: ClassVar[str] = "2"
    rules: ClassVar[str] = RULES
    max_observation_length: ClassVar[int] = 32_768
    max_action_length: ClassVar[int] = 32_768
    blocking_io: ClassVar[bool] = True
    #: A container each: the server caps these (``max_heavy_sessions``).
    heavy_session: ClassVar[bool] = True
    config_model = TerminalConfig

    def __init__(
        self,
        task: str | None = None,
        *,
        split: str = "train",
        backend: str = "auto",
        gamma: float = 1.0,
        reward_mode: str = "both",
        render_mode: str | None = None,
        score_process: bool = True,
        max_steps: int | None = None,
        invalid_penalty: float = DEFAULT_INVALID_PENALTY,
        max_invalid: int = DEFAULT_MAX_INVALID,
    ) -> None:
        cfg = TerminalConfig.of(locals(), owner="TerminalEnv")
        self.gamma = cfg.gamma
        self.split = cfg.split
        self.task_name = cfg.task
        self.backend_name = cfg.backend
        self._fixed: Task | None = find_task(cfg.task) if cfg.task is not None else None
        self._tasks = [self._fixed] if self._fixed is not None else tasks_in_split(cfg.split)
        if not self._tasks:
            raise ValueError(f"no bundled terminal tasks in split {cfg.split!r}")
        self._max_steps_kwarg = cfg.max_steps
        # max_steps=None: each task brings its budget (set again by every reset).
        budget = cfg.max_steps if cfg.max_steps is not None else self._tasks[0].max_steps
        super().__init__(**{**cfg.contract(), "max_steps": budget})
        self.task: Task | None = None
        self._backend: Any = None
        self._sandbox: Any = None
        self._images: dict[str, str] = {}
        self._history: list[str] = []
        self._phi = 0.0          # the shaping potential of the current state (_shaping_potential)
        self._share = 0.0        # the share of milestones holding after the last command
        self._verdict: Verdict | None = None
        self._obs = ""
        self._files: list[str] = []  # what the workdir held at the start (for the looks)
        self._milestone_texts: list[str] = []

    # ------------------------------------------------------------------ config
    def _config(self) -> dict[str, Any]:
        return {"task": self.task_name, "split": self.split, "gamma": self.gamma}

    def config(self) -> dict[str, Any]:
        # The kwarg, not the episode's budget: with max_steps=None each task brings its own.
        return {**super().config(), "max_steps": self._max_steps_kwarg}

    # ------------------------------------------------------------------ sandbox plumbing
    def _get_backend(self) -> Any:
        if self._backend is None:
            from agentgym.sandbox import make_backend

            self._backend = make_backend(self.backend_name)
        return self._backend

    def _image(self, task: Task) -> str:
        key = str(task.root)
        if key not in self._images:
            self._images[key] = self._get_backend().prepare(
                task.environment_dir, tag=f"agentgym/task-{task.id}"
            )
        return self._images[key]

    def _fresh_sandbox(self, task: Task) -> Any:
        return self._get_backend().start(self._image(task), task.limits, workdir=task.workdir)

    def _close_sandbox(self) -> None:
        if self._sandbox is not None:
            sandbox, self._sandbox = self._sandbox, None
            _close_soon(sandbox)

    def _run(self, sandbox: Any, command: str) -> Any:
        from agentgym.sandbox import SandboxError
        from agentgym.sandbox.result import error_result

        assert self.task is not None
        try:
            return sandbox.run(command, timeout_s=self.task.command_timeout_s)
        except SandboxError as exc:
            return error_result(f"the sandbox failed: {exc}", cwd=self.task.workdir)

    def _milestones(self, sandbox: Any) -> float:
        from agentgym.sandbox import SandboxError

        scripts = self._milestone_texts
        if not scripts:
            return 0.0
        try:
            held = milestone_results(sandbox, scripts, timeout_s=MILESTONE_TIMEOUT_S)
        except SandboxError:
            return 0.0  # a dead sandbox holds nothing
        return sum(held) / len(held)

    def _start_phi(self, task: Task, image: str) -> float:
        key = (image, tuple(self._milestone_texts))
        if key not in _START_PHI:
            _START_PHI[key] = self._milestones(self._sandbox)
        return _START_PHI[key]

    def _start_files(self, image: str) -> list[str]:
        if image not in _START_FILES:
            listing = self._run(
                self._sandbox,
                "find . -maxdepth 2 -type f -not -path './.git/*' -printf '%P\\n' | LC_ALL=C sort",
            )
            files = [f for f in listing.stdout.splitlines() if f and _text(f) == f]
            _START_FILES[image] = files[:8] if listing.exit_code == 0 else []
        return _START_FILES[image]

    def _verify(self, sandbox: Any) -> Verdict:
        assert self.task is not None
        return verify(self._get_backend(), self.task, self._image(self.task), sandbox)

    # ------------------------------------------------------------------ episode
    def _new_episode(self, rng: np.random.Generator, options: dict[str, Any]) -> None:
        n = len(self._tasks)
        if self._fixed is not None:
            task = self._fixed
        elif self.episode_seed is not None:
            task = self._tasks[self.episode_seed % n]
        else:
            task = self._tasks[below(rng, n)]
        self._begin(task)
        image = self._image(task)
        self._files = self._start_files(image)
        self._phi = self._share = self._start_phi(task, image) if self.score_process else 0.0
        self._obs = self._intro()

    def _begin(self, task: Task) -> None:
        """A fresh sandbox of ``task`` with an empty history."""
        self._close_sandbox()
        self.task = task
        self._milestone_texts = [text for _, text in task.milestones()]
        if self._max_steps_kwarg is None:
            self.max_steps = task.max_steps
        self._sandbox = self._fresh_sandbox(task)
        self._history = []
        self._verdict = None
        self._files = _START_FILES.get(self._image(task), [])

    def _reset_info(self) -> dict[str, Any]:
        assert self.task is not None
        return {"task_id": self.task.id, "difficulty": self.task.difficulty,
                "category": self.task.category}

    def _intro(self) -> str:
        assert self.task is not None
        t = self.task
        return self._cap(
            f"{_text(t.instruction)}\n\nYou are in {t.workdir} as the user agent. You have "
            f"{self.steps_left} steps: one shell command each (each is killed after "
            f"{t.command_timeout_s:g} s). Answer submit when the task is done."
        )

    def _cap(self, text: str) -> str:
        """``text`` within the observation length: its head and its last lines, cut visibly."""
        limit = self.max_observation_length
        if len(text) <= limit:
            return text
        tail = 400  # the exit code, cwd and steps left stay visible
        head = limit - tail - 80  # room for the marker
        marker = f"\n[... observation cut: {len(text) - head - tail} characters dropped ...]\n"
        return text[:head] + marker + text[-tail:]

    def _observe(self) -> str:
        return self._obs

    def _legal_actions(self) -> list[str]:
        if self.task is None:
            return []
        # submit last: an agent that plays the first listed action explores until the
        # budget runs out instead of ending every episode at once.
        return [*plausible_commands(self._files), SUBMIT]

    def _parse(self, text: str) -> tuple[Any, str]:
        command = text.strip()
        if command.lower() == SUBMIT:
            return (SUBMIT, ""), ""
        if "\x00" in command:
            return None, "the command contains a NUL character; send plain shell text"
        return ("run", command), ""

    def _parts(self) -> dict[str, float]:
        verdict = self._verdict
        return {
            "tests_passed": float(verdict.passed) if verdict else 0.0,
            "tests_total": float(verdict.total) if verdict else 0.0,
            "milestones": self._share,
        }

    def _shaping_potential(self) -> float:
        # Kept up to date by _apply (the milestones after a command, the verdict on submit):
        # TextEnv applies gamma * phi(s') - phi(s) and settles the last potential to the
        # outcome (0 for an episode truncated before submit).
        return self._phi

    def _apply(self, move: tuple[str, str]) -> Outcome:
        kind, command = move
        assert self.task is not None
        if kind == SUBMIT:
            verdict = self._verdict = self._verify(self._sandbox)
            self._phi = verdict.reward
            self._obs = self._cap(f"$ submit\n{self._verdict_text(verdict, 'Submitted')}")
            return Outcome(
                outcome=verdict.reward,
                terminated=True,
                success=verdict.success,
                parts=self._parts(),
                info={"task_id": self.task.id, "verdict": verdict.to_dict()},
            )
        result = self._run(self._sandbox, command)
        self._history.append(command)
        if self.score_process:
            self._share = self._milestones(self._sandbox)
        self._phi = self._share if self.score_process else 0.0
        self._obs = self._cap(self._result_text(command, result))
        return Outcome(
            parts=self._parts(),
            info={"task_id": self.task.id, "exit_code": result.exit_code, "cwd": result.cwd,
                  "timed_out": result.timed_out},
        )

    def _reject(self, error: str) -> Outcome:
        assert self.task is not None
        self._obs = self._cap(f"Invalid action: {_text(error)}\nsteps left {self.steps_left}")
        return Outcome(parts=self._parts(), info={"task_id": self.task.id})

    def _on_end(self, out: Outcome) -> None:
        if not out.truncated:
            return
        # Cut before submit: nothing is graded and the outcome stays 0 (see the class
        # docstring), so the base's end rule takes the potential back to 0.
        why = ("Too many invalid actions" if out.truncated_by == "max_invalid"
               else "No steps left")
        self._obs = self._cap(f"{self._obs}\n{why} before submit: the hidden tests did not "
                              "run and the reward is 0. The episode is over.")

    def _verdict_text(self, verdict: Verdict, why: str) -> str:
        reason = f" ({_text(verdict.reason)})" if verdict.reason else ""
        if self.task is not None and self.task.test_kind == "harbor":
            return (f"{why}: the hidden tests gave a reward of {verdict.reward:g}{reason}. "
                    "The episode is over.")
        return (f"{why}: {verdict.passed} of {verdict.total} hidden tests passed{reason}. "
                "The episode is over.")

    def _result_text(self, command: str, result: Any) -> str:
        assert self.task is not None
        echo = command if len(command) <= _ECHO_CHARS else (
            f"{command[:_ECHO_CHARS]} [... {len(command) - _ECHO_CHARS} more characters]")
        lines = [f"$ {_text(echo)}"]
        if result.stdout:
            lines.append(_text(result.stdout.rstrip("\n")))
        if result.stderr:
            lines.append("[stderr]")
            lines.append(_text(result.stderr.rstrip("\n")))
        if result.truncated:
            lines.append(f"[... output truncated: {result.dropped_bytes} bytes dropped ...]")
        if result.timed_out:
            lines.append(f"[timed out after {self.task.command_timeout_s:g} s: the command and "
                         "everything it started were killed]")
        lines += [f"exit code {result.exit_code}", f"cwd {_text(result.cwd)}",
                  f"steps left {self.steps_left}"]
        return "\n".join(lines)

    # ------------------------------------------------------------------ snapshots and oracle
    def _state_dict(self) -> dict[str, Any]:
        assert self.task is not None
        return {
            "task": self.task.id,
            "history": list(self._history),
            "phi": self._phi,
            "share": self._share,
            "obs": self._obs,
            "verdict": self._verdict.to_dict() if self._verdict else None,
            "max_steps": self.max_steps,
            "files": list(self._files),
        }

    def _load_state_dict(self, d: dict[str, Any]) -> None:
        task = next((t for t in self._tasks if t.id == d["task"]), None)
        if task is None:
            raise ValueError(f"snapshot plays task {d['task']!r}, which this env does not")
        budget = self._max_steps_kwarg if self._max_steps_kwarg is not None else task.max_steps
        if d["max_steps"] != budget:
            raise ValueError(f"snapshot has a step budget of {d['max_steps']!r}; this env plays "
                             f"task {task.id!r} with {budget}")
        history = [str(c) for c in d["history"]]
        if len(history) > budget:
            # Every command of the history runs again: a longer one is no episode of this env.
            raise ValueError(f"snapshot replays {len(history)} commands, more than the step "
                             f"budget of {budget}")
        live = self._sandbox is not None and self.task == task and self._history == history
        if not live:
            self._begin(task)
            for command in history:  # the cost of a snapshot: every command runs again
                self._run(self._sandbox, command)
        self.task, self._history = task, history
        self.max_steps = budget
        self._files = [str(f) for f in d["files"]]
        self._phi, self._share, self._obs = float(d["phi"]), float(d["share"]), str(d["obs"])
        v = d["verdict"]
        self._verdict = None if v is None else Verdict(
            int(v["passed"]), int(v["total"]), float(v["reward"]), tuple(v["stripped"]),
            str(v["reason"]), isolated=bool(v.get("isolated", True)))

    def _score(self, move: tuple[str, str], snapshot: bytes) -> float:
        # What TextEnv's _resolve would pay, without stepping the live sandbox.
        kind, command = move
        assert self.task is not None
        phi0 = self._phi if self.score_process else self._milestones(self._sandbox)
        if kind == SUBMIT:
            # The verifier only reads the live sandbox (copy_out), so no replay is needed.
            return shaping(self.gamma, phi0, self._verify(self._sandbox).reward)
        box = self._fresh_sandbox(self.task)
        try:
            for earlier in self._history:
                self._run(box, earlier)
            self._run(box, command)
            phi = self._milestones(box)
            process = shaping(self.gamma, phi0, phi)
            if self.steps + 1 >= self.max_steps and phi != 0.0:
                # This command spends the budget unsubmitted: the potential ends at 0.
                process += settle(self.gamma, phi, 0.0)
            return process
        finally:
            _close_soon(box)

    def oracle_actions(self) -> list[str]:
        """The reference solution as one command until it has run, then ``submit``."""
        self._require_started()
        if self.is_over or self.task is None:
            return []
        solve = solve_command(self.task.solution, workdir=self.task.workdir)
        return [SUBMIT] if solve in self._history else [solve]

    def milestone_status(self) -> list[tuple[str, bool]]:
        """``(name, holds)`` of each milestone in the live sandbox now (one root shell)."""
        self._require_started()
        if self.task is None or self._sandbox is None:
            return []
        named = self.task.milestones()
        if not named:
            return []
        held = milestone_results(self._sandbox, [text for _, text in named],
                                 timeout_s=MILESTONE_TIMEOUT_S)
        return [(name, ok) for (name, _), ok in zip(named, held, strict=True)]

    # ------------------------------------------------------------------ lifecycle
    def close(self) -> None:
        """Remove the episode's container and the backend's (idempotent)."""
        try:
            self._close_sandbox()
        finally:
            backend, self._backend = self._backend, None
            self._images.clear()
            if backend is not None:
                backend.close()
            super().close()

    def __del__(self) -> None:
        # An env dropped without close() (a test, a crashed worker) would keep its warm pool's
        # containers until the process exits; this returns them as soon as it is collected.
        with contextlib.suppress(Exception):
            if getattr(self, "_backend", None) is not None:
                self.close()

