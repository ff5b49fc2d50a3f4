"""SOLO actions and their text notation (also their wire form).

Plays (the card text, then the decisions that travel with it, ``!`` last for a SOLO call):

=====================  ===================================================
``R7``                 play one card (in turn, as a jump-in, or a Protection)
``wild:B``             a Wild naming blue (``wd4:G`` likewise)
``Rswap:2``            Swap hands with seat 2
``Rgift:2:R3,G5``      Gift to seat 2 the cards R3 and G5 (one or none if
                       that is all the hand has left: ``Rgift:2:R3``, ``Rgift:2``)
``R7+G7+B7``           multiples: the first card must fit, the last is the new
                       top; the middle is written in canonical order
``R7!``                any play with the SOLO call made with it
=====================  ===================================================

Other actions: ``draw`` (draw a card, or take a pending penalty), ``keep`` (keep the
card just drawn and end the turn), ``solo`` (a late SOLO call, ``window`` mode),
``catch:3`` (catch seat 3 for a missed call), ``decline`` (do not play a Protection in
a reaction window).
"""

from __future__ import annotations

from dataclasses import dataclass

from cardtable.engine.errors import ParseError
from cardtable.engine.solo.cards import COLOURS, Card, parse_card


@dataclass(frozen=True, slots=True)
class Play:
    """Lay one card (or multiples) with every decision that belongs to the play."""

    cards: tuple[Card, ...]
    colour: str | None = None
    target: int | None = None
    gift: tuple[Card, ...] = ()
    call: bool = False

    @property
    def card(self) -> Card:
        """The first card laid (the one that must fit)."""
        return self.cards[0]

    @property
    def top(self) -> Card:
        """The last card laid: the new top of the discard pile."""
        return self.cards[-1]

    def __str__(self) -> str:
        text = "+".join(c.text for c in self.cards)
        if self.colour is not None:
            text += f":{self.colour}"
        if self.target is not None:
            text += f":{self.target}"
            if self.gift:
                text += ":" + ",".join(c.text for c in self.gift)
        return text + ("!" if self.call else "")


@dataclass(frozen=True, slots=True)
class Simple:
    """An action that is one word: ``draw``, ``keep``, ``solo``, ``decline``."""

    word: str

    def __str__(self) -> str:
        return self.word


@dataclass(frozen=True, slots=True)
class Catch:
    """Catch ``target`` for a SOLO call they did not make."""

    target: int

    def __str__(self) -> str:
        return f"catch:{self.target}"


Action = Play | Simple | Catch

DRAW = Simple("draw")
KEEP = Simple("keep")
CALL = Simple("solo")
DECLINE = Simple("decline")
_WORDS = {a.word: a for a in (DRAW, KEEP, CALL, DECLINE)}


def multiples(cards: list[Card], call: bool = False) -> Play:
    """Multiples in canonical form: first and last as given, the middle sorted."""
    first, *middle, last = cards
    return Play((first, *sorted(middle), last), call=call)


def parse_action(text: str) -> Action:
    """The action written as ``text`` (see the module docstring)."""
    if not isinstance(text, str) or not text.strip():
        raise ParseError("an action is a non-empty text such as R7, wild:B, draw")
    raw = text.strip()
    if raw in _WORDS:
        return _WORDS[raw]
    try:
        if raw.startswith("catch:"):
            return Catch(_seat(raw[6:]))
        return _parse_play(raw)
    except ParseError as err:
        raise ParseError(f"{raw!r} is not a SOLO action: {err}") from None


def _parse_play(raw: str) -> Play:
    call = raw.endswith("!")
    body = raw[:-1] if call else raw
    if "+" in body:
        cards = [parse_card(t) for t in body.split("+")]
        if len(cards) < 3 or any(not c.number for c in cards):
            raise ParseError("multiples are 3 or more number cards joined by +")
        if len({c.number for c in cards}) != 1:
            raise ParseError("multiples must all show the same number")
        return multiples(cards, call)
    head, *parts = body.split(":")
    card = parse_card(head)
    if card.rank in ("wild", "wd4"):
        if len(parts) != 1 or parts[0] not in COLOURS:
            raise ParseError(f"{card} names a colour: {card}:R, {card}:G, {card}:B or {card}:Y")
        return Play((card,), colour=parts[0], call=call)
    if card.rank == "swap":
        if len(parts) != 1:
            raise ParseError(f"a Swap names a seat: {card}:2")
        return Play((card,), target=_seat(parts[0]), call=call)
    if card.rank == "gift":
        if len(parts) not in (1, 2):
            raise ParseError(f"a Gift names a seat and its cards: {card}:2:R3,G5")
        gift = tuple(sorted(parse_card(t) for t in parts[1].split(","))) if len(parts) == 2 else ()
        if len(gift) > 2:
            raise ParseError("a Gift gives at most 2 cards")
        return Play((card,), target=_seat(parts[0]), gift=gift, call=call)
    if parts:
        raise ParseError(f"{card} takes no colour or target")
    return Play((card,), call=call)


def _seat(text: str) -> int:
    if not text.isdigit() or len(text) > 2:
        raise ParseError(f"{text!r} is not a seat number")
    return int(text)
