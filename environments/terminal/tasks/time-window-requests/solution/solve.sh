#!/usr/bin/env bash
set -euo pipefail
cd /app
python3 - <<'PY'
import collections
from datetime import datetime, timezone
w0 = datetime(2024, 3, 10, 23, 45, tzinfo=timezone.utc)
w1 = datetime(2024, 3, 11, 0, 15, tzinfo=timezone.utc)
counts = collections.Counter()
for line in open("access.log"):
    stamp = line[line.index("[") + 1:line.index("]")]
    t = datetime.strptime(stamp, "%d/%b/%Y:%H:%M:%S %z")
    if w0 <= t < w1:
        target = line.split('"')[1].split()[1]
        counts[target.split("?")[0]] += 1
with open("window.csv", "w") as f:
    f.write("path,count\n")
    for path, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])):
        f.write(f"{path},{n}\n")
with open("window_total.txt", "w") as f:
    f.write(f"{sum(counts.values())}\n")
PY
