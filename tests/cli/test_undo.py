"""Undo against computer players (issue 38 item 9): at a ``play`` table ``u`` (and ``undo`` in
``--plain``) takes your last move back with the computer players' replies; the match is the one
it was before that move (its digest), and the computer players play on. Never at a LAN table."""

from __future__ import annotations

import asyncio
import io
from typing import Any

from textual.pilot import Pilot

from cardtable.cli.controller import Controller
from cardtable.cli.net_session import NetSession
from cardtable.cli.plain import PlainClient
from cardtable.cli.play_cmd import KeptSession
from cardtable.cli.session import LocalSession
from cardtable.cli.tui import TableApp
from cardtable.engine.match import Match
from cardtable.engine.solo import Config as SoloConfig
from tests.cli.test_client_controller import heuristic_move
from tests.cli.test_client_talk import SimSeat, table
from tests.cli.test_client_tui import menu, pick, refresh


def footer(app: TableApp) -> set[str]:
    return {key for key, b in app.screen.active_bindings.items() if b.binding.show}


async def play_first(pilot: Pilot[Any], app: TableApp) -> str:
    """Choose the first move offered (and the first of each of its details); what was chosen."""
    first = menu(app)[0]
    await pick(pilot, app, first)
    while app.controller.builder is not None:
        await pick(pilot, app, menu(app)[0])
    return first


def test_u_takes_the_move_back_in_process() -> None:
    session = LocalSession(Match(SoloConfig.preset("classic", 4), b"undo"), 0, "heuristic")
    app = TableApp(Controller(session), bot_delay=None)
    seen: dict[str, Any] = {}

    async def main() -> None:
        async with app.run_test(size=(120, 40)) as pilot:
            session.run_bots()
            await refresh(pilot, app)
            seen["keys before"] = footer(app)
            before = session.match().digest()
            played = await play_first(pilot, app)
            session.run_bots()
            await refresh(pilot, app)
            seen["moved"] = session.match().digest() != before
            seen["keys after"] = footer(app)
            await pilot.press("u")
            await pilot.pause()
            seen["same"] = session.match().digest() == before
            seen["mine again"] = app.controller.waiting_for_me() and menu(app)[0] == played
            seen["keys undone"] = footer(app)
            await play_first(pilot, app)  # and the computer players play on
            seen["on"] = session.run_bots() > 0

    asyncio.run(main())
    assert "u" not in seen["keys before"] and seen["moved"] and "u" in seen["keys after"]
    assert seen["same"] and seen["mine again"] and seen["on"]
    assert "u" not in seen["keys undone"]  # no move of yours is left in the match


def test_undo_at_a_play_table_replays_its_log_to_before_the_move() -> None:
    """``KeptSession`` on loopback, as ``cardtable play`` opens it: the log is cut before the move
    and the table resumed from it; ``undo`` in ``--plain``."""
    from cardtable.p2p.identity import Identity
    from cardtable.p2p.node import Node
    from cardtable.p2p.peer import Peer
    from cardtable.p2p.store import MemoryStore

    seen: dict[str, Any] = {}

    async def main() -> None:
        node = Node(host="127.0.0.1", listen_discovery=False, broadcast=["127.0.0.1"])
        await node.open()
        node.broadcast = []
        try:
            peer = Peer.host(Identity.generate(), MemoryStore(), SoloConfig.preset("classic", 3), "you", 2,
                             now=node.clock(), seed=b"undo-net", bots="heuristic", auto=None)
            session = KeptSession(node, peer, "cardtable play --resume")
            node.attach(peer)
            c = Controller(session)
            out, err = io.StringIO(), io.StringIO()
            plain = PlainClient(c, out, err, bot_delay=None)
            assert await node.wait_for(lambda: session.match() is not None and c.waiting_for_me(), 15)
            seen["undo first"] = c.undo()
            match = session.match()
            assert match is not None
            before, size = match.digest(), len(session.peer.log)
            move = str(c.turn_moves()[0])
            plain.feed(move)
            assert await node.wait_for(lambda: not c.waiting_for_me(), 10)
            assert await node.wait_for(lambda: c.waiting_for_me() or session.is_over(), 15)
            seen["moved"] = session.match().digest() != before  # type: ignore[union-attr]
            assert plain.ready("undo")
            plain.feed("undo")
            match = session.match()
            assert match is not None
            seen["same"] = match.digest() == before and len(session.peer.log) == size
            seen["mine"] = c.waiting_for_me()
            seen["undone"] = session.undoable()
            plain.feed(move)  # the same move again: the table takes it and the computer players answer
            assert await node.wait_for(lambda: len(session.peer.log) > size + 1, 15)
            seen["err"] = err.getvalue()
            plain.poll()
            seen["out"] = out.getvalue()
        finally:
            await node.close()

    asyncio.run(main())
    assert seen["undo first"] == "nothing to undo: you have made no move in this match"
    assert seen["moved"] and seen["same"] and seen["mine"] and not seen["undone"]
    assert seen["err"] == "" and "You take back your move" in seen["out"]
    assert "Resumed the table" not in seen["out"]  # the undo is the news, not how it was done


def test_no_undo_at_a_lan_table() -> None:
    net, seat, _ = table()
    assert seat.node.peer is not None
    session = NetSession(seat, seat.node.peer)
    assert net.run(lambda: any(e.decoded.kind == "act" and e.decoded.payload[1] == session.seat
                               for e in session.peer.log), limit=600)  # the seat has moved (its bot)
    c = Controller(session)
    app = TableApp(c, bot_delay=None)
    assert app.check_action("undo", ()) is False and not session.undoable()
    out, err = io.StringIO(), io.StringIO()
    PlainClient(c, out, err, bot_delay=None).feed("undo")
    assert err.getvalue() == "cardtable: undo is for a play table against computer players\n"
    assert isinstance(seat, SimSeat)


def test_the_help_page_and_plain_help_tell_undo() -> None:
    from cardtable.cli.plain import HELP
    from cardtable.cli.rules import table_keys

    assert "| `u` |" in table_keys("solo") and "| `u` |" in table_keys("scout")
    assert "undo (at a play table" in HELP


def test_no_undo_once_the_match_is_over() -> None:
    session = LocalSession(Match(SoloConfig.preset("classic", 2, rounds=1, hand_size=2), b"undo-end"), 0,
                           "heuristic")
    c = Controller(session)
    for _ in range(500):
        session.run_bots()
        if session.is_over():
            break
        assert c.submit(heuristic_move(session)) is None
    assert session.is_over() and any(s == 0 for s, _ in session.moves() or [])
    assert not session.undoable() and c.undo() == "the match is over"
