#!/usr/bin/env bash
set -euo pipefail
cd /app
python3 - <<'PY'
from datetime import datetime, timezone
fin = None
for line in open("logs/deploy.log"):
    if line.rstrip().endswith("release 2.4.0 finished"):
        fin = datetime.strptime(line[:20], "%Y-%m-%d %H:%M:%SZ").replace(tzinfo=timezone.utc)
found = []
for line in open("logs/api.log"):
    line = line.rstrip("\n")
    stamp, level = line.split(" ")[:2]
    t = datetime.fromisoformat(stamp)
    if level == "[ERROR]" and t >= fin:
        found.append((t, "api.log", line))
for line in open("logs/worker.log"):
    line = line.rstrip("\n")
    stamp, level = line.split(" ")[:2]
    t = datetime.fromtimestamp(int(stamp), timezone.utc)
    if level == "ERROR" and t >= fin:
        found.append((t, "worker.log", line))
found.sort()
with open("answer.txt", "w") as f:
    f.write(f"{found[0][1]}\n{found[0][2]}\n")
with open("errors_after_deploy.txt", "w") as f:
    for name in ("api.log", "worker.log"):
        f.write(f"{name} {sum(1 for x in found if x[1] == name)}\n")
PY
