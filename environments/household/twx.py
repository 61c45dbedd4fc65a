"""TextWorldExpress's games (CookingWorld, CoinCollector, TWC) on the agentgym contract.

An optional extra (``pip install "agentgym[twx]"``; TextWorldExpress runs a Java server, so
Java 11+ must be on the PATH). :func:`register` adds ``agentgym/TWX-CookingWorld-v0``,
``agentgym/TWX-CoinCollector-v0`` and ``agentgym/TWX-TWC-v0`` to Gymnasium's registry; they
are not in agentgym's own table, so an install without Java or the extra is unaffected.

* Episodes: ``fold`` train / dev / test picks the game's own seed list (1000 each);
  ``reset(seed=s)`` plays the seed the env's generator draws from it, so a seed means one
  game. ``game_params`` passes TextWorldExpress's generation string unchanged.
* Rewards: process = the change of the game's own partial score (in [0, 1]: recipe steps,
  objects put away), outcome 1 on the game's task success. A failed task terminates.
* Commands must be one of the game's valid actions (``available_actions``, sorted); any other
  text is invalid (clear error, the closest valid action named, nothing sent to the game).
* Snapshots replay the command history from the game seed (the games are deterministic);
  one Java server per process is shared by every env of that process, each env restoring
  its own game before it steps when another one used the server in between.

>>> import pytest
>>> _ = pytest.importorskip("textworld_express")
>>> register()
>>> import gymnasium as gym
>>> env = gym.make("agentgym/TWX-CoinCollector-v0")
>>> obs, info = env.reset(seed=0)
>>> "look around" in info["available_actions"]
True
"""

from __future__ import annotations

import difflib
import threading
from typing import Any, ClassVar

import gymnasium as gym
import numpy as np

from agentgym.core import Outcome, TextEnv
from agentgym.draws import below

__all__ = ["GAMES", "TWXEnv", "register"]

#: agentgym id suffix -> TextWorldExpress game name.
GAMES: dict[str, str] = {"CookingWorld": "cookingworld", "CoinCollector": "coin", "TWC": "twc"}
FOLDS = ("train", "dev", "test")


class _Server:
    """The process's one TextWorldExpress server and which env's game it holds now."""

    lock = threading.Lock()
    env: Any = None
    owner: object | None = None

    @classmethod
    def get(cls) -> Any:
        if cls.env is None:
            from textworld_express import TextWorldExpressEnv

            # The step limit is agentgym's (max_steps); the server's own is set out of reach.
            cls.env = TextWorldExpressEnv(envStepLimit=100_000)
        return cls.env


class TWXEnv(TextEnv):
    """One TextWorldExpress game; rewards from its partial score (see the module docs)."""

    verifier_name: ClassVar[str] = "textworld-express-score"
    verifier_version: ClassVar[str] = "1"
    rules: ClassVar[str] = (
        "A text adventure. Read the task in the observation and carry it out by typing one of "
        "the valid actions listed, exactly as written, e.g. <action>VALID ACTION</action>. "
        "The game's score rises as you complete parts of the task; completing it ends the "
        "episode."
    )

    def __init__(
        self,
        game: str = "coin",
        fold: str = "train",
        game_params: str = "",
        *,
        reward_mode: str = "both",
        render_mode: str | None = None,
        score_process: bool = True,
        max_steps: int = 50,
        invalid_penalty: float = -0.1,
        max_invalid: int = 50,
    ) -> None:
        super().__init__(reward_mode=reward_mode, render_mode=render_mode,
                         score_process=score_process, max_steps=max_steps,
                         invalid_penalty=invalid_penalty, max_invalid=max_invalid)
        if game not in GAMES.values():
            raise ValueError(f"game must be one of {sorted(GAMES.values())}, got {game!r}")
        if fold not in FOLDS:
            raise ValueError(f"fold must be one of {FOLDS}, got {fold!r}")
        if not isinstance(game_params, str):
            raise ValueError(f"game_params must be a str, got {game_params!r}")
        self.game, self.fold, self.game_params = game, fold, game_params
        self._token = object()

    # ------------------------------------------------------------------ the server
    def _server(self) -> Any:
        """The server, holding this env's game in its current state."""
        server = _Server.get()
        if _Server.owner is not self._token:
            server.load(gameName=self.game, gameParams=self.game_params)
            server.reset(seed=self.game_seed, gameFold=self.fold, generateGoldPath=False)
            for command in self.history:
                server.step(command)
            _Server.owner = self._token
        return server

    def _take(self, infos: dict[str, Any], obs: str) -> None:
        self.text = obs.strip() or "(nothing)"
        self.valid = sorted(set(infos["validActions"]))
        self.score = float(infos["score"])
        self.won, self.lost = bool(infos["tasksuccess"]), bool(infos["taskfailure"])
        self.task = str(infos.get("taskDescription", ""))

    # ------------------------------------------------------------------ hooks
    def _new_episode(self, rng: np.random.Generator, options: dict[str, Any]) -> None:
        with _Server.lock:
            server = _Server.get()
            server.load(gameName=self.game, gameParams=self.game_params)
            seeds = {"train": server.getValidSeedsTrain, "dev": server.getValidSeedsDev,
                     "test": server.getValidSeedsTest}[self.fold]()
            self.game_seed = int(seeds[below(rng, len(seeds))])
            obs, infos = server.reset(seed=self.game_seed, gameFold=self.fold,
                                      generateGoldPath=False)
            _Server.owner = self._token
            self.history: list[str] = []
            self._gold_path: list[str] | None = None
            self._take(infos, obs)

    def _observe(self) -> str:
        return (f"{self.text}\n\nTask: {self.task}\nScore: {self.score:.2f}\n"
                f"Valid actions: {', '.join(self.valid)}.\nSteps left: {self.steps_left}.")[
            : self.max_observation_length]

    def _legal_actions(self) -> list[str]:
        return list(self.valid)

    def _parse(self, text: str) -> tuple[Any, str]:
        stripped = text.strip()
        if stripped in self.valid:
            return stripped, ""
        shown = stripped if len(stripped) <= 60 else stripped[:57] + "..."
        close = difflib.get_close_matches(" ".join(stripped.lower().split())[:200], self.valid,
                                          n=1, cutoff=0.0)
        hint = f"; the closest valid action is {close[0]!r}" if close else ""
        return None, f"{shown!r} is not a valid action here{hint}"

    def _apply(self, command: str) -> Outcome:
        before = self.score
        with _Server.lock:
            server = self._server()
            obs, _, _, infos = server.step(command)
        self.history.append(command)
        self._take(infos, obs)
        ended = self.won or self.lost
        return Outcome(process=self.score - before, outcome=1.0 if self.won else 0.0,
                       terminated=ended, success=self.won,
                       info={"game": self.game, "game_seed": self.game_seed,
                             "score": self.score})

    def _gold(self) -> list[str]:
        """The game's own gold path from the start (asked for once, on first use)."""
        if getattr(self, "_gold_path", None) is None:
            with _Server.lock:
                server = _Server.get()
                server.load(gameName=self.game, gameParams=self.game_params)
                server.reset(seed=self.game_seed, gameFold=self.fold, generateGoldPath=True)
                self._gold_path = [a for a in server.getGoldActionSequence()
                                   if not a.startswith("ERROR")]
                _Server.owner = None  # replay this env's history before its next step
        return self._gold_path

    def oracle_actions(self) -> list[str]:
        """The top-scored actions, the gold path's first unplayed one first when among them.

        The gold path is a plan, not an order: an agent that took a scoring step early is
        still on it, so the oracle keeps to the gold actions not yet played (in order).
        """
        best = super().oracle_actions()
        remaining = list(self._gold())
        for played in self.history:
            if played in remaining:
                remaining.remove(played)
        for action in remaining:
            if action in best:
                return [action]
        return best

    def _config(self) -> dict[str, Any]:
        return {"game": self.game, "fold": self.fold, "game_params": self.game_params}

    def _state_dict(self) -> dict[str, Any]:
        return {"game_seed": self.game_seed, "history": list(self.history), "text": self.text,
                "valid": list(self.valid), "score": self.score, "won": self.won,
                "lost": self.lost, "task": self.task, "gold": self._gold_path}

    def _load_state_dict(self, d: dict[str, Any]) -> None:
        self.game_seed, self.history = int(d["game_seed"]), list(d["history"])
        self.text, self.valid, self.score = d["text"], list(d["valid"]), float(d["score"])
        self.won, self.lost, self.task = bool(d["won"]), bool(d["lost"]), d["task"]
        # TextWorldExpress draws a gold path anew on each request (ties broken at random), so
        # the episode keeps the one it was given.
        self._gold_path = d.get("gold")
        _Server.owner = None  # the server replays this history before the next step


def register() -> None:
    """Register the three TextWorldExpress ids with Gymnasium (idempotent)."""
    from agentgym.registry import EnvCreator

    for suffix, game in GAMES.items():
        env_id = f"agentgym/TWX-{suffix}-v0"
        if env_id in gym.registry:
            continue
        gym.register(id=env_id, entry_point=EnvCreator(
            env_id, "agentgym.environments.household.twx:TWXEnv"), kwargs={"game": game},
            disable_env_checker=False, order_enforce=True)
