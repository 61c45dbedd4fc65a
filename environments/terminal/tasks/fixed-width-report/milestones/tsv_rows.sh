[ -f inventory.tsv ] && [ "$(wc -l < inventory.tsv)" -eq 49 ]
