"""Hidden tests for py-fix-package-bug: the package in /app must follow /app/SPEC.md."""
import sys
from decimal import Decimal

import pytest

sys.path.insert(0, "/app")

import invoicing
from invoicing import Invoice, Line, cents, tax_for

D = Decimal


def test_cents_rounds_half_away_from_zero_exactly():
    assert cents("2.675") == D("2.68")
    assert cents("-0.125") == D("-0.13")
    assert cents(D("1.005")) == D("1.01")
    assert cents("0.0049") == D("0.00")
    assert cents(7) == D("7.00")
    assert str(cents("1e1")) == "10.00"
    assert cents("12345678901234567.125") == D("12345678901234567.13")


def test_invoices_do_not_share_lines():
    a = Invoice()
    a.add(Line("pen", D("1.00")))
    b = Invoice()
    assert b.lines == [] and b.subtotal() == D("0.00")
    given = [Line("cup", D("2.00"))]
    c = Invoice(given)
    c.add(Line("pen", D("1.00")))
    assert len(given) == 1


def test_tax_is_due_on_discounted_amounts():
    inv = Invoice([Line("book", D("10.00"), 1, "reduced"), Line("lamp", D("19.99"), 2)], 10)
    assert inv.subtotal() == D("49.98")
    assert inv.discount() == D("5.00")
    # 10.00 * 0.9 * 0.055 = 0.495 -> 0.50 ; 39.98 * 0.9 * 0.20 = 7.1964 -> 7.20
    assert inv.tax() == D("7.70")
    assert inv.total() == D("52.68")


def test_unknown_category_is_value_error():
    with pytest.raises(ValueError, match="luxury"):
        tax_for(D("1.00"), "luxury")
    with pytest.raises(ValueError, match="luxury"):
        Line("yacht", D("1.00"), 1, "luxury")
    assert tax_for(D("0.125"), "standard") == D("0.03")


def test_invalid_quantity_and_discount_rejected():
    for qty in (0, -1, 1.5):
        with pytest.raises(ValueError):
            Line("pen", D("1.00"), qty)
    for pct in (-1, 101):
        with pytest.raises(ValueError):
            Invoice(discount_percent=pct)
    assert Invoice(discount_percent=100).discount() == D("0.00")


def test_full_invoice_and_api():
    assert {"Invoice", "Line", "RATES", "cents", "tax_for"} <= set(invoicing.__all__)
    inv = Invoice(discount_percent=15)
    inv.add(Line("tea", D("3.335"), 3, "reduced")).add(Line("pot", D("24.50"))).add(
        Line("gift card", D("20"), 1, "zero"))
    # nets: 10.01 (10.005 half-up), 24.50, 20.00 -> 54.51 ; discount 8.18 (8.1765)
    assert [line.net() for line in inv.lines] == [D("10.01"), D("24.50"), D("20.00")]
    assert inv.discount() == D("8.18")
    # tax: 10.01*0.85*0.055 = 0.46796 -> 0.47 ; 24.50*0.85*0.2 = 4.165 -> 4.17 ; 0
    assert inv.tax() == D("4.64")
    assert inv.total() == D("50.97")
