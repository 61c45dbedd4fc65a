#!/bin/bash
set -euo pipefail
cd /app
# models owns the data types and the per-line arithmetic; pricing and discounts depend on
# models, and models depends on nothing: the cycle is gone.
cat > shop/models.py <<'X'
"""Items and carts. Prices are integer cents."""
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Item:
    sku: str
    name: str
    price_cents: int
    qty: int = 1


def line_total(item):
    return item.price_cents * item.qty


@dataclass
class Cart:
    items: list = field(default_factory=list)

    def add(self, item):
        self.items.append(item)
        return self

    def total(self):
        return sum(line_total(item) for item in self.items)
X
sed -i 's/^from .models import Item$/from .models import Item, line_total/' shop/pricing.py
python3 - <<'PY'
from pathlib import Path
p = Path("shop/pricing.py")
s = p.read_text()
s = s.replace('''def line_total(item):
    return item.price_cents * item.qty


''', '''__all__ = ["FREE_SHIPPING_FROM", "SHIPPING", "line_total", "price_cart"]


''')
p.write_text(s)
d = Path("shop/discounts.py")
s = d.read_text()
s = s.replace('''    return amount
''', '''    return min(amount, subtotal)
''')
d.write_text(s)
PY
python3 -m pytest -q -p no:cacheprovider tests
