"""Multi-agent (PettingZoo ``ParallelEnv``) versions of the market envs.

The Gymnasium ids fill every seat but the agent's with scripted counterparties; here several
agents (LLMs, scripts, people) take the seats and trade with each other under the same rules
and the same ledger.

>>> from agentgym.multiagent import parallel_env, parallel_ids
>>> "agentgym/Negotiation-v0" in parallel_ids()
True
>>> parallel_env("agentgym/Sokoban-v0")  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
ValueError: agentgym/Sokoban-v0 has no multi-agent version; these do: agentgym/BazaarB2C-v0, ...
"""

from __future__ import annotations

import importlib
from typing import Any

__all__ = ["PARALLEL_ENVS", "parallel_env", "parallel_ids"]

#: Gymnasium id -> "module:Class" of its ParallelEnv, imported on first use (PettingZoo is an
#: optional dependency: ``pip install 'agentgym[multiagent]'``).
_MARKETS = "agentgym.environments.markets"
PARALLEL_ENVS: dict[str, str] = {
    "agentgym/Negotiation-v0": f"{_MARKETS}.negotiation.parallel:NegotiationParallelEnv",
    "agentgym/BazaarB2C-v0": f"{_MARKETS}.bazaar_b2c.parallel:BazaarB2CParallelEnv",
    "agentgym/BazaarC2C-v0": f"{_MARKETS}.bazaar_c2c.parallel:BazaarC2CParallelEnv",
}


def parallel_ids() -> list[str]:
    """The ids that have a multi-agent version, sorted."""
    return sorted(PARALLEL_ENVS)


def parallel_env(env_id: str, **kwargs: Any) -> Any:
    """The PettingZoo ``ParallelEnv`` of ``env_id``, built with ``kwargs`` (the env's own).

    Raises ValueError (one line) for an id without a multi-agent version, ImportError naming
    the extra when PettingZoo is not installed.
    """
    target = PARALLEL_ENVS.get(env_id)
    if target is None:
        raise ValueError(
            f"{env_id} has no multi-agent version; these do: {', '.join(parallel_ids())}"
        )
    module_name, _, class_name = target.partition(":")
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        if "pettingzoo" in str(exc):
            raise ImportError(
                "the multi-agent envs need PettingZoo: pip install 'agentgym[multiagent]'"
            ) from exc
        raise
    return getattr(module, class_name)(**kwargs)
