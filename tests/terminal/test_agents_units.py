"""The oracle's one-command form of solve.sh and the random agent's looks, run with local bash."""

from __future__ import annotations

import subprocess

from agentgym.environments.terminal.agents import SUBMIT, plausible_commands, solve_command


def run(command: str, cwd: str) -> subprocess.CompletedProcess:
    return subprocess.run(["bash", "-c", command], cwd="/", capture_output=True, text=True,
                          timeout=30, input="stdin of the command\n")


def test_solve_command_runs_the_script_from_the_workdir(tmp_path):
    script = (
        "#!/bin/bash\nset -euo pipefail\n"
        "echo \"$0 in $(pwd)\" > out.txt\n"
        "x='$HOME `date` $(echo no)'; echo \"$x\" >> out.txt\n"   # no expansion by the wrapper
        "cat > copy.txt\n"                                        # reads stdin: not its own text
        "printf '%s\\n' 'AGENTGYM_SOLUTION' >> out.txt\n"          # the delimiter as data
        "AGENTGYM_SOLUTION=1; echo \"($AGENTGYM_SOLUTION)\" >> out.txt\n"
    )
    result = run(solve_command(script, workdir=str(tmp_path)), str(tmp_path))
    assert result.returncode == 0, result.stderr
    lines = (tmp_path / "out.txt").read_text().splitlines()
    assert lines == [f"solve.sh in {tmp_path}", "$HOME `date` $(echo no)", "AGENTGYM_SOLUTION",
                     "(1)"]
    assert (tmp_path / "copy.txt").read_text() == "stdin of the command\n"


def test_a_script_with_the_delimiter_on_a_line_of_its_own_still_runs(tmp_path):
    script = "cat <<'AGENTGYM_SOLUTION' > out.txt\nhello\nAGENTGYM_SOLUTION\n"
    command = solve_command(script, workdir=str(tmp_path))
    assert "<<'AGENTGYM_SOLUTION_'\n" in command
    assert run(command, str(tmp_path)).returncode == 0
    assert (tmp_path / "out.txt").read_text() == "hello\n"


def test_a_failing_script_fails_the_command(tmp_path):
    result = run(solve_command("set -e\nfalse\necho never\n", workdir=str(tmp_path)),
                 str(tmp_path))
    assert result.returncode == 1 and "never" not in result.stdout


def test_plausible_commands_are_harmless_quoted_and_never_submit():
    commands = plausible_commands([f"f{i}.txt" for i in range(12)] + ["x; rm -rf /"])
    assert SUBMIT not in commands and len(commands) == 5 + 3 * 8
    assert "cat 'x; rm -rf /'" not in commands  # only the first 8 files
    assert plausible_commands(["x; rm -rf /"])[-3] == "cat 'x; rm -rf /'"
