"""Reference trainers, installed as ``agentgym.trainers`` (filled by a later issue)."""
