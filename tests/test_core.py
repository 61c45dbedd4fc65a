"""The TextEnv base class, actions and reward modes, on a toy env with hand-computed values."""

from __future__ import annotations

import gymnasium as gym
import pytest

from agentgym.actions import MAX_TEXT_LENGTH, extract_action, format_action
from agentgym.core import Outcome, TextEnv, check_range, check_seed
from agentgym.draws import below
from agentgym.rewards import combine_rewards


class Walk(TextEnv):
    """Walk from a seeded start to 0 on a line; +1 per step towards 0, -1 away."""

    verifier_name = "walk"
    verifier_version = "1"
    rules = "Reach 0. Actions: inc, dec."

    def __init__(self, span: int = 4, **kwargs):
        kwargs.setdefault("invalid_penalty", -0.5)
        super().__init__(**kwargs)
        self.span = span

    def _config(self):
        return {"span": self.span}

    def _new_episode(self, rng, options):
        self.pos = 1 + below(rng, self.span)

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


# ---------------------------------------------------------------- the contract's end rules
def test_running_out_of_steps_is_truncation_not_termination():
    env = Walk(max_steps=2)
    env.reset(seed=0)
    env.pos = 3
    _, _, terminated, truncated, info = env.step("inc")
    assert (terminated, truncated, info["steps_left"]) == (False, False, 1)
    _, _, terminated, truncated, info = env.step("inc")
    assert (terminated, truncated, info["truncated_by"]) == (False, True, "max_steps")
    assert info["steps_left"] == 0 and info["available_actions"] == []
    # After the end the flags repeat (still truncated, never turned into terminated).
    _, reward, terminated, truncated, info = env.step("dec")
    assert (reward, terminated, truncated, info["valid_action"]) == (0.0, False, True, False)


def test_the_game_ending_on_the_last_step_is_termination():
    env = Walk(max_steps=1)
    env.reset(seed=0)
    env.pos = 1
    _, _, terminated, truncated, info = env.step("dec")
    assert (terminated, truncated, info["success"]) == (True, False, True)
    assert "truncated_by" not in info


def test_max_invalid_ends_the_episode_truncated_with_the_penalty_each_time():
    env = Walk(invalid_penalty=-2.0, max_invalid=2)
    env.reset(seed=0)
    _, reward, terminated, truncated, info = env.step("fly")
    assert (reward, terminated, truncated) == (-2.0, False, False)
    _, reward, terminated, truncated, info = env.step("<action>")
    assert (reward, terminated, truncated) == (-2.0, False, True)
    assert info["truncated_by"] == "max_invalid" and info["invalid_actions"] == 2


def test_contract_kwargs_are_validated():
    with pytest.raises(ValueError, match="max_steps"):
        Walk(max_steps=0)
    with pytest.raises(ValueError, match="max_invalid"):
        Walk(max_invalid=0)
    with pytest.raises(ValueError, match="invalid_penalty"):
        Walk(invalid_penalty=1.0)
    with pytest.raises(ValueError, match="invalid_penalty"):
        Walk(invalid_penalty=float("nan"))


class Refusing(Walk):
    """_apply refuses ``inc`` at position 4 (a rule only the state can judge)."""

    def _apply(self, move):
        if move == "inc" and self.pos == 4:
            return Outcome(valid=False, error="the wall is at 5", info={"wall": 5})
        return super()._apply(move)


def test_a_move_apply_refuses_is_an_invalid_action():
    env = Refusing()
    env.reset(seed=0)
    env.pos = 4
    _, reward, _, _, info = env.step("inc")
    assert (reward, info["valid_action"], info["action_error"]) == (-0.5, False, "the wall is at 5")
    assert info["invalid_actions"] == 1 and info["wall"] == 5 and env.pos == 4
    assert env.score_actions(["inc", "dec"]) == [-0.5, 1.0]


class Clashing(Walk):
    def _apply(self, move):
        out = super()._apply(move)
        out.info["valid_action"] = True
        return out


def test_family_info_cannot_overwrite_contract_keys():
    env = Clashing()
    env.reset(seed=0)
    with pytest.raises(ValueError, match="contract info keys"):
        env.step("dec")


def test_outcome_is_keyword_only():
    with pytest.raises(TypeError):
        Outcome(1.0, 0.0)  # type: ignore[misc]


def test_score_actions_equals_the_step_on_the_last_budgeted_step():
    env = Walk(max_steps=1)
    env.reset(seed=0)
    env.pos = 3
    scores = env.score_actions(["dec", "inc", "fly"])
    assert scores == [1.0, -1.0, -0.5]
    assert env.step("fly")[1] == scores[2]


# ---------------------------------------------------------------- snapshots carry config and seed
def test_snapshot_restores_the_episode_seed():
    a, b = Walk(), Walk()
    a.reset(seed=77)
    b.reset(seed=5)
    b.set_state(a.get_state())
    assert b.episode_seed == 77 and b.pos == a.pos


def test_snapshot_into_a_differently_configured_env_names_the_keys():
    a = Walk(span=4, max_steps=10)
    a.reset(seed=1)
    snap = a.get_state()
    with pytest.raises(ValueError, match=r"max_steps: snapshot 10, this env 100") as err:
        Walk(span=4).set_state(snap)
    assert "span" not in str(err.value)
    with pytest.raises(ValueError, match="span"):
        Walk(span=3, max_steps=10).set_state(snap)
    Walk(span=4, max_steps=10).set_state(snap)  # same config: fine


def test_snapshot_of_a_finished_episode_keeps_its_end_flags():
    env = Walk(max_steps=1)
    env.reset(seed=0)
    env.pos = 3
    env.step("inc")
    other = Walk(max_steps=1)
    other.set_state(env.get_state())
    assert other.is_over and other.step("dec")[2:4] == (False, True)


# ---------------------------------------------------------------- action extraction is bounded
def test_many_tags_are_extracted_in_one_pass():
    many = "<action>x</action>" * 3000 + "<action>" * 3000  # 78 KB would be refused; stay under
    text = many[:MAX_TEXT_LENGTH]
    assert extract_action(text)[0] == "x"
    assert extract_action("<action>" * 8000) == ("", "found <action> without a closing </action>")


def test_text_over_the_limit_is_refused_before_any_search():
    action, error = extract_action("<action>up</action>" + " " * MAX_TEXT_LENGTH)
    assert action == "" and f"the limit is {MAX_TEXT_LENGTH}" in error


def test_non_ascii_text_does_not_shift_the_tag():
    assert extract_action("İİİ <ACTION>up</action>") == ("up", "")


def _forged(env: TextEnv, **changes) -> bytes:
    import json

    payload = json.loads(env.get_state())
    payload.update(changes)
    return json.dumps(payload).encode()


@pytest.mark.parametrize(("changes", "words"), [
    # A stranger's snapshot (a server's client) lifted the step budget: "Steps left: 10**12".
    ({"steps": -10**12}, "snapshot steps must be an integer in [0, 100]"),
    ({"steps": 101}, "snapshot steps must be an integer in [0, 100]"),
    ({"steps": 1.5}, "snapshot steps must be an integer"),
    ({"invalid": -5}, "snapshot invalid must be an integer in [0, 3]"),
    ({"ended": "x"}, "snapshot ended must be null or two booleans"),
    ({"seed": -1}, "seed must be a non-negative int"),
    ({"state": {}}, "snapshot state does not load: KeyError"),
    ({"rng": {"bit_generator": "nope"}}, "snapshot state does not load"),
])
def test_a_crafted_snapshot_is_one_valueerror_and_leaves_no_episode(changes, words):
    env = Walk()
    env.reset(seed=3)
    forged = _forged(env, **changes)
    with pytest.raises(ValueError) as caught:
        env.set_state(forged)
    assert words in str(caught.value) and "\n" not in str(caught.value)
    if "state" in changes or "rng" in changes:
        with pytest.raises(gym.error.ResetNeeded):  # half-loaded: play needs a reset
            env.step("dec")
    env.reset(seed=3)
    env.set_state(_forged(env, steps=100, invalid=3))  # the limits themselves load
    assert env.steps_left == 0


# ---------------------------------------------------------------- shaping and why it ended
class ShapedWalk(Walk):
    """Walk with the shaping declared to the base: phi = 1 - |pos| / 10 (1 at the goal), and
    a family process part of its own (+0.25 a valid step) the shaping is added to."""

    def __init__(self, gamma: float = 1.0, **kwargs):
        super().__init__(**kwargs)
        self.gamma = gamma
        self.reads = 0  # potentials read: none while process scoring is off
        self.ends: list[tuple[bool, str]] = []  # (truncated, truncated_by) seen in _on_end

    def _shaping_potential(self):
        self.reads += 1
        return 1.0 - abs(self.pos) / 10

    def _apply(self, move):
        out = super()._apply(move)
        out.process = 0.25
        return out

    def _on_end(self, out):
        self.ends.append((out.truncated, out.truncated_by))


def test_shaping_and_settle_hand_values():
    from agentgym.core import settle, shaping

    assert shaping(1.0, 0.25, 0.75) == 0.5 and shaping(0.5, 0.5, 0.5) == -0.25
    assert settle(1.0, 0.75, 0.0) == -0.75 and settle(0.5, 0.5, 1.0) == 0.25
    assert settle(0.9, 1.0, 1.0) == 0.0


def test_the_base_applies_a_declared_potential_and_its_end_rule():
    env = ShapedWalk(gamma=0.5, max_steps=3)
    env.reset(seed=0)
    start = env.pos
    _, _, _, _, info = env.step("inc")  # away from 0: phi 1 - (start + 1) / 10
    phi0, phi1 = 1 - start / 10, 1 - (start + 1) / 10
    assert info["reward_components"]["process"] == 0.25 + (0.5 * phi1 - phi0)
    _, _, _, _, info = env.step("nonsense")  # invalid: the state and phi unchanged
    assert info["reward_components"]["process"] == (0.5 * phi1 - phi1) - 0.5
    _, _, terminated, truncated, info = env.step("dec")  # the budget's last step: phi -> 0
    assert (terminated, truncated, info["truncated_by"]) == (False, True, "max_steps")
    assert info["reward_components"]["process"] == 0.25 + (0.5 * phi0 - phi1) + 0.5 * (0 - phi0)
    assert env.ends == [(True, "max_steps")]


def test_shaping_telescopes_to_the_outcome_whatever_ends_the_episode():
    for seed, actions, ending in [
        (0, ["dec"] * 4, "solved"),
        (0, ["inc", "dec", "inc"], "max_steps"),
        (0, ["inc", "x", "x", "x"], "max_invalid"),
    ]:
        env = ShapedWalk(max_steps=len(actions) if ending == "max_steps" else 50)
        env.reset(seed=seed)
        phi0 = 1 - env.pos / 10
        total, info = 0.0, {}
        for action in actions:
            _, _, terminated, truncated, info = env.step(action)
            total += info["reward_components"]["process"]
            if terminated or truncated:
                break
        assert terminated or truncated, ending
        valid = sum(a in ("inc", "dec") for a in actions[: env.steps])
        # less the family's own part and the penalties: the shaping alone
        paid = total - 0.25 * valid - env.invalid_actions * env.invalid_penalty
        assert paid == pytest.approx(info["reward_components"]["outcome"] - phi0), ending
        assert env.ends[-1] == (truncated, info.get("truncated_by", "")), ending


def test_a_potential_is_not_read_while_process_scoring_is_off():
    env = ShapedWalk(score_process=False)
    env.reset(seed=0)
    env.step("inc")
    env.step("x")
    assert env.reads == 0
    scored = ShapedWalk()
    scored.reset(seed=0)
    assert scored.score_actions(["inc", "x"]) == [scored.step("inc")[4]["reward_components"][
        "process"], pytest.approx(-0.5)]


def test_score_actions_pays_the_end_rule_on_the_last_budgeted_step():
    env = ShapedWalk(max_steps=2)
    env.reset(seed=1)
    env.step("inc")
    scores = env.score_actions(["inc", "dec", "x"])
    for action, score in zip(["inc", "dec", "x"], scores, strict=True):
        snapshot = env.get_state()
        assert env.step(action)[4]["reward_components"]["process"] == score, action
        env.set_state(snapshot)


def test_on_end_reads_why_the_episode_was_truncated():
    class FamilyLimit(ShapedWalk):
        def _apply(self, move):
            out = super()._apply(move)
            out.truncated, out.truncated_by = move == "dec", "out_of_fuel"
            return out

    for make, actions, why in [
        (lambda: ShapedWalk(max_steps=1), ["inc"], "max_steps"),
        (lambda: ShapedWalk(max_invalid=1), ["x"], "max_invalid"),
        (lambda: FamilyLimit(), ["dec"], "out_of_fuel"),
        (lambda: ShapedWalk(), ["dec"] * 5, ""),  # solved: terminated, no reason
    ]:
        env = make()
        env.reset(seed=0)
        for action in actions:
            *_, terminated, truncated, info = env.step(action)
            if terminated or truncated:
                break
        assert env.ends == [(bool(why), why)], why
        assert info.get("truncated_by", "") == why


def test_the_audit_checks_shaping_against_the_declared_hook():
    from agentgym.agents import make_agent
    from agentgym.audit.episodes import play_episode
    from agentgym.audit.spec import AuditSpec

    class PureShaping(ShapedWalk):
        def _apply(self, move):
            out = Walk._apply(self, move)
            out.process = 0.0  # the shaping alone: a potential by construction
            return out

    spec = AuditSpec()  # declares no potential: the audit reads the env's hook
    for env, errors in [(PureShaping(gamma=0.9, max_steps=4), False),
                        (ShapedWalk(gamma=0.9, max_steps=4), True)]:  # +0.25 a step: not one
        ep = play_episode(env, make_agent("random"), 0, spec, after_end=False)
        assert not ep.error and len(ep.potentials) == len(ep.process) + 1
        assert ep.potentials[-1] == ep.outcome  # the end rule: the last potential is it
        assert bool(ep.shaping_errors()) is errors
