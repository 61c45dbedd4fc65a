"""Hidden tests for py-offbyone-parser."""
import subprocess
import sys

import pytest

sys.path.insert(0, "/app")

from pagesel import chunk, parse_ranges, select


def test_inclusive_ranges():
    assert parse_ranges("1-3,5", 10) == [1, 2, 3, 5]
    assert parse_ranges(" 4-4 , 2-3, 3 ", 10) == [2, 3, 4]
    assert parse_ranges("1-10", 10) == list(range(1, 11))


def test_open_ranges_and_bounds():
    assert parse_ranges("8-", 10) == [8, 9, 10]
    assert parse_ranges("-2", 10) == [1, 2]
    assert parse_ranges("10", 10) == [10]
    assert parse_ranges("1", 1) == [1]
    for bad in ("0", "11", "9-11", "5-3", "0-2"):
        with pytest.raises(ValueError):
            parse_ranges(bad, 10)


def test_select_is_one_based():
    lines = ["a", "b", "c", "d", "e"]
    assert select(lines, "1,3") == ["a", "c"]
    assert select(lines, "4-") == ["d", "e"]
    assert select(lines, "-1") == ["a"]


def test_chunk_keeps_the_last_chunk():
    assert chunk([1, 2, 3, 4, 5], 2) == [[1, 2], [3, 4], [5]]
    assert chunk([1, 2, 3, 4], 2) == [[1, 2], [3, 4]]
    assert chunk([1], 3) == [[1]]
    assert chunk([], 3) == []


def test_cli(tmp_path):
    data = tmp_path / "f.txt"
    data.write_text("".join(f"line {i}\n" for i in range(1, 8)))
    out = subprocess.run([sys.executable, "-m", "pagesel", "2-3,7", str(data)], cwd="/app",
                         capture_output=True, text=True, timeout=10)
    assert out.returncode == 0, out.stderr
    assert out.stdout == "line 2\nline 3\nline 7\n"
    bad = subprocess.run([sys.executable, "-m", "pagesel", "8", str(data)], cwd="/app",
                         capture_output=True, text=True, timeout=10)
    assert bad.returncode == 1 and bad.stdout == ""
