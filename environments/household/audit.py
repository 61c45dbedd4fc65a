"""What ``agentgym audit agentgym/Household-v0`` reads: its :class:`~agentgym.audit.AuditSpec`.

The process reward is potential-based shaping on the goal's milestones, declared to
:class:`~agentgym.core.TextEnv` (``HouseholdEnv._shaping_potential``), so the audit checks
every step against that hook and its end rule; :mod:`.exploits` holds the milestone cyclers
it plays.

>>> from agentgym.audit import audit_spec
>>> sorted(audit_spec("agentgym/Household-v0").exploits)[:3]
['farm-then-solve', 'heat-cool', 'milestone-farmer']
"""

from __future__ import annotations

from agentgym.audit import AuditSpec, register_audit

from .exploits import EXPLOITS

__all__ = ["SPEC"]


SPEC = AuditSpec(
    # The oracle plays the A* planner's shortest plans and solves every generated task:
    # with gamma = 1 every solving episode earns 2.0 and with gamma < 1 the shortest earns
    # the most, so the heuristic baseline is never stronger on any seed.
    references=("oracle",),
    exploits=EXPLOITS,
    public_info=frozenset({
        # the task sentence, shown after "Your task is to: "
        "task",
        # the task's type: each of the six has its own sentence form ("look at ... under",
        # "put two ...", "put a clean/hot/cool ...", "put a ..."), so the sentence names it
        "task_type",
        # the split the env was made with (a kwarg): the same for every episode
        "split",
        # a digest of the room, the task and what the agent has seen and done so far (see
        # world.state_key): computable from the observations of the episode
        "state_key",
    }),
    # success is "the goal holds", the step that pays outcome 1.0
    success_threshold=1.0,
    # Commands are exact strings whose free parts are the numbers and names of receptacles
    # and objects: the extremes must all be invalid, never a command. (Two forms: every
    # invalid command costs a closest-match hint, ~2 ms, on every step of the extremes.)
    templates=("go to drawer {}", "take {} from {}"),
    # The default budget is 50 steps; the oracle's plans are at most 11 on every split
    # (200 seeds each), so 20 still leaves every task solvable while the 50-step cyclers
    # and the extreme-argument policy run 2.5 times faster.
    kwargs={"max_steps": 20},
)

register_audit("agentgym/Household-v0", SPEC)
