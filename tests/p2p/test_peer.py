"""The peer on the simulated LAN: failover, restarts, fairness, hostile and replayed input."""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

import msgpack
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cardtable.engine import scout, solo
from cardtable.engine.match import Match
from cardtable.p2p import seal, wire
from cardtable.p2p.identity import Identity
from cardtable.p2p.peer import BROADCAST, Peer
from cardtable.p2p.simnet import Faults, Node, SimNet
from cardtable.p2p.store import FileStore
from cardtable.p2p.table import BOT, CPU, SEED_DOMAIN
from tests.p2p import all_over, build, check_replicas, leader, live

LOSSY = Faults(loss=0.1, dup=0.1, reorder=0.1)


def node_of(net: SimNet, peer: Peer) -> Node:
    return next(n for n in net.nodes.values() if n.peer is peer)


def mid_game(net: SimNet, nodes: list[Node], entries: int = 40) -> None:
    assert net.run(lambda: all(p.table.phase == "playing" and p.commit_index > entries for p in live(net)),
                   limit=120)


def test_a_host_alone_with_computer_players() -> None:
    net = SimNet(1)
    node = net.node("solo")
    peer = net.host(node, scout.Config(players=4), 3, auto="random", bots="random")
    assert net.run(lambda: peer.table.phase == "over", limit=60)
    check_replicas(net)
    assert [e["seat"] for e in node.kinds("seated")] == [0]
    assert len(node.kinds("started")) == 1 and len(node.kinds("match_over")) == 1
    assert node.kinds("round_end")


def test_the_sequencer_crashes_and_another_takes_over() -> None:
    net = SimNet(3)
    nodes = build(net, scout.Config(players=4), 3, 1)
    mid_game(net, nodes)
    old = leader(net)
    assert old is not None and old.key == nodes[0].identity.key
    seat = old.my_seat
    net.crash(nodes[0])
    crashed_at = net.now
    assert net.run(lambda: leader(net) is not None, limit=5)
    assert net.now - crashed_at <= 2.0
    assert net.run(lambda: all_over(net), limit=300)  # its seat is taken over after 30 s
    check_replicas(net)
    new = leader(net)
    assert new is not None and seat is not None and new.table.seats[seat].owner == old.key
    assert any(e["seat"] == seat for e in nodes[1].kinds("takeover"))
    # the old sequencer comes back from its store and catches up
    back = net.resume(nodes[0], auto="random", bots="random")
    assert net.run(lambda: back.commit_index == new.commit_index, limit=10)
    check_replicas(net)


def test_a_restart_from_the_store_resumes_the_seat() -> None:
    net = SimNet(7, LOSSY)
    nodes = build(net, scout.Config(players=4), 3, 1)
    mid_game(net, nodes)
    victim = next(n for n in nodes if n.peer is not None and not n.peer.is_sequencer)
    seat = victim.peer.my_seat if victim.peer else None
    net.crash(victim)
    net.run_for(5)
    back = net.resume(victim, auto="random", bots="random")
    assert back.my_seat == seat and back.incarnation > 1
    assert victim.kinds("resumed")
    assert net.run(lambda: all_over(net), limit=300)
    check_replicas(net)
    mine = [e for e in back.log if e.decoded.author == victim.identity.key and e.decoded.kind == "act"]
    assert any(e.decoded.incarnation == back.incarnation for e in mine)  # it played after the restart
    assert not victim.kinds("takeover")


def test_an_empty_store_restart_catches_up_and_takes_the_seat_back() -> None:
    net = SimNet(7, LOSSY)
    nodes = build(net, scout.Config(players=4), 3, 1)
    mid_game(net, nodes)
    victim = next(n for n in nodes if n.peer is not None and not n.peer.is_sequencer)
    seat = victim.peer.my_seat if victim.peer else None
    net.crash(victim)

    def taken_over() -> bool:
        boss = leader(net)
        return boss is not None and seat is not None and boss.table.seats[seat].controller == "bot"

    assert net.run(taken_over, limit=40)  # after 30 s of silence
    net.run_for(2)
    boss = leader(net)
    assert boss is not None and seat is not None and boss.table.phase == "playing"
    assert boss.table_id is not None
    back = net.rejoin(victim, boss.table_id, node_of(net, boss).addr, auto="random", bots="random")
    target = boss.commit_index
    assert net.run(lambda: back.commit_index > target and back.table.seats[seat].controller == "human",
                   limit=10)
    assert back.my_seat == seat
    assert [e["seat"] for e in victim.kinds("return")] == [seat]
    assert net.run(lambda: all_over(net), limit=300)
    check_replicas(net)


def test_a_silent_player_is_played_by_a_bot_and_gets_the_seat_back() -> None:
    net = SimNet(11, LOSSY)
    nodes = build(net, scout.Config(players=4), 3, 1)
    mid_game(net, nodes)
    victim = next(n for n in nodes if n.peer is not None and not n.peer.is_sequencer)
    assert victim.peer is not None
    seat = victim.peer.my_seat
    net.partition([victim], [n for n in nodes if n is not victim])
    net.run_for(35)
    boss = leader(net)
    assert boss is not None and seat is not None and boss.table.seats[seat].controller == "bot"
    progress = boss.commit_index
    net.heal()
    assert net.run(lambda: all_over(net), limit=300)
    check_replicas(net)
    assert boss.commit_index > progress
    assert [e["seat"] for e in victim.kinds("takeover")] == [seat]
    assert [e["seat"] for e in victim.kinds("return")] == [seat]


def test_two_peers_wait_for_each_other() -> None:
    net = SimNet(2)
    nodes = build(net, scout.Config(players=3), 2, 1)
    mid_game(net, nodes, 10)
    follower = next(n for n in nodes if n.peer is not None and not n.peer.is_sequencer)
    net.crash(follower)
    assert nodes[0].peer is not None
    stuck = nodes[0].peer.commit_index
    net.run_for(20)
    assert nodes[0].peer.commit_index <= stuck + 1  # no majority: nothing more is committed
    net.resume(follower, auto="random", bots="random")
    assert net.run(lambda: all_over(net), limit=300)
    check_replicas(net)


def test_a_two_peer_table_goes_on_after_the_sequencer_lost_its_store() -> None:
    net = SimNet(17, LOSSY)
    nodes = build(net, scout.Config(players=3), 2, 1)
    mid_game(net, nodes, 20)
    assert nodes[0].peer is not None and nodes[0].peer.is_sequencer
    table_id = nodes[0].peer.table_id
    assert table_id is not None
    net.crash(nodes[0])
    net.run_for(5)
    back = net.rejoin(nodes[0], table_id, nodes[1].addr, auto="random", bots="random")
    assert net.run(lambda: all_over(net), limit=300)  # the survivor won with the "lost store" answer
    check_replicas(net)
    assert back.my_seat == 0 and nodes[1].peer is not None and nodes[1].peer.term > 1


def test_resuming_from_a_file_store_with_a_torn_tail(tmp_path: Path) -> None:
    net = SimNet(18, LOSSY)
    nodes = [net.node("p0", FileStore(tmp_path / "p0.log", sync=False)), net.node("p1"), net.node("p2")]
    host = net.host(nodes[0], scout.Config(players=3), 0, auto="random", bots="random")
    assert host.table_id is not None
    for node in nodes[1:]:
        net.join(node, host.table_id, nodes[0].addr, auto="random", bots="random")
    mid_game(net, nodes, 30)
    net.crash(nodes[0])
    path = tmp_path / "p0.log"
    path.write_bytes(path.read_bytes()[:-3])  # the last record was being written
    back = net.resume(nodes[0], auto="random", bots="random")
    assert back.my_seat == 0 and back.commit_index > 20
    assert net.run(lambda: all_over(net), limit=300)
    check_replicas(net)
    again = Peer.resume(nodes[0].identity, FileStore(path), now=net.now, seed=b"x" * 32)
    assert again.commit_index == back.commit_index and again.table.match is not None
    assert again.table.match.digest() == back.table.match.digest() if back.table.match else False


def test_a_seat_that_never_reveals_is_forfeited_and_the_seed_is_not_rerolled() -> None:
    net = SimNet(5, LOSSY)
    nodes = build(net, scout.Config(players=3), 3, 0)
    victim = nodes[2]

    def committed() -> bool:
        boss = leader(net)
        return boss is not None and any(e.decoded.kind == "commit" and e.decoded.author == victim.identity.key
                                        for e in boss.log)

    assert net.run(committed, limit=30)
    seat = victim.peer.my_seat if victim.peer else None
    net.crash(victim)  # its commitment is in the log; its reveal never will be
    assert net.run(lambda: all(p.table.phase == "playing" for p in live(net)), limit=30)
    boss = leader(net)
    assert boss is not None and seat is not None and boss.table.seats[seat].controller == CPU
    assert [e["seat"] for e in nodes[0].kinds("forfeit")] == [seat]
    kinds = [e.decoded.kind for e in boss.log[: boss.commit_index]]
    assert kinds.count("commit") == 3 and kinds.count("reveal") == 2  # one round, nothing re-rolled
    t = boss.table
    assert t.table_id is not None and t.seed is not None and seat not in t.reveals
    nonces = b"".join(t.reveals[s] for s in sorted(t.reveals))
    assert t.seed == hashlib.sha256(SEED_DOMAIN + t.table_id + nonces).digest()
    assert net.run(lambda: all_over(net), limit=300)
    check_replicas(net)


def test_leaving_for_good() -> None:
    net = SimNet(4, LOSSY)
    nodes = build(net, scout.Config(players=4), 4, 0)
    mid_game(net, nodes)
    quitter = next(n for n in nodes if n.peer is not None and not n.peer.is_sequencer)
    boss = next(n for n in nodes if n.peer is not None and n.peer.is_sequencer)
    assert quitter.peer is not None and boss.peer is not None
    seat, bseat = quitter.peer.my_seat, boss.peer.my_seat
    net.leave(quitter)
    assert net.run(lambda: bool(quitter.kinds("left")), limit=10)
    net.leave(boss)
    assert net.run(lambda: bool(boss.kinds("left")), limit=10)
    net.crash(quitter)
    net.crash(boss)
    assert net.run(lambda: all_over(net), limit=300)
    check_replicas(net)
    t = live(net)[0].table
    assert seat is not None and bseat is not None
    assert t.seats[seat].controller == BOT and t.seats[bseat].controller == BOT  # kept, should they come back
    assert t.away_seat(quitter.identity.key) == seat and t.away_seat(boss.identity.key) == bseat
    assert len(t.members()) == 2


def test_a_full_table_seats_nobody_else() -> None:
    net = SimNet(6)
    nodes = build(net, scout.Config(players=2), 2, 0)
    assert net.run(lambda: all(p.table.phase == "playing" for p in live(net)), limit=10)
    late = net.node("late")
    assert nodes[0].peer is not None and nodes[0].peer.table_id is not None
    peer = net.join(late, nodes[0].peer.table_id, nodes[0].addr, auto="random", bots="random")
    assert net.run(lambda: nodes[0].peer is not None and nodes[0].peer.table.phase == "over", limit=120)
    assert peer.my_seat is None and peer.log_length == 0
    net.crash(late)
    assert net.run(lambda: all_over(net), limit=10)
    check_replicas(net)


def two_jump_in_race(seed: int) -> tuple[SimNet, list[Node]] | None:
    """Drive a SOLO match by hand until one seat may jump in while the waiting seat could play;
    then both propose at once. None if this seed offers no such moment."""
    net = SimNet(seed)
    nodes = build(net, solo.Config.preset("classic", 3), 3, 0, auto=None)
    assert net.run(lambda: all(p.table.phase == "playing" for p in live(net)), limit=30)
    peers = {n.peer.my_seat: n for n in nodes if n.peer is not None}
    for _ in range(300):
        match = nodes[0].peer.table.match if nodes[0].peer else None
        assert match is not None
        waiting = match.to_move()
        assert waiting is not None
        jumper = next((s for s in range(3) if s != waiting and any(
            _is_jump_in(match, s, a) for a in match.legal_actions(s))), None)
        if jumper is not None:
            jump = next(str(a) for a in match.legal_actions(jumper) if _is_jump_in(match, jumper, a))
            if _conflict(match, (jumper, jump), (waiting, "draw")):
                for seat, action in ((waiting, "draw"), (jumper, jump)):
                    node = peers[seat]
                    assert node.peer is not None
                    net.propose(node, action)
                return net, nodes
        move = str(match.legal_actions(waiting)[0])
        target = nodes[0].peer.commit_index + 1 if nodes[0].peer else 0
        node = peers[waiting]
        assert node.peer is not None
        net.propose(node, move)
        assert net.run(_committed_everywhere(net, target), limit=5)
    return None


def _committed_everywhere(net: SimNet, index: int) -> Callable[[], bool]:
    return lambda: all(p.commit_index >= index for p in live(net))


def _is_jump_in(match: Match, seat: int, action: Any) -> bool:
    text = str(action)
    return seat != match.to_move() and text not in ("draw", "solo") and not text.startswith("catch")


def _conflict(match: Match, first: tuple[int, str], second: tuple[int, str]) -> bool:
    """Whichever of the two is applied first, the other is then illegal."""
    for a, b in ((first, second), (second, first)):
        copy = Match.from_snapshot(match.snapshot())
        copy.apply(*a)
        if str(b[1]) in {str(x) for x in copy.legal_actions(b[0])}:
            return False
    return True


def test_racing_jump_ins_first_sequenced_wins() -> None:
    race = next(r for r in (two_jump_in_race(s) for s in range(20)) if r is not None)
    net, nodes = race
    boss = leader(net)
    assert boss is not None
    start = boss.commit_index
    refusals = lambda: sum(len(n.kinds("refused")) for n in nodes)  # noqa: E731
    assert net.run(lambda: all(p.commit_index >= start + 1 for p in live(net)) and refusals() == 1, limit=10)
    net.run_for(0.5)
    # The loser is refused when applied (appended while the winner was not committed yet) or,
    # if the winner was committed first, by the sequencer before it is appended, and by its
    # author's own table: one refusal either way, the winner applied everywhere.
    acts = [e for e in boss.log[start: start + 2] if e.decoded.kind == "act"]
    assert len(acts) in (1, 2) and acts[0].index == start + 1
    ref = Match(boss.table.config, boss.table.seed or b"")
    results = [d for n in nodes for d in n.kinds("applied") if d["index"] in (start + 1, start + 2)]
    first = [d for d in results if d["index"] == start + 1]
    second = [d for d in results if d["index"] == start + 2 and d["kind"] == "act"]
    assert all(d["ok"] for d in first) and not any(d["ok"] for d in second)
    assert len(first) == 3 and len(second) == 3 * (len(acts) - 1)  # every peer applied them alike
    refused = [d for n in nodes for d in n.kinds("refused")]
    assert len(refused) == 1
    assert ref is not None
    check_replicas(net, expect_over=False)


def test_forged_entries_and_messages_are_dropped_and_counted() -> None:
    net = SimNet(8)
    nodes = build(net, scout.Config(players=3), 3, 0)
    mid_game(net, nodes, 10)
    boss_node = next(n for n in nodes if n.peer is not None and n.peer.is_sequencer)
    victim = next(n for n in nodes if n.peer is not None and not n.peer.is_sequencer)
    other = next(n for n in nodes if n is not boss_node and n is not victim)
    boss, peer = boss_node.peer, victim.peer
    assert boss is not None and peer is not None and boss.table_id is not None
    assert net.run(lambda: peer.log_length == boss.log_length, limit=5)  # the forgeries extend both
    tid, me = boss.table_id, boss_node.identity
    seat = other.peer.my_seat if other.peer else 0
    before = (peer.log_length, peer.table.match.digest() if peer.table.match else "")

    def append_with(entry: wire.Entry, signer: Identity = me) -> bytes:
        head = [tid, signer.key, boss.term, boss.log_length, boss.log[-1].term, boss.commit_index]
        return wire.encode_append(head, [entry.pack()], [], signer.sign, None, boss.stamps.next(net.now)[0])

    index = boss.log_length + 1
    # an entry claiming another author, signed by the sequencer's own key
    claim = wire.Proposal(tid, other.identity.key, 1, 999, ["act", seat, "draw"]).pack()
    sig = me.sign(wire.proposal_signed(claim))
    seq_sig = me.sign(wire.entry_signed(tid, boss.term, index, claim, boss.hashes[-1]))
    forged = wire.Entry(boss.term, index, claim, sig, me.key, seq_sig, wire.decode_proposal(claim))
    net.inject(victim.addr, append_with(forged), boss_node.addr)
    # a proper proposal under a sequencer signature by someone else
    good = wire.Proposal(tid, other.identity.key, 1, 999, ["act", seat, "draw"]).pack()
    gsig = other.identity.sign(wire.proposal_signed(good))
    bad_seq = wire.Entry(boss.term, index, good, gsig, me.key, b"\x00" * 64, wire.decode_proposal(good))
    net.inject(victim.addr, append_with(bad_seq), boss_node.addr)
    # an APPEND signed by a key that is not the one it names
    data = append_with(bad_seq, signer=other.identity)
    net.inject(victim.addr, data[:-8] + bytes(8), boss_node.addr)
    # a PROPOSE whose proposal names another author
    net.inject(boss_node.addr, wire.encode_propose(tid, claim, sig, None), victim.addr)
    # an outsider with a perfectly signed VOTE_ASK and a huge term
    eve = Identity.from_seed(b"e" * 32)
    ask = wire.encode(wire.VOTE_ASK, [tid, eve.key, 10**6, 10**6, 10**6, bytes(32)], eve.sign, None)
    net.inject(victim.addr, ask, ("10.9.9.9", 1))
    net.run_for(0.001)
    assert peer.dropped["forged"] >= 3 and boss.dropped["forged"] >= 1
    assert peer.dropped["not a member"] >= 1 and peer.term < 10**6
    assert peer.log_length == before[0] or peer.log[before[0]].decoded.author != other.identity.key
    assert all(e.decoded.seq != 999 for p in live(net) for e in p.log)
    assert net.run(lambda: all_over(net), limit=300)
    check_replicas(net)


def test_replayed_datagrams_change_nothing() -> None:
    net = SimNet(9, LOSSY, record=True)
    build(net, scout.Config(players=3), 3, 0)
    assert net.run(lambda: all_over(net), limit=300)
    check_replicas(net)
    assert net.trace is not None
    snapshot = [(p.raw[:], p.table.match.digest() if p.table.match else None) for p in live(net)]
    for _, src, dst, data in list(net.trace):
        if dst != BROADCAST and wire.decode(data, None).msg.__class__.__name__ != "Beacon":
            net.inject(dst, data, src)
    net.run_for(5)
    assert [(p.raw[:], p.table.match.digest() if p.table.match else None) for p in live(net)] == snapshot
    check_replicas(net)
    assert sum(p.dropped["duplicate"] + p.dropped["old term"] for p in live(net)) > 0


def test_replays_in_the_middle_of_a_game() -> None:
    net = SimNet(10, LOSSY, record=True)
    nodes = build(net, scout.Config(players=3), 3, 0)
    mid_game(net, nodes, 30)
    assert net.trace is not None
    for _, src, dst, data in list(net.trace):
        if dst != BROADCAST:
            net.inject(dst, data, src, net.now + 0.5)
    assert net.run(lambda: all_over(net), limit=300)
    check_replicas(net)


def test_a_wrong_passphrase_never_joins() -> None:
    net = SimNet(12)
    nodes = build(net, scout.Config(players=3), 2, 0, passphrase="open sesame")
    host = nodes[0].peer
    assert host is not None and host.table_id is not None
    wrong, none = net.node("wrong"), net.node("none")
    w = net.join(wrong, host.table_id, nodes[0].addr, auto="random", bots="random", passphrase="guess")
    n = net.join(none, host.table_id, nodes[0].addr, auto="random", bots="random")
    net.run_for(10)
    assert w.log_length == 0 and n.log_length == 0 and w.my_seat is None and n.my_seat is None
    assert host.dropped["passphrase"] >= 20
    assert w.dropped["passphrase"] + n.dropped["passphrase"] == 0  # nobody answered them
    assert host.table.phase == "lobby" and len(host.table.members()) == 2
    net.crash(wrong)
    net.crash(none)
    right = net.join(net.node("right"), host.table_id, nodes[0].addr, auto="random", bots="random",
                     passphrase="open sesame")
    assert net.run(lambda: all_over(net), limit=300)
    assert right.my_seat == 2
    check_replicas(net)


def test_every_datagram_fits_even_with_long_names_and_big_configs() -> None:
    net = SimNet(13, LOSSY)
    config = solo.Config.preset("anniversary", 5, threshold=1)
    nodes = [net.node("N" * 40 + str(i)) for i in range(4)]
    host = net.host(nodes[0], config, 1, auto="random", bots="random")
    assert host.table_id is not None
    for node in nodes[1:]:
        net.join(node, host.table_id, nodes[0].addr, auto="random", bots="random", passphrase=None)
    assert net.run(lambda: all_over(net), limit=600)
    check_replicas(net)
    late = nodes[3]
    late.peer = None
    net.rejoin(late, host.table_id, nodes[0].addr, auto="random", bots="random")
    assert net.run(lambda: len({p.commit_index for p in live(net)}) == 1, limit=30)
    check_replicas(net)
    assert 900 < net.biggest <= wire.MAX_DATAGRAM


def test_beacons_describe_the_table() -> None:
    net = SimNet(14)
    nodes = build(net, scout.Config(players=3), 2, 0, passphrase="pw")
    net.run_for(3)
    assert len(net.broadcasts) >= 2
    _, src, data = net.broadcasts[-1]
    assert src == nodes[0].addr
    host = nodes[0].peer
    assert host is not None and host.table_id is not None
    beacon = wire.decode(data, seal.for_table("pw", host.table_id))
    assert isinstance(beacon.msg, wire.Beacon) and beacon.authentic()
    info = host.beacon_info()
    assert (beacon.msg.table_id, beacon.msg.taken, beacon.msg.total) == (host.table_id, 2, 3)
    assert info["game"] == "scout" and info["sequencer"] == host.key and info["passphrase"]


def test_the_same_seed_gives_the_same_log() -> None:
    logs = []
    for _ in range(2):
        net = SimNet(15, LOSSY)
        build(net, scout.Config(players=3), 2, 1)
        assert net.run(partial(all_over, net), limit=300)
        logs.append(live(net)[0].raw[:])
    assert logs[0] == logs[1]


_FUZZ: dict[str, Any] = {}


def _fuzz_target() -> tuple[SimNet, Node, Peer]:
    if not _FUZZ:
        net = SimNet(16)
        nodes = build(net, scout.Config(players=3), 2, 1)
        mid_game(net, nodes, 5)
        peer = nodes[1].peer
        assert peer is not None
        _FUZZ["t"] = (net, nodes[1], peer)
    return _FUZZ["t"]  # type: ignore[no-any-return]


values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**63), 2**64 - 1) | st.text(max_size=10)
    | st.binary(max_size=70),
    lambda inner: st.lists(inner, max_size=9) | st.dictionaries(st.text(max_size=4), inner, max_size=4),
    max_leaves=25,
)


def _feed(data: bytes, counted: bool = True) -> None:
    net, node, peer = _fuzz_target()
    dropped = sum(peer.dropped.values())
    out = peer.receive(data, ("10.1.2.3", 4), net.now)
    assert all(len(d) <= wire.MAX_DATAGRAM for d, _ in out.send)
    assert not any(r.startswith("internal") for r in peer.dropped)
    if counted and not _is_beacon(data):  # a beacon is no datagram for a peer: ignored quietly
        assert sum(peer.dropped.values()) == dropped + 1


def _is_beacon(data: bytes) -> bool:
    try:
        return isinstance(wire.decode(data, None).msg, wire.Beacon)
    except wire.WireError:
        return False


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.binary(max_size=1400))
def test_arbitrary_bytes_are_dropped_and_counted(data: bytes) -> None:
    _feed(data)
    _feed(wire.MAGIC + bytes((wire.VERSION, 0)) + data)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 9), values, st.sampled_from(["self", "stranger", "member"]))
def test_arbitrary_msgpack_is_dropped_and_counted(kind: int, fields: Any, signer_is: str) -> None:
    """Bodies with our table id and a real signature: from ourselves or a stranger they are
    dropped; from another member they may be well formed, and then must merely not hurt."""
    net, node, peer = _fuzz_target()
    assert peer.table_id is not None
    member = next(n for n in net.nodes.values() if n is not node)
    signers = {"self": node.identity, "stranger": Identity.from_seed(b"z" * 32), "member": member.identity}
    signer = signers[signer_is]
    body = fields if not isinstance(fields, list) else [peer.table_id, signer.key, *fields]
    inner = msgpack.packb(body)
    signed = msgpack.packb([kind, inner, signer.sign(wire.MSG_DOMAIN + bytes([kind]) + inner)])
    _feed(wire.frame(signed, None), counted=signer_is != "member")
    _feed(wire.frame(msgpack.packb([kind, fields]), None))


def test_propose_action_refuses_locally_what_cannot_be_sent() -> None:
    net = SimNet(19)
    nodes = build(net, scout.Config(players=2), 2, 0, auto=None)
    peer = nodes[1].peer
    assert peer is not None
    early = peer.propose_action("keep", net.now)
    assert not early.send and [e.kind for e in early.events] == ["refused"]
    assert net.run(lambda: all(p.table.phase == "playing" for p in live(net)), limit=10)
    out = peer.propose_action("this is not scout notation", net.now)
    assert not out.send and out.events[0].kind == "refused" and not peer.queue
    out = peer.propose_action("x" * 500, net.now)
    assert not out.send and out.events[0].kind == "refused"


def test_a_player_back_at_a_taken_over_seat_returns_before_acting() -> None:
    net = SimNet(20)
    nodes = build(net, scout.Config(players=3), 3, 0, auto=None)
    assert net.run(lambda: all(p.table.phase == "playing" for p in live(net)), limit=10)
    peer = nodes[2].peer
    assert peer is not None and peer.my_seat is not None
    seat = peer.my_seat
    peer.table.seats[seat].controller = "bot"  # as if the takeover were just applied here
    out = peer.propose_action("keep", net.now)
    assert [o.payload[0] for o in peer.queue] == ["return", "act"]
    assert out.send


def test_a_peer_that_left_stays_gone_after_a_restart() -> None:
    net = SimNet(21)
    nodes = build(net, scout.Config(players=3), 3, 0)
    mid_game(net, nodes, 10)
    quitter = next(n for n in nodes if n.peer is not None and not n.peer.is_sequencer)
    assert quitter.peer is not None
    net.leave(quitter)
    assert net.run(lambda: bool(quitter.kinds("left")), limit=10)
    net.crash(quitter)
    again = net.resume(quitter)
    assert again.left and again.timer(net.now).deadline is None
    net.crash(quitter)
    assert net.run(lambda: all_over(net), limit=300)
    check_replicas(net)
