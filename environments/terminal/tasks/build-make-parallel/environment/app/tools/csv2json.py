"""csv2json.py IN.csv OUT.json: count the rows and sum the amount column of one region."""
import csv
import json
import sys
from pathlib import Path

src, dest = Path(sys.argv[1]), Path(sys.argv[2])
with src.open(newline="") as fh:
    rows = list(csv.DictReader(fh))
summary = {"name": src.stem, "rows": len(rows),
           "total": round(sum(float(r["amount"]) for r in rows), 2)}
dest.write_text(json.dumps(summary) + "\n")  # the directory must exist
