#!/bin/bash
set -euo pipefail
cd /app
cat > invoicing/money.py <<'X'
"""Money helpers. Amounts are Decimal euros."""
from decimal import ROUND_HALF_UP, Decimal


def cents(value):
    """Round an amount (Decimal, int or str) to whole cents, halves away from zero."""
    return Decimal(value).quantize(Decimal("0.01"), rounding=ROUND_HALF_UP)
X
cat > invoicing/tax.py <<'X'
"""VAT by category."""
from decimal import Decimal

from .money import cents

RATES = {
    "standard": Decimal("0.20"),
    "reduced": Decimal("0.055"),
    "zero": Decimal("0"),
}


def tax_for(amount, category):
    """VAT due on `amount` (Decimal euros) for a tax category, rounded to cents."""
    if category not in RATES:
        raise ValueError(f"unknown tax category: {category}")
    return cents(amount * RATES[category])
X
cat > invoicing/invoice.py <<'X'
"""Invoices made of lines, with an optional discount."""
from dataclasses import dataclass
from decimal import Decimal

from .money import cents
from .tax import RATES, tax_for


@dataclass
class Line:
    description: str
    unit_price: Decimal
    quantity: int = 1
    category: str = "standard"

    def __post_init__(self):
        if not isinstance(self.quantity, int) or isinstance(self.quantity, bool) \
                or self.quantity < 1:
            raise ValueError(f"quantity must be an int >= 1: {self.quantity!r}")
        if self.category not in RATES:
            raise ValueError(f"unknown tax category: {self.category}")

    def net(self):
        return cents(Decimal(self.unit_price) * self.quantity)


class Invoice:
    def __init__(self, lines=None, discount_percent=0):
        self.lines = list(lines or [])
        self.discount_percent = Decimal(discount_percent)
        if not 0 <= self.discount_percent <= 100:
            raise ValueError(f"discount_percent must be within 0..100: {discount_percent!r}")

    def add(self, line):
        self.lines.append(line)
        return self

    def subtotal(self):
        return sum((line.net() for line in self.lines), Decimal("0.00"))

    def discount(self):
        return cents(self.subtotal() * self.discount_percent / 100)

    def tax(self):
        keep = (100 - self.discount_percent) / 100
        return sum((tax_for(line.net() * keep, line.category) for line in self.lines),
                   Decimal("0.00"))

    def total(self):
        return self.subtotal() - self.discount() + self.tax()
X
python3 -m pytest -q -p no:cacheprovider tests
