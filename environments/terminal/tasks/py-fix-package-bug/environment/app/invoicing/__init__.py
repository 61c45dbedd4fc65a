"""Tiny invoicing package: lines, discounts, VAT."""
from .invoice import Invoice, Line
from .money import cents
from .tax import RATES, tax_for

__all__ = ["RATES", "Invoice", "Line", "cents", "tax_for"]
