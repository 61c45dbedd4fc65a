"""Any agentgym env as an ``environment_factory`` of TRL's ``GRPOTrainer`` (``trl`` >= 1.0).

What TRL does with an environment (``trl.GRPOTrainer``, argument ``environment_factory``): it
calls the zero-argument factory once per concurrent rollout and reuses the instances; before
each generation it calls ``reset(**row)`` with the dataset row (a returned string is appended
to the row's last user message); every public method other than ``reset`` and ``get_reward``
becomes a tool whose schema comes from its type hints and Google-style docstring, and a tool
call the model emits runs that method on the rollout's own instance; when the class defines
``get_reward()``, TRL calls it once per finished rollout and adds it to the reward (weight 1,
logged as ``rewards/<ClassName>/mean``). Reward functions also receive the instances as
``environments=``.

:class:`AgentgymEnvironment` is that object for an agentgym env, local or remote (pass
``server_url=`` as to ``gym.make``): one tool, ``act(action)``, steps the env; ``get_reward``
is the sum of the env's step rewards over the episode, so ``reward_mode="process"`` /
``"outcome"`` / ``"both"`` (env kwargs) pick the training signal as everywhere else.

>>> env = AgentgymEnvironment("agentgym/TicTacToe-v0")
>>> print(env.reset(seed=0).splitlines()[-1])
Your move.
>>> print(env.act("2 2").splitlines()[-1])  # keeps the game's value: 0 (losing it: -1)
Reward: 0.
>>> env.get_reward(), env.steps
(0.0, 1)
"""

from __future__ import annotations

import contextlib
import weakref
from collections.abc import Callable, Iterable
from typing import Any

import gymnasium as gym

import agentgym  # noqa: F401  (registers the agentgym/* ids with Gymnasium)

__all__ = [
    "TOOL_NOTE",
    "AgentgymEnvironment",
    "component_reward",
    "environment_dataset",
    "make_environment_factory",
    "tool_chat_template",
]

#: Appended to the env's rules in the system turn: with tools, a move is a call to ``act``.
TOOL_NOTE = (
    "Make each move by calling the `act` tool with the action text as its `action` argument; "
    "the tool answers with the new observation and the reward."
)


def _close_quietly(env: gym.Env) -> None:
    # Runs when the adapter is collected or at exit: a remote session is ended on the server
    # instead of waiting for its idle expiry; an env already closed or a server gone is fine.
    with contextlib.suppress(Exception):
        env.close()


def _system_prompt(env: gym.Env) -> str:
    # TextEnv.system_prompt's type; gym.Env does not declare it, so getattr says Any.
    prompt: Callable[[], str] | None = getattr(env.unwrapped, "system_prompt", None)
    return prompt() if callable(prompt) else ""


class AgentgymEnvironment:
    """One rollout's env for TRL: ``reset`` starts an episode, the ``act`` tool plays a move.

    Args:
        env: an env id (made with ``gym.make(env, **env_kwargs)``) or an env made elsewhere
            (then no ``env_kwargs``; the adapter does not close an env it did not make).
        seed: first seed used when the dataset row has no ``seed`` column; each such reset
            uses the next integer. None: the env seeds itself from fresh entropy.
        **env_kwargs: the env's kwargs (``reward_mode``, ``max_steps``, ...) and, for a remote
            env, ``server_url`` / ``token`` / ``timeout`` (see :mod:`agentgym.remote`).

    Only ``reset``, ``act`` and ``get_reward`` are methods: TRL turns every other public
    method into a tool, so the accounting is read through properties.

    >>> env = AgentgymEnvironment("agentgym/TicTacToe-v0", reward_mode="outcome")
    >>> _ = env.reset(seed=3)
    >>> _ = env.act("1 1"); _ = env.act("1 1")  # the second one is on an occupied cell
    >>> env.rewards, env.invalid_actions
    ((0.0, 0.0), 1)
    """

    def __init__(self, env: str | gym.Env, *, seed: int | None = None, **env_kwargs: Any) -> None:
        if isinstance(env, str):
            self._env = gym.make(env, **env_kwargs)
            # Closed when the adapter goes away: TRL never closes the environments it pools.
            self._finalizer = weakref.finalize(self, _close_quietly, self._env)
        elif isinstance(env, gym.Env):
            if env_kwargs:
                raise ValueError(
                    f"env kwargs {sorted(env_kwargs)} need an env id; an env instance is "
                    "already configured"
                )
            self._env = env
            self._finalizer = None
        else:
            raise TypeError(f"env must be an env id or a gymnasium.Env, got {type(env).__name__}")
        if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int) or seed < 0):
            raise ValueError(f"seed must be a non-negative int or None, got {seed!r}")
        self._next_seed = seed
        self._rewards: list[float] = []
        self._components: list[dict[str, float]] = []
        self._info: dict[str, Any] = {}
        self._started = False
        self._done = False

    # ------------------------------------------------------------------ what TRL calls
    def reset(self, **row: Any) -> str:
        """Start an episode; ``row`` is the dataset row TRL passes (its ``seed`` is used).

        Returns the text TRL appends to the row's last user message: the first observation,
        preceded by the env's rules and :data:`TOOL_NOTE` when the prompt has no system turn
        (TRL's placeholder prompt when training without a dataset).
        """
        seed = row.get("seed")
        if seed is None and self._next_seed is not None:
            seed, self._next_seed = self._next_seed, self._next_seed + 1
        observation, info = self._env.reset(seed=seed)
        self._rewards, self._components, self._info = [], [], info
        self._started, self._done = True, False
        prompt = row.get("prompt")
        messages = prompt if isinstance(prompt, list) else []
        prefix = ""
        if not any(isinstance(m, dict) and m.get("role") == "system" for m in messages):
            prefix = f"{_system_prompt(self._env)}\n{TOOL_NOTE}\n\n"
        last = messages[-1].get("content") if messages and isinstance(messages[-1], dict) else ""
        if isinstance(last, str) and last.strip():
            prefix = "\n\n" + prefix
        return prefix + observation

    def act(self, action: str) -> str:
        """Carry out one action in the environment and report what happened.

        Args:
            action: The action to carry out, written the way the rules ask (for example "2 3").

        Returns:
            The new observation, the reward of this action and whether the episode is over.
        """
        if not self._started:
            raise RuntimeError("call reset() before act()")
        if self._done:
            raise ValueError("the episode is over: no further actions are accepted")
        if isinstance(action, (int, float)) and not isinstance(action, bool):
            action = str(action)  # a model may write {"action": 5} for the cell number 5
        if not isinstance(action, str):
            raise TypeError(f"action must be a string, got {type(action).__name__}")
        observation, reward, terminated, truncated, info = self._env.step(action)
        self._rewards.append(float(reward))
        self._components.append(dict(info.get("reward_components") or {}))
        self._info = info
        self._done = bool(terminated or truncated)
        lines = [observation, ""]
        if not info.get("valid_action", True):
            lines.append(f"Invalid action: {info.get('action_error') or 'refused'}.")
        lines.append(f"Reward: {float(reward):g}.")
        if self._done:
            how = "solved" if info.get("success") else "terminated" if terminated else "truncated"
            lines.append(f"The episode is over ({how}); total reward {self.get_reward():g}.")
        return "\n".join(lines)

    def get_reward(self) -> float:
        """The episode's reward: the sum of the env's step rewards (0.0 before any step)."""
        return float(sum(self._rewards))

    # ------------------------------------------------------------------ accounting
    @property
    def env(self) -> gym.Env:
        """The wrapped Gymnasium env (a RemoteEnv behind wrappers when ``server_url`` is set)."""
        return self._env

    @property
    def rewards(self) -> tuple[float, ...]:
        """The step rewards of the current episode, in order."""
        return tuple(self._rewards)

    @property
    def reward_components(self) -> dict[str, float]:
        """Each reward component (``process``, ``outcome``, ...) summed over the episode."""
        totals: dict[str, float] = {}
        for components in self._components:
            for name, value in components.items():
                totals[name] = totals.get(name, 0.0) + float(value)
        return totals

    @property
    def steps(self) -> int:
        """Actions carried out in the current episode (valid or not)."""
        return len(self._rewards)

    @property
    def invalid_actions(self) -> int:
        """The env's count of invalid actions this episode."""
        return int(self._info.get("invalid_actions", 0))

    @property
    def done(self) -> bool:
        """Whether the current episode has ended (terminated or truncated)."""
        return self._done

    @property
    def success(self) -> bool:
        """Whether the last step solved the episode."""
        return bool(self._info.get("success", False))

    @property
    def info(self) -> dict[str, Any]:
        """The env's ``info`` of the last reset or step."""
        return self._info


def make_environment_factory(
    env_id: str, **kwargs: Any
) -> Callable[[], AgentgymEnvironment]:
    """The zero-argument factory ``GRPOTrainer(environment_factory=...)`` wants.

    ``kwargs`` go to :class:`AgentgymEnvironment` (``seed``, env kwargs, ``server_url``). An
    unknown id or bad kwargs fail here, once, not inside the trainer.

    >>> factory = make_environment_factory("agentgym/TicTacToe-v0", max_steps=5)
    >>> env = factory()
    >>> env.env.unwrapped.max_steps
    5
    >>> make_environment_factory("agentgym/NoSuch-v0")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: cannot make 'agentgym/NoSuch-v0': ...
    """
    try:
        probe = AgentgymEnvironment(env_id, **kwargs)
    except gym.error.Error as error:
        raise ValueError(f"cannot make {env_id!r}: {error}") from None
    probes = [probe]

    def factory() -> AgentgymEnvironment:
        # The probe is handed out first so its env (and a remote session) is not wasted.
        return probes.pop() if probes else AgentgymEnvironment(env_id, **kwargs)

    return factory


def environment_dataset(
    env_id: str, seeds: Iterable[int], *, system_prompt: str | None = None, **env_kwargs: Any
) -> Any:
    """A ``datasets.Dataset`` of episodes: one row per seed, the env's rules as the system turn.

    Each row is ``{"prompt": [system, user ""], "seed": s}``; TRL passes the row to
    :meth:`AgentgymEnvironment.reset`, which plays seed ``s`` and puts the first observation
    in the user turn. ``system_prompt`` None reads the env's own (plus :data:`TOOL_NOTE`);
    ``env_kwargs`` (``server_url`` included) are used only to read it.

    >>> rows = environment_dataset("agentgym/TicTacToe-v0", range(3))
    >>> list(rows["seed"]), rows[0]["prompt"][1]
    ([0, 1, 2], {'role': 'user', 'content': ''})
    """
    from datasets import Dataset

    seeds = [int(s) for s in seeds]
    if not seeds or any(s < 0 for s in seeds):
        raise ValueError(f"seeds must be a non-empty list of non-negative ints, got {seeds!r}")
    if system_prompt is None:
        env = gym.make(env_id, **env_kwargs)
        try:
            system_prompt = f"{_system_prompt(env)}\n{TOOL_NOTE}"
        finally:
            env.close()
    prompt = [{"role": "system", "content": system_prompt}, {"role": "user", "content": ""}]
    return Dataset.from_dict({"prompt": [prompt] * len(seeds), "seed": seeds})


def component_reward(component: str) -> Callable[..., list[float]]:
    """A TRL reward function: one reward component summed over each rollout's episode.

    ``GRPOTrainer`` passes the rollouts' environments as ``environments=``; the function is
    named ``<component>_reward``, which is what TRL logs it as. Give it weight 0 in
    ``GRPOConfig(reward_weights=...)`` to log it without training on it twice.

    >>> env = AgentgymEnvironment("agentgym/TicTacToe-v0")
    >>> _ = env.reset(seed=0); _ = env.act("2 2")
    >>> component_reward("process")(environments=[env]), component_reward("outcome").__name__
    ([0.0], 'outcome_reward')
    """
    if not isinstance(component, str) or not component:
        raise ValueError(f"component must be a non-empty str, got {component!r}")

    def reward(environments: list[AgentgymEnvironment], **_: Any) -> list[float]:
        return [float(env.reward_components.get(component, 0.0)) for env in environments]

    reward.__name__ = reward.__qualname__ = f"{component}_reward"
    return reward


def tool_chat_template(tokenizer: Any) -> Any:
    """``tokenizer`` with a chat template TRL can run tool calls through; changed in place.

    A template that already renders tool calls is kept. A ChatML one without tools (SmolLM2's,
    :func:`agentgym.llm.models.byte_tokenizer`'s) gets Qwen2.5's ChatML template, which TRL
    knows how to parse; anything else is a one-line ``ValueError``.

    >>> from agentgym.llm.models import byte_tokenizer
    >>> "<tools>" in tool_chat_template(byte_tokenizer()).chat_template
    True
    """
    from trl.chat_template_utils import qwen2_5_chat_template, supports_tool_calling

    if supports_tool_calling(tokenizer):
        return tokenizer
    template = tokenizer.chat_template if isinstance(tokenizer.chat_template, str) else ""
    if "<|im_start|>" not in template:
        raise ValueError(
            "the tokenizer's chat template renders no tool calls and is not ChatML: give a "
            "tool-calling model (Qwen2.5/3, Llama 3.1, ...) or set a tool chat template"
        )
    tokenizer.chat_template = qwen2_5_chat_template
    return tokenizer
