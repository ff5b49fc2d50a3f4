"""Coming back: a member that left sits down again with its key and takes its seat back from the
computer player; the table is told who left, who is not answering and who is back."""

from __future__ import annotations

from cardtable.engine import scout
from cardtable.p2p import wire
from cardtable.p2p.peer import Peer
from cardtable.p2p.simnet import Faults, Node, SimNet
from cardtable.p2p.table import BOT, HUMAN
from tests.p2p import all_over, check_replicas, leader, live

LOSSY = Faults(loss=0.1, dup=0.1, reorder=0.1)


def table(net: SimNet, deal: str = "hidden", players: int = 4, people: int = 3) -> list[Node]:
    nodes = [net.node(f"p{i}") for i in range(people)]
    host = net.host(nodes[0], scout.Config(players=players), players - people, auto="random", bots="random",
                    deal=deal)
    for node in nodes[1:]:
        assert host.table_id is not None
        net.join(node, host.table_id, nodes[0].addr, auto="random", bots="random")
    assert net.run(lambda: all(p.table.phase == "playing" and p.commit_index > 30 for p in live(net)),
                   limit=120)
    return nodes


def leave(net: SimNet, nodes: list[Node]) -> tuple[Node, int]:
    """A member that is not the sequencer leaves; its seat goes to a computer player."""
    victim = next(n for n in nodes if n.peer is not None and not n.peer.is_sequencer)
    assert victim.peer is not None
    seat = victim.peer.my_seat
    assert seat is not None
    net.leave(victim)
    assert net.run(lambda: victim.peer is not None and victim.peer.left, limit=10)
    boss = leader(net)
    assert boss is not None and boss.table.seats[seat].controller == BOT
    assert boss.table.seats[seat].owner == victim.identity.key
    assert boss.table.away_seat(victim.identity.key) == seat
    return victim, seat


def others(nodes: list[Node], victim: Node) -> list[Node]:
    return [n for n in nodes if n is not victim]


def bot_moves(peer: Peer, seat: int, after: int) -> int:
    """Moves of ``seat`` committed after index ``after`` by the sequencer (a computer player)."""
    return sum(1 for e in peer.log[after:peer.commit_index]
               if e.decoded.kind in ("act", "keys") and e.decoded.payload[1] == seat
               and e.decoded.author == e.sequencer)


def come_back_and_finish(net: SimNet, victim: Node, seat: int, kept: bool) -> Peer:
    boss = leader(net)
    assert boss is not None and boss.table_id is not None
    contact = next(n.addr for n in net.nodes.values() if n.peer is boss)
    if kept:
        back = net.come_back(victim, contact, auto="random", bots="random")
    else:
        back = net.rejoin(victim, boss.table_id, contact, auto="random", bots="random")
    assert net.run(lambda: back.my_seat == seat and back.table.seats[seat].controller == HUMAN, limit=20)
    assert net.run(lambda: all_over(net), limit=600)
    agree(net)
    return back


def agree(net: SimNet) -> None:
    """One history and one digest (with hidden hands: of what every machine sees, and every
    round audited without a fault)."""
    peers = live(net)
    if not peers[0].table.hides():
        check_replicas(net)
        return
    assert len({tuple(p.raw[:p.commit_index]) for p in peers}) == 1
    assert len({p.table.digest() for p in peers}) == 1
    assert not any(r.startswith("internal") for p in peers for r in p.dropped)
    for t in (p.table for p in peers):
        assert t.audited and all(h.outcome is not None and not h.outcome.faults for h in t.audited)


def test_a_member_that_left_comes_back_from_its_kept_log_and_the_match_ends_with_one_digest() -> None:
    net = SimNet(24, LOSSY)
    nodes = table(net)
    victim, seat = leave(net, nodes)
    left_at = leader(net).commit_index  # type: ignore[union-attr]
    assert net.run(lambda: bot_moves(leader(net), seat, left_at) >= 2, limit=120)  # type: ignore[arg-type]
    back = come_back_and_finish(net, victim, seat, kept=True)
    mine = [e for e in back.log
            if e.decoded.author == victim.identity.key and e.decoded.kind in ("act", "keys")]
    assert any(e.decoded.incarnation == back.incarnation for e in mine)  # it played again, as itself
    assert len({p.table.digest() for p in live(net)}) == 1
    for n in others(nodes, victim):
        assert [e["name"] for e in n.kinds("leave")] == ["p1"]
        # hidden hands: back in the middle of a round, it plays from the next deal (a computer player's
        # machine has seen its cards), and everyone is told so
        assert [(e["seat"], e["name"]) for e in n.kinds("returning")] == [(seat, "p1")]
    assert not victim.kinds("leave")  # its own leave is told as ``left``


def test_coming_back_with_an_empty_store_catches_up_from_the_sequencer() -> None:
    net = SimNet(5, LOSSY)
    nodes = table(net, deal="open")
    victim, seat = leave(net, nodes)
    net.run_for(3)
    come_back_and_finish(net, victim, seat, kept=False)
    assert [e["seat"] for e in victim.kinds("return")] == [seat]


def test_only_the_key_that_left_takes_the_seat_back() -> None:
    net = SimNet(8)
    nodes = table(net, deal="open")
    victim, seat = leave(net, nodes)
    boss = leader(net)
    assert boss is not None and boss.table_id is not None
    contact = next(n.addr for n in net.nodes.values() if n.peer is boss)
    # another member (the sequencer itself) asks for the seat: refused by every machine
    boss._propose(["return", seat])
    net.handle(next(n for n in nodes if n.peer is boss), boss.timer(net.now))
    assert net.run(lambda: any(e.decoded.kind == "return" for e in boss.log[:boss.commit_index]), limit=5)
    for p in live(net):
        if not p.left:
            assert p.table.seats[seat].controller == BOT
    # the member that left cannot act for its seat before it is back: its proposals are a stranger's
    before, logged = boss.dropped["not a member"], len(boss.log)
    for n, payload in enumerate((["return", seat], ["act", seat, "S"]), start=100):
        data = wire.Proposal(boss.table_id, victim.identity.key, victim.peer.incarnation, n, payload).pack()
        sig = victim.identity.sign(wire.proposal_signed(data))
        net.inject(contact, wire.encode_propose(boss.table_id, data, sig, None), victim.addr)
    net.run_for(1)
    assert boss.dropped["not a member"] == before + 2
    assert not any(e.decoded.author == victim.identity.key for e in boss.log[logged:])
    # a stranger's join finds the started table closed
    stranger = net.node("stranger")
    joiner = net.join(stranger, boss.table_id, contact, auto="random", bots="random")
    net.run_for(5)
    assert joiner.my_seat is None and stranger.identity.key not in boss.roster.members
    assert boss.table.seats[seat].owner == victim.identity.key


def test_the_table_hears_who_is_not_answering_before_the_takeover_and_who_is_back() -> None:
    net = SimNet(11)
    nodes = table(net, deal="open")
    victim = next(n for n in nodes if n.peer is not None and not n.peer.is_sequencer)
    assert victim.peer is not None
    seat = victim.peer.my_seat
    net.partition([victim], others(nodes, victim))
    assert net.run(lambda: leader(net).table.seats[seat].controller == BOT, limit=35)  # type: ignore[union-attr]
    net.heal()
    assert net.run(lambda: all_over(net), limit=600)
    check_replicas(net)
    for n in others(nodes, victim):
        told = [(e.kind, e.data.get("name"), e.data.get("seconds")) for _, e in n.events
                if e.kind in ("silent", "takeover", "return")]
        assert told == [("silent", "p1", 12), ("takeover", "p1", None), ("return", "p1", None)]
        assert n.kinds("silent")[0]["seat"] == seat


def test_a_player_heard_again_before_the_takeover_keeps_the_seat() -> None:
    net = SimNet(12)
    nodes = table(net, deal="open")
    victim = next(n for n in nodes if n.peer is not None and not n.peer.is_sequencer)
    net.partition([victim], others(nodes, victim))
    net.run_for(15)
    net.heal()
    assert net.run(lambda: all_over(net), limit=600)
    check_replicas(net)
    for n in others(nodes, victim):
        assert [e["name"] for e in n.kinds("silent")] == ["p1"] and not n.kinds("takeover")



def test_the_member_left_alone_deals_again_and_the_one_back_plays_from_the_next_deal() -> None:
    """Two machines and a computer player, hidden hands: one member leaves, so the round is void
    (two dealing machines have no escrow; the void says who left) and dealt again by the other
    alone (a deal of one member passes each step to itself), whose machine then holds every hand.
    The one that left comes back from its kept log, on a new address: it is told that a computer
    player finishes the round (another machine has seen its cards), and at the next deal it deals
    again and opens its own hand."""
    net = SimNet(3)
    a, b = net.node("A"), net.node("B")
    host = net.host(a, scout.Config(players=3), 1, auto=None, bots="random", deal="hidden")
    assert host.table_id is not None
    net.join(b, host.table_id, a.addr, auto=None, bots="random")
    assert net.run(lambda: b.peer is not None and b.peer.table.hidden is not None
                   and b.peer.side.knows_hand(b.peer.table, 1), limit=60)
    net.leave(b)
    net.run_for(3.0)
    void = a.kinds("round_void")
    assert void and "B left" in void[0]["text"] and "two machines" in void[0]["text"], void
    assert host.table.hidden is not None and host.table.hidden.members == (a.identity.key,)
    redealt = host.table.hidden
    del net.nodes[b.addr]
    b.addr = ("10.0.0.99", 7099)  # a new process: a new port
    net.nodes[b.addr] = b
    back = net.come_back(b, a.addr, auto="random", bots="random")
    assert net.run(lambda: 1 in back.table.returning, limit=30)
    assert back.table.seats[1].controller == BOT and host.table.hidden is redealt
    assert [e for _, e in b.events if e.kind == "applied" and e.data["kind"] == "return" and e.data["ok"]]
    host.auto = "random"  # A plays on: the round ends and the next is dealt
    assert net.run(lambda: back.table.hidden is not None and back.table.hidden is not redealt
                   and b.identity.key in back.table.hidden.members and back.table.hidden.stage == "play"
                   and back.side.knows_hand(back.table, 1), limit=300), "the hand did not open"
    assert back.table.seats[1].controller == HUMAN and host.addrs.get(b.identity.key) == b.addr
