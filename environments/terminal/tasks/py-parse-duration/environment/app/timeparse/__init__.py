"""Durations: format seconds for humans and parse them back."""
from .durations import format_duration, parse_duration

__all__ = ["format_duration", "parse_duration"]
