"""SOLO rules in turn: one group of tests per numbered rule of docs/rules.md 1.1-1.4, 1.6, 1.7.

Out-of-turn play (jump-ins, SOLO calls and catches, Protection windows) is in
``test_solo_windows.py``. Positions are set up with ``position(...)``, which fills a
``State.snapshot()`` dict from readable pieces: hands, piles (top card LAST) and any
other snapshot key.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest

from cardtable.engine.errors import IllegalAction, ParseError
from cardtable.engine.match import Match
from cardtable.engine.shuffle import shuffle
from cardtable.engine.solo import Config, State, deck, new_round, parse_action, parse_card
from cardtable.engine.solo.cards import FACES, hand_points
from tests.engine.solo_helpers import act, cards, hand, legal, moves, position, refused, top

SEED = b"rules"


# --- 1.1 editions and their decks -------------------------------------------------------
def test_classic_deck_has_112_cards_of_the_documented_kinds() -> None:
    counts = Counter(c.text for c in deck(gifts=False, protection=False))
    assert sum(counts.values()) == 112
    for colour in "RGBY":
        for n in range(1, 10):
            assert counts[f"{colour}{n}"] == 2
        for action in ("skip", "rev", "d2"):
            assert counts[colour + action] == 2
        assert counts[colour + "swap"] == 1
        assert counts[colour + "gift"] == 0
        assert counts["prot" + colour] == 0
    assert counts["wild"] == counts["wd4"] == counts["pass"] == 4


def test_anniversary_deck_adds_gifts_and_protections_for_120_cards() -> None:
    classic = Counter(c.text for c in deck(gifts=False, protection=False))
    anniversary = Counter(c.text for c in deck(gifts=True, protection=True))
    assert sum(anniversary.values()) == 120
    assert anniversary - classic == Counter(
        ["Rgift", "Ggift", "Bgift", "Ygift", "protR", "protG", "protB", "protY"])
    number_cards = sum(k for t, k in anniversary.items() if parse_card(t).number)
    assert number_cards == 72


@pytest.mark.parametrize(
    ("edition", "options", "size", "extra"),
    [
        ("classic", {}, 112, set()),
        ("anniversary", {}, 120, {"Rgift", "protY"}),
        ("classic", {"gifts": True}, 116, {"Bgift"}),
        ("anniversary", {"protection": False}, 116, {"Ygift"}),
    ],
)
def test_a_round_is_dealt_from_the_configured_deck(
    edition: str, options: dict[str, Any], size: int, extra: set[str]
) -> None:
    config = Config.preset(edition, 5, **options)
    state = new_round(config, SEED, 0)
    snap = state.snapshot()
    every = Counter(c for pile in [*snap["hands"], snap["draw"], snap["discard"]] for c in pile)
    assert sum(every.values()) == size
    assert every == Counter(c.text for c in deck(config.gifts, config.protection))
    assert extra <= set(every)


@pytest.mark.parametrize("hand_size", [1, 3, 8])
def test_hand_size_deals_that_many_cards_to_each_seat(hand_size: int) -> None:
    config = Config.preset("anniversary", 4, hand_size=hand_size)
    state = new_round(config, SEED, 2)
    assert [len(hand) for hand in state.hands] == [hand_size] * 4
    assert ("hand_size" in config.to_dict()) == (hand_size != 8)  # the default is left out: old logs verify
    assert Config.from_dict(config.to_dict()) == config


@pytest.mark.parametrize("bad", [0, 9, "4", True])
def test_a_bad_hand_size_is_one_line(bad: Any) -> None:
    with pytest.raises(ParseError, match="hand_size must be 1 to 8"):
        Config.preset("classic", 4, hand_size=bad)


@pytest.mark.parametrize(
    ("text", "points"),
    [("R1", 1), ("G7", 7), ("Y9", 9), ("Brev", 10), ("Rskip", 20), ("Gd2", 30), ("Yswap", 30),
     ("Bgift", 30), ("pass", 40), ("wild", 40), ("protR", 40), ("wd4", 50)],
)
def test_card_values(text: str, points: int) -> None:
    assert parse_card(text).points == points


def test_every_face_has_a_value_and_hand_points_add_up() -> None:
    assert all(c.points > 0 for c in FACES)
    assert hand_points([parse_card(t) for t in "R7 Rrev wd4 G2".split()]) == 7 + 10 + 50 + 2


def test_presets_are_sets_of_options() -> None:
    classic = Config.preset("classic", 4)
    assert (classic.gifts, classic.protection, classic.multiples, classic.call, classic.scoring,
            classic.pool) == (False, False, False, "with_play", "pool", 500)
    anniversary = Config.preset("anniversary", 4)
    assert (anniversary.gifts, anniversary.protection, anniversary.multiples, anniversary.call,
            anniversary.scoring, anniversary.threshold) == (True, True, True, "window", "penalty", 500)
    assert (anniversary.self_jump_in, anniversary.false_catch_penalty, anniversary.mixed_stacking) == (
        False, 2, False)
    mixed = Config.preset("classic", 4, gifts=True, call="window")
    assert (mixed.gifts, mixed.call, mixed.protection, mixed.scoring) == (True, "window", False, "pool")
    assert Config.from_dict(mixed.to_dict()) == mixed


@pytest.mark.parametrize("players", [2, 10])
def test_both_editions_seat_2_to_10_players(players: int) -> None:
    for edition in ("classic", "anniversary"):
        state = new_round(Config.preset(edition, players), SEED, 0)
        assert [len(h) for h in state.hands] == [8] * players


@pytest.mark.parametrize(
    "options", [{"players": 1}, {"players": 11}, {"pool": 0}, {"false_catch_penalty": -1},
                {"call": "never"}, {"colours": 5}],
)
def test_bad_rule_sets_are_refused(options: dict[str, Any]) -> None:
    players = options.pop("players", 4)
    with pytest.raises(ParseError):
        Config.preset("classic", players, **options)


# --- 1.2 setup ------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("edition", "players", "round_no"),
    [("classic", 4, 0), ("anniversary", 3, 5), ("classic", 10, 13), ("anniversary", 2, 1),
     ("anniversary", 7, 3)],
)
def test_deal_follows_the_procedure(edition: str, players: int, round_no: int) -> None:
    config = Config.preset(edition, players)
    state = new_round(config, SEED, round_no)
    # Recompute: shuffle, deal one at a time from the top (the END of the list), starting
    # left of the dealer (seat round_no % n), then turn cards until a number is on top.
    pile = shuffle(deck(config.gifts, config.protection), SEED, f"solo/round/{round_no}/deal")
    dealer = round_no % players
    expected: list[list[str]] = [[] for _ in range(players)]
    for i in range(8 * players):
        expected[(dealer + 1 + i) % players].append(pile.pop().text)
    turned = [pile.pop()]
    while not turned[-1].number:
        turned.append(pile.pop())
    assert [hand(state, s) for s in range(players)] == [sorted(h) for h in expected]
    assert [c.text for c in state.discard] == [c.text for c in turned]
    assert [c.text for c in state.draw] == [c.text for c in pile]
    assert state.turn == (dealer + 1) % players
    assert state.direction == 1
    assert state.colour == turned[-1].colour
    assert (state.penalty, state.react, state.winner) == (0, None, None)


def test_dealer_rotates_and_the_seat_left_of_the_dealer_starts() -> None:
    config = Config.preset("classic", 3)
    assert [new_round(config, SEED, r).turn for r in range(7)] == [1, 2, 0, 1, 2, 0, 1]


def _seed_turning_action_cards(config: Config) -> State:
    for i in range(500):
        state = new_round(config, b"turn%d" % i, 0)
        if any(c.rank in ("d2", "wd4", "rev", "skip") for c in state.discard):
            return state
    raise AssertionError("no seed turns an action card at setup")


@pytest.mark.parametrize("edition", ["classic", "anniversary"])
def test_action_cards_turned_at_setup_stay_in_the_discard_pile_without_effect(edition: str) -> None:
    state = _seed_turning_action_cards(Config.preset(edition, 4))
    assert len(state.discard) >= 2
    assert all(not c.number for c in state.discard[:-1])
    assert state.top.number
    assert (state.turn, state.direction, state.penalty, state.colour) == (1, 1, 0, state.top.colour)
    assert sum(len(h) for h in state.hands) == 32
    # the first player plays on the number card as usual: the turned actions do nothing
    assert "draw" in moves(state, 1)


def test_no_number_card_at_setup_means_any_card_fits_the_first_play(monkeypatch: Any) -> None:
    """1.8.11: the draw pile runs out before a number card turns up."""
    only_actions = [parse_card(t) for t in
                    "Rskip Gskip Brev Yrev Rd2 Gd2 Bswap Yswap wild pass".split()] * 2

    monkeypatch.setattr("cardtable.engine.solo.state.deck", lambda gifts, protection: list(only_actions))
    state = new_round(Config.preset("classic", 2), SEED, 0)
    assert state.draw == [] and len(state.discard) == 4
    assert not state.top.number
    assert state.colour is None and state.turn == 1
    for text in ("R1", "G9", "Bskip", "Yd2", "Rrev"):
        assert state.fits(parse_card(text))
    starter = state.hands[1]
    for c in starter:
        assert any(str(a).split(":")[0] == c.text for a in state.legal_actions(1))


def test_the_jump_in_window_opens_on_the_card_left_on_top_rule_1_8_16(monkeypatch: Any) -> None:
    """1.8.16: the draw pile runs out at setup; the card left on top opens the jump-in window
    as any laid card does: seat 0, not to move, jumps in with its twin."""
    only_actions = [parse_card(t) for t in
                    "Rskip Gskip Brev Yrev Rd2 Gd2 Bswap Yswap Rrev Bskip".split()] * 2
    monkeypatch.setattr("cardtable.engine.solo.state.deck", lambda gifts, protection: list(only_actions))
    for i in range(200):
        state = new_round(Config.preset("classic", 2), b"jump%d" % i, 0)
        if state.top in state.hands[0]:
            break
    else:
        raise AssertionError("no seed leaves seat 0 the twin of the top card")
    assert state.draw == [] and state.jump and state.laid_by is None and state.turn == 1
    twin = state.top.text
    assert any(str(a).split(":")[0] == twin for a in state.legal_actions(0))
    state.apply(0, next(a for a in state.legal_actions(0) if str(a).split(":")[0] == twin))
    assert state.laid_by == 0 and state.top.text == twin


# --- 1.3 a turn -------------------------------------------------------------------------
def test_play_one_fitting_card_then_the_next_seat_moves() -> None:
    state = position("classic", ["R2 G5 B7 wild", "G1", "G2", "G3"])
    assert moves(state, 0) == {"R2", "G5", "wild:R", "wild:G", "wild:B", "wild:Y", "draw"}
    assert act(state, 0, "G5") == ["play"]
    assert hand(state, 0) == cards("R2 B7 wild")
    assert (top(state), state.colour, state.turn) == ("G5", "G", 1)
    assert [c.text for c in state.discard] == ["R5", "G5"]


def test_play_goes_the_other_way_when_reversed() -> None:
    state = position("classic", ["R2 G6", "G1", "G2", "G3"], direction=-1)
    act(state, 0, "R2")
    assert state.turn == 3


def test_a_card_that_does_not_fit_is_refused() -> None:
    state = position("classic", ["R2 B7", "G1", "G2", "G3"])
    refused(state, 0, "B7", "B7 does not fit on R5")


def test_a_card_not_held_is_refused() -> None:
    state = position("classic", ["R2 B7", "G1", "G2", "G3"])
    refused(state, 0, "R3", "does not hold R3")


def test_only_the_seat_to_move_plays_a_non_identical_card() -> None:
    state = position("classic", ["R2 B7", "R1 G1", "G2", "G3"])
    refused(state, 1, "R1", "seat 0's turn")
    refused(state, 1, "draw", "seat 0's turn")


def test_multiples_first_card_fits_others_any_colour_last_is_the_top() -> None:
    state = position("anniversary", ["R7 G7 B7 Y2 Y3", "G1", "G2", "G3"])
    plays = {a for a in moves(state, 0) if "+" in a}
    assert plays == {"R7+G7+B7", "R7+B7+G7"}  # only R7 fits on R5 as the first card
    assert act(state, 0, "R7+B7+G7") == ["play"]
    assert hand(state, 0) == ["Y2", "Y3"]
    assert [c.text for c in state.discard] == ["R5", "R7", "B7", "G7"]
    assert (top(state), state.colour, state.turn) == ("G7", "G", 1)
    # the last card's colour is in force: green fits, red does not
    assert state.fits(parse_card("G1")) and not state.fits(parse_card("R1"))


def test_multiples_whose_first_card_does_not_fit_are_refused() -> None:
    state = position("anniversary", ["R7 G7 B7 Y2", "G1", "G2", "G3"])
    refused(state, 0, "G7+R7+B7", "G7 does not fit on R5")


def test_multiples_may_start_with_any_card_matching_the_number() -> None:
    state = position("anniversary", ["R7 G7 B7 Y7", "G1", "G2", "G3"], discard="Y3 B7")
    plays = {a for a in moves(state, 0) if "+" in a}
    firsts = {a.split("+")[0] for a in plays}
    assert firsts == {"R7", "G7", "B7", "Y7"}
    assert "B7+R7+G7+Y7" in plays and "Y7+R7+G7" in plays
    assert str(parse_action("B7+G7+R7+Y7")) == "B7+R7+G7+Y7"  # the middle is canonical
    assert "R7+G7" not in plays
    act(state, 0, "B7+R7+G7+Y7")
    assert state.winner == 0  # multiples may empty the hand


def test_multiples_are_three_or_more_equal_numbers() -> None:
    with pytest.raises(ParseError, match="3 or more"):
        parse_action("R7+G7")
    with pytest.raises(ParseError, match="same number"):
        parse_action("R7+G7+B8")
    with pytest.raises(ParseError):
        parse_action("Rskip+Gskip+Bskip")


def test_multiples_are_not_in_classic() -> None:
    state = position("classic", ["R7 G7 B7 Y2", "G1", "G2", "G3"])
    assert not any("+" in a for a in moves(state, 0))
    refused(state, 0, "R7+G7+B7", "multiples")


def test_multiples_are_an_option() -> None:
    state = position("classic", ["R7 G7 B7 Y2", "G1", "G2", "G3"], options={"multiples": True})
    act(state, 0, "R7+G7+B7")
    assert (hand(state, 0), top(state)) == (["Y2"], "B7")


def test_multiples_with_a_penalty_pending_are_refused() -> None:
    state = position("anniversary", ["R7 G7 B7 Y2", "G1", "G2", "G3"], discard="Rd2", penalty=2,
                     penalty_kind="d2", draw="G4 G5")
    refused(state, 0, "R7+G7+B7", "penalty")


def test_you_may_draw_even_when_you_could_play() -> None:
    state = position("classic", ["R2", "G1", "G2", "G3"], draw="B4 G9")
    assert {"R2", "draw"} <= moves(state, 0)
    assert act(state, 0, "draw") == ["draw"]
    # G9 does not fit on R5: the turn ends with the card in hand (1.8.9)
    assert hand(state, 0) == cards("R2 G9")
    assert [c.text for c in state.draw] == ["B4"]
    assert (state.turn, state.drawn, top(state)) == (1, None, "R5")


def test_a_drawn_card_that_fits_may_be_played_and_no_other() -> None:
    state = position("classic", ["R2 B3", "G1", "G2", "G3"], draw="R8")
    act(state, 0, "draw")
    assert state.drawn is not None and state.drawn.text == "R8"
    assert state.turn == 0
    assert moves(state, 0) == {"R8", "keep"}
    refused(state, 0, "R2", "only the drawn card R8")
    refused(state, 0, "draw", "play the drawn card R8 or keep it")
    act(state, 0, "R8")
    assert (hand(state, 0), top(state), state.turn) == (cards("R2 B3"), "R8", 1)
    assert state.snapshot()["drawn"] is None


def test_keep_ends_the_turn_with_the_drawn_card_in_hand() -> None:
    state = position("classic", ["R2 B3", "G1", "G2", "G3"], draw="R8")
    act(state, 0, "draw")
    assert act(state, 0, "keep") == ["keep"]
    assert (hand(state, 0), top(state), state.turn, state.drawn) == (cards("R2 B3 R8"), "R5", 1, None)
    refused(state, 0, "R8", "seat 1's turn")


def test_keep_is_only_after_a_draw() -> None:
    state = position("classic", ["R2 B3", "G1", "G2", "G3"], draw="R8")
    refused(state, 0, "keep", "no drawn card to keep")


def test_multiples_after_a_draw_must_include_the_drawn_card() -> None:
    state = position("anniversary", ["G4 B4 Y4 G7 B7", "G1", "G2", "G3"], discard="R4", draw="R7")
    assert "G4+B4+Y4" in moves(state, 0)
    act(state, 0, "draw")
    assert moves(state, 0) == {"R7", "R7+G7+B7", "R7+B7+G7", "R7+G7+B7!", "R7+B7+G7!", "keep"}
    refused(state, 0, "G4+B4+Y4", "only the drawn card R7")
    act(state, 0, "R7+G7+B7!")
    assert (hand(state, 0), top(state), state.turn) == (cards("G4 B4 Y4"), "B7", 1)


def test_an_empty_draw_pile_is_refilled_from_the_discard_pile_except_its_top() -> None:
    state = position("classic", ["R2", "G1", "G2", "G3"], discard="G1 B2 Y3 Rskip R5", draw="")
    refill = shuffle([parse_card(t) for t in "G1 B2 Y3 Rskip".split()], SEED, "solo/round/0/reshuffle/1")
    act(state, 0, "draw")
    assert [c.text for c in state.discard] == ["R5"]
    assert state.reshuffles == 1
    assert sorted(c.text for c in state.hands[0]) == sorted(["R2", refill[-1].text])
    assert [c.text for c in state.draw] == [c.text for c in refill[:-1]]


def test_the_discard_pile_is_reshuffled_only_when_a_card_must_be_drawn() -> None:
    """1.8.10: drawing the last card leaves the draw pile empty; nothing is reshuffled yet."""
    state = position("classic", ["R2", "G1", "G2", "G3"], discard="G1 B2 R5", draw="G8")
    act(state, 0, "draw")
    assert state.draw == [] and state.reshuffles == 0
    assert [c.text for c in state.discard] == ["G1", "B2", "R5"]


def test_nothing_to_draw_skips_the_draw_and_ends_the_turn() -> None:
    """1.8.10: a discard pile holding only its top card is never reshuffled."""
    state = position("classic", ["R2", "G1", "G2", "G3"], discard="R5", draw="")
    events = state.apply(0, parse_action("draw"))
    assert "cannot draw" in events[0].text
    assert (hand(state, 0), state.turn, state.reshuffles, top(state)) == (["R2"], 1, 0, "R5")


def test_a_penalty_that_cannot_be_drawn_in_full_lapses() -> None:
    state = position("classic", ["G3", "G1", "G2", "G4"], discard="Y2 Rd2", draw="B1",
                     penalty=4, penalty_kind="d2")
    events = state.apply(0, parse_action("draw"))
    # B1 from the pile, then Y2 from the reshuffled discard pile, then nothing: 2 of 4 lapse
    assert "draws 2 as a penalty of 4" in events[0].text
    assert hand(state, 0) == cards("G3 B1 Y2")
    assert (state.penalty, state.penalty_kind, state.turn) == (0, None, 0)
    assert [c.text for c in state.discard] == ["Rd2"] and state.draw == []


# --- 1.4 what fits ----------------------------------------------------------------------
@pytest.mark.parametrize(
    ("discard", "colour", "card", "ok"),
    [
        ("R5", "R", "R2", True),  # colour
        ("R5", "R", "G5", True),  # number
        ("R5", "R", "G6", False),
        ("R5", "R", "Gskip", False),
        ("R5", "R", "Rskip", True),
        ("Gskip", "G", "Rskip", True),  # action symbol, any colour
        ("Gskip", "G", "Rrev", False),
        ("Brev", "B", "Yrev", True),
        ("Yswap", "Y", "Rswap", True),
        ("Ggift", "G", "Bgift", True),
        ("Bd2", "B", "Rd2", True),
        ("Bd2", "B", "R2", False),
        ("R5", "R", "wild", True),  # black always fits
        ("R5", "R", "wd4", True),
        ("R5", "R", "pass", True),
        ("R5", "R", "protG", True),
        ("wild", "B", "B3", True),  # after a Wild: the named colour
        ("wild", "B", "R3", False),
        ("wild", "B", "Rskip", False),
        ("wild", "B", "wd4", True),
        ("wd4", "Y", "Y1", True),
        ("wd4", "Y", "G1", False),
        ("pass", None, "G6", True),  # after Pass hands: anything
        ("pass", None, "Yskip", True),
        ("protG", "G", "G1", True),  # after Protection: its lightning colour
        ("protG", "G", "R1", False),
        ("protG", "G", "Gskip", True),
        ("protG", "G", "wild", True),
    ],
)
def test_what_fits(discard: str, colour: str | None, card: str, ok: bool) -> None:
    state = position("anniversary", [card, "G1", "G2", "G3"], discard=discard, colour=colour)
    assert state.fits(parse_card(card)) is ok
    played = {a.split(":")[0] for a in moves(state, 0)}
    assert (card in played) is ok


def test_after_pass_hands_any_card_fits_also_after_a_player_who_drew() -> None:
    """1.8.3."""
    state = position("classic", ["pass G1", "R1 B2", "Y3 G4", "Y5"], draw="Y9 B8")
    act(state, 0, "pass")
    assert state.colour is None and state.turn == 1
    act(state, 1, "draw")  # any card fits, so the drawn card may be played; seat 1 keeps it
    assert moves(state, 1) == {"B8", "B8!", "keep"}
    act(state, 1, "keep")
    assert state.turn == 2
    assert {"R1", "B2"} <= moves(state, 2)  # seat 2 holds seat 1's old hand; anything fits


def test_after_a_wild_the_named_colour_binds_a_player_after_one_who_drew() -> None:
    state = position("classic", ["wild R1", "G1 B1", "Y1 G2", "R4"], draw="Y9")
    act(state, 0, "wild:G")
    act(state, 1, "draw")  # Y9 does not fit green: the turn ends
    assert state.turn == 2 and state.colour == "G"
    assert moves(state, 2) == {"G2", "G2!", "draw"}
    refused(state, 2, "Y1", "green in force")


# --- 1.6 action cards -------------------------------------------------------------------
@pytest.mark.parametrize("edition", ["classic", "anniversary"])
def test_skip_the_next_player_loses_their_turn(edition: str) -> None:
    state = position(edition, ["Rskip G1", "R1", "R2", "R3"])
    events = state.apply(0, parse_action("Rskip"))
    assert [(e.kind, e.seat) for e in events] == [("play", 0), ("skipped", 1)]
    assert (state.turn, state.react, top(state), state.colour) == (2, None, "Rskip", "R")
    refused(state, 1, "R1", "seat 2's turn")


def test_skip_against_the_direction() -> None:
    state = position("classic", ["Rskip G1", "R1", "R2", "R3"], direction=-1)
    act(state, 0, "Rskip")
    assert state.turn == 2
    state = position("classic", ["R1", "Rskip G1", "R2", "R3"], direction=-1, turn=1)
    act(state, 1, "Rskip")
    assert state.turn == 3


def test_skip_with_two_players_the_same_player_moves_again() -> None:
    state = position("classic", ["Rskip G1", "R1"])
    act(state, 0, "Rskip")
    assert state.turn == 0
    assert moves(state, 0) == {"draw"}  # G1 does not fit on the red Skip


def test_reverse_changes_direction_at_once() -> None:
    state = position("classic", ["G1", "Rrev G2", "R2", "R3"], turn=1)
    act(state, 1, "Rrev")
    assert (state.direction, state.turn) == (-1, 0)
    state2 = position("classic", ["G1", "Rrev G2", "R2", "R3"], turn=1, direction=-1)
    act(state2, 1, "Rrev")
    assert (state2.direction, state2.turn) == (1, 2)


def test_reverse_with_two_players_acts_as_a_skip() -> None:
    state = position("classic", ["Rrev G1", "R1"])
    act(state, 0, "Rrev")
    assert (state.direction, state.turn) == (-1, 0)


def test_protection_never_stops_a_reverse() -> None:
    state = position("anniversary", ["Rrev G1", "protR R1", "protG R2", "protB R3"])
    act(state, 0, "Rrev")
    assert state.react is None
    assert (state.direction, state.turn) == (-1, 3)
    assert all("decline" not in legal(state, s) for s in range(4))


def test_a_two_player_reverse_opens_no_protection_window() -> None:
    state = position("anniversary", ["Rrev G1", "protR R1"])
    act(state, 0, "Rrev")
    assert (state.react, state.turn) == (None, 0)


def test_draw_2_the_next_player_draws_then_takes_their_turn() -> None:
    state = position("classic", ["Rd2 G1 G7", "G3 R9", "R2", "R3"], draw="Y1 Y2 Y3")
    act(state, 0, "Rd2")
    assert (state.penalty, state.penalty_kind, state.turn) == (2, "d2", 1)
    assert moves(state, 1) == {"draw"}  # R9 fits by colour, but the penalty comes first
    refused(state, 1, "R9", "penalty of 2 is pending")
    events = state.apply(1, parse_action("draw"))
    assert "draws 2" in events[0].text
    assert hand(state, 1) == cards("G3 R9 Y3 Y2")
    assert (state.penalty, state.turn) == (0, 1)
    assert moves(state, 1) == {"R9", "draw"}  # now the turn as usual
    act(state, 1, "R9")
    assert state.turn == 2


def test_draw_2_stacks_with_any_draw_2() -> None:
    state = position("classic", ["Rd2 G1 G7", "G3 Bd2", "R2", "R3"], draw="Y1 Y2 Y3 Y4 Y5")
    act(state, 0, "Rd2")
    assert moves(state, 1) == {"Bd2", "Bd2!", "draw"}
    act(state, 1, "Bd2")
    assert (state.penalty, state.penalty_kind, state.colour, state.turn) == (4, "d2", "B", 2)
    act(state, 2, "draw")
    assert len(state.hands[2]) == 5 and state.penalty == 0


def test_draw_2_and_wild_draw_4_do_not_mix_by_default() -> None:
    state = position("classic", ["G1", "G3 wd4", "R2", "R3"], discard="Rd2", penalty=2,
                     penalty_kind="d2", turn=1, draw="Y1 Y2")
    assert moves(state, 1) == {"draw"}
    refused(state, 1, "wd4:R", "penalty of 2 is pending")
    state = position("classic", ["G1", "G3 Gd2", "R2", "R3"], discard="wd4", colour="G", penalty=4,
                     penalty_kind="wd4", turn=1, draw="Y1 Y2")
    assert moves(state, 1) == {"draw"}
    refused(state, 1, "Gd2", "penalty of 4 is pending")


def test_mixed_stacking_adds_up_whatever_the_colour() -> None:
    """1.8.12."""
    state = position("classic", ["G1", "G3 wd4", "R2", "R3"], discard="Rd2", penalty=2,
                     penalty_kind="d2", turn=1, options={"mixed_stacking": True})
    act(state, 1, "wd4:B")
    assert (state.penalty, state.penalty_kind, state.colour, state.turn) == (6, "wd4", "B", 2)
    state = position("classic", ["G1", "G3 Yd2", "R2", "R3"], discard="wd4", colour="G", penalty=4,
                     penalty_kind="wd4", turn=1, options={"mixed_stacking": True})
    assert "Yd2" in moves(state, 1)
    act(state, 1, "Yd2")
    assert (state.penalty, state.penalty_kind, state.colour, state.turn) == (6, "d2", "Y", 2)


def test_wild_names_a_colour_the_next_player_must_follow() -> None:
    state = position("classic", ["wild G1", "R5 B1 Gskip wd4", "R2", "R3"])
    with pytest.raises(ParseError, match="names a colour"):
        parse_action("wild")
    act(state, 0, "wild:B")
    assert (top(state), state.colour, state.turn, state.penalty) == ("wild", "B", 1, 0)
    assert moves(state, 1) == {"B1", "wd4:R", "wd4:G", "wd4:B", "wd4:Y", "draw"}
    refused(state, 1, "R5", "blue in force")


def test_wild_draw_4_draw_four_then_play_in_the_named_colour() -> None:
    state = position("classic", ["wd4 G1 G7", "R1 G2", "R2", "R3"], draw="Y1 Y2 Y3 Y4 Y5")
    act(state, 0, "wd4:G")
    assert (state.penalty, state.penalty_kind, state.colour, state.turn) == (4, "wd4", "G", 1)
    assert moves(state, 1) == {"draw"}
    act(state, 1, "draw")
    assert hand(state, 1) == cards("R1 G2 Y5 Y4 Y3 Y2") and state.penalty == 0
    assert moves(state, 1) == {"G2", "draw"}


def test_wild_draw_4_stacks_on_wild_draw_4() -> None:
    state = position("classic", ["wd4 G1 G7", "R1 wd4", "R2", "R3"], draw="Y1 Y2 Y3 Y4 Y5 Y6 Y7 Y8")
    act(state, 0, "wd4:G")
    assert {"wd4:R", "wd4:G", "wd4:B", "wd4:Y", "draw"} == {a.rstrip("!") for a in moves(state, 1)}
    act(state, 1, "wd4:Y")
    assert (state.penalty, state.colour, state.turn) == (8, "Y", 2)
    act(state, 2, "draw")
    assert len(state.hands[2]) == 9


def test_swap_exchanges_hands_with_any_opponent_who_moves_next() -> None:
    state = position("anniversary", ["Rswap G1 G2", "Y1", "B1 B2 B3 B4", "Y2"])
    assert {"Rswap:1", "Rswap:2", "Rswap:3"} <= moves(state, 0)
    events = act(state, 0, "Rswap:2")
    assert events == ["play", "swap"]
    assert hand(state, 0) == cards("B1 B2 B3 B4")
    assert hand(state, 2) == cards("G1 G2")
    assert (state.turn, top(state), state.colour, state.react) == (2, "Rswap", "R", None)


def test_swap_target_moves_next_against_the_direction_too() -> None:
    state = position("classic", ["Rswap G1", "Y1 Y2", "B1", "Y3 Y4"], direction=-1)
    act(state, 0, "Rswap:1")
    assert (state.turn, hand(state, 0), hand(state, 1)) == (1, cards("Y1 Y2"), ["G1"])


def test_swap_needs_an_opponent() -> None:
    state = position("classic", ["Rswap G1", "Y1 Y2", "B1", "Y3 Y4"])
    refused(state, 0, "Rswap:0", "names another seat")
    refused(state, 0, "Rswap:4", "names another seat")
    with pytest.raises(ParseError, match="names a seat"):
        parse_action("Rswap")


def test_gift_gives_two_cards_then_the_givers_next_player_moves() -> None:
    state = position("anniversary", ["Rgift R1 G2 B3", "Y1", "Y2 Y3", "Y4"])
    events = act(state, 0, "Rgift:2:R1,G2")
    assert events == ["play", "gift"]
    assert hand(state, 0) == ["B3"]
    assert hand(state, 2) == cards("Y2 Y3 R1 G2")
    assert (state.turn, top(state), state.colour, state.winner) == (1, "Rgift", "R", None)


def test_gift_must_give_exactly_two_cards_the_giver_holds() -> None:
    state = position("anniversary", ["Rgift R1 G2 B3", "Y1", "Y2 Y3", "Y4"])
    refused(state, 0, "Rgift:2:R1", "gives 2 cards")
    refused(state, 0, "Rgift:2:R1,Y9", "does not hold Y9")
    refused(state, 0, "Rgift:0:R1,G2", "names another seat")
    with pytest.raises(ParseError, match="at most 2"):
        parse_action("Rgift:2:R1,G2,B3")


def test_gift_of_the_last_cards_wins_the_round() -> None:
    state = position("anniversary", ["Rgift G2 B3", "Y1", "Y2 Y3", "Y4"])
    assert {a for a in moves(state, 0) if a.startswith("Rgift")} == {
        "Rgift:1:G2,B3", "Rgift:2:G2,B3", "Rgift:3:G2,B3"}
    events = act(state, 0, "Rgift:3:G2,B3")
    assert events == ["play", "gift", "out"]
    assert (state.winner, hand(state, 0), hand(state, 3)) == (0, [], cards("Y4 G2 B3"))
    assert state.is_over() and state.round_scores() == [0, 1, 5, 4 + 2 + 3]


def test_gift_of_the_last_single_card() -> None:
    state = position("anniversary", ["Rgift Y9", "Y1", "Y2 Y3", "Y4"])
    assert "Rgift:1:Y9" in moves(state, 0) and "Rgift:1" not in moves(state, 0)
    act(state, 0, "Rgift:1:Y9")
    assert (state.winner, hand(state, 1)) == (0, cards("Y1 Y9"))


def test_pass_hands_every_hand_moves_to_the_next_player() -> None:
    state = position("classic", ["pass R1", "G1 G2", "B1", "Y1 Y2 Y3"])
    act(state, 0, "pass")
    assert [hand(state, s) for s in range(4)] == [cards("Y1 Y2 Y3"), ["R1"], cards("G1 G2"), ["B1"]]
    assert (state.turn, state.colour, top(state)) == (1, None, "pass")
    assert moves(state, 1) == {"R1", "draw"}
    assert state.fits(parse_card("B9")) and state.fits(parse_card("Gskip"))


def test_pass_hands_follows_the_current_direction() -> None:
    state = position("classic", ["pass R1", "G1 G2", "B1", "Y1 Y2 Y3"], direction=-1)
    act(state, 0, "pass")
    assert [hand(state, s) for s in range(4)] == [cards("G1 G2"), ["B1"], cards("Y1 Y2 Y3"), ["R1"]]
    assert state.turn == 3


def test_pass_hands_with_two_players_exchanges_hands() -> None:
    state = position("anniversary", ["pass R1 R2", "G1"])
    act(state, 0, "pass")
    assert (hand(state, 0), hand(state, 1), state.turn) == (["G1"], cards("R1 R2"), 1)


# --- 1.7 end of a round and of the game --------------------------------------------------
def test_the_round_ends_the_moment_a_hand_is_empty() -> None:
    state = position("classic", ["R2", "G1 Rskip", "wd4 B3", "Y9"])
    assert act(state, 0, "R2") == ["play", "out"]
    assert state.is_over() and state.winner == 0 and state.turn is None
    assert state.to_move() is None and state.actors() == []
    assert all(state.legal_actions(s) == [] for s in range(4))
    before = state.snapshot()
    with pytest.raises(IllegalAction, match="round is over"):
        state.apply(1, parse_action("G1"))
    assert state.snapshot() == before
    assert state.round_scores() == [0, -(1 + 20), -(50 + 3), -9]


def test_round_scores_are_penalties_in_anniversary() -> None:
    state = position("anniversary", ["R2", "G1 Rskip", "wd4 B3", "protY Yrev"])
    act(state, 0, "R2")
    assert state.round_scores() == [0, 21, 53, 50]


def test_round_scores_before_the_end_are_refused() -> None:
    state = position("classic", ["R2 R3", "G1", "G2", "G3"])
    with pytest.raises(IllegalAction, match="not over"):
        state.round_scores()


def test_a_last_draw_2_makes_nobody_draw() -> None:
    state = position("classic", ["Rd2", "G1", "G2", "G3"], draw="Y1 Y2 Y3")
    act(state, 0, "Rd2")
    assert (state.winner, state.penalty, hand(state, 1), len(state.draw)) == (0, 0, ["G1"], 3)


def test_a_last_wild_draw_4_still_names_a_colour_and_nobody_draws() -> None:
    """1.8.13: the colour is part of the play even when the round ends first."""
    state = position("classic", ["wd4", "G1", "G2", "G3"], draw="Y1 Y2 Y3 Y4")
    assert moves(state, 0) == {"wd4:R", "wd4:G", "wd4:B", "wd4:Y", "draw"}
    act(state, 0, "wd4:Y")
    assert (state.winner, state.penalty, hand(state, 1), len(state.draw)) == (0, 0, ["G1"], 4)


def test_a_last_swap_still_names_a_target_and_nobody_swaps() -> None:
    state = position("anniversary", ["Rswap", "G1", "G2 G3", "protG"])
    assert {a for a in moves(state, 0) if "swap" in a} == {"Rswap:1", "Rswap:2", "Rswap:3"}
    act(state, 0, "Rswap:3")
    assert (state.winner, state.react, hand(state, 3), hand(state, 0)) == (0, None, ["protG"], [])


@pytest.mark.parametrize("last", ["Rskip", "Rrev", "pass"])
def test_a_last_skip_reverse_or_pass_has_no_effect(last: str) -> None:
    state = position("anniversary", [last, "G1 protB", "G2", "G3"])
    events = act(state, 0, last)
    assert events == ["play", "out"]
    assert (state.direction, state.react, hand(state, 1), hand(state, 2)) == (
        1, None, cards("G1 protB"), ["G2"])


# --- 1.7 the match ------------------------------------------------------------------------
def match_at(state: State, totals: list[int], round_no: int = 0) -> Match:
    return Match.from_snapshot({
        "config": state.config.to_dict(), "seed": SEED.hex(), "round": round_no,
        "totals": totals, "round_scores": [], "state": state.snapshot(),
    })


def test_classic_subtracts_hands_from_the_pool_and_deals_the_next_round() -> None:
    state = position("classic", ["R2", "G1 Rskip", "wd4 B3", "Y9"])
    match = match_at(state, [500, 500, 500, 500])
    events = match.apply(0, parse_action("R2"))
    assert [e.kind for e in events] == ["play", "out", "round_end", "round_start"]
    assert match.totals == [500, 479, 447, 491]
    assert match.round_scores == [[0, -21, -53, -9]]
    assert match.round_no == 1 and not match.is_over()
    dealt = match.state.snapshot()
    assert dealt["turn"] == 2  # round 1: dealer seat 1, seat 2 starts
    assert [len(h) for h in dealt["hands"]] == [8, 8, 8, 8]


def test_classic_game_ends_when_a_pool_drops_below_zero_highest_pool_wins() -> None:
    state = position("classic", ["R2", "G1 Rskip", "wd4 B3", "Y9"])
    match = match_at(state, [30, 100, 40, 100])
    events = match.apply(0, "R2")
    assert match.totals == [30, 79, -13, 91]
    assert match.is_over() and events[-1].kind == "match_end"
    assert match.winners() == [3]
    assert match.legal_actions(1) == [] and match.actors() == []
    with pytest.raises(IllegalAction, match="match is over"):
        match.apply(1, "G1")


def test_classic_a_pool_of_exactly_zero_goes_on() -> None:
    state = position("classic", ["R2", "G1 Rskip", "R9", "Y9"])
    match = match_at(state, [30, 21, 40, 100])
    match.apply(0, "R2")
    assert match.totals == [30, 0, 31, 91] and not match.is_over()


def test_classic_ties_share_the_win() -> None:
    config = Config.preset("classic", 4)
    assert config.winners([100, -5, 100, 50]) == [0, 2]
    assert config.match_over([0, 0, 0, 0], 3) is False
    assert config.match_over([0, -1, 0, 0], 3) is True


def test_anniversary_accumulates_penalties_to_500_lowest_total_wins() -> None:
    state = position("anniversary", ["R2", "G1 Rskip", "wd4 B3", "Y9"])
    match = match_at(state, [100, 479, 200, 300])
    events = match.apply(0, "R2")
    assert match.totals == [100, 500, 253, 309]
    assert match.is_over() and events[-1].kind == "match_end"
    assert match.winners() == [0]


def test_anniversary_below_the_threshold_goes_on_and_ties_share() -> None:
    state = position("anniversary", ["R2", "G1 Rskip", "wd4 B3", "Y9"])
    match = match_at(state, [100, 478, 200, 300])
    match.apply(0, "R2")
    assert match.totals == [100, 499, 253, 309] and not match.is_over()
    config = Config.preset("anniversary", 3, threshold=100)
    assert config.match_over([99, 0, 5], 1) is False and config.match_over([100, 0, 5], 1) is True
    assert config.winners([120, 7, 7]) == [1, 2]


def test_pool_and_threshold_are_options() -> None:
    assert Config.preset("classic", 3, pool=200).initial_totals() == [200, 200, 200]
    assert Config.preset("anniversary", 3).initial_totals() == [0, 0, 0]
    match = Match(Config.preset("classic", 3, pool=200), SEED)
    assert match.totals == [200, 200, 200]
