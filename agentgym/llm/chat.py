"""Multi-turn chat prompts as token ids, built once and only ever appended to.

A chat template renders a whole conversation as one string. Re-rendering (and re-tokenising)
the conversation at every turn is where trainers go wrong: templates that drop or rewrite
earlier turns, BPE merges across a boundary, and the model's own sampled ids replaced by a
re-encoding of their decoded text. :class:`ChatTokens` instead splits the tokenizer's template
once into its pieces (the system turn, the opening and closing of a user turn, the assistant
generation prefix, the end of an assistant turn; see :class:`ChatPieces`) and then *appends*:

* ``add_user(text)`` tokenises only the new user turn;
* ``prompt_ids()`` is everything so far plus the assistant generation prefix;
* ``add_assistant(completion_ids)`` appends the generation prefix, the sampled ids verbatim,
  and the end-of-turn ids.

So the ids of every turn are a prefix of the next turn's, and ``agent_mask`` is 1 on exactly
the ids the sampler produced. (``history_turns=N`` is the one exception to appending: it keeps
the last N exchanges, and the prompt is rebuilt from their stored ids when the oldest drops
out.) A tokenizer without a chat template gets
:data:`FALLBACK_PIECES`, a fixed plain-text layout.

>>> from agentgym.llm.models import byte_tokenizer
>>> tok = byte_tokenizer()
>>> chat = ChatTokens(tok, "Play.")
>>> chat.add_user("board 1")
>>> first = chat.prompt_ids()
>>> print(tok.decode(first))
<|im_start|>system
Play.<|im_end|>
<|im_start|>user
board 1<|im_end|>
<|im_start|>assistant
<BLANKLINE>
>>> chat.add_assistant(tok.encode("<action>a</action>"))
>>> chat.add_user("board 2")
>>> chat.prompt_ids()[: len(first)] == first
True
>>> tok.decode([i for i, m in zip(chat.ids, chat.agent_mask) if m])
'<action>a</action>'
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

__all__ = ["FALLBACK_PIECES", "ChatPieces", "ChatTokens", "chat_pieces"]

# Probe contents: plain letters survive every template (no stripping, no escaping).
_SYSTEM, _USER1, _ASSISTANT, _USER2 = "QSYSTEMQ", "QUSERONEQ", "QASSISTANTQ", "QUSERTWOQ"


@dataclass(frozen=True)
class ChatPieces:
    """The fixed strings a chat template puts around each turn's content.

    A conversation renders as ``first_user_open.format(system=S) + U1 + user_close``, then
    for each reply ``generation_prefix + A + assistant_close + user_open + U + user_close``,
    and the prompt ends with ``generation_prefix``. ``first_user_open`` holds the system
    turn (it is one piece because some templates put the system text inside the first user
    turn). ``matches_template`` says whether these pieces reproduce the template's own
    rendering of a two-turn chat; False means the template rewrites earlier turns, and the
    pieces (what the model is trained on) then follow its rendering of the latest turn.
    """

    first_user_open: str
    user_open: str
    user_close: str
    generation_prefix: str
    assistant_close: str
    matches_template: bool = True


#: The layout for a tokenizer without a chat template (``{eos}`` is its end-of-sequence text).
FALLBACK_PIECES = ChatPieces(
    first_user_open="### System\n{system}\n\n### User\n",
    user_open="### User\n",
    user_close="\n\n",
    generation_prefix="### Assistant\n",
    assistant_close="{eos}\n\n",
)


def _render(tokenizer: Any, messages: list[dict[str, str]], generation: bool) -> str:
    return tokenizer.apply_chat_template(
        messages, tokenize=False, add_generation_prompt=generation
    )


def _after(text: str, marker: str) -> str:
    return text[text.index(marker) + len(marker) :]


def chat_pieces(tokenizer: Any) -> ChatPieces:
    """Split ``tokenizer``'s chat template into :class:`ChatPieces` by rendering probe chats.

    >>> from agentgym.llm.models import byte_tokenizer
    >>> pieces = chat_pieces(byte_tokenizer())
    >>> pieces.user_open, pieces.generation_prefix, pieces.assistant_close
    ('<|im_start|>user\\n', '<|im_start|>assistant\\n', '<|im_end|>\\n')
    """
    if not getattr(tokenizer, "chat_template", None):
        eos = tokenizer.eos_token or ""
        return ChatPieces(
            first_user_open=FALLBACK_PIECES.first_user_open,
            user_open=FALLBACK_PIECES.user_open,
            user_close=FALLBACK_PIECES.user_close,
            generation_prefix=FALLBACK_PIECES.generation_prefix,
            assistant_close=FALLBACK_PIECES.assistant_close.format(eos=eos),
        )
    system = {"role": "system", "content": _SYSTEM}
    user1 = {"role": "user", "content": _USER1}
    reply = {"role": "assistant", "content": _ASSISTANT}
    user2 = {"role": "user", "content": _USER2}
    one_turn = _render(tokenizer, [system, user1], False)
    prompt = _render(tokenizer, [system, user1], True)
    replied = _render(tokenizer, [system, user1, reply], False)
    two_turns = _render(tokenizer, [system, user1, reply, user2], True)
    try:
        head = one_turn[: one_turn.index(_USER1)]
        user_close = _after(one_turn, _USER1)
        generation_prefix = _after(prompt, _USER1)[len(user_close) :]
        assistant_close = _after(replied, _ASSISTANT)
        before = two_turns[: two_turns.index(_USER2)]
        if _ASSISTANT in before:
            user_open = _after(before, _ASSISTANT)[len(assistant_close) :]
        else:  # the template drops earlier replies: the user turn starts after the last close
            user_open = before[before.rindex(assistant_close) + len(assistant_close) :]
    except ValueError:
        raise ValueError(
            "the tokenizer's chat template drops turn contents; cannot build chat tokens from it"
        ) from None
    if _SYSTEM not in head:
        raise ValueError("the tokenizer's chat template ignores the system message")
    first_user_open = head.replace("{", "{{").replace("}", "}}").replace(_SYSTEM, "{system}")
    pieces = ChatPieces(
        first_user_open=first_user_open,
        user_open=user_open,
        user_close=user_close,
        generation_prefix=generation_prefix,
        assistant_close=assistant_close,
    )
    rebuilt = (
        head + _USER1 + user_close + generation_prefix + _ASSISTANT + assistant_close
        + user_open + _USER2 + user_close + generation_prefix
    )
    if rebuilt != two_turns or not prompt.startswith(one_turn):
        pieces = ChatPieces(**{**pieces.__dict__, "matches_template": False})
    return pieces


class ChatTokens:
    """One conversation as token ids, appended turn by turn (never re-rendered).

    ``ids`` is the conversation so far; ``agent_mask`` has one entry per id, 1 exactly on
    the ids given to :meth:`add_assistant` (the sampled completions), 0 on everything the
    template or the env wrote. Turns alternate: ``add_user``, ``add_assistant``, ``add_user``...
    ``history_turns`` (None: the whole conversation) keeps only the last N exchanges in the
    prompt; 0 answers each observation alone, which is enough (and far shorter) when the
    observation shows the whole state, as the games' boards do.

    >>> from agentgym.llm.models import byte_tokenizer
    >>> chat = ChatTokens(byte_tokenizer(), "S")
    >>> chat.add_assistant([5])
    Traceback (most recent call last):
    ...
    ValueError: add_assistant must follow add_user (turns alternate, starting with the user)
    """

    def __init__(
        self,
        tokenizer: Any,
        system: str,
        *,
        pieces: ChatPieces | None = None,
        history_turns: int | None = None,
    ) -> None:
        if not isinstance(system, str):
            raise ValueError(f"system must be a str, got {type(system).__name__}")
        if history_turns is not None and (
            isinstance(history_turns, bool) or not isinstance(history_turns, int)
            or history_turns < 0
        ):
            raise ValueError(f"history_turns must be None or an int >= 0, got {history_turns!r}")
        self.tokenizer = tokenizer
        self.system = system
        self.history_turns = history_turns
        self.pieces = pieces if pieces is not None else chat_pieces(tokenizer)
        self._generation_ids = self._encode(self.pieces.generation_prefix)
        self._close_ids = self._encode(self.pieces.assistant_close)
        self._special = set(getattr(tokenizer, "all_special_ids", ()) or ())
        self.ids: list[int] = []
        self.agent_mask: list[int] = []
        self.turns = 0  # user turns added
        self._awaiting_reply = False
        # The turns in the prompt now, as (user text, completion ids or None): what a sliding
        # window rebuilds the prompt from once it drops the oldest turn.
        self._window: list[tuple[str, list[int] | None]] = []

    def _encode(self, text: str) -> list[int]:
        return list(self.tokenizer.encode(text, add_special_tokens=False)) if text else []

    def _append(self, ids: Sequence[int], mask: int) -> None:
        self.ids.extend(int(i) for i in ids)
        self.agent_mask.extend([mask] * len(ids))

    def _append_user(self, text: str, first: bool) -> None:
        opening = self.pieces.first_user_open.format(system=self.system) if first else (
            self.pieces.user_open
        )
        self._append(self._encode(opening + text + self.pieces.user_close), 0)

    def _append_reply(self, completion: list[int]) -> None:
        close = self._close_ids
        if completion and close and close[0] in self._special and completion[-1] == close[0]:
            close = close[1:]
        self._append(self._generation_ids, 0)
        self._append(completion, 1)
        self._append(close, 0)

    def add_user(self, text: str) -> None:
        """Append one user turn (only its own tokens are encoded).

        With ``history_turns=N`` the prompt keeps the system turn and only the last ``N``
        (observation, reply) pairs before this one; the oldest pair drops out and the first
        one kept opens with the system turn. The sampled ids stay verbatim; only the env's
        text of the new first turn is encoded again (with the system turn in front of it).

        >>> from agentgym.llm.models import byte_tokenizer
        >>> tok = byte_tokenizer()
        >>> chat = ChatTokens(tok, "S", history_turns=0)
        >>> chat.add_user("board 1"); chat.add_assistant(tok.encode("<action>a</action>"))
        >>> chat.add_user("board 2")
        >>> print(tok.decode(chat.prompt_ids()))
        <|im_start|>system
        S<|im_end|>
        <|im_start|>user
        board 2<|im_end|>
        <|im_start|>assistant
        <BLANKLINE>
        """
        if self._awaiting_reply:
            raise ValueError("add_user must follow add_assistant (turns alternate)")
        if not isinstance(text, str):
            raise ValueError(f"a user turn must be a str, got {type(text).__name__}")
        self._window.append((text, None))
        if self.history_turns is not None and len(self._window) > self.history_turns + 1:
            # The window slides: rebuild the prompt from the turns it still holds.
            del self._window[: len(self._window) - self.history_turns - 1]
            self.ids, self.agent_mask = [], []
            for i, (user, completion) in enumerate(self._window):
                self._append_user(user, first=i == 0)
                if completion is not None:
                    self._append_reply(completion)
        else:
            self._append_user(text, first=self.turns == 0)
        self.turns += 1
        self._awaiting_reply = True

    def prompt_ids(self) -> list[int]:
        """Everything so far plus the assistant generation prefix: what the sampler reads."""
        if not self._awaiting_reply:
            raise ValueError("prompt_ids needs a user turn to answer (call add_user first)")
        return [*self.ids, *self._generation_ids]

    def add_assistant(self, completion_ids: Sequence[int]) -> None:
        """Append the generation prefix, the sampled ids verbatim, and the end-of-turn ids.

        A completion that already ends with the end-of-turn token (the model sampled it) is
        not given a second one.
        """
        if not self._awaiting_reply:
            raise ValueError(
                "add_assistant must follow add_user (turns alternate, starting with the user)"
            )
        completion = [int(i) for i in completion_ids]
        self._window[-1] = (self._window[-1][0], completion)
        self._append_reply(completion)
        self._awaiting_reply = False

    def __len__(self) -> int:
        return len(self.ids)
