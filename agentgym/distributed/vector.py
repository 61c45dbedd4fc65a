"""A vector env whose envs live on Ray actors, with the local vector env's exact results.

:class:`RayVectorEnv` has :class:`agentgym.vector.TextVectorEnv`'s API and return values
(``reset`` / ``step`` / ``call`` / ``render`` / ``close``, lists of observations and infos,
``float64`` rewards, ``bool`` flags, same-step autoreset with ``final_obs`` / ``final_info``),
and for the same seeds and actions it returns the same values: each actor runs a slice of the
envs as a local ``TextVectorEnv`` and the driver only splits the inputs and joins the outputs.
One step is one Ray call per actor, made concurrently, so the actors' envs step in parallel
and Ray's per-call cost is paid once per actor, not once per env.

The envs are made on the workers (``gym.make`` there), so an env id must be registered on
every node: agentgym's ids are (importing agentgym registers them); for your own envs use a
``"module:EnvId"`` id or a wrapper that imports your module.

>>> import ray                                                     # doctest: +SKIP
>>> ray.init(num_cpus=2, include_dashboard=False)                  # doctest: +SKIP
>>> envs = RayVectorEnv("agentgym/TicTacToe-v0", 16)               # doctest: +SKIP
>>> obs, infos = envs.reset(seed=7)                                # doctest: +SKIP
>>> actions = [a[0] for a in envs.call("oracle_actions")]          # doctest: +SKIP
>>> obs, rewards, terminated, truncated, infos = envs.step(actions)  # doctest: +SKIP
>>> envs.close(); ray.shutdown()                                   # doctest: +SKIP
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium.vector.utils import batch_space

from agentgym.distributed.pool import Block, EnvPool, ray_get, require_ray
from agentgym.envinfo import check_kwargs
from agentgym.vector import spread_seeds

__all__ = ["RayVectorEnv", "make_ray_vec"]


class RayVectorEnv:
    """``num_envs`` copies of ``gym.make(env_id, **env_kwargs)`` hosted on Ray actors.

    Args:
        env_id: a registered Gymnasium id (checked on the driver first, one-line error).
        num_envs: how many envs (>= 1).
        actors: an :class:`EnvPool` to borrow (its actors stay up after :meth:`close`; only
            this vector env's envs are closed), or the number of actors of a pool made for
            this vector env alone and killed by :meth:`close`; default (``None``): as many as
            the cluster's CPUs allow at ``num_cpus_per_actor``, at most ``num_envs``.
        num_cpus_per_actor: Ray ``num_cpus`` of each actor of an own pool.
        wrappers: applied to every env on its worker, innermost first, as in
            :func:`agentgym.vector.make_vec` (they are pickled to the workers).
        **env_kwargs: passed to ``gym.make`` on the workers.

    Raises:
        ImportError: Ray is not installed.
        RuntimeError: Ray is not initialised (``ray.init()`` first; see the module docs).
        ValueError: ``num_envs`` < 1, an unknown id, or an env kwarg the env refuses.

    Seeds are spread as in the local vector env: ``reset(seed=s)`` gives env ``i`` the seed
    ``s + i``; a list gives one seed per env. Envs ``0 .. k-1`` sit on the first actor, the
    next block on the second, and so on.

    Beyond :class:`~agentgym.vector.TextVectorEnv`'s ``call`` (one argument list for every
    env), :meth:`call_each` gives each env its own arguments, e.g. ``call_each("set_state",
    [(s,) for s in states])`` or ``call_each("score_actions", [(i["available_actions"],) for
    i in infos])``.
    """

    def __init__(
        self,
        env_id: str,
        num_envs: int,
        *,
        actors: EnvPool | int | None = None,
        num_cpus_per_actor: float = 1.0,
        wrappers: Sequence[Callable[[gym.Env], gym.Env]] = (),
        **env_kwargs: Any,
    ) -> None:
        if isinstance(num_envs, bool) or not isinstance(num_envs, int) or num_envs < 1:
            raise ValueError(f"num_envs must be an integer >= 1, got {num_envs!r}")
        # Unknown id or kwarg: one line here, before any actor starts.
        check_kwargs(env_id, env_kwargs)
        require_ray()
        self.closed = True  # until the envs are open, close() has nothing to do
        self.num_envs = num_envs
        self.env_id = env_id
        if isinstance(actors, EnvPool):
            self.pool, self._owns_pool = actors, False
        elif actors is None or (isinstance(actors, int) and not isinstance(actors, bool)):
            size = actors if actors is not None else _fitting_actors(num_cpus_per_actor)
            self.pool = EnvPool(min(size, num_envs), num_cpus=num_cpus_per_actor)
            self._owns_pool = True
        else:
            raise TypeError(f"actors must be an EnvPool, an int or None, got {actors!r}")
        self._group = self.pool.new_group()
        self._blocks: list[Block] = self.pool.place(num_envs)
        self.closed = False
        try:
            opened = ray_get(
                [
                    b.actor.open.remote(self._group, env_id, b.count, env_kwargs, list(wrappers))
                    for b in self._blocks
                ]
            )
        except BaseException:
            self.close()
            raise
        first = opened[0]
        self.metadata = first["metadata"]
        self.single_observation_space = first["single_observation_space"]
        self.single_action_space = first["single_action_space"]
        self.observation_space = batch_space(self.single_observation_space, num_envs)
        self.action_space = batch_space(self.single_action_space, num_envs)
        self._name = env_id
        self._started = False

    # ------------------------------------------------------------------ Gymnasium-like API
    def reset(
        self,
        *,
        seed: int | Sequence[int | None] | None = None,
        options: dict[str, Any] | None = None,
    ) -> tuple[list[Any], list[dict[str, Any]]]:
        """Reset every env; ``seed`` is spread as in :class:`~agentgym.vector.TextVectorEnv`."""
        self._check_open()
        seeds = self._seeds(seed)
        parts = ray_get(
            [
                b.actor.reset.remote(self._group, seeds[b.start : b.start + b.count], options)
                for b in self._blocks
            ]
        )
        self._started = True
        return _join_lists(p[0] for p in parts), _join_lists(p[1] for p in parts)

    def step(
        self, actions: Sequence[Any]
    ) -> tuple[list[Any], np.ndarray, np.ndarray, np.ndarray, list[dict[str, Any]]]:
        """Step env ``i`` with ``actions[i]``, one concurrent Ray call per actor."""
        self._check_open()
        if not self._started:
            raise gym.error.ResetNeeded("call reset() before step()")
        if isinstance(actions, str) or len(actions) != self.num_envs:
            got = "a str" if isinstance(actions, str) else f"{len(actions)} actions"
            raise ValueError(f"step needs one action per env ({self.num_envs}), got {got}")
        actions = list(actions)
        parts = ray_get(
            [
                b.actor.step.remote(self._group, actions[b.start : b.start + b.count])
                for b in self._blocks
            ]
        )
        observations = _join_lists(p[0] for p in parts)
        rewards = np.concatenate([p[1] for p in parts]).astype(np.float64, copy=False)
        terminated = np.concatenate([p[2] for p in parts]).astype(np.bool_, copy=False)
        truncated = np.concatenate([p[3] for p in parts]).astype(np.bool_, copy=False)
        return observations, rewards, terminated, truncated, _join_lists(p[4] for p in parts)

    def call(self, name: str, *args: Any, **kwargs: Any) -> list[Any]:
        """Call method ``name`` (or read attribute ``name``) on every env; one result each.

        Reaches through wrappers on the workers, e.g. ``call("oracle_actions")`` or
        ``call("get_state")``. Arguments and results travel by pickle.
        """
        self._check_open()
        parts = ray_get(
            [b.actor.call.remote(self._group, name, args, kwargs) for b in self._blocks]
        )
        return _join_lists(parts)

    def call_each(self, name: str, per_env_args: Sequence[Sequence[Any]]) -> list[Any]:
        """Call ``name`` on env ``i`` with ``*per_env_args[i]``; one result each.

        >>> states = envs.call("get_state")                            # doctest: +SKIP
        >>> envs.call_each("set_state", [(s,) for s in states])        # doctest: +SKIP
        """
        self._check_open()
        if isinstance(per_env_args, (str, bytes)) or len(per_env_args) != self.num_envs:
            raise ValueError(f"call_each needs one argument tuple per env ({self.num_envs})")
        arg_lists = [tuple(args) for args in per_env_args]
        parts = ray_get(
            [
                b.actor.call_each.remote(self._group, name, arg_lists[b.start : b.start + b.count])
                for b in self._blocks
            ]
        )
        return _join_lists(parts)

    def render(self) -> list[Any]:
        """Each env's ``render()``."""
        self._check_open()
        return _join_lists(ray_get([b.actor.render.remote(self._group) for b in self._blocks]))

    def close(self) -> None:
        """Close the envs on their actors (and kill an own pool's actors); idempotent."""
        if self.closed:
            return
        self.closed = True
        error: BaseException | None = None
        try:
            ray_get([b.actor.close.remote(self._group) for b in self._blocks])
        except Exception as exc:  # a dead actor: still release and kill the rest
            error = exc
        self.pool.release(self._blocks)
        if self._owns_pool:
            self.pool.close()
        if error is not None and not self._owns_pool:
            raise error

    @property
    def actors(self) -> list[Any]:
        """The actor handle of each block, in env order (env ``i``'s actor is found by block)."""
        return [b.actor for b in self._blocks]

    def __enter__(self) -> RayVectorEnv:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"RayVectorEnv({self._name}, num_envs={self.num_envs}, actors={len(self._blocks)})"

    # ------------------------------------------------------------------ helpers
    def _check_open(self) -> None:
        if self.closed:
            raise gym.error.ClosedEnvironmentError("this RayVectorEnv is closed")

    def _seeds(self, seed: int | Sequence[int | None] | None) -> list[int | None]:
        # TextVectorEnv's rule, applied to all envs at once so that env i gets seed + i
        # whichever actor hosts it.
        return spread_seeds(seed, self.num_envs)


def _fitting_actors(num_cpus: float) -> int:
    """How many actors of ``num_cpus`` each the cluster's CPUs hold (at least 1)."""
    import ray

    cpus = float(ray.cluster_resources().get("CPU", 1.0))
    return max(1, int(cpus // num_cpus)) if num_cpus > 0 else max(1, int(cpus))


def _join_lists(parts: Any) -> list[Any]:
    out: list[Any] = []
    for part in parts:
        out.extend(part)
    return out


def make_ray_vec(
    env_id: str,
    num_envs: int,
    *,
    actors: EnvPool | int | None = None,
    wrappers: Sequence[Callable[[gym.Env], gym.Env]] = (),
    **kwargs: Any,
) -> RayVectorEnv:
    """:func:`agentgym.vector.make_vec`'s signature, envs on Ray actors (a :class:`RayVectorEnv`).

    >>> envs = make_ray_vec("agentgym/Sudoku-v0", 16, actors=4)        # doctest: +SKIP
    """
    return RayVectorEnv(env_id, num_envs, actors=actors, wrappers=wrappers, **kwargs)
