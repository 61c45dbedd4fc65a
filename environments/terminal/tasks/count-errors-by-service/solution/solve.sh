#!/usr/bin/env bash
set -euo pipefail
cd /app/logs
{ zcat app.log.2.gz; cat app.log.1 app.log; } | awk '$2 == "[ERROR]" {sub(/:$/, "", $3); print $3}' \
  | sort | uniq -c | sort -k1,1nr -k2,2 | awk '{print $2, $1}' > /app/error_counts.txt
