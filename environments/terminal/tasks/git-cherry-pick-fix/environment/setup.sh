#!/bin/sh
set -e
# deterministic commits: fixed author/committer and a clock that ticks one hour per commit
export GIT_AUTHOR_NAME="Dana Dev" GIT_AUTHOR_EMAIL="dana@example.com"
export GIT_COMMITTER_NAME="Dana Dev" GIT_COMMITTER_EMAIL="dana@example.com"
TICK=1704103200
commit() {
  TICK=$((TICK + 3600))
  GIT_AUTHOR_DATE="$TICK +0000" GIT_COMMITTER_DATE="$TICK +0000" git commit -q "$@"
}
cd /app
git init -q -b main .
mkdir tests
cat > sizes.py <<'X'
"""Parse human-readable sizes such as "512", "10K" or "3G" into bytes."""

UNITS = {"K": 1024, "M": 1024 ** 2, "G": 1024 ** 3}


def parse_size(text):
    text = text.strip()
    if text[-1] in UNITS:
        return int(text[:-1]) * UNITS[text[-1]]
    return int(text)
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
X
printf '# sizes\n' > README.md
git add . ; commit -m "Add parse_size"
git tag v1.2.0
git branch release/1.2
cat >> sizes.py <<'X'


def format_size(n):
    for unit in ("G", "M", "K"):
        if n >= UNITS[unit] and n % UNITS[unit] == 0:
            return f"{n // UNITS[unit]}{unit}"
    return str(n)
X
git add . ; commit -m "Add format_size"
python3 - <<'X'
from pathlib import Path
p = Path("sizes.py")
s = p.read_text()
s = s.replace('''    text = text.strip()
    if text[-1] in UNITS:
        return int(text[:-1]) * UNITS[text[-1]]
    return int(text)''', '''    text = text.strip().upper()
    if text and text[-1] in UNITS:
        return int(float(text[:-1]) * UNITS[text[-1]])
    return int(text)''')
p.write_text(s)
X
cat >> tests/test_sizes.py <<'X'


def test_lowercase_and_fractional_suffix():
    assert parse_size("10k") == 10240
    assert parse_size("1.5G") == 1610612736
X
git add . ; commit -m "fix: accept lowercase and fractional size suffixes"
printf '# sizes\n\nparse_size and format_size.\n' > README.md
git add . ; commit -m "Document format_size"
sed -i 's/^UNITS = .*/UNITS = {"K": 1024, "M": 1024 ** 2, "G": 1024 ** 3, "P": 1024 ** 5}/' sizes.py
git add . ; commit -m "Support petabytes"
git checkout -q release/1.2
cat > sizes.py <<'X'
"""Parse human-readable sizes such as "512", "10K" or "3G" into bytes."""

UNITS = {"K": 1024, "M": 1024 ** 2, "G": 1024 ** 3, "T": 1024 ** 4}
MAX_SIZE = 2 * 1024 ** 4


def parse_size(text):
    text = text.strip()
    if text[-1] in UNITS:
        value = int(text[:-1]) * UNITS[text[-1]]
    else:
        value = int(text)
    if value > MAX_SIZE:
        raise ValueError(f"size too large: {text}")
    return value
X
cat >> tests/test_sizes.py <<'X'


def test_limit():
    import pytest
    assert parse_size("2T") == 2 * 1024 ** 4
    with pytest.raises(ValueError):
        parse_size("3T")
X
git add . ; commit -m "Release 1.2: terabytes and a size limit"
printf '1.2.1: size limit\n' > CHANGES
git add . ; commit -m "Changelog for 1.2.1"
git checkout -q main
