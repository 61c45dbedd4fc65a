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
    return cents(amount * RATES[category])
