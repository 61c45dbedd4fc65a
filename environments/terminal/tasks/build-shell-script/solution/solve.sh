#!/bin/bash
set -euo pipefail
cd /app
cat > build.sh <<'X'
#!/bin/bash
# Build out/bundle/ and out/bundle.tar.gz from the files listed in manifest.txt.
set -euo pipefail
cd "$(dirname "$0")"

rm -f out/bundle.tar.gz
for f in config/*.json; do
  if ! jq empty "$f" 2>/dev/null; then
    echo "build.sh: invalid JSON: $f" >&2
    exit 1
  fi
done

rm -rf out/bundle
mkdir -p out/bundle
files=()
while IFS= read -r line || [ -n "$line" ]; do
  case "$line" in ''|'#'*) continue ;; esac
  files+=("$line")
done < manifest.txt

for f in "${files[@]}"; do
  cp --parents -- "$f" out/bundle/
done

(
  cd out/bundle
  printf '%s\n' "${files[@]}" | LC_ALL=C sort | while IFS= read -r f; do
    sha256sum -- "$f"
  done > SHA256SUMS
)
tar -C out -czf out/bundle.tar.gz bundle
echo "built out/bundle.tar.gz"
X
chmod +x build.sh
./build.sh
