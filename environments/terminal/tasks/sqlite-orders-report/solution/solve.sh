#!/usr/bin/env bash
set -euo pipefail
cd /app
sqlite3 shop.db <<'SQL'
UPDATE products SET price = ROUND(price * 1.10, 2) WHERE category = 'tools';
UPDATE customers SET status = 'inactive'
 WHERE id NOT IN (SELECT customer_id FROM orders WHERE order_date >= '2024-01-01');
SQL
{
  echo "customer_id,name,total_spent"
  sqlite3 -separator , shop.db "
    SELECT c.id, c.name, printf('%.2f', SUM(i.quantity * i.unit_price)) AS total
      FROM customers c JOIN orders o ON o.customer_id = c.id
      JOIN order_items i ON i.order_id = o.id
     GROUP BY c.id ORDER BY SUM(i.quantity * i.unit_price) DESC, c.id LIMIT 5;"
} > top_customers.csv
