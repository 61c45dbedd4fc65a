"""Fixtures of the server tests: one live server per test session (per xdist worker)."""

from __future__ import annotations

import os
import sys

import pytest

# The conformance suite lives one folder up; the server tests import it to play it remotely.
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from server_support import ServerProcess


@pytest.fixture(scope="session")
def server():
    """``agentgym serve agentgym/Sokoban-v0 agentgym/TicTacToe-v0`` on a free loopback port."""
    proc = ServerProcess().start()
    yield proc
    proc.stop()
