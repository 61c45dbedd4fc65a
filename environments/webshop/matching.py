"""The reward's two string rules, as the original WebShop applies them: colours and fuzzy match.

* :func:`normalize_color` maps an option value that contains a known colour name to that name.
  The names are the original's ``COLOR_SET`` (web_agent_site/engine/normalize.py), in its
  order (alphabetical), and the first name found as a substring wins, as there. The order
  matters: "light blue" becomes "blue" (``blue`` sorts before ``light``), "rose gold" and
  "yellow gold" both become "gold", "blueberry" becomes "blue" and "sandalwood" becomes
  "sand".
* :func:`fuzzy_match` is the original's ``fuzz.token_set_ratio(a, b) > 85`` with ``thefuzz``:
  both strings lose the code points 128-255 (``force_ascii``), are lower-cased with every
  non-alphanumeric character turned into a space (``full_process``), are scored by
  ``rapidfuzz``'s token-set ratio, and the score is rounded to an integer with Python's
  ``round`` (half to even) before the comparison. So a raw score of 85.1 does not match.

>>> normalize_color("rose gold"), normalize_color("light blue"), normalize_color("xl")
('gold', 'blue', 'xl')
>>> token_set_score("broad spectrum protection", "broad spectrum edition")
85
>>> fuzzy_match("Sulfate-Free", "sulfate free"), fuzzy_match("2 pack", "3 pack")
(True, False)
"""

from __future__ import annotations

from rapidfuzz import fuzz
from rapidfuzz.utils import default_process

__all__ = ["COLOR_SET", "FUZZY_THRESHOLD", "fuzzy_match", "normalize_color", "token_set_score"]

#: A fuzzy score must be strictly above this (after rounding) to match.
FUZZY_THRESHOLD = 85

#: The original WebShop's colour names, in its order (the first one found in a value wins).
COLOR_SET: tuple[str, ...] = (
    "alabaster", "apricot", "aqua", "ash", "asphalt", "azure",
    "banana", "beige", "black", "blue", "blush", "bordeaux", "bronze",
    "brown", "burgundy", "camel", "camo", "caramel", "champagne",
    "charcoal", "cheetah", "chestnut", "chocolate", "christmas", "coffee",
    "cognac", "copper", "coral", "cranberry", "cream", "crystal", "dark",
    "denim", "eggplant", "elephant", "espresso", "fuchsia", "gold", "granite",
    "grape", "graphite", "grass", "gray", "green", "grey", "heather", "indigo",
    "ivory", "ivy", "khaki", "lavender", "lemon", "leopard", "light", "lilac",
    "lime", "magenta", "maroon", "mauve", "merlot", "midnight", "mint", "mocha",
    "multicolor", "mushroom", "mustard", "natural", "navy", "nude", "olive",
    "orange", "peach", "pewter", "pink", "plum", "purple", "rainbow", "red",
    "rose", "royal", "rust", "sand", "sapphire", "seashell", "silver", "skull",
    "slate", "steel", "stone", "stonewash", "sunflower", "tan", "taupe", "teal",
    "tiger", "turquoise", "violet", "walnut", "wheat", "white", "wine", "yellow",
)

# thefuzz's force_ascii deletes exactly the code points 128-255 (not all non-ASCII text).
_LATIN1_UPPER = {i: None for i in range(128, 256)}


def normalize_color(text: str) -> str:
    """The first name of :data:`COLOR_SET` contained in ``text``, else ``text`` unchanged.

    >>> normalize_color("dark green"), normalize_color("earl grey"), normalize_color("m")
    ('dark', 'grey', 'm')
    """
    for color in COLOR_SET:
        if color in text:
            return color
    return text


def token_set_score(a: str, b: str) -> int:
    """``thefuzz.fuzz.token_set_ratio(a, b)``: rapidfuzz's score on processed text, rounded.

    >>> token_set_score("blue", "navy blue"), token_set_score("xl", "xxl")
    (100, 80)
    """
    if not a.isascii():
        a = a.translate(_LATIN1_UPPER)
    if not b.isascii():
        b = b.translate(_LATIN1_UPPER)
    return round(fuzz.token_set_ratio(a, b, processor=default_process))


def fuzzy_match(a: str, b: str) -> bool:
    """The reward's fuzzy rule: :func:`token_set_score` strictly above 85.

    >>> fuzzy_match("2 pack", "12 pack"), fuzzy_match("paraben free", "sulfate free")
    (True, False)
    """
    return token_set_score(a, b) > FUZZY_THRESHOLD
