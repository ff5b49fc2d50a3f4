"""SCOUT cards (docs/rules.md 2.1): 45 double-valued cards, and the deck in play per player count.

A card in a hand has an orientation: ``Card(up, down)``, written ``"7/3"`` (7 counts, 3 is
the hidden lower half). A card's identity is its unordered pair of values, ``card.pair``.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from cardtable.engine.errors import ParseError

VALUES = range(1, 11)

#: The canonical unshuffled deck: one card per pair ``a < b`` of values 1..10, in
#: lexicographic order (1,2), (1,3), ..., (1,10), (2,3), ..., (9,10). 45 cards.
DECK: tuple[tuple[int, int], ...] = tuple((a, b) for a in VALUES for b in VALUES if a < b)

_CARD = re.compile(r"(10|[1-9])/(10|[1-9])")


class Card(NamedTuple):
    """A card as it lies in a hand or on the table: ``up`` counts, ``down`` is the other value."""

    up: int
    down: int

    def __str__(self) -> str:
        return f"{self.up}/{self.down}" if self.up else "?"

    @property
    def pair(self) -> tuple[int, int]:
        """The card's identity: its two values, lower first."""
        return (self.up, self.down) if self.up < self.down else (self.down, self.up)

    def turned(self) -> Card:
        """The same card the other way up."""
        return Card(self.down, self.up)


UNKNOWN = Card(0, 0)
"""A card of another seat's hand that this machine cannot see (hidden hands), written ``?``."""


def parse_card(text: str) -> Card:
    """``"7/3"`` -> ``Card(7, 3)``; two distinct values 1..10, the up value first."""
    m = _CARD.fullmatch(text) if isinstance(text, str) else None
    if m is None:
        raise ParseError(f"bad card {text!r}: expected UP/DOWN with values 1..10, e.g. '7/3'")
    up, down = int(m.group(1)), int(m.group(2))
    if up == down:
        raise ParseError(f"bad card {text!r}: the two values of a card differ")
    return Card(up, down)


def deck_in_play(players: int) -> list[tuple[int, int]]:
    """The cards in play for ``players`` seats, in canonical order (docs/rules.md 2.1).

    2 and 4 players remove the 9/10 card (44 cards); 3 players remove every card with a
    10 (36 cards); 5 players use all 45.
    """
    if players == 3:
        return [p for p in DECK if p[1] != 10]
    if players in (2, 4):
        return [p for p in DECK if p != (9, 10)]
    return list(DECK)
