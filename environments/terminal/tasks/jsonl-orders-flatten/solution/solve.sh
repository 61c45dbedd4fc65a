#!/usr/bin/env bash
set -euo pipefail
cd /app
python3 - <<'PY'
import json
from decimal import Decimal
rows, bad = [], []
with open("orders.jsonl") as f:
    for n, line in enumerate(f, 1):
        try:
            o = json.loads(line)
        except json.JSONDecodeError:
            bad.append(n)
            continue
        if o["status"] not in ("paid", "shipped"):
            continue
        for it in o["items"]:
            total = Decimal(str(it["price"])) * it["qty"]
            rows.append((o["order_id"], it["sku"], o["customer"]["id"], it["qty"], f"{total:.2f}"))
rows.sort(key=lambda r: (r[0], r[1]))
with open("order_lines.csv", "w") as f:
    f.write("order_id,customer_id,sku,qty,line_total\n")
    for oid, sku, cid, qty, total in rows:
        f.write(f"{oid},{cid},{sku},{qty},{total}\n")
with open("bad_lines.txt", "w") as f:
    f.write("".join(f"{n}\n" for n in bad))
PY
