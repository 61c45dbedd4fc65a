"""Leaderboard: submissions and replay validation (filled by a later issue).

Installed as ``agentgym.leaderboard``.
"""
