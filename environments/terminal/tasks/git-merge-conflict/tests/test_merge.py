"""Hidden tests for git-merge-conflict: the merge commit on main and its resolved content.

git and the merged client.py run as the agent through agentgym_harness: the snippets feed
fetch_url stub callables and report what happened (value, calls, exception); it is compared
here."""
import re

import agentgym_harness as agent

REPO = "/app"
SETTINGS = """[server]
host = 0.0.0.0
port = 8080
timeout = 30
workers = 4
retries = 5
"""


def git(*args: str) -> str:
    """git in the agent's repository, run as the agent (its hooks and config are its own)."""
    out = agent.run(["git", "-C", REPO, *args])
    assert out.returncode == 0, f"git {' '.join(args)} failed: {out.stderr}"
    assert not out.truncated, f"git {' '.join(args)}: output cut at 4 MiB"
    return out.stdout


def merged_client() -> str:
    """A directory holding client.py as committed in main's tip (not the working tree), as
    the module ``merged_client``: written by the agent's uid, imported only in its child."""
    parents = git("log", "-1", "--format=%P", "main").split()
    assert len(parents) == 2, "main's tip is not a merge commit"
    where = agent.tempdir()
    agent.write(f"{where}/merged_client.py", git("show", "main:client.py"))
    return where


RUN = """
import merged_client as client


def attempt(fn, *args, **kwargs):
    try:
        return ["value", fn(*args, **kwargs)]
    except Exception as exc:
        return ["raised", [c.__name__ for c in type(exc).__mro__ if c.__module__ == "builtins"],
                str(exc)]
"""


def raised(outcome, kind: str, match: str | None = None) -> bool:
    return (outcome[0] == "raised" and kind in outcome[1]
            and (match is None or re.search(match, outcome[2]) is not None))


def test_merge_commit_parents():
    parents = git("log", "-1", "--format=%P", "main").split()
    assert len(parents) == 2
    assert git("log", "-1", "--format=%s", parents[0]).strip() == "Document fetch_url"
    assert parents[1] == git("rev-parse", "feature/retry").strip()


def test_settings_resolved():
    assert git("show", "main:settings.ini") == SETTINGS
    with open(f"{REPO}/settings.ini") as fh:
        assert fh.read() == SETTINGS


def test_fetch_url_retries_with_timeout():
    where = merged_client()
    has_fetch, outcome, calls = agent.python(RUN + """
calls = []


def flaky(url, timeout):
    calls.append((url, timeout))
    if len(calls) < 3:
        raise ConnectionError("down")
    return "ok"


result = [hasattr(client, "fetch"), attempt(client.fetch_url, flaky, "http://x", timeout=7),
          calls]
""", path=where)
    assert has_fetch is False
    assert outcome == ["value", "ok"], outcome
    assert calls == [("http://x", 7)] * 3


def test_fetch_url_gives_up_and_propagates():
    where = merged_client()
    dead_outcome, dead_calls, broken_outcome, broken_calls = agent.python(RUN + """
calls = []


def dead(url, timeout):
    calls.append(timeout)
    raise ConnectionError(f"attempt {len(calls)}")


dead_outcome = attempt(client.fetch_url, dead, "u", retries=2)
dead_calls = list(calls)


def broken(url, timeout):
    calls.append("broken")
    raise KeyError("no")


calls.clear()
broken_outcome = attempt(client.fetch_url, broken, "u")
result = [dead_outcome, dead_calls, broken_outcome, calls]
""", path=where)
    assert raised(dead_outcome, "ConnectionError", "attempt 2"), dead_outcome
    assert dead_calls == [30, 30]
    assert raised(broken_outcome, "KeyError"), broken_outcome
    assert broken_calls == ["broken"]


def test_both_sides_kept_no_markers_clean():
    files = git("ls-tree", "-r", "--name-only", "main").split()
    assert "RETRY.md" in files
    assert "fetch_url" in git("show", "main:README.md")
    for name in files:
        text = git("show", f"main:{name}")
        assert "<<<<<<<" not in text and ">>>>>>>" not in text, name
    assert git("symbolic-ref", "--short", "HEAD").strip() == "main"
    assert git("status", "--porcelain") == ""
