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
    #: The allowed values of the family's kwargs, as ``agentgym list`` shows them ("5-10",
    #: "shortest | solvable"); the contract kwargs' are in ``agentgym.envinfo``.
    kwargs_doc: dict[str, str] = field(default_factory=dict)
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
        kwargs_doc={
            "size": "5-10",
            "boxes": "1-3 (fewer on small boards)",
            "oracle": "shortest | solvable",
            "process_reward": "progress (settled potential difference) | verdict (VPR's scores)",
            "search_depth": "null (a solution must fit the steps left) | 1-100",
            "optimal_reward": "a number; deadlock_penalty <= legal_reward <= optimal_reward",
            "legal_reward": "a number; deadlock_penalty <= legal_reward <= optimal_reward",
            "deadlock_penalty": "a number; deadlock_penalty <= legal_reward <= optimal_reward",
            "success_reward": "a number (the outcome of a solved level)",
            "max_steps": "1-100",
            "preset": "null | vpr",
        },
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
        kwargs_doc={
            "size": "4 | 9",
            "blanks": "1-12 (size 4), 1-56 (size 9); null: the size's default",
            "max_steps": "1-1000",
            "oracle": "singles | naked",
            "wrong_digit_ends": "true | false",
            "max_wrong": "1-1000 (with wrong_digit_ends=false, that many wrong digits lose)",
            "repeats_are_wrong": "true | false",
            "reward_forced": "a number; reward_forced >= reward_mrv > reward_other > reward_wrong",
            "reward_mrv": "a number; reward_forced >= reward_mrv > reward_other > reward_wrong",
            "reward_other": "a number; reward_forced >= reward_mrv > reward_other > reward_wrong",
            "reward_wrong": "a number; reward_forced >= reward_mrv > reward_other > reward_wrong",
            "preset": "null | vpr",
        },
        splits=(TaskSplit("test", start=100_000, count=100,
                          description="100 seeded puzzles of the default size"),),
    ),
    EnvEntry(
        "agentgym/Minesweeper-v0",
        "agentgym.environments.games.minesweeper.env:MinesweeperEnv",
        "games",
        "clear the board; exact mine-posterior oracle",
        variants=({"rows": 9, "cols": 9, "mines": 10}, {"preset": "vpr"}),
        kwargs_doc={
            "rows": "3-16",
            "cols": "3-16",
            "mines": "1 to rows x cols - 9",
            "max_steps": "1-100000; null: 2 x rows x cols",
            "posterior_budget": "1-1000000000 (work bound of the exact oracle)",
            "process_reward": "progress (settled potential difference) | verdict (VPR's scores)",
            "safe_reveal_reward": "a number (reveal with P(mine) = 0)",
            "certain_flag_reward": "a number (flag with P(mine) = 1)",
            "guess_reward": "a number (lowest-P reveal when nothing is safe)",
            "other_reveal_reward": "a number (any other reveal)",
            "uncertain_flag_reward": "a number (flag with P(mine) < 1)",
            "win_reward": "a number (the outcome of a cleared board)",
            "preset": "null | vpr",
        },
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
        kwargs_doc={
            "opponent": "random | optimal",
            "agent_first": "true | false | random",
            "optimal_reward": "a number > legal_reward (a move keeping the minimax value)",
            "legal_reward": "a number < optimal_reward (any other legal move)",
            "success_reward": "a number (the outcome of a successful game)",
            "max_invalid": "1-100000",
            "preset": "null | vpr",
        },
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
        kwargs_doc={
            "mode": "text | browser",
            "split": "test | eval | train",
            "goal_index": "null (seed % split size) | 0 to split size - 1",
            "num_products": "100-1200000",
            "gamma": "a number in (0, 1]",
            "viewport_width": "null (1024) | 320-3840; browser mode",
            "viewport_height": "null (768) | 240-2160; browser mode",
            "timeout_ms": "null (10000) | 1000-120000; browser mode",
            "full_navigation": "null (false) | true | false; browser mode",
            "render_mode": "null | ansi | rgb_array (browser mode)",
        },
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
        kwargs_doc={
            "role": "buyer | seller | random",
            "opponent": "any | tough | fair | boulware | conceder | tit-for-tat | random",
            "max_rounds": "1-50",
            "process_weight": "a number >= 0 (scale of the per-offer process reward)",
            "max_invalid": "1-100000",
        },
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
        kwargs_doc={
            "firms": "2-8",
            "strategies": "mixed | cost-plus | undercutter | amplifier",
            "rate": "1-100",
            "capacity": "1-100",
            "rounds": "1-1000",
            "process_weight": "a number >= 0 (summed process reward = this x outcome)",
            "max_invalid": "1-100000",
        },
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
        kwargs_doc={
            "role": "buyer | seller",
            "sybils": "3 | 6 | 9",
            "honest": "1-12",
            "buyers": "0-12",
            "rounds": "1-20",
            "inspect_cost": "a number >= 0 (money; rewards divide by 100)",
            "flag_reward": "a number >= 0",
            "wrong_flag_penalty": "a number >= 0",
            "welfare_weight": "a number >= 0",
            "process_weight": "a number >= 0 (bound on the summed guardian process reward)",
        },
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
        kwargs_doc={
            "task_type": "any | pick_and_place_simple | look_at_obj_in_light | "
                         "pick_clean_then_place_in_recep | pick_heat_then_place_in_recep | "
                         "pick_cool_then_place_in_recep | pick_two_obj_and_place",
            "split": "train | seen | unseen (unseen: room layouts never in train)",
            "gamma": "a number in (0, 1] (discount of the shaping reward)",
            "planner_nodes": "1-10000000 (states one oracle search may expand)",
            "max_steps": "1-100000",
            "max_invalid": "1-100000",
        },
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
        kwargs_doc={
            "task": "null (the split's task seed % n) | a bundled id (agentgym tasks list) | "
                    "a task directory",
            "split": "train | test",
            "backend": "auto | docker | bwrap",
            "gamma": "a number in (0, 1]",
            "max_steps": "null (the task's [agent].max_steps) | 1-100000",
        },
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
        kwargs_doc={
            "corpus": "null (the seeded world) | example | a JSONL file of {id, title, text}",
            "questions": "null | a JSONL file of {question, answers, gold_ids?} (with corpus)",
            "split": "train (worlds 1000+) | test (worlds 0-3); the seeded world only",
            "top_k": "1-10",
            "max_searches": "1-20",
            "min_hops": "1-3",
            "max_hops": "min_hops-3",
            "namesakes": "true | false",
            "described": "true | false",
            "paraphrase": "true | false",
            "comparison": "true | false",
            "scale": "1-742 (world size; 270 is about 100,000 passages; 742 uses every city name)",
            "max_steps": "1-100000",
            "max_invalid": "1-100000",
        },
        splits=(TaskSplit("test", kwargs={"split": "test"}, start=0, count=200,
                          description="the 200 questions of the 4 test worlds, once each"),),
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
