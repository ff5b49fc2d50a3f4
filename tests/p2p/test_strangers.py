"""What a stranger on the LAN (no key of the table, no passphrase) can send changes nothing.

docs/security.md lists each claim with the test here that shows it.
"""

from __future__ import annotations

from functools import partial
from typing import Any

from cardtable.engine import scout
from cardtable.p2p import wire
from cardtable.p2p.identity import Identity
from cardtable.p2p.peer import Peer
from cardtable.p2p.simnet import Faults, Node, SimNet
from cardtable.p2p.store import MemoryStore
from tests.p2p import all_over, build, check_replicas, leader, live

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
                       signer.sign(wire.entry_signed(peer.table_id, term, index, prop)),
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
    ask = wire.encode(wire.VOTE_ASK, [seq.table_id, EVE.key, wire.MAX_INT, 10**6, 10**6], EVE.sign, None)
    for n in nodes:
        net.inject(n.addr, ask, EVE_ADDR)
    net.run_for(0.0005)
    assert all(p.term < 1000 for p in live(net))
    assert net.run(lambda: all_over(net), limit=300)
    check_replicas(net)
    assert all(p.term < 1000 for p in live(net))


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
    assert host.dropped["busy"] > 1000  # cookies at a bounded rate, the rest counted
    net.join(real, host.table_id, host_node.addr, auto="random", bots="random")
    third = net.node("third")
    net.join(third, host.table_id, host_node.addr, auto="random", bots="random")
    assert net.run(lambda: all_over(net), limit=300)
    check_replicas(net)
    assert len(host.table.roster.members) == 3


def _adversary(net: SimNet, rng: Any, trace: list[Any], table_id: bytes, genuine: list[Any], n: int) -> None:
    """``n`` hostile datagrams now: replays from any address, mutations, fresh-key forgeries
    with any term, forged joins, all at once."""
    for i in range(n):
        dst = rng.choice(genuine)
        roll = rng.random()
        if roll < 0.4 and trace:
            _, src, _, data = rng.choice(trace)
            net.inject(dst, data, rng.choice([EVE_ADDR, src, rng.choice(genuine)]))
        elif roll < 0.6 and trace:
            data = bytearray(rng.choice(trace)[3])
            data[rng.randrange(len(data))] ^= 1 << rng.randrange(8)
            net.inject(dst, bytes(data), EVE_ADDR)
        elif roll < 0.8:
            fake = Identity.from_seed(rng.randbytes(32))
            kind = rng.choice([wire.VOTE_ASK, wire.APPEND_OK, wire.VOTE])
            term = rng.choice([1, 2, 10**6, wire.MAX_INT])
            third = rng.choice([True, False]) if kind != wire.VOTE_ASK else 10**6
            fields: list[Any] = [table_id, fake.key, term, third, 10**6 if kind != wire.VOTE else False]
            net.inject(dst, wire.encode(kind, fields, fake.sign, None, rng.randrange(1, 2**62)), EVE_ADDR)
        else:
            net.inject(dst, forged_join(table_id, rng.randrange(2**30)), (f"10.8.0.{i % 250}", 1000 + i))


def test_a_simulated_lan_adversary_across_many_seeds() -> None:
    """Every seed: a lossy 3-peer match under a stream of hostile datagrams; the guarantees hold."""
    import random

    for seed in range(60):
        rng = random.Random(seed)
        net = SimNet(5000 + seed, Faults(loss=0.1, dup=0.1, reorder=0.1), record=True)
        nodes = build(net, scout.Config(players=3), 3, 0)
        host = nodes[0].peer
        assert host is not None and host.table_id is not None
        genuine = [n.addr for n in nodes]
        for _ in range(400):
            if all_over(net):
                break
            assert net.trace is not None
            _adversary(net, rng, net.trace[-300:], host.table_id, genuine, 5)
            net.run_for(0.1)
        assert net.run(partial(all_over, net), limit=300), f"seed {seed}"
        check_replicas(net)
        for n in nodes:
            p = n.peer
            assert p is not None
            assert p.term < 1000 and set(p.addrs.values()) <= set(genuine), seed
            assert len(n.store.load().entries) == p.log_length and len(p.heard) <= 3
