"""Discount codes."""
from .models import Cart

# code -> (kind, amount): "percent" of the subtotal (rounded down to a cent), or "fixed" cents
DISCOUNTS = {"TEN": ("percent", 10), "FIVEOFF": ("fixed", 500), "HALF": ("percent", 50)}


def discount_for(code, subtotal):
    """Discount in cents for `code` on `subtotal`; 0 for no code.

    Unknown codes raise KeyError. A discount never exceeds the subtotal.
    """
    if code is None:
        return 0
    kind, amount = DISCOUNTS[code]
    if kind == "percent":
        return subtotal * amount // 100
    return amount


def best_code(cart):
    """The code giving the largest discount on `cart` (ties: alphabetical first)."""
    if not isinstance(cart, Cart):
        raise TypeError("best_code expects a Cart")
    subtotal = cart.total()
    return min(DISCOUNTS, key=lambda code: (-discount_for(code, subtotal), code))
