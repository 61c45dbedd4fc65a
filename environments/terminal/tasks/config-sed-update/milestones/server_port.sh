[ -f shop.ini ] && sed -n '/^\[server\]/,/^\[/p' shop.ini | grep -qx 'port = 8080'
