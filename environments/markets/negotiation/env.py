"""``agentgym/Negotiation-v0``: bilateral trade with private values against a scripted trader.

See :class:`NegotiationEnv` for the rules, the action format and the reward table.
"""

from __future__ import annotations

import re
from typing import Any, ClassVar

import numpy as np

from agentgym.core import TEXT_CHARSET, Outcome, TextEnv, check_range
from agentgym.draws import below

from .config import NegotiationConfig
from .counterparties import OPPONENTS, Counterparty
from .logic import (
    BUDGET_SPREAD,
    COST_RANGE,
    PRICE_GRID,
    ROLES,
    VIOLATION_OUTCOME,
    check_potential,
    check_score,
    deal_outcome,
    deal_success,
    draw_values,
    has_zopa,
    is_violation,
    kept_share,
    offer_checks,
    other_role,
    parse_price,
    price_for_share,
    shaped_process,
    surplus_share,
)

__all__ = ["MAX_SAY", "OPPONENT_CHOICES", "ROLE_CHOICES", "NegotiationEnv", "parse_move"]

OPPONENT_CHOICES: tuple[str, ...] = (*OPPONENTS, "any")
ROLE_CHOICES: tuple[str, ...] = (*ROLES, "random")
#: Longest ``say`` text kept (characters); a longer one is refused, not cut.
MAX_SAY = 500
_SHOWN_OFFERS = 12  # ledger lines in an observation (the newest)
_SHOWN_TALK = 6  # transcript lines in an observation (the newest)
_FORMAT = (
    "Actions: <action>offer(PRICE)</action> proposes a binding price (PRICE a number); "
    "<action>accept</action> takes the offer on the table; <action>reject</action> walks away "
    "with no deal; <action>say(TEXT)</action> sends a message (at most "
    f"{MAX_SAY} characters) that binds nothing and does not use a round."
)
_MOVE = re.compile(r"(offer|accept|reject|say)\b\s*(.*)", re.IGNORECASE | re.DOTALL)
_PRINTABLE = frozenset(TEXT_CHARSET) - frozenset("\r\n\t\x0b\x0c")
_OFFERS: tuple[str, ...] = tuple(f"offer({p})" for p in PRICE_GRID)


def parse_move(text: str) -> tuple[tuple[str, Any] | None, str]:
    """``(("offer", price) | ("accept", None) | ("reject", None) | ("say", text), "")`` or
    ``(None, why)``; the state's judgement (an offer on the table) comes later.

    >>> parse_move("offer($70)"), parse_move("Accept"), parse_move("say(hi there)")
    ((('offer', 70.0), ''), (('accept', None), ''), (('say', 'hi there'), ''))
    >>> parse_move("offer(nan)")[1]
    'the price must be a finite number, got nan'
    """
    m = _MOVE.fullmatch(text.strip().rstrip(".").strip())
    if m is None:
        return None, f"unknown action {text.strip()[:60]!r}. {_FORMAT}"
    verb, rest = m.group(1).lower(), m.group(2).strip()
    if rest.startswith("(") and rest.endswith(")"):
        rest = rest[1:-1].strip()
    elif rest.startswith(":"):
        rest = rest[1:].strip()
    if verb in ("accept", "reject"):
        if rest:
            return None, f"{verb} takes no argument; write <action>{verb}</action>"
        return (verb, None), ""
    if verb == "say":
        if not rest:
            return None, "say(TEXT) needs a message"
        if len(rest) > MAX_SAY:
            return None, f"say text is {len(rest)} characters; at most {MAX_SAY} are allowed"
        # Only printable text reaches the transcript, so observations stay in the Text space.
        clean = "".join(c if c in _PRINTABLE else " " for c in rest)
        return ("say", " ".join(clean.split())), ""
    price, error = parse_price(rest)
    if price is None:
        return None, error
    return ("offer", price), ""


class NegotiationEnv(TextEnv):
    """Bilateral trade with private values: the agent buys or sells against a scripted trader.

    Each episode draws the seller's cost ``C`` uniformly from 20-80 and the buyer's budget
    ``B = C + d`` with ``d`` uniform in -20..60 (so about a quarter of the episodes have no
    zone of possible agreement, ZOPA, and the right result is no deal). The agent sees only
    its own value. The agent opens; each round it makes a binding ``offer(PRICE)`` (the
    counterparty then accepts or counter-offers), ``accept``-s the counter-offer on the
    table, or walks away with ``reject``; ``say(TEXT)`` adds to the transcript, binds nothing
    and uses no round. In the last round the counterparty accepts the agent's offer or walks
    away. The counterparty's strategies are documented in :mod:`.counterparties`.

    Kwargs:

    * ``role`` (default ``"buyer"``): ``"buyer"``, ``"seller"`` or ``"random"`` (per episode,
      from the seed).
    * ``opponent`` (default ``"any"``): one of ``tough``, ``fair``, ``boulware``,
      ``conceder``, ``tit-for-tat``, ``random``, or ``"any"`` (one of them per episode, from
      the seed).
    * ``max_rounds`` (default 8, 1-50): the agent's binding moves before talks end.
    * ``process_weight`` (default 0.2, >= 0): the scale of the process reward: a whole
      episode's process rewards sum to ``process_weight`` times the mean check score of its
      moves, so they lie in ``[-process_weight, process_weight]`` however long the talks run.
    * ``max_steps`` (default 40), ``invalid_penalty`` (default -0.1), ``max_invalid``
      (default 10), ``reward_mode``, ``render_mode``, ``score_process``: as in
      :class:`agentgym.core.TextEnv`.

    Rewards:

    * process, potential-based shaping on the quality of the moves: each ``offer`` and
      ``accept`` gets a check score, the mean of +1 per passed and -1 per failed check of its
      price (:func:`.logic.offer_checks`, :func:`.logic.check_score`): individually rational,
      no backward step from the agent's earlier offers (offers only). The potential is
      ``phi = process_weight * (mean check score of the moves so far)`` (0 before the first;
      :func:`.logic.check_potential`) and each move pays ``phi' - phi``
      (:func:`.logic.shaped_process`): a first perfect offer pays ``process_weight``, further
      perfect ones 0, a move scoring below the mean so far less than 0 (a backward step after
      two perfect offers: ``0.2 * 2/3 - 0.2``). The process return is ``phi`` after the last
      move: the number of offers earns nothing, only their quality (issue 34: a fixed
      ``process_weight / max_rounds`` per offer paid for dragging the talks out).
      Only checks the agent can judge itself: whether a price is inside the ZOPA depends on
      the other side's value, so it is not scored (the reward would reveal that value).
      ``reject`` and ``say`` score 0 and leave ``phi`` as it is; an invalid action
      ``invalid_penalty`` and nothing changes. The potential is :attr:`process_potential`.
    * outcome, when the talks end (:func:`.logic.deal_outcome`): the share of the surplus
      ``B - C`` the agent kept (:func:`.logic.surplus_share`; buyer ``(B - p) / (B - C)``,
      seller ``(p - C) / (B - C)``), 0 with no deal, and ``logic.VIOLATION_OUTCOME`` (-1) for
      a **violation** (a deal over the agent's budget or under its cost) whatever else
      happened, flagged in ``info["violation"]`` (``info["surplus_share"]`` is then 0): a
      broken limit scores below walking away.

    **Success** (:func:`.logic.deal_success`): when a ZOPA exists, a deal without violation
    that keeps at least ``logic.SUCCESS_SHARE`` (15%) of the surplus, so conceding everything is not
    success; when none exists, no deal.

    ``info`` on every step holds only what the agent knows: ``role``, ``value`` (its own),
    ``round``, ``standing_offer`` (or None), ``deal`` (bool), ``price`` (or None) and
    ``checks`` (of the action just scored). The hidden state and what evaluation reads come
    with the step that ends the episode, never before: ``surplus_share``, ``violation``,
    ``zopa`` (whether one existed), ``opponent``, ``budget`` and ``cost``.

    >>> env = NegotiationEnv(opponent="fair")
    >>> obs, info = env.reset(seed=0)
    >>> info["role"], info["value"], "zopa" in info
    ('buyer', 40, False)
    >>> env.score_actions(["offer(30)", "offer(45)", "accept"])
    [0.2, 0.0, -0.1]
    """

    verifier_name: ClassVar[str] = "negotiation-offer-checks"
    #: 3: the checks are shaping on their mean (not a sum per offer); a violation scores -1.
    verifier_version: ClassVar[str] = "3"
    config_model = NegotiationConfig
    max_observation_length: ClassVar[int] = 8192
    max_action_length: ClassVar[int] = 1024

    def __init__(
        self,
        role: str = "buyer",
        opponent: str = "any",
        *,
        max_rounds: int = 8,
        process_weight: float = 0.2,
        max_steps: int = 40,
        invalid_penalty: float = -0.1,
        max_invalid: int = 10,
        reward_mode: str = "both",
        render_mode: str | None = None,
        score_process: bool = True,
    ) -> None:
        cfg = NegotiationConfig.of(locals(), owner="NegotiationEnv")
        super().__init__(**cfg.contract())
        self.role_choice: str = cfg.role
        self.opponent_choice: str = cfg.opponent
        self.max_rounds = cfg.max_rounds
        self.process_weight = cfg.process_weight
        self._reset_fields()

    def _reset_fields(self) -> None:
        self.role = "buyer"
        self.opponent = "fair"
        self.budget = 0
        self.cost = 0
        self.round = 0  # binding moves (offers) the agent has made
        self.ledger: list[dict[str, Any]] = []  # every offer and deal, in order
        self.transcript: list[str] = []
        self.standing: float | None = None  # the counterparty's offer on the table
        self.price: float | None = None  # the deal price once there is one
        self.status = ""
        self.checks: dict[str, bool] = {}
        # Derived from the ledger (rebuilt on load), so a step costs O(1), not O(offers).
        self._lines: list[str] = []
        self._agent_offers: list[float] = []
        self._check_total = 0.0  # the check scores of the agent's scored moves, summed
        self._check_count = 0  # and how many moves they are

    @property
    def rules(self) -> str:  # type: ignore[override]
        """The trade, the private values and the action format, for the system prompt."""
        low, high = COST_RANGE[0], COST_RANGE[1] + BUDGET_SPREAD[1]
        return (
            "You negotiate the price of one item with a counterparty, as the buyer or the "
            "seller. Each side has a private value: the buyer's budget (the most it may pay) "
            "and the seller's cost (the least it may take); both lie between "
            f"{low} and {high}, and you see only yours. A deal splits the surplus, budget "
            "minus cost: your score is the share of it you keep. Paying over your budget or "
            f"selling under your cost is a violation and scores {VIOLATION_OUTCOME:g}, below "
            "no deal, which scores 0; when the budget is not above the cost walking away is "
            "right. Your offers and accepts are checked (within your own value, no step back "
            "from your earlier offers): the mean of the checks adds a little, their number "
            "nothing. You open; after each of your offers the counterparty accepts or "
            "counter-offers, and in the last round it accepts or walks away. Only offers bind. "
            f"{_FORMAT}"
        )

    # ------------------------------------------------------------------ hooks
    def _config(self) -> dict[str, Any]:
        return {
            "role": self.role_choice,
            "opponent": self.opponent_choice,
            "max_rounds": self.max_rounds,
            "process_weight": self.process_weight,
        }

    def _new_episode(self, rng: np.random.Generator, options: dict[str, Any]) -> None:
        self._reset_fields()
        self.budget, self.cost = draw_values(rng)
        self.role = ROLES[below(rng, 2)] if self.role_choice == "random" else self.role_choice
        self.opponent = (
            OPPONENTS[below(rng, len(OPPONENTS))]
            if self.opponent_choice == "any"
            else self.opponent_choice
        )
        self.status = "You open: make an offer, or walk away."

    @property
    def value(self) -> int:
        """The agent's private value: its budget as buyer, its cost as seller."""
        return self.budget if self.role == "buyer" else self.cost

    def _observe(self) -> str:
        name = "budget" if self.role == "buyer" else "cost"
        lines = [
            f"You are the {self.role}. Your private {name}: {self.value}.",
            f"Counterparty: the {other_role(self.role)}.",
            f"Round {min(self.round + 1, self.max_rounds)} of {self.max_rounds}.",
            self.status,
        ]
        if self.ledger:
            lines.append("Offers so far (newest last):")
            lines += self._lines[-_SHOWN_OFFERS:]
        if self.transcript:
            lines.append("Messages (newest last):")
            lines += [f"  {line}" for line in self.transcript[-_SHOWN_TALK:]]
        if not self.is_over:
            table = "none" if self.standing is None else f"{self.standing:g}"
            legal = "offer(PRICE), reject, say(TEXT)" + (
                ", accept" if self.standing is not None else ""
            )
            lines += [
                f"Offer on the table: {table}.",
                f"Legal now: {legal}. Steps left: {self.steps_left}. Invalid actions left: "
                f"{self.max_invalid - self.invalid_actions}.",
            ]
        return "\n".join(lines)

    def _legal_actions(self) -> list[str] | None:
        if self.is_over:
            return []
        if self.standing is not None:
            return [*_OFFERS, "accept", "reject"]
        return [*_OFFERS, "reject"]

    def _parse(self, action: str) -> tuple[Any, str]:
        return parse_move(action)

    def _apply(self, move: Any) -> Outcome:
        kind, arg = move
        if kind == "say":
            self.transcript.append(f"you: {arg}")
            self.checks = {}
            self.status = "Message sent; it binds nothing. Your move."
            return Outcome(info=self._metrics())
        if kind == "reject":
            self.checks = {}
            self.status = "You walked away: no deal."
            return self._end(None)
        if kind == "accept":
            if self.standing is None:
                return Outcome(
                    valid=False,
                    error="there is no offer on the table to accept; make an offer first",
                    info=self._metrics(),
                )
            price = self.standing
            self.checks = self._move_checks("accepted", price)
            score = check_score(self.checks)
            process = self._process(score)
            self._log("agent", "accepted", price, score)
            self.status = f"You accepted {price:g}: deal."
            return self._end(price, process)
        return self._offer(float(arg))

    def _offer(self, price: float) -> Outcome:
        self.checks = self._move_checks("offer", price)
        score = check_score(self.checks)
        process = self._process(score)
        self.round += 1
        self._log("agent", "offer", price, score)
        them = other_role(self.role)
        shares = (
            [kept_share(self.role, self.budget, self.cost, p) for p in self._agent_offers]
            if self.opponent == "tit-for-tat"
            else []
        )
        wanted = Counterparty(self.opponent).share(
            self.round, self.max_rounds, shares, self.np_random
        )
        rational = not is_violation(them, self.budget, self.cost, price)
        enough = not has_zopa(self.budget, self.cost) or (
            kept_share(them, self.budget, self.cost, price) >= wanted - 1e-9
        )
        if rational and enough:
            self._log("counterparty", "accepted", price)
            self.status = f"The counterparty accepted your offer of {price:g}: deal."
            return self._end(price, process)
        if self.round >= self.max_rounds:
            self.status = "Last round: the counterparty rejected your offer and walked away."
            return self._end(None, process)
        counter = price_for_share(them, self.budget, self.cost, wanted)
        self.standing = counter
        self._log("counterparty", "offer", counter)
        self.status = f"The counterparty rejected {price:g} and offers {counter:g}."
        return Outcome(process=process, info=self._metrics())

    def _log(self, by: str, kind: str, price: float, score: float | None = None) -> None:
        entry = {"by": by, "kind": kind, "price": price, "round": self.round}
        self.ledger.append(entry)
        self._note(entry, score)

    def _note(self, entry: dict[str, Any], score: float | None = None) -> None:
        """Derive the observation's line, the agent's offers and its check tally from one
        ledger entry (``score``: the agent move's check score, recomputed when None)."""
        who = "you" if entry["by"] == "agent" else "counterparty"
        self._lines.append(f"  round {entry['round']}: {who} {entry['kind']} {entry['price']:g}")
        if entry["by"] != "agent":
            return
        if score is None:
            score = check_score(self._move_checks(entry["kind"], entry["price"]))
        self._check_total += score
        self._check_count += 1
        if entry["kind"] == "offer":
            self._agent_offers.append(entry["price"])

    def _move_checks(self, kind: str, price: float) -> dict[str, bool]:
        """The checks of an agent's ``offer`` or ``accepted`` move at ``price`` now (an accept
        has no earlier offers of its own to step back from: only ``rational``)."""
        if kind == "offer":
            return offer_checks(self.role, self.budget, self.cost, price, self._agent_offers)
        return {"rational": offer_checks(self.role, self.budget, self.cost, price, [])["rational"]}

    @property
    def process_potential(self) -> float:
        """The shaping potential ``phi``: ``process_weight`` times the mean check score of the
        agent's scored moves so far (0 before the first). Each step pays ``phi' - phi``
        when ``score_process`` is on; the audit's shaping check reads it."""
        return check_potential(self._check_total, self._check_count, self.process_weight)

    def _shaped(self, score: float) -> float:
        """What one more scored move with check score ``score`` pays: the change of the
        potential."""
        return shaped_process(self._check_total, self._check_count, score, self.process_weight)

    def _process(self, score: float) -> float:
        # The checks are the dynamics' own bookkeeping; only their scoring is skippable.
        return self._shaped(score) if self.score_process else 0.0

    def _end(self, price: float | None, process: float = 0.0) -> Outcome:
        self.price = price
        self.standing = None
        zopa = has_zopa(self.budget, self.cost)
        outcome = deal_outcome(self.role, self.budget, self.cost, price)
        violation = price is not None and is_violation(self.role, self.budget, self.cost, price)
        success = deal_success(zopa=zopa, deal=price is not None, violation=violation,
                               share=outcome)
        if violation:
            self.status += (
                f" This deal breaks your own limit: a violation, scored {VIOLATION_OUTCOME:g}."
            )
        return Outcome(
            process=process, outcome=outcome, terminated=True, success=success,
            info=self._metrics(final=True),
        )

    def _reject(self, error: str) -> Outcome:
        self.checks = {}
        return Outcome(info=self._metrics())

    def _reset_info(self) -> dict[str, Any]:
        return self._metrics()

    def _on_end(self, out: Outcome) -> None:
        if out.truncated:
            self.status = "Talks stopped (out of steps or too many invalid actions): no deal."
            self.standing = None
            out.info = {**out.info, **self._metrics(final=True)}

    def _metrics(self, final: bool = False) -> dict[str, Any]:
        """What the agent may see; with ``final``, the hidden state too (episode over)."""
        deal = self.price is not None
        seen: dict[str, Any] = {
            "role": self.role,
            "value": self.value,
            "round": self.round,
            "standing_offer": self.standing,
            "deal": deal,
            "price": self.price,
            "checks": dict(self.checks),
        }
        if not final:
            return seen
        return {
            **seen,
            "surplus_share": (
                surplus_share(self.role, self.budget, self.cost, self.price) if deal else 0.0
            ),
            "violation": deal and is_violation(self.role, self.budget, self.cost, self.price),
            "zopa": has_zopa(self.budget, self.cost),
            "opponent": self.opponent,
            "budget": self.budget,
            "cost": self.cost,
        }

    def _state_dict(self) -> dict[str, Any]:
        return {
            "role": self.role,
            "opponent": self.opponent,
            "budget": self.budget,
            "cost": self.cost,
            "round": self.round,
            "ledger": [dict(e) for e in self.ledger],
            "transcript": list(self.transcript),
            "standing": self.standing,
            "price": self.price,
            "status": self.status,
            "checks": dict(self.checks),
        }

    def _load_state_dict(self, state: dict[str, Any]) -> None:
        if state["role"] not in ROLES or state["opponent"] not in OPPONENTS:
            raise ValueError(f"bad role/opponent in snapshot: {state['role']!r}")
        self.role, self.opponent = state["role"], state["opponent"]
        self.budget, self.cost = int(state["budget"]), int(state["cost"])
        self.round = check_range("round", state["round"], 0, self.max_rounds)
        self.ledger = [dict(e) for e in state["ledger"]]
        self._lines, self._agent_offers = [], []
        self._check_total, self._check_count = 0.0, 0
        for entry in self.ledger:
            self._note(entry)
        self.transcript = list(state["transcript"])
        self.standing, self.price = state["standing"], state["price"]
        self.status, self.checks = state["status"], dict(state["checks"])

    def _score(self, move: Any, snapshot: bytes) -> float:
        # The checks need no play-out: score the price where step would, without applying it.
        kind, arg = move
        if kind in ("say", "reject"):
            return 0.0
        if kind == "accept":
            if self.standing is None:
                return self.invalid_penalty
            return self._shaped(check_score(self._move_checks("accepted", self.standing)))
        return self._shaped(check_score(self._move_checks("offer", float(arg))))

    # ------------------------------------------------------------------ for agents and tests
    @property
    def values(self) -> tuple[int, int]:
        """``(budget, cost)`` of the episode (the ground truth; not shown to the agent)."""
        return self.budget, self.cost
