"""``agentgym audit agentgym/Terminal-v0``: the spec, why it skips without Docker, and a short
audit against real Docker.

It used to fail where a policy ran the reference solution and never submitted: the
truncated episode was still graded (outcome 1.0, return 2.0, the oracle's) without success.
Work never submitted now earns outcome 0 (``TerminalEnv``'s docstring says why), so a
policy that never submits earns less than the oracle (the greedy one now submits on its last
step, where every command would give the potential back). Every
forgery of :mod:`agentgym.environments.terminal.exploits` scores 0.
"""

from __future__ import annotations

import os

import pytest

import agentgym  # noqa: F401  (registers the ids)
from agentgym.audit import audit_spec, run_audit
from agentgym.environments.terminal import audit as terminal_audit
from agentgym.environments.terminal.exploits import ATTACKS, EXPLOITS, TASK_EXPLOITS

ENV_ID = "agentgym/Terminal-v0"
REASON = terminal_audit.needs()
#: The policies that run the solution and never submit on seed 0 (see above).
NEVER_SUBMIT = {"greedy-process", "repeat-best"}


def test_the_spec_declares_the_forgeries():
    spec = audit_spec(ENV_ID)
    assert spec is not None and set(spec.exploits) == set(EXPLOITS) and spec.exploits
    assert set(ATTACKS) <= set(spec.exploits) and spec.kwargs["task"] in TASK_EXPLOITS
    # The potential is the env's own (TextEnv's hook), which the audit reads.
    assert spec.stop_actions == ("submit",) and spec.potential is None


def test_without_docker_the_audit_is_skipped_with_the_reason(monkeypatch):
    import agentgym.sandbox.base_image as base_image

    monkeypatch.setattr(base_image, "base_image_present", lambda *a, **k: False)
    why = terminal_audit.needs()
    assert "needs Docker" in why and "\n" not in why
    report = run_audit(ENV_ID, episodes=1, budget_s=0)
    assert report.skipped == why and report.status == "skipped"


@pytest.mark.slow
@pytest.mark.skipif(bool(REASON), reason=REASON or "Docker answers")
@pytest.mark.skipif(os.environ.get("AGENTGYM_TERMINAL_AUDIT") != "1",
                    reason="7-12 minutes of containers on two cores, over the suite's budget: "
                    "AGENTGYM_TERMINAL_AUDIT=1 runs it")
def test_a_short_audit_passes_and_unsubmitted_work_earns_nothing():
    # One episode (seed 0): every seed plays the same task, and each costs ~12 minutes of
    # containers on two cores (every policy's episode ends in the verifier, and the replay
    # check scores every step again); no search (each of its steps replays in a container).
    report = run_audit(ENV_ID, episodes=1, budget_s=0)
    assert report.passed, [(r.name, r.detail) for r in report.failures()]
    rows = {row.name: row for row in report.rows}
    reference = report.rows[0]
    for name in NEVER_SUBMIT:  # paid the oracle's return only by submitting, like it
        row = rows[name]
        assert row.ret < reference.ret - 1e-6 or row.success == reference.success, row
    for name in EXPLOITS:  # every forgery fails every hidden test
        assert rows[f"{name} (family)"].outcome == 0.0, name
