"""Market and negotiation envs, installed as ``agentgym.environments.markets``.

Every reward is computed from a ledger of facts (offers, deals, prices, sales, ground-truth
qualities), and every counterparty is scripted and seeded, so the same seed gives the same
episode. Each family also has a PettingZoo ``ParallelEnv`` (``agentgym.multiagent``) in which
several LLM agents take the seats the Gymnasium version fills with scripted ones.
"""
