import hashlib
from pathlib import Path

APP = Path("/app")
RESTORED = APP / "restored"
EXPECTED = {'customers.csv': '8f5e3f259512ca4697cf18cfaa9355481f5f063af9f931a6965be7f4abd23483',
 'orders.csv': '875d41933e9acf5770c93dacd0a86a5c27909d2eefc5322bb28b45267bb4c699',
 'products.csv': '6eb712227fcf8e614e984ad3e2b885f078211f59c299c8c9c5bfe4b2a1607481',
 'archive/2022.csv': '41331017a447f586ec4eac1fa097103520641844d731be1e28d2695df7684277',
 'archive/2023.csv': 'ad71f95a727debc4cb9b1bfb934387c19ed553eefe790b6a8594e62449285887'}


def files_under(root):
    return sorted(str(p.relative_to(root)) for p in root.rglob("*") if p.is_file())


def test_exact_files_restored():
    assert RESTORED.is_dir()
    assert files_under(RESTORED) == sorted(EXPECTED)


def test_contents_match_the_archive():
    for rel, digest in EXPECTED.items():
        assert hashlib.sha256((RESTORED / rel).read_bytes()).hexdigest() == digest, rel


def test_nested_archive_dir_kept():
    assert (RESTORED / "archive" / "2023.csv").read_text() == "year,revenue\n2023,234567.89\n"


def test_nothing_else_extracted():
    # the data files were extracted (every one of them), and nothing beside them
    assert set(EXPECTED) <= set(files_under(RESTORED))
    assert not (APP / "project").exists()
    assert not list(APP.rglob("*.py")) and not list(APP.rglob("*.log"))
    assert (APP / "backup.tar.gz").is_file()
