"""The lobby: until the match starts, the host's table shows its name, the command that joins
it, and who holds each seat (a real host peer on the simulated LAN; a second peer joins)."""

from __future__ import annotations

import asyncio
import io
from collections.abc import Callable
from types import SimpleNamespace
from typing import Any

from textual.widgets import RichLog, Static

from cardtable.cli.controller import Controller
from cardtable.cli.net_session import NetSession
from cardtable.cli.plain import PlainClient
from cardtable.cli.tui import TableApp
from cardtable.engine.solo import Config as SoloConfig
from cardtable.p2p.simnet import SimNet


def lobby(**host: Any) -> tuple[SimNet, Any, NetSession]:
    """A 4-seat table: the host, two free seats, one computer player."""
    net = SimNet(11)
    host_node = net.node("kitchen")
    peer = net.host(host_node, SoloConfig.preset("classic", 4), 1, auto=None, bots="random", **host)
    net.step()
    return net, host_node, NetSession(SimpleNamespace(on_event=None), peer)


def join(net: SimNet, host_node: Any, name: str, until: Callable[[], bool]) -> None:
    """``name`` joins (a bot plays its seat); run the LAN until ``until()``."""
    net.join(net.node(name), host_node.peer.table_id, host_node.addr, auto="random", bots="random")
    for _ in range(5000):
        if until() or not net.step():
            return


def table_text(app: TableApp) -> str:
    return str(app.query_one("#table", Static).render())


def test_the_host_sees_the_join_command_and_the_seats_until_the_match_starts() -> None:
    net, host_node, session = lobby()
    app = TableApp(Controller(session), bot_delay=None)
    seen: dict[str, str] = {}

    async def main() -> None:
        async with app.run_test(size=(160, 50)) as pilot:
            await pilot.pause()
            seen["lobby"] = table_text(app)
            seen["title"] = str(app.query_one("#table", Static).border_title)
            table = host_node.peer.table
            join(net, host_node, "bea", lambda: sum(1 for s in table.seats if s.owner) == 2)
            app.refresh_view()
            await pilot.pause()
            seen["joined"] = table_text(app)
            join(net, host_node, "cy", lambda: table.match is not None)
            app.refresh_view()
            await pilot.pause()
            seen["started"] = table_text(app)
            seen["started_title"] = str(app.query_one("#table", Static).border_title)

    asyncio.run(main())
    lobby_text = seen["lobby"]
    assert seen["title"] == "Lobby"
    assert "Table 'kitchen'\nOthers join with:  cardtable join kitchen" in lobby_text
    assert "seat 0: you" in lobby_text
    assert "seat 1: free: waiting for a player" in lobby_text and "seat 2: free" in lobby_text
    assert "seat 3: cpu 3 (computer player)" in lobby_text
    assert "2 more players" in lobby_text
    assert "seat 1: bea" in seen["joined"] and "1 more player has" in seen["joined"]
    assert seen["started_title"] == "Table" and "cardtable join" not in seen["started"]


def test_plain_prints_the_lobby() -> None:
    _, _, session = lobby()
    out = io.StringIO()
    PlainClient(Controller(session), out, io.StringIO(), bot_delay=None).poll()
    lines = out.getvalue().splitlines()
    assert lines[:2] == ["Table 'kitchen'", "Others join with:  cardtable join kitchen"]
    assert lines[2] == "Options: SOLO classic, 4 players · pools of 500: highest pool wins, ends below 0"
    assert lines[3:7] == ["seat 0: you", "seat 1: free: waiting for a player",
                          "seat 2: free: waiting for a player", "seat 3: cpu 3 (computer player)"]


def test_a_passphrase_tables_join_line_asks_for_the_passphrase_without_showing_it() -> None:
    _, _, session = lobby(passphrase="four random words here")
    out = io.StringIO()
    PlainClient(Controller(session), out, io.StringIO(), bot_delay=None).poll()
    lines = out.getvalue().splitlines()
    assert lines[1] == "Others join with:  cardtable join kitchen --passphrase PASSPHRASE"
    assert "random words" not in out.getvalue()


def test_who_joined_and_who_is_back_is_told_to_everyone() -> None:
    """In "What happened", on every screen: "NAME joined" as each player sits down in the lobby,
    and "NAME is back" once a player told as not answering is heard again."""
    from cardtable.engine import scout
    from cardtable.p2p.peer import Timeouts

    net = SimNet(5, timeouts=Timeouts(bot_delay=0.3))
    ann, bea, cy = (net.node(name) for name in ("ann", "bea", "cy"))
    host = net.host(ann, scout.Config(players=4), 1, auto="random", bots="random")
    screens: dict[str, tuple[Any, Controller]] = {
        "ann": (ann, Controller(NetSession(SimpleNamespace(on_event=None), host)))}
    heard = {"ann": 0, "cy": 0}

    def run(until: Callable[[], bool], limit: float) -> None:
        """Run the LAN, each screen hearing its peer's events as they come."""
        def hearing() -> bool:
            for name, (node, controller) in screens.items():
                for _, event in node.events[heard[name]:]:
                    controller.session._on_peer_event(event)
                heard[name] = len(node.events)
            return until()
        assert net.run(hearing, limit=limit)

    def everyone_read(line: str) -> bool:
        return all(any(said.startswith(line) for said in c.log) for _, c in screens.values())

    assert host.table_id is not None
    net.join(bea, host.table_id, ann.addr, auto="random", bots="random")
    run(lambda: host.table.seats[1].owner is not None, 10)
    cy_peer = net.join(cy, host.table_id, ann.addr, auto="random", bots="random")
    screens["cy"] = (cy, Controller(NetSession(SimpleNamespace(on_event=None), cy_peer)))
    run(lambda: host.table.match is not None, 30)
    begun = host.commit_index
    run(lambda: host.commit_index > begun + 30, 60)
    net.crash(bea)  # bea's machine stops answering ...
    run(lambda: everyone_read("bea is not answering"), 20)
    net.resume(bea, auto="random", bots="random")  # ... and is heard again before a computer takes over
    run(lambda: everyone_read("bea is back"), 20)
    for name, (_, controller) in screens.items():
        app = TableApp(controller, bot_delay=None)
        shown: list[str] = []

        async def main(app: TableApp = app, shown: list[str] = shown) -> None:
            async with app.run_test(size=(160, 50)) as pilot:
                await pilot.pause()
                shown.extend(strip.text.strip() for strip in app.query_one("#log", RichLog).lines)

        asyncio.run(main())
        assert "bea joined (seat 1)" in shown, (name, shown)
        assert ("cy joined (seat 2)" in shown) == (name == "ann")  # cy is told its own seat instead
        assert shown.index("bea is not answering (12 s)") < shown.index("bea is back"), (name, shown)
