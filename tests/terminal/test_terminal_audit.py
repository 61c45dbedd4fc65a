"""``agentgym audit agentgym/Terminal-v0``: the spec, why it skips without Docker, and a short
audit against real Docker with its one known limitation.

The known limitation: a policy that runs the reference solution and then never submits is
truncated when the steps run out; the verifier still scores the work (outcome 1.0, return
2.0, the oracle's), but ``success`` needs ``submit`` (the contract grants success only to a
terminated episode). The audit counts that as a policy paid as much as the oracle with less
success. The generic greedy and repeat-best policies do it on every seed (after the
solution every command pays 0, and so does submit: the first of the ties is ``ls``); the
random info-blind and info-peeker do it on the seeds where they draw the solution (an oracle
action among their candidates) and then no submit (seeds 1-4 of the 5-episode audit, not
seed 0). Every forgery of :mod:`agentgym.environments.terminal.exploits` scores 0.
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
#: The rows that fail on seed 0, each a policy that solves and never submits (see above).
NEVER_SUBMIT = {"greedy-process", "repeat-best"}


def test_the_spec_declares_the_forgeries():
    spec = audit_spec(ENV_ID)
    assert spec is not None and set(spec.exploits) == set(EXPLOITS) and spec.exploits
    assert set(ATTACKS) <= set(spec.exploits) and spec.kwargs["task"] in TASK_EXPLOITS
    assert spec.stop_actions == ("submit",) and spec.potential is not None


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
def test_a_short_audit_fails_only_where_the_work_is_done_and_never_submitted():
    # One episode (seed 0): every seed plays the same task, and each costs ~12 minutes of
    # containers on two cores (every policy's episode ends in the verifier, and the replay
    # check scores every step again); no search (each of its steps replays in a container).
    report = run_audit(ENV_ID, episodes=1, budget_s=0)
    failing = {row.name for row in report.failures()}
    assert failing == NEVER_SUBMIT, [(r.name, r.detail) for r in report.failures()]
    rows = {row.name: row for row in report.rows}
    reference = report.rows[0]
    for name in NEVER_SUBMIT:  # the work is done: the verifier passes it, unsubmitted
        assert rows[name].outcome == reference.outcome == 1.0 and rows[name].success == 0.0
    for name in EXPLOITS:  # every forgery fails every hidden test
        assert rows[f"{name} (family)"].outcome == 0.0, name
