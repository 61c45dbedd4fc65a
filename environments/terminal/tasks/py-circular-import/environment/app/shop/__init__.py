"""A tiny shop: carts, prices, discount codes."""
from .discounts import DISCOUNTS, best_code, discount_for
from .models import Cart, Item
from .pricing import SHIPPING, line_total, price_cart

__all__ = [
           "DISCOUNTS",
           "SHIPPING",
           "Cart",
           "Item",
           "best_code",
           "discount_for",
           "line_total",
           "price_cart",
]
