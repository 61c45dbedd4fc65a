"""Wrappers for LLM agents: chat messages, strict action tags, history, reward mode, budget."""

from __future__ import annotations

import json
from typing import Any

import gymnasium as gym
import pytest
from gymnasium import spaces
from toy_env import RULES, CounterEnv

import agentgym
from agentgym.wrappers import (
    ANSWER_FORMAT,
    CLIP_MARKER,
    ChatObservation,
    ExtractAction,
    HistoryWindow,
    RewardMode,
    StepBudget,
    Turn,
    render_user,
    system_prompt_for,
    to_messages,
    wrap_chat,
)


class BareEnv(gym.Env):
    """A non-agentgym text env: no system_prompt, no reward_components."""

    def __init__(self, rules: str | None = None) -> None:
        if rules is not None:
            self.rules = rules
        self.observation_space = spaces.Text(64)
        self.action_space = spaces.Text(64)

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        return "start", {}

    def step(self, action: str):
        return "next", 1.0, False, False, {}


def counter(**kwargs: Any) -> CounterEnv:
    return CounterEnv(**kwargs)


# ---------------------------------------------------------------------------- chat rendering
def test_to_messages_structure_and_values() -> None:
    history = [
        {"observation": "o0", "feedback": "", "action": "a0"},
        {"observation": "o1", "feedback": "bad", "action": "a1"},
    ]
    messages = to_messages("o2", system="sys", history=history, feedback="worse")
    assert messages == [
        {"role": "system", "content": "sys"},
        {"role": "user", "content": "o0"},
        {"role": "assistant", "content": "a0"},
        {"role": "user", "content": "Your last action was invalid: bad\n\no1"},
        {"role": "assistant", "content": "a1"},
        {"role": "user", "content": "Your last action was invalid: worse\n\no2"},
    ]
    assert to_messages("x", system="s") == [
        {"role": "system", "content": "s"},
        {"role": "user", "content": "x"},
    ]
    assert render_user("obs") == "obs"


def test_chat_observation_reset_messages_and_spaces() -> None:
    env = ChatObservation(counter())
    obs, info = env.reset(seed=3)
    assert isinstance(obs, str)
    assert env.observation_space == env.unwrapped.observation_space  # text stays text
    assert env.action_space == env.unwrapped.action_space
    system, user = info["messages"]
    assert system["role"] == "system" and user["role"] == "user"
    assert system["content"] == env.unwrapped.system_prompt()
    assert RULES in system["content"] and "<action>...</action>" in system["content"]
    assert user["content"] == obs


def test_chat_observation_feedback_on_invalid_action() -> None:
    env = ChatObservation(counter())
    env.reset(seed=0)
    obs, _, _, _, info = env.step("jump")
    error = info["action_error"]
    assert error.startswith("unknown action 'jump'")
    assert info["messages"][-1]["content"] == f"Your last action was invalid: {error}\n\n{obs}"
    obs, _, _, _, info = env.step("inc")
    assert info["messages"][-1]["content"] == obs

    quiet = ChatObservation(counter(), feedback=False)
    quiet.reset(seed=0)
    obs, _, _, _, info = quiet.step("jump")
    assert info["messages"][-1]["content"] == obs


def test_chat_observation_custom_prompt_and_bad_prompt() -> None:
    env = ChatObservation(counter(), system_prompt="Be brief.")
    _, info = env.reset(seed=0)
    assert info["messages"][0] == {"role": "system", "content": "Be brief."}
    assert env.system == "Be brief."
    with pytest.raises(TypeError):
        ChatObservation(counter(), system_prompt=42)  # type: ignore[arg-type]


def test_system_prompt_fallbacks() -> None:
    # No hook, no rules: the class name, or the registered id when the env has a spec.
    assert system_prompt_for(BareEnv()) == f"You are playing BareEnv.\n\n{ANSWER_FORMAT}"
    assert system_prompt_for(gym.make("CartPole-v1")).startswith("You are playing CartPole-v1.")
    # A `rules` attribute without a system_prompt() method.
    assert system_prompt_for(BareEnv(rules="  Say hi.  ")) == f"Say hi.\n\n{ANSWER_FORMAT}"
    # An empty rules string on a TextEnv falls back to the class name inside system_prompt().
    env = counter()
    env.rules = ""
    assert system_prompt_for(env).startswith("You are playing CounterEnv.")


def test_chat_observation_on_bare_env() -> None:
    env = ChatObservation(BareEnv(rules="Say hi."))
    _, info = env.reset()
    assert info["messages"][0]["content"] == f"Say hi.\n\n{ANSWER_FORMAT}"
    _, _, _, _, info = env.step("hi")
    assert info["messages"][-1] == {"role": "user", "content": "next"}


# ---------------------------------------------------------------------------- action extraction
def test_extract_action_passes_tag_content() -> None:
    env = ExtractAction(counter())
    env.reset(seed=0)
    text = "Maybe <action>dec</action>? No: <action> inc </action>"
    _, reward, _, _, info = env.step(text)
    assert info["valid_action"] is True and info["action_error"] == ""
    assert info["raw_action"] == text
    assert info["extracted_action"] == "inc"  # the last complete tag wins
    assert reward == 1.0
    assert env.unwrapped.value == env.unwrapped.start + 1


@pytest.mark.parametrize(
    ("text", "error"),
    [
        ("inc", "no <action>...</action> tag found in the text"),
        ("", "no <action>...</action> tag found in the text"),
        ("thinking <action>inc", "found <action> without a closing </action>"),
        ("<action>   </action>", "the <action></action> tag is empty"),
        ("\x00\uffff" * 20_000, "no <action>...</action> tag found in the text"),
    ],
)
def test_extract_action_garbage(text: str, error: str) -> None:
    env = ExtractAction(counter())
    env.reset(seed=0)
    before = env.unwrapped.value
    obs, reward, terminated, truncated, info = env.step(text)
    assert info["valid_action"] is False
    assert info["action_error"] == error
    assert info["raw_action"] == text and info["extracted_action"] == ""
    assert reward == -1.0  # the env's own invalid-action policy applied to ""
    assert env.unwrapped.invalid_actions == 1 and env.unwrapped.value == before
    assert (terminated, truncated) == (False, False)


@pytest.mark.parametrize("action", [None, 123, b"<action>inc</action>", ["inc"]])
def test_extract_action_non_string(action: Any) -> None:
    env = ExtractAction(counter())
    env.reset(seed=0)
    _, _, _, _, info = env.step(action)
    assert info["valid_action"] is False
    assert info["action_error"] == f"action must be a string, got {type(action).__name__}"
    assert info["raw_action"] == repr(action)


def test_extract_action_lenient_mode_and_env_error_kept() -> None:
    env = ExtractAction(counter(), require_tag=False)
    env.reset(seed=0)
    _, reward, _, _, info = env.step("inc")
    assert info["valid_action"] and reward == 1.0
    # A well-formed tag with a bad action keeps the env's own error.
    _, _, _, _, info = env.step("<action>fly</action>")
    assert info["action_error"].startswith("unknown action 'fly'")


def test_extract_action_space_and_bad_args() -> None:
    env = ExtractAction(counter(), max_text_length=5000)
    assert isinstance(env.action_space, spaces.Text) and env.action_space.max_length == 5000
    assert env.action_space.characters == env.unwrapped.action_space.characters
    for bad in (0, -3, True, 2.5):
        with pytest.raises(ValueError):
            ExtractAction(counter(), max_text_length=bad)
    with pytest.raises(ValueError, match="inside HistoryWindow"):
        ExtractAction(HistoryWindow(counter()))
    with pytest.raises(ValueError, match="inside ChatObservation"):
        ExtractAction(ChatObservation(counter()))


# ---------------------------------------------------------------------------- history window
@pytest.mark.parametrize(
    "kwargs",
    [
        {"turns": 0},
        {"turns": -1},
        {"turns": True},
        {"turns": 1.5},
        {"turns": "2"},
        {"max_chars": 0},
        {"max_action_chars": 0},
    ],
)
def test_history_window_bad_args(kwargs: dict[str, Any]) -> None:
    with pytest.raises(ValueError):
        HistoryWindow(counter(), **kwargs)


def test_history_window_refuses_to_wrap_chat() -> None:
    with pytest.raises(ValueError, match=r"ChatObservation\(HistoryWindow"):
        HistoryWindow(ChatObservation(counter()))


def test_history_window_step_before_reset() -> None:
    with pytest.raises(gym.error.ResetNeeded):
        HistoryWindow(counter()).step("inc")


def test_history_window_records_turns() -> None:
    env = HistoryWindow(counter(goal=5), turns=2)
    obs0, info = env.reset(seed=0)
    assert info["history"] == []
    obs1, r1, _, _, info = env.step("jump")
    error = info["action_error"]
    assert info["history"] == [
        {
            "observation": obs0,
            "feedback": "",
            "action": "jump",
            "action_error": error,
            "reward": -1.0,
        }
    ]
    obs2, _, _, _, info = env.step("inc")
    assert info["history"][1] == {
        "observation": obs1,
        "feedback": error,
        "action": "inc",
        "action_error": "",
        "reward": 1.0,
    }
    _, _, _, _, info = env.step("dec")
    # Bounded at 2 turns: the oldest dropped, the others unchanged.
    assert [t["action"] for t in info["history"]] == ["inc", "dec"]
    assert info["history"][0]["observation"] == obs1
    assert info["history"][1]["observation"] == obs2
    assert env.history == [Turn(**t) for t in info["history"]]
    # A reset starts a new history.
    _, info = env.reset(seed=1)
    assert info["history"] == [] and env.history == []


def test_history_info_is_a_copy() -> None:
    env = HistoryWindow(counter(goal=9), turns=3)
    env.reset(seed=0)
    _, _, _, _, info = env.step("inc")
    info["history"][0]["action"] = "tampered"
    info["history"].clear()
    _, _, _, _, info = env.step("inc")
    assert [t["action"] for t in info["history"]] == ["inc", "inc"]


def test_history_char_cap_drops_oldest() -> None:
    env = HistoryWindow(counter(goal=50), turns=10, max_chars=100)
    obs, _ = env.reset(seed=0)
    assert len(obs) == 39  # "Counter: 71. Goal: 121. Steps taken: 0.", as are the next ones
    bad = "x" * 30
    error = "unknown action 'xxxxxxxxxxxxxxxxxxxx'; answer inc or dec"  # 56 chars
    assert len(error) == 56
    # Turn sizes (observation + feedback + action): 39+20, 39+30, 39+56+3, 39+3, 39+3. Each
    # new turn pushes the total over 100 and drops the older ones, until the last two (84).
    steps = [
        ("<action>inc</action>", ["<action>inc</action>"]),
        (bad, [bad]),
        ("inc", ["inc"]),
        ("dec", ["dec"]),
        ("inc", ["dec", "inc"]),
    ]
    for action, kept in steps:
        obs_before = obs
        obs, _, _, _, info = env.step(action)
        assert [t["action"] for t in info["history"]] == kept
        assert info["history"][-1]["observation"] == obs_before  # the newest turn is kept
    assert info["history"][0]["feedback"] == ""
    assert sum(Turn(**t).size for t in info["history"]) == 84
    # A turn bigger than the whole cap is not kept at all.
    env = HistoryWindow(counter(goal=50), max_chars=40, max_action_chars=4000)
    env.reset(seed=0)
    _, _, _, _, info = env.step("y" * 100)
    assert info["history"] == []


def test_history_clips_long_action_once() -> None:
    env = HistoryWindow(counter(goal=50), turns=3, max_action_chars=50)
    env.reset(seed=0)
    text = "z" * 1000
    _, _, _, _, info = env.step(text)
    clipped = info["history"][0]["action"]
    assert len(clipped) == 50 and clipped.endswith(CLIP_MARKER)
    assert clipped == "z" * (50 - len(CLIP_MARKER)) + CLIP_MARKER
    for _ in range(2):
        _, _, _, _, info = env.step("inc")
        assert info["history"][0]["action"] == clipped


def test_history_non_string_action_recorded_as_repr() -> None:
    env = HistoryWindow(counter(), turns=1)
    env.reset(seed=0)
    _, _, _, _, info = env.step(None)
    assert info["history"][0]["action"] == "None"


# ---------------------------------------------------------------------------- full chat stack
def _roles_alternate(messages: list[dict[str, str]]) -> bool:
    roles = [m["role"] for m in messages]
    expected = ["system"] + ["user", "assistant"] * ((len(roles) - 2) // 2) + ["user"]
    return roles == expected


def test_chat_stack_never_rerenders_earlier_turns() -> None:
    env = wrap_chat(counter(goal=50), turns=3)
    obs, info = env.reset(seed=5)
    previous = info["messages"]
    texts = [
        "<action>inc</action>",
        "no tag here",
        "<action>dec</action>",
        "<action>inc",
        "ok <action>inc</action>",
        "<action>jump</action>",
        "<action>inc</action>",
    ]
    for step, text in enumerate(texts, start=1):
        obs, _, _, _, info = env.step(text)
        messages = info["messages"]
        assert _roles_alternate(messages)
        assert messages[0] == previous[0]  # system prompt fixed for the episode
        kept = min(step, 3)
        assert len(messages) == 2 + 2 * kept
        # The new prompt is the old one, minus whole turns dropped from the front, plus the
        # assistant's raw text and the new user message: nothing is re-rendered.
        dropped = 1 if step > 3 else 0
        assert messages[1:-2] == previous[1 + 2 * dropped :]
        assert messages[-2] == {"role": "assistant", "content": text}
        assert messages[-1]["content"] == render_user(obs, info["action_error"])
        previous = messages
    # The user message of a turn keeps the feedback it was shown with, even after the turn
    # that produced the error slid out of the window.
    assert info["history"][0]["action"] == "ok <action>inc</action>"
    assert messages[1]["content"].startswith("Your last action was invalid: found <action>")


def test_chat_stack_extraction_error_is_what_the_model_sees() -> None:
    env = wrap_chat(counter(), turns=2)
    env.reset(seed=0)
    obs, reward, _, _, info = env.step("inc")
    assert reward == -1.0
    assert info["messages"][-1]["content"] == (
        "Your last action was invalid: no <action>...</action> tag found in the text\n\n" + obs
    )
    assert info["history"][0]["action_error"] == "no <action>...</action> tag found in the text"


def test_wrap_chat_options() -> None:
    env = wrap_chat(counter(), turns=0, max_steps=2, reward_mode="outcome", system_prompt="S")
    _, info = env.reset(seed=0)
    assert "history" not in info and info["messages"][0]["content"] == "S"
    _, reward, _, truncated, info = env.step("<action>inc</action>")
    assert reward == 0.0 and not truncated and len(info["messages"]) == 2
    _, _, _, truncated, info = env.step("<action>inc</action>")
    assert truncated and info["truncated_by"] == "step_budget"
    with pytest.raises(ValueError):
        wrap_chat(counter(), turns=-1)
    with pytest.raises(ValueError):
        wrap_chat(counter(), reward_mode="sum")


# ---------------------------------------------------------------------------- reward mode
@pytest.mark.parametrize(
    ("mode", "rewards"),
    [
        ("both", [-1.0, 0.0, 1.0, 2.0]),
        ("process", [-1.0, 0.0, 1.0, 1.0]),
        ("outcome", [0.0, 0.0, 0.0, 1.0]),
    ],
)
def test_reward_mode_recomputes_from_components(mode: str, rewards: list[float]) -> None:
    # The env itself is built outcome-only: the wrapper must not depend on that.
    env = RewardMode(counter(goal=1, reward_mode="outcome"), mode)
    env.reset(seed=0)
    got = [env.step(a)[1] for a in ("jump", "dec", "inc")]
    _, reward, terminated, _, info = env.step("inc")
    assert [*got, reward] == rewards
    assert terminated and info["reward_components"] == {"process": 1.0, "outcome": 1.0}


def test_reward_mode_bad_input() -> None:
    for bad in ("sum", "", None, "Both"):
        with pytest.raises(ValueError):
            RewardMode(counter(), bad)  # type: ignore[arg-type]
    env = RewardMode(BareEnv(), "process")
    env.reset()
    with pytest.raises(KeyError, match="reward_components"):
        env.step("x")


# ---------------------------------------------------------------------------- step budget
@pytest.mark.parametrize("bad", [0, -1, True, 2.5, "3", None])
def test_step_budget_bad_max_steps(bad: Any) -> None:
    with pytest.raises(ValueError):
        StepBudget(counter(), bad)


def test_step_budget_truncates() -> None:
    env = StepBudget(counter(goal=10), max_steps=3)
    env.reset(seed=0)
    for _ in range(2):
        _, _, terminated, truncated, info = env.step("inc")
        assert (terminated, truncated) == (False, False) and "truncated_by" not in info
    obs, _, terminated, truncated, info = env.step("dec")
    assert (terminated, truncated) == (False, True)
    assert info["truncated_by"] == "step_budget" and env.elapsed_steps == 3
    # Past the budget the env is not stepped again.
    again = env.step("inc")
    assert again[0] == obs and again[1:4] == (0.0, False, True)
    assert again[4]["valid_action"] is False and again[4]["truncated_by"] == "step_budget"
    assert env.unwrapped.steps == 3
    # A reset restarts the count.
    env.reset(seed=0)
    assert env.elapsed_steps == 0
    assert env.step("inc")[3] is False


def test_step_budget_termination_wins() -> None:
    env = StepBudget(counter(goal=2), max_steps=2)
    env.reset(seed=0)
    env.step("inc")
    _, _, terminated, truncated, info = env.step("inc")
    assert (terminated, truncated) == (True, False) and "truncated_by" not in info
    assert env.step("inc")[2:4] == (True, False)


def test_step_budget_of_one() -> None:
    env = StepBudget(counter(), max_steps=1)
    env.reset(seed=0)
    _, _, terminated, truncated, info = env.step("<action>anything</action>")
    assert (terminated, truncated, info["truncated_by"]) == (False, True, "step_budget")


# ---------------------------------------------------------------------------- the real games
@pytest.mark.parametrize("env_id", agentgym.env_ids())
def test_chat_stack_on_registered_games(env_id: str) -> None:
    env = wrap_chat(gym.make(env_id), turns=2, max_steps=6)
    obs, info = env.reset(seed=0)
    assert info["messages"][0]["content"] == env.unwrapped.system_prompt()
    assert info["messages"][-1]["content"] == obs
    texts = ["no tag", "<action>not a real move</action>"]
    best = env.unwrapped.oracle_actions()
    if best:
        texts.append(f"I pick the best move. <action>{best[0]}</action>")
    for text in texts:
        obs, _, terminated, truncated, info = env.step(text)
        assert _roles_alternate(info["messages"])
        assert info["messages"][-2]["content"] == text and info["raw_action"] == text
        json.dumps(info)  # the contract: everything in info is JSON-serialisable
        if terminated or truncated:
            break
    assert info["history"][-1]["action"] == text
    assert len(info["history"]) <= 2


# ---------------------------------------------------------------------------- what an LLM reads
def _rule_sentences(rules: str) -> list[str]:
    """The rules' substantial sentences (short ones, like a legend key, may recur in a board)."""
    flat = " ".join(rules.split())
    return [s.strip(" .") for s in flat.split(". ") if len(s.strip(" .")) >= 30]


def test_rules_stand_once_in_the_system_message_across_turns() -> None:
    env = wrap_chat(counter(), turns=4)
    _, info = env.reset(seed=1)
    for text in ["<action>inc</action>", "no tag", "<action>dec</action>", "<action>inc</action>"]:
        *_, info = env.step(text)
    messages = info["messages"]
    assert len(messages) == 1 + 2 * 4 + 1
    everything = "\n".join(m["content"] for m in messages)
    assert everything.count(RULES) == 1
    assert RULES in messages[0]["content"] and "</action>" in messages[0]["content"]
    assert all(RULES not in m["content"] for m in messages[1:])


@pytest.mark.parametrize("env_id", agentgym.env_ids())
def test_observations_do_not_repeat_the_rules(env_id: str) -> None:
    env = wrap_chat(gym.make(env_id), turns=4)
    _, info = env.reset(seed=0)
    for _ in range(5):
        best = env.unwrapped.oracle_actions()
        *_, terminated, truncated, info = env.step(f"<action>{best[0]}</action>")
        if terminated or truncated:
            break
    system, *turns = info["messages"]
    sentences = _rule_sentences(env.unwrapped.rules)
    assert sentences, "the rules say something substantial"
    assert all(s in " ".join(system["content"].split()) for s in sentences)
    for message in turns:
        flat = " ".join(message["content"].split())
        assert not [s for s in sentences if s in flat], (env_id, message["role"])


def test_a_sampler_stopping_at_the_stop_sequence_keeps_its_first_action() -> None:
    from agentgym.wrappers.chat import STOP_SEQUENCE

    assert STOP_SEQUENCE == "</action>"
    rambling = "<action>inc</action> hmm, on second thought <action>dec</action>"
    env = wrap_chat(counter(), turns=1)
    obs, _ = env.reset(seed=2)
    start = env.unwrapped.value
    env.step(rambling)  # the last complete tag wins: dec
    assert env.unwrapped.value == start - 1
    stopped = rambling[: rambling.index(STOP_SEQUENCE) + len(STOP_SEQUENCE)]
    env.step(stopped)
    assert env.unwrapped.value == start
