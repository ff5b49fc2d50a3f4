"""Whole matches on the simulated LAN over hundreds of seeds, and the simulator itself.

Every run: 2-5 peers (some seats CPU), random bots everywhere, loss, duplication and
reordering up to 30% each; at the end every peer holds the same committed log and the same
match digest, the match is over, no proposal is in the log twice, refused entries changed
nothing, and (the simulator checks it on every send) no datagram exceeded 1200 bytes.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import pytest

from cardtable.engine import scout, solo
from cardtable.p2p.peer import Peer
from cardtable.p2p.simnet import Faults, SimNet
from cardtable.p2p.wire import MAX_DATAGRAM
from tests.p2p import all_over, build, check_replicas, live

RATES = (0.0, 0.1, 0.2, 0.3)

# name: (config, human peers, cpu seats, seeds)
SWEEP: dict[str, tuple[Callable[[], Any], int, int, int]] = {
    "scout-2p": (lambda: scout.Config(players=2), 2, 0, 200),
    "scout-3p-1cpu": (lambda: scout.Config(players=3), 2, 1, 40),
    "solo-3p": (lambda: solo.Config.preset("anniversary", 3, threshold=1), 3, 0, 32),
    "solo-4p-2cpu": (lambda: solo.Config.preset("anniversary", 4, threshold=1), 2, 2, 40),
    "solo-4p-1cpu-classic": (lambda: solo.Config.preset("classic", 4, pool=1), 3, 1, 12),
    "solo-5p": (lambda: solo.Config.preset("anniversary", 5, threshold=1), 5, 0, 10),
}
CHUNK = 8


def play(seed: int, config: Any, peers: int, cpu: int, faults: Faults, limit: float = 1200) -> SimNet:
    net = SimNet(seed, faults)
    build(net, config, peers, cpu)
    assert net.run(lambda: all_over(net), limit=limit), f"seed {seed}: the match did not finish"
    check_replicas(net)
    assert net.biggest <= MAX_DATAGRAM
    return net


@pytest.mark.parametrize("name,chunk", [(n, c) for n, (_, _, _, seeds) in SWEEP.items()
                                        for c in range(0, seeds, CHUNK)])
def test_matches_agree_over_many_seeds(name: str, chunk: int) -> None:
    make, peers, cpu, seeds = SWEEP[name]
    for seed in range(chunk, min(chunk + CHUNK, seeds)):
        rate = RATES[seed % len(RATES)]
        play(seed, make(), peers, cpu, Faults(loss=rate, dup=rate, reorder=rate))


@pytest.mark.parametrize("name,config,peers,cpu", [
    ("scout-5", scout.Config(players=5), 5, 0),
    ("solo-anniversary-4", solo.Config.preset("anniversary", 4), 4, 0),
    ("solo-classic-4", solo.Config.preset("classic", 4), 3, 1),
])
def test_full_length_matches(name: str, config: Any, peers: int, cpu: int) -> None:
    rate = 0.2 if peers > 3 else 0.05
    net = play(1, config, peers, cpu, Faults(loss=rate, dup=rate, reorder=rate), limit=3600)
    match = live(net)[0].table.match
    assert match is not None and len(match.round_scores) >= 2


@pytest.mark.parametrize("seed", range(24))
def test_random_crashes_and_restarts(seed: int) -> None:
    """A random minority member crashes at a random moment (maybe the sequencer) and comes back
    after a while, from its store or with an empty one."""
    rng = random.Random(seed)
    rate = RATES[seed % len(RATES)]
    net = SimNet(1000 + seed, Faults(loss=rate, dup=rate, reorder=rate))
    nodes = build(net, scout.Config(players=3), 3, 0)
    net.run_for(rng.uniform(0.05, 3.0))
    victim = rng.choice(nodes)
    assert victim.peer is not None
    alone = all(n.store.load().empty() for n in nodes if n is not victim)  # the only copy of the table
    net.crash(victim)
    net.run_for(rng.uniform(0.5, 40.0))
    others = [n.peer for n in nodes if n.peer is not None]
    table_id = others[0].table_id
    assert table_id is not None
    if (alone or rng.random() < 0.5) and not victim.store.load().empty():
        net.resume(victim, auto="random", bots="random")
    else:
        contact = next(n.addr for n in nodes if n.peer is not None and n.peer.is_sequencer) \
            if any(p.is_sequencer for p in others) else nodes[(nodes.index(victim) + 1) % 3].addr
        net.rejoin(victim, table_id, contact, auto="random", bots="random")
    assert net.run(lambda: all_over(net), limit=1200), f"seed {seed}: the match did not finish"
    check_replicas(net)


def test_two_members_restart_one_after_the_other_and_the_table_plays_on() -> None:
    """The host's machine crashes and comes back, then the other member's: each hears the other
    again. A restarted sender's stamps start from its stored floor, up to ten minutes ahead of its
    clock; they go on from there at the clock's pace, so the margin a restarted receiver adds to
    what it saved passes in about a second (one microsecond a datagram, it took a million)."""
    net = SimNet(2)
    a, b = net.node("A"), net.node("B")
    host = net.host(a, solo.Config(players=3, rounds=1), 1, auto="random", bots="random", deal="hidden")
    assert host.table_id is not None
    net.join(b, host.table_id, a.addr, auto="random", bots="random")
    assert net.run(lambda: a.peer is not None and a.peer.table.hidden is not None
                   and a.peer.table.hidden.stage == "play", limit=60)
    net.run_for(1.0)
    for node in (a, b):
        net.crash(node)
        net.run_for(15.0)
        net.resume(node, auto="random", bots="random")
        net.run_for(5.0)
    assert net.run(lambda: all_over(net), limit=300), "the table stalled after the second restart"
    assert len({p.table.digest() for p in live(net)}) == 1


# --- the simulator -----------------------------------------------------------------------------------
def test_faults_happen_at_their_rates() -> None:
    net = SimNet(1, Faults(loss=0.3, dup=0.2, reorder=0.5))
    a, b = net.node("a"), net.node("b")
    for i in range(4000):
        net.transmit(a.addr, b.addr, i.to_bytes(4, "big"))
    arrived: list[bytes] = []
    while net._queue:
        arrived.append(net._queue[0][4])
        net.step()
    assert 0.7 * 1.2 * 4000 * 0.93 < len(arrived) < 0.7 * 1.2 * 4000 * 1.07
    assert len(set(arrived)) < len(arrived)
    order = [int.from_bytes(x, "big") for x in arrived]
    assert order != sorted(order)


def test_the_clock_jumps_and_crashed_peers_hear_nothing() -> None:
    net = SimNet(2)
    nodes = build(net, scout.Config(players=2), 2, 0)
    assert net.run(lambda: all_over(net), limit=60)
    t = net.now
    net.run_for(100)
    assert net.now == pytest.approx(t + 100)
    net.crash(nodes[1])
    before = net.sent
    net.run_for(2)
    assert net.sent > before  # the host still heartbeats into the void
    assert nodes[1].peer is None


def test_a_partition_stops_traffic_between_groups_only() -> None:
    net = SimNet(3)
    nodes = build(net, scout.Config(players=3), 3, 0)
    assert net.run(lambda: all(p.table.phase == "playing" for p in live(net)), limit=30)
    net.partition([nodes[0]], nodes[1:])
    net.run_for(5)
    lonely = nodes[0].peer
    assert isinstance(lonely, Peer)
    others = [n.peer for n in nodes[1:] if n.peer is not None]
    assert any(p.is_sequencer for p in others)
    assert lonely.commit_index < max(p.commit_index for p in others)
    net.heal()
    assert net.run(lambda: all_over(net), limit=600)
    check_replicas(net)


def test_propose_and_leave_route_the_peers_output() -> None:
    net = SimNet(4)
    nodes = build(net, scout.Config(players=2), 2, 0, auto=None)
    assert net.run(lambda: all(p.table.phase == "playing" for p in live(net)), limit=30)
    follower = next(n for n in nodes if n.peer is not None and not n.peer.is_sequencer)
    before, events = net.sent, len(follower.events)
    out = net.propose(follower, "this is no scout move")  # refused at once: an event, nothing sent
    assert [e.kind for e in out.events] == ["refused"] and net.sent == before
    assert follower.kinds("refused") and len(follower.events) == events + 1
    out = net.leave(follower)
    assert out.send and net.sent == before + len(out.send) and follower.deadline == out.deadline
    assert net.run(lambda: bool(follower.kinds("left")), limit=10)
