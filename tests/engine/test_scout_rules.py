"""SCOUT rules, one group of tests per numbered rule of docs/rules.md section 2.

Positions are set up with ``State.from_snapshot(position(...))``: ``position`` builds a
snapshot dict from readable pieces (hands and sets written as card texts).
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from cardtable.engine.errors import IllegalAction, ParseError
from cardtable.engine.game import Event
from cardtable.engine.games import game_module
from cardtable.engine.match import Match, snapshot_digest
from cardtable.engine.scout import (
    Card,
    Config,
    Scout,
    ScoutShow,
    Show,
    State,
    TurnChoice,
    new_round,
    parse_action,
    parse_card,
)
from cardtable.engine.scout.cards import DECK, deck_in_play
from cardtable.engine.shuffle import Stream

FLIP, KEEP = TurnChoice(True), TurnChoice(False)


# --- helpers ----------------------------------------------------------------------------
def cards(text: str) -> list[str]:
    """``"5/1 6/2"`` -> ``["5/1", "6/2"]``."""
    return text.split()


def position(
    hands: list[str],
    *,
    active: str = "",
    owner: int | None = None,
    turn: int | None = 0,
    phase: str = "play",
    chips: list[int] | None = None,
    captured: list[str] | None = None,
    scout_show: list[bool] | None = None,
    flipped: list[bool | None] | None = None,
    known: list[list[bool]] | None = None,
    round_no: int = 0,
    set_aside: str = "",
    exempt: int | None = None,
    seed: bytes = b"t",
) -> dict[str, Any]:
    """A snapshot dict: one hand text per seat (the player count is ``len(hands)``)."""
    n = len(hands)
    hand_lists = [cards(h) for h in hands]
    if owner is None and active:
        owner = (turn + n - 1) % n if turn is not None else 0
    return {
        "config": {"game": "scout", "players": n},
        "seed": seed.hex(),
        "round": round_no,
        "phase": phase,
        "turn": turn if phase == "play" else None,
        "flipped": flipped if flipped is not None else [False] * n,
        "hands": hand_lists,
        "known": known if known is not None else [[False] * len(h) for h in hand_lists],
        "active": cards(active),
        "owner": owner,
        "captured": [cards(c) for c in captured] if captured else [[] for _ in range(n)],
        "chips": chips if chips is not None else [3 if n == 2 else 0] * n,
        "scout_show": scout_show if scout_show is not None else [n > 2] * n,
        "set_aside": cards(set_aside),
        "exempt": exempt,
    }


def state(hands: list[str], **kw: Any) -> State:
    return State.from_snapshot(position(hands, **kw))


def hand(s: State, seat: int) -> str:
    return " ".join(s.observation(seat)["hand"])


def refuse(s: State, seat: int, action: Any, why: str = "") -> None:
    """``action`` is illegal for ``seat`` (message contains ``why``) and changes nothing."""
    before = s.snapshot()
    if isinstance(action, str):
        action = parse_action(action)
    assert action not in s.legal_actions(seat)
    with pytest.raises(IllegalAction, match=why or None):
        s.apply(seat, action)
    assert s.snapshot() == before


def all_keep(s: State) -> None:
    for seat in range(s.config.players):
        s.apply(seat, KEEP)


# --- 2.1 cards --------------------------------------------------------------------------
def test_deck_is_45_pairs_in_canonical_order() -> None:
    assert len(DECK) == 45 == len(set(DECK))
    assert DECK[:3] == ((1, 2), (1, 3), (1, 4))
    assert DECK[8:10] == ((1, 10), (2, 3))
    assert DECK[-1] == (9, 10)
    assert list(DECK) == sorted(DECK)
    assert all(1 <= a < b <= 10 for a, b in DECK)


@pytest.mark.parametrize(
    ("players", "in_play", "removed"),
    [
        (2, 44, {(9, 10)}),
        (3, 36, {(a, 10) for a in range(1, 10)}),
        (4, 44, {(9, 10)}),
        (5, 45, set()),
    ],
)
def test_cards_removed_per_player_count(players: int, in_play: int, removed: set[tuple[int, int]]) -> None:
    deck = deck_in_play(players)
    assert len(deck) == in_play
    assert set(DECK) - set(deck) == removed
    assert deck == [p for p in DECK if p not in removed]  # canonical order kept


@pytest.mark.parametrize(("players", "size", "aside"), [(2, 11, 22), (3, 12, 0), (4, 11, 0), (5, 9, 0)])
def test_hand_sizes_and_every_card_dealt(players: int, size: int, aside: int) -> None:
    s = new_round(Config(players), b"deal", 0)
    snap = s.snapshot()
    assert [len(h) for h in snap["hands"]] == [size] * players
    assert len(snap["set_aside"]) == aside
    dealt = [parse_card(t).pair for h in snap["hands"] for t in h]
    dealt += [parse_card(t).pair for t in snap["set_aside"]]
    assert sorted(dealt) == deck_in_play(players)


def test_deal_follows_the_documented_procedure() -> None:
    seed = b"scout-test"
    # Recompute the deal (the deterministic shuffle of docs/rules-notes.md) with the shuffle module.
    deck = [(a, b) for a in range(1, 11) for b in range(a + 1, 11) if (a, b) != (9, 10)]
    shuffled = Stream(seed, "scout/round/0/deal").shuffle(deck)
    orient = Stream(seed, "scout/round/0/orient")
    texts = []
    for a, b in shuffled:
        texts.append(f"{a}/{b}" if orient.below(2) == 0 else f"{b}/{a}")
    expected = [texts[seat::4] for seat in range(4)]  # start seat 0, one card each in turn
    s = new_round(Config(4), seed, 0)
    assert s.snapshot()["hands"] == expected
    # A frozen vector, so a change of procedure shows up even if both sides change.
    assert s.observation(0)["hand"] == cards("4/5 2/4 7/1 8/4 1/8 3/1 3/6 1/9 4/10 2/8 7/10")


def test_deal_of_a_later_round_uses_its_own_labels_and_start_seat() -> None:
    seed = b"scout-test"
    shuffled = Stream(seed, "scout/round/2/deal").shuffle(deck_in_play(3))
    orient = Stream(seed, "scout/round/2/orient")
    texts = [f"{a}/{b}" if orient.below(2) == 0 else f"{b}/{a}" for a, b in shuffled]
    s = new_round(Config(3), seed, 2)
    hands = s.snapshot()["hands"]
    assert hands[2] == texts[0::3]  # the start seat gets card 0
    assert hands[0] == texts[1::3]
    assert hands[1] == texts[2::3]


# --- 2.2 a round ------------------------------------------------------------------------
def test_whole_hand_turn_swaps_values_and_reverses_order() -> None:
    s = state(["1/2 5/3 10/4", "6/7"], phase="turn_choice", flipped=[None, None])
    events = s.apply(0, FLIP)
    assert hand(s, 0) == "4/10 3/5 2/1"
    assert events == [Event("flip", 0, "turns their whole hand around")]
    s.apply(1, KEEP)
    assert hand(s, 1) == "6/7"


def test_turn_choice_phase_all_seats_act_in_any_order() -> None:
    s = new_round(Config(4), b"x", 1)
    assert s.observation(0)["phase"] == "turn_choice"
    assert s.actors() == [0, 1, 2, 3]
    assert s.to_move() == 1  # first undecided from the start player
    assert all(s.legal_actions(seat) == [FLIP, KEEP] for seat in range(4))
    s.apply(3, FLIP)
    assert s.actors() == [0, 1, 2]
    refuse(s, 3, KEEP, "already chosen")
    s.apply(1, KEEP)
    assert s.to_move() == 2
    s.apply(2, KEEP)
    assert s.to_move() == 0
    refuse(s, 1, "show:0", "first chooses flip or keep")  # the start player waits for all
    refuse(s, 0, "show:0", "first chooses flip or keep")
    s.apply(0, FLIP)
    assert s.observation(2)["phase"] == "play"
    assert s.actors() == [1] and s.to_move() == 1
    assert s.observation(2)["flipped"] == [True, False, False, True]  # public
    refuse(s, 1, FLIP, "before the first play")


def test_hand_order_never_changes_except_by_show_and_scout() -> None:
    s = state(["3/1 9/2 5/4 6/1", "1/7"], active="8/2", owner=1, turn=0)
    actions = s.legal_actions(0)
    assert {type(a) for a in actions} == {Show, Scout}  # no reordering action exists
    s.apply(0, parse_action("scout:L:2@2"))
    assert hand(s, 0) == "3/1 9/2 2/8 5/4 6/1"  # the rest keeps its order


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_start_player_rotates(players: int) -> None:
    for r in range(players):
        s = new_round(Config(players), b"rot", r)
        all_keep(s)
        assert s.to_move() == r % players
        assert s.observation(0)["start"] == r % players


def test_there_is_no_pass() -> None:
    s = state(["3/1", "4/2", "5/2"], active="6/1", owner=2, turn=0)
    assert all(str(a).startswith(("show", "scout")) for a in s.legal_actions(0))
    refuse(s, 0, "pass", "there is no pass")
    two = state(["3/1 4/2", "5/2"], active="6/1", owner=1, turn=0)  # off by default
    refuse(two, 0, "pass", "option voluntary_pass")


# --- 2.3 show ---------------------------------------------------------------------------
def can_show(active: str, shown: str) -> bool:
    """Whether ``shown`` (all of seat 0's hand) beats ``active`` (seat 2's set) in 5 players."""
    s = state([shown, "10/9", "10/8", "10/7", "10/6"], active=active, owner=2, turn=0)
    show = Show(0, len(cards(shown)) - 1)
    legal = show in s.legal_actions(0)
    try:
        State.from_snapshot(s.snapshot()).apply(0, show)
    except IllegalAction:
        assert not legal
        return False
    assert legal
    return True


@pytest.mark.parametrize(
    ("active", "shown", "ok"),
    [
        # more cards beats fewer, whatever the kinds and values
        ("9/1 9/2", "1/4 2/5 3/6", True),
        ("1/4 2/5 3/6", "9/1 9/2", False),
        ("9/1", "1/4 2/5", True),
        ("8/1 7/2", "9/3", False),  # a single meets only singles
        # same count: a set beats a run
        ("7/1 8/2", "3/1 3/2", True),
        ("3/1 3/2", "7/1 8/2", False),
        ("3/1 3/2 3/4", "6/1 7/2 8/3", False),
        # same count and kind: higher value wins
        ("4/1 4/2", "5/1 5/2", True),
        ("5/1 5/2", "4/1 4/2", False),
        ("6/1", "7/1", True),
        ("7/2", "6/1", False),
        # a run is valued by its lowest card, ascending or descending
        ("2/1 3/1 4/1", "3/2 4/2 5/2", True),
        ("2/1 3/1", "4/2 3/2", True),  # descending 4-3 (lowest 3) beats 2-3
        ("5/1 4/1 3/1", "3/2 4/2 5/2", False),  # equal is not stronger
        ("3/1 4/1 5/1", "6/2 5/2 4/2", True),  # 6-5-4 (lowest 4) beats 3-4-5
        ("8/1 9/1", "10/2 9/2", True),
        # equal is not stronger
        ("6/1", "6/2", False),
        ("4/1 4/2", "4/3 4/5", False),
    ],
)
def test_show_strength(active: str, shown: str, ok: bool) -> None:
    assert can_show(active, shown) is ok


@pytest.mark.parametrize(
    ("shown", "ok"),
    [
        ("5/1", True),
        ("4/1 4/2 4/3", True),  # set
        ("2/1 3/1 4/1", True),  # ascending run
        ("7/1 6/1 5/1", True),  # descending run
        ("9/1 10/2 1/3", False),  # 10 does not wrap to 1
        ("10/1 1/2", False),
        ("2/1 3/1 5/1", False),  # a gap
        ("2/1 3/1 2/4", False),  # up then down
        ("4/1 4/2 5/1", False),  # mixed set and run
    ],
)
def test_valid_shows_on_an_empty_table(shown: str, ok: bool) -> None:
    s = state([shown, "6/7"], turn=0)
    n = len(cards(shown))
    assert (Show(0, n - 1) in s.legal_actions(0)) is ok
    if not ok:
        refuse(s, 0, Show(0, n - 1), "neither a set nor a run")


def test_only_adjacent_cards_are_shown() -> None:
    s = state(["3/1 9/2 4/1 5/1", "6/7"], turn=0)
    shows = [str(a) for a in s.legal_actions(0)]
    # 3 and 4 are not adjacent: only 4-5 forms a run; every single is a valid show
    assert shows == ["show:0", "show:1", "show:2", "show:2-3", "show:3"]


def test_show_captures_the_beaten_set_and_becomes_the_active_set() -> None:
    s = state(["1/5 4/2 4/3 6/1", "2/7", "8/6", "9/7"], active="3/9 3/10", owner=2, turn=0)
    events = s.apply(0, Show(1, 2))
    assert events == [Event("show", 0, "shows 4-4 (set of 2), captures 2 cards")]
    obs = s.observation(1)
    assert obs["active"] == ["4/2", "4/3"] and obs["owner"] == 0
    assert obs["captured"] == [2, 0, 0, 0]
    assert obs["hand_sizes"] == [2, 1, 1, 1]
    assert hand(s, 0) == "1/5 6/1"
    assert s.to_move() == 1


# --- 2.4 scout --------------------------------------------------------------------------
def test_scout_either_end_either_way_any_position() -> None:
    s = state(["1/2 5/6", "2/7", "9/8", "7/8"], active="3/5 4/6", owner=3, turn=0)
    scouts = [a for a in s.legal_actions(0) if isinstance(a, Scout)]
    ends = (("L", (3, 5)), ("R", (4, 6)))
    expected = {Scout(e, v, p) for e, values in ends for v in values for p in range(3)}
    assert set(scouts) == expected and len(scouts) == len(expected)
    s.apply(0, Scout("R", 6, 1))
    assert hand(s, 0) == "1/2 6/4 5/6"
    obs = s.observation(1)
    assert obs["active"] == ["3/5"] and obs["owner"] == 3
    assert obs["chips"] == [0, 0, 0, 1]  # the owner takes a Scout chip
    assert s.to_move() == 1


def test_scout_the_left_end_unturned() -> None:
    s = state(["1/2", "2/7", "9/8", "7/8"], active="3/5 4/6", owner=3, turn=0)
    s.apply(0, parse_action("scout:L:3@0"))
    assert hand(s, 0) == "3/5 1/2"
    assert s.observation(0)["active"] == ["4/6"]


def test_scout_refusals() -> None:
    s = state(["1/2", "2/7", "9/8", "7/8"], active="3/5 4/6", owner=3, turn=0)
    refuse(s, 0, "scout:L:4@0", "no value 4")
    refuse(s, 0, "scout:R:9@0", "no value 9")
    refuse(s, 0, "scout:L:3@2", "insertion point")
    refuse(s, 1, "scout:L:3@0", "seat 0's turn")
    empty = state(["1/2", "2/7", "9/8"], turn=0)
    refuse(empty, 0, "scout:L:3@0", "no active set")


def test_one_card_set_is_scouted_from_the_left_only_and_empties_the_table() -> None:
    s = state(["1/2", "2/7", "9/8", "10/8"], active="6/4", owner=2, turn=0)
    scouts = [str(a) for a in s.legal_actions(0) if isinstance(a, Scout)]
    assert scouts == ["scout:L:4@0", "scout:L:4@1", "scout:L:6@0", "scout:L:6@1"]
    refuse(s, 0, "scout:R:6@0", "left end")
    s.apply(0, parse_action("scout:L:4@1"))
    obs = s.observation(1)
    assert obs["active"] == [] and obs["owner"] == 2  # the set scouted empty keeps its owner
    assert obs["chips"] == [0, 0, 1, 0]
    # seat 1 may show anything on the empty table, even a lone 2
    assert Show(0, 0) in s.legal_actions(1)
    s.apply(1, Show(0, 0))
    assert s.observation(0)["captured"] == [0, 0, 0, 0]


def test_scouted_cards_are_public_at_their_position() -> None:
    s = state(["1/2 5/6 8/9", "9/7"], active="3/5 4/6", owner=1, turn=0)
    s.apply(0, parse_action("scout:R:4@1"))
    assert s.observation(1)["known"][0] == [None, "4/6", None, None]
    assert s.observation(0)["known"][0] == ["1/2", "4/6", "5/6", "8/9"]  # own hand in full
    assert s.observation(0)["known"][1] == [None]
    s.apply(0, parse_action("scout:L:3@0"))  # inserting in front moves the known card right
    assert s.observation(1)["known"][0] == ["3/5", None, "4/6", None, None]
    s.apply(0, Show(2, 3))  # 4-5 on the empty table: the known 4 leaves the hand
    assert s.observation(1)["known"][0] == ["3/5", None, None]
    assert s.observation(1)["hand_sizes"] == [3, 1]


# --- 2.5 scout & show -------------------------------------------------------------------
def test_scout_and_show_is_offered_only_when_it_can_be_completed() -> None:
    s = state(["4/9", "2/3", "5/6", "1/10"], active="7/1 7/2", owner=2, turn=0)
    legal = s.legal_actions(0)
    assert not any(isinstance(a, ScoutShow) for a in legal)
    assert len(legal) == 8  # 2 ends x 2 values x 2 positions, and nothing to show
    refuse(s, 0, "scout:L:7@0+show:0", "not stronger")
    refuse(s, 0, "scout:L:1@0+show:0-1", "neither a set nor a run")


def test_scout_and_show_after_emptying_the_set_may_show_anything() -> None:
    s = state(["2/3 4/5", "2/7", "6/1"], active="9/1", owner=2, turn=0)
    combos = {str(a) for a in s.legal_actions(0) if isinstance(a, ScoutShow)}
    assert "scout:L:9@0+show:0" in combos
    assert "scout:L:1@2+show:2" in combos  # need not use the scouted card... it may, too
    assert "scout:L:9@2+show:0" in combos  # show the 2, not the scouted card
    events = s.apply(0, parse_action("scout:L:9@2+show:1"))
    assert [e.kind for e in events] == ["scout", "show"]
    obs = s.observation(1)
    assert obs["active"] == ["4/5"] and obs["owner"] == 0
    assert obs["chips"] == [0, 0, 1]  # the scouted set's owner still gets the chip
    assert obs["captured"] == [0, 0, 0]  # the emptied set captured nothing
    assert obs["scout_show"] == [False, True, True]
    assert hand(s, 0) == "2/3 9/1"


def test_scout_and_show_indices_refer_to_the_hand_after_insertion() -> None:
    s = state(["5/1 7/2 8/3", "2/9", "6/1", "10/3"], active="6/4 6/5", owner=3, turn=0)
    # scout a 6 between 5 and 7: 5-6-7-8 is a run of 4 at positions 0..3
    a = parse_action("scout:L:6@1+show:0-3")
    assert a in s.legal_actions(0)
    s.apply(0, a)
    assert s.observation(0)["active"] == ["5/1", "6/4", "7/2", "8/3"]
    assert s.observation(0)["captured"] == [1, 0, 0, 0]
    assert s.observation(0)["chips"] == [0, 0, 0, 1]


def test_scout_and_show_once_per_round() -> None:
    s = state(["2/3 4/5 8/1", "2/7 1/6", "6/4 5/3"], active="9/1", owner=2, turn=0)
    s.apply(0, parse_action("scout:L:9@0+show:0"))
    s.apply(1, parse_action("scout:L:9@0"))
    s.apply(2, parse_action("show:0"))
    assert s.to_move() == 0
    assert not any(isinstance(a, ScoutShow) for a in s.legal_actions(0))
    refuse(s, 0, "scout:L:6@0+show:0", "already used")
    assert parse_action("scout:L:6@0") in s.legal_actions(0)  # a plain scout is still fine
    # seat 1 still holds its chip
    assert s.observation(0)["scout_show"] == [False, True, True]


def test_no_scout_and_show_with_two_players() -> None:
    s = state(["2/3 4/5", "2/7"], active="9/1", owner=1, turn=0)
    assert not any(isinstance(a, ScoutShow) for a in s.legal_actions(0))
    refuse(s, 0, "scout:L:9@0+show:0", "two players")
    assert new_round(Config(2), b"", 0).observation(0)["scout_show"] == [False, False]


# --- 2.6 end of a round and scoring -----------------------------------------------------
def test_round_ends_when_a_show_empties_a_hand() -> None:
    s = state(["5/1", "2/7 3/4", "9/8"], active="4/6", owner=2, turn=0, chips=[2, 0, 1])
    refuse(s, 0, "flip")
    with pytest.raises(IllegalAction, match="not over"):
        s.round_scores()
    s.apply(0, Show(0, 0))
    assert s.is_over() and s.actors() == [] and s.to_move() is None
    assert s.legal_actions(0) == [] and s.legal_actions(1) == []
    assert s.round_scores() == [1 + 2, -2, 1 - 1]
    refuse(s, 1, "show:0", "round is over")


def test_round_ends_when_everyone_else_only_scouted() -> None:
    s = state(["5/1 6/2 7/3 3/4", "2/7 3/8", "9/8 4/9"], turn=0, chips=[0, 1, 0])
    s.apply(0, Show(0, 2))  # 5-6-7
    s.apply(1, parse_action("scout:L:5@0"))
    assert not s.is_over()
    events = s.apply(2, parse_action("scout:R:7@0"))
    assert s.is_over()
    assert events[-1].kind == "end" and events[-1].seat == 0
    obs = s.observation(1)
    assert obs["exempt"] == 0 and obs["active"] == ["6/2"]
    # seat 0: 2 chips, no penalty for its card; seat 1: 1 chip - 3 cards; seat 2: -3 cards
    assert s.round_scores() == [2, 1 - 3, -3]


def test_round_goes_on_when_someone_showed_in_between() -> None:
    s = state(["5/1 6/2 7/3 3/4", "2/7 3/8", "9/4 8/9 1/4"], turn=0)
    s.apply(0, Show(0, 2))  # 5-6-7
    s.apply(1, parse_action("scout:L:5@0"))
    s.apply(2, parse_action("scout:R:7@2+show:0-2"))  # 9-8-7 beats 6 (now a one-card set)
    assert not s.is_over() and s.to_move() == 0
    s.apply(0, parse_action("scout:L:9@0"))
    assert not s.is_over()
    s.apply(1, parse_action("scout:L:8@0"))  # back to seat 2, whose set stands: round over
    assert s.is_over() and s.observation(0)["exempt"] == 2


def test_round_ends_when_the_set_was_scouted_empty_rule_2_6_1() -> None:
    """docs/rules.md 2.6.1: seat 0 shows 5-6; seat 1 scouts the 5, seat 2 scouts the 6. The turn
    would come back to seat 0, whose set it was: the round ends and seat 0 is spared its hand."""
    s = state(["5/1 6/2 3/4", "2/7 3/8", "9/8 4/9"], turn=0)
    s.apply(0, Show(0, 1))  # 5-6
    s.apply(1, parse_action("scout:L:5@0"))
    events = s.apply(2, parse_action("scout:L:6@0"))  # the table is empty now
    assert s.observation(1)["active"] == [] and s.observation(1)["owner"] == 0
    assert s.is_over() and events[-1].kind == "end" and events[-1].seat == 0
    assert s.observation(0)["exempt"] == 0
    # seat 0: 2 chips and no penalty for its 3/4; seats 1 and 2: minus their 3 cards each
    assert s.round_scores() == [2, -3, -3]


def test_a_show_on_the_table_scouted_empty_takes_the_set_over_rule_2_6_1() -> None:
    """After a set is scouted empty, a show on the empty table makes a new owner; the round
    then ends only when the turn would come back to that new owner."""
    s = state(["5/1 6/2 3/4", "2/7 3/8", "9/8 4/9", "2/5 8/6"], turn=0)
    s.apply(0, Show(0, 1))  # 5-6
    s.apply(1, parse_action("scout:L:5@0"))
    s.apply(2, parse_action("scout:L:6@0"))  # empty; seat 0 still owns it
    assert not s.is_over() and s.to_move() == 3
    assert not any(isinstance(a, Scout) for a in s.legal_actions(3))
    s.apply(3, Show(1, 1))  # the 8 on the empty table: seat 3 owns the set now
    assert s.observation(0)["owner"] == 3 and s.observation(0)["captured"] == [0, 0, 0, 0]
    s.apply(0, parse_action("scout:L:8@0"))  # emptied again: seat 3 keeps it
    s.apply(1, parse_action("show:0"))  # seat 1 shows the 5 it scouted
    assert not s.is_over() and s.observation(0)["owner"] == 1


def test_scout_and_show_chip_is_worth_nothing() -> None:
    s = state(["5/1", "2/7", "9/8"], turn=0, scout_show=[True, True, False])
    s.apply(0, Show(0, 0))
    assert s.round_scores() == [0, -1, -1]


def test_match_has_one_round_per_player_and_ties_share() -> None:
    for n in (3, 4, 5):
        cfg = Config(n)
        assert not cfg.match_over([0] * n, n - 1) and cfg.match_over([0] * n, n)
    assert Config(3).winners([4, 9, 9]) == [1, 2]
    assert Config(4).winners([-1, -3, -2, -5]) == [0]


def test_a_whole_match_through_the_registry() -> None:
    module = game_module("scout")
    cfg = module.config_from_dict({"game": "scout", "players": 3})
    m = Match(cfg, b"whole match")
    rng = random.Random(7)
    steps = 0
    while not m.is_over():
        seat = m.actors()[0]
        m.apply(seat, str(rng.choice(m.legal_actions(seat))))
        steps += 1
        assert steps < 5000
    assert len(m.round_scores) == 3
    assert m.totals == [sum(r[s] for r in m.round_scores) for s in range(3)]
    assert m.winners() == cfg.winners(m.totals)
    assert Match.from_snapshot(m.snapshot()).digest() == m.digest()


# --- 2.7 two players --------------------------------------------------------------------
def test_two_players_play_two_rounds() -> None:
    cfg = Config(2)
    assert not cfg.match_over([0, 0], 1) and cfg.match_over([0, 0], 2)


def test_two_player_second_round_deals_the_set_aside_cards() -> None:
    seed = b"two"
    r0 = new_round(Config(2), seed, 0).snapshot()
    r1 = new_round(Config(2), seed, 1).snapshot()
    aside = r0["set_aside"]
    assert len(aside) == 22
    # no new shuffle: round 1 deals round 0's last 22 cards, orientation kept, from seat 1
    assert r1["hands"] == [aside[1::2], aside[0::2]]
    assert r1["set_aside"] == [t for i in range(11) for t in (r0["hands"][0][i], r0["hands"][1][i])]
    s = new_round(Config(2), seed, 1)
    all_keep(s)
    assert s.to_move() == 1


def test_two_players_have_three_chips_and_scouting_costs_one() -> None:
    s = new_round(Config(2), b"two", 0)
    assert s.observation(0)["chips"] == [3, 3]
    s = state(["1/2 5/6", "9/8"], active="3/5 4/6", owner=1, turn=0, chips=[3, 3])
    events = s.apply(0, parse_action("scout:R:4@0"))
    assert "pays a Scout chip (2 left)" in events[0].text
    obs = s.observation(1)
    assert obs["chips"] == [2, 3]  # the opponent gains nothing
    assert s.to_move() == 0  # and seat 0 takes another turn
    s.apply(0, parse_action("scout:L:5@3"))
    assert s.to_move() == 0 and s.observation(0)["chips"] == [1, 3]
    # the emptied set is still seat 1's (docs/rules.md 2.6.1); seat 0 shows on the empty table
    assert s.observation(0)["active"] == [] and s.observation(0)["owner"] == 1
    assert s.legal_actions(0) == [Show(0, 0), Show(1, 1), Show(2, 2), Show(2, 3), Show(3, 3)]


def test_two_players_no_chips_no_scout() -> None:
    s = state(["1/2 5/6 7/1", "9/8"], active="3/5", owner=1, turn=0, chips=[0, 3])
    assert s.legal_actions(0) == [Show(1, 1), Show(2, 2)]
    refuse(s, 0, "scout:L:3@0", "no Scout chips")


def test_two_players_round_ends_when_the_other_can_neither_show_nor_scout() -> None:
    s = state(["4/1 4/2 4/3 1/5", "9/8 2/10"], turn=0, chips=[1, 0])
    events = s.apply(0, Show(0, 2))
    assert s.is_over() and events[-1].kind == "end"
    assert s.observation(0)["exempt"] == 0
    # seat 0: 1 unspent chip, no penalty for its one card; seat 1: -2 cards
    assert s.round_scores() == [1, -2]


def test_two_players_round_goes_on_while_the_other_can_scout_or_show() -> None:
    s = state(["4/1 4/2 4/3 1/5", "9/8 2/10"], turn=0, chips=[0, 1])
    s.apply(0, Show(0, 2))
    assert not s.is_over() and s.to_move() == 1
    s = state(["4/1 4/2 4/3 1/5", "9/8 9/6 9/7"], turn=0, chips=[0, 0])
    s.apply(0, Show(0, 2))
    assert s.legal_actions(1) == [Show(0, 2)]  # 9-9-9 beats 4-4-4


def test_two_players_seat_stuck_after_its_own_scout_ends_the_round() -> None:
    # ruling: the same "can neither show nor scout" rule after the player's own last scout
    s = state(["1/2 5/7", "9/8"], active="6/1 6/3", owner=1, turn=0, chips=[1, 2])
    s.apply(0, parse_action("scout:L:6@0"))  # 6 1 5: nothing beats the lone 6 left
    assert s.is_over()
    assert s.observation(0)["exempt"] == 1
    assert s.round_scores() == [-3, 2]


def test_two_players_unspent_chips_score() -> None:
    s = state(["5/1", "9/8 7/2"], turn=0, chips=[2, 3])
    s.apply(0, Show(0, 0))
    assert s.round_scores() == [2, 3 - 2]


# --- 2.7.4 the voluntary pass (two-player option) -----------------------------------------
def passing(hands: list[str], **kw: Any) -> State:
    """A 2-player position with the option ``voluntary_pass`` on."""
    d = position(hands, **kw)
    d["config"] = {"game": "scout", "players": 2, "voluntary_pass": True}
    return State.from_snapshot(d)


def test_voluntary_pass_ends_the_round_as_if_the_player_were_stuck_rule_2_7_4() -> None:
    """docs/rules.md 2.7.4: with the option on, seat 0 may pass instead of showing or scouting;
    the round ends as if it could neither show nor scout: seat 1, whose set it is, takes no
    hand penalty, and seat 0 counts its hand."""
    s = passing(["4/1 4/2 1/5", "9/8 2/10 3/7"], active="6/1 6/3", owner=1, turn=0, chips=[2, 1])
    legal = [str(a) for a in s.legal_actions(0)]
    assert legal[-1] == "pass" and "scout:L:6@0" in legal and "show:0-1" not in legal
    events = s.apply(0, parse_action("pass"))
    assert [e.kind for e in events] == ["pass", "end"] and events[-1].seat == 1
    assert s.is_over() and s.observation(0)["exempt"] == 1
    assert s.round_scores() == [2 - 3, 1]


def test_voluntary_pass_on_every_turn_also_after_an_own_scout_rule_2_7_4() -> None:
    s = passing(["4/1 4/2 1/5", "9/8 2/10"], active="6/1 6/3", owner=1, turn=0, chips=[2, 1])
    s.apply(0, parse_action("scout:L:6@0"))  # seat 0 moves again: it may still pass
    assert s.to_move() == 0 and parse_action("pass") in s.legal_actions(0)
    s.apply(0, parse_action("pass"))
    assert s.observation(1)["exempt"] == 1 and s.round_scores() == [1 - 4, 1]


def test_voluntary_pass_before_any_show_spares_nobody() -> None:
    """Engine ruling: a pass on the opening empty table ends the round with no exempt seat."""
    s = passing(["4/1 4/2 1/5", "9/8 2/10"], turn=0, chips=[3, 3])
    events = s.apply(0, parse_action("pass"))
    assert events[-1].seat is None and s.observation(0)["exempt"] is None
    assert s.round_scores() == [3 - 3, 3 - 2]


def test_voluntary_pass_does_not_stop_the_round_ending_by_itself_rule_2_7_4() -> None:
    """The round still ends on its own when the other player can neither show nor scout."""
    s = passing(["4/1 4/2 4/3 1/5", "9/8 2/10"], turn=0, chips=[1, 0])
    s.apply(0, Show(0, 2))
    assert s.is_over() and s.observation(0)["exempt"] == 0


def test_voluntary_pass_is_a_two_player_option_in_the_plain_form_rule_2_7_4() -> None:
    cfg = Config(2, voluntary_pass=True)
    assert cfg.to_dict() == {"game": "scout", "players": 2, "voluntary_pass": True}
    assert Config.from_dict(cfg.to_dict()) == cfg
    assert Config(2).to_dict() == {"game": "scout", "players": 2}  # off: left out
    assert Config.from_dict({"game": "scout", "players": 2, "voluntary_pass": False}) == Config(2)
    assert cfg.describe() == "SCOUT, 2 players, voluntary pass"
    with pytest.raises(ParseError, match="two-player option"):
        Config(3, voluntary_pass=True)
    with pytest.raises(ParseError, match="true or false"):
        Config.from_dict({"game": "scout", "players": 2, "voluntary_pass": 1})
    from cardtable.engine.games import compact_config, config_from_dict

    assert compact_config(cfg) == cfg.to_dict() and config_from_dict(compact_config(cfg)) == cfg
    assert compact_config(Config(2)) == {"game": "scout", "players": 2}


def test_voluntary_pass_match_snapshot_round_trip_rule_2_7_4() -> None:
    match = Match(Config(2, voluntary_pass=True), b"vp")
    for seat in range(2):
        match.apply(seat, "keep")
    match.apply(0, "pass")
    assert match.snapshot()["config"]["voluntary_pass"] is True
    again = Match.from_snapshot(match.snapshot())
    assert again.digest() == match.digest() and again.config == match.config


# --- observation --------------------------------------------------------------------------
def test_observation_shows_nothing_hidden() -> None:
    s = new_round(Config(2), b"obs", 0)
    obs = s.observation(1)
    text = repr(obs)
    for t in s.snapshot()["hands"][0] + s.snapshot()["set_aside"]:
        up, down = t.split("/")
        assert f"'{t}'" not in text and f"'{down}/{up}'" not in text
    assert obs["known"][0] == [None] * 11
    assert obs["hand"] == s.snapshot()["hands"][1]
    assert obs["set_aside"] == 22
    assert obs["turn"] == 0 and obs["phase"] == "turn_choice"
    assert set(obs) >= {
        "seat", "phase", "hand", "hand_sizes", "active", "owner", "captured", "chips",
        "scout_show", "flipped", "turn", "known", "start", "round",
    }  # fmt: skip


# --- config and snapshots ---------------------------------------------------------------
def test_config() -> None:
    cfg = Config(4)
    assert cfg.to_dict() == {"game": "scout", "players": 4}
    assert Config.from_dict(cfg.to_dict()) == cfg
    assert cfg.describe() == "SCOUT, 4 players"
    assert cfg.initial_totals() == [0, 0, 0, 0]
    for bad in (1, 6, True, "4", None):
        with pytest.raises(ParseError, match="2 to 5 players"):
            Config(bad)  # type: ignore[arg-type]
    for d in (
        {"game": "scout"},
        {"game": "scout", "players": 3, "extra": 1},
        {"game": "solo", "players": 3},
        {"game": "scout", "players": 9},
        [("game", "scout")],
    ):
        with pytest.raises(ParseError):
            Config.from_dict(d)


def test_snapshot_round_trip_and_digest() -> None:
    s = new_round(Config(3), b"snap", 1)
    s.apply(2, FLIP)
    snap = s.snapshot()
    t = State.from_snapshot(snap)
    assert t.snapshot() == snap and t.digest() == s.digest() == snapshot_digest(snap)
    assert snap["seed"] == b"snap".hex() and snap["round"] == 1
    assert snap["config"] == {"game": "scout", "players": 3}
    s.apply(0, KEEP)
    assert s.digest() != t.digest()


def test_captured_piles_are_canonical() -> None:
    a = state(["1/2", "3/4", "5/6"], captured=["7/8 2/9", "", ""])
    b = state(["1/2", "3/4", "5/6"], captured=["9/2 8/7", "", ""])
    assert a.snapshot() == b.snapshot()
    assert a.snapshot()["captured"][0] == ["2/9", "7/8"]


@pytest.mark.parametrize(
    ("change", "why"),
    [
        (lambda d: d.pop("chips"), "missing keys"),
        (lambda d: d.update(extra=1), "unknown keys"),
        (lambda d: d.update(config={"game": "scout", "players": 7}), "2 to 5"),
        (lambda d: d.update(seed="xyz"), "hex"),
        (lambda d: d.update(round=-1), "round"),
        (lambda d: d.update(phase="bidding"), "phase"),
        (lambda d: d["hands"][0].append("7/7"), "differ"),
        (lambda d: (d["hands"][0].append("2/1"), d["known"][0].append(False)), "twice"),
        (lambda d: (d["hands"][0].append("10/2"), d["known"][0].append(False)), "not in play"),
        (lambda d: d["known"][0].append(True), "known"),
        (lambda d: d.update(active=["3/5", "7/6"]), "neither a set nor a run"),
        (lambda d: d.update(active=["3/5"], owner=None), "owner"),
        (lambda d: d.update(turn=3), "turn"),
        (lambda d: d.update(turn=None), "turn"),
        (lambda d: d.update(chips=[0, 0]), "chips"),
        (lambda d: d.update(chips=[0, -1, 0]), "chips"),
        (lambda d: d.update(chips=[0, True, 0]), "chips"),
        (lambda d: d.update(flipped=[None, False, False]), "turn_choice"),
        (lambda d: d.update(scout_show=[1, 1, 1]), "scout_show"),
        (lambda d: d.update(exempt=0), "exempt"),
        (lambda d: d.update(captured=[["2/1"], [], []]), "twice"),
        (lambda d: d.update(hands="1/2"), "hands"),
    ],
)
def test_from_snapshot_rejects_malformed_input(change: Any, why: str) -> None:
    State.from_snapshot(position(["1/2 3/4", "5/6", "8/9"], turn=0))  # the base is fine
    d = position(["1/2 3/4", "5/6", "8/9"], turn=0)
    change(d)
    with pytest.raises(ParseError, match=why):
        State.from_snapshot(d)
    with pytest.raises(ParseError):
        State.from_snapshot("not a map")


def test_card_type() -> None:
    c = parse_card("7/3")
    assert c == Card(7, 3) and c.up == 7 and c.down == 3 and str(c) == "7/3"
    assert c.pair == (3, 7) and c.turned() == Card(3, 7)
