[ -f inventory.tsv ] && [ "$(head -n 1 inventory.tsv)" = "$(printf 'sku\tname\tqty\tprice')" ]
