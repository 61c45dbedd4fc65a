"""The docs site builds with `mkdocs build --strict`: a broken link, anchor or nav entry fails.

Links from docs/ to repository files outside it (../CONTRIBUTING.md) are checked by the site's
hook, docs/hooks.py. MkDocs and Material come with the `dev` and `docs` extras; without them
this test skips, saying so.
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def test_mkdocs_build_strict(tmp_path):
    missing = [m for m in ("mkdocs", "material") if importlib.util.find_spec(m) is None]
    if missing:
        pytest.skip(f"SKIPPED the docs build: {', '.join(missing)} not installed "
                    "(pip install -e '.[docs]')")
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1", "PYTHONDONTWRITEBYTECODE": "1"}
    result = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path / "site")],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
    for page in ("index", "games", "rewards", "envs", "serve"):
        built = tmp_path / "site" / ("index.html" if page == "index" else f"{page}/index.html")
        assert built.is_file(), page
