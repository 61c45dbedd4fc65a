"""Hidden tests for git-feature-branch: they read the repository in /app with git, run as the
agent through agentgym_harness."""
import agentgym_harness as agent

REPO = "/app"
BRANCH = "feature/friendly-greeting"


def git(*args: str) -> str:
    """git in the agent's repository, run as the agent (its hooks and config are its own)."""
    out = agent.run(["git", "-C", REPO, *args])
    assert out.returncode == 0, f"git {' '.join(args)} failed: {out.stderr}"
    assert not out.truncated, f"git {' '.join(args)}: output cut at 4 MiB"
    return out.stdout.strip()


def run_greet(rev: str) -> str:
    src = git("show", f"{rev}:greet.py")
    out = agent.run(["python3", "-c", src], cwd="/tmp", timeout=10)
    return out.stdout


def test_branch_is_one_commit_on_top_of_main():
    assert git("rev-parse", f"{BRANCH}^") == git("rev-parse", "main")


def test_commit_message_and_greeting():
    assert git("log", "-1", "--format=%B", BRANCH) == "Make greeting friendlier"
    assert run_greet(BRANCH) == "Hello, friend!\n"


def test_main_untouched():
    git("rev-parse", "--verify", BRANCH)
    assert git("log", "--format=%s", "main").splitlines() == [
        "Document usage", "Add greeting script"]
    assert run_greet("main") == "Hello, world!\n"


def test_wip_renamed_to_experiment():
    branches = git("for-each-ref", "--format=%(refname:short)", "refs/heads").splitlines()
    assert "wip" not in branches
    assert git("log", "-1", "--format=%s", "experiment") == "Jot down ideas"
    assert git("show", "experiment:IDEAS.md").startswith("Ideas:")


def test_branch_checked_out_and_clean():
    assert git("symbolic-ref", "--short", "HEAD") == BRANCH
    assert git("status", "--porcelain") == ""
