"""python3 -m shop CART.json [CODE]: print the priced cart as JSON.

CART.json is a list of {"sku", "name", "price_cents", "qty"} objects.
"""
import json
import sys

from .models import Cart, Item
from .pricing import price_cart


def main(argv):
    if not 1 <= len(argv) <= 2:
        print("usage: python3 -m shop CART.json [CODE]", file=sys.stderr)
        return 2
    with open(argv[0]) as fh:
        cart = Cart([Item(**row) for row in json.load(fh)])
    code = argv[1] if len(argv) == 2 else None
    print(json.dumps(price_cart(cart, code), sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
