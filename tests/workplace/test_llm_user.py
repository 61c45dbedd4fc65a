"""Workplace-v0's optional LLM user (``user="llm"``): a model words the scripted user's replies,
and nothing it says can change what is scored (a fake OpenAI-compatible endpoint here)."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

import agentgym  # noqa: F401  (registers the ids)
from agentgym.config import ScopeError
from agentgym.environments.workplace.config import WorkplaceConfig
from agentgym.environments.workplace.env import WorkplaceEnv
from agentgym.environments.workplace.user import NO, YES
from agentgym.environments.workplace.voice import kept

pytest.importorskip("httpx")


class FakeEndpoint:
    """``POST /v1/chat/completions`` answering ``reply(request) -> str``; records requests."""

    def __init__(self, reply):
        self.reply, self.requests = reply, []
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                outer.requests.append(body)
                data = json.dumps({"choices": [{"message": {"content": outer.reply(body)},
                                                "finish_reason": "stop"}],
                                   "usage": {"prompt_tokens": 1, "completion_tokens": 1}})
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.end_headers()
                self.wfile.write(data.encode())

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def close(self):
        self.server.shutdown()
        self.server.server_close()


def scripted_of(body) -> str:
    """The scripted reply the env asked the model to reword."""
    return body["messages"][-1]["content"].split("Your reply, to reword: ", 1)[1]


@pytest.fixture
def endpoint(request):
    fake = FakeEndpoint(request.param)
    yield fake
    fake.close()


def play_oracle(env, seed=0):
    obs, info = env.reset(seed=seed)
    seen = [obs]
    while True:
        obs, reward, terminated, truncated, info = env.step(env.oracle_actions()[0])
        seen.append(obs)
        if terminated or truncated:
            return seen, info


def play_llm_oracle(endpoint):
    """An oracle episode of retail with the llm user behind ``endpoint``."""
    env = WorkplaceEnv(domain="retail", user="llm", user_base_url=endpoint.url, user_model="m")
    try:
        return play_oracle(env)
    finally:
        env.close()


# A model that rewords faithfully: the scripted reply with a prefix, every token kept.
@pytest.mark.parametrize("endpoint", [lambda b: "Well, " + scripted_of(b)], indirect=True)
def test_a_faithful_rewording_is_what_the_agent_reads_and_the_task_still_scores(endpoint):
    seen, info = play_llm_oracle(endpoint)
    assert info["success"] and info["reward_components"]["db_match"] == 1.0
    assert info["user"] == "llm" and info["deterministic"] is False
    assert any("User: Well, " in obs for obs in seen)
    assert endpoint.requests and endpoint.requests[0]["model"] == "m"
    # The model is told the customer's request and the reply to reword, nothing else.
    assert "cancel" in endpoint.requests[0]["messages"][0]["content"]


# A model that tries to agree to everything and drops every id.
@pytest.mark.parametrize("endpoint", [lambda b: "Yes, I confirm all of it, go ahead."],
                         indirect=True)
def test_what_the_model_says_cannot_confirm_reveal_or_drop_a_fact(endpoint):
    llm = WorkplaceEnv(domain="retail", user="llm", user_base_url=endpoint.url, user_model="m")
    plain = WorkplaceEnv(domain="retail")
    try:
        seen, info = play_oracle(llm)
        plain_seen, plain_info = play_oracle(plain)
        # Every rewording dropped a fact or an id: the scripted words went out each time, so
        # the agent read exactly what the scripted user says, and the rewards are the same.
        assert seen == plain_seen
        assert info["user_fallbacks"] == len(endpoint.requests) > 0
        assert info["reward_components"] == plain_info["reward_components"]
        # An unwanted change is refused in the scripted words, whatever the model says.
        llm.reset(seed=0)
        obs, *_ = llm.step("<message>To confirm: I will cancel (order_id o-9999). "
                           "Do you confirm, yes or no?</message>")
        assert obs.split("User: ", 1)[1].split("\n", 1)[0] in NO
    finally:
        llm.close()
        plain.close()


@pytest.mark.parametrize("endpoint", [lambda b: "No! " + scripted_of(b)], indirect=True)
def test_a_confirmation_is_never_reworded(endpoint):
    seen, info = play_llm_oracle(endpoint)
    confirmations = [obs for obs in seen if any(f"User: {y}" in obs for y in YES)]
    assert confirmations and info["success"]
    assert not any(scripted_of(b) in YES for b in endpoint.requests)  # never even asked


@pytest.mark.parametrize("endpoint", [lambda b: "Well, " + scripted_of(b)], indirect=True)
def test_scoring_and_snapshots_never_call_the_endpoint(endpoint):
    env = WorkplaceEnv(domain="retail", user="llm", user_base_url=endpoint.url, user_model="m")
    try:
        env.reset(seed=0)
        before = len(endpoint.requests)
        env.score_actions(env.unwrapped._legal_actions() if hasattr(env, "unwrapped")
                          else env._legal_actions())
        snap = env.get_state()
        env.step(env.oracle_actions()[0])
        env.set_state(snap)
        calls = len(endpoint.requests) - before
        assert calls <= 1  # the one real step may ask; scoring and the replay never do
    finally:
        env.close()


def test_an_endpoint_that_is_down_falls_back_to_the_scripted_words():
    env = WorkplaceEnv(domain="retail", user="llm", user_base_url="http://127.0.0.1:9/v1",
                       user_model="m")
    plain = WorkplaceEnv(domain="retail")
    try:
        seen, info = play_oracle(env)
        assert seen == play_oracle(plain)[0]
        assert info["success"] and info["user_fallbacks"] > 0
    finally:
        env.close()
        plain.close()


def test_bad_user_settings_are_one_line_errors(monkeypatch):
    monkeypatch.delenv("AGENTGYM_LLM_BASE_URL", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    with pytest.raises(ValueError, match="user must be one of"):
        WorkplaceEnv(user="robot")
    with pytest.raises(ValueError, match='user="llm" needs an OpenAI-compatible endpoint') as e:
        WorkplaceEnv(user="llm")
    assert "\n" not in str(e.value)
    with pytest.raises(ValueError, match="http://"):
        WorkplaceEnv(user="llm", user_base_url="file:///etc/passwd", user_model="m")


@pytest.mark.parametrize("who", ["client", "bundle"])
@pytest.mark.parametrize("kwargs", [{"user": "llm"}, {"user_base_url": "http://10.0.0.1/v1"},
                                    {"user_model": "m"}])
def test_only_the_operator_may_choose_the_user(who, kwargs):
    # A server client or a leaderboard bundle would otherwise make the server call a URL of
    # its choosing, and a replay meet a conversation it cannot reproduce.
    with pytest.raises(ScopeError):
        WorkplaceConfig.refuse_strangers(kwargs, who)


def test_a_rewording_keeps_ids_amounts_emails_and_revealed_facts():
    scripted = "My email is ana.k@example.com and the refund is 42.50 for o-1042."
    assert kept(scripted, "Sure: ana.k@example.com, 42.50, o-1042.", [])
    assert not kept(scripted, "Sure: ana.k@example.com, o-1042.", [])
    assert not kept("Order o-1042.", "Order o-10423.", [])  # a longer id is another id
    assert not kept("It should be Lisbon.", "Somewhere warm.", ["Lisbon"])
    assert kept("It should be Lisbon.", "lisbon, please", ["Lisbon"])
