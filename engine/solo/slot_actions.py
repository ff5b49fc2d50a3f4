"""SOLO actions under hidden hands (docs/hidden-hands.md section 9): cards named by slot.

A card laid is written with its slot, ``CARD@SLOT``; a card that stays hidden (a Gift's) by its
slot alone. Otherwise the notation is ``engine/solo/actions.py``'s:

=========================  ====================================================
``R7@12``                  play the card of slot 12, a red 7 (its proof is public)
``wild@40:B``              a Wild naming blue
``Rswap@3:2``              Swap hands with seat 2
``Rgift@5:2:17,23``        Gift to seat 2 the cards of slots 17 and 23 (only the
                           giver and seat 2 learn them); ``Rgift@5:2:17``, ``Rgift@5:2``
``R7@12+G7@30+B7@31``      multiples: first and last as laid, the middle in canonical
                           order (card, then slot)
``R7@12!``                 any play with the SOLO call made with it
=========================  ====================================================

Words: ``draw``, ``keep`` (end the turn after a draw: always needed, whether or not the
drawn card fits), ``solo``, ``catch:3``, ``decline``, and the two answers only the asked
seat gives when the round waits on its hidden hand: ``owed`` (it owes a SOLO call it did
not make) and ``clear`` (it does not).
"""

from __future__ import annotations

from dataclasses import dataclass

from cardtable.engine.errors import ParseError
from cardtable.engine.solo.actions import CALL, DECLINE, DRAW, KEEP, Catch, Simple
from cardtable.engine.solo.cards import COLOURS, Card, parse_card

OWED = Simple("owed")
CLEAR = Simple("clear")
_WORDS = {a.word: a for a in (DRAW, KEEP, CALL, DECLINE, OWED, CLEAR)}
MAX_SLOT_DIGITS = 5


@dataclass(slots=True, unsafe_hash=True)
class SlotPlay:
    """Lay the cards of ``slots`` (``cards``: their proven faces) with the play's decisions.

    A value, never changed once made; not a frozen dataclass only because every play applied
    builds one and a frozen one costs three times as much to build (as python-chess's Move)."""

    cards: tuple[Card, ...]
    slots: tuple[int, ...]
    colour: str | None = None
    target: int | None = None
    gift: tuple[int, ...] = ()
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
        text = "+".join(f"{c.text}@{s}" for c, s in zip(self.cards, self.slots, strict=True))
        if self.colour is not None:
            text += f":{self.colour}"
        if self.target is not None:
            text += f":{self.target}"
            if self.gift:
                text += ":" + ",".join(str(s) for s in self.gift)
        return text + ("!" if self.call else "")


SlotAction = SlotPlay | Simple | Catch


def slot_multiples(laid: list[tuple[Card, int]], call: bool = False) -> SlotPlay:
    """Multiples in canonical form: first and last as given, the middle sorted."""
    first, *middle, last = laid
    ordered = [first, *sorted(middle, key=lambda cs: (cs[0].index, cs[1])), last]
    return SlotPlay(tuple(c for c, _ in ordered), tuple(s for _, s in ordered), call=call)


def parse_slot_action(text: str) -> SlotAction:
    """The hidden-hands action written as ``text`` (see the module docstring)."""
    if not isinstance(text, str) or not text.strip():
        raise ParseError("an action is a non-empty text such as R7@12, wild@40:B, draw")
    raw = text.strip()
    if raw in _WORDS:
        return _WORDS[raw]
    try:
        if raw.startswith("catch:"):
            return Catch(_number(raw[6:], 2, "seat"))
        return _parse_play(raw)
    except ParseError as err:
        raise ParseError(f"{raw!r} is not a hidden-hands SOLO action: {err}") from None


def _parse_play(raw: str) -> SlotPlay:
    call = raw.endswith("!")
    body = raw[:-1] if call else raw
    if "+" in body:
        laid = [_laid(t) for t in body.split("+")]
        if len(laid) < 3 or any(not c.number for c, _ in laid):
            raise ParseError("multiples are 3 or more number cards joined by +")
        if len({c.number for c, _ in laid}) != 1:
            raise ParseError("multiples must all show the same number")
        play = slot_multiples(laid, call)
        _distinct_slots(play.slots)
        return play
    head, *parts = body.split(":")
    card, slot = _laid(head)
    if card.rank in ("wild", "wd4"):
        if len(parts) != 1 or parts[0] not in COLOURS:
            raise ParseError(f"{card} names a colour: {head}:R")
        return SlotPlay((card,), (slot,), colour=parts[0], call=call)
    if card.rank == "swap":
        if len(parts) != 1:
            raise ParseError(f"a Swap names a seat: {head}:2")
        return SlotPlay((card,), (slot,), target=_number(parts[0], 2, "seat"), call=call)
    if card.rank == "gift":
        if len(parts) not in (1, 2):
            raise ParseError(f"a Gift names a seat and the slots it gives: {head}:2:17,23")
        gift: tuple[int, ...] = ()
        if len(parts) == 2:
            gift = tuple(sorted(_number(t, MAX_SLOT_DIGITS, "slot") for t in parts[1].split(",")))
        if len(gift) > 2:
            raise ParseError("a Gift gives at most 2 cards")
        _distinct_slots((slot, *gift))
        return SlotPlay((card,), (slot,), target=_number(parts[0], 2, "seat"), gift=gift, call=call)
    if parts:
        raise ParseError(f"{card} takes no colour or target")
    return SlotPlay((card,), (slot,), call=call)


def _laid(text: str) -> tuple[Card, int]:
    face, at, slot = text.partition("@")
    if not at:
        raise ParseError(f"a card laid is written with its slot: {text}@12")
    return parse_card(face), _number(slot, MAX_SLOT_DIGITS, "slot")


def _distinct_slots(slots: tuple[int, ...]) -> None:
    if len(set(slots)) < len(slots):
        raise ParseError("a slot is named twice")


def _number(text: str, digits: int, what: str) -> int:
    if not text.isdigit() or len(text) > digits:
        raise ParseError(f"{text!r} is not a {what} number")
    return int(text)
