"""Items and carts. Prices are integer cents."""
from dataclasses import dataclass, field

from .pricing import line_total


@dataclass(frozen=True)
class Item:
    sku: str
    name: str
    price_cents: int
    qty: int = 1


@dataclass
class Cart:
    items: list = field(default_factory=list)

    def add(self, item):
        self.items.append(item)
        return self

    def total(self):
        return sum(line_total(item) for item in self.items)
