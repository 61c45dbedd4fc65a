"""Any agentgym env as a SkyRL-Gym ``BaseTextEnv`` (``skyrl-gym`` >= 0.4, ``pip install
agentgym[skyrl]``).

What SkyRL does with an env (``skyrl_gym``; SkyRL's generator): it makes one per trajectory
with ``skyrl_gym.make(env_class, env_config=..., extras=row)``, where ``row`` is the dataset
row's extra columns; ``init(prompt)`` returns the chat the model starts from; every model turn
is ``step(text)``, which answers ``BaseTextEnvStepOutput`` (new chat messages, the turn's
reward, ``done``, metadata); ``get_metrics()`` is logged per episode and averaged by
``aggregate_metrics``.

:class:`AgentgymTextEnv` is that env for an agentgym id, local or on ``agentgym serve``
(``server_url``): each model turn is one env step (the ``<action>`` tag or the bare text), its
reward is the env's own step reward in the reward mode chosen by ``reward`` (``"both"``,
``"process"`` or ``"outcome"``), and the row's ``seed`` (or ``extra_info.seed``) seeds the
episode, so every trajectory of a group plays the same task. ``info["success"]`` and the
reward components are in each step's metadata and in ``get_metrics()``.

>>> import skyrl_gym
>>> name = register("agentgym/TicTacToe-v0", reward="outcome")
>>> env = skyrl_gym.make(name, env_config={}, extras={"seed": 0})
>>> chat, _ = env.init([])
>>> [m["role"] for m in chat], chat[-1]["content"].splitlines()[-1]
(['system', 'user'], 'Your move.')
>>> out = env.step("<action>2 2</action>")
>>> out["reward"], out["done"], out["metadata"]["success"]
(0.0, False, False)

Through ``agentgym serve`` the same code takes ``server_url``::

    name = register("agentgym/TicTacToe-v0", name="ttt-remote",
                    server_url="http://127.0.0.1:8000")
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from agentgym.integrations.episodes import Episode, make_env, seed_from, system_prompt

try:
    from skyrl_gym.envs.base_text_env import BaseTextEnv, BaseTextEnvStepOutput
except ImportError as error:  # pragma: no cover - the message is the point
    raise ImportError(
        "agentgym.integrations.skyrl needs skyrl-gym: pip install 'agentgym[skyrl]'"
    ) from error

__all__ = ["ENTRY_POINT", "AgentgymTextEnv", "register"]

#: What ``skyrl_gym.register`` imports to build the env (``module:attribute``).
ENTRY_POINT = "agentgym.integrations.skyrl:AgentgymTextEnv"
#: Options that may come from ``register`` or the trainer's ``env_config``.
_OPTIONS = ("env_id", "reward", "server_url", "token", "env_kwargs", "seed")
#: Keys of the env's ``info`` passed on as step metadata (all of them JSON).
_META_KEYS = ("success", "reward_components", "valid_action", "action_error",
              "invalid_actions", "step", "steps_left", "truncated_by")


def _plain(config: Any) -> dict[str, Any]:
    """``env_config`` as a dict: SkyRL passes an OmegaConf DictConfig, tests a dict or None."""
    if config is None:
        return {}
    if not isinstance(config, Mapping):
        try:
            from omegaconf import OmegaConf

            config = OmegaConf.to_container(config, resolve=True)
        except Exception as error:
            raise TypeError(f"env_config must be a mapping, got {type(config).__name__}") from error
    return dict(config)


class AgentgymTextEnv(BaseTextEnv):
    """One SkyRL trajectory of an agentgym env; see the module docstring.

    Args:
        env_config: SkyRL's per-env-class config (a mapping); it may hold the options below.
        extras: the dataset row's extra columns; its ``seed`` (or ``extra_info.seed``) seeds
            the episode.
        env_id: the agentgym id to play (e.g. ``"agentgym/WebShop-v0"``).
        reward: ``"both"`` (process + outcome, every step), ``"process"`` or ``"outcome"``
            (only the final step pays): the env's ``reward_mode``.
        server_url / token: play on ``agentgym serve`` instead of in this process.
        env_kwargs: the env's kwargs (``max_steps``, ``mode``...).
        seed: the seed when the row has none (None: fresh entropy, a different task each time).

    An option given both here and in ``env_config`` must agree (a registered env keeps its
    id); explicit arguments are the ones :func:`register` stores.
    """

    def __init__(
        self,
        env_config: Any = None,
        extras: Mapping[str, Any] | None = None,
        *,
        env_id: str | None = None,
        reward: str | None = None,
        server_url: str | None = None,
        token: str | None = None,
        env_kwargs: Mapping[str, Any] | None = None,
        seed: int | None = None,
    ) -> None:
        super().__init__()
        given = {"env_id": env_id, "reward": reward, "server_url": server_url, "token": token,
                 "env_kwargs": env_kwargs, "seed": seed}
        config = _plain(env_config)
        unknown = sorted(set(config) - set(_OPTIONS))
        if unknown:
            raise ValueError(f"unknown env_config keys {unknown}; known: {list(_OPTIONS)}")
        options = {}
        for key in _OPTIONS:
            mine, theirs = given[key], config.get(key)
            if mine is not None and theirs is not None and mine != theirs:
                raise ValueError(f"{key}={theirs!r} in env_config contradicts {key}={mine!r}")
            options[key] = mine if mine is not None else theirs
        if options["env_id"] is None:
            raise ValueError("env_id is required (register() or env_config.env_id)")
        self.env_id: str = options["env_id"]
        self.reward: str = options["reward"] or "both"
        self.extras = dict(extras or {})
        self._seed = seed_from(self.extras, options["seed"])
        self.env = make_env(self.env_id, reward=self.reward, server_url=options["server_url"],
                            token=options["token"], env_kwargs=dict(options["env_kwargs"] or {}))
        max_steps = getattr(self.env.unwrapped, "max_steps", None)
        self.max_turns = int(max_steps) if max_steps else self.max_turns
        self.episode: Episode | None = None

    def init(self, prompt: list[dict[str, str]]) -> tuple[list[dict[str, str]], dict[str, Any]]:
        """Reset the env with the row's seed; the chat is ``prompt`` plus the first observation
        as a user turn, and the env's rules as the system turn when ``prompt`` has none."""
        self.episode = Episode.start(self.env, self._seed)
        self.turns = 0
        chat = [dict(m) for m in (prompt or [])]
        if not any(m.get("role") == "system" for m in chat):
            chat.insert(0, {"role": "system", "content": system_prompt(self.env)})
        chat.append({"role": "user", "content": self.episode.observation})
        return chat, {"seed": self._seed, "env_id": self.env_id}

    def step(self, action: str) -> BaseTextEnvStepOutput:
        """One model turn = one env step: the env's reward, its next observation as a user
        turn (none once the episode is over), and its info's contract keys as metadata."""
        if self.episode is None:
            raise RuntimeError("call init() before step()")
        step = self.episode.step(action)
        self.turns += 1
        metadata = {key: step.info[key] for key in _META_KEYS if key in step.info}
        metadata.update(terminated=step.terminated, truncated=step.truncated)
        observations = [] if step.done else [{"role": "user", "content": step.observation}]
        return BaseTextEnvStepOutput(observations=observations, reward=step.reward,
                                     done=step.done, metadata=metadata,
                                     postprocessed_action=action)

    def get_metrics(self) -> dict[str, Any]:
        """The episode's return, reward components, success (0 / 1), invalid actions, steps."""
        return self.episode.metrics() if self.episode is not None else {}

    def close(self) -> None:
        """Close the env (ends a remote session); idempotent."""
        self.env.close()


def register(env_id: str, *, name: str | None = None, **options: Any) -> str:
    """Register ``env_id`` with ``skyrl_gym.register``; returns the SkyRL id (``name`` or the
    agentgym id itself), the ``env_class`` to put in SkyRL's dataset.

    ``options`` are :class:`AgentgymTextEnv`'s (``reward``, ``server_url``, ``token``,
    ``env_kwargs``, ``seed``); they must be JSON, as SkyRL serialises specs. Registering the
    same name again with the same options is a no-op; with other options it raises.

    >>> register("agentgym/TicTacToe-v0", name="ttt-process", reward="process")
    'ttt-process'
    >>> register("agentgym/TicTacToe-v0", name="ttt-process", reward="outcome")
    Traceback (most recent call last):
    ...
    ValueError: SkyRL id 'ttt-process' is already registered with other options
    """
    import skyrl_gym

    unknown = sorted(set(options) - set(_OPTIONS[1:]))
    if unknown:
        raise TypeError(f"unknown options {unknown}; known: {list(_OPTIONS[1:])}")
    kwargs = {"env_id": env_id, **{k: v for k, v in options.items() if v is not None}}
    try:
        json.dumps(kwargs)
    except TypeError as error:
        raise ValueError(f"options must be JSON (SkyRL serialises env specs): {error}") from None
    # Fail here, once, on an unknown id or bad kwargs rather than in every trajectory.
    AgentgymTextEnv(**kwargs).close()
    name = name or env_id
    spec = skyrl_gym.registry.get(name)
    if spec is not None:
        if spec.entry_point == ENTRY_POINT and spec.kwargs == kwargs:
            return name
        raise ValueError(f"SkyRL id {name!r} is already registered with other options")
    skyrl_gym.register(id=name, entry_point=ENTRY_POINT, kwargs=kwargs)
    return name
