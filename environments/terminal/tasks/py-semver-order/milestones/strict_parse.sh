export PYTHONDONTWRITEBYTECODE=1
cd /app && python3 -c '
from semverlib import Version as V
for t in ("01.2.3", "1.2.3-", "1.2.3-a..b"):
    try:
        V.parse(t)
    except ValueError:
        continue
    raise SystemExit(1)
'
