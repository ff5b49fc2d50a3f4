"""Hidden hands at a SOLO table on the simulated LAN: the members deal the round and every
reshuffle together, the dealer's machine turns the setup card with its proof, drawn, gifted and
swapped cards are opened by their new holder only, the round is audited (docs/hidden-hands.md)."""

from __future__ import annotations

from typing import Any

import pytest

from cardtable.engine import solo
from cardtable.p2p.hidden import payloads
from cardtable.p2p.hidden.opening import PublicOpen
from cardtable.p2p.hidden.round import PLAY
from cardtable.p2p.hidden.solo_round import TURN
from cardtable.p2p.peer import Timeouts
from cardtable.p2p.simnet import Faults, Node, SimNet
from cardtable.p2p.wire import MAX_DATAGRAM
from tests.p2p import all_over
from tests.p2p.test_hidden_table import leak_seat0_keys

ANNIVERSARY = {"edition": "anniversary", "gifts": True, "protection": True, "multiples": True}


def solo_table(net: SimNet, players: int, peers: int, cpu: int = 0, auto: list[str | None] | None = None,
               **options: Any) -> list[Node]:
    nodes = [net.node(f"p{i}") for i in range(peers)]
    autos = auto or ["random"] * peers
    config = solo.Config(players=players, rounds=1, **options)
    host = net.host(nodes[0], config, cpu, auto=autos[0], bots="random", deal="hidden")
    for node, a in zip(nodes[1:], autos[1:], strict=True):
        assert host.table_id is not None
        net.join(node, host.table_id, nodes[0].addr, auto=a, bots="random")
    return nodes


def moves_of(node: Node) -> list[tuple[int, str]]:
    """The moves applied at ``node``'s table: (seat, text)."""
    t = node.peer.table if node.peer else None
    return [(m.seat, m.action) for h in (t.audited if t else []) for m in h.moves]


@pytest.mark.parametrize("seed,players,peers,cpu,rate,options", [
    (1, 2, 2, 0, 0.1, {}), (2, 3, 3, 0, 0.1, {}), (3, 4, 3, 1, 0.1, {}), (4, 4, 4, 0, 0.1, ANNIVERSARY),
])
def test_a_hidden_solo_match_finishes_audited_with_one_public_table(
        seed: int, players: int, peers: int, cpu: int, rate: float, options: dict[str, Any]) -> None:
    net = SimNet(seed, Faults(loss=rate, dup=rate, reorder=rate))
    nodes = solo_table(net, players, peers, cpu, **options)
    assert net.run(lambda: all_over(net), limit=900), "the match did not finish"
    tables = [n.peer.table for n in nodes if n.peer]
    assert all(t.hides() and t.match is not None and t.match.is_over() for t in tables)
    assert len({t.digest() for t in tables}) == 1
    assert len({tuple(t.match.totals) for t in tables if t.match}) == 1
    assert net.biggest <= MAX_DATAGRAM
    for t in tables:
        assert t.audited and all(h.outcome is not None and not h.outcome.faults for h in t.audited)
        assert [h.outcome.scores for h in t.audited if h.outcome] == t.match.round_scores
    assert not any(n.kinds("fault") for n in nodes)
    turns = [e for e in nodes[0].kinds("applied")
             if e["ok"] and e["summary"].endswith(f" {TURN} (with proofs)")]
    assert turns and all(e["seat"] in (0, None) and e["summary"].startswith("act 0 ") for e in turns), turns
    # round 0: seat 0 deals, its machine turns the setup card (again while it is not a number card)


def test_the_discard_pile_is_dealt_again_by_every_member_when_the_draw_pile_runs_out() -> None:
    net = SimNet(2, Faults(loss=0.1))
    nodes = solo_table(net, 3, 3)
    assert net.run(lambda: all_over(net), limit=900)
    for node in nodes:
        assert node.peer is not None
        (h,) = node.peer.table.audited
        assert len(h.specs) > 1, "no reshuffle in this match: pick a seed with one"
        assert all(d.complete for d in h.deals) and h.specs[1].first_slot == h.specs[0].size
        assert h.outcome is not None and not h.outcome.faults


def _check_views(nodes: list[Node], held: dict[bytes, set[int]]) -> int:
    """What each machine could open (all keys in) and what its view knows are the slots its seats
    hold or held as far as the log has gone on any machine, or cards shown to all. The number
    of machines checked."""
    peers = [n.peer for n in nodes if n.peer is not None]
    if len({p.table.hidden.round_no for p in peers if p.table.hidden is not None}) > 1:
        return 0
    shown: set[int] = set()
    for peer in peers:
        t, h = peer.table, peer.table.hidden
        if h is not None and h.stage == PLAY:
            shown |= set(h.public)
            for s in range(len(t.seats)):
                holder = t.holder(s, peer.leader)
                if holder is not None:
                    held.setdefault(holder, set()).update(h.seat_slots(s))
    checks = 0
    for peer in peers:
        h = peer.table.hidden
        if h is None or h.stage != PLAY or peer.side.round is not h:
            continue
        mine = held.get(peer.key, set()) | shown
        openable = {s for s in peer.side.ring.slots() if not peer.side.ring.missing(s)}
        assert openable <= mine, (peer.name, openable - mine)
        state: Any = peer.table.match.state if peer.table.match else None
        assert set(state.cards) <= mine, peer.name
        checks += 1
    return checks


def test_each_machine_opens_exactly_the_cards_its_seats_hold_or_held_at_every_step() -> None:
    """The cheater's own view for SOLO (anniversary: Gifts, Swap and Pass hands move cards between
    holders): after every datagram and timer, every slot a machine holds all keys for is one its
    seats hold or held, or was shown to all; its view knows no other card."""
    net = SimNet(11, Faults(loss=0.1, dup=0.1, reorder=0.1))
    nodes = solo_table(net, 4, 3, 1, **ANNIVERSARY)
    held: dict[bytes, set[int]] = {}
    checks = 0
    while not all_over(net) and net.now < 900:
        assert net.step()
        checks += _check_views(nodes, held)
    assert all_over(net) and checks > 1000


def test_the_view_check_sees_keys_sent_to_the_wrong_member() -> None:
    """The control: when both other members also send their keys for seat 0's hand to the third
    machine, the check above finds it."""
    net = SimNet(8)
    nodes = solo_table(net, 3, 3)
    assert nodes[0].peer is not None and nodes[2].peer is not None
    leak_seat0_keys(nodes[0].peer, nodes[1])
    leak_seat0_keys(nodes[2].peer, nodes[1])
    held: dict[bytes, set[int]] = {}
    with pytest.raises(AssertionError):
        while not all_over(net) and net.now < 300:
            net.step()
            _check_views(nodes, held)


def test_a_person_never_types_a_forced_move_their_machine_makes_it() -> None:
    """A seat with no bot (a person) whose only move is keep, decline, or the owed/clear answer only
    its machine can give: the machine proposes it; the person chooses every other move."""
    net = SimNet(5, Faults(loss=0.05))
    nodes = solo_table(net, 3, 3, auto=["random", None, "random"], **ANNIVERSARY)
    person = nodes[1]
    chosen = 0
    while not all_over(net) and net.now < 900:
        assert net.step()
        peer = person.peer
        t = peer.table if peer else None
        if peer is None or t is None or t.match is None or peer.queue or not peer._caught_up():
            continue
        seat = peer.my_seat
        if seat is None or t.match.to_move() != seat or not peer._sees_hand(seat):
            continue
        legal = [str(a) for a in t.match.legal_actions(seat)]
        if legal and not (len(legal) == 1 and legal[0] in t.hidden.forced):
            net.propose(person, legal[-1])
            chosen += 1
    assert all_over(net), "the match did not finish"
    forced = [a for s, a in moves_of(nodes[0]) if s == 1 and a in ("keep", "decline", "owed", "clear")]
    assert chosen > 10 and forced


def test_a_machine_tells_its_client_each_time_more_of_its_cards_open() -> None:
    """After the hand is in (``hand_open``), a drawn, gifted or swapped card opens later, when its
    keys come: the machine says so (``cards_open``), so that a client draws the hand again instead
    of waiting for the next entry (which, on the person's own turn, never comes)."""
    net = SimNet(2, Faults(loss=0.1))
    nodes = solo_table(net, 3, 3)
    assert net.run(lambda: all_over(net), limit=900)
    for node in nodes:
        first = next(t for t, e in node.events if e.kind == "hand_open")
        later = [t for t, e in node.events if e.kind == "cards_open" and t > first]
        assert len(later) >= 3, node.name


def test_a_play_that_names_another_card_than_its_proof_or_forges_the_proof_is_refused_everywhere() -> None:
    """A modified member, on its turn, plays a card of its hand (1) naming another card than the one
    its real proof opens, (2) naming the real card with a proof that claims another one, past its own
    machine's check: the sequencer appends neither (the rules refuse them, so their proofs never
    reach the log and no card is shown), and were they in the log every machine would refuse them;
    the round goes on."""
    net = SimNet(6)
    nodes = solo_table(net, 3, 3, auto=["random", None, "random"])
    cheat = nodes[1].peer
    assert cheat is not None
    assert net.run(lambda: cheat.table.match is not None and cheat.my_seat is not None
                   and cheat.table.match.to_move() == cheat.my_seat and cheat._sees_hand(cheat.my_seat)
                   and not cheat.queue, limit=120)
    cheat._refused_here = lambda head: False  # type: ignore[method-assign]
    seat = cheat.my_seat
    h = cheat.table.hidden
    assert h is not None
    proofs = {p.slot: p for p in cheat.side.proofs(h, list(h.hands[seat])) or []}
    coloured = [s for s, p in proofs.items() if h.card_text(p.card, 0)[:1] in "RGBY"]
    assert coloured, "no coloured card in the hand: pick another seed"
    slot = coloured[0]
    truth, real = proofs[slot], h.card_text(proofs[slot].card, 0)
    wrong_name = payloads.play_payload(seat, f"wild@{slot}:R", [truth])  # names a wild it does not hold
    other = next(s for s in proofs if s != slot)
    text, key = h.card_text(proofs[other].card, 0), proofs[other].key
    forged = PublicOpen(other, (proofs[other].card + 1) % len(h.points), key)
    named = f"{text}@{other}" + (":R" if text[:1] == "w" else "")
    forged_proof = payloads.play_payload(seat, named, [forged])
    table = cheat.table
    assert f"holds {real}, not wild" in table.refusal(cheat.key, wrong_name)  # what every machine says
    assert "does not hold" in table.refusal(cheat.key, forged_proof)
    cheat._propose(wrong_name)
    net.handle(nodes[1], cheat.timer(net.now))
    net.run_for(1.5)
    cheat.queue.clear()  # it gives up on it, and tries the other
    cheat._propose(forged_proof)
    net.handle(nodes[1], cheat.timer(net.now))
    net.run_for(1.5)
    sequencer = nodes[0].peer
    assert sequencer is not None and sequencer.is_sequencer and sequencer.dropped["refused by the rules"] >= 2
    for node in nodes:
        tried = [e for e in node.kinds("applied") if e["kind"] == "keys" and e["author"] == cheat.key.hex()]
        assert not tried, tried  # never in the log
        assert node.peer is not None and node.peer.table.hidden is not None
        assert slot not in node.peer.table.hidden.public and other not in node.peer.table.hidden.public
        assert node.peer.table.hidden.stage == PLAY and not node.kinds("fault")


@pytest.mark.parametrize("seed", [32, 33])
def test_a_refused_play_shows_no_card(seed: int) -> None:
    """Random players race jump-ins and play into pending penalties all the time. A move that shows
    cards reaches the log only when the rules allow it where it lands (the sequencer tries it first,
    once its log is all applied), so no refused move puts a card's proof in the log, and every card
    shown to all has left its player's hand (before, these two seeds logged 3 and 1 refused plays with
    their proofs). The computer players pause 0.3 s, so that people's (here: random) jump-ins race."""
    net = SimNet(seed, Faults(loss=0.05, reorder=0.05), timeouts=Timeouts(bot_delay=0.3))
    nodes = solo_table(net, 4, 4, **ANNIVERSARY)
    assert net.run(lambda: all_over(net), limit=900)
    raced = sum(1 for n in nodes for e in n.kinds("refused") if e["kind"] == "keys")
    raced += sum(n.peer.dropped["refused by the rules"] for n in nodes if n.peer)
    assert raced, "no play was refused: pick a seed with races"
    for node in nodes:
        refused = [e for e in node.kinds("applied") if e["kind"] == "keys" and not e["ok"]
                   and str(e["summary"]).endswith("(with proofs)")]
        assert not refused, refused[:3]
        for h in node.peer.table.audited if node.peer else []:  # every card shown to all left its hand
            assert not {slot for hand in h.hands for slot in hand} & set(h.public)
