import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from timeparse import format_duration, parse_duration


def test_format():
    assert format_duration(5400) == "1h30m"
    assert format_duration(0) == "0s"


def test_parse_simple():
    assert parse_duration("1h30m") == 5400
