"""Talk at a table: chat lines (``["say", text]``) and quick emotes (``["emote", name]``).

Both are log entries like any other (signed by their author, ordered, replicated, sealed with
the table's passphrase on the wire) that change nothing but the talk: no seat, no turn, no
match, no digest. Every machine checks them alike when it applies them (``refusal``) and keeps
the rate bound (``Bound``) from the log alone, so every screen shows the same lines.

The rate bound counts log entries, not seconds (the log holds no clock all machines agree
on): an author holds at most ``BURST`` lines, spends one per line, and gets one back with each
entry of the log that is not its own line (a move, anyone else's line, a seat change ...).
So a flood of one member adds at most one line per other entry (plus ``BURST``) to the log,
two people talking take turns freely, and a member alone at a quiet table says ``BURST``
lines and then waits for something else to happen.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Container
from typing import Any

KINDS = ("say", "emote")
MAX_TEXT = 200
"""Characters of a chat line (after stripping spaces at both ends)."""
MAX_BYTES = 600
"""UTF-8 bytes of a chat line on the wire (so that its entry fits in one sealed APPEND)."""
BURST = 5
"""Lines an author may say in a row before another entry comes."""
EMOTES = {
    "hi": "waves hello",
    "gg": "says good game",
    "nice": "says nice move",
    "wow": "is impressed",
    "oops": "says oops",
    "thinking": "is thinking...",
}
"""The quick emotes: name -> the words shown after the author's name."""


def printable(text: str) -> str:
    """``text`` without control or format characters (terminal escapes, bidi overrides ...),
    for any screen: names and lines from others never reach a terminal raw."""
    return "".join(ch for ch in text if not _control(ch))


def _control(ch: str) -> bool:
    return unicodedata.category(ch)[0] == "C"  # Cc, Cf, Cs, Co, Cn


def text_refusal(text: Any) -> str:
    """Why ``text`` is not a chat line ("" if it is)."""
    if not isinstance(text, str):
        return "a chat line is text"
    if any(_control(ch) for ch in text):
        return "a chat line may not hold control characters"
    if not text.strip():
        return "an empty chat line"
    if len(text.strip()) > MAX_TEXT or len(text.encode()) > MAX_BYTES:
        return f"a chat line holds at most {MAX_TEXT} characters ({MAX_BYTES} bytes)"
    return ""


def payload_refusal(payload: list[Any]) -> str:
    """Why a ``say`` or ``emote`` payload is not well formed ("" if it is)."""
    if len(payload) != 2:
        return "malformed payload"
    if payload[0] == "emote":
        return "" if payload[1] in EMOTES else f"no such emote (there are: {', '.join(EMOTES)})"
    return text_refusal(payload[1])


def line(name: str, payload: list[Any]) -> str:
    """The words a screen shows for a well formed chat entry by ``name``."""
    who = printable(name) or "someone"
    if payload[0] == "emote":
        return f"{who} {EMOTES[payload[1]]}"
    return f"{who}: {printable(payload[1]).strip()}"


class Bound:
    """The per-author rate bound, kept from the log alone (see the module docstring)."""

    def __init__(self) -> None:
        self.entries = 0  # entries seen
        self.lines: dict[bytes, int] = {}  # author -> its chat entries seen (said or refused)
        self.held: dict[bytes, tuple[int, int]] = {}  # author -> (lines held, others seen then)

    def _others(self, author: bytes) -> int:
        return self.entries - self.lines.get(author, 0)

    def tokens(self, author: bytes) -> int:
        """Lines ``author`` may say now."""
        held, seen = self.held.get(author, (BURST, 0))
        return min(BURST, held + self._others(author) - seen)

    def saw(self, author: bytes, kind: str) -> None:
        """One more entry in the log (call before applying it)."""
        self.entries += 1
        if kind in KINDS:
            self.lines[author] = self.lines.get(author, 0) + 1

    def spend(self, author: bytes) -> None:
        """``author``'s line is said: one line fewer held."""
        self.held[author] = (self.tokens(author) - 1, self._others(author))


def refusal(author: bytes, payload: list[Any], members: Container[bytes], bound: Bound) -> str:
    """Why a chat entry by ``author`` is refused now ("" if it is not): its shape, membership,
    the rate bound."""
    reason = payload_refusal(payload)
    if reason:
        return reason
    if author not in members:
        return "only the table's members talk"
    if bound.tokens(author) < 1:
        return f"{BURST} lines in a row: wait for a move or another player's line"
    return ""
