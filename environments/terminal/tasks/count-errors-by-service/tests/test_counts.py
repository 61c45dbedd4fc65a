import re
from pathlib import Path

OUT = Path("/app/error_counts.txt")
EXPECTED = ['worker 45', 'api 37', 'billing 36', 'auth 29', 'search 26', 'legacy-sync 15']


def lines():
    return OUT.read_text().splitlines()


def test_format():
    # one `<service> <count>` line per service that logged an ERROR, each service once
    got = lines()
    assert all(re.fullmatch(r"[a-z-]+ [0-9]+", line) for line in got), got
    assert sorted(line.split()[0] for line in got) == sorted(e.split()[0] for e in EXPECTED)


def test_compressed_rotation_included():
    legacy = [e for e in EXPECTED if e.startswith("legacy-sync ")]
    assert [line for line in lines() if line.startswith("legacy-sync ")] == legacy


def test_total_error_count():
    got = lines()
    assert {line.split()[0] for line in got} <= {e.split()[0] for e in EXPECTED}, got
    assert sum(int(line.split()[1]) for line in got) == 188


def test_exact_counts_and_order():
    assert lines() == EXPECTED
