"""The household family: ALFWorld's six task types in seeded, procedurally generated rooms.

``agentgym/Household-v0`` (:class:`.env.HouseholdEnv`) plays them on the env contract: pure
rules (:mod:`.catalog`, :mod:`.world`, :mod:`.tasks`), a seeded generator with train / seen /
unseen splits (:mod:`.generator`), a bounded A* planner (:mod:`.planner`) for the oracle,
a potential-based process reward, and :mod:`.pddl`, which writes a generated task as a
problem for ALFWorld's own PDDL domain (the cross-check).
"""
