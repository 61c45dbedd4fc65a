"""report.py HEADER TEMPLATE INDEX OUT: render the sales report."""
import json
import sys
from pathlib import Path

header, template, index, out = (Path(p) for p in sys.argv[1:])
entries = json.loads(index.read_text())
line = template.read_text()
body = "".join(line.format(**entry) for entry in entries)
total = round(sum(entry["total"] for entry in entries), 2)
out.write_text(header.read_text() + body + f"TOTAL {total:.2f}\n")
