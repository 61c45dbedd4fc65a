"""Hidden tests for git-cherry-pick-fix: the back-port on release/1.2."""
import os

import agentgym_harness as agent

REPO = "/app"
REL = "release/1.2"


def git(*args: str) -> str:
    """git in the agent's repository, run as the agent (its hooks and config are its own)."""
    out = agent.run(["git", "-C", REPO, *args])
    assert out.returncode == 0, f"git {' '.join(args)} failed: {out.stderr}"
    return out.stdout.strip()


def checkout_of(rev: str) -> str:
    return agent.git_tree(REPO, rev)


def fix_commit() -> str:
    return git("log", "-1", "--format=%H", "--grep=^fix: accept lowercase", "main")


def release_module() -> str:
    """A directory holding the release's sizes.py as the module ``release_sizes`` (written by
    the agent's uid, imported only in its children)."""
    assert git("log", "-1", "--format=%s", f"{REL}^") == "Changelog for 1.2.1"
    where = agent.tempdir()
    out = agent.run(["bash", "-c", 'git -C "$1" show "$2:sizes.py" > "$3/release_sizes.py"',
                     "bash", REPO, REL, where], cwd="/tmp")
    assert out.returncode == 0, f"git show {REL}:sizes.py failed: {out.stderr}"
    return where


def parse_sizes(where: str, *texts: str):
    """release_sizes.parse_size on each text, in one child: a list of Outcome."""
    return agent.call_many("release_sizes", "parse_size", [(t,) for t in texts], path=where)


def test_one_new_commit_recording_the_pick():
    assert git("log", "-1", "--format=%s", f"{REL}^") == "Changelog for 1.2.1"
    assert git("rev-list", "--count", REL) == "4"
    message = git("log", "-1", "--format=%B", REL)
    assert f"(cherry picked from commit {fix_commit()})" in message


def test_fix_present_on_release():
    got = parse_sizes(release_module(), "10k", " 1.5G ", "1.5g", "0.5k", "3m")
    assert [o.error for o in got] == [None] * 5, got
    assert [o.value for o in got] == [10240, 1610612736, 1610612736, 512, 3 * 1024 ** 2]


def test_release_behaviour_kept():
    where = release_module()
    two_t, plain, upper_t, half_t = parse_sizes(where, "2t", "512", "3T", "2.5t")
    assert two_t.error is None and two_t.value == 2 * 1024 ** 4, two_t
    assert plain.error is None and plain.value == 512, plain
    assert upper_t.raised("ValueError"), upper_t
    assert half_t.raised("ValueError"), half_t
    has_format_size, has_petabytes = agent.python(
        "import release_sizes as sizes\n"
        "result = ['format_size' in vars(sizes), 'P' in vars(sizes)['UNITS']]", path=where)
    assert has_format_size is False
    assert has_petabytes is False


def test_release_tests_pass():
    assert git("log", "-1", "--format=%s", f"{REL}^") == "Changelog for 1.2.1"
    tree = checkout_of(REL)
    text = agent.read(f"{tree}/tests/test_sizes.py")
    assert "test_lowercase_and_fractional_suffix" in text and "test_limit" in text
    out = agent.run(["python3", "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests"],
                    cwd=tree, env={"PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}, timeout=20)
    assert out.returncode == 0, out.stdout
    assert "4 passed" in out.stdout


def test_main_untouched_and_release_checked_out():
    assert git("log", "--format=%s", "main").splitlines() == [
        "Support petabytes", "Document format_size",
        "fix: accept lowercase and fractional size suffixes", "Add format_size", "Add parse_size"]
    assert git("symbolic-ref", "--short", "HEAD") == REL
    assert not os.path.exists(f"{REPO}/.git/CHERRY_PICK_HEAD")
    assert git("status", "--porcelain") == ""
