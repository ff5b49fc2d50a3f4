"""Talk at a table: chat lines (``["say", text]``) and quick emotes (``["emote", name]``).

Both are log entries like any other (signed by their author, ordered, replicated, sealed with
the table's passphrase on the wire) that change nothing but the talk: no seat, no turn, no
match, no digest. Every machine checks them alike when it applies them (``refusal``) and keeps
the rate bound (``Bound``) from the log alone, so every screen shows the same lines.

A line holds only what a screen shows as it is: no control or format character (a terminal
escape, a bidi control, a zero-width one), no line break or separator (a forged line of its
own), at most ``MAX_MARKS`` combining marks on a character. ``printable`` is the one place that
makes names and lines fit for a screen or a log: it folds what a line may not hold, wherever it
comes from (a name, which nothing refuses; a line in an old log or from a modified machine).

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


MAX_MARKS = 3
"""Combining marks a chat line may stack on one character: accents, Vietnamese's two (``ế``
typed as ``e`` + ``◌̂`` + ``◌́``), Hebrew points, a keycap emoji's; a longer run (a wall of marks
spilling over the lines above and below) is refused, and shown cut to this many."""
BREAKS = frozenset("\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029")
"""What some viewer starts a new line at (``str.splitlines`` splits at each): with one, a
member's line could show a forged line of its own ("gg\u2028cardtable: p0 held the round up")."""
REFUSALS = {
    "break": "a chat line is one line: no line breaks or separators",
    "format": "a chat line may not hold invisible format characters (bidi controls, zero-width ones)",
    "control": "a chat line may not hold control characters",
}
"""Why a chat line is refused, by the class of its first character that no screen shows as is."""


def printable(text: str) -> str:
    """``text`` as any screen or log may show it, the one place that does (names and lines from
    other machines never reach a screen raw): a line break or separator becomes a space, control
    and format characters (terminal escapes, bidi controls, zero-width ones) go, and a run of
    combining marks is cut to ``MAX_MARKS``. What ``text_refusal`` refuses in a line, this folds
    (in a name, which nothing refuses, or in a line an old log or a modified machine holds)."""
    shown: list[str] = []
    marks = 0  # combining marks on the last character shown
    for ch in text:
        hidden = _hidden(ch)
        if hidden == "break":
            ch = " "
        elif hidden:
            continue
        marks = marks + 1 if _mark(ch) else 0
        if marks <= MAX_MARKS:
            shown.append(ch)
    return "".join(shown)


def _hidden(ch: str) -> str:
    """The class of a character no screen shows as is (a key of ``REFUSALS``), "" for the others."""
    category = unicodedata.category(ch)
    if ch in BREAKS or category in ("Zl", "Zp"):
        return "break"
    if category == "Cf":
        return "format"
    return "control" if category[0] == "C" else ""  # Cc, Cs, Co, Cn


def _mark(ch: str) -> bool:
    return unicodedata.category(ch)[0] == "M"  # Mn, Mc, Me


def _longest_marks(text: str) -> int:
    longest = run = 0
    for ch in text:
        run = run + 1 if _mark(ch) else 0
        longest = max(longest, run)
    return longest


def text_refusal(text: Any) -> str:
    """Why ``text`` is not a chat line ("" if it is)."""
    if not isinstance(text, str):
        return "a chat line is text"
    hidden = next((kind for kind in map(_hidden, text) if kind), "")
    if hidden:
        return REFUSALS[hidden]
    if _longest_marks(text) > MAX_MARKS:
        return f"a chat line stacks at most {MAX_MARKS} combining marks on a character"
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
