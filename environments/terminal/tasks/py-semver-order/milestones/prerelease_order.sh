export PYTHONDONTWRITEBYTECODE=1
cd /app && python3 -c 'from semverlib import Version as V; assert V.parse("1.0.0-rc.1") < V.parse("1.0.0") and V.parse("1.0.0-beta.2") < V.parse("1.0.0-beta.11")'
