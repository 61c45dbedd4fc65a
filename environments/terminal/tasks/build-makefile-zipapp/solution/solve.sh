#!/bin/bash
set -euo pipefail
cd /app
cat > Makefile <<'X'
# Build dist/wc.pyz, a self-contained zipapp of src/wordcount.
PYTHON = python3
SOURCES := $(wildcard src/wordcount/*.py)

all: dist/wc.pyz

# the staging tree is rebuilt whenever a source or the version changes; the stamp file
# stands for the whole directory (a directory's mtime does not track its files)
build/stamp: $(SOURCES) VERSION
	rm -rf build/pkg
	mkdir -p build/pkg
	cp -r src/wordcount build/pkg/wordcount
	echo "VERSION = \"$$(cat VERSION)\"" > build/pkg/wordcount/_version.py
	touch $@

dist/wc.pyz: build/stamp
	mkdir -p dist
	$(PYTHON) -m zipapp build/pkg -m 'wordcount.cli:main' -p '/usr/bin/env python3' -o $@

test: dist/wc.pyz
	test "$$($(PYTHON) dist/wc.pyz tests/sample.txt)" = "3 9 44 tests/sample.txt"
	test "$$($(PYTHON) dist/wc.pyz --version)" = "wordcount $$(cat VERSION)"

clean:
	rm -rf build dist

.PHONY: all test clean
X
make clean
make test
