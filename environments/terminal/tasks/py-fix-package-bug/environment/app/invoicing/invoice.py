"""Invoices made of lines, with an optional discount."""
from dataclasses import dataclass
from decimal import Decimal

from .money import cents
from .tax import tax_for


@dataclass
class Line:
    description: str
    unit_price: Decimal
    quantity: int = 1
    category: str = "standard"

    def net(self):
        return cents(Decimal(self.unit_price) * self.quantity)


_NO_LINES = []


class Invoice:
    def __init__(self, lines=_NO_LINES, discount_percent=0):
        self.lines = lines
        self.discount_percent = Decimal(discount_percent)

    def add(self, line):
        self.lines.append(line)
        return self

    def subtotal(self):
        return sum((line.net() for line in self.lines), Decimal("0.00"))

    def discount(self):
        return cents(self.subtotal() * self.discount_percent / 100)

    def tax(self):
        return sum((tax_for(line.net(), line.category) for line in self.lines), Decimal("0.00"))

    def total(self):
        return self.subtotal() - self.discount() + self.tax()
