"""What a stranger on the LAN (no key of the table, no passphrase) can send changes nothing.

docs/security.md lists each claim with the test here that shows it.
"""

from __future__ import annotations

from functools import partial
from pathlib import Path
from typing import Any

import pytest

from cardtable.engine import scout
from cardtable.p2p import wire
from cardtable.p2p.admission import MAX_TERM_STEP
from cardtable.p2p.discovery import MAX_TABLES
from cardtable.p2p.freshness import WINDOW
from cardtable.p2p.identity import Identity
from cardtable.p2p.peer import Peer
from cardtable.p2p.simnet import Faults, Node, SimNet
from cardtable.p2p.store import MemoryStore
from tests.p2p import all_over, build, check_replicas, leader, live
from tests.p2p.adversary import Adversary, file_table, footprint, store_bytes

EVE = Identity.from_seed(b"eve!" * 8)
EVE_ADDR = ("10.6.6.6", 6666)


def _mid_game(seed: int, players: int = 3) -> tuple[SimNet, list[Node]]:
    net = SimNet(seed)
    nodes = build(net, scout.Config(players=players), players, 0)
    assert net.run(lambda: all(p.table.phase == "playing" and p.commit_index > 10 for p in live(net)),
                   limit=120)
    return net, nodes


def _state(peer: Peer) -> tuple[Any, ...]:
    store = peer.store
    assert isinstance(store, MemoryStore)
    stored = store.load()
    return (peer.term, peer.role, len(peer.raw), stored.term, sorted(peer.addrs.items()),
            sorted((k, v) for k, v in stored.meta.items() if k == "addrs"))


def stranger_append(peer: Peer, term: int, signer: Identity = EVE) -> bytes:
    """An APPEND signed by the stranger's own key carrying a join entry it authored and sequenced."""
    assert peer.table_id is not None
    index = peer.log_length + 1
    prop = wire.Proposal(peer.table_id, signer.key, 1, 1, ["join", "eve"]).pack()
    entry = wire.Entry(term, index, prop, signer.sign(wire.proposal_signed(prop)), signer.key,
                       signer.sign(wire.entry_signed(peer.table_id, term, index, prop,
                                                     peer._hash_at(index - 1))),
                       wire.decode_proposal(prop))
    head = [peer.table_id, signer.key, term, peer.log_length, peer.log[-1].term, peer.commit_index]
    return wire.encode_append(head, [entry.pack()], [], signer.sign, peer.pass_key)


def test_a_strangers_append_with_its_own_join_and_any_term_changes_nothing() -> None:
    for term in (wire.MAX_INT, 10**6, None):  # None: the member's own term + 1 (a modest one)
        net, nodes = _mid_game(21)
        seq = leader(net)
        assert seq is not None
        before = {n.name: _state(n.peer) for n in nodes if n.peer}
        for n in nodes:
            assert n.peer is not None
            t = n.peer.term + 1 if term is None else term
            net.inject(n.addr, stranger_append(n.peer, t), EVE_ADDR)
        net.run_for(0.0005)
        after = {n.name: _state(n.peer) for n in nodes if n.peer}
        for name in before:  # term, role, log, stored term, addresses: all as they were
            assert after[name][:2] == before[name][:2] and after[name][3:] == before[name][3:], name
        assert leader(net) is seq
        assert all(EVE.key not in p.addrs and EVE.key not in p.heard for p in live(net))
        assert net.run(partial(all_over, net), limit=300)
        check_replicas(net)
        assert all(p.term < 1000 for p in live(net))


def test_a_strangers_vote_requests_move_no_term_even_of_a_peer_that_lost_its_store() -> None:
    net, nodes = _mid_game(22)
    follower = next(n for n in nodes if n.peer and not n.peer.is_sequencer)
    seq = leader(net)
    assert seq is not None and seq.table_id is not None
    net.crash(follower)
    net.rejoin(follower, seq.table_id, nodes[0].addr, auto="random", bots="random")
    peer = follower.peer
    assert peer is not None
    fields = [seq.table_id, EVE.key, wire.MAX_INT, 10**6, 10**6, bytes(32)]
    ask = wire.encode(wire.VOTE_ASK, fields, EVE.sign, None)
    for n in nodes:
        net.inject(n.addr, ask, EVE_ADDR)
    net.run_for(0.0005)
    assert all(p.term < 1000 for p in live(net))
    assert net.run(lambda: all_over(net), limit=300)
    check_replicas(net)
    assert all(p.term < 1000 for p in live(net))


def test_a_newcomer_hears_its_sequencer_only_where_it_contacted_it() -> None:
    """The sequencer's first APPEND to a joiner, captured and delivered from another address
    before the real one arrives, neither sets the joiner's address book nor its term."""
    net = SimNet(27, record=True)
    host_node, joiner_node = net.node("host"), net.node("joiner")
    host = net.host(host_node, scout.Config(players=2), 0, auto="random", bots="random")
    assert host.table_id is not None and net.trace is not None
    joiner = net.join(joiner_node, host.table_id, host_node.addr, auto="random", bots="random",
                      sequencer=host.key)
    first = None
    while first is None and net.step():
        first = next((d for _, s, dst, d in net.trace if s == host_node.addr and dst == joiner_node.addr
                      and isinstance(wire.decode(d, None).msg, wire.Append)), None)
    assert first is not None and not joiner.log
    for src in (EVE_ADDR, (host_node.addr[0], 9999)):
        net.handle(joiner_node, joiner.receive(first, src, net.now))
    assert not joiner.log and joiner.term == 0 and host.key not in joiner.addrs
    assert joiner.dropped["not a member"] == 2
    assert net.run(partial(all_over, net), limit=300)
    check_replicas(net)
    assert joiner.addrs == {host.key: host_node.addr}


def _replay_from(net: SimNet, trace: list[tuple[float, Any, Any, bytes]], src: Any, at: Any,
                 seconds: float, per_second: int = 10) -> None:
    """Resend every datagram ``src`` sent (in ``trace``) to its receiver, from ``at``, ``per_second``
    datagrams a second of virtual time for ``seconds``, newest first."""
    sent = [(dst, data) for _, s, dst, data in reversed(trace) if s == src and dst in net.nodes]
    start = net.now
    for i in range(int(seconds * per_second)):
        dst, data = sent[i % len(sent)]
        net.inject(dst, data, at if at is not None else src, start + i / per_second)


def recorded_match_under_way(seed: int) -> tuple[SimNet, list[Node]]:
    """Three peers whose SCOUT match is past its tenth entry, every datagram recorded."""
    net = SimNet(seed, record=True)
    nodes = build(net, scout.Config(players=3), 3, 0)
    assert net.run(lambda: all(p.table.phase == "playing" and p.commit_index > 10 for p in live(net)),
                   limit=120)
    return net, nodes


def test_replays_from_another_host_never_move_an_address_and_the_match_finishes() -> None:
    net, nodes = recorded_match_under_way(23)
    assert net.trace is not None
    for n in nodes:  # every member's captured APPENDs, APPEND_OKs, votes... resent by Eve at 10/s each
        _replay_from(net, list(net.trace), n.addr, EVE_ADDR, 20)
    genuine = {n.identity.key: n.addr for n in nodes}
    seen_wrong = []
    for _ in range(200):
        net.run_for(0.1)
        seen_wrong += [a for p in live(net) for a in p.addrs.values() if a not in genuine.values()]
    assert not seen_wrong
    assert sum(p.dropped["replayed"] for p in live(net)) > 300
    assert net.run(lambda: all_over(net), limit=300)
    check_replicas(net)
    for n in nodes:  # and what was persisted: only the genuine addresses
        assert n.peer is not None
        stored = n.store.load().meta.get("addrs", [])
        assert all((h, p) == genuine[bytes(k)] for k, h, p, *_ in stored)


def test_a_dead_sequencers_replayed_heartbeats_do_not_keep_it_alive() -> None:
    net, nodes = recorded_match_under_way(24)
    seq = leader(net)
    assert seq is not None and net.trace is not None
    boss = next(n for n in nodes if n.peer is seq)
    trace = list(net.trace)
    net.crash(boss)
    _replay_from(net, trace, boss.addr, None, 10, per_second=20)  # from its own address, even
    assert net.run(lambda: leader(net) is not None, limit=4)
    net.resume(boss, auto="random", bots="random")
    assert net.run(lambda: all_over(net), limit=300)
    check_replicas(net)


def test_a_replay_after_a_restart_is_refused_too() -> None:
    net, nodes = recorded_match_under_way(25)
    assert net.trace is not None
    trace = list(net.trace)
    victim = next(n for n in nodes if n.peer is not None and not n.peer.is_sequencer)
    net.crash(victim)
    net.resume(victim, auto="random", bots="random")
    injected = 0
    for n in nodes:
        if n is not victim:
            sent = [d for _, s, dst, d in trace if s == n.addr and dst == victim.addr]
            injected += len(sent[-20:])
            for data in sent[-20:]:
                net.inject(victim.addr, data, EVE_ADDR)
    net.run_for(0.0005)
    assert victim.peer is not None and injected >= 10
    dropped = victim.peer.dropped
    assert sum(dropped.values()) >= injected and dropped["replayed"] >= injected // 2, dropped
    assert all(a != EVE_ADDR for a in victim.peer.addrs.values())
    assert net.run(lambda: all_over(net), limit=300)
    check_replicas(net)


def forged_join(table_id: bytes, n: int) -> bytes:
    """A perfectly signed JOIN with a join proposal, from a fresh key that will never answer."""
    ghost = Identity.from_seed(n.to_bytes(32, "big"))
    prop = wire.Proposal(table_id, ghost.key, 1, 1, ["join", f"ghost{n}"]).pack()
    fields = [table_id, ghost.key, 1, f"ghost{n}", prop, ghost.sign(wire.proposal_signed(prop)), None]
    return wire.encode(wire.JOIN, fields, ghost.sign, None, n + 1)


def test_forged_joins_neither_freeze_nor_fill_the_lobby_nor_grow_the_store() -> None:
    net = SimNet(26)
    host_node, real = net.node("host"), net.node("real")
    host = net.host(host_node, scout.Config(players=3), 0, auto="random", bots="random")
    assert host.table_id is not None
    for n in range(1500):  # from 1,500 fresh keys and spoofed addresses
        net.inject(host_node.addr, forged_join(host.table_id, n), (f"10.7.{n // 250}.{n % 250}", 9000 + n))
    net.run_for(1.0)
    stored = host_node.store.load()
    assert len(host.raw) == 1 and len(stored.entries) == 1 and host.roster.open
    assert set(host.addrs) == set() and set(host.heard) == set() and len(host.followers) == 0
    assert host.door.answered == 1500  # one cookie to each source (p2p/lobby.py), nothing kept
    net.join(real, host.table_id, host_node.addr, auto="random", bots="random")
    third = net.node("third")
    net.join(third, host.table_id, host_node.addr, auto="random", bots="random")
    assert net.run(lambda: all_over(net), limit=300)
    check_replicas(net)
    assert len(host.table.roster.members) == 3


SWEEP_SEEDS = 300
CHUNK = 25
RATE = 3  # hostile datagrams every 50 ms of virtual time (60 a second), on top of the table's own


def attacked_match(seed: int, home: Path, per_burst: int = RATE) -> tuple[SimNet, list[Node], Adversary]:
    """A 2- or 3-peer SCOUT match (lossy, duplicating, reordering) under the adversary from the
    first datagram to the last; the five guarantees are checked as it goes and at the end."""
    net = SimNet(9000 + seed, Faults(loss=0.1, dup=0.1, reorder=0.1), record=True)
    players = 2 + seed % 2
    nodes = file_table(net, scout.Config(players=players), players, home)
    adversary = Adversary(net, nodes, seed)
    while not all_over(net) and net.now < 120:
        adversary.attack(per_burst)  # each datagram checked: no change by a non-member or a replay
        net.run_for(0.05)
    assert all_over(net), f"seed {seed}: the match did not finish under attack"
    check_replicas(net)  # equal digests, one history
    genuine = {n.identity.key: n.addr for n in nodes}
    for n in nodes:
        p = n.peer
        assert p is not None
        assert p.term < 100 and p.term + 2**42 * MAX_TERM_STEP < wire.MAX_INT, (seed, p.term)
        assert all(genuine.get(k) == a for k, a in p.addrs.items()), seed
        stored = n.store.load()
        assert stored.term == p.term and len(stored.entries) == p.log_length, seed
        addrs = stored.meta.get("addrs", [])
        assert all(genuine.get(bytes(k)) == (h, port) for k, h, port, *_ in addrs), seed
    return net, nodes, adversary


# Bounds on what a peer keeps, as a function of its own match alone (its log): the same
# constants hold at ten times the attack volume (test below).
STORE_BYTES = (2_000, 400)  # bytes a peer's store file holds: base + per log entry
FOOTPRINT = (200, 12)  # entries of the containers a peer keeps: base + per log entry
LISTENER_FOOTPRINT = 8 * MAX_TABLES  # the lobby listener's table list (64 tables at most)


def check_bounded(nodes: list[Node], adversary: Adversary) -> None:
    for n in nodes:
        assert n.peer is not None
        length = n.peer.log_length
        assert store_bytes(n) <= STORE_BYTES[0] + STORE_BYTES[1] * length, (n.name, store_bytes(n), length)
        assert footprint(n.peer) <= FOOTPRINT[0] + FOOTPRINT[1] * length, (n.name, footprint(n.peer), length)
    assert len(adversary.listener.tables()) <= MAX_TABLES
    assert footprint(adversary.listener) <= LISTENER_FOOTPRINT
    genuine = nodes[0].peer
    assert genuine is not None and genuine.table_id is not None
    heard = adversary.listener.get(genuine.table_id)  # the real table is still listed, at its address
    assert heard is not None and heard.addr in {n.addr for n in nodes}


@pytest.mark.parametrize("chunk", range(0, SWEEP_SEEDS, CHUNK))
def test_a_simulated_lan_adversary_across_hundreds_of_seeds(chunk: int, tmp_path: Path) -> None:
    """Every seed: a whole match under replays, mutations and forgeries; the guarantees hold."""
    checked = 0
    for seed in range(chunk, chunk + CHUNK):
        _, nodes, adversary = attacked_match(seed, tmp_path / str(seed))
        check_bounded(nodes, adversary)
        checked += adversary.checked
    assert checked > 40 * CHUNK  # datagrams each shown to have changed nothing


# What one more half second of attack may add to a peer once its match is over, whatever the
# rate: the members' own stamps (a window of ``WINDOW`` each), probes and the drop counters.
FLOOD_GROWTH = (1_000, 3 * (WINDOW + 24) + 40)  # store bytes, container entries


def test_the_bounds_do_not_grow_with_ten_times_the_attack(tmp_path: Path) -> None:
    """The same seeds at two attack volumes, the second ten times the first (60 then 600
    hostile datagrams a second during the match, then 600 then 6,000 a second for half a
    second more): the sweep's bounds hold at both, and the flood after the match adds at most
    the same small constants to each peer's store file and containers at both rates."""
    sent: dict[int, int] = {}
    for per_burst in (RATE, 10 * RATE):
        sent[per_burst] = 0
        for seed in range(3):
            net, nodes, adversary = attacked_match(seed, tmp_path / f"{per_burst}-{seed}", per_burst)
            check_bounded(nodes, adversary)
            before = [(store_bytes(n), footprint(n.peer)) for n in nodes]
            for _ in range(10):
                adversary.attack(10 * per_burst)
                net.run_for(0.05)
            check_bounded(nodes, adversary)
            for n, (size, entries) in zip(nodes, before, strict=True):
                grew = (store_bytes(n) - size, footprint(n.peer) - entries)
                assert grew[0] <= FLOOD_GROWTH[0] and grew[1] <= FLOOD_GROWTH[1], (per_burst, seed, grew)
            sent[per_burst] += adversary.sent
    assert sent[10 * RATE] > 8 * sent[RATE], sent
