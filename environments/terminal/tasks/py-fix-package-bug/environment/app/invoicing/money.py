"""Money helpers. Amounts are Decimal euros."""
from decimal import Decimal


def cents(value):
    """Round an amount (Decimal, int or str) to whole cents."""
    return Decimal(round(float(value), 2)).quantize(Decimal("0.01"))
