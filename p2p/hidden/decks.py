"""The decks a hidden deal starts from: the engine's canonical orders, as card names."""

from __future__ import annotations

from cardtable.engine.scout.cards import deck_in_play
from cardtable.engine.solo.cards import deck


def solo_names(gifts: bool, protection: bool) -> tuple[str, ...]:
    """The SOLO deck in its canonical order (engine/solo/cards.py), one name per copy."""
    return tuple(card.text for card in deck(gifts, protection))


def scout_names(players: int) -> tuple[str, ...]:
    """The SCOUT cards in play for ``players``, canonical order, lower value first ("3/7")."""
    return tuple(f"{a}/{b}" for a, b in deck_in_play(players))
