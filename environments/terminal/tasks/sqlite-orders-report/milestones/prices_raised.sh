[ "$(sqlite3 shop.db "SELECT price FROM products WHERE id = 1")" = "138.25" ] || \
[ "$(sqlite3 shop.db "SELECT printf('%.2f', price) FROM products WHERE id = 1")" = "138.25" ]
