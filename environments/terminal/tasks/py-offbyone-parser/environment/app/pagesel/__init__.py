"""Select pages or lines with print-dialog style ranges such as "1-3,5,9-"."""
from .ranges import chunk, parse_ranges, select

__all__ = ["chunk", "parse_ranges", "select"]
