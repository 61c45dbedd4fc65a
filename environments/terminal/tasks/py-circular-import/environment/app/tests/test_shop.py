import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from shop import Cart, Item, price_cart


def test_price_small_cart():
    cart = Cart().add(Item("A1", "mug", 1200, 2))
    assert price_cart(cart) == {"subtotal": 2400, "discount": 0, "shipping": 499,
                                "total": 2899}


def test_fixed_discount_capped():
    cart = Cart().add(Item("B2", "pin", 300))
    assert price_cart(cart, "FIVEOFF")["discount"] == 300
