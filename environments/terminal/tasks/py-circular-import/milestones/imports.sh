export PYTHONDONTWRITEBYTECODE=1
cd /app && python3 -c 'import shop' && python3 -c 'import shop.pricing'
