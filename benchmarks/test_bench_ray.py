"""Ray env pool: a 16-env RayVectorEnv against the local vector env, and Ray's per-step cost.

Groups ``ray-vec16-tictactoe`` and ``ray-vec16-sudoku``: the same 16 seeded start states
(restored with ``set_state`` in pedantic's ``setup``, untimed, on both sides) and the same
oracle actions, ``VECTOR_STEPS`` vector steps per round. The unit is one env step (a vector
step is 16), so the rates are env steps/s; the process reward is on (``score_process=True``,
the default). Rows:

* ``agentgym.vector.make_vec`` in this process (the primary row);
* ``RayVectorEnv`` on 1, 2 and 4 actors (envs split in blocks, one Ray call per actor per
  vector step, the actors step in parallel) and on 16 actors (one env per actor: the naive
  layout, one call per env);
* group ``ray-round-trip``: the floor, one ``ping`` to each actor of the 2-actor pool,
  gathered with one ``ray.get``, no env (unit: vector step).

The per-vector-step overhead of the pool is ``16 * (ray per-unit time - local per-unit
time)``; ``extra_info`` records ``num_envs``, ``actors`` and ``vector_steps``.

Ray runs locally (``ray.init`` with this machine's CPUs, no dashboard) for this module only;
actors get ``cpus / actors`` CPUs each so every layout fits. Skipped if Ray is missing.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

import pytest
from bench_common import describe, make_ours, scaled

ray = pytest.importorskip("ray", reason="Ray is not installed (pip install 'agentgym[ray]')")

from agentgym.distributed import EnvPool, RayVectorEnv  # noqa: E402
from agentgym.vector import make_vec  # noqa: E402

NUM_ENVS = 16
ACTOR_COUNTS = (1, 2, 4, 16)
#: Vector steps per timed round: a few moves that end no episode from the start states.
GAMES = {
    "tictactoe": ("agentgym/TicTacToe-v0", 2),
    "sudoku": ("agentgym/Sudoku-v0", 10),
}
KWARGS = {"score_process": True}
CPUS = os.cpu_count() or 1


@pytest.fixture(scope="module")
def ray_instance() -> Iterator[Any]:
    if ray.is_initialized():
        pytest.skip("Ray is already initialised in this process")
    ray.init(
        num_cpus=CPUS,
        include_dashboard=False,
        log_to_driver=False,
        object_store_memory=200 * 2**20,
    )
    try:
        yield ray
    finally:
        ray.shutdown()


def _start(env_id: str, steps: int) -> tuple[list[bytes], list[list[str]]]:
    """16 start snapshots and ``steps`` rows of 16 oracle actions ending no episode."""
    make_ours(env_id)  # skips with the reason if the env is missing in this checkout
    for base in range(0, 50 * NUM_ENVS, NUM_ENVS):
        with make_vec(env_id, NUM_ENVS, **KWARGS) as local:
            local.reset(seed=base)
            states = local.call("get_state")
            rows, ended = [], False
            for _ in range(steps):
                row = [best[0] for best in local.call("oracle_actions")]
                _, _, terminated, truncated, _ = local.step(row)
                rows.append(row)
                ended = ended or bool((terminated | truncated).any())
            if not ended:
                return states, rows
    raise RuntimeError(f"{env_id}: no 16 seeds whose {steps} oracle steps end no episode")


def _play(envs: Any, rows: list[list[str]]) -> None:
    for row in rows:
        envs.step(row)


CASES = [(game, actors) for game in GAMES for actors in (0, *ACTOR_COUNTS)]


@pytest.mark.parametrize(
    ("game", "actors"),
    CASES,
    ids=[f"{g}-{'local' if a == 0 else f'{a}-actors'}" for g, a in CASES],
)
def test_ray_vector_steps(benchmark: Any, ray_instance: Any, game: str, actors: int) -> None:
    """``VECTOR_STEPS`` steps of 16 envs, locally (actors=0) or on a Ray pool."""
    env_id, steps = GAMES[game]
    states, rows = _start(env_id, steps)
    pool = None
    if actors == 0:
        envs: Any = make_vec(env_id, NUM_ENVS, **KWARGS)
        envs.reset(seed=0)

        def restore() -> None:
            for env, state in zip(envs.envs, states, strict=True):
                env.unwrapped.set_state(state)

        impl = "agentgym.vector.make_vec, in process"
    else:
        pool = EnvPool(actors, num_cpus=CPUS / actors)
        envs = RayVectorEnv(env_id, NUM_ENVS, actors=pool, **KWARGS)
        envs.reset(seed=0)
        arg_lists = [(s,) for s in states]

        def restore() -> None:
            envs.call_each("set_state", arg_lists)

        per = NUM_ENVS // actors
        impl = f"RayVectorEnv, {actors} actor{'s' if actors > 1 else ''} x {per} envs"
    try:
        # Untimed check: both sides play the same episode.
        restore()
        first = envs.step(rows[0])[0]
        with make_vec(env_id, NUM_ENVS, **KWARGS) as ref:
            ref.reset(seed=0)
            for env, state in zip(ref.envs, states, strict=True):
                env.unwrapped.set_state(state)
            assert first == ref.step(rows[0])[0]
        describe(
            benchmark,
            group=f"ray-vec16-{game}",
            side="agentgym",
            impl=impl,
            unit="env step",
            per_round=NUM_ENVS * steps,
            primary=actors == 0,
            num_envs=NUM_ENVS,
            actors=actors,
            vector_steps=steps,
            cpus=CPUS,
        )
        benchmark.pedantic(
            lambda: _play(envs, rows),
            setup=restore,
            rounds=scaled(40),
            warmup_rounds=1,
        )
    finally:
        envs.close()
        if pool is not None:
            pool.close()


def test_ray_round_trip(benchmark: Any, ray_instance: Any) -> None:
    """The floor under a vector step on 2 actors: one no-op call to each, one ``ray.get``."""
    with EnvPool(2, num_cpus=CPUS / 2) as pool:
        actors = pool.actors
        describe(
            benchmark,
            group="ray-round-trip",
            side="agentgym",
            impl="ray.get of one ping per actor, 2 actors, no env",
            unit="vector step",
            per_round=20,
            primary=True,
            actors=2,
        )
        benchmark.pedantic(
            lambda: [ray.get([a.ping.remote() for a in actors]) for _ in range(20)],
            rounds=scaled(40),
            warmup_rounds=1,
        )
