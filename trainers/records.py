"""The flat table of step records a rollout produces: one row per agent turn.

A row says where the turn sits (group, trajectory, turn index), which state the agent saw (a
hash of the raw observation: GiGPO's anchor states and VPR's state groups compare these),
what the env paid for it (``info["reward_components"]``: process, outcome and any named
parts), how the episode stood afterwards (terminated / truncated), and the exact tokens: the
prompt ids, the completion ids and the sampler's log-probs of the completion, as the sampler
produced them (never decoded and re-encoded).

The table checks each row as it is appended, so a trainer can trust it: completion ids and
log-probs line up, a trajectory's turns run ``0, 1, 2, ...`` with nothing after its last
one, and a trajectory stays in one group. Trajectory ids are unique across the table (rows of
different trajectories may interleave, as a vector env steps them together).

>>> table = StepTable()
>>> for trajectory, rewards in ((0, [0.0, 1.0]), (1, [-1.0])):
...     for turn, process in enumerate(rewards):
...         table.append(StepRecord(
...             group=0, trajectory=trajectory, turn=turn,
...             state_key=state_key(f"board {trajectory}.{turn}"),
...             reward_components={"process": process, "outcome": 0.0},
...             terminated=turn == len(rewards) - 1,
...             prompt_ids=[1, 2], completion_ids=[5, 6, 7], logprobs=[-0.1, -0.2, -0.3]))
>>> table.column("trajectory").tolist(), table.rewards().tolist()
([0, 0, 1], [0.0, 1.0, -1.0])
>>> table.episode_returns().tolist()
[1.0, 1.0, -1.0]
>>> {t: len(rows) for t, rows in table.by_trajectory().items()}
{0: 2, 1: 1}
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from agentgym.evaluation import observation_digest
from agentgym.rewards import combine_rewards

if TYPE_CHECKING:  # rollout imports this module; the name is only an annotation here
    from .rollout import RolloutStats

__all__ = ["COLUMNS", "StepRecord", "StepTable", "state_key"]

#: The scalar columns :meth:`StepTable.column` returns, with their NumPy dtypes.
COLUMNS: dict[str, type] = {
    "group": np.int64,
    "trajectory": np.int64,
    "turn": np.int64,
    "state_key": np.str_,
    "process": np.float64,
    "outcome": np.float64,
    "terminated": np.bool_,
    "truncated": np.bool_,
}


def state_key(observation: str) -> str:
    """The state key of a raw observation: the same short SHA-256 digest the eval traces keep.

    Equal observations give equal keys in every process and on every machine (no ``hash()``).

    >>> state_key("Row: 3 2 1") == state_key("Row: 3 2 1"), len(state_key("Row: 3 2 1"))
    (True, 16)
    """
    if not isinstance(observation, str):
        raise ValueError(f"an observation must be a str, got {type(observation).__name__}")
    return observation_digest(observation)


# --- field checks ---------------------------------------------------------------------------


def _int(name: str, value: Any, minimum: int | None = None) -> int:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise ValueError(f"{name} must be an int, got {value!r}")
    if minimum is not None and value < minimum:
        raise ValueError(f"{name} must be >= {minimum}, got {value}")
    return int(value)


def _bool(name: str, value: Any) -> bool:
    if not isinstance(value, (bool, np.bool_)):
        raise ValueError(f"{name} must be a bool, got {value!r}")
    return bool(value)


def _float(name: str, value: Any) -> float:
    if isinstance(value, (bool, np.bool_)) or not isinstance(
        value, (int, float, np.integer, np.floating)
    ):
        raise ValueError(f"{name} must be a finite number, got {value!r}")
    if not np.isfinite(value):
        raise ValueError(f"{name} must be a finite number, got {value}")
    return float(value)


def _sequence(name: str, values: Any) -> list[Any]:
    if isinstance(values, (str, bytes, Mapping)) or not isinstance(
        values, (Sequence, np.ndarray)
    ):
        raise ValueError(f"{name} must be a list, got {type(values).__name__}")
    return list(values.tolist() if isinstance(values, np.ndarray) else values)


def _token_ids(name: str, values: Any) -> list[int]:
    return [_int(f"{name}[{i}]", v, 0) for i, v in enumerate(_sequence(name, values))]


def _components(value: Any) -> dict[str, float]:
    if not isinstance(value, Mapping):
        raise ValueError(f"reward_components must be a dict, got {type(value).__name__}")
    missing = [key for key in ("process", "outcome") if key not in value]
    if missing:
        raise ValueError(f"reward_components must have 'process' and 'outcome'; no {missing[0]!r}")
    out = {}
    for key, number in value.items():
        if not isinstance(key, str):
            raise ValueError(f"reward_components keys must be str, got {key!r}")
        out[key] = _float(f"reward_components[{key!r}]", number)
    return out


# --- one row --------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class StepRecord:
    """One agent turn. Checked and normalised to plain Python types when built.

    ``reward_components`` is the env's ``info["reward_components"]`` (``process``,
    ``outcome`` and named parts); the scalar reward for a reward mode is
    :meth:`StepTable.rewards`. ``logprobs`` are the sampler's log-probs of
    ``completion_ids``, one per token, or empty where no sampler produced the completion
    (an oracle trajectory tokenised for SFT, a table built before a sampler exists).

    >>> r = StepRecord(group=0, trajectory=3, turn=0, state_key="ab12",
    ...                reward_components={"process": 1, "outcome": 0, "boxes": 0.5},
    ...                completion_ids=[4, 2], logprobs=[-0.5, -1.25])
    >>> r.process, r.parts
    (1.0, {'boxes': 0.5})
    >>> StepRecord(group=0, trajectory=3, turn=0, state_key="ab12",
    ...            reward_components={"process": 1, "outcome": 0},
    ...            completion_ids=[4, 2], logprobs=[-0.5])
    Traceback (most recent call last):
    ...
    ValueError: logprobs has 1 entries but completion_ids has 2 (give one per token, or none)
    """

    group: int
    trajectory: int
    turn: int
    state_key: str
    reward_components: dict[str, float]
    terminated: bool = False
    truncated: bool = False
    prompt_ids: list[int] = field(default_factory=list)
    completion_ids: list[int] = field(default_factory=list)
    logprobs: list[float] = field(default_factory=list)

    def __post_init__(self) -> None:
        if not isinstance(self.state_key, str) or not self.state_key:
            raise ValueError(f"state_key must be a non-empty str, got {self.state_key!r}")
        logprobs = [
            _float(f"logprobs[{i}]", v) for i, v in enumerate(_sequence("logprobs", self.logprobs))
        ]
        completion = _token_ids("completion_ids", self.completion_ids)
        if logprobs and len(logprobs) != len(completion):
            raise ValueError(
                f"logprobs has {len(logprobs)} entries but completion_ids has "
                f"{len(completion)} (give one per token, or none)"
            )
        values = {
            "group": _int("group", self.group),
            "trajectory": _int("trajectory", self.trajectory),
            "turn": _int("turn", self.turn, 0),
            "reward_components": _components(self.reward_components),
            "terminated": _bool("terminated", self.terminated),
            "truncated": _bool("truncated", self.truncated),
            "prompt_ids": _token_ids("prompt_ids", self.prompt_ids),
            "completion_ids": completion,
            "logprobs": logprobs,
        }
        for name, value in values.items():
            object.__setattr__(self, name, value)  # frozen: normalise once, here

    @property
    def process(self) -> float:
        return self.reward_components["process"]

    @property
    def outcome(self) -> float:
        return self.reward_components["outcome"]

    @property
    def parts(self) -> dict[str, float]:
        """The named parts besides ``process`` and ``outcome``."""
        return {k: v for k, v in self.reward_components.items() if k not in ("process", "outcome")}

    @property
    def ended(self) -> bool:
        return self.terminated or self.truncated

    def to_json(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


_FIELDS: tuple[str, ...] = tuple(f.name for f in dataclasses.fields(StepRecord))


# --- the table ------------------------------------------------------------------------------


class StepTable:
    """A list of :class:`StepRecord` rows, checked on append, with NumPy column views.

    >>> table = StepTable()
    >>> row = dict(group=0, trajectory=0, state_key="s",
    ...            reward_components={"process": 0.0, "outcome": 0.0})
    >>> table.append(StepRecord(turn=0, **row))
    >>> table.append(StepRecord(turn=2, **row))
    Traceback (most recent call last):
    ...
    ValueError: trajectory 0: turn 2 follows turn 0 (turns must be consecutive from 0)
    """

    #: The totals of the rollout that produced the table, which the rollouts set; a table
    #: built otherwise has no such attribute (read it with ``getattr(table, "stats", None)``).
    stats: RolloutStats

    def __init__(self, records: Iterable[StepRecord] = ()) -> None:
        self._records: list[StepRecord] = []
        self._last_turn: dict[int, int] = {}
        self._group: dict[int, int] = {}
        self._ended: set[int] = set()
        self.extend(records)

    # -- building --

    def append(self, record: StepRecord) -> None:
        """Add one row, refusing one that breaks the table's invariants (one-line errors)."""
        if not isinstance(record, StepRecord):
            raise ValueError(f"a StepTable holds StepRecord rows, got {type(record).__name__}")
        t = record.trajectory
        if t in self._ended:
            raise ValueError(f"trajectory {t} already ended at turn {self._last_turn[t]}")
        expected = self._last_turn.get(t, -1) + 1
        if record.turn != expected:
            before = f"follows turn {expected - 1}" if expected else "starts the trajectory"
            raise ValueError(
                f"trajectory {t}: turn {record.turn} {before} (turns must be consecutive from 0)"
            )
        group = self._group.setdefault(t, record.group)
        if record.group != group:
            raise ValueError(f"trajectory {t} is in group {group}, not {record.group}")
        self._records.append(record)
        self._last_turn[t] = record.turn
        if record.ended:
            self._ended.add(t)

    def extend(self, records: Iterable[StepRecord]) -> None:
        for record in records:
            self.append(record)

    # -- reading --

    def __len__(self) -> int:
        return len(self._records)

    def __iter__(self) -> Iterator[StepRecord]:
        return iter(self._records)

    def __getitem__(self, index: int) -> StepRecord:
        return self._records[index]

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, StepTable):
            return NotImplemented
        return self._records == other._records

    __hash__ = None  # type: ignore[assignment]  # mutable

    def __repr__(self) -> str:
        return f"StepTable({len(self)} rows, {len(self._last_turn)} trajectories)"

    def column(self, name: str) -> np.ndarray:
        """One scalar column as a NumPy array (names and dtypes in :data:`COLUMNS`)."""
        if name not in COLUMNS:
            raise ValueError(f"no column {name!r}; columns are {', '.join(COLUMNS)}")
        return np.array([getattr(r, name) for r in self._records], dtype=COLUMNS[name])

    def component(self, name: str, default: float | None = None) -> np.ndarray:
        """One reward component per row (``default`` where a row lacks it, else an error)."""
        values = []
        for i, record in enumerate(self._records):
            value = record.reward_components.get(name, default)
            if value is None:
                raise ValueError(f"row {i} has no reward component {name!r} (pass a default)")
            values.append(value)
        return np.array(values, dtype=np.float64)

    def rewards(self, mode: str = "both") -> np.ndarray:
        """Each row's scalar reward for a reward mode (``both``, ``process``, ``outcome``)."""
        return np.array(
            [combine_rewards(r.reward_components, mode) for r in self._records], dtype=np.float64
        )

    def episode_returns(self, mode: str = "both") -> np.ndarray:
        """Each row's trajectory's total reward (so far), repeated on every row of it."""
        rewards = self.rewards(mode)
        trajectories = self.column("trajectory")
        totals: dict[int, float] = {}
        for t, r in zip(trajectories.tolist(), rewards.tolist(), strict=True):
            totals[t] = totals.get(t, 0.0) + r
        return np.array([totals[t] for t in trajectories.tolist()], dtype=np.float64)

    def by_trajectory(self) -> dict[int, StepTable]:
        """The rows of each trajectory in turn order, keyed by id in order of first appearance."""
        return self._split("trajectory")

    def by_group(self) -> dict[int, StepTable]:
        """The rows of each group in table order, keyed by id in order of first appearance."""
        return self._split("group")

    def _split(self, name: str) -> dict[int, StepTable]:
        parts: dict[int, StepTable] = {}
        for record in self._records:
            parts.setdefault(getattr(record, name), StepTable()).append(record)
        return parts

    # -- files --

    def save_jsonl(self, path: str | Path) -> Path:
        """Write one JSON object per row; :meth:`load_jsonl` gives back an equal table."""
        path = Path(path)
        with path.open("w", encoding="utf-8") as out:
            for record in self._records:
                out.write(json.dumps(record.to_json(), allow_nan=False) + "\n")
        return path

    @classmethod
    def load_jsonl(cls, path: str | Path) -> StepTable:
        """Read a file :meth:`save_jsonl` wrote; a bad line is refused with its line number.

        >>> import tempfile, pathlib
        >>> table = StepTable([StepRecord(group=1, trajectory=4, turn=0, state_key="k",
        ...                   reward_components={"process": 0.1, "outcome": 1.0},
        ...                   terminated=True, completion_ids=[9], logprobs=[-0.7])])
        >>> with tempfile.TemporaryDirectory() as tmp:
        ...     back = StepTable.load_jsonl(table.save_jsonl(pathlib.Path(tmp) / "steps.jsonl"))
        >>> back == table
        True
        """
        table = cls()
        with Path(path).open(encoding="utf-8") as lines:
            for number, line in enumerate(lines, 1):
                if not line.strip():
                    continue
                try:
                    table.append(_record_from_json(json.loads(line)))
                except json.JSONDecodeError:
                    raise ValueError(f"{path}:{number}: not a JSON object") from None
                except ValueError as error:
                    raise ValueError(f"{path}:{number}: {error}") from None
        return table


def _record_from_json(data: Any) -> StepRecord:
    if not isinstance(data, dict):
        raise ValueError("not a JSON object")
    unknown = sorted(set(data) - set(_FIELDS))
    if unknown:
        raise ValueError(f"unknown field {unknown[0]!r}")
    missing = [name for name in _FIELDS if name not in data]
    if missing:
        raise ValueError(f"missing field {missing[0]!r}")
    return StepRecord(**data)
