"""The env contract every agentgym environment implements.

:class:`TextEnv` is a :class:`gymnasium.Env` whose observations and actions are text. It owns
the parts of the contract that are the same for every family, so a family only writes its
rules:

* the ``info`` keys on every ``reset`` and ``step`` (``valid_action``, ``action_error``,
  ``available_actions``, ``reward_components``, ``success``, ``verifier``, ``invalid_actions``);
* the reward mode (``"both"``, ``"process"`` or ``"outcome"``) applied to the components;
* seeding: a per-env :class:`numpy.random.Generator` seeded in ``reset(seed=...)`` and nothing
  global, so the same seed gives the same episode in any process;
* action extraction (``<action>...</action>`` or the bare text) and the rule that no action
  string ever raises out of :meth:`step`;
* snapshots (:meth:`get_state` / :meth:`set_state`) as JSON bytes and oracle scoring
  (:meth:`score_actions`) that never changes the state.

A family subclasses it and fills in the ``_hooks``::

    >>> import gymnasium as gym
    >>> import agentgym
    >>> env = gym.make("agentgym/TicTacToe-v0")
    >>> obs, info = env.reset(seed=0)
    >>> sorted(info["reward_components"])
    ['outcome', 'process']
"""

from __future__ import annotations

import json
import string
from dataclasses import dataclass, field
from typing import Any, ClassVar

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from agentgym.actions import extract_action
from agentgym.rewards import REWARD_MODES, combine_rewards

# Everything an observation or action may contain: printable ASCII plus the few symbols the
# renderings use. A wider charset would make `Text.sample()` mostly produce unreadable noise.
TEXT_CHARSET: str = string.printable + "·•"

__all__ = ["TEXT_CHARSET", "Outcome", "TextEnv", "check_range", "check_seed"]


@dataclass(slots=True)
class Outcome:
    """What one applied (or rejected) action did, as a family reports it to :class:`TextEnv`.

    ``process`` is the verifier's score of the action in the state before it ran; ``outcome``
    is the episode-level reward (non-zero only when the episode ends); ``parts`` are named
    sub-components reported next to them in ``info["reward_components"]``.
    """

    process: float = 0.0
    outcome: float = 0.0
    terminated: bool = False
    success: bool = False
    parts: dict[str, float] = field(default_factory=dict)
    info: dict[str, Any] = field(default_factory=dict)


def check_range(name: str, value: Any, low: int, high: int) -> int:
    """Return ``value`` as an int, or raise ``ValueError`` naming the allowed range.

    >>> check_range("size", 6, 4, 10)
    6
    """
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise ValueError(f"{name} must be an integer in [{low}, {high}], got {value!r}")
    if not low <= int(value) <= high:
        raise ValueError(f"{name} must be in [{low}, {high}], got {value}")
    return int(value)


def check_seed(seed: Any) -> int | None:
    """Refuse seeds that are not a non-negative int or None (a float or string seed is a bug)."""
    if seed is None:
        return None
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
        raise TypeError(f"seed must be an int or None, got {type(seed).__name__} {seed!r}")
    if seed < 0:
        raise ValueError(f"seed must be a non-negative int, got {seed}")
    return int(seed)


class TextEnv(gym.Env[str, str]):
    """Base class for text environments with verifiable process and outcome rewards.

    Subclasses set :attr:`verifier_name` / :attr:`verifier_version` and implement:

    * ``_new_episode(rng, options)``: build a fresh episode from the seeded generator;
    * ``_observe() -> str``: the text the agent reads;
    * ``_legal_actions() -> list[str] | None``: canonical legal actions, if enumerable;
    * ``_parse(action) -> (move, error)``: a move object, or ``(None, "why it is invalid")``;
    * ``_apply(move) -> Outcome``: run a legal move and score it;
    * ``_reject(error) -> Outcome``: the family's policy for an invalid action;
    * ``_state_dict() -> dict`` / ``_load_state_dict(d)``: JSON-able snapshot of the episode;
    * optionally ``_score(move, snapshot) -> float`` (a fast oracle), ``oracle_actions()``
      and ``_reset_info() -> dict`` (extras for the first ``info`` of an episode).
    """

    # render_fps only matters to viewers that animate frames; Gymnasium warns when it is absent.
    metadata: ClassVar[dict[str, Any]] = {"render_modes": ["ansi"], "render_fps": 4}
    verifier_name: ClassVar[str] = "unverified"
    verifier_version: ClassVar[str] = "0"
    #: The game's rules and action format, written for an LLM; wrappers put it in the system
    #: prompt (see :meth:`system_prompt`). Families override it.
    rules: ClassVar[str] = ""
    max_observation_length: ClassVar[int] = 8192
    max_action_length: ClassVar[int] = 1024

    def __init__(
        self,
        *,
        reward_mode: str = "both",
        render_mode: str | None = None,
        score_process: bool = True,
    ) -> None:
        if not isinstance(score_process, bool):
            raise ValueError(f"score_process must be True or False, got {score_process!r}")
        if reward_mode not in REWARD_MODES:
            raise ValueError(f"reward_mode must be one of {REWARD_MODES}, got {reward_mode!r}")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(
                f"render_mode must be one of {self.metadata['render_modes']} or None, "
                f"got {render_mode!r}"
            )
        self.reward_mode = reward_mode
        #: False skips the verifier's per-step scoring where the game's dynamics allow (for
        #: outcome-only throughput); ``reward_components["process"]`` is then 0.0. Families read
        #: it in ``_apply`` to skip work; the dynamics must not depend on it.
        self.score_process = score_process
        self.render_mode = render_mode
        self.observation_space = spaces.Text(
            max_length=self.max_observation_length, min_length=1, charset=TEXT_CHARSET
        )
        self.action_space = spaces.Text(
            max_length=self.max_action_length, min_length=0, charset=TEXT_CHARSET
        )
        self._started = False
        self._episode_seed: int | None = None
        self._done = False
        self._steps = 0
        self._invalid = 0
        self._closed = False

    # ------------------------------------------------------------------ Gymnasium API
    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[str, dict[str, Any]]:
        seed = check_seed(seed)
        super().reset(seed=seed)
        self._episode_seed = seed
        self._new_episode(self.np_random, dict(options or {}))
        self._started = True
        self._done = False
        self._steps = 0
        self._invalid = 0
        start = Outcome(info=self._reset_info())
        info = self._info(start, valid=True, error="", components=self._components(start))
        return self._observe(), info

    def step(self, action: str) -> tuple[str, float, bool, bool, dict[str, Any]]:
        if not self._started:
            raise gym.error.ResetNeeded("call reset() before step()")
        if self._done:
            # Stepping a finished episode is a caller bug, but it must not crash a rollout
            # worker: answer with a zero-reward invalid step and leave the state alone.
            out = Outcome(terminated=True, success=False)
            info = self._info(
                out,
                valid=False,
                error="the episode is over; call reset()",
                components=self._components(out),
            )
            return self._observe(), 0.0, True, False, info

        self._steps += 1
        move, error = self._interpret(action)
        if move is None:
            self._invalid += 1
            out = self._reject(error)
        else:
            out = self._apply(move)
        self._done = out.terminated
        if not self.score_process:
            out.process = 0.0
        components = self._components(out)
        reward = combine_rewards(components, self.reward_mode)
        info = self._info(out, valid=move is not None, error=error, components=components)
        return self._observe(), reward, out.terminated, False, info

    def render(self) -> str | None:
        if self.render_mode == "ansi":
            return self._observe() if self._started else ""
        return None

    def close(self) -> None:
        # Idempotent by contract; families with resources override and call super().close().
        self._closed = True

    # ------------------------------------------------------------------ snapshots and oracle
    def get_state(self) -> bytes:
        """Serialise the whole episode (generator included) as JSON bytes."""
        self._require_started()
        payload = {
            "env": type(self).__name__,
            "rng": self.np_random.bit_generator.state,
            "steps": self._steps,
            "invalid": self._invalid,
            "done": self._done,
            "state": self._state_dict(),
        }
        return json.dumps(payload, separators=(",", ":")).encode()

    def set_state(self, state: bytes) -> None:
        """Restore a snapshot made by :meth:`get_state` of the same env class."""
        try:
            payload = json.loads(state)
        except (TypeError, ValueError) as exc:
            raise ValueError(f"not an agentgym snapshot: {exc}") from exc
        if not isinstance(payload, dict) or payload.get("env") != type(self).__name__:
            raise ValueError(f"snapshot is not from a {type(self).__name__}")
        if self._np_random is None:
            super().reset(seed=0)
        self.np_random.bit_generator.state = payload["rng"]
        self._steps = int(payload["steps"])
        self._invalid = int(payload["invalid"])
        self._done = bool(payload["done"])
        self._load_state_dict(payload["state"])
        self._started = True

    def score_actions(self, actions: list[str]) -> list[float]:
        """Process reward each action would earn from the current state; the state is unchanged.

        Unparseable or illegal actions score what :meth:`step` would give them. The oracle is
        consulted even when ``score_process`` is False: this is an explicit request.
        """
        self._require_started()
        if self._done:
            return [0.0 for _ in actions]
        snapshot = self.get_state()
        scores = []
        for action in actions:
            move, error = self._interpret(action)
            if move is None:
                scores.append(float(self._reject(error).process))
                self.set_state(snapshot)
            else:
                scores.append(float(self._score(move, snapshot)))
        return scores

    def oracle_actions(self) -> list[str]:
        """The canonical actions with the highest oracle score in the current state."""
        self._require_started()
        candidates = self._legal_actions() or []
        if not candidates:
            return []
        scores = self.score_actions(candidates)
        best = max(scores)
        return [a for a, s in zip(candidates, scores, strict=True) if s == best]

    def system_prompt(self) -> str:
        """Rules and action format for an LLM's system turn."""
        rules = self.rules.strip() or f"You are playing {type(self).__name__}."
        return (
            f"{rules}\n\nThink briefly if you need to, then answer with exactly one action "
            "inside <action>...</action>."
        )

    @property
    def episode_seed(self) -> int | None:
        """The seed given to the last ``reset`` (None when it was reset without one).

        Families whose episodes index a fixed task list (WebShop's goals) map it to a task, so
        seeds ``0..n-1`` play tasks ``0..n-1``; everything else draws from ``np_random``.
        """
        return self._episode_seed

    @property
    def steps(self) -> int:
        """Steps taken in this episode, invalid ones included."""
        return self._steps

    @property
    def invalid_actions(self) -> int:
        """Invalid actions counted in this episode."""
        return self._invalid

    # ------------------------------------------------------------------ family hooks
    def _new_episode(self, rng: np.random.Generator, options: dict[str, Any]) -> None:
        raise NotImplementedError

    def _observe(self) -> str:
        raise NotImplementedError

    def _legal_actions(self) -> list[str] | None:
        return None

    def _reset_info(self) -> dict[str, Any]:
        """Family-specific ``info`` extras for the first observation of an episode."""
        return {}

    def _parse(self, action: str) -> tuple[Any, str]:
        raise NotImplementedError

    def _apply(self, move: Any) -> Outcome:
        raise NotImplementedError

    def _reject(self, error: str) -> Outcome:
        return Outcome()

    def _state_dict(self) -> dict[str, Any]:
        raise NotImplementedError

    def _load_state_dict(self, state: dict[str, Any]) -> None:
        raise NotImplementedError

    def _score(self, move: Any, snapshot: bytes) -> float:
        """Oracle score of a legal move; the default applies it and restores ``snapshot``."""
        scoring, self.score_process = self.score_process, True
        try:
            return self._apply(move).process
        finally:
            self.score_process = scoring
            self.set_state(snapshot)

    # ------------------------------------------------------------------ helpers
    def _interpret(self, action: Any) -> tuple[Any, str]:
        if not isinstance(action, str):
            return None, f"action must be a string, got {type(action).__name__}"
        text, error = extract_action(action)
        if error:
            return None, error
        if len(text) > self.max_action_length:
            return None, f"action is {len(text)} characters; the limit is {self.max_action_length}"
        try:
            return self._parse(text)
        except (ValueError, IndexError, KeyError, TypeError) as exc:
            # A parser bug must not crash a rollout; it shows up as a counted invalid action.
            return None, f"could not parse action {text[:80]!r}: {exc}"

    def _components(self, out: Outcome) -> dict[str, float]:
        components = {"process": float(out.process), "outcome": float(out.outcome)}
        if out.parts:
            components.update({k: float(v) for k, v in out.parts.items()})
        return components

    def _info(
        self, out: Outcome, *, valid: bool, error: str, components: dict[str, float]
    ) -> dict[str, Any]:
        info: dict[str, Any] = {
            "valid_action": bool(valid),
            "action_error": error if not valid else "",
            "available_actions": list(self._legal_actions() or []),
            "reward_components": components,
            "success": bool(out.success) if out.terminated else False,
            "verifier": {
                "name": self.verifier_name,
                "version": self.verifier_version,
                "process_scored": self.score_process,
            },
            "invalid_actions": self._invalid,
            "step": self._steps,
        }
        if out.info:
            info.update(out.info)
        return info

    def _require_started(self) -> None:
        if not self._started:
            raise gym.error.ResetNeeded("call reset() first")
