#!/usr/bin/env bash
set -euo pipefail
cd /app
find bin -type f -name '*.sh' -exec chmod 755 {} +
find bin -type f ! -name '*.sh' -exec chmod 644 {} +
find config -type f -exec chmod 644 {} +
chmod 600 config/secrets.env
