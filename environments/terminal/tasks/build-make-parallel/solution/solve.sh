#!/bin/bash
set -euo pipefail
cd /app
cat > Makefile <<'X'
# Sales report: data/*.csv -> build/*.json -> build/index.json -> build/report.txt
DATA := $(wildcard data/*.csv)
JSON := $(patsubst data/%.csv,build/%.json,$(DATA))

all: build/report.txt

# every rule writing into build/ needs the directory first (order-only: its mtime
# changes whenever a file is added and must not trigger rebuilds)
build:
	mkdir -p build

build/%.json: data/%.csv tools/csv2json.py | build
	python3 tools/csv2json.py $< $@

# build/regions records which regions exist; it is rewritten only when that set changes,
# so removing a CSV (which no mtime can show) still rebuilds the index
build/regions: FORCE | build
	@echo '$(DATA)' | cmp -s - $@ || echo '$(DATA)' > $@

build/index.json: $(JSON) build/regions tools/index.py | build
	python3 tools/index.py $@ $(JSON)

build/header.txt: VERSION | build
	echo "Sales report v$$(cat VERSION)" > $@

build/report.txt: build/header.txt templates/report.tmpl build/index.json tools/report.py
	python3 tools/report.py build/header.txt templates/report.tmpl build/index.json $@

clean:
	rm -rf build

FORCE:

.PHONY: all clean FORCE
X
make clean
make -j8
cat build/report.txt
