"""The host's lobby controls and the rematch in ``--plain``: ``set``, ``start``, ``free N``,
``rematch``; a joiner's controls are refused in one line; both machines see the changes."""

from __future__ import annotations

import io
from typing import Any

from cardtable.cli.controller import Controller
from cardtable.cli.net_session import NetSession
from cardtable.cli.plain import HELP, PlainClient
from cardtable.cli.table_controls import setting
from cardtable.engine import scout, solo
from cardtable.p2p.simnet import Node, SimNet
from cardtable.p2p.table import CPU, HUMAN
from tests.cli.test_client_talk import SimSeat, settle
from tests.p2p import all_over


class ControlSeat(SimSeat):
    def control(self, name: str, *args: Any) -> None:
        self._do(name, *args)


def lobby_of(players: int) -> tuple[SimNet, list[ControlSeat], list[PlainClient], list[io.StringIO]]:
    """The host and one joiner at a SCOUT table of ``players`` seats, each with a ``--plain`` client."""
    net = SimNet(8)
    nodes = [net.node("kitchen"), net.node("bea")]
    host = net.host(nodes[0], scout.Config(players=players), 0, auto="heuristic", bots="heuristic")
    assert host.table_id is not None
    net.join(nodes[1], host.table_id, nodes[0].addr, auto="heuristic", bots="heuristic")
    assert net.run(lambda: all(len(p.table.members()) == 2 for p in net.peers()), limit=60)
    seats = [ControlSeat(net, n) for n in nodes]
    outs = [io.StringIO() for _ in nodes]
    plains = []
    for seat, node, out in zip(seats, nodes, outs, strict=True):
        assert node.peer is not None
        plains.append(PlainClient(Controller(NetSession(seat, node.peer)), out, out, bot_delay=None))
    return net, seats, plains, outs


def feed(net: SimNet, seats: list[ControlSeat], plains: list[PlainClient], who: int, line: str) -> None:
    """``who``'s client reads ``line``; the table runs a second; every client prints what is new."""
    assert plains[who].ready(line)
    plains[who].feed(line)
    settle(net, seats[0], 1.0)
    for seat in seats[1:]:
        seat.tell()
    for plain in plains:
        plain.poll()


def peer_of(node: Node) -> Any:
    assert node.peer is not None
    return node.peer


def test_plain_set_and_start_by_the_host_and_a_joiner_refused() -> None:
    net, seats, plains, outs = lobby_of(4)
    feed(net, seats, plains, 1, "start")
    assert "Refused: only the host does that." in outs[1].getvalue().splitlines()
    feed(net, seats, plains, 0, "set players")
    assert any("set KEY=VALUE" in line for line in outs[0].getvalue().splitlines())
    feed(net, seats, plains, 0, "set players=3")
    for p in net.peers():
        assert p.table.config.players == 3 and p.table.phase == "lobby"
    for plain in plains:
        plain.poll()
    assert any("The host set the options: SCOUT, 3 players; 3 human seats" in line
               for line in outs[1].getvalue().splitlines())
    feed(net, seats, plains, 0, "start")
    assert net.run(lambda: all_over(net), limit=600)
    for p in net.peers():
        assert [s.controller for s in p.table.seats] == [HUMAN, HUMAN, CPU]
    for plain in plains:
        plain.poll()
    assert any("The host starts now: computer players take 1 free seat" in line
               for line in outs[1].getvalue().splitlines())
    assert "rematch" in HELP and "free N" in HELP and "set KEY=VALUE" in HELP


def test_plain_free_tells_the_freed_member_in_one_line() -> None:
    net, seats, plains, outs = lobby_of(3)
    feed(net, seats, plains, 0, "free 1")
    assert net.run(lambda: peer_of(seats[1].node).left, limit=30)
    seats[1].tell()
    plains[1].poll()
    assert "The host freed your seat: you are no longer at the table" in outs[1].getvalue().splitlines()


def test_plain_rematch_needs_both_and_then_plays_again() -> None:
    net, seats, plains, outs = lobby_of(2)
    assert net.run(lambda: all_over(net), limit=600)
    feed(net, seats, plains, 0, "rematch")
    assert all(p.table.phase == "over" for p in net.peers())
    feed(net, seats, plains, 1, "rematch")
    assert net.run(lambda: all(p.table.match_no == 1 for p in net.peers()) and all_over(net), limit=600)
    for plain in plains:
        plain.poll()
    assert any("Everyone agreed: match 2 begins" in line for line in outs[1].getvalue().splitlines())


def test_a_setting_is_checked_before_it_is_sent() -> None:
    config = solo.Config(players=4)
    assert setting(config, 0, "pool=300") == (solo.Config(players=4, pool=300), 0)
    assert setting(config, 0, "cpu=2") == (config, 2)
    assert setting(config, 0, "gifts=on")[0].gifts is True  # type: ignore[index]
    assert str(setting(config, 0, "colour=red")).startswith("no option colour: cpu, players")
    assert setting(config, 0, "gifts=maybe") == "gifts is on or off"
    assert setting(config, 0, "pool=lots") == "pool is a number"
    assert "players" in str(setting(config, 0, "players=12"))
