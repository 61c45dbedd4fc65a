#!/usr/bin/env bash
set -euo pipefail
cd /app
python3 - <<'PY'
import csv
from decimal import Decimal
tot = {}
with open("sales.csv", newline="") as f:
    for row in csv.DictReader(f):
        tot[row["region"]] = tot.get(row["region"], Decimal(0)) + Decimal(row["amount"])
with open("answer.txt", "w") as f:
    f.write(f"{tot['West']:.2f}\n")
with open("by_region.csv", "w") as f:
    f.write("region,total\n")
    for r in sorted(tot):
        f.write(f"{r},{tot[r]:.2f}\n")
PY
