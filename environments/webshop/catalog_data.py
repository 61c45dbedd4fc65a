"""The catalog's hand-written vocabulary: product types, option pools, brand syllables, text.

Pure data (plus the small :class:`Leaf` record that holds one product type); the generator in
:mod:`.catalog` turns it into products. Nothing here comes from real brand or product data.

A :class:`Leaf` is one product type: its category path (3-4 levels), the noun of its title
(``product_type``), the attributes, descriptors and materials a product of that type draws
from, its option groups (``group:pool`` pairs naming :data:`POOLS`), its price range in dollars
and the search terms it was "collected under".

>>> leaf = LEAVES[0]
>>> leaf.product_type, leaf.path[-1], leaf.options
('shampoo', 'shampoo', (('size', 'bottle'), ('scent', 'hair_scent')))
>>> all(pool in POOLS for leaf in LEAVES for _, pool in leaf.options)
True
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = [
    "BRANDS",
    "BULLET_BODIES",
    "DESCRIPTION_MIDDLES",
    "DESCRIPTION_OPENERS",
    "EXCLUSIVE_ATTRIBUTES",
    "GENERIC_BULLETS",
    "LEAVES",
    "MATERIAL_BODIES",
    "POOLS",
    "PRICE_ENDINGS",
    "QUANTITY_POOLS",
    "REVIEW_TEXTS",
    "Leaf",
]

# --------------------------------------------------------------------------- option pools
# Quantity pools are ordered small -> large; a product's first group drives its price range
# when it comes from one of them.
POOLS: dict[str, tuple[str, ...]] = {
    "bottle": ("2oz", "3.4oz", "6.8oz", "12oz", "16.9oz", "33.8oz"),
    "jar": ("0.5 oz", "1.7 oz", "2.5 oz", "4 oz", "8 oz", "16 oz"),
    "weight": ("5 oz", "8 oz", "12 oz", "1 lb", "2 lb", "5 lb"),
    "count": ("single", "2 pack", "3 pack", "4 pack", "6 pack", "12 pack", "24 pack"),
    "bars": ("4 bars", "6 bars", "12 bars", "30 bars"),
    "tea_count": ("16 bags", "20 bags", "48 bags", "100 bags"),
    "cloth_size": ("xs", "s", "m", "l", "xl", "xxl", "3xl"),
    "shoe_size": ("5", "6", "7", "8", "9", "10", "11", "12", "13"),
    "bed_size": ("twin", "full", "queen", "king"),
    "furniture_size": ("small", "medium", "large", "oversized"),
    "rug_size": ("2x3 ft", "4x6 ft", "5x7 ft", "8x10 ft"),
    "towel_set": ("2 pcs", "4 pcs", "6 pcs", "8 pcs"),
    "cookware_size": ("8 in", "10 in", "12 in", "14 in"),
    "capacity": ("32gb", "64gb", "128gb", "256gb", "512gb"),
    "cable_length": ("3 ft", "6 ft", "10 ft", "15 ft", "25 ft"),
    "wattage": ("20w", "30w", "45w", "65w", "100w"),
    "waist": ("28x30", "30x30", "30x32", "32x32", "34x32", "36x34", "38x34"),
    "screen": ("24 in", "27 in", "32 in", "34 in"),
    "color": (
        "black", "white", "navy", "gray", "red", "pink", "beige", "brown", "green", "blue",
        "purple", "yellow", "orange", "khaki", "burgundy", "silver", "gold", "ivory",
        "charcoal", "teal", "olive", "lavender", "mint", "coral", "walnut", "espresso",
    ),
    "metal": ("sterling silver", "yellow gold", "rose gold", "platinum", "titanium"),
    "hair_scent": ("lavender", "coconut", "citrus", "unscented", "eucalyptus", "vanilla"),
    "body_scent": ("shea butter", "cocoa", "fresh linen", "unscented", "sandalwood", "jasmine"),
    "perfume_scent": ("floral", "woody", "amber", "oriental", "aquatic", "musk"),
    "shade": ("porcelain", "ivory beige", "natural", "honey", "caramel", "espresso bean"),
    "lip_shade": ("nude", "ruby", "berry", "coral pink", "mauve", "cherry"),
    "chip_flavor": (
        "sea salt", "barbecue", "sour cream and onion", "salt and vinegar", "jalapeno",
        "cheddar", "original",
    ),
    "bar_flavor": (
        "chocolate chip", "peanut butter", "cookies and cream", "blueberry", "lemon",
        "double chocolate",
    ),
    "nut_flavor": ("roasted and salted", "unsalted", "honey roasted", "smoked", "chili lime"),
    "coffee_roast": ("light roast", "medium roast", "dark roast", "espresso roast", "decaf"),
    "tea_flavor": ("jasmine", "mint", "lemon ginger", "matcha", "peach", "earl grey"),
    "sauce_heat": ("mild", "medium", "hot", "inferno", "ghost pepper"),
    "chocolate_flavor": ("70 percent cacao", "sea salt", "almond", "orange", "raspberry"),
    "granola_flavor": ("honey almond", "cinnamon", "maple pecan", "cranberry", "coconut"),
    "spice_flavor": ("all purpose", "cajun", "italian", "lemon pepper", "taco", "garlic herb"),
    "oil_size": ("250 ml", "500 ml", "750 ml", "1 liter", "3 liters"),
    "phone_style": ("slim", "rugged", "wallet", "clear", "magnetic"),
    "switch": ("linear switch", "tactile switch", "clicky switch", "silent switch"),
    "connectivity": ("corded", "usb receiver", "dual mode"),
    "watch_band": ("leather band", "steel band", "silicone band", "nylon band"),
    "lamp_style": ("modern", "farmhouse", "industrial", "mid century", "coastal"),
    "curtain_size": ("42x63", "52x84", "52x95", "52x108"),
    "brew_size": ("single serve", "5 cup", "8 cup", "12 cup"),
}
QUANTITY_POOLS = frozenset(
    {
        "bottle", "jar", "weight", "count", "bars", "tea_count", "cloth_size", "bed_size",
        "furniture_size", "rug_size", "towel_set", "cookware_size", "capacity", "cable_length",
        "wattage", "waist", "screen", "oil_size", "brew_size", "curtain_size",
    }
)


@dataclass(frozen=True)
class Leaf:
    """One product type: where it sits, how it is described and what options it comes in."""

    path: tuple[str, ...]
    product_type: str
    article: str
    attributes: tuple[str, ...]
    descriptors: tuple[str, ...]
    materials: tuple[str, ...]
    options: tuple[tuple[str, str], ...]
    price: tuple[int, int]
    queries: tuple[str, ...]


def _leaf(path: str, ptype: str, attrs: str, descs: str, materials: str, options: str,
          price: tuple[int, int], queries: str, article: str = "a") -> Leaf:
    """Compact constructor: ``|``-separated lists, options as ``group:pool`` pairs."""
    return Leaf(
        path=tuple(s.strip() for s in path.split(">")),
        product_type=ptype,
        article=article,
        attributes=tuple(attrs.split("|")),
        descriptors=tuple(descs.split("|")),
        materials=tuple(materials.split("|")) if materials else (),
        options=tuple(tuple(o.split(":")) for o in options.split("|")) if options else (),
        price=price,
        queries=tuple(queries.split("|")),
    )


_B = "beauty & personal care"
_G = "grocery & gourmet food"
_F = "clothing, shoes & jewelry"
_H = "home & kitchen"
_E = "electronics"

LEAVES: tuple[Leaf, ...] = (
    # ---------------------------------------------------------------- beauty & personal care
    _leaf(f"{_B} > hair care > shampoo & conditioner > shampoo", "shampoo",
          "sulfate free|paraben free|color safe|for dry hair|for oily hair|anti dandruff|"
          "cruelty free|volumizing|for curly hair|natural ingredients",
          "moisturizing|nourishing|clarifying|hydrating|gentle|daily|repairing",
          "argan oil|tea tree|coconut oil|keratin|biotin|aloe vera",
          "size:bottle|scent:hair_scent", (5, 38),
          "shampoo|sulfate free shampoo|shampoo for dry hair"),
    _leaf(f"{_B} > hair care > shampoo & conditioner > conditioner", "conditioner",
          "sulfate free|paraben free|color safe|for dry hair|leave in|detangling|cruelty free|"
          "for curly hair|silicone free|natural ingredients",
          "moisturizing|deep|nourishing|smoothing|hydrating|restoring",
          "argan oil|shea butter|coconut oil|keratin|avocado oil|jojoba oil",
          "size:bottle|scent:hair_scent", (5, 36),
          "conditioner|leave in conditioner|conditioner for curly hair"),
    _leaf(f"{_B} > hair care > styling products > hair spray", "hair spray",
          "strong hold|flexible hold|humidity resistant|alcohol free|long lasting|"
          "paraben free|travel size|cruelty free",
          "finishing|volumizing|shaping|lightweight|professional",
          "keratin|argan oil|vitamin e|rice protein",
          "size:bottle|scent:hair_scent", (4, 26), "hair spray|strong hold hair spray"),
    _leaf(f"{_B} > hair care > hair treatments > hair oil", "hair oil",
          "for dry hair|frizz control|heat protection|cold pressed|paraben free|"
          "natural ingredients|for hair growth|non greasy",
          "nourishing|repairing|lightweight|silky|restorative",
          "argan oil|rosemary|castor oil|jojoba oil|coconut oil|marula oil",
          "size:bottle", (6, 40), "hair oil|hair growth oil"),
    _leaf(f"{_B} > hair care > styling tools > hair dryer", "hair dryer",
          "ionic technology|fast drying|low noise|with diffuser|cool shot button|lightweight|"
          "foldable handle|dual voltage",
          "professional|compact|powerful|salon|travel",
          "ceramic|tourmaline|brushless motor",
          "color:color", (19, 160), "hair dryer|ionic hair dryer|travel hair dryer"),
    _leaf(f"{_B} > skin care > face > moisturizers > face moisturizer", "face moisturizer",
          "oil free|fragrance free|for sensitive skin|with spf 30|non comedogenic|"
          "anti aging|dermatologist tested|for dry skin|vegan",
          "daily|hydrating|lightweight|rich|soothing|renewing",
          "hyaluronic acid|niacinamide|ceramides|retinol|vitamin c|squalane",
          "size:jar", (8, 65), "face moisturizer|moisturizer for dry skin|spf moisturizer"),
    _leaf(f"{_B} > skin care > face > treatments & serums > face serum", "face serum",
          "anti aging|brightening|for sensitive skin|fragrance free|vegan|oil free|"
          "dermatologist tested|reduces dark spots",
          "potent|concentrated|lightweight|radiance|overnight",
          "vitamin c|hyaluronic acid|retinol|niacinamide|peptides|bakuchiol",
          "size:bottle", (9, 70), "face serum|vitamin c serum|retinol serum"),
    _leaf(f"{_B} > skin care > body > body lotion", "body lotion",
          "for dry skin|fast absorbing|non greasy|fragrance free|paraben free|"
          "dermatologist tested|long lasting moisture|vegan",
          "daily|soothing|intensive|whipped|silky",
          "shea butter|cocoa butter|oatmeal|aloe vera|coconut oil",
          "size:bottle|scent:body_scent", (5, 30), "body lotion|lotion for dry skin"),
    _leaf(f"{_B} > skin care > sun care > sunscreen", "sunscreen",
          "spf 50|water resistant|reef safe|broad spectrum|oil free|for sensitive skin|"
          "fragrance free|mineral based",
          "sheer|lightweight|daily|sport|invisible",
          "zinc oxide|titanium dioxide|aloe vera|vitamin e",
          "size:bottle|count:count", (6, 34), "sunscreen|reef safe sunscreen|sunscreen spf 50"),
    _leaf(f"{_B} > makeup > lips > lipstick", "lipstick",
          "long lasting|matte finish|cruelty free|paraben free|moisturizing formula|"
          "transfer proof|vegan|highly pigmented",
          "velvet|creamy|bold|satin|classic",
          "shea butter|vitamin e|jojoba oil|beeswax",
          "color:lip_shade|count:count", (4, 32), "lipstick|matte lipstick|long lasting lipstick"),
    _leaf(f"{_B} > makeup > face > foundation", "foundation",
          "full coverage|oil free|long lasting|for oily skin|with spf 15|non comedogenic|"
          "cruelty free|natural finish",
          "liquid|flawless|weightless|satin|airbrush",
          "hyaluronic acid|niacinamide|mineral powder",
          "color:shade|size:jar", (7, 48), "foundation|full coverage foundation"),
    _leaf(f"{_B} > makeup > eyes > mascara", "mascara",
          "waterproof|smudge proof|lengthening|volumizing|cruelty free|"
          "for sensitive eyes|clump free|long lasting",
          "dramatic|voluminous|curling|defining|intense",
          "fiber|castor oil|peptides",
          "color:color|count:count", (4, 28), "mascara|waterproof mascara"),
    _leaf(f"{_B} > personal care > deodorants & antiperspirants > deodorant", "deodorant",
          "aluminum free|long lasting|baking soda free|natural ingredients|for sensitive skin|"
          "48 hour protection|vegan|paraben free",
          "fresh|clean|invisible|gentle|sport",
          "coconut oil|shea butter|charcoal|magnesium",
          "scent:body_scent|count:count", (4, 24), "deodorant|aluminum free deodorant"),
    _leaf(f"{_B} > personal care > oral care > toothpaste", "toothpaste",
          "fluoride free|whitening|for sensitive teeth|enamel repair|sls free|vegan|"
          "cavity protection|fresh breath",
          "daily|advanced|gentle|herbal|clinical",
          "charcoal|hydroxyapatite|baking soda|peppermint oil|xylitol",
          "count:count", (3, 22), "toothpaste|whitening toothpaste|fluoride free toothpaste"),
    _leaf(f"{_B} > fragrance > women's > eau de parfum", "eau de parfum",
          "long lasting|travel size|cruelty free|gift set|vegan|alcohol free",
          "elegant|signature|luxury|fresh|seductive",
          "rose|bergamot|vanilla bean|patchouli|jasmine",
          "size:bottle|scent:perfume_scent", (18, 140), "perfume for women|eau de parfum"),
    _leaf(f"{_B} > tools & accessories > makeup brushes & tools > makeup brush set",
          "makeup brush set",
          "cruelty free|with storage case|soft bristles|easy to clean|travel size|"
          "synthetic fibers|professional quality",
          "premium|complete|essential|deluxe|compact",
          "bamboo|wooden handle|aluminum ferrule",
          "color:color|count:count", (7, 45), "makeup brush set|makeup brushes"),
    # ---------------------------------------------------------------- grocery & gourmet food
    _leaf(f"{_G} > snack foods > chips & crisps > potato chips", "potato chips",
          "gluten free|kettle cooked|non gmo|no artificial flavors|vegan|low sodium|"
          "individually bagged|family size",
          "crunchy|classic|thick cut|crispy|wavy",
          "potatoes|avocado oil|sunflower oil",
          "flavor:chip_flavor|count:count", (3, 40), "potato chips|kettle chips", article=""),
    _leaf(f"{_G} > snack foods > bars > protein bars", "protein bars",
          "high protein|gluten free|low sugar|keto friendly|non gmo|plant based|"
          "individually wrapped|no artificial sweeteners",
          "chewy|crunchy|soft baked|wholesome|indulgent",
          "whey protein|almonds|oats|pea protein|dates",
          "flavor:bar_flavor|size:bars", (8, 45), "protein bars|keto protein bars", article=""),
    _leaf(f"{_G} > snack foods > nuts & seeds > mixed nuts", "mixed nuts",
          "resealable bag|non gmo|gluten free|kosher|no added oil|keto friendly|"
          "high protein|vegan",
          "premium|deluxe|roasted|crunchy|gourmet",
          "almonds|cashews|pecans|pistachios|walnuts|macadamias",
          "flavor:nut_flavor|size:weight", (6, 45), "mixed nuts|roasted mixed nuts", article=""),
    _leaf(f"{_G} > beverages > coffee, tea & cocoa > coffee > ground coffee", "ground coffee",
          "organic|fair trade|single origin|low acid|kosher|small batch|whole bean|"
          "rainforest alliance certified",
          "bold|smooth|rich|artisan|fresh roasted",
          "arabica beans|colombian beans|ethiopian beans|robusta beans",
          "roast:coffee_roast|size:weight", (6, 40),
          "ground coffee|organic coffee|dark roast coffee", article=""),
    _leaf(f"{_G} > beverages > coffee, tea & cocoa > tea > green tea", "green tea",
          "organic|caffeine free|non gmo|kosher|individually wrapped|loose leaf|"
          "sugar free|antioxidant rich",
          "premium|refreshing|delicate|soothing|pure",
          "green tea leaves|sencha|ginger root|lemongrass",
          "flavor:tea_flavor|size:tea_count", (4, 30), "green tea|organic green tea",
          article=""),
    _leaf(f"{_G} > pantry staples > cooking oils > olive oil", "olive oil",
          "extra virgin|cold pressed|organic|non gmo|unfiltered|kosher|"
          "glass bottle|single origin",
          "premium|robust|fruity|smooth|imported",
          "olives|arbequina olives|koroneiki olives",
          "size:oil_size|count:count", (7, 60), "olive oil|extra virgin olive oil", article=""),
    _leaf(f"{_G} > pantry staples > condiments & sauces > hot sauce", "hot sauce",
          "gluten free|no sugar added|vegan|small batch|keto friendly|all natural|"
          "low sodium|fermented",
          "fiery|smoky|tangy|bold|zesty",
          "habanero peppers|chipotle peppers|garlic|cayenne peppers",
          "heat:sauce_heat|count:count", (4, 30), "hot sauce|habanero hot sauce"),
    _leaf(f"{_G} > breakfast foods > cereals > granola", "granola",
          "gluten free|whole grain|non gmo|high fiber|low sugar|organic|vegan|"
          "resealable bag",
          "crunchy|clustered|homestyle|toasted|hearty",
          "oats|almonds|honey|chia seeds|quinoa",
          "flavor:granola_flavor|size:weight", (4, 30), "granola|gluten free granola",
          article=""),
    _leaf(f"{_G} > snack foods > candy & chocolate > dark chocolate", "dark chocolate bar",
          "fair trade|organic|vegan|non gmo|gluten free|keto friendly|no sugar added|"
          "individually wrapped",
          "rich|smooth|artisan|decadent|premium",
          "cacao beans|almonds|sea salt crystals|cocoa butter",
          "flavor:chocolate_flavor|count:count", (3, 35), "dark chocolate|chocolate bar"),
    _leaf(f"{_G} > pantry staples > herbs, spices & seasonings > seasoning blend",
          "seasoning blend",
          "salt free|non gmo|kosher|gluten free|no msg|organic|keto friendly|"
          "resealable bag",
          "zesty|savory|classic|gourmet|smoky",
          "garlic|paprika|black pepper|oregano|onion",
          "flavor:spice_flavor|size:jar", (3, 22), "seasoning blend|salt free seasoning"),
    # ---------------------------------------------------------------- clothing, shoes & jewelry
    _leaf(f"{_F} > women > clothing > dresses > maxi dress", "maxi dress",
          "machine washable|with pockets|short sleeve|long sleeve|v neck|elastic waist|"
          "floral print|relaxed fit",
          "casual|boho|summer|flowy|elegant",
          "cotton|rayon|chiffon|linen|polyester",
          "size:cloth_size|color:color", (18, 60), "maxi dress|summer maxi dress"),
    _leaf(f"{_F} > women > clothing > tops, tees & blouses > blouse", "blouse",
          "machine washable|long sleeve|short sleeve|v neck|button down|relaxed fit|"
          "wrinkle resistant|lightweight fabric",
          "casual|chiffon|elegant|loose|office",
          "cotton|chiffon|silk|polyester|rayon",
          "size:cloth_size|color:color", (14, 45), "blouse|womens blouse"),
    _leaf(f"{_F} > women > clothing > leggings", "leggings",
          "high waist|tummy control|with pockets|squat proof|moisture wicking|"
          "machine washable|four way stretch|buttery soft",
          "yoga|workout|athletic|seamless|everyday",
          "spandex|nylon|polyester|cotton",
          "size:cloth_size|color:color", (12, 40), "leggings|high waist leggings", article=""),
    _leaf(f"{_F} > men > clothing > shirts > t-shirt", "t-shirt",
          "machine washable|short sleeve|crew neck|moisture wicking|regular fit|slim fit|"
          "tagless|pre shrunk",
          "classic|heavyweight|everyday|performance|vintage",
          "cotton|polyester|jersey|bamboo",
          "size:cloth_size|color:color|count:count", (9, 38), "t-shirt|mens t-shirt"),
    _leaf(f"{_F} > men > clothing > pants > jeans", "jeans",
          "machine washable|slim fit|straight leg|relaxed fit|stretch denim|button fly|"
          "five pocket|zipper closure",
          "classic|rugged|vintage|modern|athletic",
          "denim|cotton|elastane",
          "size:waist|color:color", (22, 70), "jeans|mens jeans|slim fit jeans", article=""),
    _leaf(f"{_F} > men > clothing > jackets & coats > jacket", "jacket",
          "water resistant|windproof|zip closure|with hood|packable|machine washable|"
          "insulated|fleece lined",
          "lightweight|winter|outdoor|quilted|classic",
          "nylon|polyester|down|fleece|softshell",
          "size:cloth_size|color:color", (30, 150), "jacket|mens winter jacket|rain jacket"),
    _leaf(f"{_F} > men > clothing > socks", "socks",
          "moisture wicking|cushioned sole|arch support|machine washable|odor resistant|"
          "seamless toe|no show|breathable mesh",
          "athletic|crew|everyday|performance|dress",
          "cotton|merino wool|bamboo|nylon",
          "size:cloth_size|color:color|count:count", (8, 30), "socks|athletic socks",
          article=""),
    _leaf(f"{_F} > women > shoes > fashion sneakers > sneaker", "sneaker",
          "non slip|memory foam|breathable mesh|lightweight sole|arch support|laceless design|"
          "machine washable|lace up",
          "casual|walking|running|platform|everyday",
          "canvas|leather|mesh|suede|rubber",
          "size:shoe_size|color:color", (25, 110), "womens sneakers|walking shoes"),
    _leaf(f"{_F} > men > shoes > boots > work boot", "work boot",
          "waterproof|steel toe|slip resistant|oil resistant|lace up|ankle support|"
          "cushioned insole|electrical hazard protection",
          "rugged|heavy duty|classic|tactical|durable",
          "leather|suede|rubber|nubuck",
          "size:shoe_size|color:color", (45, 180), "work boots|steel toe boots"),
    _leaf(f"{_F} > women > handbags & wallets > shoulder bags > handbag", "handbag",
          "adjustable strap|zipper closure|multiple pockets|vegan leather|large capacity|"
          "water resistant|with wallet|crossbody strap",
          "classic|chic|elegant|vintage|everyday",
          "leather|canvas|faux leather|straw",
          "color:color", (20, 120), "handbag|womens handbags|shoulder bag"),
    _leaf(f"{_F} > men > accessories > wallets > bifold wallet", "bifold wallet",
          "rfid blocking|slim design|genuine leather|with coin pocket|id window|"
          "gift box included|minimalist design",
          "classic|slim|vintage|modern|handmade",
          "leather|carbon fiber|canvas",
          "color:color", (12, 60), "wallet|mens wallet|rfid wallet"),
    _leaf(f"{_F} > women > jewelry > necklaces > pendant necklace", "pendant necklace",
          "hypoallergenic|nickel free|adjustable chain|gift box included|tarnish resistant|"
          "handmade|lobster clasp",
          "dainty|elegant|minimalist|vintage|layered",
          "cubic zirconia|pearl|crystal|opal|moissanite",
          "metal:metal", (12, 140), "necklace|pendant necklace|womens necklace"),
    _leaf(f"{_F} > men > watches > wrist watches > analog watch", "analog watch",
          "water resistant|scratch resistant|luminous hands|quartz movement|date display|"
          "stainless steel case|chronograph",
          "classic|minimalist|sport|dress|military",
          "sapphire crystal|leather|stainless steel|titanium",
          "band:watch_band|color:color", (30, 220), "watch|mens watch|analog watch",
          article="an"),
    # ---------------------------------------------------------------- home & kitchen
    _leaf(f"{_H} > furniture > living room furniture > sofas & couches > sofa", "sofa",
          "easy assembly|removable cushions|stain resistant|with storage|convertible|"
          "solid wood frame|high density foam|pet friendly",
          "modern|mid century|tufted|compact|sectional",
          "velvet|linen|leather|microfiber|boucle",
          "size:furniture_size|color:color", (280, 950), "sofa|couch|sectional sofa"),
    _leaf(f"{_H} > furniture > bedroom furniture > nightstands > nightstand", "nightstand",
          "easy assembly|with drawer|with charging station|solid wood|open shelf|"
          "space saving|anti tip kit",
          "modern|rustic|farmhouse|minimalist|industrial",
          "oak|walnut|pine|engineered wood|metal",
          "color:color|count:count", (35, 220), "nightstand|bedside table"),
    _leaf(f"{_H} > furniture > home office furniture > chairs > office chair", "office chair",
          "lumbar support|adjustable height|ergonomic design|breathable mesh|"
          "swivel base|padded armrests|easy assembly|high back",
          "executive|ergonomic|modern|task|gaming",
          "mesh|leather|nylon|faux leather",
          "color:color", (60, 400), "office chair|ergonomic office chair", article="an"),
    _leaf(f"{_H} > furniture > living room furniture > tables > coffee table", "coffee table",
          "easy assembly|with storage|lift top|solid wood|scratch resistant|round shape|"
          "tempered glass top",
          "modern|rustic|farmhouse|industrial|mid century",
          "oak|walnut|marble|glass|metal",
          "size:furniture_size|color:color", (60, 450), "coffee table|living room table"),
    _leaf(f"{_H} > furniture > living room furniture > bookcases > bookshelf", "bookshelf",
          "easy assembly|adjustable shelves|anti tip kit|solid wood|space saving|"
          "open back|corner design",
          "modern|rustic|industrial|tall|ladder",
          "oak|pine|engineered wood|metal|bamboo",
          "size:furniture_size|color:color", (45, 300), "bookshelf|bookcase"),
    _leaf(f"{_H} > bedding > sheets & pillowcases > sheet set", "sheet set",
          "deep pocket|wrinkle resistant|machine washable|breathable|hypoallergenic|"
          "cooling|fade resistant|oeko tex certified",
          "luxury|soft|hotel|silky|cozy",
          "cotton|bamboo|microfiber|linen|percale",
          "size:bed_size|color:color", (25, 160), "sheet set|bed sheets|queen sheet set"),
    _leaf(f"{_H} > bedding > comforters & sets > comforter set", "comforter set",
          "machine washable|all season|hypoallergenic|down alternative|reversible|"
          "with pillow shams|lightweight fill",
          "luxury|cozy|fluffy|quilted|modern",
          "microfiber|cotton|polyester",
          "size:bed_size|color:color", (40, 220), "comforter set|king comforter"),
    _leaf(f"{_H} > bath > towels > bath towel set", "bath towel set",
          "quick dry|highly absorbent|machine washable|fade resistant|hotel quality|"
          "oeko tex certified|lint free",
          "plush|luxury|soft|spa|lightweight",
          "cotton|turkish cotton|bamboo|microfiber",
          "size:towel_set|color:color", (18, 90), "bath towels|towel set"),
    _leaf(f"{_H} > kitchen & dining > cookware > frying pan", "frying pan",
          "nonstick|dishwasher safe|oven safe|induction compatible|pfoa free|"
          "stay cool handle|scratch resistant",
          "professional|heavy duty|classic|everyday|deep",
          "cast iron|stainless steel|ceramic|aluminum|carbon steel",
          "size:cookware_size|color:color", (15, 120), "frying pan|nonstick skillet"),
    _leaf(f"{_H} > kitchen & dining > small appliances > coffee maker", "coffee maker",
          "programmable timer|auto shut off|dishwasher safe parts|keep warm plate|"
          "reusable filter|bpa free|brew strength control",
          "compact|classic|smart|modern|drip",
          "stainless steel|glass carafe|thermal carafe",
          "size:brew_size|color:color", (25, 180), "coffee maker|drip coffee maker"),
    _leaf(f"{_H} > home decor > lighting > table lamp", "table lamp",
          "usb charging port|touch control|dimmable|energy efficient|bulb included|"
          "three way switch|fabric shade",
          "modern|bedside|vintage|minimalist|ceramic",
          "ceramic|brass|wood|glass|linen",
          "style:lamp_style|color:color", (20, 140), "table lamp|bedside lamp"),
    _leaf(f"{_H} > home decor > window treatments > curtains", "blackout curtains",
          "thermal insulated|noise reducing|machine washable|grommet top|room darkening|"
          "energy saving|wrinkle free",
          "modern|elegant|soft|heavy|classic",
          "polyester|linen|velvet|cotton",
          "size:curtain_size|color:color", (15, 80), "blackout curtains|curtains",
          article=""),
    _leaf(f"{_H} > home decor > rugs > area rug", "area rug",
          "non slip backing|machine washable|stain resistant|low pile|pet friendly|"
          "easy to clean|non shedding",
          "modern|vintage|boho|geometric|shag",
          "wool|jute|polypropylene|cotton",
          "size:rug_size|color:color", (25, 260), "area rug|living room rug", article="an"),
    # ---------------------------------------------------------------- electronics
    _leaf(f"{_E} > headphones, earbuds & accessories > headphones > over-ear headphones",
          "headphones",
          "noise cancelling|wireless|long battery life|foldable design|built in microphone|"
          "hi res audio|memory foam ear cushions|fast charging",
          "studio|premium|bass|travel|gaming",
          "aluminum|protein leather|memory foam",
          "color:color", (25, 320), "headphones|noise cancelling headphones", article=""),
    _leaf(f"{_E} > headphones, earbuds & accessories > earbuds > wireless earbuds", "earbuds",
          "noise cancelling|waterproof|long battery life|touch control|charging case|"
          "fast charging|built in microphone|low latency",
          "true wireless|sport|compact|premium|mini",
          "silicone|graphene drivers",
          "color:color", (15, 220), "wireless earbuds|bluetooth earbuds", article=""),
    _leaf(f"{_E} > computers & accessories > keyboards, mice & accessories > keyboard",
          "keyboard",
          "backlit|wireless|mechanical|ergonomic design|rechargeable battery|"
          "spill resistant|hot swappable|compact layout",
          "gaming|slim|quiet|full size|tenkeyless",
          "aluminum|abs|pbt keycaps",
          "switch:switch|color:color", (18, 180), "keyboard|mechanical keyboard|gaming keyboard"),
    _leaf(f"{_E} > computers & accessories > keyboards, mice & accessories > mouse", "mouse",
          "wireless|ergonomic design|rechargeable battery|silent click|adjustable dpi|"
          "programmable buttons|rgb lighting",
          "gaming|vertical|compact|travel|precision",
          "rubber grip|honeycomb shell",
          "connectivity:connectivity|color:color", (10, 120), "mouse|wireless mouse|gaming mouse"),
    _leaf(f"{_E} > cell phones & accessories > cases, holsters & sleeves > phone case",
          "phone case",
          "shockproof|wireless charging compatible|raised edges|scratch resistant|"
          "with kickstand|with card holder|military grade drop protection",
          "slim|rugged|clear|protective|minimalist",
          "silicone|tpu|polycarbonate|leather",
          "style:phone_style|color:color", (6, 45), "phone case|shockproof phone case"),
    _leaf(f"{_E} > cell phones & accessories > chargers & power adapters > wall charger",
          "wall charger",
          "fast charging|foldable plug|multiple ports|gan technology|usb c|"
          "overheat protection|travel friendly",
          "compact|powerful|dual|universal|slim",
          "gallium nitride",
          "wattage:wattage|color:color", (9, 70), "wall charger|usb c charger|fast charger"),
    _leaf(f"{_E} > portable audio & video > portable speakers > bluetooth speaker",
          "bluetooth speaker",
          "waterproof|long battery life|stereo pairing|built in microphone|shockproof|"
          "deep bass|usb c charging",
          "portable|outdoor|mini|rugged|party",
          "fabric|rubber|aluminum",
          "color:color", (18, 260), "bluetooth speaker|portable speaker|waterproof speaker"),
    _leaf(f"{_E} > camera & photo > tripods & monopods > tripod", "tripod",
          "lightweight|with phone holder|bluetooth remote|extendable legs|quick release plate|"
          "360 degree rotation|carrying bag",
          "travel|professional|compact|heavy duty|flexible",
          "aluminum|carbon fiber|steel",
          "color:color", (15, 160), "tripod|camera tripod|phone tripod"),
    _leaf(f"{_E} > accessories & supplies > cables > hdmi cables > hdmi cable", "hdmi cable",
          "high speed|4k hdr|braided jacket|gold plated connectors|ethernet support|"
          "8k ultra hd|flexible design",
          "premium|ultra|durable|slim|pro",
          "nylon|copper|pvc",
          "length:cable_length|count:count", (6, 40), "hdmi cable|4k hdmi cable", article="an"),
    _leaf(f"{_E} > wearable technology > smartwatches > smart watch", "smart watch",
          "heart rate monitor|sleep tracking|waterproof|gps|long battery life|"
          "blood oxygen monitor|call notifications",
          "fitness|sport|classic|slim|rugged",
          "aluminum|silicone|stainless steel",
          "band:watch_band|color:color", (30, 350), "smart watch|fitness tracker"),
    _leaf(f"{_E} > computers & accessories > data storage > usb flash drive",
          "usb flash drive",
          "usb 3.0|high speed transfer|keychain design|metal casing|password protection|"
          "plug and play",
          "compact|mini|rugged|swivel|dual",
          "zinc alloy|aluminum|plastic",
          "size:capacity|count:count", (5, 60), "usb flash drive|thumb drive"),
    _leaf(f"{_E} > computers & accessories > monitors > computer monitor", "computer monitor",
          "144hz refresh rate|ips panel|adjustable stand|eye care technology|built in speakers|"
          "frameless design|vesa mountable|usb c input",
          "gaming|curved|ultrawide|professional|slim",
          "aluminum",
          "size:screen|color:color", (99, 600), "monitor|gaming monitor|computer monitor"),
)

# --------------------------------------------------------------------------- invented brands
_BRAND_HEADS = (
    "vel", "bri", "kin", "lum", "nor", "sol", "ari", "zen", "mar", "cal", "dor", "fen", "hal",
    "jun", "kor", "lir", "mon", "nov", "orb", "pax", "quin", "rav", "sel", "tor", "ulv", "vex",
    "wyn", "yar", "zel", "tav", "bel", "cor", "dun", "eli", "fal", "gal", "hav", "ist", "jor",
    "kal",
)
_BRAND_TAILS = (
    "ora", "ix", "ana", "elle", "wood", "ford", "ly", "io", "ex", "ara", "ton", "vale", "more",
    "ish", "ette", "on", "um", "ia", "ova", "ique", "well", "crest", "hurst", "field", "by",
    "ani", "enza", "ola", "ux", "etta",
)
#: 1,200 invented brand names, syllable by syllable (each leaf draws 40; see the generator).
BRANDS: tuple[str, ...] = tuple((h + t).capitalize() for h in _BRAND_HEADS for t in _BRAND_TAILS)

# --------------------------------------------------------------------------- text templates
# Placeholders: {brand}, {ptype} (product type), {desc} (first descriptor), {material}.
BULLET_BODIES = (
    "this {desc} {ptype} from {brand} is made for everyday use",
    "a thoughtful choice that fits right into your routine",
    "every {ptype} is inspected before it leaves our facility",
    "designed with care by {brand}, a name customers trust",
    "made to meet high standards of quality and comfort",
    "our team tested this {ptype} so it performs day after day",
    "a dependable pick for home, work or the weekend",
    "built to keep up with a busy schedule",
)
MATERIAL_BODIES = (
    "crafted with {material} for a premium look and feel",
    "enjoy the difference that {material} makes",
    "{material} sets this {ptype} apart from the rest",
)
GENERIC_BULLETS = (
    "SATISFACTION GUARANTEE: if you are not happy with your {ptype}, contact us for a "
    "replacement or a refund",
    "WHAT YOU GET: one {brand} {ptype} and our friendly customer service",
    "GREAT GIFT IDEA: a welcome present for birthdays, holidays and anniversaries",
)
DESCRIPTION_OPENERS = (
    "Meet the {brand} {desc} {ptype}.",
    "Upgrade your routine with this {desc} {ptype} from {brand}.",
    "The {brand} {ptype} is our most popular {desc} design.",
    "Discover a {desc} {ptype} made the {brand} way.",
)
DESCRIPTION_MIDDLES = (
    "It is made with {material} and finished by hand.",
    "We chose {material} because it lasts.",
    "Customers love how well it works from the very first day.",
    "It is a small upgrade that makes a big difference.",
    "Every detail has been considered, from the packaging to the finish.",
)
REVIEW_TEXTS = {
    5: (
        "Love this {ptype}! Exactly as described.",
        "Great quality for the price, would buy again from {brand}.",
        "Five stars. It does everything I wanted.",
    ),
    4: (
        "Very good {ptype}, shipping took a little long.",
        "Works well. I took one star off for the packaging.",
    ),
    3: (
        "It is okay. Does the job but nothing special.",
        "Average {ptype}; I expected a bit more for the money.",
    ),
    2: ("Not what I expected, the {ptype} felt cheaper than the pictures.",),
    1: ("Disappointed. Mine arrived damaged and support was slow.",),
}
#: The cents a price ends in, drawn uniformly (so .99 half the time; 0 means a round price).
PRICE_ENDINGS = (99, 99, 99, 95, 49, 0)

# Attributes that contradict each other never appear together on one product.
EXCLUSIVE_ATTRIBUTES: tuple[frozenset[str], ...] = (
    frozenset({"short sleeve", "long sleeve"}),
    frozenset({"for dry hair", "for oily hair"}),
    frozenset({"slim fit", "relaxed fit", "regular fit", "straight leg"}),
    frozenset({"strong hold", "flexible hold"}),
    frozenset({"for dry skin", "for oily skin"}),
    frozenset({"whitening", "for sensitive teeth"}),
)
