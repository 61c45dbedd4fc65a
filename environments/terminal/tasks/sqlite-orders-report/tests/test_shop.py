import sqlite3
from pathlib import Path

APP = Path("/app")
NEW_PRICES = {1: 138.25,
 2: 103.85,
 3: 79.61,
 4: 123.07,
 5: 67.83,
 6: 162.34,
 7: 79.65,
 8: 106.62,
 9: 53.39,
 10: 109.34,
 11: 21.21,
 12: 58.67,
 13: 136.28,
 14: 99.42,
 15: 132.77,
 16: 105.82,
 17: 45.06,
 18: 115.19}
OLD_PRICES = {1: 125.68,
 2: 94.41,
 3: 72.37,
 4: 111.88,
 5: 61.66,
 6: 147.58,
 7: 72.41,
 8: 106.62,
 9: 53.39,
 10: 109.34,
 11: 21.21,
 12: 58.67,
 13: 136.28,
 14: 99.42,
 15: 132.77,
 16: 105.82,
 17: 45.06,
 18: 115.19}
TOOLS = [1, 2, 3, 4, 5, 6, 7]
INACTIVE = [4, 7, 9, 11, 12, 14, 16, 17, 18, 25, 26]
N_CUSTOMERS = 26
N_ORDERS = 60
N_ITEMS = 145
TOP = ['customer_id,name,total_spent',
 '7,Gus Garcia,4280.74',
 "18,Rae O'Neil,3966.08",
 '21,Uma Rossi,3341.73',
 '1,Ann Nguyen,3255.21',
 '23,Wen Nguyen,2970.70']


def query(sql):
    con = sqlite3.connect(f"file:{APP / 'shop.db'}?mode=ro", uri=True)
    try:
        return con.execute(sql).fetchall()
    finally:
        con.close()


def test_tools_prices_raised():
    got = dict(query("SELECT id, price FROM products WHERE category = 'tools'"))
    assert sorted(got) == TOOLS
    for pid in TOOLS:
        assert abs(got[pid] - NEW_PRICES[pid]) < 1e-6, (pid, got[pid], NEW_PRICES[pid])


def test_other_prices_unchanged_and_rows_kept():
    got = dict(query("SELECT id, price FROM products"))
    assert sorted(got) == sorted(OLD_PRICES)
    others = [p for p in got if p not in TOOLS]
    assert all(abs(got[p] - OLD_PRICES[p]) < 1e-6 for p in others)
    assert any(abs(got[p] - OLD_PRICES[p]) > 1e-6 for p in TOOLS)
    assert query("SELECT COUNT(*) FROM orders")[0][0] == N_ORDERS
    assert query("SELECT COUNT(*) FROM order_items")[0][0] == N_ITEMS


def test_inactive_customers():
    got = [r[0] for r in query("SELECT id FROM customers WHERE status = 'inactive' ORDER BY id")]
    assert got == INACTIVE


def test_everyone_else_active():
    got = [r[0] for r in query("SELECT id FROM customers WHERE status = 'active' ORDER BY id")]
    assert got == [i for i in range(1, N_CUSTOMERS + 1) if i not in INACTIVE]


def test_top_customers_ids():
    lines = (APP / "top_customers.csv").read_text().splitlines()
    assert lines[0] == TOP[0]
    assert [line.split(",")[0] for line in lines[1:]] == [t.split(",")[0] for t in TOP[1:]]


def test_top_customers_exact():
    assert (APP / "top_customers.csv").read_text().splitlines() == TOP
