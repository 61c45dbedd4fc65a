"""Any agentgym env as a NeMo Gym resources server (``nemo-gym`` 0.7, in its own venv: see
docs/frameworks.md).

What NeMo Gym does with a Gymnasium-style env (``resources_servers.gymnasium``): its
``gymnasium_agent`` posts ``/reset`` with the JSONL row's extra fields, then, after each model
response, ``/step`` with that response; the server answers ``(observation, reward, terminated,
truncated, info)``, the agent appends the observation as a user turn, sums the rewards and
keeps the last step's ``info`` in its run response. A session cookie ties the requests of one
rollout together.

``AgentgymGymnasiumServer`` is that server for one agentgym id: each NeMo Gym session gets its
own env (local, or a session on ``agentgym serve`` when ``server_url`` is set), the model's
text is the action (the ``<action>`` tag or the bare text), the reward is the env's step
reward in the mode chosen by ``reward`` (``"both"``, ``"process"`` or ``"outcome"``), and the
row's ``seed`` seeds the episode, so every rollout of a row plays the same task. Each step's
``info`` keeps ``success`` and ``reward_components``; the last one adds ``episode``, the
episode's summed components, return, success, invalid actions and steps.

The module imports NeMo Gym only when the server class is first used, so ``agentgym`` itself
never needs it. A resources server's ``app.py``::

    from agentgym.integrations.nemo_gym import AgentgymGymnasiumServer

    if __name__ == "__main__":
        AgentgymGymnasiumServer.run_webserver()

and its config (``configs/agentgym.yaml``; ``server_url: http://127.0.0.1:8000`` plays on
``agentgym serve``)::

    agentgym_tictactoe:
      resources_servers:
        agentgym:
          entrypoint: app.py
          domain: games
          env_id: agentgym/TicTacToe-v0
          reward: both

with ``gymnasium_agent`` as its agent and rows from :func:`dataset_rows`.

>>> rows = dataset_rows("agentgym/TicTacToe-v0", [0, 1])
>>> [row["seed"] for row in rows], rows[0]["responses_create_params"]["input"][0]["role"]
([0, 1], 'system')
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Iterable
from typing import Any

from agentgym.integrations.episodes import Episode, make_env, seed_from, system_prompt

# AgentgymGymnasiumServer and AgentgymServerConfig are public too; they are built on first
# access (module __getattr__), so they cannot stand in __all__.
__all__ = ["dataset_rows", "step_info"]

#: Keys of the env's ``info`` a step passes on (all JSON).
_INFO_KEYS = ("success", "reward_components", "valid_action", "action_error",
              "invalid_actions", "step", "steps_left", "truncated_by")


def step_info(info: dict[str, Any], episode: Episode | None = None) -> dict[str, Any]:
    """The ``info`` a step answers: the env's contract keys, plus ``episode`` (its metrics)
    once the episode is over (``episode`` given).

    >>> step_info({"success": True, "reward_components": {"process": 0.0, "outcome": 1.0},
    ...            "page": "html"})
    {'success': True, 'reward_components': {'process': 0.0, 'outcome': 1.0}}
    """
    kept = {key: info[key] for key in _INFO_KEYS if key in info}
    if episode is not None:
        kept["episode"] = episode.metrics()
    return kept


def dataset_rows(
    env_id: str, seeds: Iterable[int], *, system: str | None = None, **env_options: Any
) -> list[dict[str, Any]]:
    """JSONL rows for NeMo Gym: one per seed, the env's rules as the system turn.

    ``system`` None reads the env's own rules (``env_options``: ``reward``, ``server_url``,
    ``env_kwargs``, as for the server, used only to read them). The first observation comes
    from ``/reset``, after the row's input.
    """
    checked = [seed_from({"seed": s}) for s in seeds]  # a seed that is not an int >= 0 raises
    if not checked:
        raise ValueError("seeds must not be empty")
    if system is None:
        env = make_env(env_id, **env_options)
        try:
            system = system_prompt(env)
        finally:
            env.close()
    return [{"responses_create_params": {"input": [{"role": "system", "content": system}]},
             "seed": s} for s in checked]


@functools.cache
def _classes() -> tuple[type, type]:
    """Build the config and server classes on first use (they subclass NeMo Gym's)."""
    try:
        from fastapi import HTTPException

        # nemo-gym lives in its own venv (scripts/setup_frameworks.sh), so pyright, run on
        # .venv, cannot resolve it (resources_servers comes with it).
        from nemo_gym.base_resources_server import (  # pyright: ignore[reportMissingImports]
            BaseResourcesServerConfig,
        )
        from nemo_gym.openai_utils import NeMoGymResponse  # pyright: ignore[reportMissingImports]
        from pydantic import Field
        from resources_servers.gymnasium import (  # pyright: ignore[reportMissingImports]
            GymnasiumServer,
            extract_text,
        )
    except ImportError as error:
        raise ImportError(
            "agentgym.integrations.nemo_gym needs nemo-gym (bash scripts/setup_frameworks.sh "
            "nemo-gym makes a venv with it; see docs/frameworks.md)"
        ) from error
    from typing import Literal

    class AgentgymServerConfig(BaseResourcesServerConfig):
        """The resources server's config: which env, which reward, where it runs."""

        env_id: str
        reward: Literal["both", "process", "outcome"] = "both"
        server_url: str | None = None
        token: str | None = None
        env_kwargs: dict[str, Any] = Field(default_factory=dict)
        seed: int | None = Field(default=None, ge=0)

    class AgentgymGymnasiumServer(GymnasiumServer):
        """One agentgym env per NeMo Gym session; see :mod:`agentgym.integrations.nemo_gym`."""

        ray_enabled = False
        config: AgentgymServerConfig

        def _make(self) -> Any:
            c = self.config
            return make_env(c.env_id, reward=c.reward, server_url=c.server_url, token=c.token,
                            env_kwargs=c.env_kwargs)

        async def _run(self, fn: Any, *args: Any) -> Any:
            # A remote env waits on the network: off the event loop, so other sessions go on.
            # A local step is short CPU work, cheaper inline than handed to a thread.
            if self.config.server_url is None:
                return fn(*args)
            return await asyncio.to_thread(fn, *args)

        async def reset(
            self, metadata: dict, session_id: str | None = None
        ) -> tuple[str | None, dict]:
            if session_id is None:
                raise HTTPException(status_code=400, detail="missing session id")
            try:
                seed = seed_from(metadata, self.config.seed)
            except (TypeError, ValueError) as error:
                raise HTTPException(status_code=422, detail=str(error)) from None
            self._cleanup_session(session_id)  # a reset in the same session starts afresh

            def start() -> Episode:
                env = self._make()
                try:
                    return Episode.start(env, seed)
                except BaseException:
                    env.close()
                    raise

            episode = await self._run(start)
            self.session_state[session_id] = episode
            return episode.observation, {**step_info(episode.info), "seed": seed,
                                         "env_id": self.config.env_id}

        async def step(
            self, action: NeMoGymResponse, metadata: dict, session_id: str | None = None
        ) -> tuple[str | None, float, bool, bool, dict]:
            episode = self.session_state.get(session_id)
            if episode is None:
                raise HTTPException(status_code=400, detail="no episode: call /reset first")
            step = await self._run(episode.step, extract_text(action))
            info = step_info(step.info, episode if step.done else None)
            return step.observation, step.reward, step.terminated, step.truncated, info

        def _cleanup_session(self, session_id: str | None) -> None:
            episode = self.session_state.pop(session_id, None)
            if episode is not None:
                episode.env.close()

    # Named as imported (agentgym.integrations.nemo_gym.<name>), as NeMo Gym's configs and
    # pickling look them up.
    AgentgymServerConfig.__qualname__ = "AgentgymServerConfig"
    AgentgymGymnasiumServer.__qualname__ = "AgentgymGymnasiumServer"
    return AgentgymServerConfig, AgentgymGymnasiumServer


def __getattr__(name: str) -> Any:
    # The classes exist once NeMo Gym is importable; `from ... import AgentgymGymnasiumServer`
    # builds them then.
    if name in ("AgentgymServerConfig", "AgentgymGymnasiumServer"):
        config, server = _classes()
        return config if name == "AgentgymServerConfig" else server
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
