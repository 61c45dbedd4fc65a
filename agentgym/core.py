"""The env contract every agentgym environment implements.

:class:`TextEnv` is a :class:`gymnasium.Env` whose observations and actions are text. It owns
the parts of the contract that are the same for every family, so a family only writes its
rules:

* the ``info`` keys on every ``reset`` and ``step`` (``valid_action``, ``action_error``,
  ``available_actions``, ``reward_components``, ``success``, ``verifier``, ``invalid_actions``);
* the reward mode (``"both"``, ``"process"`` or ``"outcome"``) applied to the components;
* the step budget (``max_steps``: running out is ``truncated=True``, never ``terminated``) and
  one invalid-action policy (``invalid_penalty`` added to the process reward, and after
  ``max_invalid`` invalid actions the episode ends, truncated);
* seeding: a per-env :class:`numpy.random.Generator` seeded in ``reset(seed=...)`` and nothing
  global, so the same seed gives the same episode in any process;
* action extraction (``<action>...</action>`` or the bare text) and the rule that no action
  string ever raises out of :meth:`step`;
* snapshots (:meth:`get_state` / :meth:`set_state`) as JSON bytes that carry the episode's
  config and seed, and oracle scoring (:meth:`score_actions`) that never changes the state;
* potential-based shaping, for a family that declares a potential
  (:meth:`TextEnv._shaping_potential`): the process reward ``gamma * phi(s') - phi(s)``
  (:func:`shaping`) and its end rule, the last potential counts as the outcome
  (:func:`settle`).

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
from typing import Any, ClassVar, TypeGuard

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from agentgym.actions import extract_action
from agentgym.config import TextEnvConfig
from agentgym.rewards import combine_rewards

# Everything an observation or action may contain: printable ASCII plus the few symbols the
# renderings use. A wider charset would make `Text.sample()` mostly produce unreadable noise.
TEXT_CHARSET: str = string.printable + "·•"

__all__ = [
    "CONTRACT_INFO_KEYS",
    "TEXT_CHARSET",
    "Outcome",
    "TextEnv",
    "check_range",
    "check_seed",
    "settle",
    "shaping",
]


@dataclass(slots=True, kw_only=True)
class Outcome:
    """What one applied (or rejected) action did, as a family reports it to :class:`TextEnv`.

    ``process`` is the verifier's score of the action in the state before it ran; ``outcome``
    is the episode-level reward (non-zero only when the episode ends); ``parts`` are named
    sub-components reported next to them in ``info["reward_components"]``.

    ``terminated`` means the game itself ended (solved, lost, bought); a family never sets
    ``truncated`` for its step budget, which :class:`TextEnv` owns, but may for another limit
    outside the game, naming it in ``truncated_by`` (``info["truncated_by"]`` then says so).
    Once the episode has ended, :class:`TextEnv` sets ``truncated_by`` to why it was truncated
    (``"max_steps"``, ``"max_invalid"`` or the family's reason; ``""`` when it terminated)
    before calling ``_on_end``, so a family reads it there instead of re-deriving it.
    ``valid=False`` (with ``error``) lets ``_apply`` refuse a move that only the game's state
    could judge; it is then handled exactly like a parse error. ``info`` holds family extras and
    may not use a contract key.

    >>> Outcome(process=2.0, terminated=True, success=True).truncated
    False
    """

    process: float = 0.0
    outcome: float = 0.0
    terminated: bool = False
    truncated: bool = False
    truncated_by: str = ""
    success: bool = False
    valid: bool = True
    error: str = ""
    parts: dict[str, float] = field(default_factory=dict)
    info: dict[str, Any] = field(default_factory=dict)


#: The ``info`` keys every reset and step carries; a family's ``Outcome.info`` may not set them.
CONTRACT_INFO_KEYS: frozenset[str] = frozenset(
    {
        "valid_action",
        "action_error",
        "available_actions",
        "reward_components",
        "success",
        "verifier",
        "invalid_actions",
        "step",
        "steps_left",
        "truncated_by",
    }
)


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


def _count(value: Any, high: int) -> TypeGuard[int]:
    return not isinstance(value, bool) and isinstance(value, int) and 0 <= value <= high


def check_seed(seed: Any) -> int | None:
    """Refuse seeds that are not a non-negative int or None (a float or string seed is a bug)."""
    if seed is None:
        return None
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
        raise TypeError(f"seed must be an int or None, got {type(seed).__name__} {seed!r}")
    if seed < 0:
        raise ValueError(f"seed must be a non-negative int, got {seed}")
    return int(seed)


def shaping(gamma: float, before: float, after: float) -> float:
    """Potential-based shaping (Ng et al., 1999) of one step: ``gamma * phi(s') - phi(s)``.

    It cannot change which policy is optimal, and with ``gamma = 1`` an episode's shaping
    rewards telescope to ``phi(s_T) - phi(s_0)``, so no loop can farm them.

    >>> shaping(1.0, 0.25, 0.75), shaping(0.5, 0.25, 0.25)
    (0.5, -0.125)
    """
    return gamma * after - before


def settle(gamma: float, last: float, outcome: float) -> float:
    """The end rule of :class:`TextEnv`'s shaping: what the step that ends an episode adds so
    that the last state's potential counts as the episode's **outcome**.

    Whatever ended the episode (solved, lost, bought, submitted, out of steps or of valid
    actions), ``gamma * (outcome - phi(s_T))`` turns that step's ``gamma * phi(s_T) - phi``
    into ``gamma * outcome - phi``; with ``gamma = 1`` the process rewards of any episode then
    sum to ``outcome - phi(s_0)``. It is 0 where the last potential already is the outcome
    (a solved Household task: both 1; a WebShop purchase or a Terminal submit: both the
    score), and it ends an unfinished episode whose outcome is 0 (WebShop unbought,
    Household unsolved, Terminal unsubmitted) at potential 0, or at whatever outcome a
    family's ``_on_end`` gives unfinished work.

    >>> settle(1.0, 0.75, 0.0), settle(1.0, 0.75, 1.0), settle(0.9, 1.0, 1.0)
    (-0.75, 0.25, 0.0)
    """
    return gamma * (outcome - last)


class TextEnv(gym.Env[str, str]):
    """Base class for text environments with verifiable process and outcome rewards.

    Subclasses set :attr:`verifier_name` / :attr:`verifier_version` and implement:

    * ``_new_episode(rng, options)``: build a fresh episode from the seeded generator;
    * ``_observe() -> str``: the text the agent reads;
    * ``_legal_actions() -> list[str] | None``: canonical legal actions, if enumerable;
    * ``_parse(action) -> (move, error)``: a move object, or ``(None, "why it is invalid")``;
    * ``_apply(move) -> Outcome``: run a legal move and score it;
    * ``_config() -> dict``: the kwargs that shape an episode (recorded in snapshots);
    * ``_state_dict() -> dict`` / ``_load_state_dict(d)``: JSON-able snapshot of the episode;
    * optionally ``_reject(error) -> Outcome`` (state changes and extras of an invalid
      action, before the uniform penalty), ``_score(move, snapshot) -> float`` (a fast
      oracle), ``oracle_actions()``, ``_reset_info() -> dict``, ``_on_end(out)`` (told why
      in ``out.truncated_by``) and ``_shaping_potential() -> float | None`` (a potential:
      the base then adds ``gamma * phi(s') - phi(s)`` to every step's process reward, and at
      the end settles the last potential to the outcome, see :func:`settle`; ``gamma`` is
      the env's :attr:`gamma`).

    The contract kwargs every env accepts (families choose the defaults):

    * ``max_steps``: the step budget. The step that spends it ends the episode with
      ``truncated=True`` (and ``info["truncated_by"] == "max_steps"``) unless the game ended
      on that same step. :attr:`steps_left` is what remains, for the observation.
    * ``invalid_penalty``: added to the process reward of every invalid action (one the
      parser or ``_apply`` refused).
    * ``max_invalid``: after this many invalid actions in an episode the episode ends with
      ``truncated=True`` (``info["truncated_by"] == "max_invalid"``).
    """

    # render_fps only matters to viewers that animate frames; Gymnasium warns when it is absent.
    metadata: ClassVar[dict[str, Any]] = {"render_modes": ["ansi"], "render_fps": 4}
    verifier_name: ClassVar[str] = "unverified"
    verifier_version: ClassVar[str] = "0"
    #: The game's rules and action format, written for an LLM; wrappers put it in the system
    #: prompt (see :meth:`system_prompt`). Families override it.
    rules: ClassVar[str] = ""
    #: Where an LLM sampler stops a reply on this env (the close tag of its action format),
    #: read by :func:`agentgym.wrappers.chat.stop_sequences_for`.
    stop_sequences: ClassVar[tuple[str, ...]] = ("</action>",)
    max_observation_length: ClassVar[int] = 8192
    max_action_length: ClassVar[int] = 1024
    #: True if a step may block (I/O, a browser): the env server then runs it in a thread.
    blocking_io: ClassVar[bool] = False
    #: True if what a move pays depends on state the agent cannot see (Minesweeper's mines):
    #: the oracle then plays the best move on what the agent sees, not always the best-paid
    #: one, and the conformance suite checks it against the env's ``safe_actions()`` instead.
    hidden_information: ClassVar[bool] = False
    #: The env's declared config (:mod:`agentgym.config`): its kwargs' types, bounds, defaults,
    #: descriptions and scopes. A family declares its own subclass of TextEnvConfig.
    config_model: ClassVar[type[TextEnvConfig]] = TextEnvConfig
    #: The discount of the shaping reward, read only where the family declares a potential
    #: (:meth:`_shaping_potential`); such a family declares ``gamma`` in its config and sets it.
    gamma: float = 1.0

    def __init__(
        self,
        *,
        reward_mode: str = "both",
        render_mode: str | None = None,
        score_process: bool = True,
        max_steps: int = 100,
        invalid_penalty: float = -1.0,
        max_invalid: int = 3,
    ) -> None:
        # A family has already checked these against its own narrower model; this catches a
        # user subclass that passes them on unchecked.
        settings = TextEnvConfig.parse(
            {
                "reward_mode": reward_mode,
                "render_mode": render_mode,
                "score_process": score_process,
                "max_steps": max_steps,
                "invalid_penalty": invalid_penalty,
                "max_invalid": max_invalid,
            }
        )
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(
                f"render_mode must be one of {self.metadata['render_modes']} or None, "
                f"got {render_mode!r}"
            )
        self.reward_mode = settings.reward_mode
        #: False skips the verifier's per-step scoring where the game's dynamics allow (for
        #: outcome-only throughput); ``reward_components["process"]`` is then 0.0. Families read
        #: it in ``_apply`` to skip work; the dynamics must not depend on it.
        self.score_process = settings.score_process
        self.render_mode = render_mode
        self.max_steps = settings.max_steps
        self.invalid_penalty = settings.invalid_penalty
        self.max_invalid = settings.max_invalid
        self.observation_space = spaces.Text(
            max_length=self.max_observation_length, min_length=1, charset=TEXT_CHARSET
        )
        self.action_space = spaces.Text(
            max_length=self.max_action_length, min_length=0, charset=TEXT_CHARSET
        )
        self._started = False
        self._episode_seed: int | None = None
        self._ended: tuple[bool, bool] | None = None  # (terminated, truncated) once over
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
        self._ended = None
        self._steps = 0
        self._invalid = 0
        self._new_episode(self.np_random, dict(options or {}))
        self._started = True
        start = Outcome(info=self._reset_info())
        info = self._info(start, components=self._components(start))
        return self._observe(), info

    def step(self, action: str) -> tuple[str, float, bool, bool, dict[str, Any]]:
        if not self._started:
            raise gym.error.ResetNeeded("call reset() before step()")
        if self._ended is not None:
            # Stepping a finished episode is a caller bug, but it must not crash a rollout
            # worker: answer with a zero-reward invalid step (same end flags) and leave the
            # state alone.
            terminated, truncated = self._ended
            out = Outcome(valid=False, error="the episode is over; call reset()")
            info = self._info(out, components=self._components(out))
            return self._observe(), 0.0, terminated, truncated, info

        move, error = self._interpret(action)
        out = self._resolve(move, error)
        if not self.score_process:
            out.process = 0.0
        components = self._components(out)
        reward = combine_rewards(components, self.reward_mode)
        info = self._info(out, components=components)
        if out.truncated_by:
            info["truncated_by"] = out.truncated_by
        return self._observe(), reward, out.terminated, out.truncated, info

    def render(self) -> str | None:
        if self.render_mode == "ansi":
            return self._observe() if self._started else ""
        return None

    def close(self) -> None:
        # Idempotent by contract; families with resources override and call super().close().
        self._closed = True

    # ------------------------------------------------------------------ snapshots and oracle
    def config(self) -> dict[str, Any]:
        """The kwargs that shape an episode (a snapshot only loads where these are equal).

        >>> import gymnasium as gym
        >>> import agentgym
        >>> gym.make("agentgym/TicTacToe-v0").unwrapped.config()["max_invalid"]
        3
        """
        return {
            **self._config(),
            "max_steps": self.max_steps,
            "invalid_penalty": self.invalid_penalty,
            "max_invalid": self.max_invalid,
        }

    def get_state(self) -> bytes:
        """Serialise the whole episode (generator, seed and config included) as JSON bytes."""
        self._require_started()
        payload = {
            "env": type(self).__name__,
            "config": self.config(),
            "seed": self._episode_seed,
            "rng": self.np_random.bit_generator.state,
            "steps": self._steps,
            "invalid": self._invalid,
            "ended": list(self._ended) if self._ended is not None else None,
            "state": self._state_dict(),
        }
        return json.dumps(payload, separators=(",", ":")).encode()

    def set_state(self, state: bytes) -> None:
        """Restore a snapshot made by :meth:`get_state` of an env of the same class and config.

        Raises:
            ValueError: the bytes are not a snapshot, come from another env class, or were
                taken from an env whose :meth:`config` differs (the message names the keys).
        """
        try:
            payload = json.loads(state)
        except (TypeError, ValueError) as exc:
            raise ValueError(f"not an agentgym snapshot: {exc}") from exc
        if not isinstance(payload, dict) or payload.get("env") != type(self).__name__:
            raise ValueError(f"snapshot is not from a {type(self).__name__}")
        mine, theirs = self.config(), payload.get("config")
        if not isinstance(theirs, dict):
            raise ValueError("snapshot carries no config; it was made by an older agentgym")
        differing = sorted(k for k in mine.keys() | theirs.keys() if mine.get(k) != theirs.get(k))
        if differing:
            detail = ", ".join(
                f"{k}: snapshot {theirs.get(k)!r}, this env {mine.get(k)!r}" for k in differing
            )
            raise ValueError(f"snapshot was taken with other env kwargs ({detail})")
        seed, steps, invalid, ended = (payload.get(k) for k in ("seed", "steps", "invalid",
                                                                  "ended"))
        check_seed(seed)
        if ended is not None and not (isinstance(ended, list) and len(ended) == 2
                                      and all(isinstance(e, bool) for e in ended)):
            raise ValueError(f"snapshot ended must be null or two booleans, got {ended!r}")
        if self._np_random is None:
            super().reset(seed=0)
        self._started = False  # until the whole state has loaded and been checked
        try:
            self.np_random.bit_generator.state = payload["rng"]
            self._load_state_dict(payload["state"])
        except (KeyError, IndexError, TypeError, AttributeError, ValueError) as exc:
            detail = str(exc) if isinstance(exc, ValueError) else f"{type(exc).__name__}: {exc}"
            raise ValueError(f"snapshot state does not load: {detail}") from None
        # A snapshot may come from a stranger (a server's client): its counters are checked
        # against this env's budget (after the state, which may set the budget: Terminal-v0's
        # task brings its own), or a crafted one would lift the step and invalid limits.
        if not _count(steps, self.max_steps):
            raise ValueError(f"snapshot steps must be an integer in [0, {self.max_steps}], "
                             f"got {steps!r}")
        if not _count(invalid, self.max_invalid):
            raise ValueError(f"snapshot invalid must be an integer in [0, {self.max_invalid}], "
                             f"got {invalid!r}")
        self._episode_seed = seed
        self._steps, self._invalid = steps, invalid
        self._ended = (ended[0], ended[1]) if ended else None
        self._started = True

    def score_actions(self, actions: list[str]) -> list[float]:
        """Process reward each action would earn from the current state; the state is unchanged.

        Unparseable or illegal actions score what :meth:`step` would give them (the family's
        part plus ``invalid_penalty``). The oracle is consulted even when ``score_process``
        is False: this is an explicit request.
        """
        self._require_started()
        if self._ended is not None:
            return [0.0 for _ in actions]
        snapshot = self.get_state()
        scores = []
        for action in actions:
            move, error = self._interpret(action)
            if move is None:
                scores.append(float(self._resolve(None, error).process))
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
        Restored by :meth:`set_state`.
        """
        return self._episode_seed

    @property
    def steps(self) -> int:
        """Steps taken in this episode, invalid ones included."""
        return self._steps

    @property
    def steps_left(self) -> int:
        """Steps the budget still allows (inside ``_apply``: after the step being applied)."""
        return max(0, self.max_steps - self._steps)

    @property
    def invalid_actions(self) -> int:
        """Invalid actions counted in this episode."""
        return self._invalid

    @property
    def is_over(self) -> bool:
        """True once the episode has terminated or been truncated."""
        return self._ended is not None

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

    def _config(self) -> dict[str, Any]:
        """The family's kwargs that shape an episode, as JSON values (contract kwargs excluded)."""
        raise NotImplementedError

    def _parse(self, action: str) -> tuple[Any, str]:
        raise NotImplementedError

    def _apply(self, move: Any) -> Outcome:
        raise NotImplementedError

    def _reject(self, error: str) -> Outcome:
        """State changes and info extras of an invalid action; ``process`` is usually 0.

        The base class then adds ``invalid_penalty`` and applies ``max_invalid``.
        """
        return Outcome()

    def _on_end(self, out: Outcome) -> None:
        """Called once when the episode ends (terminated or truncated), before observing.

        ``out.truncated_by`` already says why a truncated episode ended (``"max_steps"``,
        ``"max_invalid"`` or the family's own reason). Families whose observation says why the
        game ended, or whose outcome at a truncation differs (a family that grades unfinished
        work sets ``out.outcome`` here), adjust their state or ``out`` here; the shaping's end
        rule reads ``out.outcome`` afterwards.
        """

    def _shaping_potential(self) -> float | None:
        """The shaping potential ``phi`` of the current state, or None: no shaping (default).

        A family that returns a number gets potential-based shaping from the base class: every
        step's process reward gains ``gamma * phi(s') - phi(s)`` (phi read before and after
        ``_apply`` / ``_reject``), and the step that ends the episode settles the last
        potential to the outcome (:func:`settle`). It is only read while ``score_process``
        is on (the process reward is 0 otherwise), and the audit's shaping check reads it.
        """
        return None

    def _state_dict(self) -> dict[str, Any]:
        raise NotImplementedError

    def _load_state_dict(self, state: dict[str, Any]) -> None:
        raise NotImplementedError

    def _score(self, move: Any, snapshot: bytes) -> float:
        """Oracle score of a legal move; the default applies it and restores ``snapshot``."""
        scoring, self.score_process = self.score_process, True
        try:
            return self._resolve(move, "").process
        finally:
            self.score_process = scoring
            self.set_state(snapshot)

    # ------------------------------------------------------------------ helpers
    def _resolve(self, move: Any, error: str) -> Outcome:
        """One step's rules: the family's verdict, the declared shaping, then the uniform
        invalid-action policy and the step budget. ``out.truncated_by`` says why the step
        truncated ("" if it did not).

        Used by :meth:`step` and, on a snapshot it restores, by :meth:`score_actions`, so a
        scored action gets exactly the process reward its step would.
        """
        self._steps += 1
        before = self._shaping_potential() if self.score_process else None
        if move is None:
            out = self._reject(error)
            out.valid, out.error = False, error
        else:
            out = self._apply(move)
            if not out.valid:
                # A move only the game state could refuse: the family's _reject decides its
                # state changes; what _apply reported in info is kept.
                refused = out
                out = self._reject(refused.error)
                out.valid, out.error = False, refused.error or "the move was refused"
                out.info = {**refused.info, **out.info}
        after = 0.0
        if before is not None:
            after = self._shaping_potential()
            if after is None:
                raise TypeError(
                    f"{type(self).__name__}._shaping_potential() returned None after a number: "
                    "a family that shapes has a potential in every state"
                )
            out.process += shaping(self.gamma, before, after)
        if not out.valid:
            self._invalid += 1
            out.process += self.invalid_penalty
        truncated_by = ""
        if out.terminated:
            out.truncated = False
        elif out.truncated:
            truncated_by = out.truncated_by or type(self).__name__
        elif not out.valid and self._invalid >= self.max_invalid:
            truncated_by = "max_invalid"
        elif self._steps >= self.max_steps:
            truncated_by = "max_steps"
        out.truncated = bool(truncated_by)
        out.truncated_by = truncated_by
        if out.terminated or out.truncated:
            self._ended = (out.terminated, out.truncated)
            self._on_end(out)
            if before is not None and out.outcome != after:
                # The end rule, after _on_end (which may grade the work) and after the invalid
                # penalty, the order the families always added it in: rewards repeat bit for bit.
                out.process += settle(self.gamma, after, out.outcome)
        return out

    def _interpret(self, action: Any) -> tuple[Any, str]:
        if not isinstance(action, str):
            return None, f"action must be a string, got {type(action).__name__}"
        text, error = extract_action(action, max_length=self.max_action_length)
        if error:
            return None, error
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

    def _info(self, out: Outcome, *, components: dict[str, float]) -> dict[str, Any]:
        info: dict[str, Any] = {
            "valid_action": out.valid,
            "action_error": out.error if not out.valid else "",
            "available_actions": list(self._legal_actions() or []) if self._ended is None else [],
            "reward_components": components,
            "success": bool(out.success) and out.terminated,
            "verifier": {
                "name": self.verifier_name,
                "version": self.verifier_version,
                "process_scored": self.score_process,
            },
            "invalid_actions": self._invalid,
            "step": self._steps,
            "steps_left": self.steps_left,
        }
        if out.info:
            if not CONTRACT_INFO_KEYS.isdisjoint(out.info):
                clash = sorted(CONTRACT_INFO_KEYS.intersection(out.info))
                raise ValueError(
                    f"{type(self).__name__} reported contract info keys {clash} in "
                    "Outcome.info; use the Outcome fields instead"
                )
            info = {**out.info, **info}
        return info

    def _require_started(self) -> None:
        if not self._started:
            raise gym.error.ResetNeeded("call reset() first")
