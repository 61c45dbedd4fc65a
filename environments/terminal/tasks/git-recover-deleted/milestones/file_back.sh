export PYTHONDONTWRITEBYTECODE=1
grep -q 'CREATE TABLE suppliers' /app/db/schema.sql
