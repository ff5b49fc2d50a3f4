"""The Textual table through its headless Pilot: choosing moves from the list, the choosers, and
the out-of-turn hot keys, which are shown only while they are legal."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Awaitable, Callable
from typing import Any

from textual.pilot import Pilot
from textual.widgets import Footer, OptionList, RichLog, Static

from cardtable.cli.controller import RACE_WINDOW, Controller
from cardtable.cli.player_words import move_words
from cardtable.cli.session import LocalSession
from cardtable.cli.tui import TableApp
from cardtable.engine.match import Match
from cardtable.engine.scout import Config as ScoutConfig
from cardtable.engine.solo import Config as SoloConfig
from tests.cli.test_client_controller import heuristic_move, scout_match, solo_match, view

HOT_KEYS = {"j", "s", "c", "p", "d", "f", "k"}

Scenario = Callable[[Pilot[Any], TableApp, LocalSession], Awaitable[None]]


def run_app(match: Match, scenario: Scenario, **controller: Any) -> None:
    """Run ``scenario`` against the table for seat 0 of ``match`` (the computer players move only
    when the scenario steps them)."""
    session = LocalSession(match, 0, "heuristic")
    app = TableApp(Controller(session, **controller), bot_delay=None)

    async def main() -> None:
        async with app.run_test(size=(120, 40)) as pilot:
            await pilot.pause()
            await scenario(pilot, app, session)

    asyncio.run(main())


def shown_keys(app: TableApp) -> set[str]:
    """The hot keys the footer shows now (its keys as drawn, not only the bindings behind them)."""
    keys = app.screen.query_one(Footer).query("FooterKey")
    return {str(getattr(key, "key", "")) for key in keys} & HOT_KEYS


def menu(app: TableApp) -> list[str]:
    moves = app.query_one("#moves", OptionList)
    return [str(moves.get_option_at_index(i).id) for i in range(moves.option_count)]


async def pick(pilot: Pilot[Any], app: TableApp, key: str) -> None:
    """Highlight the option ``key`` in the moves list and press Enter."""
    moves = app.query_one("#moves", OptionList)
    moves.highlighted = moves.get_option_index(key)
    await pilot.press("enter")
    await pilot.pause()


def log_text(app: TableApp) -> str:
    """What the log shows, its wrapped lines joined again (whitespace normalized)."""
    return re.sub(r"\s+", " ", " ".join(strip.text for strip in app.query_one("#log", RichLog).lines))


async def refresh(pilot: Pilot[Any], app: TableApp) -> None:
    app.refresh_view()
    await pilot.pause()


def test_play_a_card_from_the_list() -> None:
    async def scenario(pilot: Pilot[Any], app: TableApp, session: LocalSession) -> None:
        assert menu(app) == ["R7", "draw"]
        assert "Your turn" in str(app.query_one("#status", Static).render())
        assert shown_keys(app) == set()  # nothing out of turn is legal now
        await pick(pilot, app, "R7")
        assert view(session)["top"] == "R7"
        assert "You play R7" in log_text(app)
        assert menu(app) == []  # not our turn any more
        session.run_bots()
        await refresh(pilot, app)
        assert "cpu 1 (seat 1)" in log_text(app)

    run_app(solo_match(["R7 G3 B2", "G1 G2 G6", "B1 B3 B4", "Y1 Y2 Y3"]), scenario)


def test_name_a_colour_for_a_wild() -> None:
    async def scenario(pilot: Pilot[Any], app: TableApp, session: LocalSession) -> None:
        await pick(pilot, app, "wild")
        assert menu(app) == ["R", "G", "B", "Y"]
        assert str(app.query_one("#moves", OptionList).border_title).startswith("Name a colour")
        await pilot.press("escape")  # back to the moves
        await pilot.pause()
        assert "wild" in menu(app)
        await pick(pilot, app, "wild")
        await pick(pilot, app, "B")
        assert view(session)["colour"] == "B"
        assert "You play wild naming blue" in log_text(app)

    run_app(solo_match(["wild G3 B2", "G1 G2 G6", "B1 B3 B4", "Y1 Y2 Y3"]), scenario)


def test_jump_in_with_the_hot_key() -> None:
    state: dict[str, Any] = {"turn": 2, "jump": True, "laid_by": 1, "colour": "R"}

    async def scenario(pilot: Pilot[Any], app: TableApp, session: LocalSession) -> None:
        assert shown_keys(app) == {"j"}
        await pilot.press("j")
        await pilot.pause()
        assert "You jump in with R5" in log_text(app)
        assert shown_keys(app) == set()  # the window is closed: the key is gone

    run_app(solo_match(["R5 G3 B2", "G1 G2 G6", "B1 B3 B4", "Y1 Y2 Y3"], discard="R2 R5", **state), scenario)


def test_call_solo_with_the_play_and_late() -> None:
    async def with_play(pilot: Pilot[Any], app: TableApp, session: LocalSession) -> None:
        assert shown_keys(app) == {"s"}  # classic: the call goes with the play that needs it
        await pilot.press("s")
        await pilot.pause()
        assert "SOLO! armed" in str(app.query_one("#status", Static).render())
        await pick(pilot, app, "R7")
        assert view(session)["solo"] == {"seat": 0, "called": True}
        assert "You play R7 and call SOLO!" in log_text(app)

    run_app(solo_match(["R7 G3", "G1 G2 G6", "B1 B3 B4", "Y1 Y2 Y3"], edition="classic"), with_play)

    async def late(pilot: Pilot[Any], app: TableApp, session: LocalSession) -> None:
        await pick(pilot, app, "R7")
        assert shown_keys(app) == {"s"}  # anniversary: a late call until the next player acts
        await pilot.press("s")
        await pilot.pause()
        assert view(session)["solo"] == {"seat": 0, "called": True}
        assert "You call SOLO!" in log_text(app)
        assert shown_keys(app) == set()

    run_app(solo_match(["R7 G3", "G1 G2 G6", "B1 B3 B4", "Y1 Y2 Y3"]), late)


def test_catch_a_missed_call_with_the_hot_key() -> None:
    state: dict[str, Any] = {"turn": 3, "solo": {"seat": 2, "called": False}, "laid_by": 2}

    async def scenario(pilot: Pilot[Any], app: TableApp, session: LocalSession) -> None:
        assert shown_keys(app) == {"c"}
        assert "has not called SOLO" in str(app.query_one("#table", Static).render())
        await pilot.press("c")
        await pilot.pause()
        assert "You catch cpu 2 (seat 2), who draws 2 cards" in log_text(app)
        assert view(session)["hand_sizes"][2] == 3
        assert shown_keys(app) == set()

    run_app(solo_match(["R7 G3", "G1 G2 G6", "B4", "Y1 Y2 Y3"], **state), scenario)


def test_protection_and_decline_keys_only_in_the_window() -> None:
    react: dict[str, Any] = {"kind": "skip", "by": 3, "pending": [0], "target": 0}
    state: dict[str, Any] = {"turn": None, "react": react, "laid_by": 3, "jump": True, "colour": "R"}

    async def scenario(pilot: Pilot[Any], app: TableApp, session: LocalSession) -> None:
        assert shown_keys(app) == {"p", "d"}
        await pilot.press("p")
        await pilot.pause()
        assert "You play protG" in log_text(app)
        assert shown_keys(app) == set()

    run_app(solo_match(["protG R7 G3", "G1 G2 G6", "B1 B3 B4", "Y1 Y2 Y3"], discard="R2 Rskip", **state),
            scenario)


def test_turn_a_scout_hand() -> None:
    async def scenario(pilot: Pilot[Any], app: TableApp, session: LocalSession) -> None:
        before = view(session)["hand"]
        assert shown_keys(app) == {"f", "k"}
        assert menu(app) == ["flip", "keep"]
        await pilot.press("f")
        await pilot.pause()
        after = view(session)["hand"]
        assert after == ["/".join(reversed(c.split("/"))) for c in reversed(before)]
        assert "You turn your whole hand around" in log_text(app)
        assert shown_keys(app) == set()
        hand = str(app.query_one("#hand", Static).render())
        assert after[0].split("/")[0] in hand

    run_app(Match(ScoutConfig(players=3), b"tui-flip"), scenario)


def test_scout_and_insert() -> None:
    async def scenario(pilot: Pilot[Any], app: TableApp, session: LocalSession) -> None:
        assert "active set" in str(app.query_one("#table", Static).render())
        await pick(pilot, app, "scout")
        assert menu(app) == ["L", "R"]
        await pick(pilot, app, "R")
        assert menu(app) == ["3", "8"]
        await pick(pilot, app, "3")
        assert menu(app) == ["0", "1", "2", "3"]
        await pick(pilot, app, "1")
        assert view(session)["hand"] == ["3/1", "3/8", "4/2", "5/9"]
        assert "You scout 3/8 from the right end of cpu 2 (seat 2)'s set, insert it at 1" in log_text(app)

    run_app(scout_match(["3/1 4/2 5/9", "6/2 7/3", "9/4 6/5"], active="7/2 8/3", owner=2), scenario)


def test_hint_key_says_what_a_computer_player_would_do() -> None:
    async def scenario(pilot: Pilot[Any], app: TableApp, session: LocalSession) -> None:
        session.run_bots()
        await refresh(pilot, app)
        assert app.controller.waiting_for_me()
        await pilot.press("h")
        for _ in range(100):
            await pilot.pause(0.05)
            if app.hint_text != "thinking...":
                break
        m = re.fullmatch(r"(ismcts:strong|heuristic) would (.+)", app.hint_text)
        assert m, app.hint_text
        obs, names = session.observation(), session.names()
        assert obs is not None
        assert m.group(2) in {move_words(a, obs, names) for a in session.legal()}  # a legal move, in words
        assert f"hint: {app.hint_text}" in str(app.query_one("#status", Static).render())

    run_app(Match(SoloConfig.preset("anniversary", 4), b"tui-hint"), scenario)


def test_the_table_over_the_p2p_stack_on_loopback() -> None:
    """``NetSession``: a private table on a real UDP socket (as ``cardtable play`` opens it); moves
    go through the peer's log and the computer players answer through it."""
    from cardtable.cli.net_session import NetSession
    from cardtable.p2p.identity import Identity
    from cardtable.p2p.node import Node
    from cardtable.p2p.peer import Peer
    from cardtable.p2p.store import MemoryStore

    async def main() -> None:
        node = Node(host="127.0.0.1", listen_discovery=False, broadcast=["127.0.0.1"])
        await node.open()
        node.broadcast = []
        try:
            peer = Peer.host(Identity.generate(), MemoryStore(), SoloConfig.preset("classic", 3), "you", 2,
                             now=node.clock(), seed=b"tui-net", bots="heuristic", auto=None)
            session = NetSession(node, peer)
            node.attach(peer)
            assert await node.wait_for(lambda: peer.table.match is not None, 10)
            app = TableApp(Controller(session), bot_delay=None)
            async with app.run_test(size=(120, 40)) as pilot:
                for _ in range(3):  # three of our turns, each answered by both computer players
                    assert await node.wait_for(app.controller.waiting_for_me, 15)
                    await refresh(pilot, app)
                    before = session.version
                    first = menu(app)[0]
                    await pick(pilot, app, first)
                    if app.controller.builder is not None:  # a Wild: name the first colour offered
                        await pick(pilot, app, menu(app)[0])
                    assert await node.wait_for(lambda b=before: session.version > b, 10)  # type: ignore[misc]
                await refresh(pilot, app)
                text = log_text(app)
                assert "The shuffle is agreed: the match starts" in text
                assert text.count("You ") >= 3 and "cpu 1 (seat 1)" in text and "cpu 2 (seat 2)" in text
                assert app.controller.message == ""
        finally:
            await node.close()

    asyncio.run(main())


def test_round_and_match_summaries_then_q_leaves_with_the_digest() -> None:
    session = LocalSession(Match(ScoutConfig(players=3), b"tui-summary"), 0, "heuristic")
    controller = Controller(session)
    app = TableApp(controller, bot_delay=None)

    async def main() -> None:
        async with app.run_test(size=(120, 40)) as pilot:
            for _ in range(2000):
                session.run_bots()
                if session.is_over():
                    break
                assert controller.submit(heuristic_move(session)) is None
            assert session.is_over()
            await refresh(pilot, app)
            text = log_text(app)
            for n in (1, 2, 3):
                assert f"Round {n} summary: you " in text
            summary = str(app.query_one("#summary", Static).render())
            assert summary.startswith("Match over after 3 rounds. Won by ")
            assert "The match is over." in str(app.query_one("#status", Static).render())
            assert menu(app) == [] and shown_keys(app) == set()
            await pilot.press("q")
            await pilot.pause()
        assert app.return_value == session.digest()

    asyncio.run(main())


def test_q_twice_leaves_and_a_computer_takes_the_seat() -> None:
    async def scenario(pilot: Pilot[Any], app: TableApp, session: LocalSession) -> None:
        await pilot.press("q")
        await pilot.pause()
        assert "press q again to leave" in str(app.query_one("#status", Static).render())
        assert session.phase() == "playing"
        await pilot.press("q")
        await pilot.pause()
        assert session.phase() == "left"
        assert app.return_value is None
        session.run_bots()
        assert session.is_over()  # the computer player finished the match for us

    run_app(Match(ScoutConfig(players=3), b"tui-leave"), scenario)


def test_the_players_pane_counts_one_chip_and_several_in_words() -> None:
    async def scenario(pilot: Pilot[Any], app: TableApp, session: LocalSession) -> None:
        players = str(app.query_one("#players", Static).render())
        assert "1 chip" in players and "1 chips" not in players and "2 chips" in players

    run_app(scout_match(["1/2 3/4", "5/6 7/8", "9/1 2/5"], chips=[1, 2, 0]), scenario)


def test_the_scout_hand_keys_leave_the_footer_with_your_keep() -> None:
    """Another player decided first (the options shown then are what a late key meant): once
    your own keep lands, ``f`` and ``k`` are gone at once, not a race window later."""
    async def scenario(pilot: Pilot[Any], app: TableApp, session: LocalSession) -> None:
        assert session.step()  # cpu 1 turns or keeps its hand
        await refresh(pilot, app)
        assert shown_keys(app) == {"f", "k"}
        await pilot.press("k")
        await pilot.pause()
        assert "You keep your hand as dealt" in log_text(app)
        assert shown_keys(app) == set()

    run_app(Match(ScoutConfig(players=3), b"tui-flip"), scenario)


def test_a_lost_races_key_leaves_the_footer_when_its_moment_is_over() -> None:
    """A key whose chance another seat took stays a moment (pressed then, it is told as a lost
    race), and leaves the footer by itself once that moment is over, with nothing else moving."""
    now = [100.0]
    state: dict[str, Any] = {"turn": 1, "jump": True, "laid_by": 3, "colour": "R"}

    async def scenario(pilot: Pilot[Any], app: TableApp, session: LocalSession) -> None:
        assert shown_keys(app) == {"j"}  # R5 on R5: ours to jump in with
        assert session.step()  # cpu 1 plays: the jump-in is gone
        await refresh(pilot, app)
        assert "j" not in {str(a) for a in app.controller.options().jump} and shown_keys(app) == {"j"}
        now[0] += RACE_WINDOW + 0.5
        await pilot.pause(0.3)  # the table's own tick, nothing else
        assert shown_keys(app) == set()

    run_app(solo_match(["R5 G3 B2", "R1 G2 G6", "B1 B3 B4", "Y1 Y2 Y3"], discard="R2 R5", **state), scenario,
            clock=lambda: now[0])


def test_the_pending_penalty_is_not_shown_once_the_match_is_over() -> None:
    def table(over: bool) -> str:
        match = solo_match(["", "G1 G2", "B1 B3", "Y1"] if over else ["R7", "G1 G2", "B1 B3", "Y1"],
                           discard="R5 Rd2 Gd2", penalty=4, penalty_kind="d2", turn=1,
                           winner=0 if over else None)
        match.totals = [0, 520, 480, 470]  # over the threshold once the round is won
        seen: list[str] = []

        async def scenario(pilot: Pilot[Any], app: TableApp, session: LocalSession) -> None:
            assert session.is_over() == over
            seen.append(str(app.query_one("#table", Static).render()))

        run_app(match, scenario)
        return seen[0]

    assert "penalty pending: 4 cards" in table(over=False)
    assert "penalty" not in table(over=True)
