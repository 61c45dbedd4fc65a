#!/bin/bash
set -euo pipefail
cd /app
sed -i 's/^PYTHON ?= python3.12$/PYTHON ?= python3/' Makefile
pytest_version=$(python3 -c 'from importlib import metadata; print(metadata.version("pytest"))')
sed -i "s/^pytest==.*/pytest==$pytest_version/" requirements.txt
py=$(python3 -c 'import sys; print(f"{sys.version_info.major}.{sys.version_info.minor}")')
sed -i "s/^python = .*/python = $py/; s/^precison = /precision = /" calc.ini
make test
make dist
ls dist
