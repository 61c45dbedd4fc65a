#!/usr/bin/env bash
set -euo pipefail
cd /app
jq -r 'map(select(.active and .age >= 30)) | sort_by(.id) | .[].name' users.json > names.txt
python3 - <<'PY'
import json
users = json.load(open("users.json"))
act = [u for u in users if u["active"]]
json.dump({"active": len(act), "inactive": len(users) - len(act),
           "average_age_active": round(sum(u["age"] for u in act) / len(act), 1)},
          open("summary.json", "w"))
PY
