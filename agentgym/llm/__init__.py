"""Generate with a local language model: loading, chat token building and sampling.

One place for "generate with a local model", shared by the trainers and LLM agents (needs
the ``train`` extra: torch and transformers).

* :mod:`agentgym.llm.models`: :func:`load_model` (``"tiny-random"``, ``"smollm2"`` or a path)
  and :func:`save_model` (GGUF-loaded models included);
* :mod:`agentgym.llm.chat`: :class:`ChatTokens`, multi-turn prompts as token ids that are only
  ever appended to, with the mask of the agent's own tokens;
* :mod:`agentgym.llm.sampler`: :class:`Sampler`, :class:`TransformersSampler`,
  :func:`make_sampler`: ids and log-probs exactly as sampled, a ``</action>`` stop, seeded.

>>> from agentgym.llm import ChatTokens, TransformersSampler, load_model
>>> model, tokenizer = load_model("tiny-random")
>>> chat = ChatTokens(tokenizer, "Answer with <action>X</action>.")
>>> chat.add_user("Your move.")
>>> sample = TransformersSampler(model, tokenizer).generate(
...     [chat.prompt_ids()], max_new_tokens=3, seed=0)[0]
>>> chat.add_assistant(sample.completion_ids)
>>> sum(chat.agent_mask) == len(sample.completion_ids) == len(sample.logprobs)
True
"""

from agentgym.llm.chat import FALLBACK_PIECES, ChatPieces, ChatTokens, chat_pieces
from agentgym.llm.models import (
    byte_tokenizer,
    load_model,
    save_model,
    smollm2_gguf_path,
    tiny_random_model,
)
from agentgym.llm.sampler import Sample, Sampler, TransformersSampler, make_sampler, stop_index

__all__ = [
    "FALLBACK_PIECES",
    "ChatPieces",
    "ChatTokens",
    "Sample",
    "Sampler",
    "TransformersSampler",
    "byte_tokenizer",
    "chat_pieces",
    "load_model",
    "make_sampler",
    "save_model",
    "smollm2_gguf_path",
    "stop_index",
    "tiny_random_model",
]
