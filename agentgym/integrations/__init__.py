"""Adapters that plug agentgym envs into other projects' trainers.

Each adapter is its own module and imports its project lazily, so ``import agentgym`` never
needs them: ``agentgym.integrations.trl`` (TRL's ``GRPOTrainer``, ``pip install agentgym[trl]``),
``agentgym.integrations.verifiers`` (verifiers' taskset and env, plugin id ``agentgym-verifiers``,
``pip install agentgym[verifiers]``).
"""
