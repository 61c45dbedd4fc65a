import configparser
from pathlib import Path

INI = Path("/app/shop.ini")
EXPECTED = ('\n'
 '[server]\n'
 'host = 127.0.0.1\n'
 'port = 8080\n'
 'workers = 4\n'
 'timeout = 30\n'
 '\n'
 '[database]\n'
 'host = 127.0.0.1\n'
 'port = 5432\n'
 'name = shop\n'
 'user = shop_app\n'
 '\n'
 '[cache]\n'
 'url = redis://127.0.0.1:6379/0\n'
 'ttl = 300\n'
 '\n'
 '[logging]\n'
 'level = info\n'
 'file = /var/log/shop/server.log\n'
 'format = %(asctime)s %(levelname)s %(message)s\n')


def parsed():
    cp = configparser.ConfigParser(interpolation=None)
    cp.read_string(INI.read_text())
    return cp


def test_server_port_is_8080():
    assert parsed()["server"]["port"] == "8080"


def test_other_ports_untouched():
    cp = parsed()
    assert cp.sections() == ["server", "database", "cache", "logging"]
    assert cp["database"]["port"] == "5432"
    assert cp["cache"]["url"].endswith(":6379/0")
    assert cp["server"]["port"] != "8000"


def test_localhost_replaced():
    text = INI.read_text()
    assert "localhost" not in text
    assert text.count("127.0.0.1") == 3
    want = [line for line in EXPECTED.splitlines() if "127.0.0.1" in line]
    assert [line for line in text.splitlines() if "127.0.0.1" in line] == want


def test_comment_lines_removed():
    # no comment line is left, and every other line is still there, in order (its value aside)
    lines = INI.read_text().splitlines()
    assert not [line for line in lines if line.strip().startswith("#")]
    assert [line.split("=")[0] for line in lines] == [
        line.split("=")[0] for line in EXPECTED.splitlines()]


def test_rest_of_file_unchanged():
    assert INI.read_text() == EXPECTED
