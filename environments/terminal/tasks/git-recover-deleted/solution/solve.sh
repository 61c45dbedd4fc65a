#!/bin/bash
set -euo pipefail
cd /app
gone=$(git log -1 --format=%H --diff-filter=D -- db/schema.sql)
git checkout "$gone^" -- db/schema.sql
git commit -m "Restore db/schema.sql"
