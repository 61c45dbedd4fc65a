"""Progress rewards whose episode sum pays only for solving (the games' default process reward).

VPR's action-level verdicts (+2 for an optimal move, 0 for a legal one) are exact as scores of
one action against its siblings, but summed over an episode they can be farmed: a detour off
a shortest path and back onto it earns +2 every two steps, and a reward per action pays a
policy that splits one flood of reveals into fifteen single ones. So by default Sokoban and
Minesweeper pay a potential difference instead (Ng et al., 1999), settled at the end:

* a *potential* ``phi`` measures progress towards a solution: 0 at the start, ``total`` when
  solved (Sokoban: ``total * (d0 - d) / d0`` with ``d`` the shortest solution length and
  ``d0`` the start's; Minesweeper: ``total`` times the share of safe cells revealed);
* each step pays ``phi_after - phi_before - cost``, with a small ``cost`` per step
  (:func:`step_cost`), so any cycle back to the same state sums to ``-cost * length < 0``;
* the step that solves pays ``total - phi_before - cost``, so a solved episode of ``T`` steps
  sums to ``total - cost * T`` (between ``total / 2`` and ``total``): most for solving soonest;
* the step that ends an episode unsolved (a loss, the step budget, too many invalid actions)
  pays ``-paid``, the negative of everything paid before it, so an unsolved episode sums to
  exactly 0 (plus any invalid-action penalties, which are never refunded).

Hence no policy that fails to solve earns more than 0, and any solving one earns at least
``total / 2``. ``score_actions`` stays exactly the process reward ``step`` pays. (The sums
are undiscounted: under a discount below 1, progress paid early and settled late keeps a
little of its value, never as much as solving does.)

>>> total, cost = 1.0, step_cost(1.0, 10)
>>> cost
0.05
>>> progress_reward(0.0, 0.0, 0.5, total=total, cost=cost, solved=False, ends=False)
0.45
>>> progress_reward(0.45, 0.5, 0.0, total=total, cost=cost, solved=False, ends=True)
-0.45
>>> round(progress_reward(0.45, 0.5, 1.0, total=total, cost=cost, solved=True, ends=True), 10)
0.45
"""

from __future__ import annotations

from typing import Literal

__all__ = [
    "DESCRIPTIONS",
    "PROGRESS_TOTAL",
    "ProcessReward",
    "progress_reward",
    "settled_potential",
    "step_cost",
]

#: ``"progress"`` (default): the settled potential difference of this module, whose episode
#: sum pays only for solving; ``"verdict"`` (``preset="vpr"``): VPR's action-level scores,
#: meant for state-group training (each action compared with its siblings), not as a return.
#: The type of the games' ``process_reward`` config field.
ProcessReward = Literal["progress", "verdict"]

#: What the process rewards of a solved episode sum to before the per-step cost.
PROGRESS_TOTAL = 1.0

#: What ``info["process_reward"]`` says on reset, per scheme.
DESCRIPTIONS: dict[str, str] = {
    "progress": (
        "progress: potential difference minus a step cost; a solved episode sums to "
        "total - cost * steps, an unsolved one to 0 (less invalid penalties)"
    ),
    "verdict": (
        "verdict: action-level scores for state-group training (each action against its "
        "siblings); their episode sum is not a return to maximise"
    ),
}


def step_cost(total: float, max_steps: int) -> float:
    """The cost of one step: ``total / (2 * max_steps)``.

    Small enough that a solved episode always keeps at least half of ``total`` (it cannot
    take more than ``max_steps`` steps), large enough that every cycle costs something.

    >>> step_cost(1.0, 15), step_cost(1.0, 50)
    (0.03333333333333333, 0.01)
    """
    return total / (2 * max_steps)


def progress_reward(
    paid: float,
    phi_before: float,
    phi_after: float,
    *,
    total: float,
    cost: float,
    solved: bool,
    ends: bool,
) -> float:
    """The progress reward of one step (see the module docstring).

    ``paid`` is what the episode's earlier steps were paid (their progress rewards, without
    invalid-action penalties); ``phi_before`` / ``phi_after`` the potentials around the step;
    ``solved`` whether it solved the game and ``ends`` whether the episode ends with it.

    >>> progress_reward(0.3, 0.4, 0.2, total=1.0, cost=0.1, solved=False, ends=False)
    -0.30000000000000004
    >>> progress_reward(0.3, 0.4, 0.2, total=1.0, cost=0.1, solved=False, ends=True)
    -0.3
    """
    if solved:
        return total - phi_before - cost
    if ends:
        return -paid
    return phi_after - phi_before - cost


def settled_potential(progress: float, *, max_steps: int, valid_steps: int, over: bool,
                      solved: bool, total: float = PROGRESS_TOTAL) -> float:
    """The potential whose difference each step of the settled progress reward pays (gamma 1),
    as ``agentgym audit`` checks it: ``progress - cost * valid_steps`` while the episode runs,
    ``total - cost * valid_steps`` once solved, 0 once it ended unsolved (everything paid is
    paid back). Invalid steps pay only the invalid penalty, so only valid steps cost.

    >>> settled_potential(0.5, max_steps=10, valid_steps=2, over=False, solved=False)
    0.4
    >>> settled_potential(0.5, max_steps=10, valid_steps=2, over=True, solved=False)
    0.0
    """
    cost = step_cost(total, max_steps)
    if over:
        return total - cost * valid_steps if solved else 0.0
    return progress - cost * valid_steps
