[ -f window.csv ] && ! grep -q '?' window.csv && grep -q '^/api/items,' window.csv
