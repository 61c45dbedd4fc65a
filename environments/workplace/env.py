"""``agentgym/Workplace-v0``: a service agent with tools, a written policy, a database and a
scripted user (tau-bench's setting, reproducible; ``user="llm"`` has a model word the
scripted user's replies, :mod:`.voice`).

An episode is a generated task (:mod:`.tasks`) of one domain: retail orders, travel
bookings, or an IT helpdesk with dual control. The user opens with a goal; the agent calls
tools (``<tool_call>{"name": ..., "arguments": {...}}</tool_call>``) on the SQLite database
or writes to the user (``<message>...</message>``), and ends with the
``end_conversation`` tool.

Rewards:

* outcome 1.0 when the conversation ends with the domain's tables equal to the gold end
  state (a SHA-256 of every row), every required fact told to the user (a refund amount, a
  profile name), and no policy rule broken in the ledger of writes; the three parts are in
  ``info["reward_components"]`` on the last step (``db_match``, ``facts_told``, ``policy``);
* process ``gamma * phi(s') - phi(s)``, potential-based shaping applied by
  :class:`~agentgym.core.TextEnv` with ``phi`` (:meth:`WorkplaceEnv._shaping_potential`) the share
  of the gold plan's cell changes the database holds, 0 once a rule is broken; the base's
  end rule counts the last state as the outcome (1 solved, 0 not), so with ``gamma = 1`` an
  episode's process rewards sum to its success. Undoing and redoing a change nets 0; a
  change the gold plan lacks does not raise ``phi``.

>>> env = WorkplaceEnv(domain="retail")
>>> obs, info = env.reset(seed=0)
>>> print(obs.splitlines()[1])
User: Hi, I want to cancel one of my orders.
>>> while True:
...     obs, reward, terminated, truncated, info = env.step(env.oracle_actions()[0])
...     if terminated or truncated:
...         break
>>> info["success"], info["reward_components"]["db_match"]
(True, 1.0)
"""

from __future__ import annotations

import itertools
import json
import sqlite3
from typing import Any, ClassVar

import numpy as np

from agentgym.core import TEXT_CHARSET, Outcome, TextEnv, settle, shaping
from agentgym.draws import below

from .config import WorkplaceConfig
from .domains import DOMAIN_NAMES, DOMAINS
from .session import Session
from .tasks import END, Task, confirm_text, load_task, render_step, step_done, tell_text
from .tools import check_arguments
from .turns import MAX_MESSAGE, format_call, format_message, parse_turn
from .voice import LLMVoice

__all__ = ["END_TOOL", "WorkplaceEnv"]

#: The tool that ends the conversation (scored then).
END_TOOL = {"type": "function", "function": {
    "name": "end_conversation", "description": "End the conversation; it is scored now.",
    "parameters": {"type": "object", "properties": {}, "required": [],
                   "additionalProperties": False}}}
_PER_TOOL = 24  # listed calls of one tool, at most
_PRINTABLE = frozenset(TEXT_CHARSET) - frozenset("\r\t\x0b\x0c")


def _plain(text: str) -> str:
    return "".join(c if c in _PRINTABLE else "?" for c in text)


class WorkplaceEnv(TextEnv):
    """Tool-using customer service under a written policy; see the module docstring."""

    verifier_name: ClassVar[str] = "workplace-gold-db-hash"
    # 2: confirmations only in canonical wording, a fact told only alone among its kind,
    # helpdesk rule 3 (diagnostics first) in the ledger.
    verifier_version: ClassVar[str] = "2"
    stop_sequences: ClassVar[tuple[str, ...]] = ("</tool_call>", "</message>", "</action>")
    max_action_length: ClassVar[int] = 16384
    config_model = WorkplaceConfig

    def __init__(
        self,
        domain: str = "any",
        split: str = "train",
        gamma: float = 1.0,
        *,
        reward_mode: str = "both",
        render_mode: str | None = None,
        score_process: bool = True,
        max_steps: int = 30,
        invalid_penalty: float = -0.1,
        max_invalid: int = 10,
        user: str = "scripted",
        user_base_url: str = "",
        user_model: str = "",
    ) -> None:
        cfg = WorkplaceConfig.of(locals(), owner="WorkplaceEnv")
        super().__init__(**cfg.contract())
        self.domain, self.split, self.gamma = cfg.domain, cfg.split, cfg.gamma
        self.user = cfg.user
        # The llm user words the scripted user's replies (.voice); it needs an endpoint and a
        # model now, so a missing one fails here in one line, not mid-episode.
        self.voice = LLMVoice(cfg.user_base_url, cfg.user_model) if cfg.user == "llm" else None
        self._worded = True  # False while scoring or replaying: no endpoint calls then
        self.task: Task | None = None
        self.session: Session | None = None
        self.feedback = ""

    # ------------------------------------------------------------------ text
    @property
    def rules(self) -> str:  # type: ignore[override]
        names = [self.task.domain.name] if self.task else (
            DOMAIN_NAMES if self.domain == "any" else [self.domain])
        policies = "\n\n".join(DOMAINS[n].policy for n in names)
        # A change's confirmation request is read in its canonical wording only (a negated
        # or bundled request is never a yes), so the prompt spells that wording out.
        tools = "\n".join(
            f"- {t.name}({', '.join(p.name for p in t.params)}): {t.description}"
            + (f' Confirm it as: "To confirm: I will {t.verb} ('
               + ", ".join(f"{p.name} {p.name.upper()}" for p in t.params)
               + '). Do you confirm, yes or no?"' if t.writes else "")
            for n in names for t in DOMAINS[n].tools)
        return (
            "You are a customer service agent. Each turn, do exactly one thing:\n"
            '  <tool_call>{"name": TOOL, "arguments": {...}}</tool_call>  call a tool;\n'
            "  <message>TEXT</message>  write to the user (ask, confirm, instruct, inform).\n"
            "Ids and facts come from the user and from tool results; never guess them. When "
            'the request is handled, call <tool_call>{"name": "end_conversation", '
            '"arguments": {}}</tool_call>.\n'
            f"Tools:\n{tools}\n- end_conversation(): end the conversation.\n\n{policies}"
        )

    def system_prompt(self) -> str:
        return (f"{self.rules}\n\nAnswer with exactly one <tool_call>...</tool_call> or "
                "<message>...</message> (inside <action>...</action> is accepted too).")

    def tool_schemas(self) -> list[dict[str, Any]]:
        """The episode's tools as OpenAI ``tools`` entries (``info["tools"]`` on reset)."""
        names = [self.task.domain.name] if self.task else list(DOMAIN_NAMES)
        return [t.schema() for n in names for t in DOMAINS[n].tools] + [END_TOOL]

    # ------------------------------------------------------------------ episodes
    def _new_episode(self, rng: np.random.Generator, options: dict[str, Any]) -> None:
        seed = self.episode_seed if self.episode_seed is not None else below(rng, 2**31)
        self._start(seed)
        self.feedback = f"User: {self.task.drawn.opening}"

    def _start(self, seed: int) -> None:
        name = DOMAIN_NAMES[seed % 3] if self.domain == "any" else self.domain
        if self.session is not None:
            self.session.close()
        self.task = load_task(name, self.split, seed)
        self.session = self.task.session()

    def _observe(self) -> str:
        return _plain(f"[{self.task.domain.name} support]\n{self.feedback}\n"
                      f"Steps left: {self.steps_left}.")

    def _legal_actions(self) -> list[str]:
        s, domain = self.session, self.task.domain
        listed = [format_message(f.question) for f in domain.facts]
        listed += [format_message(a.instruction) for a in domain.user_actions]
        confirms = []
        for tool in domain.tools:
            pools = [list(p.choices) if p.choices else s.known.get(p.source, [])
                     for p in tool.params]
            names = [p.name for p in tool.params]
            for combo in itertools.islice(itertools.product(*pools), _PER_TOOL):
                arguments = dict(zip(names, combo, strict=True))
                listed.append(format_call(tool.name, arguments))
                if tool.writes:
                    confirms.append(format_message(confirm_text(domain, tool.name, arguments)))
        listed += confirms
        listed += [format_message(tell_text(f, v)) for f, v in s.results]
        listed.append(END)
        return list(dict.fromkeys(listed))

    def _parse(self, text: str) -> tuple[Any, str]:
        move, error = parse_turn(text)
        if move is None or move[0] == "message":
            return move, error
        _, name, arguments = move
        if name == "end_conversation":
            if arguments:
                return None, "end_conversation takes no arguments"
            return move, ""
        tool = self.task.domain.tool(name)
        if tool is None:
            known = [t.name for t in self.task.domain.tools] + ["end_conversation"]
            return None, f"unknown tool {name[:40]!r}; the tools are {known}"
        checked, error = check_arguments(tool.params, arguments)
        return (("call", name, checked), "") if not error else (None, f"{name}: {error}")

    # ------------------------------------------------------------------ rewards
    def _shaping_potential(self) -> float:
        """``phi``: the share of the gold plan's cell changes the database holds now; 0 once
        any policy rule is broken (a broken rule cannot be undone)."""
        s, changes = self.session, self.task.changes
        if s.broken or not changes:
            return 0.0
        reached = sum(s.cell(t, pk, key, col) == gold for t, pk, key, col, gold in changes)
        return reached / len(changes)

    def _verdict(self) -> dict[str, float]:
        s, task = self.session, self.task
        told = [s.told(v) for _, v in task.required]
        return {"db_match": float(s.state_hash() == task.gold_hash),
                "facts_told": sum(told) / len(told) if told else 1.0,
                "policy": float(not s.broken)}

    def _extras(self) -> dict[str, Any]:
        extras: dict[str, Any] = {"domain": self.task.domain.name}
        if self.voice is not None:  # the default, scripted user is reproducible: no marks
            extras.update(user="llm", deterministic=False, user_fallbacks=self.voice.fallbacks)
        return extras

    def _reset_info(self) -> dict[str, Any]:
        return {**self._extras(), "tools": self.tool_schemas()}

    def _apply(self, move: Any) -> Outcome:
        # The process reward is TextEnv's shaping on _shaping_potential (and its end rule).
        self.session.moves.append(list(move))
        if move[0] == "message":
            revealed = list(self.session.revealed)
            reply = self.session.say(move[1])
            if self.voice is not None and self._worded:
                facts = [self.session.facts[n] for n in self.session.revealed
                         if n not in revealed]
                reply = self.voice.reword(self.task.drawn.opening, move[1], reply, facts)
            self.feedback = f"User: {reply}"
        elif move[1] == "end_conversation":
            return self._finish()
        else:
            result, error = self.session.call(move[1], move[2])
            self.feedback = (f"Tool {move[1]} error: {error}" if error else
                             f"Tool {move[1]} returned: {json.dumps(result)}")
        return Outcome(info=self._extras())

    def _finish(self) -> Outcome:
        parts = self._verdict()
        success = all(parts[k] == 1.0 for k in ("db_match", "facts_told", "policy"))
        self.feedback = ("Conversation ended: the request was handled." if success else
                         "Conversation ended: the request was not handled as required.")
        return Outcome(outcome=1.0 if success else 0.0, terminated=True, success=success,
                       parts=parts, info={**self._extras(), **self._end_info()})

    def _end_info(self) -> dict[str, Any]:
        # task_type (one of agentgym.metrics.EXTRA_INFO_KEYS, so eval reports success per
        # type) names the template, e.g. the helpdesk fault: only once the episode is over.
        ledger = self.session.ledger
        return {"task_type": f"{self.task.domain.name}/{self.task.template}",
                "policy_broken": self.session.broken,
                "writes": sum(e["actor"] == "agent" and e["ok"] for e in ledger)}

    def _reject(self, error: str) -> Outcome:
        self.session.moves.append(["invalid", error])
        self.feedback = f"Invalid action: {error}"
        return Outcome(info=self._extras())

    def _on_end(self, out: Outcome) -> None:
        if out.truncated:
            out.parts = {**self._verdict(), **out.parts}
            out.info.update(self._end_info())
            why = ("the step budget ran out" if out.truncated_by == "max_steps" else
                   "too many invalid actions" if out.truncated_by == "max_invalid" else
                   out.truncated_by)
            self.feedback += f" The conversation is over: {why}."

    # ------------------------------------------------------------------ oracle
    def _score(self, move: Any, snapshot: bytes) -> float:
        # Exactly what _resolve gives a legal move (TextEnv's shaping and end rule), played
        # on a copy of the session instead of a snapshot round trip.
        real, feedback = self.session, self.feedback
        self.session, self._worded = real.clone(), False
        try:
            before = self._shaping_potential()
            out = self._apply(move)
            after = self._shaping_potential()
            process = shaping(self.gamma, before, after)
            ends = out.terminated or self.steps + 1 >= self.max_steps
            if ends and out.outcome != after:
                process += settle(self.gamma, after, out.outcome)
            return process
        finally:
            self.session.close()
            self.session, self.feedback, self._worded = real, feedback, True
    def oracle_actions(self) -> list[str]:
        """The gold plan's first step not yet done (the top-scored listed action if another
        scores higher, which no state the plan reaches has)."""
        self._require_started()
        if self.is_over:
            return []
        plan = self.task.drawn.plan
        step = next((p for p in plan if p.kind == "end" or not step_done(self.session, p)),
                    plan[-1])
        action = render_step(self.task.domain, self.session, step)
        listed = self._legal_actions()
        scores = self.score_actions([action, *listed])
        if scores[0] >= max(scores[1:]) - 1e-12:
            return [action]
        return [a for a, sc in zip(listed, scores[1:], strict=True) if sc == max(scores[1:])]

    def plan(self) -> list[str]:
        """The gold plan's actions not yet done, rendered in the current state."""
        self._require_started()
        return [render_step(self.task.domain, self.session, p) for p in self.task.drawn.plan
                if p.kind == "end" or not step_done(self.session, p)]

    # ------------------------------------------------------------------ snapshots
    def _config(self) -> dict[str, Any]:
        config = {"domain": self.domain, "split": self.split, "gamma": self.gamma}
        return {**config, "user": self.user} if self.voice is not None else config

    def _state_dict(self) -> dict[str, Any]:
        # Only the task and the actions taken: set_state rebuilds everything else by replay,
        # so a snapshot from a stranger cannot carry a wiped ledger or forged rows.
        return {"seed": self.task.seed, "moves": self.session.moves}

    def _load_state_dict(self, d: dict[str, Any]) -> None:
        seed, moves = d["seed"], d["moves"]
        if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**31:
            raise ValueError(f"snapshot seed must be an int in [0, 2**31), got {seed!r}")
        if not isinstance(moves, list) or len(moves) > self.max_steps:
            raise ValueError(f"snapshot moves must be a list of at most {self.max_steps}")
        self._start(seed)
        self.feedback = f"User: {self.task.drawn.opening}"
        self._worded = False  # a replay rebuilds the state; the wording is the scripted one
        try:
            for i, move in enumerate(moves):
                self._replay(i, move)
        except sqlite3.Error as exc:
            raise ValueError(f"snapshot move does not replay: {exc}") from None
        finally:
            self._worded = True

    def _replay(self, i: int, move: Any) -> None:
        """Play one recorded move again, checked as a fresh action would be."""
        if self.session.moves and self.session.moves[-1][:2] == ["call", "end_conversation"]:
            raise ValueError(f"snapshot move {i} comes after end_conversation")
        if (isinstance(move, list) and len(move) == 2 and move[0] == "invalid"
                and isinstance(move[1], str)):
            self._reject(move[1][:MAX_MESSAGE])
            return
        if isinstance(move, list) and len(move) == 2 and move[0] == "message":
            text = format_message(move[1]) if isinstance(move[1], str) else ""
        elif (isinstance(move, list) and len(move) == 3 and move[0] == "call"
              and isinstance(move[1], str) and isinstance(move[2], dict)):
            text = format_call(move[1], move[2])
        else:
            raise ValueError(f"snapshot move {i} is not [kind, ...]: {str(move)[:80]}")
        parsed, error = self._parse(text)
        if parsed is None:
            raise ValueError(f"snapshot move {i} is not a legal action: {error}")
        self._apply(parsed)

    def close(self) -> None:
        if self.session is not None:
            self.session.close()
            self.session = None
        if self.voice is not None:
            self.voice.close()
        super().close()
