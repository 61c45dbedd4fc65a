"""Hidden tests for py-parse-duration (the contract is /app/SPEC.md)."""
import sys

import pytest

sys.path.insert(0, "/app")

from timeparse import format_duration, parse_duration


def test_unit_form():
    assert parse_duration("1h30m") == 5400
    assert parse_duration("2d") == 172800
    assert parse_duration("1d2h3m4s") == 93784
    assert parse_duration("  1h   30m\t15s ") == 5415
    assert parse_duration("1H30M") == 5400
    assert parse_duration("90m") == 5400
    assert parse_duration("0s") == 0
    assert parse_duration("007m") == 420


def test_plain_number_and_sign():
    assert parse_duration("90") == 90
    assert parse_duration(" 0 ") == 0
    assert parse_duration("-1h30m") == -5400
    assert parse_duration("-45") == -45
    assert parse_duration("-0s") == 0
    assert parse_duration("-1:00") == -60


def test_clock_form():
    assert parse_duration("1:02:03") == 3723
    assert parse_duration("75:00") == 4500
    assert parse_duration("0:59") == 59
    assert parse_duration("100:00:00") == 360000
    for bad in ("1:60", "1:2", "1:02:60", ":30", "1::30", "1:02:03:04", "1: 02", "1:002"):
        with pytest.raises(ValueError):
            parse_duration(bad)


def test_value_errors():
    for bad in ("", "   ", "-", "--1h", "+1h", "1h-30m", "1 h", "30m1h", "1h1h", "1h 30", "1w",
                "5ms", "1.5h", "h", "1h,30m", "\u0661h", "s1", "1d 2h 3x", "1h30s5m"):
        with pytest.raises(ValueError):
            parse_duration(bad)


def test_type_errors_and_round_trip():
    for bad in (None, 90, b"1h", ["1h"]):
        with pytest.raises(TypeError):
            parse_duration(bad)
    for n in (0, 1, 59, 60, 61, 3599, 3600, 86399, 86400, 93784, 10 ** 7, -1, -93784):
        assert parse_duration(format_duration(n)) == n
