"""Workplace-v0 against the red team's exploits: each test plays the attack and fails on the
code before its fix (B1 negated / bundled / enumerated confirmations, B3 enumerated tells,
B2 + B5 forged snapshots, B4 the quadratic tag parser, L1 the template in every step's info
and the unenforced diagnostics rule)."""

from __future__ import annotations

import json
import re
import sqlite3

import pytest

from agentgym.environments.workplace.domains.helpdesk import UNDIAGNOSED
from agentgym.environments.workplace.env import WorkplaceEnv
from agentgym.environments.workplace.tasks import END
from agentgym.environments.workplace.turns import parse_turn
from agentgym.environments.workplace.user import NO

_CONFIRM = re.compile(r"<message>To confirm: I will (.*) \((.*)\)\. Do you confirm, yes or no\?"
                      r"</message>")


def _to_first_confirm(env: WorkplaceEnv, seed: int) -> str:
    """Play the gold plan up to its first confirmation request; return that request."""
    env.reset(seed=seed)
    while not (action := env.plan()[0]).startswith("<message>To confirm"):
        env.step(action)
    return action


def _refused(obs: str) -> bool:
    return any(no in obs for no in NO)


# ------------------------------------------------------------------ B4: linear tag parsing
@pytest.mark.parametrize("text", ["<message>" * 3640, "<tool_call>" * 2980,
                                  "<message>" + "</tool_call>" * 2700,
                                  "<MESSAGE>" * 1820 + "</message>" * 1820])
def test_a_32kb_adversarial_action_is_an_invalid_action(text):
    # The speed of this case is benchmarked (benchmarks/test_bench_workplace.py,
    # test_workplace_parse_adversarial_agentgym); here the verdict.
    assert len(text) > 32_000
    move, why = parse_turn(text)
    assert move is None and ("one action per turn" in why or "not closed" in why)
    env = WorkplaceEnv(domain="retail")
    env.reset(seed=0)
    *_, info = env.step(text)
    assert not info["valid_action"]


def test_the_parser_still_reads_one_tag_in_any_case_with_thinking_before_it():
    assert parse_turn("thinking... <MESSAGE> hi </Message>") == (("message", "hi"), "")
    assert parse_turn("<message>a</message><message>b</message>")[1].startswith(
        "one action per turn: found 2 tags")
    assert parse_turn("<message>a</tool_call>")[1] == "a <tool_call> or <message> tag is not closed"


# ------------------------------------------------------------------ B1: confirmations
@pytest.mark.parametrize("domain", ["retail", "travel", "helpdesk"])
@pytest.mark.parametrize("seed", range(3))
def test_negated_bundled_and_enumerated_proposals_get_no(domain, seed):
    env = WorkplaceEnv(domain=domain)
    canonical = _to_first_confirm(env, seed)
    verb, detail = _CONFIRM.match(canonical).groups()
    body = canonical[len("<message>"):-len("</message>")]
    other = next(t.verb for t in env.task.domain.tools if t.verb and t.verb != verb)
    want = next(w for w in env.task.drawn.wants if env.task.domain.tool(w.name).verb == verb)
    variants = [
        # the red team's x1: says the opposite and asks not to confirm
        f"I refuse. I will never {verb} ({detail}); please do not confirm anything.",
        f"{body} Actually no, I will not do that.",
        f"{body} Don't worry, I won't.",
        f"{body} And I will also {other} too.",  # a bundle of two changes
        f"{body} Or maybe 50, 100, 200 or 400 instead.",  # candidates beside it
        f"Do you confirm that I should {verb} ({detail})?",  # not the canonical request
    ]
    tool = env.task.domain.tool(want.name)
    for param in tool.params:
        if param.choices:  # every candidate value in place of the one wanted
            listed = ", ".join(str(c) for c in param.choices)
            variants.append(body.replace(f"{param.name} {want.arguments[param.name]}",
                                         f"{param.name} {listed}"))
    for text in variants:
        obs, *_ = env.step(f"<message>{text}</message>")
        assert _refused(obs), text
        assert env.session.confirmed == [], text
    obs, *_ = env.step(canonical)
    assert not _refused(obs) and len(env.session.confirmed) == 1


@pytest.mark.parametrize("domain", ["retail", "travel", "helpdesk"])
def test_the_negated_confirmation_exploit_never_succeeds(domain):
    env = WorkplaceEnv(domain=domain, max_steps=30)
    for seed in range(4):
        env.reset(seed=seed)
        while True:
            action = env.plan()[0]
            found = _CONFIRM.match(action)
            if found:
                verb, detail = found.groups()
                action = (f"<message>I refuse. I will never {verb} ({detail}); please do not "
                          "confirm anything.</message>")
            *_, terminated, truncated, info = env.step(action)
            if terminated or truncated:
                break
        assert not info["success"]


# ------------------------------------------------------------------ B3: telling a fact
def _other_of_same_shape(value: str) -> str:
    return re.sub(r"[0-9]", lambda m: str((int(m.group()) + 1) % 10), value)


@pytest.mark.parametrize("domain", ["retail", "travel", "helpdesk"])
def test_listing_every_candidate_value_tells_nothing(domain):
    env = WorkplaceEnv(domain=domain, split="test")  # every domain's tell templates are here
    played = 0
    for seed in range(40):
        env.reset(seed=seed)
        if not any(s.kind == "tell" for s in env.task.drawn.plan):
            continue
        while not (action := env.plan()[0]).startswith("<message>For your records"):
            env.step(action)
        field, value = env.session.results[-1]
        label = field.replace("_", " ")
        env.step(f"<message>I cannot tell you the {label}; it is certainly not any of: "
                 f"{_other_of_same_shape(value)}, {value}.</message>")
        *_, info = env.step(END)
        assert info["reward_components"]["facts_told"] < 1.0 and not info["success"]
        played += 1
        if played == 2:
            break
    assert played == 2


# ------------------------------------------------------------------ B2 + B5: snapshots
def _wipe(node):
    """What the red team's x3 did to a snapshot: no ledger, no broken rules."""
    if isinstance(node, dict):
        for key in list(node):
            if key in ("ledger", "broken"):
                node[key] = []
            else:
                _wipe(node[key])
    elif isinstance(node, list):
        for item in node:
            _wipe(item)


@pytest.mark.parametrize("domain", ["retail", "travel", "helpdesk"])
def test_a_snapshot_with_a_wiped_ledger_cannot_turn_unconfirmed_writes_into_success(domain):
    env = WorkplaceEnv(domain=domain)
    env.reset(seed=0)
    while True:  # the gold plan without its confirmations
        action = next(a for a in env.plan() if "To confirm" not in a)
        if action == END:
            break
        env.step(action)
    assert env.session.broken
    snapshot = json.loads(env.get_state())
    assert set(snapshot["state"]) == {"seed", "moves"}  # the task and the actions only
    _wipe(snapshot)
    env.set_state(json.dumps(snapshot).encode())
    assert env.session.broken  # rebuilt by replay, not loaded
    *_, info = env.step(END)
    assert not info["success"] and info["policy_broken"]


def test_a_snapshot_replays_to_the_same_episode():
    env, twin = WorkplaceEnv(domain="travel"), WorkplaceEnv(domain="travel")
    env.reset(seed=3)
    for _ in range(5):
        env.step(env.plan()[0])
    env.step("no tag at all")
    twin.set_state(env.get_state())
    assert twin.session.to_dict() == env.session.to_dict()
    assert twin.get_state() == env.get_state()
    assert twin.step(twin.plan()[0])[:4] == env.step(env.plan()[0])[:4]


FORGED = {
    "moves not a list": {"seed": 0, "moves": {"a": 1}},
    "unknown kind": {"seed": 0, "moves": [["write_sql", "DROP TABLE orders"]]},
    "unknown tool": {"seed": 0, "moves": [["call", "drop_tables", {}]]},
    "bad arguments": {"seed": 0, "moves": [["call", "get_order", {"order_id": ["O-1"]}]]},
    "sql in an id": {"seed": 0, "moves": [["call", "get_order",
                                           {"order_id": "O-1'; DROP TABLE orders;--"}]]},
    "a message that is no string": {"seed": 0, "moves": [["message", {"x": 1}]]},
    "an empty message": {"seed": 0, "moves": [["message", "   "]]},
    "after the end": {"seed": 0, "moves": [["call", "end_conversation", {}],
                                           ["message", "hello"]]},
    "too many moves": {"seed": 0, "moves": [["invalid", "x"]] * 10_000},
    "old format rows": {"seed": 0, "session": {"rows": {"users": [["U-1"]]}}},
    "seed out of range": {"seed": -1, "moves": []},
}


@pytest.mark.parametrize("name", sorted(FORGED))
def test_forged_snapshots_raise_one_line_value_errors(name):
    env = WorkplaceEnv(domain="retail")
    env.reset(seed=0)
    snapshot = json.loads(env.get_state())
    snapshot["state"] = FORGED[name]
    with pytest.raises(ValueError) as caught:
        env.set_state(json.dumps(snapshot).encode())
    assert not isinstance(caught.value, sqlite3.Error) and "\n" not in str(caught.value)


# ------------------------------------------------------------------ L1: info and rule 3
def test_task_type_is_only_in_the_final_steps_info():
    env = WorkplaceEnv(domain="helpdesk")
    _, info = env.reset(seed=0)
    assert "task_type" not in info
    while True:
        *_, terminated, truncated, info = env.step(env.plan()[0])
        if terminated or truncated:
            break
        assert "task_type" not in info
    assert info["task_type"] == f"helpdesk/{env.task.template}" and info["success"]


@pytest.mark.parametrize("seed", range(4))
def test_helpdesk_acting_without_diagnostics_breaks_the_policy(seed):
    env = WorkplaceEnv(domain="helpdesk")
    env.reset(seed=seed)
    while True:  # the gold plan without run_diagnostics
        action = next(a for a in env.plan() if '"run_diagnostics"' not in a)
        *_, terminated, truncated, info = env.step(action)
        if terminated or truncated:
            break
    assert not info["success"] and info["reward_components"]["policy"] == 0.0
    assert any(UNDIAGNOSED in b or "run_diagnostics" in b for b in info["policy_broken"])
