"""The client controller without a UI, over ``LocalSession``: building and sending every kind of
move, the out-of-turn options, the turn clock and the words of the log."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from cardtable.ai.bots import make_bot
from cardtable.cli.controller import Controller
from cardtable.cli.player_words import Note, table_words, words
from cardtable.cli.session import BaseSession, LocalSession
from cardtable.cli.words import Speaker
from cardtable.engine.match import Match
from cardtable.engine.scout import Config as ScoutConfig
from cardtable.engine.solo import Config as SoloConfig

DRAW = "R1 R2 R3 G4 G5 B6 B7 Y8 Y9 R9 G1 G2"


def solo_match(hands: list[str], discard: str = "R5", edition: str = "anniversary", **state: Any) -> Match:
    """A match whose first round is the SOLO position given (seat 0 is the player)."""
    config = SoloConfig.preset(edition, len(hands))
    snap: dict[str, Any] = {"game": "solo", "config": config.to_dict(), "seed": b"client".hex(), "round": 0,
                            "hands": [h.split() for h in hands], "draw": state.pop("draw", DRAW).split(),
                            "discard": discard.split(), "turn": state.pop("turn", 0)}
    snap.update(state)
    return Match.from_snapshot({"config": config.to_dict(), "seed": b"client".hex(), "round": 0,
                                "totals": config.initial_totals(), "round_scores": [], "state": snap})


def scout_match(hands: list[str], active: str = "", owner: int | None = None, turn: int | None = 0,
                phase: str = "play", **state: Any) -> Match:
    config = ScoutConfig(players=len(hands))
    n = len(hands)
    cards = [h.split() for h in hands]
    snap: dict[str, Any] = {
        "config": config.to_dict(), "seed": b"client".hex(), "round": 0, "phase": phase,
        "turn": turn if phase == "play" else None,
        "flipped": [False] * n if phase == "play" else [None] * n, "hands": cards,
        "known": [[False] * len(h) for h in cards], "active": active.split(), "owner": owner,
        "captured": [[] for _ in range(n)], "chips": [0] * n, "scout_show": [n > 2] * n, "set_aside": [],
        "exempt": None,
    }
    snap.update(state)
    return Match.from_snapshot({"config": config.to_dict(), "seed": b"client".hex(), "round": 0,
                                "totals": [0] * n, "round_scores": [], "state": snap})


def client(match: Match, **kw: Any) -> tuple[LocalSession, Controller]:
    session = LocalSession(match, 0, "heuristic")
    return session, Controller(session, **kw)


def view(session: LocalSession) -> dict[str, Any]:
    """The player's observation (the match has started)."""
    obs = session.observation()
    assert obs is not None
    return obs


def hand(session: LocalSession, seat: int = 0) -> list[str]:
    return list(session.match().observation(seat)["hand"])


def keys(question: Any) -> list[str]:
    return [c.key for c in question.choices]


# --- SOLO ---------------------------------------------------------------------------------------


def test_play_a_card_and_the_bots_answer() -> None:
    session, c = client(solo_match(["R7 G3 B2", "G1 G2 G6", "B1 B3 B4", "Y1 Y2 Y3"]))
    menu = c.menu()
    assert menu is not None and keys(menu) == ["R7", "draw"]  # G3 and B2 do not fit on R5
    assert c.choose("R7") is None
    assert view(session)["top"] == "R7" and "R7" not in hand(session)
    assert c.log[-1] == "You play R7"
    assert not c.waiting_for_me()
    assert session.run_bots() >= 3
    assert any(line.startswith("cpu 1 (seat 1) ") for line in c.log)


def test_a_wild_asks_for_a_colour_and_names_it() -> None:
    session, c = client(solo_match(["wild G3 B2", "G1 G2 G6", "B1 B3 B4", "Y1 Y2 Y3"]))
    q = c.choose("wild")
    assert q is not None and q.kind == "colour" and keys(q) == ["R", "G", "B", "Y"]
    assert "green" in q.choices[1].label and "you hold 1" in q.choices[1].label
    assert c.choose("G") is None
    obs = view(session)
    assert obs["top"] == "wild" and obs["colour"] == "G"
    assert c.log[-1] == "You play wild naming green"


def test_a_swap_asks_for_the_target() -> None:
    session, c = client(solo_match(["Rswap G3 B2", "G1 G2 G6 G7 G8", "B1 B3", "Y1 Y2 Y3"]))
    q = c.choose("Rswap")
    assert q is not None and q.kind == "target" and keys(q) == ["1", "2", "3"]
    assert "5 cards" in q.choices[0].label
    assert c.choose("1") is None
    assert hand(session) == ["G1", "G2", "G6", "G7", "G8"]
    assert "You swap hands with cpu 1 (seat 1)" in c.log


def test_a_gift_asks_for_the_target_and_two_cards() -> None:
    session, c = client(solo_match(["Rgift G3 B2 Y4", "G1 G2 G6", "B1 B3 B4", "Y1 Y2 Y3"]))
    q = c.choose("Rgift")
    assert q is not None and q.kind == "target"
    q = c.choose("2")
    assert q is not None and q.kind == "gift1" and keys(q) == ["G3", "B2", "Y4"]
    q = c.choose("Y4")
    assert q is not None and q.kind == "gift2" and keys(q) == ["G3", "B2"]
    assert c.choose("G3") is None
    assert hand(session) == ["B2"]
    assert sorted(hand(session, 2)) == sorted(["B1", "B3", "B4", "G3", "Y4"])
    assert "You give 2 cards to cpu 2 (seat 2)" in c.log


def test_multiples_ask_for_first_last_and_middle_cards() -> None:
    session, c = client(solo_match(["R7 G7 B7 Y7 Y2", "G1 G2 G6", "B1 B3 B4", "Y1 Y2 Y3"]))
    menu = c.menu()
    assert menu is not None and "multi:7" in keys(menu)
    q = c.choose("multi:7")
    assert q is not None and q.kind == "last"  # R7 is the only first card that fits on R5
    assert keys(q) == ["G7", "B7", "Y7"]
    q = c.choose("Y7")
    assert q is not None and q.kind == "middle" and keys(q) == ["G7", "B7", "G7+B7"]
    assert c.choose("G7+B7") is None
    obs = view(session)
    assert obs["top"] == "Y7" and obs["hand"] == ["Y2"]
    assert c.log[-1] == "You play R7+G7+B7+Y7"


def test_jump_in_is_an_option_only_with_the_identical_card() -> None:
    state: dict[str, Any] = {"turn": 2, "jump": True, "laid_by": 1, "colour": "R"}
    session, c = client(solo_match(["R5 G3 B2", "G1 G2 G6", "B1 B3 B4", "Y1 Y2 Y3"], discard="R2 R5",
                                   **state))
    assert not c.waiting_for_me() and c.turn_moves() == []
    assert [str(a) for a in c.options().jump] == ["R5"]
    assert c.jump_in() is None
    assert c.log[-1] == "You jump in with R5"
    assert view(session)["turn"] == 1  # play goes on from the jumper
    assert c.options().jump == [] and c.jump_in() == "no jump-in now"


def test_solo_call_with_the_play_is_armed_by_the_key() -> None:
    session, c = client(solo_match(["R7 G3", "G1 G2 G6", "B1 B3 B4", "Y1 Y2 Y3"], edition="classic"))
    assert c.options().arm and c.options().call is None
    assert c.call_solo() is None and c.call_armed
    assert c.choose("R7") is None
    assert view(session)["solo"] == {"seat": 0, "called": True}
    assert c.log[-1] == "You play R7 and call SOLO!"
    assert not c.call_armed


def test_a_missed_call_in_classic_costs_two_cards() -> None:
    session, c = client(solo_match(["R7 G3", "G1 G2 G6", "B1 B3 B4", "Y1 Y2 Y3"], edition="classic"))
    assert c.choose("R7") is None
    session.run_bots()
    assert len(hand(session)) >= 3
    assert "You did not call SOLO and draw 2 cards" in c.log


def test_late_solo_call_in_window_mode() -> None:
    session, c = client(solo_match(["R7 G3", "G1 G2 G6", "B1 B3 B4", "Y1 Y2 Y3"]))
    assert c.choose("R7") is None  # no call armed: the window opens
    assert view(session)["solo"] == {"seat": 0, "called": False}
    assert c.options().call is not None
    assert c.call_solo() is None
    assert view(session)["solo"] == {"seat": 0, "called": True}
    assert c.log[-1] == "You call SOLO!"


def test_catch_a_missed_call() -> None:
    state: dict[str, Any] = {"turn": 3, "solo": {"seat": 2, "called": False}, "laid_by": 2}
    session, c = client(solo_match(["R7 G3", "G1 G2 G6", "B4", "Y1 Y2 Y3"], **state))
    opts = c.options()
    assert [str(a) for a in opts.catch] == ["catch:2"]
    # the always-legal false catches are not offered
    assert [str(a) for a in c.actions() if str(a).startswith("catch")] == ["catch:2"]
    assert c.catch() is None
    assert len(hand(session, 2)) == 3
    assert c.log[-1] == "You catch cpu 2 (seat 2), who draws 2 cards"
    assert c.options().catch == [] and c.catch() == "nobody to catch now"


def test_protect_against_a_skip() -> None:
    react: dict[str, Any] = {"kind": "skip", "by": 3, "pending": [0], "target": 0}
    session, c = client(solo_match(["protG R7 G3", "G1 G2 G6", "B1 B3 B4", "Y1 Y2 Y3"], discard="R2 Rskip",
                                   turn=None, react=react, laid_by=3, jump=True, colour="R"))
    assert c.waiting_for_me()
    opts = c.options()
    assert [str(a) for a in opts.protect] == ["protG"] and str(opts.decline) == "decline"
    assert {str(a) for a in c.turn_moves()} == {"protG", "decline"}
    assert c.protect() is None
    assert c.log[-2:] == ["You play protG", "You are protected from the Skip"]
    assert view(session)["turn"] == 1 and "You are skipped" not in c.log


def test_decline_a_protection_window() -> None:
    react: dict[str, Any] = {"kind": "skip", "by": 3, "pending": [0], "target": 0}
    session, c = client(solo_match(["protG R7 G3", "G1 G2 G6", "B1 B3 B4", "Y1 Y2 Y3"], discard="R2 Rskip",
                                   turn=None, react=react, laid_by=3, jump=True, colour="R"))
    assert c.decline() is None
    assert c.log[-2:] == ["You do not protect", "You are skipped"]
    assert view(session)["turn"] == 1
    assert c.decline() == "no Protection window for you"


def test_bad_input_is_one_line_and_changes_nothing() -> None:
    session, c = client(solo_match(["R7 G3 B2", "G1 G2 G6", "B1 B3 B4", "Y1 Y2 Y3"]))
    before = session.match().digest()
    for text, part in (("zzz", "not a SOLO action"), ("G3", "does not fit"), ("wild:B", "does not hold"),
                       ("", "non-empty")):
        why = c.submit(text)
        assert why is not None and part in why and "\n" not in why, (text, why)
    assert session.match().digest() == before
    with pytest.raises(ValueError):
        c.choose("G3")
    assert c.builder is None


# --- SCOUT --------------------------------------------------------------------------------------


def test_scout_flip_turns_the_whole_hand() -> None:
    session, c = client(Match(ScoutConfig(players=3), b"flip"))
    before = hand(session)
    opts = c.options()
    assert str(opts.flip) == "flip" and str(opts.keep) == "keep"
    assert c.flip(True) is None
    turned = ["/".join(reversed(card.split("/"))) for card in reversed(before)]
    assert hand(session) == turned
    assert c.log[-1] == "You turn your whole hand around"
    assert c.flip(True) == "the whole-hand turn is over"


def test_scout_show_a_span() -> None:
    session, c = client(scout_match(["3/1 4/2 5/9 8/1", "6/2 7/3", "9/4 6/5"], active="2/3", owner=2))
    q = c.choose("show")
    assert q is not None and q.kind == "from"
    q = c.choose("0")
    assert q is not None and q.kind == "to" and keys(q) == ["0", "1", "2"]
    assert "3-4-5 (run of 3)" in q.choices[2].label
    assert c.choose("2") is None
    obs = view(session)
    assert obs["active"] == ["3/1", "4/2", "5/9"] and obs["hand"] == ["8/1"]
    assert c.log[-1] == "You show 3-4-5 (run of 3), capture 1 card"


def test_scout_a_card_with_orientation_and_insert_position() -> None:
    session, c = client(scout_match(["3/1 4/2 5/9", "6/2 7/3", "9/4 6/5"], active="7/2 8/3", owner=2))
    q = c.choose("scout")
    assert q is not None and q.kind == "end" and keys(q) == ["L", "R"]
    q = c.choose("R")
    assert q is not None and q.kind == "value" and keys(q) == ["3", "8"]
    q = c.choose("3")
    assert q is not None and q.kind == "pos" and keys(q) == ["0", "1", "2", "3"]
    assert "between 3/1 and 4/2" in q.choices[1].label
    assert c.choose("1") is None
    obs = view(session)
    assert obs["hand"] == ["3/1", "3/8", "4/2", "5/9"] and obs["active"] == ["7/2"]
    assert c.log[-1] == "You scout 3/8 from the right end of cpu 2 (seat 2)'s set, insert it at 1; " \
                        "cpu 2 (seat 2) gets a Scout chip"
    assert view(session)["chips"] == [0, 0, 1]


def test_scout_and_show() -> None:
    session, c = client(scout_match(["3/1 4/2 6/9 8/1", "6/2 7/3", "9/4 6/5"], active="5/2 6/3", owner=2))
    q = c.choose("scoutshow")
    assert q is not None and q.kind == "end"
    c.choose("L")
    c.choose("5")
    q = c.choose("2")  # 3/1 4/2 [5/2] 6/9
    assert q is not None and q.kind == "from"
    q = c.choose("0")
    assert q is not None and q.kind == "to"
    assert c.choose("3") is None
    obs = view(session)
    assert obs["active"] == ["3/1", "4/2", "5/2", "6/9"] and obs["hand"] == ["8/1"]
    assert any("with the Scout & Show chip" in line for line in c.log)


# --- the turn clock, leaving, whole matches ----------------------------------------------------------


class FakeClock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_turn_clock_plays_the_heuristic_move_when_time_runs_out() -> None:
    clock = FakeClock()
    session, c = client(solo_match(["R7 G3 B2", "G1 G2 G6", "B1 B3 B4", "Y1 Y2 Y3"]), turn_clock=10,
                        clock=clock)
    assert c.tick() is None  # the clock starts
    clock.now += 9.5
    assert c.tick() is None and c.time_left() == pytest.approx(0.5)
    assert "(0 s left)" in c.status_line() or "(1 s left)" in c.status_line()
    clock.now += 1
    played = c.tick()
    assert played in ("R7", "draw")
    assert "Time is up: the computer plays" in c.log[-2]
    assert not c.waiting_for_me()


def test_turn_clock_waits_while_it_is_not_your_turn_and_restarts_on_your_turn() -> None:
    clock = FakeClock()
    session, c = client(solo_match(["R7 G3 B2", "G1 G2 G6", "B1 B3 B4", "Y1 Y2 Y3"], turn=1),
                        turn_clock=5, clock=clock)
    assert c.tick() is None and c.clock_start is None
    clock.now += 60
    assert c.tick() is None  # not waiting for us: nothing to play
    session.run_bots()
    assert c.waiting_for_me()
    assert c.tick() is None and c.clock_start == clock.now
    clock.now += 4
    assert c.tick() is None
    c.submit(str(c.turn_moves()[0]))
    assert c.clock_start is None


def test_leaving_gives_the_seat_to_a_bot_that_finishes_the_match() -> None:
    session, c = client(Match(ScoutConfig(players=3), b"leave"))
    c.leave()
    assert session.phase() == "left"
    assert c.log[-1] == "You leave the table; a computer player (heuristic) takes over"
    assert c.submit("flip") == "you have left the table"
    session.run_bots()
    assert session.is_over()


def heuristic_move(session: BaseSession) -> str:
    """Our seat's move as the heuristic would make it, in the words the hint gives: for tests that
    only need a match played through (the hint, ismcts:strong, spends seconds a move)."""
    m, obs = session.match(), session.observation()
    assert m is not None and session.seat is not None and obs is not None
    action = make_bot("heuristic", m.seed, session.seat).choose(obs, session.legal())
    assert action is not None
    return str(action)


def play_out(session: LocalSession, c: Controller) -> None:
    """Play the whole match: our seat plays as the heuristic does."""
    for _ in range(5000):
        session.run_bots()
        if session.is_over():
            return
        assert c.waiting_for_me(), "the computer players stopped, yet the game does not wait for us"
        move = heuristic_move(session)
        assert c.submit(move) is None, move
    raise AssertionError("the match did not end")


def test_a_whole_scout_match_has_round_and_match_summaries() -> None:
    session, c = client(Match(ScoutConfig(players=3), b"whole"))
    play_out(session, c)
    summaries = [line for line in c.log if line.startswith("Round ") and "summary" in line]
    assert len(summaries) == 3
    assert c.log[-1].startswith("Match over after 3 rounds. Won by ")
    assert c.summary == c.log[-1]
    assert session.hint().action is None


def test_a_one_round_match_says_round_not_rounds() -> None:
    config = dataclasses.replace(SoloConfig.preset("classic", 2), rounds=1)
    session, c = client(Match(config, b"one round"))
    assert c.scoring_line().startswith("pools of 500: highest pool wins, ends below 0 (or after 1 round) · ")
    play_out(session, c)
    assert c.log[-1].startswith("Match over after 1 round. Won by ")


def test_event_words() -> None:
    """Sentences are made from the events' fields; the engine's own text is not read."""
    names = ["ann", "cpu 1", "cpu 2"]

    def say(kind: str, seat: int | None, me: int = 0, **facts: Any) -> str:
        return words(Note(kind, seat, "(engine words, unused)", facts), me, names)

    assert say("catch", 1, target=0, count=2) == "cpu 1 (seat 1) catches you: you draw 2 cards"
    assert say("play", 0, cards=["R7"], jump=True) == "You jump in with R7"
    assert say("play", 2, cards=["wd4"], colour="B", call=True) \
        == "cpu 2 (seat 2) plays wd4 naming blue and calls SOLO!"
    assert say("flip", 0, hand=True) == "You turn your whole hand around"
    assert say("scout", 2, cards=["3/8"], end="R", pos=1, target=0, chips=None, both=False, empty=False) \
        == "cpu 2 (seat 2) scouts 3/8 from the right end of your set, inserts it at 1; you get a Scout chip"
    assert say("scout", 0, cards=["4/2"], end="L", pos=6, target=1, chips=2, both=False, empty=True) \
        == ("You scout 4/2 from the left end of cpu 1 (seat 1)'s set, insert it at 6, pay a Scout chip "
            "(2 Scout chips left) and move again; the table is empty")
    assert say("end", 1, spared=True) \
        == "Nobody beat cpu 1 (seat 1)'s set: the round is over, no hand penalty"
    assert say("round_end", None, me=1, round=1, scores=[3, -2, 0]) \
        == "Round 1 ends: ann (seat 0) +3, you -2, cpu 2 (seat 2) +0"
    assert say("out", 0) == "You have no cards left and win the round"
    assert say("draw", 1, count=4, penalty=4) == "cpu 1 (seat 1) draws 4 cards as a penalty"
    assert say("draw", 0, count=1, penalty=4) == "You draw 1 card as a penalty (of 4: the pile ran out)"
    assert say("show", 0, cards=["3/1", "4/9", "5/2"], shape="run", count=1) \
        == "You show 3-4-5 (run of 3), capture 1 card"
    assert say("newfangled", 2) == "cpu 2 (seat 2): (engine words, unused)"  # no words: the engine's


def test_the_tables_alarms_are_worded() -> None:
    """A sequencer caught showing two histories or leaving a move out, and a history undone,
    are told on every screen in words (p2p/chain.py, p2p/proposals.py)."""
    speak = Speaker(0, ["ann", "bob", "cid"])
    assert table_words("equivocation", {"seat": 1, "key": "ab", "term": 3, "index": 9}, speak) \
        == ("bob (seat 1) sent two different histories as sequencer: every member refuses it as sequencer "
            "from now on, and another one is chosen")
    assert table_words("rewound", {"index": 9}, speak) \
        == "Entries from 9 on were a false history: the table goes back and replays the agreed one"
    assert table_words("censored", {"seat": 2, "victim": 0, "key": "cd", "term": 4}, speak) \
        == "cid (seat 2) as sequencer left your move out: it is voted out"


def test_hint_never_fails_even_where_the_search_cannot_sample() -> None:
    """A hand-made position has fewer cards than a deck: the search may refuse it; the heuristic
    bot answers instead, and the hint is always one of the legal actions."""
    session, c = client(solo_match(["R7 G3 B2", "G1 G2 G6", "B1 B3 B4", "Y1 Y2 Y3"]))
    hint = session.hint()
    assert hint.action in {"R7", "draw"}, hint
    assert hint.bot in ("heuristic", "ismcts:strong")
    dealt, _ = client(Match(SoloConfig.preset("classic", 3), b"dealt"))
    dealt.run_bots()
    hint = dealt.hint()
    assert hint.action in {str(a) for a in dealt.legal()} and "failed" not in hint.text, hint


# --- the plain line mode over the same controller ----------------------------------------------------


def plain(match: Match) -> tuple[LocalSession, Any, Any, Any]:
    import io

    from cardtable.cli.plain import PlainClient

    session, c = client(match)
    out, err = io.StringIO(), io.StringIO()
    return session, PlainClient(c, out, err, bot_delay=None), out, err


def test_plain_prompts_takes_actions_and_explains_bad_lines_in_one_line() -> None:
    session, p, out, err = plain(solo_match(["wild R7 G3", "G1 G2 G6", "B1 B3 B4", "Y1 Y2 Y3"]))
    p.poll()
    lines = out.getvalue().splitlines()
    assert lines[-2] == "hand: R7 G3 wild"
    assert lines[-1] == "your turn (seat 0): 6 moves: R7 wild:R wild:G wild:B wild:Y draw"
    p.feed("wild")
    assert err.getvalue() == "cardtable: wild needs more: wild:R wild:G wild:B wild:Y\n"
    p.feed("G3")
    assert err.getvalue().splitlines()[-1] == "cardtable: G3 does not fit on R5 with red in force"
    p.poll()
    assert out.getvalue().splitlines()[-1].startswith("your turn (seat 0): ")  # the prompt again
    p.feed("moves")
    assert out.getvalue().splitlines()[-1] == "moves: R7 wild:R wild:G wild:B wild:Y draw"
    p.feed("wild:Y")
    p.poll()
    assert "You play wild naming yellow" in out.getvalue().splitlines()
    assert view(session)["colour"] == "Y"
    p.feed(None)  # end of input
    p.poll()
    assert p.done and session.phase() == "left"
    assert out.getvalue().splitlines()[-1] == "You leave the table; a computer player (heuristic) takes over"


def test_plain_announces_out_of_turn_chances() -> None:
    state: dict[str, Any] = {"turn": 2, "jump": True, "laid_by": 1, "colour": "R"}
    session, p, out, err = plain(solo_match(["R5 G3 B2", "G1 G2 G6", "B1 B3 B4", "Y1 Y2 Y3"], discard="R2 R5",
                                            **state))
    p.poll()
    assert out.getvalue().splitlines()[-1] == "you may (seat 0): jump in R5"
    p.feed("jump")
    p.poll()
    assert "You jump in with R5" in out.getvalue().splitlines()
    assert err.getvalue() == ""


def test_both_open_solo_windows_are_shown_and_each_can_be_caught() -> None:
    """docs/rules.md 1.8.17: a Protection against a Swap leaves the protector and the swapper owing a
    call; seat 2 sees both marked and may catch either (and no one else)."""
    match = solo_match(["Rswap B1", "protB G1", "Y1 Y2 Y3"], discard="R6")  # anniversary: window mode
    assert match.config.call == "window"
    match.apply(0, match.parse_action("Rswap:1"))
    match.apply(1, match.parse_action("protB"))
    c = Controller(LocalSession(match, 2, "heuristic"))
    rows = {row["seat"]: row["solo"] for row in c.players()}
    assert rows == {0: "missed", 1: "missed", 2: None}
    catches = sorted(str(a) for a in c.actions() if str(a).startswith("catch:"))
    assert catches == ["catch:0", "catch:1"]


def test_a_table_line_that_starts_with_a_players_name_keeps_the_name_as_written() -> None:
    names = ["porch", "bea", "cpu 2"]
    left = Note("table", 1, "bea left: a computer player plays the seat until bea is back")
    assert words(left, 0, names) == "bea left: a computer player plays the seat until bea is back"
    assert words(Note("table", None, "the shuffle is agreed"), 0, names) == "The shuffle is agreed"
    assert words(Note("table", None, "beacons go out"), 0, names) == "Beacons go out"  # not a name


def test_a_rematch_clears_the_last_matchs_summary() -> None:
    match = Match(SoloConfig(players=3), b"rematch")
    c = Controller(LocalSession(match, 0, "heuristic"))
    c.summary = "Match over after 1 round. Won by you."
    c._on_note(Note("new_match", None, "everyone agreed: match 2 begins with the same seats and options"))
    assert c.summary == ""


def test_the_player_is_called_once_each_time_the_game_begins_to_wait_for_them() -> None:
    """``calls``: true once as your turn comes (or a Protection window opens for you), not again
    while it lasts, and again at your next turn."""
    session, c = client(solo_match(["R7 R8 G3", "R1 G2 G6", "B1 B3 B4", "Y1 Y2 Y3"], turn=1))
    assert not c.calls()  # cpu 1 moves first
    session.run_bots()
    assert c.waiting_for_me() and c.calls() and not c.calls()
    assert c.submit(str(c.turn_moves()[0])) is None
    assert not c.calls()
    session.run_bots()
    assert c.waiting_for_me() and c.calls()
    react: dict[str, Any] = {"kind": "skip", "by": 3, "pending": [0], "target": 0}
    _, c = client(solo_match(["protG R7", "G1 G2", "B1 B3", "Y1 Y2"], discard="R2 Rskip", turn=None,
                             react=react, laid_by=3, colour="R"))
    assert c.calls()  # a Protection window opens for you


def test_the_bell_is_on_at_a_lan_table_and_off_against_computer_players() -> None:
    from types import SimpleNamespace

    from cardtable.cli.net_session import NetSession
    from cardtable.p2p.simnet import SimNet

    assert not client(solo_match(["R7", "G1", "B1"]))[1].bell  # play --no-network
    net = SimNet(3)
    peer = net.host(net.node("ann"), SoloConfig.preset("classic", 3), 1, auto=None, bots="random")
    node = SimpleNamespace(on_event=None)
    assert Controller(NetSession(node, peer)).bell  # host, join
    assert not Controller(NetSession(node, peer, keep=True)).bell  # play: a private table
    assert not Controller(NetSession(node, peer), bell=False).bell  # asked off
