#!/usr/bin/env bash
set -euo pipefail
cd /app
LC_ALL=C awk 'BEGIN { OFS = "\t"; print "sku", "name", "qty", "price" }
  length($0) >= 60 && substr($0, 1, 10) ~ /^[A-Z][0-9]+-[0-9]+ *$/ {
    sku = substr($0, 1, 10); gsub(/ /, "", sku)
    name = substr($0, 11, 28); sub(/^ +/, "", name); sub(/ +$/, "", name)
    qty = substr($0, 39, 8); gsub(/[ ,]/, "", qty)
    price = substr($0, 47, 14); gsub(/[ ,$]/, "", price)
    print sku, name, qty, price
  }' inventory.txt > inventory.tsv
awk -F'\t' 'NR > 1 && $3 < 10 {print $1}' inventory.tsv | LC_ALL=C sort > low_stock.txt
