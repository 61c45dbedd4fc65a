import re
from pathlib import Path

APP = Path("/app")
WEST = '23309.52'
BY_REGION = 'region,total\nEast,31288.97\nNorth,19856.02\nSouth,24064.97\nWest,23309.52\n'


def test_answer_format():
    text = (APP / "answer.txt").read_text().strip()
    assert re.fullmatch(r"[0-9]+\.[0-9]{2}", text), text


def test_west_total():
    assert (APP / "answer.txt").read_text().strip() == WEST


def test_by_region_layout():
    lines = (APP / "by_region.csv").read_text().splitlines()
    assert lines[0] == "region,total"
    assert [line.split(",")[0] for line in lines[1:]] == ["East", "North", "South", "West"]


def test_by_region_totals():
    assert (APP / "by_region.csv").read_text().splitlines() == BY_REGION.splitlines()
