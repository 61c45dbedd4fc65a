"""Leaderboard submission and replay validation, installed as ``agentgym.leaderboard`` (filled by a later issue)."""
