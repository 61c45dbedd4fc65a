"""Workplace-v0: tasks correct by construction, strict tool calls, the scripted user, the
ledger's policy verdicts and rewards that cannot be farmed."""

from __future__ import annotations

import json
import subprocess
import sys

import gymnasium as gym
import pytest

import agentgym  # noqa: F401  (registers the ids)
from agentgym.environments.workplace.domains import DOMAIN_NAMES, DOMAINS
from agentgym.environments.workplace.env import WorkplaceEnv
from agentgym.environments.workplace.tasks import load_task, render_step, step_done
from agentgym.environments.workplace.turns import format_call, format_message

ENV_ID = "agentgym/Workplace-v0"


def play_oracle(env: WorkplaceEnv, seed: int) -> tuple[float, dict]:
    env.reset(seed=seed)
    total = 0.0
    while True:
        _, reward, terminated, truncated, info = env.step(env.oracle_actions()[0])
        total += reward
        if terminated or truncated:
            return total, info


def replay_plan(task):
    """The gold plan on a fresh session: every call succeeds, nothing breaks a rule."""
    session = task.session()
    for step in task.drawn.plan:
        if step.kind == "end":
            break
        if step.kind == "call":
            result, error = session.call(step.name, step.arguments)
            assert error == "", (task.template, step, error)
        else:
            text = render_step(task.domain, session, step)
            session.say(text[len("<message>"):-len("</message>")])
        assert step_done(session, step), (task.template, step)
    return session


# ---------------------------------------------------------------------------- the tasks
@pytest.mark.parametrize("seed", range(150))
def test_every_test_split_task_keeps_the_policy_and_reaches_its_gold_state(seed):
    # The 150 tasks of the registered test split (domain = seed % 3).
    task = load_task(DOMAIN_NAMES[seed % 3], "test", seed)
    session = replay_plan(task)
    assert session.broken == []
    assert session.state_hash() == task.gold_hash
    assert all(session.told(v) for _, v in task.required)
    assert task.changes, "every task changes the database"
    # Every write in the plan was confirmed by the user before it ran, on its own account.
    writes = [e for e in session.ledger if e["actor"] == "agent"]
    assert writes and all(e["ok"] and not e["broken"] for e in writes)


def test_train_and_test_use_disjoint_templates_and_databases():
    for domain in DOMAINS.values():
        train = {t.name for t in domain.templates if t.split == "train"}
        test = {t.name for t in domain.templates if t.split == "test"}
        assert train and test and not train & test
    for name in DOMAIN_NAMES:
        train_rows = {json.dumps(load_task(name, "train", s).rows) for s in range(20)}
        test_rows = {json.dumps(load_task(name, "test", s).rows) for s in range(20)}
        assert not train_rows & test_rows
        assert {load_task(name, "test", s).template for s in range(20)} <= {
            t.name for t in DOMAINS[name].templates if t.split == "test"}


@pytest.mark.parametrize("domain", DOMAIN_NAMES)
@pytest.mark.parametrize("split", ["train", "test"])
def test_the_oracle_solves_every_domain_and_split(domain, split):
    env = WorkplaceEnv(domain=domain, split=split)
    for seed in range(3):
        total, info = play_oracle(env, seed)
        assert info["success"] and total == pytest.approx(2.0)
        assert info["reward_components"]["db_match"] == 1.0
        assert info["reward_components"]["policy"] == 1.0


# ---------------------------------------------------------------------------- bad input
def _started(seed: int = 0, domain: str = "retail") -> WorkplaceEnv:
    env = WorkplaceEnv(domain=domain)
    env.reset(seed=seed)
    return env


def _db_and_user(env: WorkplaceEnv) -> str:
    state = env.session.to_dict()
    return json.dumps([state["rows"], state["ledger"], state["revealed"], state["confirmed"]])


BAD = {
    "sql text": '<tool_call>{"name": "get_order", "arguments": {"order_id": '
                '"O-1\'; DROP TABLE orders; --"}}</tool_call>',
    "sql in free text": '<tool_call>{"name": "update_address", "arguments": {"order_id": '
                        '"O-1234", "address": "x\'); DELETE FROM orders; --"}}</tool_call>',
    "wrong type": '<tool_call>{"name": "get_order", "arguments": {"order_id": 1234}}'
                  "</tool_call>",
    "bool for enum": '<tool_call>{"name": "cancel_order", "arguments": {"order_id": "O-1234",'
                     ' "reason": true}}</tool_call>',
    "unknown tool": '<tool_call>{"name": "drop_database", "arguments": {}}</tool_call>',
    "huge string": '<tool_call>{"name": "find_user", "arguments": {"email": "'
                   + "a" * 5000 + '@example.com"}}</tool_call>',
    "nested json": '<tool_call>{"name": "get_order", "arguments": {"order_id": '
                   '{"$ne": null}}}</tool_call>',
    "deep nesting": "<tool_call>" + "[" * 3000 + "]" * 3000 + "</tool_call>",
    "extra field": '<tool_call>{"name": "get_order", "arguments": {"order_id": "O-1234"}, '
                   '"sql": "SELECT 1"}</tool_call>',
    "extra argument": '<tool_call>{"name": "get_order", "arguments": {"order_id": "O-1234", '
                      '"limit": 5}}</tool_call>',
    "two tool calls": '<tool_call>{"name": "get_order", "arguments": {"order_id": "O-1234"}}'
                      '</tool_call><tool_call>{"name": "end_conversation", "arguments": {}}'
                      "</tool_call>",
    "call and message": "<message>hi</message><tool_call>{}</tool_call>",
    "not json": "<tool_call>get_order(O-1234)</tool_call>",
    "nan": '<tool_call>{"name": "set_bags", "arguments": {"booking_id": "B-1", "bags": NaN}}'
           "</tool_call>",
    "unclosed": '<tool_call>{"name": "get_order"',
    "empty message": "<message>   </message>",
    "plain text": "I will cancel your order now.",
    "end with arguments": '<tool_call>{"name": "end_conversation", "arguments": {"x": 1}}'
                          "</tool_call>",
}


@pytest.mark.parametrize("name", sorted(BAD))
def test_hostile_actions_change_nothing_and_say_why(name):
    env = _started()
    before = _db_and_user(env)
    obs, reward, terminated, truncated, info = env.step(BAD[name])
    assert info["valid_action"] is False and info["action_error"].strip()
    assert "Invalid action:" in obs
    assert _db_and_user(env) == before
    assert not terminated and reward == pytest.approx(env.invalid_penalty)


def test_the_openai_tool_call_form_is_accepted():
    env = _started()
    entry = {"id": "call_1", "type": "function", "function": {
        "name": "find_user", "arguments": json.dumps({"email": "x.y1@example.com"})}}
    obs, _, _, _, info = env.step(f"<tool_call>{json.dumps(entry)}</tool_call>")
    assert info["valid_action"] and "no customer has that email" in obs


def test_a_change_called_twice_is_refused_the_second_time():
    env = WorkplaceEnv(domain="retail")
    env.reset(seed=0)  # a cancellation task
    write = next(s for s in env.task.drawn.wants)
    while not step_done(env.session, write):
        env.step(env.oracle_actions()[0])
    rows = env.session.rows()
    obs, reward, _, _, info = env.step(format_call(write.name, write.arguments))
    assert info["valid_action"] and "error" in obs and "cancelled" in obs
    assert env.session.rows() == rows and env.session.broken == []
    assert info["reward_components"]["process"] == 0.0


# ---------------------------------------------------------------------------- the user
def _conversation(seed: int) -> list[str]:
    env = WorkplaceEnv(domain="helpdesk")
    env.reset(seed=seed)
    out = []
    for _ in range(12):
        obs, _, terminated, truncated, _ = env.step(env.oracle_actions()[0])
        out.append(obs)
        if terminated or truncated:
            break
    return out


def test_same_seed_same_conversation_in_another_process():
    code = ("import json, sys; sys.path.insert(0, 'tests/workplace');"
            "from test_workplace_env import _conversation;"
            "print(json.dumps(_conversation(5)))")
    other = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                           check=True, env={"PYTHONHASHSEED": "123", "PATH": ""})
    assert json.loads(other.stdout) == _conversation(5)


def test_the_user_reveals_facts_only_when_asked_and_refuses_what_it_does_not_want():
    env = _started(seed=0)
    obs, *_ = env.step(format_message("Hello there, how are you today?"))
    assert env.session.revealed == []
    assert "not sure" in obs.lower() or "follow" in obs.lower()
    obs, *_ = env.step(format_message("What is your order number?"))
    assert env.session.revealed == ["order_id"] and env.task.drawn.facts["order_id"] in obs
    obs, *_ = env.step(format_message("To confirm: I will cancel order (order_id O-9999, "
                                      "reason no longer needed). Do you confirm?"))
    assert obs.count("No") and env.session.confirmed == []
    # A list of candidates is no proposal: every order and both reasons at once is refused.
    want = env.task.drawn.wants[0].arguments
    obs, *_ = env.step(format_message(
        f"To confirm: I will cancel order (order_id {want['order_id']} or O-9999, reason no "
        "longer needed or ordered by mistake). Do you confirm?"))
    assert obs.count("No") and env.session.confirmed == []


def test_dual_control_only_the_user_changes_the_device():
    env = WorkplaceEnv(domain="helpdesk")
    env.reset(seed=1)
    assert env.task.template == "airplane"
    for tool in env.task.domain.tools:  # no agent tool writes the user's device
        assert "device_state" not in json.dumps(tool.schema())
    skipping = [s for s in env.task.drawn.plan if s.kind != "instruct"]
    for step in skipping[:-1]:
        env.step(render_step(env.task.domain, env.session, step))
    *_, info = env.step(render_step(env.task.domain, env.session, skipping[-1]))
    # Without guiding the user the laptop stays offline: closing broke a rule, db differs.
    assert not info["success"] and info["reward_components"]["policy"] == 0.0
    total, info = play_oracle(env, 1)
    assert info["success"]
    assert any(e["actor"] == "user" for e in env.session.ledger)


# ---------------------------------------------------------------------------- rewards
def test_process_rewards_sum_to_the_outcome_on_random_episodes():
    env = gym.make(ENV_ID, max_steps=15)
    for seed in range(12):
        _, info = env.reset(seed=seed)
        paid = 0.0
        for k in range(40):
            listed = info["available_actions"]
            _, _, terminated, truncated, info = env.step(listed[(7 * k + seed) % len(listed)])
            penalty = 0.0 if info["valid_action"] else env.unwrapped.invalid_penalty
            paid += info["reward_components"]["process"] - penalty
            if terminated or truncated:
                break
        assert paid == pytest.approx(info["reward_components"]["outcome"])


def test_an_unconfirmed_or_foreign_write_lowers_the_potential():
    env = _started(seed=0)
    steps = env.task.drawn.plan
    for step in steps:
        if step.kind == "confirm":
            break
        env.step(render_step(env.task.domain, env.session, step))
    write = env.task.drawn.wants[0]
    *_, info = env.step(format_call(write.name, write.arguments))  # no confirmation
    assert info["reward_components"]["process"] == 0.0  # phi stays 0: the rule broke
    assert env.session.broken and env._shaping_potential() == 0.0
    *_, info = env.step(format_call("end_conversation", {}))
    assert info["reward_components"]["outcome"] == 0.0
    assert info["policy_broken"] == ["changed without the user's confirmation"]


def test_info_carries_tool_schemas_and_lists_tools():
    env = gym.make(ENV_ID, domain="travel")
    _, info = env.reset(seed=0)
    names = {t["function"]["name"] for t in info["tools"]}
    assert names == {t.name for t in DOMAINS["travel"].tools} | {"end_conversation"}
    listed = {json.loads(a[len("<tool_call>"):-len("</tool_call>")])["name"]
              for a in info["available_actions"] if a.startswith("<tool_call>")}
    assert "end_conversation" in listed and listed <= names
