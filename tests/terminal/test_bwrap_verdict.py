"""Terminal-v0 under the bubblewrap fallback: it still scores, and says its verdicts are not
isolated (a jail has one uid, so the agent's code runs beside the tests)."""

from __future__ import annotations

import shutil
import warnings

import pytest
from terminal_support import FIXTURES

from agentgym.sandbox.base_image import base_rootfs

pytestmark = pytest.mark.skipif(
    shutil.which("bwrap") is None or not (base_rootfs() / "etc" / "gitconfig").is_file(),
    reason="bwrap or the base root filesystem (agentgym docker build-base) is missing")


@pytest.mark.parametrize("fixed", [True, False])
def test_bwrap_verdicts_score_and_say_they_are_not_isolated(fixed):
    from agentgym.environments.terminal.env import TerminalEnv

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the fallback's one warning of what it lacks
        env = TerminalEnv(task=str(FIXTURES / "fix-add"), backend="bwrap")
        try:
            env.reset(seed=0)
            if fixed:
                env.step("sed -i 's/a - b/a + b/' calc.py")
            *_, info = env.step("submit")
        finally:
            env.close()
    assert info["success"] is fixed
    assert info["verdict"]["isolated"] is False and info["verdict"]["total"] == 2
