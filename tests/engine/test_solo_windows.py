"""SOLO out of turn: jump-ins, SOLO calls and catches, Protection windows (docs/rules.md 1.5, 1.6, 1.8).

Positions are set up with ``position(...)`` as in ``test_solo_rules.py``: hands and piles
as card texts (top of a pile LAST), any other ``State.snapshot()`` key as a keyword.
"""

from __future__ import annotations

from typing import Any

import pytest

from cardtable.engine.errors import IllegalAction, ParseError
from cardtable.engine.solo import Config, State, new_round, parse_action, parse_card
from tests.engine.solo_helpers import act, cards, hand, legal, moves, position, refused, top

SEED = b"windows"


def after_play(edition: str, hands: list[str], laid_by: int, turn: int, discard: str = "R5 R7",
               **more: Any) -> State:
    """The position just after ``laid_by`` laid the top card: the jump-in window is open."""
    return position(edition, hands, discard=discard, turn=turn, jump=True, laid_by=laid_by, **more)


# --- 1.5.1 jump-in ------------------------------------------------------------------------
@pytest.mark.parametrize("edition", ["classic", "anniversary"])
def test_jump_in_with_the_identical_card_players_in_between_lose_their_turn(edition: str) -> None:
    state = after_play(edition, ["G1 G2", "R1 G3", "R2 G4", "R7 G5 G6"], laid_by=0, turn=1)
    assert "R7" in moves(state, 3)
    events = state.apply(3, parse_action("R7"))
    assert [(e.kind, e.seat, e.text) for e in events] == [("play", 3, "jumps in with R7")]
    assert (state.turn, state.laid_by, top(state), hand(state, 3)) == (0, 3, "R7", cards("G5 G6"))
    refused(state, 1, "R1", "seat 0's turn")
    refused(state, 2, "R2", "seat 0's turn")


def test_jump_in_play_continues_from_the_jumper_against_the_direction() -> None:
    state = after_play("classic", ["G1 G2", "R1 G3", "R7 G4 G8", "R2 G5"], laid_by=0, turn=3,
                       direction=-1)
    act(state, 2, "R7")
    assert state.turn == 1  # seat 3, whose turn it was, loses it


def test_only_an_identical_card_jumps_in() -> None:
    state = after_play("classic", ["G1 G2", "R1 G3", "R2 G4", "G7 R8 Rskip"], laid_by=0, turn=1)
    assert moves(state, 3) == set()
    refused(state, 3, "G7", "identical to R7")
    refused(state, 3, "R8", "identical to R7")


@pytest.mark.parametrize(("card", "play"), [("wild", "wild:G"), ("wd4", "wd4:G"), ("pass", "pass"),
                                            ("protG", "protG")])
def test_black_cards_cannot_be_jumped_in(card: str, play: str) -> None:
    state = position("anniversary", [f"{card} G1 G2", "R1 G3", f"{card} G4 G7", "R3 G5"])
    act(state, 0, play)
    assert state.jump is False
    waiting = state.to_move()
    assert waiting is not None
    holder = next(s for s in range(4) if s != waiting and parse_card(card) in state.hands[s])
    assert not any(a.startswith(card) for a in legal(state, holder))
    refused(state, holder, play, "black cards cannot be jumped in")


def test_a_jumped_in_skip_takes_full_effect() -> None:
    state = after_play("classic", ["G1 G2", "R1 G3", "R2 G4", "Rskip G5 G6"], laid_by=0, turn=2,
                       discard="R5 Rskip")
    events = state.apply(3, parse_action("Rskip"))
    assert [(e.kind, e.seat) for e in events] == [("play", 3), ("skipped", 0)]
    assert state.turn == 1


def test_a_draw_2_jumped_in_on_a_pending_draw_2_stacks() -> None:
    state = after_play("classic", ["G1 G2", "R1 G3", "Rd2 G4 G7", "R3 G5"], laid_by=0, turn=1,
                       discard="R5 Rd2", penalty=2, penalty_kind="d2")
    act(state, 2, "Rd2")
    assert (state.penalty, state.penalty_kind, state.turn) == (4, "d2", 3)
    assert moves(state, 3) == {"draw"}
    assert moves(state, 1) == set()  # seat 1 escaped the penalty: no longer its turn


def test_a_jumped_in_reverse_reverses_from_the_jumper() -> None:
    state = after_play("classic", ["G1 G2", "Rrev G3 G6", "R2 G4", "R3 G5"], laid_by=0, turn=3,
                       discard="R5 Rrev", direction=-1)
    act(state, 1, "Rrev")
    assert (state.direction, state.turn) == (1, 2)


def test_no_jump_in_on_your_own_card_by_default() -> None:
    state = after_play("classic", ["R7 G1 G2", "R1 G3", "R2 G4", "R3 G5"], laid_by=0, turn=1)
    assert moves(state, 0) == set()
    refused(state, 0, "R7", "self_jump_in")


def test_self_jump_in_option() -> None:
    state = after_play("classic", ["R7 G1 G2", "R1 G3", "R2 G4", "R3 G5"], laid_by=0, turn=2,
                       options={"self_jump_in": True})
    assert "R7" in moves(state, 0)
    events = state.apply(0, parse_action("R7"))
    assert events[0].text == "jumps in with R7"
    assert (state.turn, hand(state, 0), state.laid_by) == (1, cards("G1 G2"), 0)


def test_the_turn_players_identical_card_is_an_ordinary_play() -> None:
    state = after_play("classic", ["G1 G2", "R7 G3 G4", "R2 G6", "R3 G5"], laid_by=0, turn=1)
    events = state.apply(1, parse_action("R7"))
    assert events[0].text == "plays R7"
    assert state.turn == 2


def test_a_jump_in_beats_the_turn_players_play_sequenced_after_it() -> None:
    """Two seats answer the same card: the first sequenced wins, the other is refused."""
    state = after_play("classic", ["G1 G2", "R1 G3", "R2 G4", "R7 G5 G6"], laid_by=0, turn=1)
    act(state, 3, "R7")
    refused(state, 1, "R1", "seat 0's turn")


def test_a_jump_in_sequenced_after_the_turn_players_play_is_refused() -> None:
    state = after_play("classic", ["G1 G2", "R1 G3", "R2 G4", "R7 G5 G6"], laid_by=0, turn=1)
    act(state, 1, "R1")
    refused(state, 3, "R7", "identical to R1")


def test_a_jump_in_on_a_jump_in_is_judged_against_the_new_top() -> None:
    """Engine's choice: an action names no card it answers, so a second identical card (only
    possible in a made-up position: a real deck holds at most two of a face) is a new jump-in
    on the first jumper's card, not a late one on the original card."""
    state = after_play("classic", ["G1 G2", "R7 G3 G8", "R2 G4", "R7 G5 G6"], laid_by=0, turn=2)
    act(state, 3, "R7")
    assert state.turn == 0
    act(state, 1, "R7")
    assert (state.turn, state.laid_by) == (2, 1)


def test_the_window_opens_on_the_setup_card() -> None:
    """1.8.1: find a deal where a seat other than the starter holds the twin of the first card."""
    config = Config.preset("classic", 4)
    for i in range(300):
        state = new_round(config, b"setup%d" % i, 0)
        holders = [s for s in range(4) if s != state.turn and state.top in state.hands[s]]
        if holders:
            break
    else:
        raise AssertionError("no deal puts the twin of the first card in another hand")
    assert state.jump is True and state.laid_by is None
    jumper = holders[0]
    assert state.top.text in moves(state, jumper)
    first = state.top.text
    act(state, jumper, first)
    assert (state.turn, state.snapshot()["laid_by"]) == ((jumper + 1) % 4, jumper)


def test_the_window_closes_with_the_next_action() -> None:
    state = after_play("classic", ["G1 G2", "R1 G3", "R2 G4", "R7 G5 G6"], laid_by=0, turn=1,
                       draw="B1")
    act(state, 1, "draw")  # B1 does not fit: seat 1's turn ends
    assert state.jump is False and state.turn == 2
    refused(state, 3, "R7", "seat 2's turn")


def test_the_window_stays_closed_while_the_turn_player_holds_a_drawn_card() -> None:
    state = after_play("classic", ["G1 G2", "R1 G3", "R2 G4", "R7 G5 G6"], laid_by=0, turn=1,
                       draw="R9")
    act(state, 1, "draw")
    assert state.drawn is not None and state.turn == 1
    refused(state, 3, "R7", "seat 1's turn")


def test_a_solo_call_or_a_catch_does_not_close_the_window() -> None:
    """1.8.1 / 1.8.6: seat 0 laid R7 leaving one card without calling."""
    state = after_play("anniversary", ["G1", "R1 G3", "R2 G4", "R7 G5 G6"], laid_by=0, turn=1,
                       solo={"seat": 0, "called": False})
    act(state, 2, "catch:1")  # a false catch
    act(state, 0, "solo")  # a late call
    assert state.jump is True and state.solo_seat == 0 and state.solo_called
    act(state, 3, "R7")
    assert state.turn == 0


def test_no_multiples_as_a_jump_in() -> None:
    state = after_play("anniversary", ["G1 G2", "R1 G3", "R2 G4", "R7 G7 B7 Y1"], laid_by=0, turn=1)
    assert moves(state, 3) == {"R7"}
    refused(state, 3, "R7+G7+B7", "multiples are never a jump-in")


# --- 1.5.2 SOLO call and catch ------------------------------------------------------------
@pytest.mark.parametrize("edition", ["classic", "anniversary"])
def test_a_call_is_accepted_only_with_a_play_that_needs_it(edition: str) -> None:
    """1.8.7: no early call."""
    state = position(edition, ["R2 G3 B4", "G1", "G2", "G3"])
    assert "R2!" not in moves(state, 0)
    refused(state, 0, "R2!", "SOLO may only be called")
    state = position(edition, ["R2 G3", "G1", "G2", "G3"])
    assert {"R2", "R2!"} <= moves(state, 0)
    act(state, 0, "R2!")
    assert (state.solo_seat, state.solo_called) == (0, True)


@pytest.mark.parametrize(
    ("edition", "left", "needs"),
    [
        ("anniversary", "G3", True),
        ("classic", "G3", True),
        ("anniversary", "G7 B7 Y7", True),  # one multiples play empties it
        ("anniversary", "G7 B7 Y7 R7", True),
        ("classic", "G7 B7 Y7", False),  # no multiples in classic
        ("anniversary", "G7 B7", False),
        ("anniversary", "G7 B7 Y8", False),
        ("anniversary", "Ggift R1 B2", True),  # a Gift and at most 2 other cards
        ("anniversary", "Ggift R1", True),
        ("anniversary", "Ggift R1 B2 Y3", False),
    ],
)
def test_which_hands_need_a_call(edition: str, left: str, needs: bool) -> None:
    state = position(edition, [f"R2 {left}", "G1", "G2", "G3"])
    assert state.needs_call([parse_card(t) for t in left.split()]) is needs
    assert ("R2!" in moves(state, 0)) is needs


def test_classic_a_missed_call_costs_2_cards_just_before_the_next_seats_action() -> None:
    """1.8.6: seat 0's 2 cards come off the pile before seat 1's own draw."""
    state = position("classic", ["R2 G3", "B1", "G2", "G4"], draw="Y1 Y2 Y3")
    assert act(state, 0, "R2") == ["play"]
    assert (state.solo_seat, state.solo_called) == (0, False)
    assert hand(state, 0) == ["G3"]
    events = state.apply(1, parse_action("draw"))
    assert [(e.kind, e.seat) for e in events] == [("penalty", 0), ("draw", 1)]
    assert hand(state, 0) == cards("G3 Y3 Y2")
    assert hand(state, 1) == cards("B1 Y1")
    assert state.solo_seat is None


def test_classic_a_call_made_with_the_play_costs_nothing() -> None:
    state = position("classic", ["R2 G3", "B1", "G2", "G4"], draw="Y1 Y2 Y3")
    act(state, 0, "R2!")
    assert act(state, 1, "draw") == ["draw"]
    assert hand(state, 0) == ["G3"] and state.solo_seat is None


def test_classic_has_no_late_call_and_no_catch() -> None:
    state = position("classic", ["R2 G3", "B1", "G2", "G4"], draw="Y1 Y2 Y3")
    act(state, 0, "R2")
    assert "solo" not in legal(state, 0) and not any(a.startswith("catch") for a in legal(state, 2))
    refused(state, 0, "solo", "no missed SOLO call")
    refused(state, 2, "catch:0", "catching is not part of these rules")


def test_classic_the_missed_call_is_not_charged_for_the_same_seats_next_action() -> None:
    """Two players: a Skip leaves one card uncalled; the same seat moves again and goes out."""
    state = position("classic", ["Rskip R3", "B1 B2"], draw="Y1 Y2")
    act(state, 0, "Rskip")
    assert state.turn == 0 and state.solo_seat == 0
    assert act(state, 0, "R3") == ["play", "out"]
    assert len(state.draw) == 2


def test_classic_a_missed_call_on_a_jump_in_is_charged_too() -> None:
    state = after_play("classic", ["R9 G2", "R1 G3", "R2 G4", "R7 G5"], laid_by=0, turn=1,
                       draw="Y1 Y2 Y3")
    act(state, 3, "R7")
    act(state, 0, "R9")
    assert hand(state, 3) == cards("G5 Y3 Y2")


def test_anniversary_late_call_until_another_seat_acts() -> None:
    state = position("anniversary", ["R2 G3", "B1 R8", "G2", "G4"], draw="Y1 Y2 Y3")
    act(state, 0, "R2")
    assert "solo" in legal(state, 0)
    assert act(state, 0, "solo") == ["call"]
    assert (state.solo_seat, state.solo_called) == (0, True)
    assert state.turn == 1  # a call is not a turn
    refused(state, 0, "solo", "no missed SOLO call")


def test_anniversary_a_missed_call_is_free_unless_caught() -> None:
    state = position("anniversary", ["R2 G3", "B1 B2 R8", "G2", "G4"], draw="Y1 Y2 Y3")
    act(state, 0, "R2")
    assert act(state, 1, "R8") == ["play"]
    assert hand(state, 0) == ["G3"] and state.solo_seat is None
    refused(state, 0, "solo", "no missed SOLO call")
    # the window has closed: a catch now is a false catch
    act(state, 2, "catch:0")
    assert hand(state, 0) == ["G3"] and hand(state, 2) == cards("G2 Y3 Y2")


def test_anniversary_catch_of_a_missed_call_costs_2_cards() -> None:
    state = position("anniversary", ["R2 G3", "B1 R8", "G2", "G4"], draw="Y1 Y2 Y3 Y4 Y5")
    act(state, 0, "R2")
    events = state.apply(3, parse_action("catch:0"))
    assert [(e.kind, e.seat) for e in events] == [("catch", 3)]
    assert hand(state, 0) == cards("G3 Y5 Y4") and hand(state, 3) == ["G4"]
    assert state.solo_seat is None and state.turn == 1
    # paid once: catching again is a false catch, and there is no late call left
    assert "solo" not in legal(state, 0)
    act(state, 2, "catch:0")
    assert hand(state, 0) == cards("G3 Y5 Y4") and hand(state, 2) == cards("G2 Y3 Y2")


def test_anniversary_false_catch_of_a_player_who_called() -> None:
    state = position("anniversary", ["R2 G3", "B1 R8", "G2", "G4"], draw="Y1 Y2 Y3")
    act(state, 0, "R2!")
    events = state.apply(2, parse_action("catch:0"))
    assert events[0].kind == "false_catch"
    assert hand(state, 0) == ["G3"] and hand(state, 2) == cards("G2 Y3 Y2")


def test_anniversary_false_catch_of_a_player_with_no_open_call() -> None:
    state = position("anniversary", ["R2 G3 B5", "B1 R8", "G2", "G4"], draw="Y1 Y2 Y3")
    act(state, 2, "catch:1")
    assert hand(state, 1) == cards("B1 R8") and hand(state, 2) == cards("G2 Y3 Y2")
    assert state.turn == 0


@pytest.mark.parametrize("penalty", [0, 3])
def test_false_catch_penalty_is_an_option(penalty: int) -> None:
    state = position("anniversary", ["R2 G3 B5", "B1 R8", "G2", "G4"], draw="Y1 Y2 Y3 Y4",
                     options={"false_catch_penalty": penalty})
    act(state, 2, "catch:1")
    assert len(state.hands[2]) == 1 + penalty and len(state.draw) == 4 - penalty


def test_a_false_catch_of_another_seat_leaves_the_open_window() -> None:
    """1.8.6: a catch does not close the SOLO window."""
    state = position("anniversary", ["R2 G3", "B1 R8", "G2", "G4"], draw="Y1 Y2 Y3 Y4 Y5")
    act(state, 0, "R2")
    act(state, 3, "catch:1")
    assert state.solo_seat == 0 and not state.solo_called
    act(state, 2, "catch:0")
    assert len(state.hands[0]) == 3


def test_a_catch_can_be_tried_at_any_moment_also_out_of_turn() -> None:
    state = position("anniversary", ["R2 G3 B5", "B1 R8", "G2", "G4"])
    for seat in range(4):
        assert {f"catch:{t}" for t in range(4) if t != seat} <= legal(state, seat)
    assert state.actors() == [0, 1, 2, 3]


def test_a_call_is_due_after_a_jump_in_and_a_gift() -> None:
    state = after_play("anniversary", ["G1 G2", "R1 G3", "R2 G4", "R7 G5"], laid_by=0, turn=1)
    assert {"R7", "R7!"} <= moves(state, 3)
    state = position("anniversary", ["Rgift R1 G2 B3", "Y1", "Y2 Y3", "Y4"])
    assert "Rgift:2:R1,G2!" in moves(state, 0)
    act(state, 0, "Rgift:2:R1,G2")
    assert (state.solo_seat, state.solo_called) == (0, False)
    assert "solo" in legal(state, 0)


def test_hands_received_by_swap_need_no_call() -> None:
    """Without Protection in the deck a Swap never takes "!" (docs/rules.md 1.8.14)."""
    state = position("classic", ["Rswap G1", "Y1 Y2", "B1", "Y3 Y4"], draw="Y5 Y6 Y7 Y8",
                     options={"call": "window"})
    assert "Rswap:2!" not in moves(state, 0)
    refused(state, 0, "Rswap:2!", "SOLO may only be called")
    act(state, 0, "Rswap:2")
    assert (hand(state, 0), hand(state, 2)) == (["B1"], ["G1"])
    assert state.solo_seat is None
    assert "solo" not in legal(state, 0) and "solo" not in legal(state, 2)
    act(state, 1, "catch:0")  # false catch: nothing was due
    assert hand(state, 0) == ["B1"] and len(state.hands[1]) == 4


def test_hands_received_by_pass_hands_need_no_call() -> None:
    state = position("classic", ["pass G1", "Y1 Y2", "B1", "Y3 Y4"], draw="Y5 Y6 Y7 Y8")
    assert "pass!" not in moves(state, 0)
    act(state, 0, "pass")
    assert hand(state, 1) == ["G1"] and state.solo_seat is None
    act(state, 1, "G1")  # seat 1 goes out: nobody was charged for a missed call
    assert state.winner == 1 and len(state.draw) == 4


# --- 1.5.3 / 1.6 Protection ---------------------------------------------------------------
@pytest.mark.parametrize(("discard", "kind", "penalty"), [("Rd2", "d2", 2), ("wd4", "wd4", 4)])
def test_protection_on_your_turn_against_a_pending_penalty(discard: str, kind: str, penalty: int) -> None:
    state = position("anniversary", ["G1 G2", "protB G3 G4", "R1 B1 G9", "R3"], discard=discard,
                     colour="R", penalty=penalty, penalty_kind=kind, turn=1, draw="Y1 Y2 Y3 Y4")
    assert moves(state, 1) == {"protB", "draw"}
    act(state, 1, "protB")
    assert (state.penalty, state.penalty_kind, top(state), state.colour, state.turn) == (
        0, None, "protB", "B", 2)
    assert hand(state, 1) == cards("G3 G4") and len(state.draw) == 4
    assert moves(state, 2) == {"B1", "draw"}  # its lightning colour binds (1.8.4)


def test_protection_after_a_wild_ignores_the_named_colour() -> None:
    state = position("anniversary", ["G1 G2", "protY R1 R2", "Y1 G5 G6", "R3"], discard="wild", colour="G",
                     turn=1)
    assert moves(state, 1) == {"protY", "draw"}
    act(state, 1, "protY")
    assert (top(state), state.colour, state.turn) == ("protY", "Y", 2)
    assert moves(state, 2) == {"Y1", "draw"}


def test_a_skip_opens_a_window_when_its_target_holds_a_protection() -> None:
    """1.8.2."""
    state = position("anniversary", ["Rskip G1 G2", "protG R1 R2", "R3 G4", "R4 G5"])
    assert act(state, 0, "Rskip") == ["play"]
    assert state.react is not None and state.react.kind == "skip" and state.react.pending == [1]
    assert (state.turn, state.to_move()) == (None, 1)
    assert moves(state, 1) == {"protG", "decline"}
    assert moves(state, 2) == set() and moves(state, 0) == set()
    refused(state, 1, "R1", "Protection window is open")
    refused(state, 1, "draw", "Protection window is open")
    refused(state, 2, "R3", "waiting for seat 1")
    refused(state, 2, "decline", "waiting for seat 1")


def test_protection_against_a_skip_is_the_targets_play() -> None:
    state = position("anniversary", ["Rskip G1 G2", "protG R1 R2", "R3 G4", "R4 G5"])
    act(state, 0, "Rskip")
    events = state.apply(1, parse_action("protG"))
    assert [(e.kind, e.seat) for e in events] == [("play", 1), ("protect", 1)]
    assert (state.react, top(state), state.colour, state.turn) == (None, "protG", "G", 2)
    assert hand(state, 1) == cards("R1 R2")
    assert moves(state, 2) == {"G4", "G4!", "draw"}  # the lightning colour binds


def test_declining_against_a_skip_is_being_skipped() -> None:
    state = position("anniversary", ["Rskip G1 G2", "protG R1 R2", "R3 G4", "R4 G5"])
    act(state, 0, "Rskip")
    events = state.apply(1, parse_action("decline"))
    assert [(e.kind, e.seat) for e in events] == [("decline", 1), ("skipped", 1)]
    assert (state.react, top(state), state.colour, state.turn) == (None, "Rskip", "R", 2)
    assert hand(state, 1) == cards("protG R1 R2")


def test_no_skip_window_without_a_protection_in_the_targets_hand() -> None:
    state = position("anniversary", ["Rskip G1 G2", "R1 R2", "protG R3", "R4 G5"])
    act(state, 0, "Rskip")
    assert (state.react, state.turn) == (None, 2)


def test_protection_against_a_skip_with_two_players() -> None:
    state = position("anniversary", ["Rskip G1 G2", "protB R1 R2"])
    act(state, 0, "Rskip")
    assert state.to_move() == 1
    act(state, 1, "protB")
    assert (state.turn, state.colour) == (0, "B")


def test_a_skip_jump_in_replaces_the_window() -> None:
    """1.8.8: seat 3 jumps in with the identical Skip; seat 0 is skipped, seat 1 moves."""
    state = position("anniversary", ["Rskip G1 G2", "protG R1 R2", "R3 G4", "Rskip G5 G6"])
    act(state, 0, "Rskip")
    assert "Rskip" in moves(state, 3)
    events = state.apply(3, parse_action("Rskip"))
    assert [(e.kind, e.seat) for e in events] == [("play", 3), ("skipped", 0)]
    assert (state.react, state.turn, state.laid_by) == (None, 1, 3)
    assert hand(state, 1) == cards("protG R1 R2")


def test_the_skipped_target_may_jump_in_with_the_identical_skip() -> None:
    state = position("anniversary", ["Rskip G1 G2", "protG Rskip R2", "R3 G4", "R4 G5"])
    act(state, 0, "Rskip")
    assert {"protG", "decline", "Rskip"} == moves(state, 1)
    act(state, 1, "Rskip")
    assert (state.react, state.turn, hand(state, 1)) == (None, 3, cards("protG R2"))


def test_protection_cancels_a_gift() -> None:
    state = position("anniversary", ["Rgift R1 G2 B3", "Y1 G7 G9", "protY Y5", "Y4 G8"])
    act(state, 0, "Rgift:2:R1,G2")
    assert state.react is not None and state.react.kind == "gift" and state.react.pending == [2]
    assert state.to_move() == 2 and moves(state, 2) == {"protY", "protY!", "decline"}
    refused(state, 1, "Y1", "waiting for seat 2")
    events = state.apply(2, parse_action("protY"))
    assert [e.kind for e in events] == ["play", "protect"]
    assert hand(state, 0) == cards("R1 G2 B3") and hand(state, 2) == ["Y5"]
    assert (state.snapshot()["react"], top(state), state.colour, state.turn) == (None, "protY", "Y", 1)
    assert moves(state, 1) == {"Y1", "draw"}


def test_declining_a_gift_lets_it_happen() -> None:
    state = position("anniversary", ["Rgift R1 G2 B3", "Y1 G7 G9", "protY Y5", "Y4 G8"])
    act(state, 0, "Rgift:2:R1,G2")
    assert act(state, 2, "decline") == ["decline", "gift"]
    assert hand(state, 0) == ["B3"] and hand(state, 2) == cards("protY Y5 R1 G2")
    assert (state.react, top(state), state.turn) == (None, "Rgift", 1)


def test_a_gift_of_the_last_cards_cancelled_by_protection_the_round_goes_on() -> None:
    """1.8.5."""
    state = position("anniversary", ["Rgift R1 G2", "Y1 G7", "protY Y5", "Y4 G8"])
    act(state, 0, "Rgift:2:R1,G2")
    assert state.winner is None
    act(state, 2, "protY")
    assert (state.winner, hand(state, 0), state.turn) == (None, cards("R1 G2"), 1)


def test_a_gift_of_the_last_cards_declined_ends_the_round() -> None:
    state = position("anniversary", ["Rgift R1 G2", "Y1 G7", "protY Y5", "Y4 G8"])
    act(state, 0, "Rgift:2:R1,G2")
    assert act(state, 2, "decline") == ["decline", "gift", "out"]
    assert state.winner == 0 and hand(state, 2) == cards("protY Y5 R1 G2")


def test_protection_cancels_a_swap_the_swappers_next_player_moves() -> None:
    state = position("anniversary", ["Rswap G1 G2", "Y1 G7", "B4 protB B5", "Y4 G8"])
    act(state, 0, "Rswap:2")
    assert state.to_move() == 2 and moves(state, 2) == {"protB", "decline"}
    act(state, 2, "protB")
    assert hand(state, 0) == cards("G1 G2") and hand(state, 2) == cards("B4 B5")
    assert (state.react, top(state), state.colour, state.turn) == (None, "protB", "B", 1)


def test_declining_a_swap_lets_it_happen_the_target_moves_next() -> None:
    state = position("anniversary", ["Rswap G1 G2", "Y1 G7", "B4 protB B5", "Y4 G8"])
    act(state, 0, "Rswap:2")
    assert act(state, 2, "decline") == ["decline", "swap"]
    assert hand(state, 0) == cards("B4 protB B5") and hand(state, 2) == cards("G1 G2")
    assert (state.react, state.turn) == (None, 2)


def test_pass_hands_opens_a_window_for_every_holder_the_protected_keep_their_hands() -> None:
    state = position("anniversary", ["pass R1 R2", "G1", "protR B1 B2", "protG Y1"])
    act(state, 0, "pass")
    assert state.react is not None and state.react.kind == "pass" and state.react.pending == [2, 3]
    assert moves(state, 1) == set() and moves(state, 0) == set()
    assert moves(state, 2) == {"protR", "decline"} and moves(state, 3) == {"protG", "protG!", "decline"}
    assert act(state, 3, "decline") == ["decline"]
    assert state.react is not None  # seat 2 still to answer; nothing has moved
    assert hand(state, 1) == ["G1"]
    assert act(state, 2, "protR") == ["play", "protect", "pass"]
    # the others pass around seat 2: 0 -> 1 -> 3 -> 0
    assert [hand(state, s) for s in range(4)] == [
        cards("protG Y1"), cards("R1 R2"), cards("B1 B2"), ["G1"]]
    assert (state.snapshot()["react"], top(state), state.colour, state.turn) == (None, "protR", "R", 1)
    assert moves(state, 1) == {"R1", "R1!", "R2", "R2!", "draw"}  # red binds, not "any card"


def test_pass_hands_every_holder_declines() -> None:
    state = position("anniversary", ["pass R1 R2", "G1", "protR B1 B2", "protG Y1"])
    act(state, 0, "pass")
    act(state, 2, "decline")
    assert act(state, 3, "decline") == ["decline", "pass"]
    assert [hand(state, s) for s in range(4)] == [
        cards("protG Y1"), cards("R1 R2"), ["G1"], cards("protR B1 B2")]
    assert (state.react, state.colour, state.turn) == (None, None, 1)


def test_pass_hands_protected_against_the_direction() -> None:
    state = position("anniversary", ["pass R1 R2", "protG G1", "B1 B2", "Y1 Y2 Y3"], direction=-1)
    act(state, 0, "pass")
    act(state, 1, "protG")
    # order 0 -> 3 -> 2 -> (1 protected) -> 0
    assert [hand(state, s) for s in range(4)] == [
        cards("B1 B2"), ["G1"], cards("Y1 Y2 Y3"), cards("R1 R2")]
    assert (state.turn, state.colour) == (3, "G")


def test_a_protection_window_opens_only_for_holders() -> None:
    state = position("anniversary", ["Rgift R1 G2 B3", "Y1 G7", "Y5 Y6", "Y4 G8"])
    act(state, 0, "Rgift:2:R1,G2")
    assert state.react is None and state.turn == 1
    state = position("anniversary", ["pass R1 R2", "G1", "B1 B2", "Y1"])
    act(state, 0, "pass")
    assert state.react is None and state.turn == 1 and hand(state, 1) == cards("R1 R2")


def test_the_gift_window_is_only_for_the_target() -> None:
    state = position("anniversary", ["Rgift R1 G2 B3", "protR G7", "Y5 Y6", "protB G8"])
    act(state, 0, "Rgift:2:R1,G2")
    assert state.react is None and hand(state, 2) == cards("Y5 Y6 R1 G2")
    refused(state, 1, "decline", "no Protection window")


def test_calls_and_catches_stay_legal_in_a_protection_window() -> None:
    """1.8.8: seat 0's Skip left 1 card uncalled; seat 3 catches while seat 1 decides."""
    state = position("anniversary", ["Rskip G1", "protG R1 R2", "R3 G4", "R4 G5"], draw="Y1 Y2")
    act(state, 0, "Rskip")
    assert "solo" in legal(state, 0)
    act(state, 3, "catch:0")
    assert hand(state, 0) == cards("G1 Y2 Y1")
    assert state.react is not None and state.to_move() == 1


def test_protection_played_in_a_window_may_carry_the_call() -> None:
    state = position("anniversary", ["Rskip G1 G2", "protG R1", "R3 G4", "R4 G5"])
    act(state, 0, "Rskip")
    assert {"protG", "protG!", "decline"} == moves(state, 1)
    act(state, 1, "protG!")
    assert (state.solo_seat, state.solo_called, state.turn) == (1, True, 2)


def test_the_skipped_player_may_jump_in_with_the_identical_skip() -> None:
    state = position("classic", ["Rskip G1 G2", "Rskip R1 R2", "R3 G4", "R4 G5"])
    act(state, 0, "Rskip")
    assert state.turn == 2 and "Rskip" in moves(state, 1)
    events = state.apply(1, parse_action("Rskip"))
    assert [(e.kind, e.seat) for e in events] == [("play", 1), ("skipped", 2)]
    assert state.turn == 3


def test_a_protection_as_the_last_card_wins_the_round() -> None:
    state = position("anniversary", ["Rswap G1 G2", "Y1 G7", "protB", "Y4 G8"])
    act(state, 0, "Rswap:2")
    assert act(state, 2, "protB") == ["play", "out"]
    assert (state.winner, hand(state, 0), state.react) == (2, cards("G1 G2"), None)


def test_the_player_who_opened_a_window_waits_too() -> None:
    state = position("anniversary", ["Rgift R1 G2 B3 R9", "Y1 G7", "protY Y5", "Y4 G8"])
    act(state, 0, "Rgift:2:R1,G2")
    refused(state, 0, "R9", "waiting for seat 2")
    refused(state, 0, "draw", "waiting for seat 2")


# --- 1.8.14: the call on a Gift, Swap or Pass hands is judged once the effect is settled ------
@pytest.mark.parametrize(("play", "caught"), [("Rswap:2!", False), ("Rswap:2", True)])
def test_a_cancelled_swap_leaves_the_swapper_a_hand_that_needs_a_call_rule_1_8_14(
        play: str, caught: bool) -> None:
    """docs/rules.md 1.8.14: "!" on a Swap is accepted when a Protection could cancel it and the
    hand kept would need a call; seat 2 protects, seat 0 keeps G1: the call was due."""
    state = position("anniversary", ["Rswap G1", "Y1 G7", "protB B5 B6", "Y4 G8"], draw="Y5 Y6 Y7")
    assert {"Rswap:2", "Rswap:2!"} <= moves(state, 0)
    act(state, 0, play)
    assert state.solo_seat is None  # nothing is judged while the window is open
    assert state.observation(3)["react"]["call"] is play.endswith("!")
    act(state, 2, "protB")
    assert hand(state, 0) == ["G1"] and (state.solo_seat, state.solo_called) == (0, not caught)
    act(state, 3, "catch:0")
    assert len(state.hands[0]) == (3 if caught else 1) and len(state.hands[3]) == (2 if caught else 4)


def test_a_call_on_a_swap_that_goes_through_is_void_rule_1_8_14() -> None:
    """The Swap goes through: seat 0 holds a received hand, the "!" costs and opens nothing."""
    state = position("anniversary", ["Rswap G1", "Y1 G7", "B5 B6", "Y4 G8"], draw="Y5 Y6 Y7")
    act(state, 0, "Rswap:2!")
    assert hand(state, 0) == cards("B5 B6") and state.solo_seat is None
    assert "solo" not in legal(state, 0)
    assert act(state, 3, "catch:0") == ["false_catch"]


def test_classic_a_cancelled_gift_keeps_three_cards_and_no_call_is_due_rule_1_8_14() -> None:
    """The issue's case: classic calls with gifts and Protection. Giving R1 G2 would leave B3,
    but the target protects and the giver keeps three cards: no call was due, no penalty."""
    state = position("classic", ["Rgift R1 G2 B3", "protY Y1 Y2", "Y3 Y4", "G4 B4"], draw="G5 G6 G7",
                     options={"gifts": True, "protection": True})
    act(state, 0, "Rgift:1:R1,G2")
    act(state, 1, "protY")
    assert hand(state, 0) == cards("R1 G2 B3") and state.solo_seat is None
    assert act(state, 1, "Y1") == ["play"]  # seat 1 moves next: no penalty for seat 0
    assert hand(state, 0) == cards("R1 G2 B3")


def test_classic_a_gift_that_goes_through_is_judged_on_the_hand_left_rule_1_8_14() -> None:
    """The target declines: the Gift leaves B3 and the missing call costs 2 cards when the
    next seat acts (with_play)."""
    state = position("classic", ["Rgift R1 G2 B3", "protY Y1 Y2", "Y3 Y4", "G4 B4"], draw="G5 G6 G7",
                     options={"gifts": True, "protection": True})
    act(state, 0, "Rgift:1:R1,G2")
    act(state, 1, "decline")
    assert hand(state, 0) == ["B3"] and (state.solo_seat, state.solo_called) == (0, False)
    assert act(state, 1, "R1") == ["penalty", "play"]  # R1 is one of the cards given
    assert hand(state, 0) == cards("B3 G7 G6")


@pytest.mark.parametrize("call", [True, False])
def test_a_gift_of_the_last_card_takes_a_call_for_the_case_it_is_cancelled_rule_1_8_14(
        call: bool) -> None:
    """Rgift giving the last card wins unless cancelled; cancelled, R5 stays: a call is due."""
    state = position("anniversary", ["Rgift R5", "protR Y1 Y2", "Y3 Y4", "G4 B4"], draw="G5 G6 G7")
    assert {"Rgift:1:R5", "Rgift:1:R5!"} <= moves(state, 0)
    act(state, 0, "Rgift:1:R5" + ("!" if call else ""))
    act(state, 1, "protR")
    assert hand(state, 0) == ["R5"] and (state.solo_seat, state.solo_called) == (0, call)
    act(state, 2, "catch:0")
    assert len(state.hands[0]) == (1 if call else 3)


def test_a_pass_hands_that_everyone_else_protects_against_rule_1_8_14() -> None:
    """Everyone else protects: seat 0 keeps its G1, so the call made with the pass counts."""
    state = position("anniversary", ["pass G1", "protR Y1 Y2", "protB Y3 Y4"], draw="G5 G6 G7")
    assert {"pass", "pass!"} <= moves(state, 0)
    act(state, 0, "pass!")
    act(state, 1, "protR")
    assert state.solo_seat is None
    act(state, 2, "protB")
    assert hand(state, 0) == ["G1"] and (state.solo_seat, state.solo_called) == (0, True)
    assert act(state, 1, "catch:0") == ["false_catch"]


def test_a_pass_hands_that_goes_through_voids_the_call_rule_1_8_14() -> None:
    state = position("anniversary", ["pass G1", "protR Y1 Y2", "Y3 Y4"], draw="G5 G6 G7")
    act(state, 0, "pass!")
    act(state, 1, "decline")
    assert hand(state, 0) == cards("Y3 Y4") and state.solo_seat is None


def test_classic_the_protector_and_the_cancelled_player_both_due_rule_1_8_17() -> None:
    """docs/rules.md 1.8.17: the Protection leaves its player Y2 and the cancelled Gift leaves
    seat 0 its G1: two windows. Seat 1 (the protector) moves next: its action closes seat 0's
    window (2 cards then, not at the Protection) and not its own, which seat 2 closes."""
    state = position("classic", ["Rgift G1", "protR Y2", "Y3 Y4", "G4 B4"], draw="G5 G6 G7 G8",
                     options={"gifts": True, "protection": True})
    act(state, 0, "Rgift:1:G1")
    assert act(state, 1, "protR") == ["play", "protect"]
    assert hand(state, 0) == ["G1"]
    assert act(state, 1, "draw") == ["penalty", "draw"]  # seat 0's miss; its own window stays open
    assert hand(state, 0) == cards("G1 G8 G7") and hand(state, 1) == cards("Y2 G6")
    assert act(state, 2, "draw")[0] == "penalty"  # seat 1's own miss, as usual
    assert len(state.hands[1]) == 4


def test_classic_a_missed_call_is_charged_even_when_the_next_play_ends_the_round() -> None:
    state = position("classic", ["R2 G3", "R8", "G2", "G4"], draw="Y1 Y2 Y3")
    act(state, 0, "R2")
    assert act(state, 1, "R8") == ["penalty", "play", "out"]
    assert state.round_scores() == [-(3 + 3 + 2), 0, -2, -4]


def test_catching_yourself_or_a_seat_that_does_not_exist_is_refused() -> None:
    state = position("anniversary", ["R2 G3", "B1 R8", "G2", "G4"])
    act(state, 0, "R2")
    refused(state, 0, "catch:0", "cannot catch seat 0")
    refused(state, 1, "catch:4", "cannot catch seat 4")
    before = state.snapshot()
    with pytest.raises(IllegalAction, match="no seat 4"):
        state.apply(4, parse_action("catch:0"))
    assert state.snapshot() == before


def test_in_a_gift_or_swap_window_even_an_identical_card_cannot_jump_in() -> None:
    """1.8.8: only a Skip window admits jump-ins. (A made-up position: a real deck holds one
    Swap per colour, so nobody could hold the twin.)"""
    state = position("anniversary", ["Rswap G1 G2", "Rswap G7 G9", "protB B5", "Y4 G8"])
    act(state, 0, "Rswap:2")
    assert state.react is not None and state.jump is True
    assert moves(state, 1) == set()
    refused(state, 1, "Rswap:3", "waiting for seat 2")


# --- 1.8.6 / 1.8.15: a seat's own later plays never close nor make up its missed call -------
def anniversary_two(hands: list[str], **options: Any) -> State:
    """The issue's 2-player anniversary position: top R3, seat 0 to play."""
    return position("anniversary", hands, discard="R3", draw="G1 G2 G3 G4 G6 G7 G8 G9",
                    options=options)


def test_own_later_play_does_not_close_a_missed_call_rule_1_8_15() -> None:
    """docs/rules.md 1.8.6, 1.8.15: Rrev leaves 5-5-5 (one play could empty it), no call; the
    Reverse lets seat 0 play again, and its R5 leaves a hand that needs no call. The miss
    stands: seat 1's catch is genuine and seat 0 draws 2."""
    state = anniversary_two(["Rrev R5 G5 B5", "Y1 Y2 Y3 Y4"])
    act(state, 0, "Rrev")
    assert (state.solo_seat, state.solo_called, state.turn) == (0, False, 0)
    act(state, 0, "R5")
    assert (state.solo_seat, state.solo_called) == (0, False)
    assert act(state, 1, "catch:0") == ["catch"]
    assert hand(state, 0) == cards("G5 B5 G9 G8") and hand(state, 1) == cards("Y1 Y2 Y3 Y4")


def test_own_later_play_with_the_call_does_not_make_up_a_miss_rule_1_8_15() -> None:
    """docs/rules.md 1.8.15, "with solo or without": the R5! that leaves 5-5-5 is a due call made,
    yet the earlier miss stands until a late call or another seat's action."""
    state = anniversary_two(["Rrev R5 G5 B5 Y5", "Y1 Y2 Y3 Y4"])
    act(state, 0, "Rrev")
    act(state, 0, "R5!")
    assert (state.solo_seat, state.solo_called) == (0, False)
    assert "solo" in legal(state, 0)  # the late call is what makes it up
    act(state, 0, "solo")
    assert act(state, 1, "catch:0") == ["false_catch"]


def test_a_new_due_call_after_a_made_one_can_be_missed_rule_1_8_15() -> None:
    """A called window stays open over the seat's own plays; a later play that needs a call
    again and is played without one is a miss."""
    state = anniversary_two(["Rrev R5 G5 B5 Y5", "Y1 Y2 Y3 Y4"])
    act(state, 0, "Rrev!")
    act(state, 0, "R5")
    assert (state.solo_seat, state.solo_called) == (0, False)
    assert act(state, 1, "catch:0") == ["catch"]


def test_own_later_play_keeps_the_with_play_penalty_rule_1_8_15() -> None:
    """The same position in call-with-play mode: the 2 cards are drawn just before seat 1 acts."""
    state = anniversary_two(["Rrev R5 G5 B5", "Y1 Y2 Y3 Y4"], call="with_play")
    act(state, 0, "Rrev")
    act(state, 0, "R5")
    assert act(state, 1, "draw") == ["penalty", "draw"]
    assert hand(state, 0) == cards("G5 B5 G9 G8")


# --- 1.8.17: several SOLO windows at once ---------------------------------------------------
def swap_protected(protector: str = "protB G1", **options: Any) -> State:
    """The issue's position (3 players, top R6): seat 0 swaps with seat 1 and seat 1 protects,
    neither with a call. Seat 0 keeps B1; seat 1 keeps the rest of ``protector``."""
    state = position("anniversary", ["Rswap B1", protector, "Y1 Y2 Y3"], discard="R6",
                     draw="G5 G6 G7 G8", options=options)
    act(state, 0, "Rswap:1")
    act(state, 1, "protB")
    return state


@pytest.mark.parametrize(("protector", "owes"), [("protB G1", True), ("protB G1 G2", False)])
def test_the_cancelled_player_and_the_protector_each_have_a_window_rule_1_8_17(
        protector: str, owes: bool) -> None:
    """The issue's minimal case: both owe a call; seat 2 catches seat 0 (genuine: seat 0 draws
    2), then seat 1 (a catch closes no window). The control: a protector left with 2 cards owes
    no call, and only seat 0's window is open (as before 1.8.17)."""
    state = swap_protected(protector)
    assert hand(state, 0) == ["B1"] and state.turn == 1
    assert "solo" in legal(state, 0) and ("solo" in legal(state, 1)) is owes
    assert act(state, 2, "catch:0") == ["catch"]
    assert hand(state, 0) == cards("B1 G8 G7") and hand(state, 2) == cards("Y1 Y2 Y3")
    assert act(state, 2, "catch:1") == (["catch"] if owes else ["false_catch"])
    assert hand(state, 1) == (cards("G1 G6 G5") if owes else cards("G1 G2"))
    assert len(state.hands[2]) == (3 if owes else 5)


def test_the_protector_may_catch_the_player_it_cancelled_rule_1_8_17() -> None:
    state = swap_protected()
    assert act(state, 1, "catch:0") == ["catch"]
    assert hand(state, 0) == cards("B1 G8 G7") and hand(state, 1) == ["G1"]
    assert "solo" in legal(state, 1)  # its own window stays open, uncalled
    assert act(state, 0, "catch:1") == ["catch"]
    assert hand(state, 1) == cards("G1 G6 G5")


def test_the_cancelled_player_may_call_late_rule_1_8_17() -> None:
    """Today's "no missed SOLO call of yours" no more: seat 0's late call is accepted, and
    then only seat 1 can still be caught."""
    state = swap_protected()
    assert act(state, 0, "solo") == ["call"]
    assert "solo" not in legal(state, 0) and "solo" in legal(state, 1)
    assert act(state, 2, "catch:0") == ["false_catch"]
    assert act(state, 2, "catch:1") == ["catch"]
    assert hand(state, 0) == ["B1"] and hand(state, 1) == cards("G1 G6 G5")


def test_each_window_closes_with_an_action_of_another_seat_rule_1_8_17() -> None:
    """Seat 1's turn closes seat 0's window, not its own; seat 2's closes seat 1's."""
    state = swap_protected()
    assert "solo" in legal(state, 0) and "solo" in legal(state, 1)
    assert act(state, 1, "draw") == ["draw"]  # G8 does not fit on Blue: seat 2's turn
    assert "solo" not in legal(state, 0) and "solo" in legal(state, 1)
    assert act(state, 2, "catch:0") == ["false_catch"]
    assert act(state, 2, "draw") == ["draw"]
    assert "solo" not in legal(state, 1)
    assert act(state, 0, "catch:1") == ["false_catch"]


def test_a_pass_hands_everyone_protects_leaves_the_last_protector_and_the_passer_rule_1_8_17() -> None:
    """Seat 1 protects (Y1 left), then seat 2 (Y3 left): seat 2's Protection closes seat 1's
    window; seat 0 kept G1. Open: seat 2's window and seat 0's."""
    state = position("anniversary", ["pass G1", "protR Y1", "protB Y3"], draw="G5 G6 G7 G8")
    act(state, 0, "pass")
    act(state, 1, "protR")
    act(state, 2, "protB")
    assert [s for s in range(3) if "solo" in legal(state, s)] == [0, 2]
    assert act(state, 1, "catch:0") == ["catch"]
    assert act(state, 1, "catch:2") == ["catch"]
    assert act(state, 0, "catch:1") == ["false_catch"]
    assert [len(h) for h in state.hands] == [1 + 2 + 2, 1, 1 + 2]


@pytest.mark.parametrize("kind", ["gift", "swap"])
def test_classic_the_protector_draws_first_when_both_windows_close_together_rule_1_8_17(
        kind: str) -> None:
    """Call-with-play, 3 players, draw pile G4..G8 (G8 on top). Gift: seat 2 protects and
    seat 1 moves next, closing both windows: seat 2 draws G8 G7, then seat 0 G6 G5, then seat 1
    draws G4. Swap (G3..G8): seat 1 protects and moves next, closing seat 0's window only
    (G8 G7); seat 2's action closes seat 1's."""
    options = {"gifts": True, "protection": True}
    if kind == "gift":
        state = position("classic", ["Rgift B1", "Y1 Y2 Y3", "protB G1"], discard="R6",
                         draw="G4 G5 G6 G7 G8", options=options)
        act(state, 0, "Rgift:2:B1")
        assert act(state, 2, "protB") == ["play", "protect"]  # nothing drawn yet
        assert state.turn == 1
        assert act(state, 1, "draw") == ["penalty", "penalty", "draw"]
        assert (hand(state, 2), hand(state, 0), hand(state, 1)) == (
            cards("G1 G8 G7"), cards("B1 G6 G5"), cards("Y1 Y2 Y3 G4"))
    else:
        state = position("classic", ["Rswap B1", "protB G1", "Y1 Y2 Y3"], discard="R6",
                         draw="G3 G4 G5 G6 G7 G8", options=options)
        act(state, 0, "Rswap:1")
        assert act(state, 1, "protB") == ["play", "protect"]
        assert act(state, 1, "draw") == ["penalty", "draw"]
        assert (hand(state, 0), hand(state, 1)) == (cards("B1 G8 G7"), cards("G1 G6"))
        assert act(state, 2, "draw") == ["penalty", "draw"]
        assert (hand(state, 1), hand(state, 2)) == (cards("G1 G6 G5 G4"), cards("Y1 Y2 Y3 G3"))


def test_two_windows_in_the_snapshot_and_the_observation_rule_1_8_17() -> None:
    """The protector's window first (its penalty is drawn first); a snapshot with two windows
    reads back the same."""
    state = swap_protected()
    snap = state.snapshot()
    assert snap["solo"] == {"seat": 1, "called": False}
    assert snap["solo_also"] == [{"seat": 0, "called": False}]
    assert State.from_snapshot(snap).snapshot() == snap
    obs = state.observation(2)
    assert (obs["solo"], obs["solo_also"]) == (snap["solo"], snap["solo_also"])


def test_a_snapshot_with_one_window_is_unchanged_so_old_logs_verify() -> None:
    """The digest of a one-window position, pinned before 1.8.17: logs written then replay."""
    state = swap_protected("protB G1 G2")
    assert "solo_also" not in state.snapshot() and state.snapshot()["solo"] == {"seat": 0, "called": False}
    assert state.digest() == "a2b18bd917b95c4a14e3945396276042be9702cac4b6ffc69f054f54e6f1821d"
    assert state.observation(2)["solo_also"] == []


@pytest.mark.parametrize("solo_also", [[{"seat": 1, "called": False}], [{"seat": 9, "called": True}], {},
                                       "x"])
def test_a_bad_second_window_in_a_snapshot_is_refused(solo_also: Any) -> None:
    snap = swap_protected().snapshot()
    snap["solo_also"] = solo_also
    with pytest.raises(ParseError, match="bad SOLO snapshot"):
        State.from_snapshot(snap)


def test_a_decline_closes_no_solo_window_rule_1_8_18() -> None:
    """docs/rules.md 1.8.6, 1.8.18: seat 0's Skip leaves B3 without the call; seat 1 declines the Skip.
    The missed call is still open after the decline: seat 2 catches it."""
    state = position("anniversary", ["Rskip B3", "protY Y1 Y2", "R3 Y4", "G4 B4"], draw="G5 G6 G7")
    act(state, 0, "Rskip")
    assert act(state, 1, "decline") == ["decline", "skipped"]
    assert (state.solo_seat, state.solo_called, state.turn, state.jump) == (0, False, 2, True)
    assert act(state, 2, "catch:0") == ["catch"]
    assert hand(state, 0) == cards("B3 G7 G6")


def test_classic_a_missed_call_costs_at_the_play_after_a_decline_not_at_it_rule_1_8_18() -> None:
    state = position("classic", ["Rskip B3", "protY Y1 Y2", "R3 Y4", "G4 B4"], draw="G5 G6 G7",
                     options={"gifts": True, "protection": True})
    act(state, 0, "Rskip")
    assert act(state, 1, "decline") == ["decline", "skipped"]
    assert hand(state, 0) == ["B3"] and (state.solo_seat, state.solo_called) == (0, False)
    assert act(state, 2, "R3") == ["penalty", "play"]
    assert hand(state, 0) == cards("B3 G7 G6")


def test_a_declined_gift_leaves_the_jump_in_and_the_window_open_rule_1_8_1_1_8_18() -> None:
    """Seat 0 plays its Gift leaving B3 without the call; seat 1 declines. The jump-in on the Gift
    stays open through the decline (1.8.1): seat 2 may jump in with the twin Gift; and so does seat 0's
    missed-call window (1.8.6): seat 3 catches it."""
    state = position("anniversary", ["Rgift R1 G2 B3", "protY Y1 Y2", "Rgift Y4 G9", "G4 B4"],
                     draw="G5 G6 G7", discard="R5")
    act(state, 0, "Rgift:1:R1,G2")
    assert act(state, 1, "decline") == ["decline", "gift"]
    assert state.jump and hand(state, 0) == ["B3"] and (state.solo_seat, state.solo_called) == (0, False)
    assert "Rgift:3:G9,Y4" in moves(state, 2)
    assert act(state, 3, "catch:0") == ["catch"]
    assert hand(state, 0) == cards("B3 G7 G6")
