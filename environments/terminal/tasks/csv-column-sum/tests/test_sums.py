import re
from decimal import Decimal
from pathlib import Path

APP = Path("/app")
WEST = '23309.52'
BY_REGION = 'region,total\nEast,31288.97\nNorth,19856.02\nSouth,24064.97\nWest,23309.52\n'


def test_answer_format():
    # exactly the number, two decimals, nothing else
    text = (APP / "answer.txt").read_text()
    assert re.fullmatch(r"[0-9]+\.[0-9]{2}\n?", text), text
    assert text.strip() == WEST


def test_west_total():
    # the value (its layout aside)
    text = (APP / "answer.txt").read_text().strip().replace(",", "")
    assert abs(Decimal(text) - Decimal(WEST)) < Decimal("0.005"), text


def test_by_region_layout():
    # header, one line per region in order, each total right to the cent (layout aside)
    lines = (APP / "by_region.csv").read_text().splitlines()
    assert lines[0] == "region,total"
    expected = [line.split(",") for line in BY_REGION.splitlines()[1:]]
    got = [line.split(",") for line in lines[1:]]
    assert [row[0] for row in got] == [row[0] for row in expected]
    for (region, total), (_, want) in zip(got, expected, strict=True):
        assert abs(Decimal(total) - Decimal(want)) < Decimal("0.005"), region


def test_by_region_totals():
    assert (APP / "by_region.csv").read_text().splitlines() == BY_REGION.splitlines()
