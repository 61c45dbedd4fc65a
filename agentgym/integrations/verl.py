"""Any agentgym env as a verl agent loop (``verl`` 0.9, in its own venv: see docs/frameworks.md).

What verl does with an agent loop (``verl.experimental.agent_loop``): its ``AgentLoopWorker``
instantiates the class named in the agent-loop config (``name`` + ``_target_``) once per
sample, with the trainer config, an LLM server client, the tokenizer and the data config, and
awaits ``run(sampling_params, **row)``, where ``row`` is the dataset row (``raw_prompt``,
``extra_info``, ``agent_name``...). ``run`` returns an ``AgentLoopOutput``: prompt and response
token ids, the response mask (1 = the model's tokens, 0 = the env's), a ``reward_score`` and
``extra_fields``. verl 0.9 has no separate multi-turn "interaction" interface any more; the
agent loop is where an env lives.

``AgentgymAgentLoop`` plays one agentgym episode per sample: the first observation is appended
to the row's prompt as a user turn, each generation is one env step (the ``<action>`` tag or
the bare text), each next observation is appended as a user turn (masked out), until the
episode ends or the response budget is spent. ``reward_score`` is the sum of the env's step
rewards in the mode chosen by ``reward`` (``"both"``, ``"process"`` or ``"outcome"``);
``extra_fields`` keeps ``turn_scores`` (each step's reward), ``reward_extra_info`` (success
and the summed reward components, which verl logs as metrics) and the env's last ``info``.
The row's ``extra_info`` names the env: ``env_id``, ``seed`` (every sample of a group reads the
same row, so plays the same task), and optionally ``reward``, ``server_url`` (an ``agentgym
serve`` URL), ``env_kwargs``.

The module imports verl only when the loop class is first used, so ``agentgym`` itself never
needs it. verl's agent-loop config (``actor_rollout_ref.rollout.agent.agent_loop_config_path``)::

    - name: agentgym
      _target_: agentgym.integrations.verl.AgentgymAgentLoop

and its rows from :func:`dataset_rows` (``agent_name: agentgym``).

>>> row = dataset_rows("agentgym/TicTacToe-v0", [4], reward="outcome")[0]
>>> row["agent_name"], row["extra_info"]
('agentgym', {'env_id': 'agentgym/TicTacToe-v0', 'seed': 4, 'reward': 'outcome'})
"""

from __future__ import annotations

import functools
from collections.abc import Iterable
from typing import Any
from uuid import uuid4

from agentgym.integrations.episodes import Episode, make_env, seed_from, system_prompt

# AgentgymAgentLoop is public too; it is built on first access (module __getattr__).
__all__ = ["AGENT_NAME", "dataset_rows", "episode_options"]

#: The agent name rows carry and the agent-loop config registers.
AGENT_NAME = "agentgym"
_OPTIONS = ("env_id", "seed", "reward", "server_url", "token", "env_kwargs")


def episode_options(row: dict[str, Any]) -> dict[str, Any]:
    """What a dataset row's ``extra_info`` says about the episode: the id, the seed and the
    env options; unknown keys are refused (a misspelt ``reward`` would train on another signal).

    >>> episode_options({"extra_info": {"env_id": "agentgym/TicTacToe-v0", "seed": 2}})
    {'env_id': 'agentgym/TicTacToe-v0', 'seed': 2}
    >>> episode_options({"extra_info": {"env_id": "x", "rewards": "outcome"}})
    Traceback (most recent call last):
    ...
    ValueError: unknown extra_info keys ['rewards']; known: env_id, seed, reward, ...
    """
    extra = row.get("extra_info")
    if not isinstance(extra, dict) or not extra.get("env_id"):
        raise ValueError("the row's extra_info must name the env: {'env_id': ..., 'seed': ...}")
    unknown = sorted(set(extra) - set(_OPTIONS) - {"index", "split"})
    if unknown:
        raise ValueError(f"unknown extra_info keys {unknown}; known: {', '.join(_OPTIONS)}")
    options = {k: extra[k] for k in _OPTIONS if extra.get(k) is not None}
    if "seed" in options:
        options["seed"] = seed_from({"seed": options["seed"]})
    return options


def dataset_rows(
    env_id: str, seeds: Iterable[int], *, system: str | None = None, **options: Any
) -> list[dict[str, Any]]:
    """verl dataset rows, one per seed: the env's rules as the system turn of ``prompt``, the
    episode in ``extra_info`` (``options``: ``reward``, ``server_url``, ``env_kwargs``)."""
    checked = [seed_from({"seed": s}) for s in seeds]  # a seed that is not an int >= 0 raises
    if not checked:
        raise ValueError("seeds must not be empty")
    if system is None:
        env = make_env(env_id, **{k: v for k, v in options.items() if k != "token"})
        try:
            system = system_prompt(env)
        finally:
            env.close()
    return [{"prompt": [{"role": "system", "content": system}], "agent_name": AGENT_NAME,
             "data_source": env_id, "extra_info": {"env_id": env_id, "seed": s, **options}}
            for s in checked]


@functools.cache
def _loop_class() -> type:
    try:
        # verl lives in its own venv (scripts/setup_frameworks.sh), so pyright, run on .venv,
        # cannot resolve it.
        from verl.experimental.agent_loop.agent_loop import (  # pyright: ignore[reportMissingImports]
            AgentLoopBase,
            AgentLoopOutput,
        )
    except ImportError as error:
        raise ImportError(
            "agentgym.integrations.verl needs verl (bash scripts/setup_frameworks.sh verl makes "
            "a venv with it; see docs/frameworks.md)"
        ) from error

    class AgentgymAgentLoop(AgentLoopBase):
        """One agentgym episode per sample; see :mod:`agentgym.integrations.verl`."""

        def __init__(self, *args: Any, **kwargs: Any) -> None:
            kwargs.pop("tools", None)  # verl hands every loop its tool list; the env is ours
            super().__init__(*args, **kwargs)
            self.response_length = int(self.rollout_config.response_length)
            self._remote = False

        async def _blocking(self, fn: Any, *args: Any) -> Any:
            # A remote env waits on the network: off the event loop, which the other samples'
            # generations share. A local step is short CPU work, cheaper inline than handed to
            # a thread (the hop cost ~0.1 ms a step here).
            if not self._remote:
                return fn(*args)
            return await self.loop.run_in_executor(None, fn, *args)

        async def run(self, sampling_params: dict[str, Any], **row: Any) -> AgentLoopOutput:
            options = episode_options(row)
            self._remote = options.get("server_url") is not None
            env = await self._blocking(functools.partial(
                make_env, options["env_id"], reward=options.get("reward", "both"),
                server_url=options.get("server_url"), token=options.get("token"),
                env_kwargs=options.get("env_kwargs")))
            try:
                return await self._play(env, options.get("seed"), sampling_params, row)
            finally:
                await self._blocking(env.close)

        async def _play(self, env: Any, seed: int | None, sampling_params: dict[str, Any],
                        row: dict[str, Any]) -> AgentLoopOutput:
            episode = await self._blocking(Episode.start, env, seed)
            messages = [*list(row.get("raw_prompt") or []),
                        {"role": "user", "content": episode.observation}]
            prompt_ids = await self.ct_build_initial_tokens(messages)
            tokens, mask, logprobs = list(prompt_ids), [], None
            generations = 0
            while not episode.done and len(mask) < self.response_length:
                output = await self.server_manager.generate(
                    request_id=uuid4().hex, prompt_ids=tokens, sampling_params=sampling_params)
                generations += 1
                # verl keeps log-probs only when the server sends them (then for every token).
                merged, mask, logprobs = await self.ct_merge_assistant_token(
                    tokens, output.token_ids, mask,
                    (logprobs or [0.0] * len(mask)) if output.log_probs else None,
                    assistant_logprobs=output.log_probs or None)
                tokens = merged.token_ids
                text = self.tokenizer.decode(output.token_ids, skip_special_tokens=True)
                step = await self._blocking(episode.step, text)
                if step.done:
                    break
                replied = [*messages, {"role": "assistant", "content": text}]
                turn = [*replied, {"role": "user", "content": step.observation}]
                merged, mask, logprobs = await self.ct_merge_context_msg(
                    replied, turn, tokens, mask, logprobs)
                tokens, messages = merged.token_ids, turn
            response = tokens[len(prompt_ids):]
            n = self.response_length
            return AgentLoopOutput(
                prompt_ids=list(prompt_ids), response_ids=response[:n], response_mask=mask[:n],
                response_logprobs=logprobs[:n] if logprobs else None,
                reward_score=float(sum(episode.rewards)), num_turns=2 * generations + 1,
                metrics={},
                extra_fields={"turn_scores": list(episode.rewards), "tool_rewards": [],
                              "reward_extra_info": episode.metrics(),
                              "agentgym_info": episode.info, "seed": seed})

    # Named as imported (agentgym.integrations.verl.AgentgymAgentLoop), so Hydra's _target_ and
    # pickling find it again.
    AgentgymAgentLoop.__qualname__ = "AgentgymAgentLoop"
    return AgentgymAgentLoop


def __getattr__(name: str) -> Any:
    # Hydra's `_target_` import (getattr on this module) builds the class once verl imports.
    if name == "AgentgymAgentLoop":
        return _loop_class()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
