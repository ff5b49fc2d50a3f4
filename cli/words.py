"""Words for players: counts with their nouns, and (see ``event_words``) what happened."""

from __future__ import annotations


def plural(n: int, noun: str, nouns: str | None = None) -> str:
    """``1 card``, ``2 cards``, ``0 cards`` (``nouns`` for an irregular plural)."""
    return f"{n} {noun}" if n == 1 else f"{n} {nouns or noun + 's'}"
