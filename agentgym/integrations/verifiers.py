"""Any agentgym env as a verifiers (``verifiers`` >= 0.4, ``verifiers.v1``) taskset and env.

verifiers (Prime Intellect's environments library) splits an environment into a *taskset*
(data: ``vf.Taskset.load()`` yields ``vf.Task`` s), an *env* (``vf.Env.run(task, agents)``:
how one task becomes one episode) and the agents that play it (a harness x model x runtime).
Here:

* :class:`AgentgymTaskset` yields one task per seed of an env id (``env_id``, ``seeds`` or
  ``num_tasks`` + ``seed``, ``env_kwargs``, ``reward``, ``server_url`` / ``token``). A task
  carries its seed, so every rollout of a group (``-r n``) plays the same game.
* :class:`AgentgymEnv` plays one episode: it resets the env with the task's seed, sends the
  observation as the user turn, steps the env once per model reply (``Segment.last_reply``),
  and sends back the next observation until the env ends the episode (or the agent's
  ``max_turns`` does). The env runs in-process (``gym.make``) or on ``agentgym serve``
  (``server_url=``: a :class:`agentgym.remote.RemoteEnv`); its calls run off the event loop.
* The reward: the env's own reward mode picks the signal, as everywhere in agentgym:
  ``reward="both"`` / ``"process"`` / ``"outcome"`` is passed as the env's ``reward_mode``,
  and the episode's sum of step rewards is recorded as the trace's one reward,
  ``agentgym_reward`` (weight 1). The metrics: ``success`` (``info["success"]``), ``steps``,
  ``invalid_actions`` and each reward component summed over the episode
  (``reward_process``, ``reward_outcome``, ...); ``trace.info["agentgym"]`` keeps the per-step
  rewards, the seed and how the episode ended.
* :class:`ChatHarness` (``id="agentgym-verifiers"``, the taskset's default harness): one chat
  completion per turn, made in-process through the rollout's interception endpoint (no program,
  no sandbox, no tools). Any verifiers harness that can host a user works too
  (``player=vf.AgentConfig(harness=..., runtime=...)``; verifiers' ``null`` is the same loop run
  as a uv script in a runtime).

verifiers finds a taskset by a plugin id that is an importable top-level module, so the id is
``agentgym-verifiers`` (module ``agentgym_verifiers``, which re-exports this one)::

    vf-eval agentgym-verifiers --env.taskset.env-id agentgym/TicTacToe-v0 \\
        --env.taskset.num-tasks 8 -m MODEL --client.base-url URL -r 4

In Python (``model`` an OpenAI-compatible endpoint)::

    import asyncio, verifiers.v1 as vf
    from agentgym.integrations.verifiers import environment

    env = environment("agentgym/TicTacToe-v0", seeds=[0, 1], reward="outcome")
    ctx = vf.ModelContext(model="my-model", client=vf.EvalClientConfig(
        base_url="http://127.0.0.1:8001/v1", api_key_var="OPENAI_API_KEY"))

    async def main():
        async with env.serving():
            for task in env.taskset:
                episode = await env.run_episode(task, ctx)
                trace = episode.traces[0]
                print(trace.reward, trace.metrics["success"])

    asyncio.run(main())

>>> data = [t.data for t in AgentgymTaskset(AgentgymTasksetConfig(
...     id=TASKSET_ID, env_id="agentgym/TicTacToe-v0", num_tasks=2, seed=5))]
>>> [(d.name, d.seed, d.reward) for d in data]
[('agentgym/TicTacToe-v0#5', 5, 'both'), ('agentgym/TicTacToe-v0#6', 6, 'both')]
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable, Iterator
from typing import Any, Literal, Self

import gymnasium as gym
import httpx

# verifiers lives in .venv-verifiers (it cannot share the dev venv, see pyproject's extras),
# so pyright, run on .venv, cannot resolve it.
import verifiers.v1 as vf  # pyright: ignore[reportMissingImports]
from pydantic import Field, model_validator
from verifiers.v1.dialects.chat import message_to_wire  # pyright: ignore[reportMissingImports]

import agentgym  # noqa: F401  (registers the agentgym/* ids with Gymnasium)
from agentgym.rewards import REWARD_MODES

__all__ = [
    "TASKSET_ID",
    "AgentgymData",
    "AgentgymEnv",
    "AgentgymEnvConfig",
    "AgentgymTask",
    "AgentgymTaskset",
    "AgentgymTasksetConfig",
    "ChatHarness",
    "ChatHarnessConfig",
    "environment",
]

#: verifiers' plugin id of this taskset (the top-level module ``agentgym_verifiers``).
TASKSET_ID = "agentgym-verifiers"

RewardMode = Literal["both", "process", "outcome"]


class AgentgymTasksetConfig(vf.TasksetConfig):
    """Which episodes: ``--env.taskset.*`` on verifiers' command line."""

    env_id: str = "agentgym/TicTacToe-v0"
    """The agentgym id (``agentgym list``)."""
    seeds: list[int] | None = None
    """The tasks' seeds; None: ``num_tasks`` seeds from ``seed`` on."""
    num_tasks: int = Field(16, ge=1)
    seed: int = Field(0, ge=0)
    env_kwargs: dict[str, Any] = Field(default_factory=dict)
    """The env's kwargs (``max_steps``, a family's options); not ``reward_mode``: ``reward``."""
    reward: RewardMode = "both"
    """agentgym's reward mode: process (shaping), outcome (the verdict) or both (their sum)."""
    server_url: str | None = None
    """An ``agentgym serve`` URL: the env runs there (None: in this process)."""
    token_var: str = "AGENTGYM_TOKEN"
    """The environment variable holding the server's bearer token (read when the env is made;
    never stored in the config, the tasks or the traces)."""

    @model_validator(mode="after")
    def _check(self) -> Self:
        if "reward_mode" in self.env_kwargs:
            raise ValueError("set the reward mode with `reward`, not env_kwargs['reward_mode']")
        if self.seeds is not None and (not self.seeds or min(self.seeds) < 0):
            raise ValueError("seeds must be a non-empty list of non-negative integers")
        if self.env_id not in gym.registry and self.server_url is None:
            raise ValueError(f"{self.env_id!r} is not a registered id (see `agentgym list`)")
        return self


class AgentgymData(vf.TaskData):
    """One task: an env id, a seed and how to make the env."""

    env_id: str
    seed: int
    env_kwargs: dict[str, Any] = Field(default_factory=dict)
    reward: RewardMode = "both"
    server_url: str | None = None
    token_var: str = "AGENTGYM_TOKEN"


class AgentgymTask(vf.Task[AgentgymData, vf.State, vf.TaskConfig]):
    """A seeded agentgym episode (the env speaks first: the task has no prompt)."""


class AgentgymTaskset(vf.Taskset[AgentgymTask, AgentgymTasksetConfig]):
    """One :class:`AgentgymTask` per seed (see :class:`AgentgymTasksetConfig`)."""

    def load(self) -> Iterator[AgentgymTask]:
        config = self.config
        seeds = config.seeds if config.seeds is not None else range(
            config.seed, config.seed + config.num_tasks)
        for seed in seeds:
            yield AgentgymTask(AgentgymData(
                name=f"{config.env_id}#{seed}", env_id=config.env_id, seed=seed,
                env_kwargs=config.env_kwargs, reward=config.reward,
                server_url=config.server_url, token_var=config.token_var,
            ), config.task)


def make_env(data: AgentgymData) -> gym.Env:
    """The task's env: local, or a session on ``data.server_url`` (token from ``token_var``)."""
    import os

    kwargs: dict[str, Any] = {**data.env_kwargs, "reward_mode": data.reward}
    if data.server_url is not None:
        kwargs["server_url"] = data.server_url
        token = os.environ.get(data.token_var)
        if token:
            kwargs["token"] = token
    return gym.make(data.env_id, **kwargs)


def system_prompt(env: gym.Env) -> str | None:
    """The env's rules for the system turn (None where the env has none, e.g. remote)."""
    # TextEnv.system_prompt's type; gym.Env does not declare it, so getattr says Any.
    prompt: Callable[[], str] | None = getattr(env.unwrapped, "system_prompt", None)
    text = prompt() if callable(prompt) else None
    return text or None


class AgentgymEnvConfig(vf.EnvConfig):
    """The env's one seat, ``player``: a subprocess runtime by default (the chat loop runs no
    code); ``--env.player.*`` sets its harness, model and limits (``max_turns``)."""

    player: vf.AgentConfig = vf.AgentConfig(runtime=vf.SubprocessConfig())


def _totals(infos: list[dict[str, Any]]) -> dict[str, float]:
    totals: dict[str, float] = {}
    for info in infos:
        for name, value in (info.get("reward_components") or {}).items():
            totals[name] = totals.get(name, 0.0) + float(value)
    return totals


class AgentgymEnv(vf.Env[AgentgymEnvConfig]):
    """One agentgym episode per task: one env step per model reply (see the module docstring)."""

    async def run(self, task: AgentgymTask, agents: vf.Agents) -> None:
        data = task.data
        env = await asyncio.to_thread(make_env, data)
        rewards: list[float] = []
        infos: list[dict[str, Any]] = []
        ended = "max_turns"
        try:
            observation, info = await asyncio.to_thread(env.reset, seed=data.seed)
            rules = system_prompt(env)
            # The episode's system turn is the env's rules; the env speaks first (no prompt).
            played = task.with_data(prompt=None, system_prompt=rules or data.system_prompt)
            async with agents.player.interaction(played) as interaction:
                segment = await interaction.turn(observation)
                while not segment.terminated:
                    observation, reward, terminated, truncated, info = await asyncio.to_thread(
                        env.step, segment.last_reply)
                    rewards.append(float(reward))
                    infos.append(info)
                    if terminated or truncated:
                        ended = "terminated" if terminated else "truncated"
                        break
                    segment = await interaction.turn(observation)
                trace = interaction.trace
                # Recorded before the interaction closes: closing runs the task's scoring.
                trace.record_reward("agentgym_reward", sum(rewards))
                trace.record_metric("success", float(bool(info.get("success", False))))
                trace.record_metric("steps", len(rewards))
                trace.record_metric("invalid_actions", float(info.get("invalid_actions", 0)))
                for name, value in _totals(infos).items():
                    trace.record_metric(f"reward_{name}", value)
                trace.info["agentgym"] = {
                    "env_id": data.env_id, "seed": data.seed, "reward_mode": data.reward,
                    "rewards": rewards, "ended": ended,
                    "remote": data.server_url is not None,
                }
        finally:
            with contextlib.suppress(Exception):  # a server gone already is fine
                await asyncio.to_thread(env.close)


class ChatHarnessConfig(vf.HarnessConfig):
    """The in-process chat loop: nothing to set beyond verifiers' harness knobs."""


class ChatHarness(vf.Harness[ChatHarnessConfig]):
    """One chat completion per turn, in-process, through the rollout's interception endpoint.

    verifiers records every model call at the interception server (the trace, token counts,
    the training client's token ids), so a harness may run its loop in-process as long as the
    calls go there (``vf.Harness.launch``'s contract): this one posts the conversation to
    ``{endpoint}/chat/completions`` and returns. No tools, no program, no sandbox.
    """

    APPENDS_SYSTEM_PROMPT = True
    SUPPORTS_RESUME = True
    EXECUTES_CODE = False
    NEEDS_CONTAINER = False

    async def launch(self, ctx: vf.ModelContext, trace: vf.Trace, runtime: vf.Runtime,
                     endpoint: str, secret: str, mcp_urls: dict[str, str],
                     data: vf.TaskData, tool_interception_url: str | None = None,
                     ) -> vf.ProgramResult:
        system, prompt = self.resolve_prompt(data)
        messages: list[dict[str, Any]] = [{"role": "system", "content": system}] if system else []
        if isinstance(prompt, str):
            messages.append({"role": "user", "content": prompt})
        elif prompt is not None:
            messages.extend(message_to_wire(m) for m in prompt)
        async with httpx.AsyncClient(timeout=None) as client:
            response = await client.post(
                f"{endpoint.rstrip('/')}/chat/completions",
                headers={"Authorization": f"Bearer {secret}"},
                json={"model": ctx.model, "messages": messages})
        if response.status_code >= 400:
            return vf.ProgramResult(1, "", f"model call failed ({response.status_code}): "
                                           f"{response.text[:500]}")
        return vf.ProgramResult(0, response.text, "")


def environment(env_id: str, *, seeds: list[int] | None = None, num_tasks: int = 16,
                seed: int = 0, reward: RewardMode = "both", server_url: str | None = None,
                env_kwargs: dict[str, Any] | None = None,
                player: vf.AgentConfig | None = None, **config: Any) -> AgentgymEnv:
    """An :class:`AgentgymEnv` for ``env_id``, local or on ``server_url`` (see the module
    docstring); ``player`` replaces the default seat, ``config`` goes to the env's config."""
    if reward not in REWARD_MODES:
        raise ValueError(f"reward must be one of {REWARD_MODES}, got {reward!r}")
    taskset = AgentgymTasksetConfig(
        id=TASKSET_ID, env_id=env_id, seeds=seeds, num_tasks=num_tasks, seed=seed,
        reward=reward, server_url=server_url, env_kwargs=env_kwargs or {})
    seat = {"player": player} if player is not None else {}
    return AgentgymEnv(AgentgymEnvConfig(taskset=taskset, **seat, **config))
