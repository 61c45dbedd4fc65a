"""Env pools on a Ray cluster: actors hosting env sessions, and a vector env on top of them.

* :mod:`agentgym.distributed.pool`: :class:`EnvPool`, a set of Ray actors, each hosting any
  number of env sessions (groups of envs stepped together in one actor call).
* :mod:`agentgym.distributed.vector`: :class:`RayVectorEnv`, the cluster counterpart of
  :class:`agentgym.vector.TextVectorEnv` (same observations, rewards, flags and infos for the
  same seeds and actions).

Ray is optional (``pip install 'agentgym[ray]'``); importing this package works without it,
and making a pool or a vector env without it raises one ``ImportError`` line.
"""

from agentgym.distributed.pool import EnvHost, EnvPool
from agentgym.distributed.vector import RayVectorEnv, make_ray_vec

__all__ = ["EnvHost", "EnvPool", "RayVectorEnv", "make_ray_vec"]
