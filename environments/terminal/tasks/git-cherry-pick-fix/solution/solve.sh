#!/bin/bash
set -euo pipefail
cd /app
fix=$(git log -1 --format=%H --grep='^fix:' main)
git checkout release/1.2
git cherry-pick -x "$fix" || true   # conflicts in sizes.py (and possibly the tests)
cat > sizes.py <<'X'
"""Parse human-readable sizes such as "512", "10K" or "3G" into bytes."""

UNITS = {"K": 1024, "M": 1024 ** 2, "G": 1024 ** 3, "T": 1024 ** 4}
MAX_SIZE = 2 * 1024 ** 4


def parse_size(text):
    text = text.strip().upper()
    if text and text[-1] in UNITS:
        value = int(float(text[:-1]) * UNITS[text[-1]])
    else:
        value = int(text)
    if value > MAX_SIZE:
        raise ValueError(f"size too large: {text}")
    return value
X
cat > tests/test_sizes.py <<'X'
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from sizes import parse_size  # noqa: E402


def test_plain():
    assert parse_size("512") == 512


def test_suffix():
    assert parse_size("10K") == 10240


def test_limit():
    import pytest
    assert parse_size("2T") == 2 * 1024 ** 4
    with pytest.raises(ValueError):
        parse_size("3T")


def test_lowercase_and_fractional_suffix():
    assert parse_size("10k") == 10240
    assert parse_size("1.5G") == 1610612736
X
git add sizes.py tests/test_sizes.py
GIT_EDITOR=true git cherry-pick --continue
