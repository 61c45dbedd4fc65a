"""Semantic Versioning 2.0.0 versions: parse, compare, sort."""
from .version import Version, sort_versions

__all__ = ["Version", "sort_versions"]
