"""Adapters that drive the peer libraries the same way the agentgym side is driven.

Every peer is optional (``pip install -e ".[peers]"``, or ``scripts/bench.sh``): a missing
peer skips its benchmarks with the reason, it never produces a number. Nothing here calls an
LLM or the network; the peers are stepped with pre-computed action strings.

Peers and what is timed (see ``benchmarks/README.md`` for the comparability notes):

* TextArena (``textarena``): ``ta.make(id)`` envs, stepped as TextArena's own agent loop does,
  ``env.get_observation()`` then ``env.step(action)``. Its ``reset(num_players=1, seed=s)``
  calls the global ``random.seed(s)``; that is the library's behaviour, kept as is.
* gym-sokoban (``gym_sokoban``): ``gym_sokoban.envs.room_utils.generate_room``, retried on
  its ``RuntimeError`` / ``RuntimeWarning`` exactly like ``SokobanEnv.reset`` does. It draws
  from the global ``random`` and ``numpy.random``; its seed never reaches the generator.
* reasoning-gym (``reasoning_gym``): ``create_dataset(name, ...)[idx]``, which generates the
  item (puzzle, question text and answer) on every access.

BrowserGym (``browsergym-core``) is not here: its Playwright pin keeps it out of the project
venv, so it runs in its own venv as a subprocess (``benchmarks/browsergym_peer.py``) and is
not in :data:`PEER_DISTRIBUTIONS`.

>>> sorted(PEER_DISTRIBUTIONS)
['gym-sokoban', 'reasoning-gym', 'textarena']
"""

from __future__ import annotations

import copy
import importlib
import random
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from importlib import metadata
from types import ModuleType
from typing import Any

import numpy as np
import pytest
from bench_common import describe, record_rounds

# Import name -> distribution name on PyPI (versions are read from the installed metadata).
PEER_DISTRIBUTIONS: dict[str, str] = {
    "textarena": "textarena",
    "gym-sokoban": "gym_sokoban",
    "reasoning-gym": "reasoning_gym",
}

__all__ = [
    "PEER_DISTRIBUTIONS",
    "TextArenaEpisode",
    "bench_textarena_steps",
    "gym_sokoban_room",
    "peer_label",
    "peer_version",
    "reasoning_gym_dataset",
    "require_peer",
    "textarena_minesweeper_episodes",
    "textarena_play",
    "textarena_sokoban_reset",
    "textarena_sudoku_episodes",
    "textarena_tictactoe_episode",
]


def peer_version(dist: str) -> str | None:
    """Installed version of a peer distribution, or ``None`` when it is not installed.

    >>> peer_version("surely-not-installed-anywhere") is None
    True
    """
    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return None


def peer_label(dist: str, variant: str = "") -> str:
    """``"textarena 0.7.4"`` style label (plus a variant note) used in ``extra_info``."""
    version = peer_version(dist) or "?"
    return f"{dist} {version}" + (f" ({variant})" if variant else "")


def require_peer(dist: str, module: str | None = None) -> ModuleType:
    """Import a peer or skip the calling benchmark with a reason naming the install command."""
    module = module or PEER_DISTRIBUTIONS.get(dist, dist)
    reason = (
        f"peer {dist!r} is not importable; install the peers with "
        f'`pip install -e ".[dev,peers]"` or run scripts/bench.sh'
    )
    with warnings.catch_warnings():
        # Importing gym_sokoban imports the unmaintained `gym` 0.26, which warns loudly; the
        # warning is about gym, not about what is measured here.
        warnings.simplefilter("ignore")
        try:
            return importlib.import_module(module)
        except ImportError as exc:
            pytest.skip(f"{reason}: {exc}")
        except Exception as exc:  # a peer that installs but cannot import with numpy 2 etc.
            pytest.skip(f"peer {dist!r} is installed but fails to import: {exc!r}")
    raise AssertionError("unreachable")  # pytest.skip raises


# --------------------------------------------------------------------------- TextArena
@dataclass
class TextArenaEpisode:
    """A reset TextArena env plus the valid actions to replay from that state.

    ``fresh()`` deep-copies the template (TextArena's ``Wrapper`` supports ``deepcopy``), so
    every timed round starts from the same state and pays no generation cost.
    """

    template: Any
    actions: list[str]

    def fresh(self) -> Any:
        return copy.deepcopy(self.template)


def textarena_play(env: Any, actions: Sequence[str]) -> None:
    """TextArena's own agent loop: read the observation, then step; ends early only on done."""
    for action in actions:
        env.get_observation()
        done, _ = env.step(action)
        if done:
            break


def bench_textarena_steps(
    benchmark: Any,
    episodes: Sequence[TextArenaEpisode],
    rounds: int,
    *,
    group: str,
    impl: str,
    variant: str = "",
    unit: str = "step",
) -> None:
    """Time TextArena's own loop over ``episodes``: the TextArena row of a step group.

    Each round starts from a fresh copy of one episode's env (untimed) and times
    :func:`textarena_play` over its actions; ``per_round`` is their common action count.
    """
    lengths = {len(ep.actions) for ep in episodes}
    if len(lengths) != 1:
        # per_round is one number for the whole row, so every round must do the same work.
        raise ValueError(f"need episodes with one common action count, got {sorted(lengths)}")
    describe(
        benchmark,
        group=group,
        side="peer",
        impl=impl,
        peer="textarena",
        variant=variant,
        unit=unit,
        per_round=lengths.pop(),
    )
    record_rounds(
        benchmark,
        textarena_play,
        [ep.fresh for ep in episodes],
        [ep.actions for ep in episodes],
        rounds,
    )


def _ta_make(env_id: str, **kwargs: Any) -> Any:
    ta = require_peer("textarena")
    return ta.make(env_id, **kwargs)


def _ta_inner(env: Any) -> Any:
    while hasattr(env, "env"):
        env = env.env
    return env


def textarena_sudoku_episodes(
    seeds: Sequence[int], steps: int, *, clues: int = 41, raw: bool = False
) -> list[TextArenaEpisode]:
    """TextArena Sudoku episodes (``clues=41`` is 40 blanks) with ``steps`` correct moves each.

    The moves fill blanks in row-major order with the digit of TextArena's own full grid, in
    its ``[row col digit]`` format (1-based), so each one is a valid, correct placement.
    """
    episodes = []
    for seed in seeds:
        env = _ta_make("Sudoku-v0-raw" if raw else "Sudoku-v0", clues=clues)
        env.reset(num_players=1, seed=seed)
        inner = _ta_inner(env)
        board, full = inner.state.game_state["board"], inner.full_grid
        moves = [
            f"[{r + 1} {c + 1} {full[r][c]}]"
            for r in range(9)
            for c in range(9)
            if board[r][c] == 0
        ]
        if len(moves) < steps:
            raise RuntimeError(f"TextArena Sudoku seed {seed} left only {len(moves)} blanks")
        episodes.append(TextArenaEpisode(env, moves[:steps]))
    return episodes


def textarena_minesweeper_episodes(
    seeds: Sequence[int],
    steps: int,
    *,
    rows: int = 8,
    cols: int = 8,
    mines: int = 10,
    raw: bool = False,
) -> list[TextArenaEpisode]:
    """TextArena Minesweeper after its first reveal (which places the mines), plus ``steps``
    reveals of safe, still-hidden, numbered cells (one cell each, no flood).

    Numbered cells are the cheapest reveal TextArena can do, which favours the peer.
    Seeds whose board has fewer such cells are skipped, so pass a few spare seeds.
    """
    episodes = []
    first = f"[{rows // 2} {cols // 2}]"  # TextArena coordinates are 0-based
    for seed in seeds:
        env = _ta_make(
            "Minesweeper-v0-raw" if raw else "Minesweeper-v0", rows=rows, cols=cols, num_mines=mines
        )
        env.reset(num_players=1, seed=seed)
        env.get_observation()
        done, _ = env.step(first)
        inner = _ta_inner(env)
        if done:
            continue
        moves = [
            f"[{r} {c}]"
            for r in range(rows)
            for c in range(cols)
            if inner.grid[r][c] > 0 and not inner.revealed[r][c]
        ]
        if len(moves) > steps:  # strictly more: the episode must not end inside the round
            episodes.append(TextArenaEpisode(env, moves[:steps]))
    if not episodes:
        raise RuntimeError("no TextArena Minesweeper seed had enough numbered cells")
    return episodes


def textarena_tictactoe_episode(cells: Sequence[int], *, raw: bool = False) -> TextArenaEpisode:
    """TextArena TicTacToe (two players) replaying a whole game given as flat cells 0-8."""
    env = _ta_make("TicTacToe-v0-raw" if raw else "TicTacToe-v0")
    env.reset(num_players=2, seed=0)
    return TextArenaEpisode(env, [f"[{c}]" for c in cells])


def textarena_sokoban_reset(size: int, boxes: int) -> Callable[[int], Any]:
    """``reset(seed)`` of a TextArena Sokoban env (its own copy of the gym-sokoban generator)."""
    env = _ta_make("Sokoban-v0", dim_room=(size, size), num_boxes=boxes)

    def reset(seed: int) -> Any:
        env.reset(num_players=1, seed=seed)
        return env

    return reset


# --------------------------------------------------------------------------- gym-sokoban
def gym_sokoban_room(size: int, boxes: int) -> Callable[[], tuple[Any, int]]:
    """One successful ``generate_room`` call (retrying as ``SokobanEnv.reset`` does).

    ``num_steps`` is gym-sokoban's own env default, ``int(1.7 * (rows + cols))``. Returns a
    function giving ``(room_state, failed_attempts)``. Seeds the global generators once,
    because gym-sokoban has no other way to make a run repeatable.
    """
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        require_peer("gym-sokoban")
        room_utils = importlib.import_module("gym_sokoban.envs.room_utils")
    random.seed(0)
    np.random.seed(0)
    num_steps = int(1.7 * (size + size))

    def generate() -> tuple[Any, int]:
        failures = 0
        while True:
            try:
                _, room_state, _ = room_utils.generate_room(
                    dim=(size, size), num_steps=num_steps, num_boxes=boxes
                )
                return room_state, failures
            except (RuntimeError, RuntimeWarning):
                failures += 1

    return generate


# --------------------------------------------------------------------------- reasoning-gym
def reasoning_gym_dataset(name: str, **config: Any) -> Any:
    """``reasoning_gym.create_dataset(name, **config)``; items are generated on access."""
    rg = require_peer("reasoning-gym")
    return rg.create_dataset(name, **config)
