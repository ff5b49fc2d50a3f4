"""What the table sends: no storms after a failover, little while idle, quick resends under
loss, deterministic runs, and computer players that leave people time to act."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from cardtable.engine import scout, solo
from cardtable.engine.match import Match
from cardtable.p2p import wire
from cardtable.p2p.peer import Addr, Timeouts
from cardtable.p2p.simnet import Faults, Node, SimNet
from tests.p2p import build, check_replicas, leader, live


def committed(net: SimNet, index: int) -> Callable[[], bool]:
    return lambda: all(p.commit_index >= index for p in live(net))


def settled(net: SimNet) -> bool:
    """Every peer holds the whole log and knows it committed."""
    peers = live(net)
    return len({(p.log_length, p.commit_index) for p in peers}) == 1 \
        and peers[0].commit_index == peers[0].log_length


def idle_table(seed: int, peers: int, loss: float) -> SimNet:
    """A table of people who do not move: once the seed is drawn, nothing happens but upkeep.
    SCOUT up to 5 players, SOLO classic beyond (its beacons carry the longer config)."""
    net = SimNet(seed, Faults(loss=loss))
    config = scout.Config(players=peers) if peers <= 5 else solo.Config.preset("classic", peers)
    build(net, config, peers, 0, auto=None)
    assert net.run(lambda: all(p.table.phase == "playing" for p in live(net)) and settled(net), limit=120)
    return net


@pytest.mark.parametrize("seed", range(4))
def test_a_new_sequencer_does_not_resend_what_its_followers_hold(seed: int) -> None:
    """After a failover at an idle table, the new sequencer sends its followers its noop and
    heartbeats, not the log they already hold (it used to start one entry too far, and on a
    lost answer fall back to index 1 and push the whole log to everyone)."""
    net = idle_table(seed, 5, 0.3)
    old = leader(net)
    assert old is not None
    held = old.log_length
    net.crash(next(n for n in net.nodes.values() if n.peer is old))
    assert net.run(lambda: leader(net) is not None, limit=10)
    new = leader(net)
    assert new is not None
    src = next(n.addr for n in net.nodes.values() if n.peer is new)
    net.trace = []
    net.run_for(5)
    again = [e.index for _, s, _, data in net.trace if s == src
             for e in getattr(wire.decode(data, None).msg, "entries", ()) if e.index <= held]
    assert again == []


RUN_ONE = """
import sys
from cardtable.engine import solo
from cardtable.p2p.simnet import Faults, SimNet
from tests.p2p import all_over, build, check_replicas, live
net = SimNet(5, Faults(loss=0.2, dup=0.1, reorder=0.1))
nodes = build(net, solo.Config.preset("anniversary", 5, threshold=1), 5, 0)
assert net.run(lambda: all(p.table.phase == "playing" and p.commit_index > 30 for p in live(net)), limit=120)
boss = next(n for n in nodes if n.peer is not None and n.peer.is_sequencer)
net.crash(boss)  # a new sequencer sets up its view of four followers at once
net.run_for(3)
net.resume(boss, auto="random", bots="random")
assert net.run(lambda: all_over(net), limit=1200)
check_replicas(net)
print(live(net)[0].table.match.digest(), net.sent, net.sent_bytes, round(net.now, 9))
"""


def test_a_simulated_match_does_not_depend_on_the_hash_seed() -> None:
    """The same SimNet seed gives the same run whatever PYTHONHASHSEED says (nothing iterates
    a set or dict of keys in hash order)."""
    root = Path(__file__).resolve().parents[2]
    runs = []
    for hash_seed in ("1", "2"):
        env = {**os.environ, "PYTHONHASHSEED": hash_seed, "PYTHONPATH": str(root)}
        done = subprocess.run([sys.executable, "-c", RUN_ONE], cwd=root, env=env, capture_output=True,
                              text=True, timeout=300)
        assert done.returncode == 0, done.stderr[-2000:]
        runs.append(done.stdout.split())
    assert runs[0] == runs[1]


# --- resends under loss --------------------------------------------------------------------------
def _kinds(net: SimNet, src: Addr, dst: Addr, kind: type) -> list[tuple[float, Any]]:
    assert net.trace is not None
    out = []
    for t, s, d, data in net.trace:
        if s == src and d == dst:
            msg = wire.decode(data, None).msg
            if isinstance(msg, kind):
                out.append((t, msg))
    return out


def _human_table(seed: int) -> tuple[SimNet, list[Node], Node, Node, Node]:
    """Three people at a SOLO table, settled where a follower is to move: (net, nodes,
    sequencer, that follower, the third)."""
    net = SimNet(seed, record=True)
    nodes = build(net, solo.Config.preset("classic", 3), 3, 0, auto=None)
    assert net.run(lambda: all(p.table.phase == "playing" for p in live(net)) and settled(net), limit=30)
    boss = next(n for n in nodes if n.peer is not None and n.peer.is_sequencer)
    assert _drive(net, nodes, lambda m: nodes[m.to_move() or 0] is not boss)
    match = boss.peer.table.match if boss.peer else None
    assert match is not None and match.to_move() is not None
    mover = nodes[match.to_move() or 0]
    third = next(n for n in nodes if n is not boss and n is not mover)
    return net, nodes, boss, mover, third


def test_a_proposal_not_in_the_log_is_resent_within_60_ms_and_then_less_often() -> None:
    net, nodes, boss, mover, third = _human_table(41)
    assert mover.peer is not None and mover.peer.table.match is not None
    net.partition([mover], [boss])  # its PROPOSEs get lost
    net.trace = []
    seat = mover.peer.my_seat
    assert seat is not None
    net.propose(mover, str(mover.peer.table.match.legal_actions(seat)[0]))
    net.run_for(1.0)
    times = [t for t, _ in _kinds(net, mover.addr, boss.addr, wire.Propose)]
    gaps = [b - a for a, b in zip(times, times[1:], strict=False)]
    assert gaps[0] <= 0.06 + 1e-9  # was 0.25
    assert 8 <= len(times) <= 13 and min(gaps) >= 0.05 - 1e-9  # then every 0.1 s at most: no storm


def test_the_sequencer_resends_entries_a_follower_did_not_acknowledge_within_60_ms() -> None:
    net, nodes, boss, mover, third = _human_table(42)
    assert mover.peer is not None and mover.peer.table.match is not None
    net.partition([third], [boss])  # the third's acknowledgements never come
    net.trace = []
    seat = mover.peer.my_seat
    assert seat is not None
    index = mover.peer.log_length + 1
    net.propose(mover, str(mover.peer.table.match.legal_actions(seat)[0]))
    net.run_for(1.0)
    assert boss.peer is not None and boss.peer.commit_index >= index  # the mover and it are a majority
    sends = [(t, m) for t, m in _kinds(net, boss.addr, third.addr, wire.Append)
             if any(e.index == index for e in m.entries)]
    times = [t for t, _ in sends]
    gaps = [b - a for a, b in zip(times, times[1:], strict=False)]
    assert gaps[0] <= 0.06 + 1e-9  # was 0.25
    assert 8 <= len(times) <= 13 and min(gaps) >= 0.05 - 1e-9  # capped: every 0.1 s at most after three
    # the follower that did answer got the entry and the commit once, with no resends
    to_mover = [m for _, m in _kinds(net, boss.addr, mover.addr, wire.Append)]
    assert sum(1 for m in to_mover if any(e.index == index for e in m.entries)) == 1


def test_latency_at_20_percent_loss_with_ten_peers() -> None:
    """bench/net.py's simulated case, shortened: p95 from a proposal to its entry applied on
    every peer under 300 ms (it was about 750 ms, bound by the 0.25 s resend)."""
    from bench.net import SimTable

    table = SimTable(10, 0.2, 3)
    assert table.run(lambda: table.harness.timed >= 100)
    latencies = sorted(table.harness.latencies)
    assert latencies[int(0.95 * len(latencies))] < 0.3


def sent_per_node(net: SimNet, seconds: float) -> dict[tuple[str, int], float]:
    """Bytes per second each node sends over the next ``seconds`` (beacons included)."""
    net.trace = []
    net.run_for(seconds)
    out = {addr: 0.0 for addr in net.nodes}
    for _, src, _, data in net.trace:
        out[src] += len(data) / seconds
    return out


@pytest.mark.parametrize(("peers", "loss"), [(4, 0.0), (4, 0.1), (10, 0.0), (10, 0.2), (10, 0.3)])
def test_an_idle_table_sends_under_a_kilobyte_a_second_per_peer(peers: int, loss: float) -> None:
    net = idle_table(21, peers, loss)
    net.run_for(3)  # the last news settle
    rates = sent_per_node(net, 20)
    assert max(rates.values()) < 1000, rates
    boss = leader(net)
    assert boss is not None
    boss_addr = next(a for a, n in net.nodes.items() if n.peer is boss)
    # the sequencer sends about the most: it heartbeats (each member's signed answer carries the
    # 32-byte chain hash since wire 4, so an answering member sends nearly as much)
    assert rates[boss_addr] >= 0.9 * max(rates.values())
    if not loss:  # idle heartbeats at least 0.6 s apart
        assert net.trace is not None
        for addr in net.nodes:
            sends = [t for t, s, d, _ in net.trace if s == boss_addr and d == addr]
            assert addr == boss_addr or 20 / 0.8 <= len(sends) <= 20 / 0.6 + 1


def test_idle_heartbeats_are_short_and_only_the_sequencer_beacons() -> None:
    net = idle_table(22, 4, 0.2)
    net.run_for(3)
    net.trace = []
    start = len(net.broadcasts)
    net.run_for(20)
    boss = leader(net)
    assert boss is not None
    boss_addr = next(a for a, n in net.nodes.items() if n.peer is boss)
    sent = [(wire.decode(d, None).msg, len(d)) for _, s, _, d in net.trace if s == boss_addr]
    short = [size for m, size in sent if isinstance(m, wire.Heartbeat)]
    appends = [m for m, _ in sent if isinstance(m, wire.Append)]
    assert not any(m.addrs or m.entries for m in appends)
    assert len(short) > 20 and len(short) > 4 * len(appends) and max(short) <= 40  # short heartbeats
    beacons = net.broadcasts[start:]
    assert {src for _, src, _ in beacons} == {boss_addr} and 9 <= len(beacons) <= 11  # every 2 s in play


def test_the_sequencer_beacons_every_second_while_the_lobby_is_open() -> None:
    net = SimNet(24)
    host = net.host(net.node("host"), scout.Config(players=3), 0)
    net.run_for(1)
    start = len(net.broadcasts)
    net.run_for(20)
    assert host.table.phase == "lobby" and 19 <= len(net.broadcasts) - start <= 21


# --- computer players' pacing ---------------------------------------------------------------------
def applied_times(node: Node) -> dict[int, float]:
    return {int(e.data["index"]): t for t, e in node.events if e.kind == "applied"}


def test_computer_players_wait_bot_delay_after_the_last_entry() -> None:
    net = SimNet(30, timeouts=Timeouts(bot_delay=0.5))
    node = net.node("solo")
    peer = net.host(node, scout.Config(players=3), 2, auto="random", bots="random")
    assert net.run(lambda: peer.table.phase == "over", limit=3600)
    check_replicas(net)
    at = applied_times(node)
    moves = [(e.index, e.decoded.payload[1]) for e in peer.log if e.decoded.kind == "act"]
    gaps = {seat: [at[i] - at[i - 1] for i, s in moves if s == seat] for seat in (0, 1, 2)}
    assert gaps[1] and gaps[2] and min(gaps[1] + gaps[2]) >= 0.5 - 1e-9
    assert min(gaps[0]) < 0.01  # the player's own seat (here played by ``auto``) is not held back


def test_simulations_keep_computer_players_quick_unless_told() -> None:
    assert SimNet(1).timeouts.bot_delay == 0 and Timeouts().bot_delay == 0.8


def _drive(net: SimNet, nodes: list[Node], want: Callable[[Match], bool], moves: int = 600) -> bool:
    """Play the human seats (their first legal action; computer seats play themselves) until
    a settled position where ``want(match)`` holds; False if none came."""
    peers = {n.peer.my_seat: n for n in nodes if n.peer is not None}
    host = nodes[0].peer
    assert host is not None
    for _ in range(moves):
        assert net.run(lambda: settled(net), limit=30)
        match = host.table.match
        assert match is not None
        waiting = match.to_move()
        if waiting is None:
            return False
        if want(match):
            return True
        target = host.commit_index + 1
        if waiting in peers:
            net.propose(peers[waiting], str(match.legal_actions(waiting)[0]))
        assert net.run(committed(net, target), limit=30)
    return False


def _jump_in(match: Match, seats: tuple[int, ...]) -> tuple[int, str] | None:
    for seat in seats:
        for action in match.legal_actions(seat):
            text = str(action)
            if seat != match.to_move() and text not in ("draw", "solo") and not text.startswith("catch"):
                return seat, text
    return None


def test_a_person_jumps_in_before_a_computer_player_moves() -> None:
    assert any(_jump_in_against_the_computer(seed) for seed in range(40, 60)), \
        "no seed offered a jump-in against the computer player"


def _jump_in_against_the_computer(seed: int) -> bool:
    net = SimNet(seed, timeouts=Timeouts(bot_delay=0.8))
    nodes = build(net, solo.Config.preset("classic", 3), 2, 1, auto=None)
    assert net.run(lambda: all(p.table.phase == "playing" for p in live(net)) and settled(net), limit=30)
    if not _drive(net, nodes, lambda m: m.to_move() == 2 and _jump_in(m, (0, 1)) is not None):
        return False
    host = nodes[0].peer
    assert host is not None and host.table.match is not None
    jump = _jump_in(host.table.match, (0, 1))
    assert jump is not None
    seat, action = jump
    index = host.commit_index + 1
    node = nodes[seat]
    net.propose(node, action)  # a few ms into the computer player's delay
    assert net.run(committed(net, index), limit=5)
    entry = host.log[index - 1]
    assert entry.decoded.author == node.identity.key and entry.decoded.payload[1:] == [seat, action]
    assert [d["ok"] for d in nodes[1].kinds("applied") if d["index"] == index] == [True]
    return True


def test_no_computer_move_while_a_proposal_is_in_flight() -> None:
    """A person's proposal that the sequencer appended but could not commit yet holds the
    computer players back, however long it takes: they think about the position after it."""
    net = SimNet(31, timeouts=Timeouts(bot_delay=0.3))
    nodes = build(net, solo.Config.preset("classic", 3), 2, 1, auto=None)
    assert net.run(lambda: all(p.table.phase == "playing" for p in live(net)) and settled(net), limit=30)
    # seat 1 to play a plain number card (a legal move: one out of turn is refused before it
    # is appended), after which the computer player's seat 2 is to move
    def plain(match: Match) -> list[str]:
        return [str(a) for a in match.legal_actions(1) if re.fullmatch(r"[RGBY][0-9]", str(a))]

    assert _drive(net, nodes, lambda m: m.to_move() == 1 and bool(plain(m)))
    host, other = nodes[0].peer, nodes[1].peer
    assert host is not None and other is not None and host.is_sequencer and host.table.match is not None
    index = host.log_length + 1
    net.propose(nodes[1], plain(host.table.match)[0])
    assert net.run(lambda: host.log_length == index, limit=1)
    net.partition([nodes[0]], [nodes[1]])  # its answer cannot come back: no commit
    net.run_for(1.0)
    assert host.log_length == index and host.commit_index == index - 1  # no computer move
    net.heal()
    assert net.run(lambda: host.commit_index > index, limit=10)
    assert host.log[index - 1].decoded.author == nodes[1].identity.key
    assert host.log[index].decoded.author == host.key and host.log[index].decoded.payload[1] == 2
    at = applied_times(nodes[0])
    assert at[index + 1] - at[index] >= 0.3 - 1e-9


def test_short_heartbeats_are_checked_and_a_member_that_cannot_check_them_gets_signed_ones() -> None:
    net = idle_table(23, 3, 0.0)
    boss = leader(net)
    assert boss is not None and boss.table_id is not None
    boss_node = next(n for n in net.nodes.values() if n.peer is boss)
    victim, other = [n for n in net.nodes.values() if n.peer is not boss]
    peer = victim.peer
    assert peer is not None and other.peer is not None
    tid, term = boss.table_id, boss.term
    prev = boss.log_length

    def heartbeat(pair_key: bytes | None, term: int = term) -> bytes:
        assert pair_key is not None
        return wire.encode_heartbeat(pair_key, tid, term, prev, boss.log[-1].term, boss.commit_index, None)

    forgeries = [
        heartbeat(other.identity.pair_key(victim.identity.key, tid)),  # another member's key with it
        heartbeat(boss_node.identity.pair_key(victim.identity.key, b"x" * 16)),  # another table's
        heartbeat(boss_node.identity.pair_key(victim.identity.key, tid), term + 1),  # no sequencer yet
    ]
    timer = peer.election_at
    for data in forgeries:
        assert not peer.receive(data, boss_node.addr, net.now).send  # dropped unanswered
    assert peer.dropped["forged"] == 2 and peer.dropped["unknown sequencer"] == 1
    assert peer.election_at == timer and peer.term == term
    # a member that lost track of the sequencer (its election timer held back, so that only the
    # sequencer's fallback can set it right) drops the short form; the sequencer goes signed
    peer.leader, peer.election_at = None, net.now + 60
    net.trace = []
    net.run_for(3.0)
    assert peer.leader == boss.key and peer.term == term and peer.dropped["unknown sequencer"] >= 2
    assert net.trace is not None
    to_victim = [wire.decode(data, None).msg for _, src, dst, data in net.trace
                 if src == boss_node.addr and dst == victim.addr]
    assert any(isinstance(m, wire.Append) for m in to_victim)
    assert isinstance(to_victim[-1], wire.Heartbeat)  # and short again once answered
