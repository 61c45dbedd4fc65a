"""A pool of Ray actors, each hosting env sessions: the cluster side of :class:`RayVectorEnv`.

An :class:`EnvHost` actor holds any number of *groups*; a group is a local
:class:`agentgym.vector.TextVectorEnv` of one or more envs, opened, reset, stepped and closed
by one actor call each. Stepping a whole group per call is what amortises Ray's per-call cost
(about a millisecond on a loopback instance) over several envs, and reusing the very same
``TextVectorEnv`` inside the actor is what makes the remote results (autoreset, ``final_obs``
/ ``final_info``) identical to the local ones by construction.

An :class:`EnvPool` starts the actors once and lends them to any number of vector envs, so a
training job (or a test suite) pays the actor start-up (a new worker process importing
agentgym, a second or more) once, not per vector env. It places a vector env's envs in
contiguous blocks on the least-loaded actors.

Ray must be installed (``pip install 'agentgym[ray]'``) and initialised by the caller:
``ray.init()`` for a local instance, ``ray.init(address="auto")`` to join a running cluster.
Nothing here starts Ray by itself, so a forgotten ``ray.init`` never silently spawns a local
cluster on a machine that was meant to join a big one.

>>> import ray                                                     # doctest: +SKIP
>>> ray.init(num_cpus=2, include_dashboard=False)                  # doctest: +SKIP
>>> pool = EnvPool(2)                                              # doctest: +SKIP
>>> envs = RayVectorEnv("agentgym/Sudoku-v0", 16, actors=pool)     # doctest: +SKIP
>>> pool.sessions()                                                # doctest: +SKIP
[8, 8]
>>> envs.close(); pool.close(); ray.shutdown()                     # doctest: +SKIP
"""

from __future__ import annotations

import os
import time
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import gymnasium as gym

from agentgym.vector import TextVectorEnv, make_vec

__all__ = ["Block", "EnvHost", "EnvPool", "ray_get", "require_ray"]


def require_ray() -> Any:
    """The ``ray`` module, once it is installed and initialised; one-line errors otherwise."""
    try:
        import ray
    except ImportError:
        raise ImportError(
            "Ray env pools need Ray: pip install 'agentgym[ray]' (or 'ray>=2.40')"
        ) from None
    if not ray.is_initialized():
        raise RuntimeError(
            "Ray is not initialised: call ray.init() for a local instance or "
            "ray.init(address='auto') to join a running cluster, then make the pool"
        )
    return ray


def ray_get(refs: Any, timeout: float | None = None) -> Any:
    """``ray.get`` that raises an actor's own exception (one line), not Ray's wrapped report.

    A ``ValueError`` raised in an env on a worker arrives as Ray's ``RayTaskError`` with the
    remote traceback in its message; callers of a vector env want the ``ValueError``.
    """
    import ray
    from ray.exceptions import RayTaskError

    try:
        return ray.get(refs, timeout=timeout)
    except RayTaskError as exc:
        cause = getattr(exc, "cause", None)
        if isinstance(cause, Exception):
            raise cause from None
        raise


class EnvHost:
    """The actor body: named groups of envs, each a local :class:`TextVectorEnv`.

    A plain class (Ray wraps it in :class:`EnvPool`), so it can be used and tested without
    Ray. Every method takes the group name the caller got from :meth:`open`.

    >>> import agentgym
    >>> host = EnvHost()
    >>> info = host.open("g", "agentgym/TicTacToe-v0", 2, {}, [])
    >>> obs, infos = host.reset("g", [0, 1], None)
    >>> len(obs), host.sessions()
    (2, 2)
    >>> host.close("g"); host.sessions()
    0
    """

    def __init__(self) -> None:
        self._groups: dict[str, TextVectorEnv] = {}

    def ping(self) -> int:
        """The actor's process id (a cheap call to check it is up)."""
        return os.getpid()

    def open(
        self,
        group: str,
        env_id: str,
        count: int,
        env_kwargs: dict[str, Any],
        wrappers: Sequence[Callable[[gym.Env], gym.Env]],
    ) -> dict[str, Any]:
        """Make ``count`` envs as ``make_vec(env_id, count, wrappers=..., **env_kwargs)``.

        Returns what the driver needs to describe the vector env without making one itself:
        the single spaces, the metadata and the spec id.
        """
        if group in self._groups:
            raise ValueError(f"group {group!r} is already open on this actor")
        vec = make_vec(env_id, count, wrappers=wrappers, **env_kwargs)
        self._groups[group] = vec
        return {
            "single_observation_space": vec.single_observation_space,
            "single_action_space": vec.single_action_space,
            "metadata": vec.metadata,
            "name": repr(vec),
        }

    def reset(
        self, group: str, seeds: list[int | None], options: dict[str, Any] | None
    ) -> tuple[list[Any], list[dict[str, Any]]]:
        """``reset(seed=seeds, options=options)`` on the group."""
        return self._group(group).reset(seed=seeds, options=options)

    def step(self, group: str, actions: list[Any]) -> tuple[Any, ...]:
        """``step(actions)`` on the group (same-step autoreset as in :class:`TextVectorEnv`)."""
        return self._group(group).step(actions)

    def call(self, group: str, name: str, args: tuple, kwargs: dict[str, Any]) -> list[Any]:
        """``call(name, *args, **kwargs)`` on every env of the group."""
        return self._group(group).call(name, *args, **kwargs)

    def call_each(self, group: str, name: str, per_env_args: list[tuple]) -> list[Any]:
        """Call ``name`` on env ``i`` with ``*per_env_args[i]`` (one argument tuple per env)."""
        vec = self._group(group)
        if len(per_env_args) != vec.num_envs:
            raise ValueError(f"need {vec.num_envs} argument tuples, got {len(per_env_args)}")
        results = []
        for env, args in zip(vec.envs, per_env_args, strict=True):
            attr = env.get_wrapper_attr(name)
            results.append(attr(*args) if callable(attr) else attr)
        return results

    def render(self, group: str) -> list[Any]:
        """Each env's ``render()``."""
        return self._group(group).render()

    def close(self, group: str) -> None:
        """Close the group's envs and forget it; closing an unknown group does nothing."""
        vec = self._groups.pop(group, None)
        if vec is not None:
            vec.close()

    def sessions(self) -> int:
        """How many envs this actor hosts now, over all groups."""
        return sum(vec.num_envs for vec in self._groups.values())

    def _group(self, group: str) -> TextVectorEnv:
        try:
            return self._groups[group]
        except KeyError:
            raise KeyError(f"no group {group!r} on this actor (closed or never opened)") from None


@dataclass(frozen=True)
class Block:
    """A contiguous run of a vector env's envs on one actor: envs ``start .. start+count-1``."""

    actor: Any
    start: int
    count: int


class EnvPool:
    """Ray actors (:class:`EnvHost`) that host env sessions for any number of vector envs.

    Args:
        num_actors: how many actors; default: as many as the cluster's CPUs allow at
            ``num_cpus`` each (at least 1).
        num_cpus: CPUs Ray reserves per actor (Ray's ``num_cpus``; fractions allowed, 0 for
            none). Env steps are single-threaded Python, so 1 is one busy core per actor.
        actor_options: more ``.options(...)`` for every actor, e.g. ``{"resources":
            {"envs": 1}}`` to pin them to nodes started with that custom resource, or
            ``{"runtime_env": {...}}``.
        start_timeout: seconds to wait for every actor to come up; an actor the cluster
            cannot place (not enough CPUs) would otherwise wait forever.

    :meth:`close` kills the actors (idempotent). The pool is a context manager.

    >>> import ray                                                     # doctest: +SKIP
    >>> ray.init(num_cpus=2, include_dashboard=False)                  # doctest: +SKIP
    >>> with EnvPool(2) as pool:                                       # doctest: +SKIP
    ...     a = RayVectorEnv("agentgym/TicTacToe-v0", 4, actors=pool)
    ...     b = RayVectorEnv("agentgym/Sudoku-v0", 4, actors=pool)
    ...     pool.sessions()
    [4, 4]
    """

    def __init__(
        self,
        num_actors: int | None = None,
        *,
        num_cpus: float = 1.0,
        actor_options: dict[str, Any] | None = None,
        start_timeout: float = 120.0,
    ) -> None:
        ray = require_ray()
        if isinstance(num_cpus, bool) or not isinstance(num_cpus, (int, float)) or num_cpus < 0:
            raise ValueError(f"num_cpus must be a number >= 0, got {num_cpus!r}")
        if num_actors is None:
            cpus = float(ray.cluster_resources().get("CPU", 1.0))
            num_actors = max(1, int(cpus // num_cpus)) if num_cpus > 0 else max(1, int(cpus))
        if isinstance(num_actors, bool) or not isinstance(num_actors, int) or num_actors < 1:
            raise ValueError(f"num_actors must be an integer >= 1, got {num_actors!r}")
        self.num_cpus = float(num_cpus)
        self.closed = False
        remote_host = ray.remote(EnvHost)
        options = {"num_cpus": num_cpus, **(actor_options or {})}
        self.actors: list[Any] = [
            remote_host.options(**options).remote() for _ in range(num_actors)
        ]
        self._load = [0] * num_actors
        try:
            ray_get([a.ping.remote() for a in self.actors], timeout=start_timeout)
        except ray.exceptions.GetTimeoutError:
            self.close()
            have = ray.cluster_resources().get("CPU", 0)
            raise RuntimeError(
                f"{num_actors} env actors at num_cpus={num_cpus} did not start within "
                f"{start_timeout:g} s (the cluster has {have:g} CPUs); use fewer actors or "
                "a smaller num_cpus"
            ) from None
        except BaseException:
            self.close()
            raise

    @property
    def num_actors(self) -> int:
        """How many actors the pool has."""
        return len(self.actors)

    def place(self, num_envs: int) -> list[Block]:
        """Blocks for ``num_envs`` envs on the least-loaded actors (sizes differ by at most 1).

        Uses ``min(num_envs, num_actors)`` actors and counts the envs against them until
        :meth:`release`.
        """
        self._check_open()
        if isinstance(num_envs, bool) or not isinstance(num_envs, int) or num_envs < 1:
            raise ValueError(f"num_envs must be an integer >= 1, got {num_envs!r}")
        used = min(num_envs, len(self.actors))
        # Least-loaded first; ties keep the actors' order so placement is repeatable.
        chosen = sorted(range(len(self.actors)), key=lambda i: self._load[i])[:used]
        chosen.sort()
        base, extra = divmod(num_envs, used)
        blocks, start = [], 0
        for k, i in enumerate(chosen):
            count = base + (1 if k < extra else 0)
            blocks.append(Block(self.actors[i], start, count))
            self._load[i] += count
            start += count
        return blocks

    def release(self, blocks: Sequence[Block]) -> None:
        """Stop counting ``blocks`` (from :meth:`place`) against their actors."""
        index = {id(a): i for i, a in enumerate(self.actors)}
        for block in blocks:
            i = index.get(id(block.actor))
            if i is not None:
                self._load[i] = max(0, self._load[i] - block.count)

    def sessions(self) -> list[int]:
        """Envs each actor hosts now (asked of the actors, not the pool's own count)."""
        self._check_open()
        return ray_get([a.sessions.remote() for a in self.actors])

    def new_group(self) -> str:
        """A fresh group name, unique across pools and drivers."""
        return uuid.uuid4().hex

    def close(self) -> None:
        """Kill every actor (their envs die with them); later calls do nothing."""
        if self.closed:
            return
        self.closed = True
        import ray
        from ray.exceptions import GetTimeoutError, RayActorError

        for actor in self.actors:
            ray.kill(actor, no_restart=True)
        # ray.kill only sends the order: a call made just after may still be served. Wait
        # (bounded) until every actor refuses calls, so "closed" means "no actor left".
        deadline = time.monotonic() + 30.0
        alive = list(self.actors)
        while alive and time.monotonic() < deadline:
            still = []
            for actor in alive:
                try:
                    ray.get(actor.ping.remote(), timeout=max(0.1, deadline - time.monotonic()))
                except RayActorError:
                    continue
                except GetTimeoutError:
                    pass
                still.append(actor)
            alive = still
            if alive:
                time.sleep(0.05)

    def __enter__(self) -> EnvPool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        state = "closed" if self.closed else f"load={self._load}"
        return f"EnvPool(num_actors={len(self.actors)}, num_cpus={self.num_cpus:g}, {state})"

    def _check_open(self) -> None:
        if self.closed:
            raise RuntimeError("this EnvPool is closed")
