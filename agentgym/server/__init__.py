"""The env server: every agentgym id behind one protocol, with stateful sessions.

``agentgym serve agentgym/Sokoban-v0`` runs it; :class:`agentgym.remote.RemoteEnv` (or
``gym.make(id, server_url=...)``) is its client. Needs the ``server`` extra
(``pip install 'agentgym[server]'``): Starlette, uvicorn, orjson, httpx.

>>> from agentgym.server.protocol import WS_OPS
>>> "step" in WS_OPS
True
"""
