"""What the browser-mode test modules share: the skip rule and one long-lived context."""

from __future__ import annotations

import os

import pytest

from agentgym.browser import browser_available, new_context

# Skipped only on a developer machine without Chromium; CI installs it, so there they run.
needs_browser = pytest.mark.skipif(
    not browser_available() and not os.environ.get("CI"),
    reason="Chromium/playwright not installed (scripts/install_browser.sh); required in CI",
)


@pytest.fixture(scope="module", autouse=True)
def keep_browser():
    """Hold one context for the module so envs closing in between do not relaunch Chromium."""
    if not browser_available():
        yield
        return
    ctx = new_context()
    yield
    ctx.close()
