[ -f top_customers.csv ] && [ "$(head -n 1 top_customers.csv)" = "customer_id,name,total_spent" ]
