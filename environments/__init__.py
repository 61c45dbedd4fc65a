"""Env families, installed as ``agentgym.environments``."""
