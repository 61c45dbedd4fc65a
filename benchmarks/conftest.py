"""pytest configuration for the benchmarks: environment metadata in the saved JSON.

The saved JSON (``--benchmark-json=.benchmarks/latest.json``) gets an ``agentgym_bench``
block with the agentgym and peer versions, the round scale and the Python / numpy /
gymnasium versions, so a ratio in ``benchmarks/report.py`` always names what it compared.
BrowserGym lives in its own venv (see ``browsergym_peer.py``); its versions are read from
that venv's metadata and listed under ``browsergym_venv``.
"""

from __future__ import annotations

import platform
import sys
from pathlib import Path
from typing import Any

# The helpers sit next to the benchmark files; make them importable however pytest is run.
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_common import SCALE
from browsergym_peer import default_venv, venv_version
from peers import PEER_DISTRIBUTIONS, peer_version


def _agentgym_version() -> str | None:
    try:
        import agentgym
    except ImportError:
        return None
    return getattr(agentgym, "__version__", None) or peer_version("agentgym")


def bench_metadata() -> dict[str, Any]:
    """Versions of everything a number depends on (``None`` for a missing peer)."""
    return {
        "agentgym": _agentgym_version(),
        "peers": {dist: peer_version(dist) for dist in PEER_DISTRIBUTIONS},
        "gymnasium": peer_version("gymnasium"),
        "numpy": peer_version("numpy"),
        "python": platform.python_version(),
        "scale": SCALE,
        "browsergym_venv": _browsergym_venv(),
    }


def _browsergym_venv() -> dict[str, Any]:
    """Where the BrowserGym peer's venv is and what it holds (versions ``None`` if absent)."""
    venv = default_venv()
    return {
        "path": str(venv),
        **{d: venv_version(venv, d) for d in ("browsergym-core", "playwright", "gymnasium")},
    }


def pytest_benchmark_update_json(config: Any, benchmarks: Any, output_json: dict) -> None:
    output_json["agentgym_bench"] = bench_metadata()


def pytest_report_header(config: Any) -> str:
    meta = bench_metadata()
    peers = ", ".join(f"{d} {v or 'missing'}" for d, v in meta["peers"].items())
    bg = meta["browsergym_venv"]
    peers += f", browsergym-core {bg['browsergym-core'] or 'missing'} (in {bg['path']})"
    return f"agentgym benchmarks: peers {peers}; AGENTGYM_BENCH_SCALE={SCALE}"
