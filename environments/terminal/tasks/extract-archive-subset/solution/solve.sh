#!/usr/bin/env bash
set -euo pipefail
cd /app
mkdir -p restored
tar -xzf backup.tar.gz -C restored --strip-components=2 project/data
