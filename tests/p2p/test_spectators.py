"""Spectators on the simulated LAN (p2p/spectators.py): a machine without a seat is sent the log,
sees the public table only, changes nothing, passes the lobby's door, and is bounded and dropped;
one the table has no place for is told so at once, and the host can free a place."""

from __future__ import annotations

from typing import Any

from cardtable.engine import scout
from cardtable.p2p import seal, wire
from cardtable.p2p.identity import Identity
from cardtable.p2p.lobby import TICK
from cardtable.p2p.peer import Peer
from cardtable.p2p.simnet import Faults, Node, SimNet
from cardtable.p2p.spectators import FULL, MAX_SPECTATORS, SENT_AWAY, SILENCE, refusal_tag
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


# --- no place: the refusal, the host's control, the ration (issue 36 item 5) -----------------------


def full_table(net: SimNet, strangers: int = MAX_SPECTATORS) -> tuple[list[Node], list[Peer]]:
    """A hidden 3-seat table whose spectator places a stranger took, one machine each."""
    nodes = hidden_table(net, 3, 3)
    taken = [watcher(net, nodes[0], f"stranger{i}")[1] for i in range(strangers)]
    assert net.run(lambda: all(s.log for s in taken), limit=10)
    return nodes, taken


def test_a_watcher_of_a_full_table_is_told_at_once_and_stops() -> None:
    """A stranger took the four places; a friend who asks gets one signed answer, smaller than
    its ``WATCH``, within the first round trip, and stops: no log, nothing more sent."""
    net = SimNet(13)
    net.trace = []
    nodes, _ = full_table(net)
    host = nodes[0].peer
    assert host is not None
    asked = net.now
    w, friend = watcher(net, nodes[0], "friend")
    assert net.run(lambda: friend.left, limit=5), "the friend was not told"
    assert friend.watch_refused == FULL and not friend.log and net.now - asked < 0.1
    answers = [(d, wire.decode(d, None).msg) for _, src, dst, d in net.trace if dst == w.addr]
    watches = [d for _, src, _, d in net.trace if src == w.addr]
    assert [type(m) for _, m in answers] == [wire.Probe] and len(answers[0][0]) < min(map(len, watches))
    probe = answers[0][1]
    assert isinstance(probe, wire.Probe) and probe.key == host.key  # the sequencer's (signed: checked)
    net.run_for(3.0)
    assert len([d for _, src, _, d in net.trace if src == w.addr]) == len(watches)  # it stopped
    assert len(host.spectators) == MAX_SPECTATORS and friend.key not in host.spectators


def test_the_host_frees_a_place_the_friend_gets_in_and_the_one_sent_away_stays_out() -> None:
    net = SimNet(14)
    nodes, taken = full_table(net)
    host, member = nodes[0].peer, nodes[1].peer
    assert host is not None and member is not None
    w, friend = watcher(net, nodes[0], "friend")
    assert net.run(lambda: friend.left, limit=5) and friend.watch_refused == FULL
    assert sorted(name for name, _ in host.watchers()) == [f"stranger{i}" for i in range(MAX_SPECTATORS)]
    out = member.free_spectator(1, net.now)  # only the host may
    assert [e.data["reason"] for e in out.events if e.kind == "refused"] == ["only the host does that"]
    out = host.free_spectator("nobody", net.now)
    assert [e.data["reason"] for e in out.events if e.kind == "refused"] == ["no spectator is named 'nobody'"]
    net.handle(nodes[0], host.free_spectator("stranger1", net.now))
    assert nodes[0].kinds("spectator_gone") == [{"name": "stranger1", "watching": 3, "freed": True}]
    gone = taken[1]
    _, friend = watcher(net, nodes[0], "friend")  # asked again (a new key, as a new ``cardtable watch``)
    assert net.run(lambda: bool(friend.log), limit=5), "the friend did not get the place"
    assert net.run(lambda: gone.left, limit=10), "the stranger sent away was not told"
    assert gone.watch_refused == SENT_AWAY
    stranger = next(n for n in net.nodes.values() if n.peer is gone)
    stranger.identity = Identity.from_seed(b"another key!" * 2 + b"12345678")  # the same machine, a new key
    again = net.watch(stranger, host.table_id or b"", nodes[0].addr, sequencer=host.key)
    assert net.run(lambda: again.left, limit=5) and again.watch_refused == SENT_AWAY
    assert net.run(lambda: all(p.table.phase == "over" for p in [*running(nodes), friend]), limit=900)
    assert friend.table.digest() == host.table.digest()
    assert friend.key in host.spectators and not {gone.key, again.key} & set(host.spectators)


def test_a_forged_flood_of_watches_gets_at_most_one_small_answer_per_address_a_tick() -> None:
    """Forged ``WATCH``es to a full table, 100 a second from each of five addresses, a new key each:
    each address is sent at most one refusal a tick (each smaller than a ``WATCH``), nothing else,
    and the players play on."""
    net = SimNet(15)
    net.trace = []
    nodes, _ = full_table(net)
    host = nodes[0].peer
    assert host is not None and host.table_id is not None
    victims = [(f"10.9.9.{i}", 4000 + i) for i in range(5)]
    smallest, seconds = wire.MAX_DATAGRAM, 3.0
    for n in range(int(seconds * 100)):
        for i, victim in enumerate(victims):
            liar = Identity.from_seed((bytes([i, n % 256, n // 256]) * 11)[:32])
            data = wire.encode(wire.WATCH, [host.table_id, liar.key, "", None, bytes(wire.WATCH_PAD)],
                               liar.sign, None, n + 1)
            smallest = min(smallest, len(data))
            net.inject(nodes[0].addr, data, victim)
        net.run_for(0.01)
    for victim in victims:
        sent = [(at, d) for at, _, dst, d in net.trace if dst == victim]
        assert sent and all(len(d) < smallest for _, d in sent)
        assert {type(wire.decode(d, None).msg) for _, d in sent} == {wire.Probe}
        assert len(sent) <= seconds / TICK + 1, f"{len(sent)} answers to {victim}"
        ticks = [int(at // TICK) for at, _ in sent]
        assert len(set(ticks)) == len(ticks)  # never two in one tick
    assert host.dropped["spectators full"] >= 5 * 300
    assert net.run(lambda: all_over(net), limit=900)


def test_a_refusal_stops_only_the_spectator_it_names_and_only_while_it_asks() -> None:
    """A refusal is the sequencer's signed word about one key: a stranger's (from the sequencer's
    address), the sequencer's about another key (a captured one, replayed) and one while the
    spectator is sent the log are no refusal; the spectator watches on."""
    net = SimNet(16)
    nodes = hidden_table(net, 3, 3)
    host = nodes[0].peer
    assert host is not None and host.table_id is not None
    w, spectator = watcher(net, nodes[0])
    liar = net.node("liar").identity
    other = net.node("other").identity

    def refusal(signer: Identity, about: bytes) -> bytes:
        tag = refusal_tag(host.table_id or b"", about, FULL)
        stamp = host._stamp()  # the sequencer's next stamp: none of these is taken for a replay
        return wire.encode(wire.PROBE, [host.table_id, signer.key, tag, False], signer.sign, None, stamp)

    net.inject(w.addr, refusal(liar, spectator.key), nodes[0].addr)
    net.inject(w.addr, refusal(nodes[0].identity, other.key), nodes[0].addr)
    assert net.run(lambda: bool(spectator.log), limit=5)
    net.inject(w.addr, refusal(nodes[0].identity, spectator.key), nodes[0].addr)
    net.run_for(1.0)
    assert not spectator.left and spectator.watch_refused is None
    assert net.run(lambda: all_over(net), limit=900)
    assert spectator.table.digest() == host.table.digest()
