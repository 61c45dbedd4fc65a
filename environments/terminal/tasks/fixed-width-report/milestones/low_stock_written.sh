[ -s low_stock.txt ]
