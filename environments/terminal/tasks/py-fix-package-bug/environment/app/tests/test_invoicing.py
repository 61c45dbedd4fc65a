import sys
from decimal import Decimal
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from invoicing import Invoice, Line, cents


def test_cents_simple():
    assert cents("1.5") == Decimal("1.50")


def test_cents_half_up():
    assert cents("2.675") == Decimal("2.68")


def test_subtotal():
    inv = Invoice([Line("pen", Decimal("1.20"), 3)])
    assert inv.subtotal() == Decimal("3.60")
