[ -f by_region.csv ] && [ "$(head -n 1 by_region.csv)" = "region,total" ]
