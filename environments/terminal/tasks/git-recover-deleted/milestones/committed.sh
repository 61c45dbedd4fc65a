export PYTHONDONTWRITEBYTECODE=1
git -C /app show main:db/schema.sql | grep -q 'qty INTEGER'
