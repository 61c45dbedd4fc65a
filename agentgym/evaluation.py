"""Run an agent over a pinned task set and keep everything needed to re-check the numbers.

A run plays the tasks of a *task set*: a pinned split of the env (:mod:`agentgym.splits`,
``EnvEntry.split()`` in :mod:`agentgym.registry`; ``limit`` keeps its first tasks) or custom
seeds ``seed .. seed+episodes-1``. Task ``i`` is ``reset(seed=task_seeds[i])`` on the env made
with the split's kwargs updated by the caller's; each task is played ``trials`` times, trial
``t`` with the agent seeded ``task_seeds[i] + 1_000_003 * t`` (:func:`agent_seed`). Episode
``i * trials + t`` is trial ``t`` of task ``i``.

Every step's action, the model's raw reply, reward and reward components are kept with a short
hash of the observation (:func:`observation_digest`), so a replay recomputes every reward from
the actions alone; the results file is schema ``agentgym.eval/2`` and its ``summary`` is
:func:`agentgym.metrics.summarise` of its episodes.

* ``workers=N`` plays episodes in N processes (each builds its own env and agent); results are
  merged in episode order and equal a serial run's but for timings.
* ``out=FILE`` journals each finished episode to ``FILE.partial.jsonl`` (see
  :mod:`agentgym.eval_journal`); running the same evaluation again continues where it stopped.
* An agent that gives up (:class:`~agentgym.agents.base.AgentFailure`, e.g. an endpoint that
  keeps failing) ends its episode as ``failed`` with the reason; the episode is kept.

>>> from agentgym.evaluation import evaluate
>>> report = evaluate("agentgym/TicTacToe-v0", "oracle", limit=3, progress=False)
>>> report.split, report.task_seeds, report.summary["episodes"]
('test', [100000, 100001, 100002], 3)
"""

from __future__ import annotations

import hashlib
import json
import os
import platform
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any, SupportsFloat

import gymnasium as gym
import numpy as np

from agentgym.agents import Agent, AgentFailure, make_agent
from agentgym.core import TextEnv
from agentgym.envinfo import entry_for, family_of, make_text_env
from agentgym.eval_journal import Journal, journal_path
from agentgym.metrics import episode_extras, summarise
from agentgym.progress import progress_bar
from agentgym.splits import task_set_hash

SCHEMA = "agentgym.eval/2"
#: Hard cap on steps per episode, for envs (or wrappers) that never end an episode themselves.
MAX_EPISODE_STEPS = 10_000
#: Trial ``t`` of a task seeds its agent ``task_seed + TRIAL_STRIDE * t`` (a prime, so trials of
#: neighbouring tasks never share a seed in any realistic run).
TRIAL_STRIDE = 1_000_003

__all__ = [
    "MAX_EPISODE_STEPS",
    "SCHEMA",
    "EpisodeResult",
    "EvalReport",
    "StepRecord",
    "TaskSet",
    "agent_seed",
    "check_agent_fits",
    "episode_totals",
    "evaluate",
    "observation_digest",
    "resolve_tasks",
    "run_episode",
    "step_fields",
    "without_timings",
]


def observation_digest(observation: str) -> str:
    """Short, stable fingerprint of an observation (replays compare these).

    >>> observation_digest("board")
    '859169b38185780d'
    """
    return hashlib.sha256(observation.encode("utf-8", "surrogatepass")).hexdigest()[:16]


#: Fields of episodes (``wall_s``) and steps (``agent_s``, ``env_s``) that vary run to run.
TIMING_FIELDS = frozenset({"wall_s", "agent_s", "env_s"})


def without_timings(data: Any) -> Any:
    """A results file (or any part of it) with the timing fields dropped, for comparisons:
    two runs of the same evaluation differ only there.

    >>> without_timings({"episodes": [{"steps": 2, "wall_s": 0.1, "trace": [{"env_s": 0.0}]}]})
    {'episodes': [{'steps': 2, 'trace': [{}]}]}
    """
    if isinstance(data, dict):
        return {k: without_timings(v) for k, v in data.items() if k not in TIMING_FIELDS}
    if isinstance(data, list):
        return [without_timings(v) for v in data]
    return data


def agent_seed(task_seed: int, trial: int) -> int:
    """The agent's seed in trial ``trial`` of the task seeded ``task_seed``.

    >>> agent_seed(100000, 0), agent_seed(100000, 2)
    (100000, 2100006)
    """
    return task_seed + TRIAL_STRIDE * trial


@dataclass
class StepRecord:
    """One step of a trace (the fields of a trace entry of ``agentgym.eval/2``)."""

    action: str
    raw_text: str | None
    reward: float
    reward_components: dict[str, float]
    valid_action: bool
    action_error: str
    terminated: bool
    truncated: bool
    success: bool
    observation_sha: str
    prompt_tokens: int = 0
    completion_tokens: int = 0
    agent_s: float = 0.0
    env_s: float = 0.0


@dataclass
class EpisodeResult:
    """One played episode: which task and trial, its totals and its full trace."""

    episode: int
    task: int
    trial: int
    seed: int
    agent_seed: int
    success: bool = False
    episode_return: float = 0.0
    process_return: float = 0.0
    outcome_return: float = 0.0
    steps: int = 0
    invalid_actions: int = 0
    terminated: bool = False
    truncated: bool = False
    #: The agent gave up (AgentFailure); ``trace`` holds the steps done before.
    failed: bool = False
    failure: str = ""
    prompt_tokens: int = 0
    completion_tokens: int = 0
    wall_s: float = 0.0
    initial_observation_sha: str = ""
    #: What the env reported about the episode on its last step
    #: (:func:`agentgym.metrics.episode_extras`: Household's task type, SearchQA's F1).
    extras: dict[str, Any] = field(default_factory=dict)
    trace: list[StepRecord] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> EpisodeResult:
        """The episode a :meth:`to_json` dict describes (a journal line, a results entry)."""
        names = {f.name for f in fields(cls)}
        values = {k: v for k, v in data.items() if k in names and k != "trace"}
        return cls(**values, trace=[StepRecord(**s) for s in data.get("trace", [])])


@dataclass(frozen=True)
class TaskSet:
    """The tasks a run plays: the split's name (None: custom seeds), kwargs and seeds."""

    split: str | None
    env_kwargs: dict[str, Any]
    seeds: tuple[int, ...]


def _check_count(name: str, value: Any, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < minimum:
        what = {0: "a non-negative int", 1: "a positive int"}.get(minimum, f"an int >= {minimum}")
        raise ValueError(f"{name} must be {what}, got {value!r}")
    return int(value)


def resolve_tasks(
    env_id: str,
    *,
    split: str | None = None,
    limit: int | None = None,
    seed: int | None = None,
    episodes: int | None = None,
    env_kwargs: dict[str, Any] | None = None,
) -> TaskSet:
    """The task set of a run: a pinned split (its first ``limit`` tasks), or custom seeds.

    Custom seeds (``seed .. seed+episodes-1``; ``seed`` 0 and ``episodes`` 100 by default)
    are used when ``seed`` or ``episodes`` is given; otherwise the split named ``split`` (the
    env's first when None). ``env_kwargs`` update the split's kwargs.

    >>> tasks = resolve_tasks("agentgym/WebShop-v0", limit=2, env_kwargs={"num_products": 2000})
    >>> tasks.split, tasks.env_kwargs, tasks.seeds
    ('test', {'split': 'test', 'num_products': 2000}, (0, 1))
    >>> resolve_tasks("agentgym/Sokoban-v0", seed=5, episodes=2).seeds
    (5, 6)
    >>> resolve_tasks("agentgym/Sokoban-v0", limit=101)
    Traceback (most recent call last):
    ...
    ValueError: --limit 101 is over the 100 tasks of agentgym/Sokoban-v0's split 'test'
    """
    user_kwargs = dict(env_kwargs or {})
    if seed is not None or episodes is not None:
        if split is not None or limit is not None:
            raise ValueError(
                "give either a split (--split/--limit) or custom seeds (--seed/--episodes), "
                "not both"
            )
        seed = _check_count("seed", 0 if seed is None else seed, 0)
        episodes = _check_count("episodes", 100 if episodes is None else episodes, 1)
        return TaskSet(None, user_kwargs, tuple(range(seed, seed + episodes)))
    entry = entry_for(env_id)
    if entry is None:
        if env_id not in gym.registry:
            import agentgym

            known = ", ".join(agentgym.env_ids())
            raise ValueError(f"unknown env id {env_id!r}; agentgym ids: {known}")
        raise ValueError(
            f"{env_id} has no pinned evaluation splits (it is not in the agentgym registry); "
            "give --seed S --episodes N"
        )
    pinned = entry.split(split)
    seeds = pinned.seeds
    if limit is not None:
        limit = _check_count("--limit", limit, 1)
        if limit > len(seeds):
            raise ValueError(
                f"--limit {limit} is over the {len(seeds)} tasks of {env_id}'s split "
                f"{pinned.name!r}"
            )
        seeds = seeds[:limit]
    return TaskSet(pinned.name, {**pinned.kwargs, **user_kwargs}, seeds)


def _digest_obs(observation: Any) -> str:
    return observation_digest(str(observation))


def step_fields(
    observation: Any, reward: SupportsFloat, terminated: bool, truncated: bool,
    info: dict[str, Any], *, index: int,
) -> dict[str, Any]:
    """The fields of trace step ``index`` that the env decides, from what ``env.step`` returned.

    The eval's hard cap applies: the step that reaches :data:`MAX_EPISODE_STEPS` truncates.
    A replay calls this too, so it records exactly what the eval recorded.

    >>> info = {"reward_components": {"process": 1, "outcome": 0}, "valid_action": True,
    ...         "action_error": "", "success": False}
    >>> step_fields("obs", 1, False, False, info, index=0)["reward_components"]
    {'process': 1.0, 'outcome': 0.0}
    >>> step_fields("obs", 0, False, False, info, index=MAX_EPISODE_STEPS - 1)["truncated"]
    True
    """
    if index + 1 >= MAX_EPISODE_STEPS and not (terminated or truncated):
        truncated = True
    return {
        "reward": float(reward),
        "reward_components": {k: float(v) for k, v in info["reward_components"].items()},
        "valid_action": bool(info["valid_action"]),
        "action_error": str(info.get("action_error", "")),
        "terminated": bool(terminated),
        "truncated": bool(truncated),
        "success": bool(info.get("success", False)),
        "observation_sha": _digest_obs(observation),
    }


def _part(step: Mapping[str, Any], name: str) -> float:
    return float(step["reward_components"].get(name, 0.0))


def episode_totals(steps: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """An episode's totals from its trace steps, summed in step order.

    >>> t = episode_totals([{"reward": 0.5, "reward_components": {"process": 0.5, "outcome": 0.0},
    ...                      "valid_action": False, "terminated": False, "truncated": False,
    ...                      "success": False, "prompt_tokens": 3, "completion_tokens": 1},
    ...                     {"reward": 1.0, "reward_components": {"process": 0.0, "outcome": 1.0},
    ...                      "valid_action": True, "terminated": True, "truncated": False,
    ...                      "success": True, "prompt_tokens": 4, "completion_tokens": 2}])
    >>> t["episode_return"], t["invalid_actions"], t["success"], t["prompt_tokens"]
    (1.5, 1, True, 7)
    """
    last = steps[-1] if steps else {}
    return {
        "steps": len(steps),
        "invalid_actions": sum(not s["valid_action"] for s in steps),
        "episode_return": sum((float(s["reward"]) for s in steps), 0.0),
        "process_return": sum((_part(s, "process") for s in steps), 0.0),
        "outcome_return": sum((_part(s, "outcome") for s in steps), 0.0),
        "terminated": bool(last.get("terminated", False)),
        "truncated": bool(last.get("truncated", False)),
        "success": bool(last.get("success", False)),
        "prompt_tokens": sum(int(s.get("prompt_tokens", 0)) for s in steps),
        "completion_tokens": sum(int(s.get("completion_tokens", 0)) for s in steps),
    }


def run_episode(
    env: gym.Env,
    agent: Agent,
    *,
    seed: int,
    episode: int = 0,
    task: int = 0,
    trial: int = 0,
    agent_seed: int | None = None,
) -> EpisodeResult:
    """Play one episode of ``agent`` on ``env`` from ``reset(seed=seed)``.

    The agent is reset with ``agent_seed`` (``seed`` when None). An
    :class:`~agentgym.agents.base.AgentFailure` ends the episode as ``failed`` (with the
    reason) after the steps already done; any other exception propagates.
    """
    start = time.perf_counter()
    a_seed = seed if agent_seed is None else agent_seed
    observation, info = env.reset(seed=seed)
    result = EpisodeResult(
        episode=episode, task=task, trial=trial, seed=seed, agent_seed=a_seed,
        initial_observation_sha=_digest_obs(observation),
    )
    terminated = truncated = False
    try:
        agent.reset(env, seed=a_seed)
        while not (terminated or truncated):
            t0 = time.perf_counter()
            action = agent.act(observation, info)
            t1 = time.perf_counter()
            turn = agent.last_turn
            observation, reward, terminated, truncated, info = env.step(action)
            t2 = time.perf_counter()
            fields = step_fields(observation, reward, terminated, truncated, info,
                                 index=len(result.trace))
            truncated = fields["truncated"]
            result.trace.append(StepRecord(
                action=action, raw_text=turn.raw_text, **fields,
                prompt_tokens=int(turn.prompt_tokens),
                completion_tokens=int(turn.completion_tokens), agent_s=t1 - t0, env_s=t2 - t1,
            ))
    except AgentFailure as failure:
        result.failed, result.failure = True, failure.reason or type(failure).__name__
    for name, value in episode_totals([vars(step) for step in result.trace]).items():
        setattr(result, name, value)
    # An episode the agent gave up is never a success, whatever its last step said.
    result.success = result.success and not result.failed
    result.extras = episode_extras(info)
    result.wall_s = time.perf_counter() - start
    return result


@dataclass
class EvalReport:
    """All episodes of a run, their summary, and what produced them (``agentgym.eval/2``)."""

    env_id: str
    env_kwargs: dict[str, Any]
    split: str | None
    task_seeds: list[int]
    task_set_hash: str
    trials: int
    verifier: dict[str, Any]
    agent: dict[str, Any]
    episodes: list[EpisodeResult]
    summary: dict[str, Any]
    versions: dict[str, str]

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"schema": SCHEMA}
        for f in fields(self):
            value = getattr(self, f.name)
            data[f.name] = [e.to_json() for e in value] if f.name == "episodes" else value
        return data

    def write(self, path: str | Path) -> Path:
        """Write the results file (atomically: a reader never sees half of it)."""
        path = Path(path)
        if path.parent != Path():
            path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(path.name + ".tmp")
        tmp.write_text(json.dumps(self.to_json(), indent=1) + "\n")
        os.replace(tmp, path)
        return path


def check_agent_fits(agent: Agent, env_id: str) -> None:
    """Raise ``ValueError`` when ``agent`` declares families and ``env_id`` is in none of them.

    An agent written for one family (``webshop-rule`` reads WebShop's page model) would
    otherwise play any other env at 100% invalid actions, silently.

    >>> from agentgym.agents import make_agent
    >>> check_agent_fits(make_agent("webshop-rule"), "agentgym/Sokoban-v0")
    Traceback (most recent call last):
    ...
    ValueError: agent 'webshop-rule' plays only webshop envs; agentgym/Sokoban-v0 is a games env
    """
    if not agent.families:
        return
    family = family_of(env_id)
    if family not in agent.families:
        fits = " or ".join(agent.families)
        what = f"a {family} env" if family else "not in the agentgym registry"
        raise ValueError(f"agent {agent.name!r} plays only {fits} envs; {env_id} is {what}")


def versions() -> dict[str, str]:
    """Versions that a reader of a result file needs to reproduce it."""
    import agentgym

    return {
        "agentgym": agentgym.__version__,
        "gymnasium": gym.__version__,
        "numpy": np.__version__,
        "python": platform.python_version(),
    }


def _verifier(env: gym.Env) -> dict[str, Any]:
    # What every step's info["verifier"] says (core.TextEnv._info), read without a reset:
    # resetting a terminal env would start a sandbox just to learn a name.
    base = env.unwrapped
    assert isinstance(base, TextEnv)  # evaluate makes its env with make_text_env
    return {
        "name": base.verifier_name,
        "version": base.verifier_version,
        "process_scored": bool(getattr(base, "score_process", True)),
    }


@dataclass(frozen=True)
class _Job:
    episode: int
    task: int
    trial: int
    seed: int
    agent_seed: int


def _jobs(seeds: tuple[int, ...], trials: int) -> list[_Job]:
    return [
        _Job(i * trials + t, i, t, s, agent_seed(s, t))
        for i, s in enumerate(seeds)
        for t in range(trials)
    ]


def _play(env: gym.Env, agent: Agent, job: _Job) -> EpisodeResult:
    return run_episode(env, agent, seed=job.seed, episode=job.episode, task=job.task,
                       trial=job.trial, agent_seed=job.agent_seed)


# -- worker processes ---------------------------------------------------------------------
# Each worker builds its env and agent once (the initializer) and plays the jobs it is sent.
_WORKER: dict[str, Any] = {}


def _worker_init(env_id: str, env_kwargs: dict[str, Any], agent: Agent | tuple[str, dict]) -> None:
    from multiprocessing.util import Finalize

    env = _WORKER["env"] = make_text_env(env_id, env_kwargs)
    _WORKER["agent"] = make_agent(agent[0], **agent[1]) if isinstance(agent, tuple) else agent
    # Pool workers end with os._exit, past atexit; multiprocessing's finalizers still run, so
    # the env's sandbox or browser is closed there.
    Finalize(None, env.close, exitpriority=10)
    closer = getattr(_WORKER["agent"], "close", None)
    if callable(closer):
        Finalize(None, closer, exitpriority=10)


def _worker_play(job: _Job) -> dict[str, Any]:
    return _play(_WORKER["env"], _WORKER["agent"], job).to_json()


def _run_parallel(
    env_id: str,
    env_kwargs: dict[str, Any],
    agent_spec: Agent | tuple[str, dict],
    jobs: list[_Job],
    workers: int,
    done: Callable[[EpisodeResult], None],
) -> None:
    import multiprocessing

    # spawn, not fork: a forked child of a process that has run torch's thread pool can hang.
    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(
        max_workers=min(workers, len(jobs)), mp_context=context,
        initializer=_worker_init, initargs=(env_id, env_kwargs, agent_spec),
    ) as pool:
        pending = {pool.submit(_worker_play, job) for job in jobs}
        try:
            while pending:
                finished, pending = wait(pending, return_when=FIRST_COMPLETED)
                for future in finished:
                    done(EpisodeResult.from_json(future.result()))
        except BaseException:
            for future in pending:
                future.cancel()
            raise


@contextmanager
def _progress(enabled: bool, total: int, completed: int, label: str) -> Iterator[Any]:
    with progress_bar(enabled) as progress:
        task = progress.add_task(label, total=total, completed=completed)
        yield lambda: progress.advance(task)


def evaluate(
    env_id: str,
    agent: str | Agent,
    *,
    split: str | None = None,
    limit: int | None = None,
    seed: int | None = None,
    episodes: int | None = None,
    trials: int = 1,
    env_kwargs: dict[str, Any] | None = None,
    agent_options: dict[str, Any] | None = None,
    workers: int = 1,
    out: str | Path | None = None,
    progress: bool = True,
) -> EvalReport:
    """Play ``agent`` over a task set (see :func:`resolve_tasks`), ``trials`` times per task.

    ``agent`` is a name (made with ``agent_options`` by :func:`agentgym.agents.make_agent`,
    in each worker when ``workers > 1``) or an agent object (pickled to the workers).
    With ``out``, finished episodes are journalled next to it and the results file is written
    there at the end (the journal is then removed); an interrupted run given the same
    arguments again continues from its journal.

    Workers are *spawned* processes (a forked child of a process that ran torch can hang):
    a script calling ``evaluate(..., workers=N)`` needs the ``if __name__ == "__main__":``
    guard, and its env id must be registered on ``import agentgym`` (or by a module the
    agent's or env's import pulls in), as for any spawned multiprocessing code.

    Raises:
        ValueError: a bad split, limit, count, seed, trials or workers, an unknown agent or
            agent option, an id that is not an agentgym text env, an unknown kwarg, an agent
            that does not fit the env's family, or a journal of another run at ``out``; all
            before any episode is played.
    """
    tasks = resolve_tasks(env_id, split=split, limit=limit, seed=seed, episodes=episodes,
                          env_kwargs=env_kwargs)
    trials = _check_count("trials", trials, 1)
    workers = _check_count("workers", workers, 1)
    options = dict(agent_options or {})
    if isinstance(agent, str):
        agent_obj = make_agent(agent, **options)
        agent_spec: Agent | tuple[str, dict] = (agent, options)
    else:
        if options:
            raise ValueError("agent_options apply to an agent given by name only")
        agent_obj = agent_spec = agent
    check_agent_fits(agent_obj, env_id)
    env: gym.Env | None = make_text_env(env_id, tasks.env_kwargs)
    try:
        header = {
            "schema": SCHEMA,
            "env_id": env_id,
            "env_kwargs": tasks.env_kwargs,
            "split": tasks.split,
            "task_seeds": list(tasks.seeds),
            "task_set_hash": task_set_hash(env_id, tasks.env_kwargs, tasks.seeds),
            "trials": trials,
            "verifier": _verifier(env),
            "agent": agent_obj.describe(),
        }
        jobs = _jobs(tasks.seeds, trials)
        journal = Journal.open(journal_path(out), header, len(jobs)) if out is not None else None
        results: dict[int, EpisodeResult] = {}
        if journal is not None:
            results.update({e["episode"]: EpisodeResult.from_json(e) for e in journal.episodes})
        todo = [job for job in jobs if job.episode not in results]
        label = f"{agent_obj.name} on {env_id}"
        with _progress(progress, len(jobs), len(results), label) as advance:

            def done(result: EpisodeResult) -> None:
                results[result.episode] = result
                if journal is not None:
                    journal.append(result.to_json())
                advance()

            if workers > 1 and len(todo) > 1:
                env.close()  # the workers make their own
                env = None
                _run_parallel(env_id, tasks.env_kwargs, agent_spec, todo, workers, done)
            else:
                assert env is not None
                for job in todo:
                    done(_play(env, agent_obj, job))
    finally:
        if env is not None:
            env.close()
        closer = getattr(agent_obj, "close", None)
        if callable(closer):
            closer()
    played = [results[job.episode] for job in jobs]
    report = EvalReport(
        **{k: v for k, v in header.items() if k != "schema"},
        episodes=played,
        # vars, not to_json: the summary reads the totals, and asdict would copy every trace.
        summary=summarise([vars(e) for e in played], trials=trials,
                          family=family_of(env_id)),
        versions=versions(),
    )
    if out is not None:
        report.write(out)
        assert journal is not None
        journal.remove()
    return report
