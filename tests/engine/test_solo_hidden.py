"""SOLO under hidden hands (engine/solo/state.py without the seed): every machine's view of a round on
slots."""

from __future__ import annotations

from collections import Counter

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from cardtable.engine.errors import IllegalAction, ParseError
from cardtable.engine.shuffle import Stream
from cardtable.engine.solo import Config, parse_action
from cardtable.engine.solo.actions import Play
from cardtable.engine.solo.cards import parse_card
from cardtable.engine.solo.slot_actions import OWED, parse_slot_action
from cardtable.engine.solo.state import State, audit_replay
from cardtable.engine.solo.windows import MISSED, NONE
from tests.engine.solo_helpers import act, legal, position
from tests.engine.solo_hidden_table import Table, arrange, event_rows, play_round, random_step

SETTINGS = settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
options = st.fixed_dictionaries({}, optional={
    "gifts": st.booleans(), "protection": st.booleans(), "multiples": st.booleans(),
    "call": st.sampled_from(["with_play", "window"]), "self_jump_in": st.booleans(),
    "mixed_stacking": st.booleans(), "hand_size": st.sampled_from([2, 4, 8])})
configs = st.builds(lambda e, n, o: Config.preset(e, n, **o), st.sampled_from(["classic", "anniversary"]),
                    st.integers(2, 6), options)


@SETTINGS
@given(configs, st.binary(min_size=1, max_size=8))
@example(Config.preset("anniversary", 2, call="with_play"), b"'H\xe4")  # a window open as the round ended
def test_each_view_follows_the_engine_and_knows_just_what_its_seat_may(config: Config, seed: bytes) -> None:
    table = play_round(config, seed)
    if table.engine.is_over():
        table.finish()


def test_once_the_round_is_over_no_seat_owes_an_answer_and_none_is_taken() -> None:
    """A call window still open as the round ended (the case hypothesis found): no machine
    offers an answer, and an answer a modified member sends anyway (either one, to any peer) is
    refused by every view, so nothing about the window is learned after the end."""
    table = play_round(Config.preset("anniversary", 2, call="with_play"), b"'H\xe4")
    assert table.full.winner is not None
    open_windows = 0
    for view in table.views():
        for seat in range(table.n):
            assert view.answer(seat) is None and view.answer(seat, public=True) is None
            window = view.window_of(seat)
            open_windows += window is not None and MISSED in window.public and window.public != {MISSED}
            for lie in (str(OWED), "clear"):
                with pytest.raises(IllegalAction, match="round is over"):
                    view.apply(seat, lie)
    assert open_windows > 0  # the case still has a window open, or it tests nothing


COVERED = [(Config.preset("anniversary", 3, hand_size=4), b"cover-7"),
           (Config.preset("classic", 3, multiples=True, gifts=True), b"cover-2"),
           (Config.preset("anniversary", 4, call="with_play"), b"cover-1"),
           (Config.preset("classic", 5), b"cover-4")]


def test_the_random_rounds_reach_every_hidden_step_and_the_audit_replays_them_as_the_engine() -> None:
    """The rounds meet reshuffles, asked answers both ways, declines and keeps; the audit's
    replay of each round's log, every card known from the start, shows the engine's events."""
    seen: Counter[str] = Counter()
    for config, seed in COVERED:
        table = play_round(config, seed, steps=600)
        seen += table.seen
        audit = State(config, 0, table.truth)
        while audit.wanted():
            audit.turn_up(audit.wanted()[0], table.truth[audit.wanted()[0]])
        assert [event_rows(audit.apply(seat, text)) for seat, text in table.moves] == table.rows
        again = audit_replay(config, 0, table.truth, table.moves)
        assert again.public_view() == table.full.public_view()
        assert not again.wrong_judgements()
        seen["judgements"] += len(again.judgements)
        if table.engine.is_over():
            table.finish()
            assert again.round_scores() == table.engine.round_scores()
            seen["over"] += 1
    steps = ("reshuffle", "owed", "clear", "decline", "keep", "over", "judgements", "volunteered")
    assert min(seen[k] for k in steps) > 0, seen


def test_a_slot_moved_to_the_wrong_seat_is_seen_by_the_knowledge_check() -> None:
    """The control for the property test's knowledge check: the keys of a slot that changed
    holder, sent to one more machine, make it know a card its seat may not see."""
    config = Config.preset("anniversary", 3)
    table = Table(config, b"control")
    rng = Stream(b"control", "test/hidden")
    leak = False
    with pytest.raises(AssertionError, match="seat"):
        while not table.engine.is_over():
            seat, action = random_step(table.engine, rng)
            table.step(seat, action)
            for holder, slot in table.handed[:1]:
                spy = (holder + 1) % 3
                if not leak and slot not in table.held[spy]:
                    table.seats[spy].learn(slot, table.truth[slot])
                    leak = True
                    table.check()
    assert leak


# --- the holder's judgements and the audit ------------------------------------------------
# Two players, 4 cards each: seat 1 (left of the dealer, seat 0) gets the even slots and moves
# first; slot 8 is the setup card.
ANNIVERSARY = Config.preset("anniversary", 2, hand_size=4)
SEVENS = {0: "Y5", 2: "R7", 4: "G7", 6: "B7", 1: "R1", 3: "G2", 5: "B3", 7: "Y4", 8: "Y3"}
MIXED = {**SEVENS, 6: "B2"}


def on_slots(view: State, seat: int) -> list[object]:
    """``seat``'s legal actions as this view writes them on slots."""
    return [view.slot_action(seat, a) for a in view.legal_actions(seat)]


def views(config: Config, placed: dict[int, str]) -> tuple[list[State], list[State]]:
    """(every seat's view, [the public view, the audit's full view]) of an arranged deal."""
    cards = arrange(config, placed)
    n = config.players
    seats = [State(config, 0, [c if s in range(n * config.hand_size) and (1 + s) % n == seat else None
                                   for s, c in enumerate(cards)]) for seat in range(n)]
    others = [State(config, 0, [None] * len(cards)), State(config, 0, cards)]
    for view in seats + others:
        view.turn_up(8, cards[8])
    return seats, others


def run(every: list[State], moves: list[tuple[int, str]]) -> list[list[tuple[object, ...]]]:
    """Apply ``moves`` to every view; their events, which must agree."""
    out = []
    for seat, text in moves:
        rows = [event_rows(v.apply(seat, text)) for v in every]
        assert all(r == rows[0] for r in rows)
        out.append(rows[0])
    return out


def test_a_catch_on_a_hidden_hand_waits_for_the_holders_answer_and_the_audit_names_a_false_one() -> None:
    seats, (public, full) = views(ANNIVERSARY, SEVENS)
    run([*seats, public, full], [(1, "Y5@0"), (0, "catch:1")])  # R7 G7 B7 left: a call was due
    assert public.window_of(1) is not None and public.window_of(1).public == {NONE, MISSED}
    assert public.to_move() == 1 and on_slots(public, 0) == []
    assert on_slots(seats[1], 1) == [OWED]  # its own machine answers honestly
    with pytest.raises(IllegalAction, match="waiting for seat 1 to answer"):
        public.apply(0, "draw")
    assert run([*seats, public, full], [(1, "owed")])[0][0][:2] == ("catch", 0)
    assert [len(h) for h in full.hands] == [4, 5] and not full.wrong_judgements()
    # A modified client answers "clear": everyone's course follows it; the audit names seat 1.
    cards = arrange(ANNIVERSARY, SEVENS)
    audit = audit_replay(ANNIVERSARY, 0, cards, [(1, "Y5@0"), (0, "catch:1"), (1, "clear")])
    assert [len(h) for h in audit.hands] == [6, 3]
    wrong = [(j.step, j.seat, j.claim) for j in audit.wrong_judgements()]
    assert wrong == [(2, 1, "owes no missed SOLO call")]


def test_a_call_or_a_late_call_on_a_hand_that_needs_none_is_named_at_the_audit() -> None:
    seats, (public, full) = views(ANNIVERSARY, MIXED)  # Y5 played leaves R7 G7 B2: no call due
    assert "Y5@0!" not in {str(a) for a in on_slots(seats[1], 1)}
    assert "Y5@0" in {str(a) for a in on_slots(seats[1], 1)}
    run([*seats, public, full], [(1, "Y5@0!")])  # nobody else can tell: accepted, recorded
    assert [(j.seat, j.truth) for j in public.judgements] == [(1, None)]
    assert [(j.seat, j.claim) for j in full.wrong_judgements()] == [(1, "calls SOLO with a call due")]
    late = audit_replay(ANNIVERSARY, 0, arrange(ANNIVERSARY, MIXED), [(1, "Y5@0"), (1, "solo")])
    assert [(j.seat, j.claim) for j in late.wrong_judgements()] == [(1, "calls a missed SOLO late")]
    due = audit_replay(ANNIVERSARY, 0, arrange(ANNIVERSARY, SEVENS), [(1, "Y5@0"), (1, "solo")])
    assert due.judgements and not due.wrong_judgements()


def test_a_classic_missed_call_on_a_hidden_hand_is_answered_before_the_next_action() -> None:
    config = Config.preset("classic", 2, multiples=True, hand_size=4)
    seats, (public, full) = views(config, SEVENS)
    every = [*seats, public, full]
    played, drawn = run(every, [(1, "Y5@0"), (0, "draw")])
    assert [r[0] for r in played] == ["play"] and drawn == []  # the draw waits for seat 1's answer
    assert public.asked is not None and public.asked.seat == 1
    assert on_slots(seats[1], 1) == [OWED] and on_slots(seats[0], 0) == []
    (answer,) = run(every, [(1, "owed")])
    assert [(k, s) for k, s, *_ in answer] == [("penalty", 1), ("draw", 0)]  # its 2 cards first
    assert [len(h) for h in full.hands] == [5, 5] and not full.wrong_judgements()
    cheat = audit_replay(config, 0, arrange(config, SEVENS), [(1, "Y5@0"), (0, "draw"), (1, "clear")])
    assert [(j.seat, j.claim) for j in cheat.wrong_judgements()] == [(1, "owes no missed SOLO call")]
    assert [len(h) for h in cheat.hands] == [5, 3]


def test_a_classic_machine_may_answer_before_it_is_asked_so_the_next_move_does_not_wait() -> None:
    config = Config.preset("classic", 2, multiples=True, hand_size=4)
    seats, (public, full) = views(config, SEVENS)
    every = [*seats, public, full]
    run(every, [(1, "Y5@0")])
    assert seats[1].answer(1) == OWED and public.answer(1, public=True) == OWED
    with pytest.raises(IllegalAction, match="nobody is asked"):
        public.apply(0, "owed")  # not seat 0's window
    assert run(every, [(1, "owed")]) == [[]]
    (drawn,) = run(every, [(0, "draw")])
    assert public.asked is None and [(k, s) for k, s, *_ in drawn] == [("penalty", 1), ("draw", 0)]
    seats, (public, _) = views(ANNIVERSARY, SEVENS)  # with catches, an unasked answer would tell
    run([*seats, public], [(1, "Y5@0")])
    assert seats[1].answer(1) is None
    with pytest.raises(IllegalAction, match="nobody is asked"):
        public.apply(1, "clear")


# --- the rest of the view's contract ---------------------------------------------------------
def test_the_setup_waits_for_its_card_in_public_until_a_number_is_on_top() -> None:
    config = Config.preset("classic", 2, hand_size=4)
    cards = arrange(config, {8: "Rskip", 9: "wild", 10: "G4"})
    view = State(config, 0, [None] * len(cards))
    assert view.to_move() is None and view.wanted() == [8]
    with pytest.raises(IllegalAction, match="setup card is not turned"):
        view.apply(1, "draw")
    with pytest.raises(IllegalAction, match="turns slot 8 next"):
        view.turn_up(9, cards[9])
    before = view.observation(1)  # a client draws the table before the setup card is turned
    assert before["top"] is None and before["discard"] == [] and before["to_move"] is None
    for slot in (8, 9, 10):
        view.turn_up(slot, cards[slot])
    assert view.wanted() == [] and view.top.text == "G4" and view.colour == "G" and view.to_move() == 1
    assert view.observation(1)["top"] == "G4"
    assert view.public_view()["discard"] == [8, 9, 10] and len(view.draw_slots) == len(cards) - 11


def test_a_draw_always_waits_for_the_drawer_who_plays_the_card_or_keeps_it() -> None:
    config = Config.preset("classic", 2, hand_size=4)
    for first, fits in (("G9", True), ("R9", False)):
        cards = arrange(config, {8: "G4", 9: first})
        mine = State(config, 0, [c if s in (0, 2, 4, 6, 9) else None for s, c in enumerate(cards)])
        public = State(config, 0, [None] * len(cards))
        for v in (mine, public):
            v.turn_up(8, cards[8])
            v.apply(1, "draw")
            assert v.to_move() == 1 and v.drawn_slot == 9 and v.held[1][-1] == 9
        assert ({str(a) for a in on_slots(mine, 1)} == {"G9@9", "keep"}) == fits
        assert ({str(a) for a in on_slots(mine, 1)} == {"keep"}) == (not fits)
        with pytest.raises(IllegalAction, match="this view does not know every card"):
            on_slots(public, 1)


def test_scores_wait_for_every_card_left_in_a_hand() -> None:
    config = Config.preset("classic", 2, hand_size=1)
    cards = arrange(config, {0: "G4", 1: "R9", 2: "G2"})
    public = State(config, 0, [None] * len(cards))
    public.turn_up(2, cards[2])
    public.apply(1, "G4@0")
    with pytest.raises(IllegalAction, match="1 are not known"):
        public.round_scores()
    public.learn(1, cards[1])  # the audit opens it
    assert public.round_scores() == [-9, 0]


def test_learning_a_card_a_slot_cannot_hold_is_refused_in_one_line() -> None:
    config = Config.preset("classic", 2)
    view = State(config, 0, [None] * 112)
    view.learn(3, parse_card("R7"))
    view.learn(4, parse_card("R7"))
    for slot, text, why in ((3, "G7", "slot 3 holds R7"), (5, "R7", "only 2 R7"), (112, "R1", "no slot 112"),
                            (6, "protR", "only 0 protR")):
        with pytest.raises(IllegalAction, match=why) as err:
            view.learn(slot, parse_card(text))
        assert "\n" not in str(err.value)
    with pytest.raises(IllegalAction, match="needs 112 slots"):
        State(config, 0, [None] * 50)


@pytest.mark.parametrize("text", ["R7@12", "wild@40:B", "wd4@3:G!", "Rswap@3:2", "Rgift@5:2:17,23",
                                  "Rgift@5:2:17", "Rgift@5:2!", "R7@12+G7@30+B7@2+Y7@31!", "draw", "keep",
                                  "solo", "decline", "catch:3", "owed", "clear", "protB@119"])
def test_the_hidden_notation_round_trips(text: str) -> None:
    assert str(parse_slot_action(text)) == text
    assert parse_slot_action(str(parse_slot_action(text))) == parse_slot_action(text)


def test_multiples_and_gifts_are_written_in_one_canonical_form() -> None:
    assert str(parse_slot_action("R7@12+B7@2+G7@30+Y7@31")) == "R7@12+G7@30+B7@2+Y7@31"
    assert str(parse_slot_action("R7@12+G7@9+G7@3+Y7@31")) == "R7@12+G7@3+G7@9+Y7@31"
    assert str(parse_slot_action("Rgift@5:2:23,17")) == "Rgift@5:2:17,23"


@pytest.mark.parametrize("text", ["R7", "R7@", "R7@x", "R7@123456", "wild@4", "wild@4:Q", "Rswap@3",
                                  "Rgift@5:2:1,2,3", "Rgift@5:2:5", "R7@1+G7@1+B7@2", "R7@1+G8@2+B7@3",
                                  "R7@1+G7@2", "R7@1:B", "", "catch:x", "Rgift@5:2:17,17"])
def test_bad_hidden_notation_is_refused_in_one_line(text: str) -> None:
    with pytest.raises(ParseError) as err:
        parse_slot_action(text)
    assert "\n" not in str(err.value)


def test_an_action_in_todays_notation_is_refused_in_one_line() -> None:
    _, (public, _) = views(ANNIVERSARY, SEVENS)
    for bad in ("Y5", Play((parse_card("Y5"),)), "Y5@1", "Y5@0:B", "catch:9"):
        with pytest.raises((IllegalAction, ParseError)) as err:
            public.apply(1, bad)  # type: ignore[arg-type]
        assert "\n" not in str(err.value)
    assert public.where(0) == ("hand", 1, 0) and public.where(8) == ("discard", None, 0)
    assert public.where(9) == ("draw", None, 0)


def test_a_decline_leaves_the_jump_in_on_a_skip_open_at_both_tables() -> None:
    """docs/rules.md 1.8.18: seat 2 holds a Protection and declines the Skip; seat 0 may still jump in
    with the twin Skip, at a hidden-hands table and at an open one alike."""
    config = Config.preset("anniversary", 4, hand_size=4)
    placed = {0: "Gskip", 4: "R1", 8: "R2", 12: "R3", 1: "protR", 5: "B1", 9: "B2", 13: "B3",
              2: "Y1", 6: "Y2", 10: "Y3", 14: "Y4", 3: "Gskip", 7: "G1", 11: "G2", 15: "G4", 16: "G3"}
    cards = arrange(config, placed)
    hidden = audit_replay(config, 0, cards, [(1, "Gskip@0"), (2, "decline")])
    assert hidden.turn == 3 and hidden.jump and "Gskip@3" in {str(a) for a in on_slots(hidden, 0)}
    assert [e.facts.get("jump") for e in hidden.apply(0, "Gskip@3")] == [True]
    assert hidden.laid_by == 0 and hidden.react is not None and hidden.react.pending == [1]
    today = position(hands=("Gskip G1 G2 G4", "Gskip R1 R2 R3", "protR B1 B2 B3", "Y1 Y2 Y3 Y4"),
                     discard="G3", turn=1)
    act(today, 1, "Gskip")
    act(today, 2, "decline")
    assert today.turn == 3 and today.jump and "Gskip" in legal(today, 0)
    events = today.apply(0, parse_action("Gskip"))  # seat 1 holds no Protection: skipped at once
    assert [(e.kind, e.seat, e.facts.get("jump")) for e in events] == [("play", 0, True),
                                                                        ("skipped", 1, None)]
    assert today.laid_by == 0 and today.react is None and today.turn == 2


def test_gifted_slots_are_learnt_by_the_target_only() -> None:
    seats, (public, full) = views(ANNIVERSARY, {0: "Ygift", 2: "R7", 4: "G7", 6: "B2", 8: "Y3"})
    run([*seats, public, full], [(1, "Ygift@0:0:2,4"), (0, "decline")])
    assert full.handed == [(0, 2), (0, 4)] and full.held[0][-2:] == [2, 4]
    assert all(slot not in public.cards for slot in (2, 4))


@pytest.mark.parametrize("limit", [None, 112])
def test_past_the_slot_limit_the_discard_pile_is_not_dealt_again_and_a_draw_finds_no_card(
        limit: int | None, monkeypatch: pytest.MonkeyPatch) -> None:
    """Slot numbers take 2 bytes on the wire: a round that would deal past ``SLOT_LIMIT`` slots
    does not reshuffle; a draw then finds no card (docs/rules.md 1.3's case of an empty discard pile)."""
    import cardtable.engine.solo.state as hidden

    if limit is not None:
        monkeypatch.setattr(hidden, "SLOT_LIMIT", limit)
    config = Config.preset("classic", 2, hand_size=7)
    cards = arrange(config, {14: "G4"})
    view = State(config, 0, cards)
    view.turn_up(14, cards[14])
    def moves() -> list[str]:
        seat = view.to_move()
        assert seat is not None and not view.is_over()
        return [str(a) for a in on_slots(view, seat)]

    # both draw; a fitting card is played
    while view.draw_slots or not view.discard_slots[:-1] or "draw" not in moves():
        seat, legal = view.to_move(), moves()
        play = [m for m in legal if m not in ("draw", "keep") and not m.startswith(("solo", "catch"))]
        view.apply(seat, "draw" if "draw" in legal else (play[0] if play else "keep"))
    seat = view.to_move()
    hand = len(view.held[seat])
    view.apply(seat, "draw")
    assert len(view.deals) == (1 if limit else 2)
    assert len(view.held[seat]) == (hand if limit else hand + 1)
