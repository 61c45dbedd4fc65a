import json
from pathlib import Path

APP = Path("/app")
NAMES = ['Niklaus Wirth',
 'Margaret Hamilton',
 'Ken Thompson',
 'Dennis Ritchie',
 'Barbara Liskov',
 'Leslie Lamport',
 'Alan Turing',
 'Grace Hopper',
 'Fernando Corbato',
 'Shafi Goldwasser',
 'Anita Borg',
 'Adele Goldberg',
 'Tony Hoare',
 'Donald Knuth',
 'John McCarthy']
SUMMARY = {'active': 18, 'inactive': 7, 'average_age_active': 46.8}


def test_names_selected():
    assert sorted((APP / "names.txt").read_text().splitlines()) == sorted(NAMES)


def test_names_ordered_by_id():
    assert (APP / "names.txt").read_text().splitlines() == NAMES


def test_summary_counts():
    got = json.loads((APP / "summary.json").read_text())
    assert (got["active"], got["inactive"]) == (SUMMARY["active"], SUMMARY["inactive"])


def test_summary_average_age():
    got = json.loads((APP / "summary.json").read_text())
    assert set(got) == set(SUMMARY)
    assert isinstance(got["average_age_active"], (int, float))
    assert abs(got["average_age_active"] - SUMMARY["average_age_active"]) < 1e-9
