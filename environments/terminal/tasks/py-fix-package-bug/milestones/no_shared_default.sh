export PYTHONDONTWRITEBYTECODE=1
cd /app && python3 -c 'from invoicing import Invoice, Line; from decimal import Decimal as D; Invoice().add(Line("x", D(1))); assert Invoice().lines == []'
