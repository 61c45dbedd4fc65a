"""Sokoban with a budget-limited shortest-path oracle (``agentgym/Sokoban-v0``).

One concept per module: ``logic`` (levels, moves, the text form), ``search`` (the exact
distance table, deadlock tests, the node-bounded A* solver), ``oracle`` (per-move verdicts
and their rewards), ``generator`` (seeded levels) and ``env``
(:class:`~agentgym.environments.games.sokoban.env.SokobanEnv`).

>>> from agentgym.environments.games.sokoban.logic import parse_level
>>> from agentgym.environments.games.sokoban.search import shortest_distance
>>> level, player, boxes = parse_level(["#####", "#PXO#", "#####"])
>>> shortest_distance(level, player, boxes, limit=15)
1
"""
