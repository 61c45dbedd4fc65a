"""Hidden tests for py-fix-package-bug: the package in /app must follow /app/SPEC.md.

The package runs through agentgym_harness (as the agent, in a child process). The snippets
only feed it inputs and report what came back: a Decimal as ("Decimal", str(value)), which
is read back here into a Decimal, ints and floats as themselves, anything else as
("other", type name, repr), and a raised exception as ("raised", built-in classes, message).
Every answer is compared here."""
import re
from decimal import Decimal

import agentgym_harness as agent

D = Decimal

PRELUDE = '''
from decimal import Decimal
import invoicing
from invoicing import Invoice, Line, cents, tax_for
D = Decimal


def enc(value):
    if isinstance(value, Decimal):
        return ("Decimal", str(value))
    if type(value) in (int, float):
        return value
    if isinstance(value, list):
        return ("list", [enc(item) for item in value])
    return ("other", type(value).__name__, repr(value))


def attempt(fn, *args, **kwargs):
    try:
        return ("value", enc(fn(*args, **kwargs)))
    except Exception as exc:
        return ("raised", [c.__name__ for c in type(exc).__mro__ if c.__module__ == "builtins"],
                str(exc))
'''


def dec(value):
    """An encoded answer back into what the agent's code returned (Decimals as Decimal)."""
    if isinstance(value, tuple) and len(value) == 2 and value[0] == "Decimal":
        return Decimal(value[1])
    if isinstance(value, tuple) and len(value) == 2 and value[0] == "list":
        return [dec(item) for item in value[1]]
    return value


def run(source: str):
    return agent.python(PRELUDE + source)


def value(outcome):
    assert outcome[0] == "value", f"raised: {outcome}"
    return dec(outcome[1])


def raised(outcome, kind: str, match: str | None = None) -> bool:
    return (outcome[0] == "raised" and kind in outcome[1]
            and (match is None or re.search(match, outcome[2]) is not None))


def test_cents_rounds_half_away_from_zero_exactly():
    got = run('result = [enc(cents(x)) for x in ("2.675", "-0.125", D("1.005"), "0.0049", 7,'
              ' "12345678901234567.125")] + [str(cents("1e1"))]')
    *amounts, ten = got
    assert [dec(x) for x in amounts] == [D("2.68"), D("-0.13"), D("1.01"), D("0.00"),
                                         D("7.00"), D("12345678901234567.13")]
    assert ten == "10.00"


def test_invoices_do_not_share_lines():
    got = run('''
a = Invoice()
a.add(Line("pen", D("1.00")))
b = Invoice()
b_lines = enc(b.lines)
b_subtotal = enc(b.subtotal())
given = [Line("cup", D("2.00"))]
c = Invoice(given)
c.add(Line("pen", D("1.00")))
result = [b_lines, b_subtotal, len(given)]
''')
    b_lines, b_subtotal, given_len = got
    assert dec(b_lines) == [] and dec(b_subtotal) == D("0.00")
    assert given_len == 1


def test_tax_is_due_on_discounted_amounts():
    got = run('''
inv = Invoice([Line("book", D("10.00"), 1, "reduced"), Line("lamp", D("19.99"), 2)], 10)
result = [enc(inv.subtotal()), enc(inv.discount()), enc(inv.tax()), enc(inv.total())]
''')
    subtotal, discount, tax, total = (dec(x) for x in got)
    assert subtotal == D("49.98")
    assert discount == D("5.00")
    # 10.00 * 0.9 * 0.055 = 0.495 -> 0.50 ; 39.98 * 0.9 * 0.20 = 7.1964 -> 7.20
    assert tax == D("7.70")
    assert total == D("52.68")


def test_unknown_category_is_value_error():
    got = run('result = [attempt(tax_for, D("1.00"), "luxury"),'
              ' attempt(Line, "yacht", D("1.00"), 1, "luxury"),'
              ' attempt(tax_for, D("0.125"), "standard")]')
    assert raised(got[0], "ValueError", "luxury"), got[0]
    assert raised(got[1], "ValueError", "luxury"), got[1]
    assert value(got[2]) == D("0.03")


def test_invalid_quantity_and_discount_rejected():
    got = run('result = [attempt(Line, "pen", D("1.00"), qty) for qty in (0, -1, 1.5)]'
              ' + [attempt(Invoice, discount_percent=pct) for pct in (-1, 101)]'
              ' + [attempt(lambda: Invoice(discount_percent=100).discount())]')
    *bad, full = got
    for outcome in bad:
        assert raised(outcome, "ValueError"), outcome
    assert value(full) == D("0.00")


def test_full_invoice_and_api():
    got = run('''
names = list(invoicing.__all__)
inv = Invoice(discount_percent=15)
inv.add(Line("tea", D("3.335"), 3, "reduced")).add(Line("pot", D("24.50"))).add(
    Line("gift card", D("20"), 1, "zero"))
result = [names, [enc(line.net()) for line in inv.lines], enc(inv.discount()), enc(inv.tax()),
          enc(inv.total())]
''')
    names, nets, discount, tax, total = got
    assert {"Invoice", "Line", "RATES", "cents", "tax_for"} <= set(names)
    # nets: 10.01 (10.005 half-up), 24.50, 20.00 -> 54.51 ; discount 8.18 (8.1765)
    assert [dec(x) for x in nets] == [D("10.01"), D("24.50"), D("20.00")]
    assert dec(discount) == D("8.18")
    # tax: 10.01*0.85*0.055 = 0.46796 -> 0.47 ; 24.50*0.85*0.2 = 4.165 -> 4.17 ; 0
    assert dec(tax) == D("4.64")
    assert dec(total) == D("50.97")
