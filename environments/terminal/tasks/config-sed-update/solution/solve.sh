#!/usr/bin/env bash
set -euo pipefail
cd /app
sed -i -e '/^[[:space:]]*#/d' \
       -e '/^\[server\]/,/^\[/ s/^port = .*/port = 8080/' \
       -e 's/localhost/127.0.0.1/g' shop.ini
