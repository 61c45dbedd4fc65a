"""StepRecord / StepTable: normalisation, the append checks, columns, splits and JSONL."""

from __future__ import annotations

import doctest
import json
import math

import numpy as np
import pytest

from agentgym.evaluation import observation_digest
from agentgym.trainers import records
from agentgym.trainers.advantages import gigpo, grpo
from agentgym.trainers.records import COLUMNS, StepRecord, StepTable, state_key


def record(**overrides):
    fields = dict(
        group=0,
        trajectory=0,
        turn=0,
        state_key="s",
        reward_components={"process": 0.0, "outcome": 0.0},
    )
    fields.update(overrides)
    return StepRecord(**fields)


def two_trajectory_table():
    """Group 0: trajectory 0 (two turns, solved) and trajectory 1 (one turn, cut off);
    group 5: trajectory 2 (one turn). Rows interleave as a vector env would append them."""
    table = StepTable()
    table.append(record(trajectory=0, turn=0, state_key="a",
                        reward_components={"process": 1.0, "outcome": 0.0, "boxes": 0.5},
                        completion_ids=[3, 4], logprobs=[-0.5, -0.25]))
    table.append(record(trajectory=1, turn=0, state_key="a",
                        reward_components={"process": -1.0, "outcome": 0.0},
                        truncated=True))
    table.append(record(group=5, trajectory=2, turn=0, state_key="a",
                        reward_components={"process": 2.0, "outcome": 0.0}))
    table.append(record(trajectory=0, turn=1, state_key="b",
                        reward_components={"process": 1.0, "outcome": 10.0},
                        terminated=True))
    return table


# --- state keys -----------------------------------------------------------------------------


def test_state_key_is_the_eval_traces_digest_of_the_raw_observation():
    obs = "Row: 3 2 4 1\nSteps left: 30."
    assert state_key(obs) == observation_digest(obs) == state_key(str(obs))
    assert state_key(obs) != state_key(obs.replace("30", "29"))
    with pytest.raises(ValueError, match="must be a str"):
        state_key(b"bytes")


# --- one record -----------------------------------------------------------------------------


def test_record_normalises_numpy_values_to_plain_python():
    r = record(
        group=np.int64(2),
        trajectory=np.int32(7),
        turn=np.int64(0),
        reward_components={"process": np.float32(0.5), "outcome": 1, "bonus": np.float64(2)},
        terminated=np.bool_(True),
        prompt_ids=np.array([1, 2, 3]),
        completion_ids=(4, 5),
        logprobs=np.array([-0.5, -0.125], dtype=np.float32),
    )
    assert (r.group, r.trajectory, r.turn) == (2, 7, 0)
    assert all(type(v) is int for v in (r.group, r.trajectory, r.turn))
    assert r.reward_components == {"process": 0.5, "outcome": 1.0, "bonus": 2.0}
    assert all(type(v) is float for v in r.reward_components.values())
    assert r.terminated is True and r.ended
    assert r.prompt_ids == [1, 2, 3] and type(r.prompt_ids[0]) is int
    assert r.completion_ids == [4, 5] and type(r.completion_ids) is list
    assert r.logprobs == [-0.5, -0.125] and type(r.logprobs[0]) is float
    assert (r.process, r.outcome, r.parts) == (0.5, 1.0, {"bonus": 2.0})


def test_record_without_logprobs_is_allowed():
    # An oracle trajectory tokenised for SFT has completion ids but no sampler log-probs.
    assert record(completion_ids=[1, 2, 3]).logprobs == []


def test_record_is_frozen():
    r = record()
    with pytest.raises(AttributeError):
        r.turn = 3


@pytest.mark.parametrize(
    ("overrides", "words"),
    [
        (dict(completion_ids=[1, 2], logprobs=[-0.1]),
         "logprobs has 1 entries but completion_ids has 2"),
        (dict(completion_ids=[], logprobs=[-0.1]), "logprobs has 1 entries but completion_ids"),
        (dict(completion_ids=[1, -2]), "completion_ids[1] must be >= 0"),
        (dict(prompt_ids=[1.0]), "prompt_ids[0] must be an int"),
        (dict(prompt_ids="12"), "prompt_ids must be a list"),
        (dict(completion_ids=[True]), "completion_ids[0] must be an int"),
        (dict(logprobs=[math.nan], completion_ids=[1]), "logprobs[0] must be a finite number"),
        (dict(logprobs=[-math.inf], completion_ids=[1]), "logprobs[0] must be a finite"),
        (dict(group=1.0), "group must be an int"),
        (dict(trajectory=True), "trajectory must be an int"),
        (dict(turn=-1), "turn must be >= 0"),
        (dict(state_key=""), "state_key must be a non-empty str"),
        (dict(state_key=3), "state_key must be a non-empty str"),
        (dict(terminated=1), "terminated must be a bool"),
        (dict(reward_components={"process": 1.0}), "no 'outcome'"),
        (dict(reward_components=[1.0, 0.0]), "reward_components must be a dict"),
        (dict(reward_components={"process": math.nan, "outcome": 0}),
         "reward_components['process'] must be a finite number"),
        (dict(reward_components={"process": 0, "outcome": 0, 3: 1.0}), "keys must be str"),
    ],
)
def test_record_refuses_bad_fields_in_one_line(overrides, words):
    with pytest.raises(ValueError) as info:
        record(**overrides)
    assert words in str(info.value) and "\n" not in str(info.value)


# --- the table's append checks --------------------------------------------------------------


@pytest.mark.parametrize(
    ("rows", "words"),
    [
        ([record(turn=1)], "trajectory 0: turn 1 starts the trajectory"),
        ([record(turn=0), record(turn=2)], "trajectory 0: turn 2 follows turn 0"),
        ([record(turn=0), record(turn=0)], "trajectory 0: turn 0 follows turn 0"),
        ([record(turn=0, terminated=True), record(turn=1)], "trajectory 0 already ended at turn 0"),
        ([record(turn=0, truncated=True), record(turn=1)], "already ended"),
        ([record(turn=0), record(turn=1, group=1)], "trajectory 0 is in group 0, not 1"),
        ([{"turn": 0}], "StepTable holds StepRecord rows, got dict"),
    ],
)
def test_table_refuses_rows_that_break_its_invariants(rows, words):
    table = StepTable()
    with pytest.raises(ValueError) as info:
        for row in rows:
            table.append(row)
    assert words in str(info.value) and "\n" not in str(info.value)
    # The refused row was not added: the table still takes the right next row.
    assert len(table) == len(rows) - 1
    if len(table) and not table[-1].ended:
        table.append(record(turn=1))
        assert table.column("turn").tolist() == [0, 1]


def test_constructor_checks_like_append():
    with pytest.raises(ValueError, match="turn 1 starts"):
        StepTable([record(turn=1)])


# --- columns --------------------------------------------------------------------------------


def test_columns_have_the_documented_dtypes_and_values():
    table = two_trajectory_table()
    assert table.column("group").tolist() == [0, 0, 5, 0]
    assert table.column("trajectory").tolist() == [0, 1, 2, 0]
    assert table.column("turn").tolist() == [0, 0, 0, 1]
    assert table.column("state_key").tolist() == ["a", "a", "a", "b"]
    assert table.column("process").tolist() == [1.0, -1.0, 2.0, 1.0]
    assert table.column("outcome").tolist() == [0.0, 0.0, 0.0, 10.0]
    assert table.column("terminated").tolist() == [False, False, False, True]
    assert table.column("truncated").tolist() == [False, True, False, False]
    for name, dtype in COLUMNS.items():
        assert table.column(name).dtype.type is dtype, name
        assert StepTable().column(name).dtype.type is dtype, name
        assert StepTable().column(name).shape == (0,)


def test_unknown_column_is_refused():
    with pytest.raises(ValueError, match="no column 'logprobs'; columns are group, trajectory"):
        two_trajectory_table().column("logprobs")


def test_component_reads_named_parts_with_or_without_a_default():
    table = two_trajectory_table()
    assert table.component("boxes", default=0.0).tolist() == [0.5, 0.0, 0.0, 0.0]
    assert table.component("process").tolist() == [1.0, -1.0, 2.0, 1.0]
    with pytest.raises(ValueError, match="row 1 has no reward component 'boxes'"):
        table.component("boxes")


def test_rewards_follow_the_reward_mode():
    table = two_trajectory_table()
    assert table.rewards().tolist() == [1.0, -1.0, 2.0, 11.0]
    assert table.rewards("process").tolist() == [1.0, -1.0, 2.0, 1.0]
    assert table.rewards("outcome").tolist() == [0.0, 0.0, 0.0, 10.0]
    with pytest.raises(ValueError, match="reward mode"):
        table.rewards("sum")


def test_episode_returns_repeat_each_trajectorys_total():
    # Trajectory 0: 1 + 11 = 12 (rows 0 and 3); trajectory 1: -1; trajectory 2: 2.
    table = two_trajectory_table()
    assert table.episode_returns().tolist() == [12.0, -1.0, 2.0, 12.0]
    assert table.episode_returns("outcome").tolist() == [10.0, 0.0, 0.0, 10.0]


# --- splits ---------------------------------------------------------------------------------


def test_by_trajectory_and_by_group():
    table = two_trajectory_table()
    rows = list(table)
    trajectories = table.by_trajectory()
    assert list(trajectories) == [0, 1, 2]
    assert list(trajectories[0]) == [rows[0], rows[3]]
    assert list(trajectories[1]) == [rows[1]]
    assert list(trajectories[2]) == [rows[2]]
    groups = table.by_group()
    assert list(groups) == [0, 5]
    assert list(groups[0]) == [rows[0], rows[1], rows[3]]
    assert list(groups[5]) == [rows[2]]
    assert all(isinstance(part, StepTable) for part in groups.values())


# --- JSONL ----------------------------------------------------------------------------------


def awkward_table():
    """Values that a lossy writer would change: -0.0, 1/3, tiny and huge floats, float32
    log-probs, a non-ASCII key, the order of named parts."""
    return StepTable([
        record(trajectory=9, turn=0, state_key="é-key",
               reward_components={"process": -0.0, "outcome": 1 / 3, "zeta": 1e-300,
                                  "alpha": 1.5e300},
               prompt_ids=[0, 151_643], completion_ids=[7, 8, 9],
               logprobs=np.array([-0.1, -1e-8, -20.5], dtype=np.float32)),
        record(trajectory=9, turn=1, state_key="k2", truncated=True),
        record(group=-3, trajectory=-4, turn=0, state_key="k3", terminated=True),
    ])


def test_jsonl_round_trips_exactly(tmp_path):
    table = awkward_table()
    path = table.save_jsonl(tmp_path / "steps.jsonl")
    back = StepTable.load_jsonl(path)
    assert back == table
    assert back is not table and len(back) == 3
    first = back[0]
    assert math.copysign(1.0, first.process) == -1.0  # the sign of -0.0 survives
    assert first.logprobs == [float(np.float32(-0.1)), float(np.float32(-1e-8)), -20.5]
    assert list(first.reward_components) == ["process", "outcome", "zeta", "alpha"]
    assert first.state_key == "é-key"
    # Saving what was loaded writes the same bytes.
    again = back.save_jsonl(tmp_path / "again.jsonl")
    assert again.read_bytes() == path.read_bytes()
    assert len(path.read_text(encoding="utf-8").splitlines()) == 3


def test_empty_table_round_trips(tmp_path):
    path = StepTable().save_jsonl(tmp_path / "empty.jsonl")
    assert path.read_text() == ""
    assert StepTable.load_jsonl(path) == StepTable()


def test_tables_compare_by_rows():
    assert awkward_table() == awkward_table()
    assert two_trajectory_table() != awkward_table()


def line_of(**overrides):
    data = record().to_json()
    data.update(overrides)
    return json.dumps(data)


@pytest.mark.parametrize(
    ("lines", "words"),
    [
        (["{not json"], ":1: not a JSON object"),
        (["[1, 2]"], ":1: not a JSON object"),
        ([line_of(extra=1)], ":1: unknown field 'extra'"),
        ([json.dumps({k: v for k, v in record().to_json().items() if k != "turn"})],
         ":1: missing field 'turn'"),
        ([line_of(), "", line_of(turn=2)], ":3: trajectory 0: turn 2 follows turn 0"),
        ([line_of(logprobs=[-0.1])], ":1: logprobs has 1 entries"),
        (['{"group": 0, "trajectory": 0, "turn": 0, "state_key": "s", "reward_components": '
          '{"process": NaN, "outcome": 0}, "terminated": false, "truncated": false, '
          '"prompt_ids": [], "completion_ids": [], "logprobs": []}'],
         ":1: reward_components['process'] must be a finite number"),
    ],
)
def test_load_refuses_bad_lines_with_their_line_number(tmp_path, lines, words):
    path = tmp_path / "bad.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with pytest.raises(ValueError) as info:
        StepTable.load_jsonl(path)
    assert words in str(info.value) and "\n" not in str(info.value)
    assert str(path) in str(info.value)


# --- the table feeds the advantage functions ------------------------------------------------


def test_table_columns_feed_grpo_and_gigpo():
    table = two_trajectory_table()
    # GRPO over per-row episode returns of group 0's rows [12, -1, 12] and group 5's [2].
    out = grpo(table.episode_returns(), table.column("group"), eps=0.0)
    # Group 0: mean 23/3, deviations [13/3, -26/3, 13/3], var (169 + 676 + 169) / 27 = 1014/27
    #   -> std sqrt(1014/27) = 6.1283; A = [0.7071, -1.4142, 0.7071] (= +-13/3 / std).
    assert out.tolist() == pytest.approx([2**-0.5, -(2**0.5), 0.0, 2**-0.5], rel=1e-12)
    steps = gigpo(
        table.episode_returns(),
        table.rewards(),
        table.column("group"),
        table.column("trajectory"),
        table.column("state_key"),
        gamma=1.0,
        weight=1.0,
        eps=0.0,
    )
    # Episode part, per trajectory in group 0: [12, -1] -> +1, -1; group 5 alone -> 0.
    # Step returns (gamma 1): traj 0 rows [1 + 11, 11] = [12, 11]; traj 1 [-1]; traj 2 [2].
    # Anchor (0, "a") = {row 0: 12, row 1: -1} -> +1, -1; (0, "b") and (5, "a") alone -> 0.
    assert steps.tolist() == pytest.approx([2.0, -2.0, 0.0, 1.0], rel=1e-12)


def test_docstring_examples_run():
    results = doctest.testmod(records)
    assert results.failed == 0 and results.attempted > 0
