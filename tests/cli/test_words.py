"""Words for players: counts agree with their nouns."""

from __future__ import annotations

from cardtable.cli.player_words import Note, words
from cardtable.cli.words import plural

NAMES = ["you", "cpu 1", "cpu 2"]


def test_plural() -> None:
    assert [plural(n, "card") for n in (0, 1, 2)] == ["0 cards", "1 card", "2 cards"]
    assert plural(1, "game") == "1 game" and plural(3, "entry", "entries") == "3 entries"


def test_gifts_and_pass_hands_read_as_english() -> None:
    one = words(Note("gift", 2, "", {"target": 0, "count": 1}), 0, NAMES)
    assert one == "cpu 2 (seat 2) gives 1 card to you"
    two = words(Note("gift", 0, "", {"target": 1, "count": 2}), 0, NAMES)
    assert two == "You give 2 cards to cpu 1 (seat 1)"
    for seat in (0, 2):
        said = words(Note("pass", seat, "", {"count": 3}), 0, NAMES)
        assert said == "Every hand passes on to the next player (3 hands)"


def test_a_players_name_that_begins_an_event_keeps_its_case() -> None:
    """An event the client has no words for is told in the engine's words, capitalized, except
    when a player's name begins it (``bea left: ...`` stays bea)."""
    names = ["you", "bea", "cpu 2"]
    text = "bea left: the other machines rebuild its part of the deal"
    assert words(Note("rebuild", None, text), 0, names) == text
    assert words(Note("dealt", None, "the cards are dealt"), 0, names) == "The cards are dealt"
