"""Registers every agentgym id with Gymnasium when :mod:`agentgym` is imported.

One table, so ``agentgym list``, the conformance suite and the docs all read the same ids.

>>> import gymnasium as gym
>>> import agentgym
>>> "agentgym/Sokoban-v0" in gym.registry
True
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import gymnasium as gym

from agentgym.splits import TaskSplit


@dataclass(frozen=True)
class EnvEntry:
    """One registered environment: its id, where its class lives and what it is."""

    id: str
    entry_point: str
    family: str
    summary: str
    kwargs: dict[str, Any] = field(default_factory=dict)
    #: Extra kwarg sets the conformance suite also checks (difficulties, modes).
    variants: tuple[dict[str, Any], ...] = ()
    #: Pinned evaluation task sets (``agentgym eval --split NAME``); the first is the default.
    splits: tuple[TaskSplit, ...] = ()

    def split(self, name: str | None = None) -> TaskSplit:
        """The split called ``name`` (the first when None); unknown names list the known ones."""
        if not self.splits:
            raise ValueError(f"{self.id} has no pinned evaluation splits")
        if name is None:
            return self.splits[0]
        for split in self.splits:
            if split.name == name:
                return split
        known = ", ".join(s.name for s in self.splits)
        raise ValueError(f"{self.id} has no split {name!r}; its splits: {known}")


ENVIRONMENTS: tuple[EnvEntry, ...] = (
    EnvEntry(
        "agentgym/Sokoban-v0",
        "agentgym.environments.games.sokoban.env:SokobanEnv",
        "games",
        "push boxes onto goals; BFS / A* shortest-path oracle",
        variants=({"size": 8, "boxes": 2}, {"oracle": "solvable"}, {"preset": "vpr"}),
        splits=(TaskSplit("test", start=100_000, count=100,
                          description="100 seeded levels of the default size"),),
    ),
    EnvEntry(
        "agentgym/Sudoku-v0",
        "agentgym.environments.games.sudoku.env:SudokuEnv",
        "games",
        "fill a unique-solution grid; forced-cell (naked + hidden singles) / "
        "fewest-candidates oracle",
        variants=({"size": 4}, {"preset": "vpr"}, {"wrong_digit_ends": False}),
        splits=(TaskSplit("test", start=100_000, count=100,
                          description="100 seeded puzzles of the default size"),),
    ),
    EnvEntry(
        "agentgym/Minesweeper-v0",
        "agentgym.environments.games.minesweeper.env:MinesweeperEnv",
        "games",
        "clear the board; exact mine-posterior oracle",
        variants=({"rows": 9, "cols": 9, "mines": 10}, {"preset": "vpr"}),
        splits=(TaskSplit("test", start=100_000, count=100,
                          description="100 seeded boards of the default size"),),
    ),
    EnvEntry(
        "agentgym/TicTacToe-v0",
        "agentgym.environments.games.tictactoe.env:TicTacToeEnv",
        "games",
        "beat a built-in opponent; depth-aware minimax oracle",
        variants=({"opponent": "optimal"}, {"opponent": "optimal", "agent_first": False},
                  {"preset": "vpr"}),
        splits=(TaskSplit("test", start=100_000, count=100,
                          description="100 seeded games against the default opponent"),),
    ),
    EnvEntry(
        "agentgym/WebShop-v0",
        # A factory: mode="text" makes a WebShopEnv, mode="browser" a BrowserWebShopEnv.
        "agentgym.environments.webshop:make_webshop",
        "webshop",
        "buy the product an instruction asks for; WebShop reward + potential-based process "
        "reward (kwargs: mode=text|browser, split, num_products, max_steps, gamma)",
        variants=(
            {"num_products": 2000, "split": "train"},
            {"num_products": 2000, "gamma": 0.9, "max_steps": 8},
            {"mode": "browser", "num_products": 2000},
        ),
        splits=(TaskSplit("test", kwargs={"split": "test"}, start=0, count=500,
                          description="WebShop's 500 test goals, once each"),),
    ),
    EnvEntry(
        "agentgym/Negotiation-v0",
        "agentgym.environments.markets.negotiation.env:NegotiationEnv",
        "markets",
        "bilateral trade with private values against a scripted trader; per-offer checks, "
        "surplus-share outcome",
        variants=(
            {"role": "seller", "opponent": "tough"},
            {"role": "random", "opponent": "random"},
            # 4 rounds: with 3 the conformance suite's step budget of 3 never truncates.
            {"opponent": "tit-for-tat", "max_rounds": 4},
        ),
        splits=(TaskSplit("test", start=100_000, count=100,
                          description="100 seeded trades (role and opponent drawn per seed)"),),
    ),
    EnvEntry(
        "agentgym/BazaarB2C-v0",
        "agentgym.environments.markets.bazaar_b2c.env:BazaarB2CEnv",
        "markets",
        "one firm among scripted firms (cost-plus, undercutter, amplifier) in a Poisson consumer "
        "market; per-round ledger; outcome = Economic Alignment Score (stability, integrity, "
        "welfare against the market without the agent, profitability; x rounds present, 0 if "
        "bankrupt), process = its potential change (sums to process_weight x outcome)",
        variants=({"strategies": "amplifier"}, {"firms": 2, "strategies": "undercutter"},
                  {"firms": 8, "rate": 50, "capacity": 20}),
        splits=(TaskSplit("test", start=100_000, count=50,
                          description="50 seeded markets of the default size"),),
    ),
    EnvEntry(
        "agentgym/BazaarC2C-v0",
        "agentgym.environments.markets.bazaar_c2c.env:BazaarC2CEnv",
        "markets",
        "lemon market: flag a deceptive seller's sybil listings (or sell honestly); "
        "ground-truth ledger rewards",
        variants=({"sybils": 6}, {"sybils": 9}, {"role": "seller"}),
        splits=(TaskSplit("test", start=100_000, count=100,
                          description="100 seeded lemon markets (buyer, 3 sybils)"),),
    ),
    EnvEntry(
        "agentgym/Household-v0",
        "agentgym.environments.household.env:HouseholdEnv",
        "household",
        "ALFWorld's six household task types in seeded rooms (train / seen / unseen "
        "layouts); milestone-potential process reward, bounded A* planner oracle",
        variants=(
            {"task_type": "look_at_obj_in_light", "split": "seen"},
            {"task_type": "pick_heat_then_place_in_recep", "split": "unseen"},
            {"task_type": "pick_two_obj_and_place", "gamma": 0.95},
        ),
        splits=(TaskSplit("test", kwargs={"split": "unseen"}, start=0, count=134,
                          description="134 unseen-layout tasks, types drawn per seed "
                                      "(ALFWorld's out-of-distribution set is 134 games)"),
                TaskSplit("seen", kwargs={"split": "seen"}, start=0, count=140,
                          description="140 new tasks in training layouts (ALFWorld's "
                                      "in-distribution set is 140 games)")),
    ),
    EnvEntry(
        "agentgym/Terminal-v0",
        "agentgym.environments.terminal.env:TerminalEnv",
        "terminal",
        "shell and coding tasks in a Docker sandbox; outcome = share of hidden tests passed in "
        "a clean container, potential-based process reward from hidden milestones",
        splits=(TaskSplit("test", kwargs={"split": "test"}, start=0, count=10,
                          description="the 10 test tasks, once each"),),
    ),
    EnvEntry(
        "agentgym/SearchQA-v0",
        "agentgym.environments.searchqa.env:SearchQAEnv",
        "searchqa",
        "answer questions by BM25 search in Search-R1's <search>/<answer> format over a "
        "seeded fictional encyclopedia (1-3 hops) or your own JSONL corpus; outcome = exact "
        "match (F1 beside it), process = share of gold passages retrieved",
        variants=({"min_hops": 3}, {"namesakes": True, "min_hops": 2},
                  {"described": True, "min_hops": 2}, {"paraphrase": True, "min_hops": 2},
                  {"comparison": True}, {"corpus": "example"}),
        splits=(TaskSplit("test", kwargs={"split": "test"}, start=0, count=200,
                          description="the 200 questions of the 4 test worlds, once each"),),
    ),
    EnvEntry(
        "agentgym/Workplace-v0",
        "agentgym.environments.workplace.env:WorkplaceEnv",
        "workplace",
        "tool-using service agent (retail, travel, IT helpdesk with dual control) on a SQLite "
        "database under a written policy, with a scripted user; outcome = gold-db hash + facts "
        "told + no rule broken, process = share of the gold plan's changes",
        variants=({"domain": "retail", "split": "test"}, {"domain": "helpdesk", "gamma": 0.95}),
        splits=(TaskSplit("test", kwargs={"split": "test"}, start=0, count=150,
                          description="150 test tasks (templates and databases never in "
                                      "train), 50 per domain"),),
    ),
)

__all__ = ["ENVIRONMENTS", "EnvCreator", "EnvEntry", "env_ids", "register_all"]


class EnvCreator:
    """What ``gym.make`` calls for an agentgym id: the entry point, or a RemoteEnv.

    With ``server_url`` among the kwargs it returns an :class:`agentgym.remote.RemoteEnv`
    playing the id on that server; otherwise it loads the entry point (lazily, on the first
    call) and calls it, so ``gym.make(id).unwrapped`` is the family's own class.
    ``__wrapped__`` and ``metadata`` are the entry point's, so ``inspect.signature`` and
    ``agentgym.envinfo`` read the real kwargs and ``gym.make`` the real render modes.

    >>> creator = EnvCreator("agentgym/TicTacToe-v0",
    ...                      "agentgym.environments.games.tictactoe.env:TicTacToeEnv")
    >>> creator.__wrapped__.__name__
    'TicTacToeEnv'
    """

    def __init__(self, env_id: str, entry_point: str) -> None:
        self.env_id = env_id
        self.entry_point = entry_point
        self._target: Any = None

    @property
    def __wrapped__(self) -> Any:
        if self._target is None:
            from gymnasium.envs.registration import load_env_creator

            self._target = load_env_creator(self.entry_point)
        return self._target

    @property
    def metadata(self) -> dict[str, Any]:
        # gym.make checks render_mode against this only when the creator has it (a class);
        # a factory such as WebShop's has none, and then neither may this.
        try:
            return self.__wrapped__.metadata
        except AttributeError:
            raise AttributeError(f"{self.entry_point} has no metadata") from None

    def __call__(self, **kwargs: Any) -> gym.Env:
        if kwargs.get("server_url") is not None:
            from agentgym.remote import RemoteEnv

            return RemoteEnv(self.env_id, **kwargs)
        kwargs.pop("server_url", None)  # server_url=None: the local env (one config for both)
        return self.__wrapped__(**kwargs)

    def __repr__(self) -> str:
        return f"EnvCreator({self.env_id!r}, {self.entry_point!r})"


def env_ids() -> list[str]:
    """Every agentgym id, in registration order."""
    return [entry.id for entry in ENVIRONMENTS]


def register_all() -> None:
    """Register the table with Gymnasium; safe to call more than once."""
    for entry in ENVIRONMENTS:
        if entry.id in gym.registry:
            continue
        # No TimeLimit or order-enforcing wrapper: each env owns its step budget, and the
        # passive checker stays on so misuse is reported.
        gym.register(
            id=entry.id,
            entry_point=EnvCreator(entry.id, entry.entry_point),
            kwargs=dict(entry.kwargs),
            disable_env_checker=False,
            order_enforce=True,
        )
