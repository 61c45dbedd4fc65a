"""The TextEnv base class, actions and reward modes, on a toy env with hand-computed values."""

from __future__ import annotations

import gymnasium as gym
import pytest

from agentgym.actions import extract_action, format_action
from agentgym.core import Outcome, TextEnv, check_range, check_seed
from agentgym.rewards import combine_rewards


class Walk(TextEnv):
    """Walk from a seeded start to 0 on a line; +1 per step towards 0, -1 away."""

    verifier_name = "walk"
    verifier_version = "1"
    rules = "Reach 0. Actions: inc, dec."

    def _new_episode(self, rng, options):
        self.pos = int(rng.integers(1, 5))

    def _observe(self):
        return f"position {self.pos}"

    def _legal_actions(self):
        return ["dec", "inc"]

    def _parse(self, text):
        text = text.strip().lower()
        if text not in ("inc", "dec"):
            return None, f"unknown action {text[:20]!r}; use inc or dec"
        return text, ""

    def _apply(self, move):
        before = abs(self.pos)
        self.pos += 1 if move == "inc" else -1
        done = self.pos == 0
        return Outcome(
            process=1.0 if abs(self.pos) < before else -1.0,
            outcome=1.0 if done else 0.0,
            terminated=done,
            success=done,
            parts={"distance": float(abs(self.pos))},
        )

    def _reject(self, error):
        return Outcome(process=-0.5)

    def _state_dict(self):
        return {"pos": self.pos}

    def _load_state_dict(self, state):
        self.pos = int(state["pos"])


def test_step_fills_every_info_key_and_combines_rewards():
    env = Walk()
    obs, info = env.reset(seed=0)
    start = env.pos
    obs, reward, terminated, truncated, info = env.step("<action>dec</action>")
    assert obs == f"position {start - 1}"
    assert info["valid_action"] is True and info["action_error"] == ""
    assert info["reward_components"] == {
        "process": 1.0,
        "outcome": 1.0 if start == 1 else 0.0,
        "distance": float(start - 1),
    }
    assert reward == info["reward_components"]["process"] + info["reward_components"]["outcome"]
    assert info["verifier"] == {"name": "walk", "version": "1", "process_scored": True}
    assert info["available_actions"] == ["dec", "inc"]
    assert truncated is False


def test_invalid_action_uses_the_family_policy_and_is_counted():
    env = Walk()
    env.reset(seed=0)
    pos = env.pos
    _, reward, terminated, _, info = env.step("jump")
    assert (reward, terminated, env.pos) == (-0.5, False, pos)
    assert info["valid_action"] is False and "unknown action" in info["action_error"]
    assert info["invalid_actions"] == 1 and env.invalid_actions == 1
    *_, info = env.step("<action>")
    assert "without a closing" in info["action_error"] and info["invalid_actions"] == 2


def test_too_long_action_is_refused_before_parsing():
    env = Walk()
    env.reset(seed=0)
    *_, info = env.step("dec" * 1000)
    assert "limit is 1024" in info["action_error"]


def test_reward_mode_selects_components():
    for mode, expected in (("process", 1.0), ("outcome", 1.0), ("both", 2.0)):
        env = Walk(reward_mode=mode)
        env.reset(seed=0)
        env.pos = 1
        assert env.step("dec")[1] == expected
    with pytest.raises(ValueError, match="reward_mode must be one of"):
        Walk(reward_mode="all")


def test_score_process_false_zeroes_the_process_part_but_not_the_oracle():
    env = Walk(score_process=False)
    env.reset(seed=0)
    env.pos = 3
    assert env.score_actions(["dec", "inc"]) == [1.0, -1.0]
    _, reward, _, _, info = env.step("dec")
    assert reward == 0.0 and info["reward_components"]["process"] == 0.0
    assert info["verifier"]["process_scored"] is False
    env.pos = 1
    assert env.step("dec")[1] == 1.0  # the outcome is still paid
    with pytest.raises(ValueError, match="score_process"):
        Walk(score_process="no")


def test_success_is_only_reported_at_the_end():
    env = Walk()
    env.reset(seed=0)
    env.pos = 2
    assert env.step("dec")[4]["success"] is False
    _, _, terminated, _, info = env.step("dec")
    assert terminated and info["success"] is True
    obs, reward, terminated, _, info = env.step("dec")
    assert (reward, terminated, info["valid_action"]) == (0.0, True, False)
    assert "reset" in info["action_error"]


def test_same_seed_same_episode_and_snapshots_include_the_generator():
    a, b = Walk(), Walk()
    assert a.reset(seed=123)[0] == b.reset(seed=123)[0]
    snap = a.get_state()
    a.reset()  # draws from the generator
    after_first = a.pos
    a.set_state(snap)
    a.reset()
    assert a.pos == after_first


def test_score_actions_does_not_move_the_env():
    env = Walk()
    env.reset(seed=0)
    env.pos = 3
    before = env.get_state()
    assert env.score_actions(["dec", "inc", "fly", ""]) == [1.0, -1.0, -0.5, -0.5]
    assert env.get_state() == before
    assert env.oracle_actions() == ["dec"]


def test_step_before_reset_and_bad_snapshots_raise_clearly():
    env = Walk()
    with pytest.raises(gym.error.ResetNeeded):
        env.step("dec")
    with pytest.raises(gym.error.ResetNeeded):
        env.get_state()
    with pytest.raises(ValueError, match="not an agentgym snapshot"):
        env.set_state(b"\xff")
    with pytest.raises(ValueError, match="not from a Walk"):
        env.set_state(b'{"env": "Other"}')


def test_render_ansi_and_bad_render_mode():
    env = Walk(render_mode="ansi")
    assert env.render() == ""
    env.reset(seed=1)
    assert env.render().startswith("position")
    with pytest.raises(ValueError, match="render_mode"):
        Walk(render_mode="human")


def test_system_prompt_asks_for_the_tag():
    assert "Reach 0" in Walk().system_prompt()
    assert "<action>" in Walk().system_prompt()


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("<action>up</action>", ("up", "")),
        ("think <action>left</action> then <ACTION> down </ACTION>", ("down", "")),
        ("  right \n", ("right", "")),
        ("<action>  </action>", ("", "the <action></action> tag is empty")),
        ("<action>up", ("", "found <action> without a closing </action>")),
        ("", ("", "the action is empty")),
    ],
)
def test_extract_action(text, expected):
    assert extract_action(text) == expected


def test_extract_action_strict_requires_the_tag():
    _, error = extract_action("up", require_tag=True)
    assert error == "no <action>...</action> tag found in the text"
    assert extract_action(format_action("up"), require_tag=True) == ("up", "")


def test_combine_rewards_hand_values():
    parts = {"process": -2.0, "outcome": 1.0, "extra": 5.0}
    assert combine_rewards(parts, "both") == -1.0
    assert combine_rewards(parts, "process") == -2.0
    assert combine_rewards(parts, "outcome") == 1.0
    with pytest.raises(ValueError):
        combine_rewards(parts, "extra")


def test_check_range_and_check_seed():
    assert check_range("size", 6, 4, 10) == 6
    with pytest.raises(ValueError, match=r"size must be in \[4, 10\], got 11"):
        check_range("size", 11, 4, 10)
    with pytest.raises(ValueError, match="integer"):
        check_range("size", 6.0, 4, 10)
    with pytest.raises(ValueError, match="integer"):
        check_range("size", True, 4, 10)
    assert check_seed(None) is None and check_seed(3) == 3
    with pytest.raises(TypeError):
        check_seed("3")
