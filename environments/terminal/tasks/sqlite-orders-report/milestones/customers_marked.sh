[ "$(sqlite3 shop.db "SELECT COUNT(*) FROM customers WHERE status = 'inactive'")" -gt 0 ]
