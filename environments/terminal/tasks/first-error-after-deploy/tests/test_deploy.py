from pathlib import Path

APP = Path("/app")
FIRST_FILE = 'worker.log'
FIRST_LINE = '1714660225 ERROR job 90211 crashed: price is None'
COUNTS = ["api.log 14", "worker.log 14"]


def test_answer_file_name():
    assert (APP / "answer.txt").read_text().splitlines()[0].strip() == FIRST_FILE


def test_answer_log_line():
    lines = (APP / "answer.txt").read_text().splitlines()
    assert len(lines) == 2 and lines[1] == FIRST_LINE


def test_api_count():
    lines = (APP / "errors_after_deploy.txt").read_text().splitlines()
    assert COUNTS[0] in lines


def test_worker_count():
    lines = (APP / "errors_after_deploy.txt").read_text().splitlines()
    assert COUNTS[1] in lines


def test_counts_file_exact():
    assert (APP / "errors_after_deploy.txt").read_text().splitlines() == COUNTS
