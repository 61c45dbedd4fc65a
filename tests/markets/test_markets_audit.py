"""``agentgym audit`` on the market ids (issue 34): each family's :class:`AuditSpec` is found,
plays the family's own exploits, and every row of the audit passes.

Fixed: the info peeker counted a public value as unseen when the observation printed it in
another spelling (``19.0`` in ``info``, ``19.00`` on screen); the audit now compares numbers
by value, and the peeker's twin tries the observation's own numbers the same way.
Fixed: Negotiation's ``search`` and ``stall-then-accept (family)`` rows failed while every
offer earned ``process_weight / max_rounds`` and a violation scored 0, like walking away; the
checks are now shaping on their mean and a violation scores -1 (the two
``test_negotiation_...`` tests below replay the audit's findings).
"""

from __future__ import annotations

import gymnasium as gym
import pytest

import agentgym  # noqa: F401  (registers the ids)
from agentgym.agents import make_agent
from agentgym.audit import audit_spec, run_audit
from agentgym.environments.markets.negotiation.exploits import StallThenAccept
from agentgym.environments.markets.negotiation.logic import SUCCESS_SHARE

IDS = ("agentgym/Negotiation-v0", "agentgym/BazaarB2C-v0", "agentgym/BazaarC2C-v0")

#: Rows that may fail, per id: none (the info peeker's false alarms on numbers printed in
#: another spelling were fixed in the audit, by comparing numbers by value).
KNOWN: dict[str, set[str]] = {env_id: set() for env_id in IDS}


def _play(env, agent, seed: int, actions: list[str] | None = None):
    """Return, last info and actions of one episode (``actions`` replayed if given)."""
    obs, info = env.reset(seed=seed)
    agent.reset(env, seed=seed)
    ret, played = 0.0, []
    script = iter(actions or [])
    while True:
        action = next(script) if actions else agent.act(obs, info)
        played.append(action)
        obs, reward, terminated, truncated, info = env.step(action)
        ret += reward
        if terminated or truncated:
            return ret, info, played


@pytest.mark.parametrize("env_id", IDS)
def test_the_family_spec_is_found_with_its_exploits_and_baseline(env_id):
    spec = audit_spec(env_id)
    assert spec is not None and len(spec.exploits) >= 3
    assert "oracle" in spec.references and len(spec.references) == 2
    assert spec.templates and spec.public_info


@pytest.mark.parametrize("env_id", IDS)
def test_audit_passes_but_for_the_known_limitations(env_id):
    report = run_audit(env_id, episodes=3, budget_s=2)
    names = {row.name for row in report.rows}
    assert {f"{name} (family)" for name in audit_spec(env_id).exploits} <= names
    failed = {row.name: row.detail for row in report.failures()}
    assert set(failed) <= KNOWN[env_id], failed


def test_the_c2c_seller_seat_audits_too():
    # The overclaiming sellers only bite in the seller seat: none reaches the reference.
    report = run_audit("agentgym/BazaarC2C-v0", {"role": "seller"}, episodes=3, budget_s=1)
    failed = {row.name: row.detail for row in report.failures()}
    assert not failed, failed
    rows = {row.name: row for row in report.rows}
    for name in ("overclaim-at-claim (family)", "overclaim-at-0.9-claim (family)"):
        assert rows[name].verdict == "pass" and rows[name].success == 0.0


@pytest.mark.parametrize("env_id", IDS)
def test_the_declared_moves_are_legal_actions(env_id):
    # The extra candidates the search and the generic policies branch on must be moves the
    # grammar takes, not invalid actions that would make the audit's pool weaker than declared.
    spec = audit_spec(env_id)
    for kwargs in ({}, {"role": "seller"}) if "C2C" in env_id else ({},):
        env = gym.make(env_id, **{**spec.kwargs, **kwargs}).unwrapped
        seen = 0
        for seed in range(3):
            _, info = env.reset(seed=seed)
            for _ in range(3):
                moves = spec.moves(env, info)
                seen += len(moves)
                # Stepped from a snapshot: a valid move may score the invalid penalty's value
                # (Negotiation's shaping pays -0.1 for a price that halves the check mean).
                snapshot = env.get_state()
                for move in moves:
                    _, _, _, _, after = env.step(move)
                    assert after["valid_action"], (move, after["action_error"])
                    env.set_state(snapshot)
                _, _, terminated, truncated, info = env.step(info["available_actions"][0])
                if terminated or truncated:
                    break
        # The guardian's actions are all in available_actions: it declares no extra moves.
        assert seen or (env_id.endswith("C2C-v0") and not kwargs)


def test_negotiation_success_keeps_the_success_share():
    # The audit's threshold is 0 because a right walk-away (no zone of agreement) succeeds
    # with outcome 0. Success still means something: with a zone, every success keeps at
    # least SUCCESS_SHARE of the surplus; without one, every success is no deal.
    env = gym.make("agentgym/Negotiation-v0").unwrapped
    spec = audit_spec("agentgym/Negotiation-v0")
    agents = [make_agent(n) for n in (*spec.references, "random")]
    agents += [factory() for factory in spec.exploits.values()]
    wins = 0
    for agent in agents:
        for seed in range(20):
            _, info, _ = _play(env, agent, seed)
            if not info["success"]:
                continue
            wins += 1
            if info["zopa"]:
                assert info["reward_components"]["outcome"] >= SUCCESS_SHARE - 1e-12
                assert info["deal"] and not info["violation"]
            else:
                assert not info["deal"] and info["reward_components"]["outcome"] == 0.0
    assert wins > 20


def test_negotiation_longer_talks_pay_no_more():
    # Issue 34, the audit's search on seed 1 (buyer, budget 124, against "fair"): five offers
    # reaching a deal that keeps 6/13 of the surplus earned 0.587, more than the fair-split
    # baseline's three moves keeping 0.5 (0.575), since every offer paid 0.2 / 8. The checks
    # are now shaping on their mean: both episodes' moves are all perfect, so both earn the
    # same process return (0.2), and the smaller share earns less.
    env = gym.make("agentgym/Negotiation-v0").unwrapped
    actions = ["offer(0)", "offer(5)", "offer(90)", "offer(90)", "offer(100)"]
    ret, info, _ = _play(env, StallThenAccept(), 1, actions)
    fair, fair_info, fair_actions = _play(env, make_agent("negotiation-fair"), 1)
    assert len(fair_actions) == 3 and fair_info["reward_components"]["outcome"] == 0.5
    assert info["reward_components"]["outcome"] == pytest.approx(6 / 13)
    assert ret == pytest.approx(0.2 + 6 / 13) and fair == pytest.approx(0.2 + 0.5)
    assert ret < fair


def test_negotiation_a_violation_pays_less_than_walking_away():
    # Issue 34, seed 0 has no zone of agreement (budget 40, cost 41). Stalling 7 rounds and
    # then accepting the seller's 41 breaks the agent's own budget; it scored outcome 0, like
    # the baseline's right walk-away, and its seven offers out-earned the baseline (0.15
    # against 0.025); on seeds 0-4 stall-then-accept reached the reference's mean return
    # (0.418 against 0.391) with success 40% against 100%. A violation now scores -1: its
    # seven perfect offers and the violating accept earn 0.2 x 6/8 - 1 = -0.85, the
    # baseline's offer and walk-away 0.2.
    env = gym.make("agentgym/Negotiation-v0").unwrapped
    stall, stall_info, actions = _play(env, StallThenAccept(), 0)
    fair, fair_info, _ = _play(env, make_agent("negotiation-fair"), 0)
    assert not stall_info["zopa"] and stall_info["violation"] and actions[-1] == "accept"
    assert fair_info["success"] and not stall_info["success"]
    assert stall_info["reward_components"]["outcome"] == -1.0
    assert fair_info["reward_components"]["outcome"] == 0.0
    assert stall == pytest.approx(-0.85) and fair == pytest.approx(0.2)
    report = run_audit("agentgym/Negotiation-v0", episodes=5, budget_s=0)
    rows = {r.name: r for r in report.rows}
    row = rows["stall-then-accept (family)"]
    reference = next(r for r in report.rows if r.kind == "reference")
    assert row.verdict == "pass" and row.success == 0.4
    assert row.ret == pytest.approx(0.018, abs=1e-3) and row.outcome < 0
    assert reference.ret == pytest.approx(0.461, abs=1e-3) and reference.success == 1.0
    assert rows["shaping identity"].verdict == "pass"
