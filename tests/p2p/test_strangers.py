"""What a stranger on the LAN (no key of the table, no passphrase) can send changes nothing.

docs/security.md lists each claim with the test here that shows it.
"""

from __future__ import annotations

from functools import partial
from typing import Any

from engine import scout
from p2p import wire
from p2p.identity import Identity
from p2p.peer import Peer
from p2p.simnet import Node, SimNet
from p2p.store import MemoryStore
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
