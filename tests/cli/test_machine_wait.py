"""Players see what they can act on at a hidden-hands table: a wait of more than about 2 s says
whose machine the table waits for; the protocol's own steps (an accusation, a refused protocol
entry) stay off the screen; a naming and a void say who and why in player words."""

from __future__ import annotations

from cardtable.cli.controller import Controller
from cardtable.cli.net_session import MACHINE_WAIT, NetSession
from cardtable.engine import scout
from cardtable.p2p.simnet import SimNet
from tests.cli.test_client_talk import SimSeat
from tests.p2p.test_hidden_table import _drop_kind, _withhold_keys_from


def test_a_wait_for_a_machine_is_named_on_the_status_line_and_the_protocol_stays_off_the_screen() -> None:
    net = SimNet(14)
    nodes = [net.node(name) for name in ("ann", "bob", "cy")]
    host = net.host(nodes[0], scout.Config(players=3), 0, auto="random", bots="random", deal="hidden")
    assert host.table_id is not None
    for node in nodes[1:]:
        net.join(node, host.table_id, nodes[0].addr, auto="random", bots="random")
    victim, cheat = nodes[1], nodes[2]
    assert victim.peer is not None and cheat.peer is not None
    _withhold_keys_from(cheat.peer, victim.peer)
    _drop_kind(cheat.peer, "keys")  # nor does it answer the accusation: it is named
    seat = SimSeat(net, victim)
    controller = Controller(NetSession(seat, victim.peer))
    lines: list[str] = []
    while not any(e.kind == "fault" for _, e in victim.events) and net.now < 120:
        net.run_for(0.25)
        seat.tell()
        lines.append(controller.status_line())
    waits = [line for line in lines if line.startswith("Waiting for cy's machine: ")]
    assert waits, lines[-5:]
    shown = sorted({int(line.split(": ")[1].split()[0]) for line in waits})
    assert shown[0] >= MACHINE_WAIT - 0.5 and shown[-1] >= 10  # counts up while it waits
    screen = "\n".join(controller.log)
    assert "must now put them in the log" not in screen and "holds nothing up" not in screen
    assert "Cy (key" in screen and "did not hand over the card keys" in screen  # the naming, in words
    assert "the other machines rebuild its part of the deal and the round goes on" in screen
    assert not controller.message.startswith("refused")
