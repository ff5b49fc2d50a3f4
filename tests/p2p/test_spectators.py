"""Spectators on the simulated LAN (p2p/spectators.py): a machine without a seat is sent the log,
sees the public table only, changes nothing, passes the lobby's door, and is bounded and dropped."""

from __future__ import annotations

from typing import Any

from cardtable.engine import scout
from cardtable.p2p import seal, wire
from cardtable.p2p.peer import Peer
from cardtable.p2p.simnet import Faults, Node, SimNet
from cardtable.p2p.spectators import MAX_SPECTATORS, SILENCE
from cardtable.p2p.table import PLAYING
from tests.p2p import all_over, build, leader
from tests.p2p.test_hidden_table import hidden_table, running


def watcher(net: SimNet, host: Node, name: str = "watcher", **kw: Any) -> tuple[Node, Peer]:
    node = net.node(name)
    assert host.peer is not None and host.peer.table_id is not None
    return node, net.watch(node, host.peer.table_id, host.addr, sequencer=host.peer.key, **kw)


def sent_kinds(net: SimNet, node: Node) -> set[type]:
    """The message types ``node`` put on the wire (from the net's trace)."""
    assert net.trace is not None
    return {type(wire.decode(data, None).msg) for _, src, _, data in net.trace if src == node.addr}


def private_cards(peer: Peer) -> int:
    """Cards of any seat this machine's table shows that were not shown to everyone."""
    state: Any = peer.table.match.state if peer.table.match else None
    return sum(1 for s, hand in enumerate(state.hands if state else []) for pos, card in enumerate(hand)
               if card.up != 0 and not state.known[s][pos])


def test_a_spectator_watches_a_hidden_match_to_its_end_seatless_and_silent() -> None:
    net = SimNet(3, Faults(loss=0.1, dup=0.1, reorder=0.1))
    net.trace = []
    nodes = hidden_table(net, 3, 3)
    w, spectator = watcher(net, nodes[0])
    assert net.run(lambda: all_over(net), limit=900), "the match did not finish"
    players = [n.peer for n in nodes if n.peer is not None]
    assert spectator.table.phase == "over"
    assert {spectator.table.digest()} == {p.table.digest() for p in players}
    assert spectator.my_seat is None and spectator.key not in spectator.roster.members
    assert spectator.key not in players[0].roster.members and not spectator.queue
    assert sent_kinds(net, w) <= {wire.Watch, wire.AppendOk}  # no proposal, vote, head or secret
    assert nodes[0].kinds("spectator") == [{"name": "watcher", "watching": 1}]
    assert not any(r.startswith("internal") for p in [*players, spectator] for r in p.dropped)


def _finished(seed: int, watch: bool) -> tuple[str, tuple[int, ...], int]:
    net = SimNet(seed, Faults(delay=(0.001, 0.001)))  # the spectator's datagrams move no other's timing
    nodes = hidden_table(net, 3, 3)
    if watch:
        watcher(net, nodes[0])
    assert net.run(lambda: all_over(net), limit=900)
    host = nodes[0].peer
    assert host is not None and host.table.match is not None
    return host.table.digest(), tuple(host.table.match.totals), host.commit_index


def test_the_match_is_the_same_with_and_without_a_spectator() -> None:
    """Same seed, same match, same log: the spectator adds nothing (with a fixed delay, as the
    bots' moves depend on when they are asked, and random delays would move with its datagrams)."""
    assert _finished(11, watch=True) == _finished(11, watch=False)


def test_a_spectator_opens_no_card_of_a_hidden_table() -> None:
    """Its hidden side receives no seed and no key; its table shows no card not shown to all
    (the control: a player's table shows its own hand)."""
    net = SimNet(5, Faults(loss=0.1))
    nodes = hidden_table(net, 3, 3)
    _, spectator = watcher(net, nodes[0])
    player = nodes[1].peer
    assert player is not None
    seen_by_player = 0
    while not all_over(net) and net.now < 600:
        assert net.step()
        assert private_cards(spectator) == 0
        if player.table.phase == PLAYING:
            seen_by_player = max(seen_by_player, private_cards(player))
    assert all_over(net) and seen_by_player > 0
    assert not spectator.side.seeds and not spectator.side.dealings


def test_the_sequencer_keeps_at_most_four_spectators() -> None:
    net = SimNet(6)
    nodes = hidden_table(net, 3, 3)
    spectators = []
    for i in range(MAX_SPECTATORS + 1):
        spectators.append(watcher(net, nodes[0], f"w{i}")[1])
        net.run_for(1.0)
    host = nodes[0].peer
    assert host is not None and len(host.spectators) == MAX_SPECTATORS
    assert [bool(s.log) for s in spectators] == [True] * MAX_SPECTATORS + [False]
    assert host.dropped["spectators full"] > 0


def test_a_spectator_that_goes_away_is_dropped_and_the_match_goes_on() -> None:
    net = SimNet(7)
    nodes = hidden_table(net, 3, 3)
    w, spectator = watcher(net, nodes[0])
    assert net.run(lambda: bool(spectator.table.match), limit=60)
    net.crash(w)
    assert net.run(lambda: bool(nodes[0].kinds("spectator_gone")), limit=SILENCE + 2)
    assert nodes[0].kinds("spectator_gone") == [{"name": "watcher", "watching": 0}]
    host = nodes[0].peer
    assert host is not None and not host.spectators
    assert net.run(lambda: all_over(net), limit=900)


def test_a_watch_from_a_forged_address_gets_only_a_cookie() -> None:
    """The door: a WATCH whose source address does not answer is sent the cookie, nothing else."""
    net = SimNet(8)
    net.trace = []
    nodes = hidden_table(net, 3, 3)
    host = nodes[0].peer
    assert host is not None and host.table_id is not None
    liar = net.node("liar")
    spoofed = ("10.9.9.9", 4000)
    fields = [host.table_id, liar.identity.key, "liar", None, bytes(wire.WATCH_PAD)]
    data = wire.encode(wire.WATCH, fields, liar.identity.sign, None)
    net.inject(nodes[0].addr, data, spoofed)
    net.run_for(1.0)
    to_spoofed = [wire.decode(d, None).msg for _, _, dst, d in net.trace if dst == spoofed]
    assert [type(m) for m in to_spoofed] == [wire.Probe] and not host.spectators


def test_a_spectator_needs_the_passphrase() -> None:
    net = SimNet(9)
    nodes = [net.node(f"p{i}") for i in range(2)]
    host = net.host(nodes[0], scout.Config(players=2), 0, auto="random", bots="random", passphrase="pw")
    assert host.table_id is not None
    net.join(nodes[1], host.table_id, nodes[0].addr, auto="random", bots="random", passphrase="pw")
    _, without = watcher(net, nodes[0], "without")
    _, wrong = watcher(net, nodes[0], "wrong", passphrase="nope")
    _, right = watcher(net, nodes[0], "right", passphrase="pw")
    assert net.run(lambda: all(p.table.phase == "over" for p in (host, right)), limit=900)
    assert right.table.digest() == host.table.digest()
    assert not without.log and not wrong.log and len(host.spectators) == 1


def test_a_spectator_follows_the_new_sequencer_when_the_old_one_is_gone() -> None:
    """The host (the sequencer) crashes mid-match: the others elect another, the spectator asks the
    members it knows again and watches on to the same end."""
    net = SimNet(21)
    nodes = build(net, scout.Config(players=3), 3, 0)
    _, spectator = watcher(net, nodes[0])
    assert net.run(lambda: spectator.table.match is not None and spectator.log_length > 30, limit=60)
    net.crash(nodes[0])
    assert net.run(lambda: all_over(net), limit=600)
    new = leader(net)
    assert new is not None and new is not nodes[0].peer and spectator.key in new.spectators
    assert {spectator.table.digest()} == {p.table.digest() for p in running(nodes)}


def test_a_spectator_watches_a_hidden_solo_match_and_holds_no_key() -> None:
    from tests.p2p.test_hidden_solo_table import solo_table

    net = SimNet(4, Faults(loss=0.05))
    nodes = solo_table(net, 3, 3)
    _, spectator = watcher(net, nodes[0])
    assert net.run(lambda: all_over(net), limit=900)
    assert {spectator.table.digest()} == {p.table.digest() for p in running(nodes)}
    assert not spectator.side.seeds and not spectator.side.dealings and spectator.my_seat is None


def test_an_answer_to_a_watch_is_smaller_than_the_watch() -> None:
    """No amplification: the smallest ``WATCH`` (no name, no cookie, the least stamp, no seal) is
    bigger than the biggest answer it can get (a cookie, or a member's redirect with the longest
    host, the largest numbers, sealed); a sequencer and a member answer with those."""
    net = SimNet(10)
    nodes = hidden_table(net, 3, 2)
    net.run_for(1.0)
    host, member = (n.peer for n in nodes)
    assert host is not None and member is not None and host.table_id is not None
    ghost = net.node("ghost").identity
    tid, key, top = host.table_id, ghost.key, wire.MAX_INT
    smallest = wire.encode(wire.WATCH, [tid, key, "", None, bytes(wire.WATCH_PAD)], ghost.sign, None, 1)
    sealed = seal.for_table("x", tid)
    biggest = [wire.encode(wire.PROBE, [tid, key, bytes(wire.NONCE_BYTES), False], ghost.sign, sealed, top),
               wire.encode(wire.REDIRECT, [tid, key, top, key, "h" * 64, 65535], ghost.sign, sealed, top)]
    assert max(len(b) for b in biggest) < len(smallest)
    for peer, kind in ((host, wire.Probe), (member, wire.Redirect)):
        out = peer.receive(smallest, ("10.9.9.8", 9998), net.now)
        assert [type(wire.decode(d, None).msg) for d, _ in out.send] == [kind]
        assert len(out.send[0][0]) < len(smallest)


def test_a_gone_spectators_replayed_answers_do_not_keep_it() -> None:
    """A stranger that replays a spectator's captured ``APPEND_OK``s (and its ``WATCH``) from its
    address after it went away does not keep its slot: the spectator is dropped as if silent."""
    net = SimNet(12)
    net.trace = []
    nodes = hidden_table(net, 3, 3)
    w, spectator = watcher(net, nodes[0])
    assert net.run(lambda: spectator.log_length > 20, limit=60)
    captured = [d for _, src, _, d in net.trace if src == w.addr]
    net.crash(w)
    for _ in range(int(2 * SILENCE)):
        for data in captured:
            net.inject(nodes[0].addr, data, w.addr)
        net.run_for(0.5)
    host = nodes[0].peer
    assert host is not None and not host.spectators and host.dropped["replayed"] > 0
