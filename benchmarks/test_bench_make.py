"""Construct + reset of every game, and what the declared config's validation costs in it.

Issue 32 moved every env's kwarg checks into a strict pydantic model (``agentgym.config``);
``gym.make`` + ``reset`` must not get slower by more than 10%. Rows:

* ``make-reset-<game>``: ``gym.make(id)`` then ``reset(seed)`` (a new seed each round), the
  whole cost a vector env or a server pays per new session;
* ``config-parse-<game>``: the config model's validation of the default kwargs alone, the
  part of the constructor the models added.

Comparing against the code before the models: run this file in a checkout of the commit
before them (``git worktree add /tmp/before <commit>``, copy this file there) in the same run
of the machine; the closing note of issue 32 gives the figures.
"""

from __future__ import annotations

import itertools

import gymnasium as gym
import pytest

import agentgym  # noqa: F401  (registers the ids)

GAMES = ("agentgym/Sokoban-v0", "agentgym/Sudoku-v0", "agentgym/Minesweeper-v0",
         "agentgym/TicTacToe-v0")


@pytest.mark.parametrize("env_id", GAMES, ids=lambda i: i.split("/")[1])
def test_make_reset(benchmark, env_id):
    benchmark.group = "make-reset"
    seeds = itertools.count()

    def make_reset() -> None:
        env = gym.make(env_id)
        env.reset(seed=next(seeds))
        env.close()

    benchmark(make_reset)


@pytest.mark.parametrize("env_id", GAMES, ids=lambda i: i.split("/")[1])
def test_config_parse(benchmark, env_id):
    from agentgym.envinfo import config_model

    model = config_model(env_id)
    if model is None:  # the code before the declared configs
        pytest.skip("no declared config")
    benchmark.group = "config-parse"
    benchmark(model.parse, {})
