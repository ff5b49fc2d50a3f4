"""SCOUT actions and their text notation.

``str(action)`` is the text and wire form; ``parse_action(text)`` reads it back, and the two
round-trip exactly. Hand indices are 0-based from the left end of the hand as it lies (after
any whole-hand turn); numbers are written in plain decimal without leading zeros (an index
has at most 3 digits).

``flip``
    Turn the whole hand around at the start of the round (docs/rules.md 2.2.2): every card's
    values swap and the hand order reverses.
``keep``
    Keep the hand as dealt.
``show:I``
    Show the single card at hand index ``I``.
``show:I-J``
    Show the cards at hand indices ``I..J`` inclusive, ``I < J`` (a set or a run).
``scout:E:V@P``
    Scout the card at end ``E`` of the active set (``L`` left or ``R`` right), turned so that
    value ``V`` is up, and insert it at hand index ``P`` (``0`` = left end, ``len(hand)`` =
    right end). Example: ``scout:R:9@0``. A one-card set is scouted as ``L`` only.
``scout:E:V@P+show:I-J`` / ``scout:E:V@P+show:I``
    Scout & Show (3-5 players, once per round): the scout, then at once the show, whose
    indices refer to the hand after the insertion.
``pass``
    Pass instead of showing or scouting, which ends the round (two players, only with the
    option ``voluntary_pass``; docs/rules.md 2.7.4).

Malformed text raises ``ParseError`` naming the text and the reason. Whether a well-formed
action is legal is for the round state to say.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from cardtable.engine.errors import ParseError


@dataclass(frozen=True, slots=True)
class TurnChoice:
    """``flip`` (turn the whole hand around) or ``keep``, once per seat at the round start."""

    flip: bool

    def __str__(self) -> str:
        return "flip" if self.flip else "keep"


FLIP = TurnChoice(True)
KEEP = TurnChoice(False)


@dataclass(frozen=True, slots=True)
class Show:
    """Show the hand cards at indices ``first..last`` inclusive."""

    first: int
    last: int

    def __str__(self) -> str:
        if self.first == self.last:
            return f"show:{self.first}"
        return f"show:{self.first}-{self.last}"


@dataclass(frozen=True, slots=True)
class Scout:
    """Take the ``end`` ("L" or "R") card of the active set, ``value`` up, into hand index ``pos``."""

    end: str
    value: int
    pos: int

    def __str__(self) -> str:
        return f"scout:{self.end}:{self.value}@{self.pos}"


@dataclass(frozen=True, slots=True)
class ScoutShow:
    """Scout & Show: ``scout``, then ``show`` (indices into the hand after the insertion)."""

    scout: Scout
    show: Show

    def __str__(self) -> str:
        return f"{self.scout}+{self.show}"


@dataclass(frozen=True, slots=True)
class Pass:
    """Pass instead of showing or scouting (option ``voluntary_pass``): the round ends."""

    def __str__(self) -> str:
        return "pass"


PASS = Pass()

Action = TurnChoice | Show | Scout | ScoutShow | Pass

_IDX = r"(0|[1-9][0-9]{0,2})"
_SHOW = rf"show:{_IDX}(?:-{_IDX})?"
_SCOUT = rf"scout:([LR]):(10|[1-9])@{_IDX}"
_SHOW_RE = re.compile(_SHOW)
_SCOUT_RE = re.compile(rf"{_SCOUT}(?:\+({_SHOW}))?")


def _parse_show(text: str, whole: str) -> Show:
    m = _SHOW_RE.fullmatch(text)
    if m is None:
        raise ParseError(f"bad action {whole!r}: expected show:I or show:I-J")
    first = int(m.group(1))
    if m.group(2) is None:
        return Show(first, first)
    last = int(m.group(2))
    if first >= last:
        raise ParseError(f"bad action {whole!r}: show:I-J needs I < J (write show:I for one card)")
    return Show(first, last)


def parse_action(text: str) -> Action:
    """The action written as ``text`` in the notation above; ParseError if malformed."""
    if not isinstance(text, str):
        raise ParseError(f"bad action {text!r}: expected text")
    if text == "flip":
        return FLIP
    if text == "keep":
        return KEEP
    if text == "pass":
        return PASS
    if text.startswith("show:"):
        return _parse_show(text, text)
    if text.startswith("scout:"):
        m = _SCOUT_RE.fullmatch(text)
        if m is None:
            raise ParseError(
                f"bad action {text!r}: expected scout:E:V@P with E in L/R, V in 1..10, "
                "P a hand index, optionally followed by +show:I or +show:I-J"
            )
        scout = Scout(m.group(1), int(m.group(2)), int(m.group(3)))
        if m.group(4) is None:
            return scout
        return ScoutShow(scout, _parse_show(m.group(4), text))
    raise ParseError(f"bad action {text!r}: expected flip, keep, show:..., scout:... or pass")
