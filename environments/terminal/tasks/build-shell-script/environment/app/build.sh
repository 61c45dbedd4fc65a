#!/bin/bash
# Build out/bundle/ and out/bundle.tar.gz from the files listed in manifest.txt.
cd "$(dirname "$0")"

mkdir -p out/bundle

for f in config/*.json; do
  jq . $f > /dev/null
done

for f in $(cat manifest.txt); do
  cp $f out/bundle/
done

cd out/bundle
sha256sum * > SHA256SUMS
cd ..
tar -czf bundle.tar.gz bundle
echo "built out/bundle.tar.gz"
