"""Sokoban with a budget-limited shortest-path oracle (``agentgym/Sokoban-v0``).

``logic`` holds the pure maths (levels, moves, A* solver, oracle, seeded generation); ``env``
holds :class:`~agentgym.environments.games.sokoban.env.SokobanEnv`.

>>> from agentgym.environments.games.sokoban.logic import parse_level, shortest_distance
>>> level, player, boxes = parse_level(["#####", "#PXO#", "#####"])
>>> shortest_distance(level, player, boxes, limit=15)
1
"""
