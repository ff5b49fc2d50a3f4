"""``cardtable watch NAME`` at a table with no place for it: one line and exit status 3, at once
(issue 36 item 5); a spectator the host sends away is told so once its client is closed; a table
that does not answer is named instead of waited for forever. The table runs on the simulated LAN
(``p2p/simnet.py``), the command as typed (``cli/watch_cmd.py``) with its node and its peer on it."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import click
import pytest

from cardtable.cli import net_cmds, watch_cmd
from cardtable.cli.main import main
from cardtable.p2p.peer import Peer
from cardtable.p2p.simnet import Node, SimNet
from cardtable.p2p.spectators import MAX_SPECTATORS, SENT_AWAY
from tests.p2p.test_hidden_table import hidden_table
from tests.p2p.test_spectators import watcher

LABEL = "table 'kitchen' (1a2b3c4d)"


class SimNode:
    """What a spectator's client needs of a ``p2p.node.Node`` (``wait_for``), on the simulated LAN:
    its timeout is in the simulation's seconds."""

    def __init__(self, net: SimNet) -> None:
        self.net = net

    async def wait_for(self, predicate: Callable[[], bool], timeout: float | None = None) -> bool:
        return self.net.run(predicate, limit=600.0 if timeout is None else timeout)


def full_kitchen() -> tuple[SimNet, list[Node]]:
    net = SimNet(31)
    nodes = hidden_table(net, 3, 3)
    taken = [watcher(net, nodes[0], f"stranger{i}")[1] for i in range(MAX_SPECTATORS)]
    assert net.run(lambda: all(s.log for s in taken), limit=10)
    return net, nodes


def on_the_simnet(monkeypatch: pytest.MonkeyPatch, net: SimNet, host: Node) -> list[Peer]:
    """``cardtable watch kitchen`` finds ``host``'s table and runs its spectator on ``net``."""
    peer = host.peer
    assert peer is not None and peer.table_id is not None
    found = (peer.table_id, host.addr, LABEL, peer.key, [host.addr])
    monkeypatch.setattr(net_cmds, "_find_table", lambda *args: found)
    made: list[Peer] = []
    real = Peer.spectator

    def spectator(identity: Any, store: Any, table_id: bytes, contact: Any, name: str, **kw: Any) -> Peer:
        node = net.node(name)  # its own machine on the simulated LAN (``SimNet.watch``, through ``real``)
        made.append(net._launch(node, real, table_id, contact, name, sequencer=kw["sequencer"]))
        return made[-1]

    def run(runner: net_cmds.NodeRunner, peer: Peer, joining: bool = False) -> None:
        assert runner.client is not None
        asyncio.run(runner.client(SimNode(net), peer, 0.0))

    monkeypatch.setattr(Peer, "spectator", spectator)
    monkeypatch.setattr(net_cmds.NodeRunner, "run", run)
    return made


def test_watching_a_full_table_says_so_in_one_line_and_exits_3(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    net, nodes = full_kitchen()
    made = on_the_simnet(monkeypatch, net, nodes[0])
    asked = net.now
    with pytest.raises(SystemExit) as end:
        main(["watch", "kitchen", "--plain", "--name", "friend"])
    err = capsys.readouterr().err
    assert end.value.code == watch_cmd.NO_PLACE == 3
    assert err.splitlines() == ["cardtable: error: the 4 spectator places of table 'kitchen' (1a2b3c4d) are "
                                "taken; ask the host to make room"]
    assert net.now - asked < 1.0 and made[0].left and not made[0].log


def test_a_spectator_the_host_sends_away_is_told_once_its_client_is_closed() -> None:
    net, nodes = full_kitchen()
    host = nodes[0].peer
    assert host is not None and host.table_id is not None
    seen: list[str] = []

    async def client(node: Any, peer: Any, linger: float) -> str | None:  # the table, until it stops
        seen.append("shown")
        net.handle(nodes[0], host.free_spectator(MAX_SPECTATORS, net.now))  # the last come: this one
        await node.wait_for(lambda: peer.left, 30.0)
        return None

    friend = net.node("friend")
    net.handle(nodes[0], host.free_spectator(1, net.now))  # a place for the friend
    spectator = net.watch(friend, host.table_id, nodes[0].addr, sequencer=host.key)
    run = watch_cmd.spectator_client(client, LABEL, nodes[0].addr)
    with pytest.raises(watch_cmd.NoPlace) as end:
        asyncio.run(run(SimNode(net), spectator, 0.0))
    assert seen == ["shown"] and spectator.watch_refused == SENT_AWAY
    assert end.value.exit_code == 3 and end.value.format_message() == \
        "the host of table 'kitchen' (1a2b3c4d) sent this machine's spectator away: it may not watch there " \
        "for 10 minutes"


def test_a_table_that_does_not_answer_is_named_instead_of_waited_for() -> None:
    net = SimNet(32)
    nodes = hidden_table(net, 3, 3)
    host = nodes[0].peer
    assert host is not None and host.table_id is not None
    net.crash(nodes[0])
    spectator = net.watch(net.node("friend"), host.table_id, nodes[0].addr, sequencer=host.key)

    async def client(node: Any, peer: Any, linger: float) -> str | None:
        raise AssertionError("no log came: the table is not shown")

    run = watch_cmd.spectator_client(client, LABEL, nodes[0].addr, wait=5.0)
    with pytest.raises(click.ClickException) as end:
        asyncio.run(run(SimNode(net), spectator, 0.0))
    assert end.value.exit_code == 1 and end.value.format_message().startswith(
        f"no answer from {LABEL} at {nodes[0].addr[0]}:{nodes[0].addr[1]} in 5 s: is it still running?")
