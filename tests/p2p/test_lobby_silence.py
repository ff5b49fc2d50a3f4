"""A seat whose holder is silent in the lobby frees again; a live one is never taken away."""

from __future__ import annotations

from cardtable.engine import scout
from cardtable.p2p.peer import Peer
from cardtable.p2p.simnet import Faults, Node, SimNet
from tests.p2p import all_over, check_replicas, live
from tests.p2p.test_table import ANN, BOB, EVE, HOST, lobby, seeded


def _host(net: SimNet, players: int, cpu: int) -> tuple[Node, Peer]:
    node = net.node("host")
    return node, net.host(node, scout.Config(players=players), cpu, auto="random", bots="random")


def _join(net: SimNet, name: str, host: Node) -> Node:
    node = net.node(name)
    assert host.peer is not None and host.peer.table_id is not None
    net.join(node, host.peer.table_id, host.addr, auto="random", bots="random")
    return node


def _ghost(net: SimNet, host: Node) -> Node:
    """A joiner that answers the cookie, has its join appended, and is never heard again."""
    ghost = _join(net, "ghost", host)
    peer = host.peer
    assert peer is not None
    assert net.run(lambda: ghost.identity.key in peer.roster.members, limit=5)
    net.crash(ghost)
    return ghost


def _evictions(peer: Peer) -> list[int]:
    return [e.decoded.payload[1] for e in peer.log[: peer.commit_index] if e.decoded.kind == "evict"]


def test_a_silent_joiner_that_would_block_every_majority_is_removed_and_a_real_joiner_plays() -> None:
    """Two human seats: the ghost's join needs the ghost to commit, so the lobby was frozen for
    good (no other join, no majority). After ``lobby_silence`` of silence the sequencer evicts it
    (which commits without it), its seat is free, and a real joiner takes it."""
    net = SimNet(71)
    host, peer = _host(net, 3, 1)
    ghost = _ghost(net, host)
    since = net.now
    assert net.run(lambda: bool(_evictions(peer)), limit=30)
    assert net.now - since >= peer.timeouts.lobby_silence - 1e-9
    assert peer.table.phase == "lobby" and peer.table.seats[1].owner is None and peer.roster.open
    assert ghost.identity.key not in peer.roster.members
    ann = _join(net, "ann", host)
    assert net.run(lambda: all_over(net), limit=600)
    check_replicas(net)
    assert ann.peer is not None and ann.peer.my_seat == 1


def test_a_silent_joiner_frees_its_seat_while_others_wait_alive() -> None:
    """Four human seats: host, a live joiner, the ghost. The ghost's join commits (a majority
    without it), then it is evicted; the live joiner is never evicted, and the next joiners take
    the ghost's seat and the last one."""
    net = SimNet(72, Faults(loss=0.2))
    host, peer = _host(net, 4, 0)
    ann = _join(net, "ann", host)
    assert net.run(lambda: ann.identity.key in peer.roster.members, limit=10)
    ghost = _ghost(net, host)
    assert net.run(lambda: len(_evictions(peer)) == 1, limit=30)
    net.run_for(20)  # the lobby waits; ann is alive: no second eviction
    assert _evictions(peer) == [2] and peer.table.seats[2].owner is None
    assert ann.identity.key in peer.roster.members and ghost.identity.key not in peer.roster.members
    bob = _join(net, "bob", host)
    assert net.run(lambda: bob.peer is not None and bob.peer.my_seat == 2, limit=10)
    _join(net, "carl", host)
    assert net.run(lambda: all_over(net), limit=900)
    check_replicas(net)
    assert ann.peer is not None and ann.peer.my_seat == 1
    assert len(_evictions(peer)) == 1


def test_live_joiners_in_a_long_lossy_lobby_are_never_evicted() -> None:
    net = SimNet(73, Faults(loss=0.3, dup=0.1, reorder=0.1))
    host, peer = _host(net, 4, 0)
    joiners = [_join(net, "ann", host), _join(net, "bob", host)]
    net.run_for(120)
    assert peer.table.phase == "lobby" and len(peer.table.members()) == 3
    assert all(n.peer is not None and n.peer.my_seat is not None and not n.peer.left for n in joiners)
    assert not any(e.decoded.kind == "evict" for p in live(net) for e in p.log)


def test_an_evicted_peer_that_comes_back_is_told_and_stops() -> None:
    """A joiner cut off for longer than ``lobby_silence`` is no longer at the table; once it
    hears so it says so (``evicted``, then ``left``) and stays silent."""
    net = SimNet(74)
    host, peer = _host(net, 3, 0)
    ann = _join(net, "ann", host)
    assert net.run(lambda: ann.identity.key in peer.roster.members and ann.peer is not None
                   and ann.peer.my_seat == 1, limit=10)
    net.partition([ann], [host])
    assert net.run(lambda: bool(_evictions(peer)), limit=30)
    net.heal()
    assert net.run(lambda: ann.peer is not None and ann.peer.left, limit=10)
    assert ann.kinds("evicted") and ann.kinds("left")
    assert peer.table.seats[1].owner is None and peer.table.phase == "lobby"


# --- the table state machine ------------------------------------------------------------------------
def test_evict_frees_a_lobby_seat_only_by_the_sequencer_and_only_of_a_member() -> None:
    log = lobby(players=4)
    log.add(ANN, ["join", "ann"])
    assert log.add(ANN, ["evict", 0]) == (False, "only the sequencer removes a member")
    assert log.add(HOST, ["evict", 0]) == (False, "no other member holds that seat")  # itself
    assert log.add(HOST, ["evict", 2]) == (False, "no other member holds that seat")
    assert log.add(HOST, ["evict", 1]) == (True, "")
    t = log.table
    assert t.phase == "lobby" and t.seats[1].owner is None and ANN.key not in t.members()
    assert log.add(HOST, ["evict", 1]) == (False, "no other member holds that seat")
    assert log.add(BOB, ["join", "bob"])[0] and t.seat_of(BOB.key) == 1


def test_evicting_the_joiner_that_filled_the_lobby_opens_it_again_before_any_seed_share() -> None:
    log = lobby(players=2)
    log.add(ANN, ["join", "ann"])
    assert log.table.phase == "seeding"
    assert log.add(HOST, ["evict", 1]) == (True, "")
    assert log.table.phase == "lobby" and log.table.roster.open
    assert log.add(EVE, ["join", "eve"])[0] and log.table.phase == "seeding"
    seeded(log, [HOST, EVE])
    assert log.table.phase == "playing"


def test_once_the_seed_agreement_began_an_evicted_seat_goes_to_a_computer_player() -> None:
    log = lobby(players=3)
    log.add(ANN, ["join", "ann"])
    log.add(BOB, ["join", "bob"])
    assert log.add(HOST, ["commit", b"h" * 32])[0]
    assert log.add(HOST, ["evict", 2]) == (True, "")
    t = log.table
    assert t.phase == "seeding" and t.seats[2].controller == "cpu" and not t.roster.open
