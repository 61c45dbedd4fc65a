[ -f shop.ini ] && ! grep -q '^[[:space:]]*#' shop.ini
