"""verifiers' plugin id for agentgym envs, ``agentgym-verifiers``: this module.

verifiers imports a taskset by its id as a top-level module (``vf-eval agentgym-verifiers``);
everything lives in :mod:`agentgym.integrations.verifiers`, re-exported here.
"""

from agentgym.integrations.verifiers import *  # noqa: F403
from agentgym.integrations.verifiers import __all__  # noqa: F401
