from pathlib import Path

APP = Path("/app")
FIRST_FILE = 'worker.log'
FIRST_LINE = '1714660225 ERROR job 90211 crashed: price is None'
COUNTS = ["api.log 14", "worker.log 14"]
# the ERROR lines of worker.log at or after the release finished (the earliest is FIRST_LINE)
WORKER_ERRORS_AFTER = [
    '1714660225 ERROR job 90211 crashed: price is None',
    '1714660384 ERROR cannot decode message',
    '1714660475 ERROR queue connection reset',
    '1714660791 ERROR cannot decode message',
    '1714661012 ERROR cannot decode message',
    '1714661434 ERROR queue connection reset',
    "1714661947 ERROR job 88123 crashed: KeyError 'sku'",
    '1714662062 ERROR queue connection reset',
    '1714662840 ERROR retry limit hit for job',
    '1714662975 ERROR retry limit hit for job',
    "1714663019 ERROR job 88123 crashed: KeyError 'sku'",
    "1714663101 ERROR job 88123 crashed: KeyError 'sku'",
    '1714663186 ERROR retry limit hit for job',
    '1714663524 ERROR retry limit hit for job',
]


def answer():
    return (APP / "answer.txt").read_text().splitlines()


def counts():
    return (APP / "errors_after_deploy.txt").read_text().splitlines()


def test_answer_file_name():
    # the file is right, and the line given is one of its errors after the release (so the
    # name is not a guess between two)
    lines = answer()
    assert len(lines) == 2 and lines[0].strip() == FIRST_FILE
    assert lines[1] in WORKER_ERRORS_AFTER


def test_answer_log_line():
    lines = answer()
    assert len(lines) == 2 and lines[1] == FIRST_LINE


def test_api_count():
    lines = counts()
    assert len(lines) == 2 and lines[0] == COUNTS[0]


def test_worker_count():
    lines = counts()
    assert len(lines) == 2 and lines[1] == COUNTS[1]


def test_counts_file_exact():
    assert counts() == COUNTS
