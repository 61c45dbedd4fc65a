import hashlib
import tarfile
from pathlib import Path

APP = Path("/app")
SORTED = APP / "sorted"
EXPECTED = {'pdf/report.PDF': 'd4158f570cde440603d93a8c146315dd47a7030b630a6b0f34067a68e013b827',
 'txt/notes.txt': '2f961146136b3a277868c6769ff925bda87e49946e5e6b842ad359d6b27aada4',
 'jpg/beach.JPG': '721df1b69c32cad43da5646f5a5981ea77a29ee0135609bad6e92de1a0f4a4af',
 'jpg/city.jpg': 'f922c6f8371dc9c96587da234e40867ef2f6b93b0b9567428f5758d146380012',
 'jpg/mountain.Jpg': 'fd78edcc7c5206ad27b08a663ddeae45205713274277f797c6dcc2091194c270',
 'txt/plan.txt': 'be0942541842358da5b016f0d97a947c9a1c96245fdde58726bf30b771169f38',
 'xlsx/budget.xlsx': '2ebf27175fd2b80bbc45d812963b8364fef3152af11d5cfce0f932709a8974d4',
 'gz/backup.tar.gz': 'ace240d46c21a7b7adefb5d7d50b01494626102723b67b7a3fbf386a7e101921',
 'noext/readme': 'fda1001b1c32a3bf54a3780d58cb7c5cfc4c5220a41a79547cdebb7abc090061',
 'noext/.env': '664049a85e2251d253ff78a9a7808b41ef4a9f14c8a1b998b6bffd40b2494808',
 'mp3/song one.mp3': '23de2a1880efabcf110a3ad84456627b0938456494bd3b0f151b87942bb21630',
 'mp3/song two.MP3': '21786afca9203d704a253f662c3349353c8a43cf3520dd0b0dcbb4b72aaa4558',
 'noext/Makefile': '54fc1cc2a93eecec504e0cef2173878efa87a76fe793f8ef7dc5e0a0e6b60648',
 'csv/export.csv': '492d5ea496056f1a6a6592241032fab764c321596317930b4fa0e1e8bc3b7470',
 'json/export.json': 'e8c628edc9968ef0c668f54e0ba2636b35503357eb1aca0ddc828aeace432f67',
 'csv/sensor.v2.csv': 'a15167f58d1c49ef5c6ef9a0cf6039452b738b2036e74cdf250557154af59383',
 'sh/run.sh': 'a4e0317eafab5cf1bc4a0041c7c8aeb6ece56fe72e7b2b3017a8a6574614cd35',
 'sh/.hidden.sh': 'f85d2823ad93fe533a1f966a84e2f5372b9910aff2696a72cd89fb6e2370acbc'}


def files_under(root):
    return sorted(str(p.relative_to(root)) for p in root.rglob("*") if p.is_file())


def test_exact_sorted_layout():
    assert files_under(SORTED) == sorted(EXPECTED)


def test_contents_preserved():
    for rel, digest in EXPECTED.items():
        assert hashlib.sha256((SORTED / rel).read_bytes()).hexdigest() == digest, rel


def digest(rel):
    return hashlib.sha256((SORTED / rel).read_bytes()).hexdigest()


def test_tricky_names():
    for rel in ("gz/backup.tar.gz", "noext/.env", "sh/.hidden.sh", "csv/sensor.v2.csv"):
        assert digest(rel) == EXPECTED[rel], rel


def test_inbox_has_no_files_left():
    # the files were moved (each one is in sorted/), and none is left behind
    assert all((SORTED / rel).is_file() for rel in EXPECTED)
    assert digest("txt/notes.txt") == EXPECTED["txt/notes.txt"]
    assert not [p for p in (APP / "inbox").rglob("*") if p.is_file() or p.is_symlink()]


def test_archive_holds_the_sorted_tree():
    with tarfile.open(APP / "sorted.tar.gz", "r:gz") as tf:
        members = {m.name.removeprefix("./"): m for m in tf.getmembers()}
        files = sorted(name for name, m in members.items() if m.isfile())
        assert files == sorted("sorted/" + rel for rel in EXPECTED)
        data = tf.extractfile(members["sorted/mp3/song one.mp3"]).read()
        assert hashlib.sha256(data).hexdigest() == EXPECTED["mp3/song one.mp3"]
