#!/bin/bash
set -euo pipefail
cd /app
python3 - <<'PY'
from pathlib import Path

path = Path("timeparse/durations.py")
src = path.read_text()
stub = '''def parse_duration(text: str) -> int:
    """Parse a duration into whole seconds. See SPEC.md."""
    raise NotImplementedError
'''
impl = '''_SIZES = dict(UNITS)
_UNIT_RE = re.compile(r"([0-9]+)([dhms])(?:\\s+|(?=[0-9])|$)", re.IGNORECASE | re.ASCII)
_CLOCK_RE = re.compile(r"[0-9]+(?::[0-5][0-9]){1,2}", re.ASCII)


def parse_duration(text: str) -> int:
    """Parse a duration into whole seconds: parse_duration("1h30m") == 5400. See SPEC.md."""
    if not isinstance(text, str):
        raise TypeError(f"parse_duration expects str, got {type(text).__name__}")
    body = text.strip()
    sign = 1
    if body.startswith("-"):
        sign, body = -1, body[1:]
    if not body:
        raise ValueError(f"empty duration: {text!r}")
    if body.isascii() and body.isdigit():
        return sign * int(body)
    if _CLOCK_RE.fullmatch(body):
        total = 0
        for field in body.split(":"):
            total = total * 60 + int(field)
        return sign * total
    total, pos, seen = 0, 0, []
    order = [unit for unit, _ in UNITS]
    while pos < len(body):
        match = _UNIT_RE.match(body, pos)
        if not match:
            raise ValueError(f"invalid duration: {text!r}")
        unit = match.group(2).lower()
        if seen and order.index(unit) <= order.index(seen[-1]):
            raise ValueError(f"units out of order or repeated in {text!r}")
        seen.append(unit)
        total += int(match.group(1)) * _SIZES[unit]
        pos = match.end()
    return sign * total
'''
assert stub in src
src = src.replace(stub, impl)
src = src.replace('"""Human-readable durations such as "1h30m" or "01:30:00"."""\n',
                  '"""Human-readable durations such as "1h30m" or "01:30:00"."""\nimport re\n', 1)
path.write_text(src)
PY
python3 -m pytest -q -p no:cacheprovider tests
