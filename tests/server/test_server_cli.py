"""``agentgym serve``: a bad id, option or port is one line and exit status 2."""

from __future__ import annotations

import socket
import subprocess
import sys

import pytest
from server_support import ROOT

from agentgym import cli


def serve(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "agentgym.cli", "serve", *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=60)


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (("nope/X-v0",), "unknown env id"),
        (("agentgym/TicTacToe-v0", "--port", "70000"), "--port"),
        (("agentgym/TicTacToe-v0", "--max-sessions", "0"), "--max-sessions"),
        (("agentgym/TicTacToe-v0", "--max-heavy-sessions", "-1"), "--max-heavy-sessions"),
        (("agentgym/TicTacToe-v0", "--idle-timeout", "-1"), "--idle-timeout"),
        (("agentgym/TicTacToe-v0", "--max-body", "10"), "--max-body"),
        (("agentgym/TicTacToe-v0", "--port", "many"), "invalid int value"),
        ((), "ENV_ID"),
    ],
)
def test_bad_serve_arguments_are_one_line_and_exit_2(capsys, args, words):
    try:
        status = cli.main(["serve", *args])
    except SystemExit as exc:  # argparse's own usage errors exit
        status = exc.code
    assert status == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and words in err, err
    assert "Traceback" not in err


def test_a_port_in_use_is_one_line_and_exit_2():
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        proc = serve("agentgym/TicTacToe-v0", "--port", str(port))
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "cannot listen" in lines[0], proc.stderr


def test_agentgym_list_reads_the_entry_points_through_the_remote_aware_creator(monkeypatch):
    """`agentgym list` prints what it printed when the registry held the entry-point strings."""
    import io

    import gymnasium as gym
    from rich.console import Console

    import agentgym

    def listing() -> str:
        out = io.StringIO()
        cli.cmd_list(cli.build_parser().parse_args(["list"]), Console(file=out, width=120))
        return out.getvalue()

    now = listing()
    for entry in agentgym.ENVIRONMENTS:
        monkeypatch.setattr(gym.registry[entry.id], "entry_point", entry.entry_point)
    assert listing() == now
    assert "agentgym/Sokoban-v0" in now and "search_depth" in now
