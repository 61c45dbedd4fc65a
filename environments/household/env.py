"""``agentgym/Household-v0``: ALFWorld's six household task types on the env contract.

An episode is a generated room (:mod:`.generator`: ``split`` train / seen / unseen,
``task_type`` one of :data:`.tasks.TASK_TYPES` or ``"any"``) and a task sentence. The agent
types ALFWorld's commands (``go to drawer 2``, ``open drawer 2``, ``take mug 1 from drawer
2``, ``move mug 1 to cabinet 3``, ``heat mug 1 with microwave 1``, ``use desklamp 1``,
``examine``, ``look``, ``inventory``); ``info["available_actions"]`` lists the admissible
ones, in the observation too.

Rewards:

* outcome 1.0 on the step the goal holds (the episode then terminates), else 0.0;
* process ``gamma * phi(s') - phi(s)``, potential-based shaping (Ng et al., 1999) with
  ``phi`` the share of the goal's milestones satisfied (:func:`.tasks.progress`: found,
  held, transformed, placed), so it cannot change which policy is optimal. The env declares
  ``phi`` (``_shaping_potential``) and :class:`~agentgym.core.TextEnv` applies it with its end rule
  (the last potential counts as the outcome): ``phi`` of a solved state is 1; a truncated
  episode's last state counts 0, so with ``gamma = 1`` the process rewards of any episode
  sum to ``success - phi(s_0)`` = ``success``. An invalid command changes nothing:
  ``gamma * phi(s) - phi(s)`` plus ``invalid_penalty``.

Invalid commands (naming something that is not there, the wrong case or spacing, 100 KB of
text) answer "Nothing happens.", leave the state alone and say in ``info["action_error"]``
which admissible command is closest; they count towards ``max_invalid``.

``oracle_actions()`` asks a bounded A* planner (:mod:`.planner`, at most ``planner_nodes``
expanded states a search) for the first actions of the shortest plans and keeps the ones
with the top process reward; ``score_actions`` is exact and cheap. ``info`` also carries
``task_type`` (for success per type) and ``state_key``: a canonical digest of the symbolic
state as far as the agent has seen it, equal within an episode exactly when two states are
(feedback text aside), for GiGPO-style grouping.

>>> import gymnasium as gym
>>> import agentgym
>>> env = gym.make("agentgym/Household-v0", task_type="pick_and_place_simple")
>>> obs, info = env.reset(seed=0)
>>> print(obs.splitlines()[2])
Your task is to: put a candle in drawer.
>>> while True:
...     obs, reward, terminated, truncated, info = env.step(env.unwrapped.oracle_actions()[0])
...     if terminated or truncated:
...         break
>>> info["success"], info["step"], info["task_type"]
(True, 5, 'pick_and_place_simple')
"""

from __future__ import annotations

import difflib
from typing import Any, ClassVar

import numpy as np

from agentgym.core import Outcome, TextEnv, settle, shaping

from .config import HouseholdConfig
from .generator import Episode, generate
from .planner import PLANNER_MAX_NODES, Planner
from .tasks import Task, goal_holds, progress
from .world import (
    Action,
    Scene,
    State,
    apply,
    command,
    legal_actions,
    opening_view,
    start_state,
    state_key,
)

__all__ = ["HouseholdEnv"]


class HouseholdEnv(TextEnv):
    """ALFWorld-style household tasks in seeded rooms; milestone-potential process reward.

    Its kwargs are declared in :class:`~.config.HouseholdConfig` (types, bounds, defaults,
    and what remote clients and leaderboard bundles may set).
    """

    verifier_name: ClassVar[str] = "household-milestones-astar"
    verifier_version: ClassVar[str] = "1"
    config_model = HouseholdConfig
    rules: ClassVar[str] = (
        "You are in a household room with numbered receptacles (cabinet 1, drawer 2, fridge "
        "1, ...) and objects (mug 1, apple 2, ...). Carry out the task sentence. Commands: "
        "go to RECEPTACLE, open RECEPTACLE, close RECEPTACLE, take OBJECT from RECEPTACLE, "
        "move OBJECT to RECEPTACLE, heat OBJECT with RECEPTACLE (a microwave), cool OBJECT "
        "with RECEPTACLE (a fridge), clean OBJECT with RECEPTACLE (a sink basin), use OBJECT "
        "(switch a lamp), examine RECEPTACLE or OBJECT, look, inventory. A closed receptacle "
        "must be opened before you take from it or put into it; you carry one object at a "
        "time. Type a command exactly as the admissible list writes it, e.g. "
        "<action>take OBJECT from RECEPTACLE</action>. Achieving the task ends the episode."
    )

    def __init__(
        self,
        task_type: str = "any",
        split: str = "train",
        gamma: float = 1.0,
        planner_nodes: int = PLANNER_MAX_NODES,
        *,
        reward_mode: str = "both",
        render_mode: str | None = None,
        score_process: bool = True,
        max_steps: int = 50,
        invalid_penalty: float = -0.1,
        max_invalid: int = 50,
    ) -> None:
        cfg = HouseholdConfig.of(locals(), owner="HouseholdEnv")
        super().__init__(**cfg.contract())
        self.task_type, self.split = cfg.task_type, cfg.split
        self.gamma = cfg.gamma
        self.planner_nodes = cfg.planner_nodes
        self._planner: Planner | None = None
        self._commands: dict[str, Action] | None = None

    # ------------------------------------------------------------------ episode
    def _new_episode(self, rng: np.random.Generator, options: dict[str, Any]) -> None:
        self._start(generate(rng, split=self.split, task_type=self.task_type))
        self.feedback = opening_view(self.scene)

    def _start(self, episode: Episode) -> None:
        self.episode = episode
        self.scene: Scene = episode.scene
        self.task: Task = episode.task
        self.state: State = start_state(self.scene, episode.where)
        self._planner = None
        self._commands = None

    @property
    def planner(self) -> Planner:
        """The episode's planner (made on first use; its distance cache lives with it)."""
        if self._planner is None:
            self._planner = Planner(self.scene, self.task, max_nodes=self.planner_nodes)
        return self._planner

    # ------------------------------------------------------------------ observation
    def _observe(self) -> str:
        listed = ", ".join(self._legal_actions()) if not self.is_over else "none (episode over)"
        return (
            f"{self.feedback}\n\nYour task is to: {self.task.sentence}\n"
            f"Admissible commands: {listed}.\nSteps left: {self.steps_left}."
        )

    def _command_map(self) -> dict[str, Action]:
        if self._commands is None:
            self._commands = {command(self.scene, a): a for a in legal_actions(self.scene,
                                                                               self.state)}
        return self._commands

    def _legal_actions(self) -> list[str]:
        return list(self._command_map())

    def _parse(self, text: str) -> tuple[Any, str]:
        commands = self._command_map()
        stripped = text.strip()
        if stripped in commands:
            return commands[stripped], ""
        return None, self._explain(stripped, commands)

    @staticmethod
    def _explain(text: str, commands: dict[str, Action]) -> str:
        shown = text if len(text) <= 60 else text[:57] + "..."
        normal = " ".join(text.lower().split())
        if normal in commands:
            return (f"{shown!r} is not a command as written: commands are lower-case with "
                    f"single spaces; write {normal!r}")
        close = difflib.get_close_matches(normal[:200], list(commands), n=1, cutoff=0.0)
        hint = f"; the closest admissible command is {close[0]!r}" if close else ""
        return f"{shown!r} is not an admissible command here{hint}"

    # ------------------------------------------------------------------ rewards
    def _phi(self, state: State) -> float:
        if goal_holds(self.scene, state, self.task):
            return 1.0
        done, total = progress(self.scene, state, self.task)
        return done / total

    def _extras(self) -> dict[str, Any]:
        return {
            "task_type": self.task.type,
            "task": self.task.sentence,
            "split": self.split,
            "state_key": state_key(self.scene, self.task.sentence, self.state),
        }

    def _reset_info(self) -> dict[str, Any]:
        return self._extras()

    def _shaping_potential(self) -> float:
        # TextEnv applies gamma * phi(s') - phi(s) and counts the last potential as the
        # outcome (1 solved, 0 unsolved), whatever limit cut the episode.
        return self._phi(self.state)

    def _apply(self, move: Action) -> Outcome:
        self.state, self.feedback = apply(self.scene, self.state, move)
        self._commands = None
        solved = goal_holds(self.scene, self.state, self.task)
        if solved:
            self.feedback += " You have completed the task."
        return Outcome(outcome=1.0 if solved else 0.0, terminated=solved, success=solved,
                       info=self._extras())

    def _reject(self, error: str) -> Outcome:
        self.feedback = "Nothing happens."
        return Outcome(info=self._extras())

    def _on_end(self, out: Outcome) -> None:
        if out.truncated:
            self.feedback += " The episode is over: the task was not completed."

    def _score(self, move: Action, snapshot: bytes) -> float:
        # Exactly what _resolve would give a legal move (the base's shaping and end rule),
        # without a snapshot round trip.
        after, _ = apply(self.scene, self.state, move)
        phi = self._phi(after)
        process = shaping(self.gamma, self._phi(self.state), phi)
        if not goal_holds(self.scene, after, self.task) and self.steps + 1 >= self.max_steps:
            process += settle(self.gamma, phi, 0.0)
        return process

    def oracle_actions(self) -> list[str]:
        """First actions of the planner's shortest plans, the top-scored of them."""
        self._require_started()
        if self.is_over:
            return []
        best = self.planner.best_first_actions(self.state)
        if not best:  # the search ran out of budget: fall back to the top milestone scores
            return super().oracle_actions()
        commands = [command(self.scene, a) for a in best]
        scores = self.score_actions(commands)
        top = max(scores)
        return [c for c, s in zip(commands, scores, strict=True) if s == top]

    def plan(self) -> list[str] | None:
        """A shortest plan from the current state, as commands (None if over budget)."""
        self._require_started()
        plan = self.planner.plan(self.state)
        return None if plan is None else [command(self.scene, a) for a in plan]

    # ------------------------------------------------------------------ snapshots
    def _config(self) -> dict[str, Any]:
        return {"task_type": self.task_type, "split": self.split, "gamma": self.gamma,
                "planner_nodes": self.planner_nodes}

    def _state_dict(self) -> dict[str, Any]:
        s, e = self.scene, self.episode
        return {
            "scene": [s.room, list(s.receptacles), list(s.receptacle_kinds), list(s.objects),
                      list(s.object_kinds)],
            "where": list(e.where),
            "task": [e.task.type, e.task.obj, e.task.target],
            "layout": e.layout_index,
            "state": [self.state.loc, self.state.held, self.state.opened,
                      list(self.state.where), *self.state[4:]],
            "feedback": self.feedback,
        }

    def _load_state_dict(self, d: dict[str, Any]) -> None:
        room, names, kinds, objects, okinds = d["scene"]
        scene = Scene(room, tuple(names), tuple(kinds), tuple(objects), tuple(okinds))
        self._start(Episode(scene, tuple(d["where"]), Task(*d["task"]), int(d["layout"])))
        loc, held, opened, where, *rest = d["state"]
        self.state = State(loc, held, opened, tuple(where), *rest)
        self.feedback = d["feedback"]
