"""index.py OUT.json IN.json...: gather region summaries into one list sorted by name."""
import json
import sys
from pathlib import Path

out, *inputs = sys.argv[1:]
entries = [json.loads(Path(p).read_text()) for p in inputs]
Path(out).write_text(json.dumps(sorted(entries, key=lambda e: e["name"]), indent=1) + "\n")
