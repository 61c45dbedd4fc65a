"""Pricing a cart: subtotal, discount, shipping."""
from .discounts import discount_for
from .models import Item

SHIPPING = Item("SHIP", "shipping", 499)
FREE_SHIPPING_FROM = 5000


def line_total(item):
    return item.price_cents * item.qty


def price_cart(cart, code=None):
    """Price `cart` with an optional discount code.

    Shipping (SHIPPING.price_cents) is free when subtotal - discount >= FREE_SHIPPING_FROM.
    """
    subtotal = cart.total()
    discount = discount_for(code, subtotal)
    after = subtotal - discount
    shipping = 0 if after >= FREE_SHIPPING_FROM else SHIPPING.price_cents
    return {"subtotal": subtotal, "discount": discount, "shipping": shipping,
            "total": after + shipping}
