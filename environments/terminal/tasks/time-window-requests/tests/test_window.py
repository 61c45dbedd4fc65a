from pathlib import Path

APP = Path("/app")
CSV = ['path,count',
 '/api/items,42',
 '/api/cart,38',
 '/,21',
 '/static/app.css,17',
 '/api/items/7,13',
 '/login,12',
 '/health,7']
TOTAL = 150


def rows():
    return (APP / "window.csv").read_text().splitlines()


def test_paths_without_query_strings():
    got = rows()
    assert got[0] == "path,count"
    assert sorted(r.split(",")[0] for r in got[1:]) == sorted(r.split(",")[0] for r in CSV[1:])


def test_counts_per_path():
    got = dict(r.split(",") for r in rows()[1:])
    assert got == dict(r.split(",") for r in CSV[1:])


def test_order():
    assert rows() == CSV


def test_total():
    assert (APP / "window_total.txt").read_text().strip() == str(TOTAL)
