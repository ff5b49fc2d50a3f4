"""The environments' chance and catch bookkeeping with two SOLO windows open (docs/rules.md 1.8.17):
a Protection against a Gift or a Swap leaves the protector and the cancelled player owing a call."""

from __future__ import annotations

from cardtable.engine.solo import parse_action
from cardtable.envs.chance import solo_cards_to_draw
from cardtable.envs.solo_codec import open_call_catches
from tests.engine.solo_helpers import act, position


def test_a_play_that_closes_the_second_window_draws_its_penalty() -> None:
    """Classic (call with the play): the protector calls with its Protection, seat 0 did not;
    seat 1's play closes seat 0's window, so 2 cards leave the draw pile."""
    state = position("classic", ["Rgift B1", "B5 Y2 Y3", "protB G1"], discard="R6", draw="G4 G5 G6 G7 G8",
                     options={"gifts": True, "protection": True})
    act(state, 0, "Rgift:2:B1")
    act(state, 2, "protB!")
    assert [(w.seat, w.called) for w in state.windows] == [(2, True), (0, False)]
    before = len(state.draw)
    assert solo_cards_to_draw(state, 1, parse_action("B5")) == 2
    act(state, 1, "B5")
    assert before - len(state.draw) == 2


def test_a_catch_of_either_open_window_is_offered() -> None:
    state = position("anniversary", ["Rswap B1", "protB G1", "Y1 Y2 Y3"], discard="R6")
    act(state, 0, "Rswap:1")
    act(state, 1, "protB")
    kept = open_call_catches(state, 2, state.legal_actions(2))
    catches = {str(a) for a in kept if str(a).startswith("catch")}
    assert catches == {"catch:0", "catch:1"}
