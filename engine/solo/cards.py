"""SOLO cards: the faces, their text, their points, and the decks of both editions.

A card is one of 63 faces, interned, so identical cards compare equal and are the same
object. Text: numbers ``R1``..``Y9``; coloured actions ``Rskip``, ``Rrev``, ``Rd2``
(Draw 2), ``Rswap`` (Swap hands), ``Rgift``; black cards ``wild``, ``wd4`` (Wild Draw 4),
``pass`` (Pass hands) and ``protR``..``protY`` (Protection, named by its lightning colour).
"""

from __future__ import annotations

from collections.abc import Iterable

from cardtable.engine.errors import ParseError

COLOURS = ("R", "G", "B", "Y")
COLOUR_NAMES = {"R": "red", "G": "green", "B": "blue", "Y": "yellow"}
NUMBERS = tuple(str(v) for v in range(1, 10))
ACTIONS = ("skip", "rev", "d2", "swap", "gift")
BLACKS = ("wild", "wd4", "pass")
POINTS = {"rev": 10, "skip": 20, "d2": 30, "swap": 30, "gift": 30,
          "pass": 40, "wild": 40, "prot": 40, "wd4": 50}


class Card:
    """One face. Use ``parse_card`` or ``CARDS``; never construct one directly."""

    __slots__ = ("index", "colour", "rank", "text", "black", "number", "points")

    def __init__(self, index: int, colour: str | None, rank: str) -> None:
        self.index = index
        self.colour = colour  # the card's colour; Protection: its lightning colour
        self.rank = rank  # "1".."9", an action name, or a black card name
        self.black = rank in BLACKS or rank == "prot"
        self.number = int(rank) if rank in NUMBERS else 0
        self.points = self.number or POINTS[rank]
        if rank == "prot":
            self.text = f"prot{colour}"
        else:
            self.text = rank if colour is None else f"{colour}{rank}"

    def __repr__(self) -> str:
        return f"Card({self.text})"

    def __str__(self) -> str:
        return self.text

    def __lt__(self, other: Card) -> bool:
        return self.index < other.index

    def __reduce__(self) -> tuple[object, tuple[str]]:
        return (parse_card, (self.text,))


def _faces() -> list[Card]:
    specs: list[tuple[str | None, str]] = []
    for colour in COLOURS:
        specs += [(colour, r) for r in NUMBERS + ACTIONS]
    specs += [(None, r) for r in BLACKS]
    specs += [(colour, "prot") for colour in COLOURS]
    return [Card(i, c, r) for i, (c, r) in enumerate(specs)]


FACES: tuple[Card, ...] = tuple(_faces())
CARDS: dict[str, Card] = {card.text: card for card in FACES}


def parse_card(text: str) -> Card:
    """The card named by ``text`` (``R7``, ``Gskip``, ``wd4``, ``protY``, ...)."""
    try:
        return CARDS[text]
    except KeyError:
        raise ParseError(f"{text!r} is not a SOLO card (try R7, Gskip, Bd2, wild, protY)") from None


def card(text: str) -> Card:
    """Shorthand for ``parse_card``."""
    return parse_card(text)


def deck(gifts: bool, protection: bool) -> list[Card]:
    """The canonical unshuffled deck.

    Order: for each colour R, G, B, Y: the numbers 1-9, then 1-9 again; Skip, Reverse,
    Draw 2, Skip, Reverse, Draw 2; Swap hands; Gift (if ``gifts``). Then four Wild, four
    Wild Draw 4, four Pass hands, and (if ``protection``) Protection R, G, B, Y.
    Classic: 112 cards; anniversary (both flags): 120.
    """
    out: list[Card] = []
    for colour in COLOURS:
        out += [CARDS[colour + n] for n in NUMBERS] * 2
        out += [CARDS[colour + a] for a in ("skip", "rev", "d2")] * 2
        out.append(CARDS[colour + "swap"])
        if gifts:
            out.append(CARDS[colour + "gift"])
    for name in BLACKS:
        out += [CARDS[name]] * 4
    if protection:
        out += [CARDS["prot" + colour] for colour in COLOURS]
    return out


def cards_text(cards: Iterable[Card]) -> str:
    """Cards as comma-separated text."""
    return ",".join(c.text for c in cards)


def hand_points(cards: Iterable[Card]) -> int:
    """The points of cards left in a hand at the end of a round."""
    return sum(c.points for c in cards)
