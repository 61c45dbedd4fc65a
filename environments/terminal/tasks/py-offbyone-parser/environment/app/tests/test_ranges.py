import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from pagesel import parse_ranges


def test_single_pages():
    assert parse_ranges("2,4", 10) == [2, 4]


def test_range():
    assert parse_ranges("1-3", 10) == [1, 2, 3]
