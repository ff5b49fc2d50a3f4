"""What a modified member (a real key of the table, its own code) can no longer do.

docs/security.md lists each claim with the test here that shows it; the adversaries are in
``tests/p2p/members.py``.
"""

from __future__ import annotations

import random
from functools import partial

import pytest

from cardtable.engine import scout
from cardtable.p2p import wire
from cardtable.p2p.peer import Peer
from cardtable.p2p.simnet import Node, SimNet
from tests.p2p import all_over, build, check_replicas, leader, live
from tests.p2p.members import Censor, Equivocator, ExMember, Flooder, flood_bytes


def _playing(seed: int, players: int) -> tuple[SimNet, list[Node]]:
    net = SimNet(seed)
    nodes = build(net, scout.Config(players=players), players, 0)
    assert net.run(lambda: all(p.table.phase == "playing" and p.commit_index > 10 for p in live(net)),
                   limit=120)
    return net, nodes


def _boss(nodes: list[Node]) -> Node:
    return next(n for n in nodes if n.peer is not None and n.peer.is_sequencer)


def _peer(node: Node) -> Peer:
    assert node.peer is not None
    return node.peer


@pytest.mark.parametrize("seed", [1, 2])
def test_a_member_that_left_moves_no_term_with_its_own_join_entry(seed: int) -> None:
    """Before wire 4 its APPENDs were taken as a newcomer sequencer's: every term moved and
    nothing committed. Now: 30 s of them, two a second to each peer, change no term and no
    sequencer, and the match (virtual time: it ends within a second or so) finishes."""
    net, nodes = _playing(seed, 3)
    leaver = next(n for n in nodes if n.peer is not None and not n.peer.is_sequencer)
    net.leave(leaver)
    assert net.run(lambda: _peer(leaver).left, limit=10)
    net.crash(leaver)
    rest = [n for n in nodes if n is not leaver]
    attacker = ExMember(net, leaver, nodes)
    boss = leader(net)
    terms = {n.name: _peer(n).term for n in rest}
    sent = 0
    for _ in range(60):
        sent += attacker.attack()
        net.run_for(0.5)
        assert {n.name: _peer(n).term for n in rest} == terms
        assert leader(net) is boss
    assert sent == 120 and all(_peer(n).dropped["not a member"] >= 60 for n in rest)
    assert all_over(net)
    check_replicas(net)


@pytest.mark.parametrize("seed", [4, 6, 7])
def test_an_equivocating_sequencer_is_named_on_every_screen_refused_and_its_fork_undone(seed: int) -> None:
    """The sequencer shows one follower another history (four peers). The first member whose
    head disagrees proves it, every other member hears the proof and names it, the sequencer
    is never followed or elected again, and the losing history's entries, applied ones too,
    are replaced (in seed 4 the follower's history wins and the others rewind; in 6 and 7 the
    follower rewinds): one history, one digest at the end."""
    net, nodes = _playing(seed, 4)
    boss = _boss(nodes)
    victim = next(n for n in nodes if n is not boss)
    liar = boss.identity.key
    equivocator = Equivocator(net, boss, victim, _peer(boss).log_length + 1)
    honest = [n for n in nodes if n is not boss]
    assert net.run(lambda: all(liar in _peer(n).liars for n in honest), limit=30)
    caught = net.now
    assert equivocator.rewritten > 0
    assert net.run(partial(all_over, net), limit=300)
    check_replicas(net)
    for n in honest:
        named = n.kinds("equivocation")
        assert named and named[0]["key"] == liar.hex() and named[0]["seat"] == _peer(boss).my_seat
        assert all(e.data["key"] != liar.hex() for t, e in n.events if e.kind == "sequencer" and t > caught)
    assert any(n.kinds("rewound") for n in nodes)  # applied entries of the losing history undone
    assert len({tuple(_peer(n).raw) for n in nodes}) == 1
    net.crash(victim)  # the proof is kept in the store: a restart still refuses the liar
    assert liar in net.resume(victim, auto="random", bots="random").liars


@pytest.mark.parametrize(("seed", "withhold"), [(6, False), (7, False), (6, True)])
def test_a_censoring_sequencer_is_voted_out_and_the_match_goes_on(seed: int, withhold: bool) -> None:
    """The sequencer never appends one member's moves (or, ``withhold``: appends them and never
    commits them) and keeps heartbeating it (it used to freeze the match for good, silently).
    The member names it, stands, never votes for it again; the match ends."""
    net, nodes = _playing(seed, 3)
    boss = _boss(nodes)
    victim = next(n for n in nodes if n is not boss)
    censor = Censor(boss, victim, withhold)
    assert net.run(partial(all_over, net), limit=300)
    check_replicas(net)
    assert censor.dropped > 0
    censored = victim.kinds("censored")
    assert censored and censored[0]["key"] == boss.identity.key.hex()
    assert boss.identity.key in _peer(victim).censors
    assert leader(net) is not boss.peer


FLOOD_BYTES_PER_MINUTE = 20_000
"""What a member's flood may add to each replica's log in a minute (docs/protocol.md)."""


def _play_slowly(net: SimNet, nodes: list[Node], rng: random.Random) -> None:
    """Each seat whose move the game waits for (and that has nothing in flight) proposes one
    of its legal moves: about one move per call, so that a match lasts a while."""
    for n in nodes:
        p = n.peer
        match = p.table.match if p is not None else None
        if p is None or match is None or p.queue or p.my_seat not in match.actors():
            continue
        seat = p.my_seat
        assert seat is not None
        net.propose(n, str(rng.choice(match.legal_actions(seat))))


def test_a_members_flood_costs_each_replica_a_bounded_number_of_bytes() -> None:
    """A seated member floods the sequencer for a minute of a match played at about two moves
    a second: 400 proposals a second the rules refuse, or legal ones under fresh incarnations,
    each with a JOIN announcing one more fresh incarnation. Before: all appended (822 KB on
    every disk in 2.7 s). Now: the flood's entries on each replica stay under
    ``FLOOD_BYTES_PER_MINUTE`` and the match goes on."""
    net = SimNet(8)
    nodes = build(net, scout.Config(players=3), 3, 0, auto=None)
    assert net.run(lambda: all(p.table.phase == "playing" for p in live(net)), limit=120)
    flooder_node = next(n for n in nodes if n.peer is not None and not n.peer.is_sequencer)
    own = _peer(flooder_node).incarnation
    flooder = Flooder(net, flooder_node, nodes, 8)
    rng = random.Random(8)
    start, moves = net.now, _peer(nodes[0]).commit_index
    while net.now < start + 60:
        if round((net.now - start) * 100) % 50 == 0:
            _play_slowly(net, nodes, rng)
        flooder.burst(4)
        net.run_for(0.01)
    assert flooder.sent > 40_000 and _peer(nodes[0]).commit_index - moves > 60  # it was played meanwhile
    key = flooder_node.identity.key
    costs = [flood_bytes(p, key, own) for p in live(net)]
    print(f"flood: {flooder.sent} datagrams in 60 s; bytes of its entries per replica: {costs}")
    assert max(costs) <= FLOOD_BYTES_PER_MINUTE, costs
    check_replicas(net, expect_over=False)


@pytest.mark.parametrize("seed", [0, 2])
def test_a_member_lagging_behind_a_join_whose_member_became_sequencer_catches_up(seed: int) -> None:
    """The price of hearing members only: a member cut off while a newcomer joined, which then
    became sequencer, does not hear that sequencer (its log does not name it). Its election
    timer runs out, it stands, the others refuse it and elect a sequencer it knows, which
    catches it up: the match is played to its end."""
    net = SimNet(seed)
    h, a, b = net.node("h"), net.node("a"), net.node("b")
    host = net.host(h, scout.Config(players=3), 0, auto="random", bots="random")
    assert host.table_id is not None
    net.join(a, host.table_id, h.addr, auto="random", bots="random")
    assert net.run(lambda: len(host.roster.members) == 2 and host.commit_index >= 2, limit=10)
    net.partition([a], [h, b])
    net.join(b, host.table_id, h.addr, auto="random", bots="random")
    assert net.run(lambda: _peer(b).commit_index >= 3, limit=10)
    net.crash(h)
    net.resume(h, auto="random", bots="random")
    assert net.run(lambda: _peer(b).is_sequencer, limit=20)
    assert b.identity.key not in _peer(a).roster.members
    net.heal()
    assert net.run(partial(all_over, net), limit=60)
    check_replicas(net)
    assert _peer(a).dropped["not a member"] > 0  # it did not take the sequencer it did not know


def test_a_member_cannot_get_an_honest_sequencer_taken_for_a_censor() -> None:
    """A member sends its move only to another follower, as if the sequencer censored it. The
    follower passes it on to the sequencer, which appends it: no one raises ``censored``, and
    the sequencer stays. (Without the passing on, the follower took the honest sequencer for a
    censor after 3 s and would never have voted for it again.)"""
    net = SimNet(9)
    nodes = build(net, scout.Config(players=3), 3, 0, auto=None)
    assert net.run(lambda: all(p.table.phase == "playing" for p in live(net)), limit=120)
    rng = random.Random(9)
    boss = _boss(nodes)
    sly, other = [n for n in nodes if n is not boss]
    peer = _peer(sly)
    while True:  # the others play until the sly member's seat is to move
        match = peer.table.match
        assert match is not None and not match.is_over()
        if peer.my_seat in match.actors() and peer.log_length == peer.commit_index:
            break
        _play_slowly(net, [boss, other], rng)
        net.run_for(0.5)
    seat = peer.my_seat
    assert seat is not None and peer.table_id is not None
    action = str(rng.choice(match.legal_actions(seat)))
    prop = wire.Proposal(peer.table_id, sly.identity.key, peer.incarnation, peer.next_seq,
                         ["act", seat, action])
    sig = sly.identity.sign(wire.proposal_signed(prop.pack()))
    data = wire.encode_propose(peer.table_id, prop.pack(), sig, None)
    net.inject(other.addr, data, sly.addr)  # to the other follower only, never to the sequencer
    net.run_for(5.0)
    assert not any(n.kinds("censored") for n in nodes)
    assert leader(net) is boss.peer and not _peer(other).censors
    assert any(e.decoded.author == sly.identity.key and e.decoded.seq == prop.seq for e in _peer(boss).log)
