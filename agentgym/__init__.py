"""agentgym: Gymnasium environments for LLM agents with verifiable process and outcome rewards.

>>> import gymnasium as gym
>>> import agentgym
>>> env = gym.make("agentgym/Sokoban-v0", size=6, boxes=1)
>>> obs, info = env.reset(seed=42)
>>> isinstance(obs, str)
True
"""

from agentgym.actions import extract_action, format_action
from agentgym.core import Outcome, TextEnv
from agentgym.registry import ENVIRONMENTS, env_ids, register_all
from agentgym.rewards import REWARD_MODES, combine_rewards

__version__ = "0.1.0"

__all__ = [
    "ENVIRONMENTS",
    "REWARD_MODES",
    "Outcome",
    "TextEnv",
    "__version__",
    "combine_rewards",
    "env_ids",
    "extract_action",
    "format_action",
    "register_all",
]

register_all()


def __getattr__(name: str) -> object:
    # agentgym.RemoteEnv without importing httpx on `import agentgym` (the server extra).
    if name == "RemoteEnv":
        from agentgym.remote import RemoteEnv

        return RemoteEnv
    raise AttributeError(f"module 'agentgym' has no attribute {name!r}")
