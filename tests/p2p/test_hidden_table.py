"""Hidden hands at a real table (SCOUT) on the simulated LAN: the members deal together, each machine
opens only its own cards, moves that show cards carry their proofs, every round is audited, and a
member that cheats is named and loses its seat (docs/hidden-hands.md)."""

from __future__ import annotations

from typing import Any

import pytest

from cardtable.engine import scout
from cardtable.p2p.hidden import payloads
from cardtable.p2p.hidden.bundles import Want, bundles_for
from cardtable.p2p.hidden.member import new_seed
from cardtable.p2p.hidden.opening import PublicOpen
from cardtable.p2p.hidden.round import PLAY
from cardtable.p2p.peer import Peer
from cardtable.p2p.simnet import Faults, Node, SimNet
from cardtable.p2p.wire import MAX_DATAGRAM
from tests.p2p import all_over


def hidden_table(net: SimNet, players: int, peers: int, cpu: int = 0) -> list[Node]:
    nodes = [net.node(f"p{i}") for i in range(peers)]
    host = net.host(nodes[0], scout.Config(players=players), cpu, auto="random", bots="random", deal="hidden")
    for node in nodes[1:]:
        assert host.table_id is not None
        net.join(node, host.table_id, nodes[0].addr, auto="random", bots="random")
    return nodes


def running(nodes: list[Node]) -> list[Peer]:
    return [n.peer for n in nodes if n.peer is not None]


def events(node: Node, kind: str) -> list[dict[str, Any]]:
    return node.kinds(kind)


@pytest.mark.parametrize("seed,players,peers,cpu,rate", [
    (1, 2, 2, 0, 0.0), (2, 2, 2, 0, 0.2), (3, 3, 3, 0, 0.1), (4, 4, 3, 1, 0.2), (5, 5, 5, 0, 0.1),
])
def test_a_hidden_match_finishes_and_every_machine_sees_the_same_public_table(
        seed: int, players: int, peers: int, cpu: int, rate: float) -> None:
    net = SimNet(seed, Faults(loss=rate, dup=rate, reorder=rate))
    nodes = hidden_table(net, players, peers, cpu)
    assert net.run(lambda: all_over(net), limit=900), "the match did not finish"
    tables = [p.table for p in running(nodes)]
    assert all(t.hides() and t.match is not None and t.match.is_over() for t in tables)
    assert len({t.digest() for t in tables}) == 1
    assert len({tuple(t.match.totals) for t in tables if t.match}) == 1
    assert net.biggest <= MAX_DATAGRAM
    for t in tables:  # every round audited, no fault, and its scores are the full replay's
        assert t.audited and all(h.outcome is not None and not h.outcome.faults for h in t.audited)
        scores = [h.outcome.scores for h in t.audited if h.outcome]
        assert t.match is not None and scores == t.match.round_scores
    assert not any(events(n, "fault") for n in nodes)
    assert not any(r.startswith("internal") for p in running(nodes) for r in p.dropped)


def _view_check(nodes: list[Node], held_ever: dict[str, set[int]]) -> None:
    """What each machine holds opens exactly its own seats' cards and the public ones."""
    for node in nodes:
        peer = node.peer
        if peer is None or peer.table.hidden is None or peer.table.hidden.stage != PLAY:
            continue
        t, h, side = peer.table, peer.table.hidden, peer.side
        mine = {s for s, seat in enumerate(t.seats) if t.holder(s, peer.leader) == peer.key}
        held_ever[node.name] |= {slot for s in mine for slot in h.hands[s]}
        if side.round is not h:
            continue
        for slot in range(h.spec.size):
            openable = not side.ring.missing(slot)
            if openable:
                assert slot in held_ever[node.name] or slot in h.public, (node.name, slot)
        state: Any = t.match.state if t.match else None
        for s, hand in enumerate(state.hands if state else []):
            if s in mine:
                continue
            for pos, card in enumerate(hand):
                assert card.up == 0 or state.known[s][pos], (node.name, s, pos, card)


def test_each_machine_can_open_exactly_the_cards_its_seats_may_see_at_every_step() -> None:
    """The cheater's own view: after every datagram and timer of a whole match, every key a
    machine has received opens only slots its seats hold (or held), or cards shown to all; and its
    view of the table holds no other seat's card that was not shown."""
    net = SimNet(7, Faults(loss=0.1, dup=0.1, reorder=0.1))
    nodes = hidden_table(net, 4, 3, 1)
    held: dict[str, set[int]] = {n.name: set() for n in nodes}
    last_round: dict[str, Any] = {}
    checks = 0
    while not all_over(net) and net.now < 600:
        assert net.step()
        for n in nodes:
            h = n.peer.table.hidden if n.peer else None
            if h is not None and last_round.get(n.name) is not h:
                last_round[n.name], held[n.name] = h, set()
        _view_check(nodes, held)
        checks += 1
    assert all_over(net) and checks > 1000


def leak_seat0_keys(leak: Peer, to: Node) -> None:
    """Make ``leak`` also send its keys for seat 0's hand to ``to`` (a routing bug, or a cheat)."""
    real = leak.side._send_keys

    def leaky(table: Any, h: Any, sequencer: bytes | None) -> None:
        real(table, h, sequencer)
        dealing = leak.side.dealings.get(0)
        if to.peer is not None and dealing is not None:
            items = [(slot, dealing.layer.keys[slot]) for slot in h.hands[0]]
            for bundle in bundles_for(leak.identity, h.table_id, h.round_no, to.peer.key, items):
                leak.side.outbox.send.append((to.peer.key, bundle))

    leak.side._send_keys = leaky  # type: ignore[method-assign]


def test_the_view_check_sees_keys_sent_to_the_wrong_member() -> None:
    """The control of the test above: when the other two members (seat 0's holder among them)
    also send their keys for seat 0's hand to the third machine, the check finds it; one member
    alone leaking its keys opens nothing (every slot needs every member's key)."""
    net = SimNet(8)
    nodes = hidden_table(net, 3, 3)
    assert nodes[0].peer is not None and nodes[2].peer is not None
    leak_seat0_keys(nodes[2].peer, nodes[1])
    held: dict[str, set[int]] = {n.name: set() for n in nodes}
    assert net.run(lambda: bool(nodes[0].peer and nodes[0].peer.table.match), limit=60)
    for _ in range(300):  # one member's leak alone: nothing opens
        net.step()
        _view_check(nodes, held)
    leak_seat0_keys(nodes[0].peer, nodes[1])
    nodes[0].peer.side.sent.clear()
    with pytest.raises(AssertionError):
        while not all_over(net) and net.now < 300:
            net.step()
            _view_check(nodes, held)


def _until_play(net: SimNet, nodes: list[Node]) -> None:
    assert net.run(lambda: all(p.table.hidden is not None and p.table.hidden.stage == PLAY
                               and p.table.match is not None and p.table.match.state.phase == "play"
                               for p in running(nodes)), limit=120)


def test_a_show_with_a_forged_proof_is_refused_and_never_reaches_the_log() -> None:
    net = SimNet(9)
    nodes = hidden_table(net, 3, 3)
    cheat = nodes[1].peer
    assert cheat is not None
    cheat.auto = None  # it plays by hand: keep, then the forged move below
    assert net.run(lambda: cheat.table.match is not None and cheat.side.knows_hand(cheat.table, 1), limit=60)
    net.propose(nodes[1], "keep")
    _until_play(net, nodes)
    t = cheat.table
    h = t.hidden
    assert h is not None and t.match is not None
    seat = t.seat_of(cheat.key)
    assert seat is not None
    slot = h.hands[seat][0]
    truth = cheat.side.proofs(h, h.shown(seat, scout.Show(0, 0)))
    assert truth
    wrong = (truth[0].card + 1) % len(h.points)
    forged = PublicOpen(slot, wrong, truth[0].key)  # claims another card with the slot's real key
    payload = payloads.play_payload(seat, "show:0", [forged])
    assert "does not hold" in t.refusal(cheat.key, payload)  # what every machine's rules say
    cheat._refused_here = lambda head: False  # type: ignore[method-assign]  # past its own check
    cheat._propose(payload)
    net.handle(nodes[1], cheat.timer(net.now))
    net.run_for(2.0)
    sequencer = nodes[0].peer
    assert sequencer is not None and sequencer.dropped["refused by the rules"] >= 1
    for node in nodes:  # the sequencer never appends it: nothing of it in the log, no card shown
        applied = [e for e in events(node, "applied")
                   if e["kind"] == "keys" and e["author"] == cheat.key.hex()]
        assert not applied, applied
        assert node.peer is not None and node.peer.table.hidden is not None
        assert slot not in node.peer.table.hidden.public


def test_a_member_that_deals_with_another_seed_than_it_committed_to_is_named_and_the_round_is_void() -> None:
    net = SimNet(10)
    nodes = hidden_table(net, 3, 3)
    cheat = nodes[2].peer
    assert cheat is not None
    real = cheat.side.seed_for
    calls = {"n": 0}

    def two_faced(h: Any) -> bytes:
        calls["n"] += 1
        seed = real(h)
        first = calls["n"] == 1 or h.round_no > 0
        return seed if first else new_seed(bytes(64))  # commits to one seed, deals with another

    cheat.side.seed_for = two_faced  # type: ignore[method-assign]
    assert net.run(lambda: all_over(net), limit=900), "the match did not go on to its end"
    for node in nodes:
        faults = events(node, "fault")
        assert faults and faults[0]["member"] == cheat.key.hex(), faults
        assert "p2" in faults[0]["text"] and cheat.key.hex()[:8] in faults[0]["text"]
        assert events(node, "round_void")
    table = nodes[0].peer.table if nodes[0].peer else None
    assert table is not None and table.seats[2].controller == "cpu"
    assert table.match is not None and table.match.round_scores[0] != [0, 0, 0]  # round 1 dealt again


def test_a_member_that_restarts_in_the_middle_of_a_round_opens_its_hand_again_and_plays_on() -> None:
    net = SimNet(11, Faults(loss=0.1))
    nodes = hidden_table(net, 3, 3)
    _until_play(net, nodes)
    net.run_for(0.05)
    net.crash(nodes[1])
    net.run_for(0.3)
    net.resume(nodes[1], auto="random", bots="random")
    assert net.run(lambda: all_over(net), limit=900)
    assert not any(events(n, "fault") or events(n, "round_void") for n in nodes)
    tables = [p.table for p in running(nodes)]
    assert len({t.digest() for t in tables}) == 1


def test_a_member_gone_for_good_is_rebuilt_from_the_escrow_and_its_seat_plays_on_in_the_same_round() -> None:
    """A machine dies in the middle of a round: its seat is taken over, the others publish their
    shares of its seed, every machine rebuilds its keys, a computer player plays the seat on, and the
    round is played to its end and scored: nothing is void, nobody is named."""
    net = SimNet(12)
    nodes = hidden_table(net, 3, 3)
    _until_play(net, nodes)
    h = nodes[0].peer.table.hidden if nodes[0].peer else None
    round_at_crash = h.round_no if h is not None else -1
    net.crash(nodes[2])
    assert net.run(lambda: all(p.table.phase == "over" for p in running(nodes)), limit=900)
    gone = nodes[2].identity.key
    for node in nodes[:2]:
        assert not events(node, "round_void") and not events(node, "fault")
        assert [e for e in events(node, "applied") if e["kind"] == "takeover" and e["ok"]]
        peer = node.peer
        assert peer is not None and peer.table.audited and peer.table.match is not None
        first = next(h for h in peer.table.audited if h.round_no == round_at_crash)
        assert gone in first.members and gone in first.recovered and first.outcome is not None
        assert not first.outcome.faults and first.outcome.scores in peer.table.match.round_scores
        assert all(gone not in h.members for h in peer.table.audited if h.round_no > round_at_crash)
    assert nodes[0].peer and nodes[1].peer and nodes[0].peer.table.digest() == nodes[1].peer.table.digest()


def _named(nodes: list[Node], cheat: Peer, code: str, void: bool = True) -> None:
    """Every machine names ``cheat`` (by name and key) with a fault of ``code``; its seat is a computer
    player's; the round it spoiled is void (a cheat the audit found), or played on and scored (a
    withholder: its seed is rebuilt from the others' escrow shares); the match still ends."""
    for node in nodes:
        if node.peer is None:
            continue
        faults = events(node, "fault")
        assert faults and faults[0]["member"] == cheat.key.hex() and faults[0]["code"] == code, faults
        assert cheat.key.hex()[:8] in faults[0]["text"]
        assert bool(events(node, "round_void")) == void
        seat = node.peer.table.seat_of(cheat.key)
        assert seat is None  # its seat is a computer player's for good


def _drop_kind(peer: Peer, kind: str) -> None:
    """``peer`` never proposes entries of ``kind`` (a modified client)."""
    real = peer.side.step

    def step(*args: Any, **kw: Any) -> Any:
        todo = real(*args, **kw)
        todo.propose = [p for p in todo.propose if p[0] != kind]
        return todo

    peer.side.step = step  # type: ignore[method-assign]


def _withhold_keys_from(cheat: Peer, victim: Peer) -> None:
    """``cheat`` sends ``victim`` none of its keys and ignores its requests."""
    real_send, real_secret = cheat.side._send_keys, cheat.side.secret

    def send(table: Any, h: Any, sequencer: bytes | None) -> None:
        real_send(table, h, sequencer)
        cheat.side.outbox.send = [(to, item) for to, item in cheat.side.outbox.send if to != victim.key]

    def secret(table: Any, sender: bytes, item: Any, sequencer: bytes | None) -> None:
        if sender != victim.key or not isinstance(item, Want) or item.step != -1:
            real_secret(table, sender, item, sequencer)

    cheat.side._send_keys = send  # type: ignore[method-assign]
    cheat.side.secret = secret  # type: ignore[method-assign]


def test_a_member_that_withholds_its_seed_at_the_audit_is_named() -> None:
    net = SimNet(13)
    nodes = hidden_table(net, 3, 3)
    cheat = nodes[2].peer
    assert cheat is not None
    _drop_kind(cheat, "seed")
    assert net.run(lambda: all(p.table.phase == "over" for p in running(nodes)), limit=1800)
    _named(nodes, cheat, "withheld", void=False)


def test_a_member_that_withholds_keys_is_accused_in_the_log_and_named_when_it_does_not_answer() -> None:
    net = SimNet(14)
    nodes = hidden_table(net, 3, 3)
    cheat, victim = nodes[2].peer, nodes[1].peer
    assert cheat is not None and victim is not None
    _withhold_keys_from(cheat, victim)
    _drop_kind(cheat, "keys")  # nor does it put them in the log when accused
    assert net.run(lambda: all(p.table.phase == "over" for p in running(nodes)), limit=1800)
    _named(nodes, cheat, "withheld", void=False)
    assert any(e["kind"] == "fault" and e["ok"] and e["author"] == victim.key.hex()
               for e in events(nodes[0], "applied"))  # the holder's accusation came first


def test_a_member_accused_of_withholding_keys_answers_in_the_log_and_is_not_named() -> None:
    net = SimNet(15)
    nodes = hidden_table(net, 3, 3)
    cheat, victim = nodes[2].peer, nodes[1].peer
    assert cheat is not None and victim is not None
    _withhold_keys_from(cheat, victim)  # lost on the way, say: but it answers the accusation
    assert net.run(lambda: all_over(net), limit=1800)
    assert not any(events(n, "fault") or events(n, "round_void") for n in nodes)
    assert any(e["kind"] == "keys" and e["ok"] and e["author"] == cheat.key.hex() and e["summary"] == "keys"
               for e in events(nodes[0], "applied"))  # its keys went through the log


def test_a_wrong_key_stops_the_round_and_the_audit_names_its_sender() -> None:
    net = SimNet(16)
    nodes = hidden_table(net, 3, 3)
    cheat, victim = nodes[2].peer, nodes[1].peer
    assert cheat is not None and victim is not None
    real = cheat.side._send_keys

    def wrong(table: Any, h: Any, sequencer: bytes | None) -> None:
        real(table, h, sequencer)
        out = []
        for to, item in cheat.side.outbox.send:
            if to == victim.key and h.round_no == 0:
                items = list(item.items)
                items[0] = (items[0][0], cheat.side.dealings[0].layer.keys[(items[0][0] + 1) % h.spec.size])
                item = bundles_for(cheat.identity, h.table_id, h.round_no, to, items)[0]
            out.append((to, item))
        cheat.side.outbox.send = out

    cheat.side._send_keys = wrong  # type: ignore[method-assign]
    assert net.run(lambda: all(p.table.phase == "over" for p in running(nodes)), limit=1800)
    _named(nodes, cheat, "key")


def test_peek_on_each_machines_store_finds_exactly_the_cards_its_seats_hold() -> None:
    """The cheater's own view, from the store alone (what `cardtable peek` prints): in the middle of
    a round, each machine's seeds and kept bundles open exactly the hands of the seats it holds
    (its own; the sequencer's also the computer player's); after the match, every round audited."""
    from cardtable.p2p.hidden.peek import peek
    from cardtable.p2p.table import TableState

    net = SimNet(17, Faults(loss=0.1))
    nodes = hidden_table(net, 4, 3, 1)
    _until_play(net, nodes)
    assert net.run(lambda: all(p.side.knows_hand(p.table, p.table.seat_of(p.key) or 0)
                               for p in running(nodes)), limit=60)
    for node in nodes:
        peer = node.peer
        assert peer is not None
        stored = node.store.load()
        table = TableState()
        for raw in stored.entries[:peer.commit_index]:
            table.apply(wire_entry(raw))
        views = peek(table, stored.meta)
        view = views[-1]
        mine = {s for s in range(4) if table.holder(s, peer.leader) == peer.key}
        expected = {slot for s in mine for slot in view.hands[s]}
        assert set(view.opened) - set(view.public) == expected - set(view.public), (node.name, mine)
        seat = peer.table.seat_of(peer.key)
        assert seat is not None and peer.table.match is not None and peer.table.hidden is not None
        hand = peer.table.match.state.hands[seat]
        slots = peer.table.hidden.hands[seat]
        assert [c.pair for c in hand] == [scout.parse_card(view.opened[s]).pair if s in view.opened
                                          else c.pair for s, c in zip(slots, hand, strict=True)]
    assert net.run(lambda: all_over(net), limit=900)
    stored = nodes[1].store.load()
    table = TableState()
    for raw in stored.entries[:nodes[1].peer.commit_index if nodes[1].peer else 0]:
        table.apply(wire_entry(raw))
    assert all(v.audited for v in peek(table, stored.meta))


def wire_entry(raw: bytes) -> Any:
    from cardtable.p2p.wire import decode_entry

    return decode_entry(raw)


def test_the_computer_players_stay_with_the_machine_fixed_for_the_round_when_the_sequencer_changes() -> None:
    """The sequencer (the host, whose machine plays the computer player) crashes and comes back; a
    new sequencer is elected meanwhile. The computer player's cards do not move with the sequencer
    role: the new sequencer's machine can open none of them, every computer move is the host's."""
    net = SimNet(18, Faults(loss=0.05))
    nodes = hidden_table(net, 4, 3, 1)
    _until_play(net, nodes)
    first = next(n for n in nodes if n.peer is not None and n.peer.is_sequencer)
    net.crash(first)
    assert net.run(lambda: any(p.is_sequencer for p in running(nodes)), limit=30)
    new = next(p for p in running(nodes) if p.is_sequencer)
    net.run_for(1.0)
    net.resume(first, auto="random", bots="random")
    checked = 0
    while not all_over(net) and net.now < 900:
        assert net.step()
        h = new.table.hidden
        if h is not None and h.stage == PLAY and new.side.round is h:
            hidden = [slot for slot in h.hands[3] if slot not in h.public]
            assert all(new.side.ring.missing(slot) for slot in hidden), "the new sequencer opened cpu cards"
            checked += 1
    assert all_over(net) and checked > 100
    assert not any(events(n, "fault") or events(n, "round_void") for n in nodes)
    cpu_moves = {e["author"] for e in events(nodes[1], "applied")
                 if e["ok"] and str(e["summary"]).startswith(("act 3 ", "keys"))
                 and str(e["summary"]).split()[1] == "3"}
    assert cpu_moves == {first.identity.key.hex()}, "the computer player moved with the sequencer"
    dealt = events(nodes[1], "dealt")  # every screen is told whose machine sees the computer players' cards
    assert dealt and all(f"{first.name}'s machine plays the computer players" in e["text"] for e in dealt)
    tables = [p.table for p in running(nodes)]
    assert len({t.digest() for t in tables}) == 1
