[ -f order_lines.csv ] && [ "$(head -n 1 order_lines.csv)" = "order_id,customer_id,sku,qty,line_total" ]
