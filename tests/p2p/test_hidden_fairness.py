"""Faults around the hidden deal never punish an honest member (docs/hidden-hands.md, section 7):
on a lossy, slow LAN with several holders waiting for keys at once, nobody honest is named, no
round is void and no seat changes hands; an accusation is answered in the log, each one, and the
sequencer names a member only when *that* accusation went unanswered for the timeout."""

from __future__ import annotations

from typing import Any

import pytest

from cardtable.engine import scout, solo
from cardtable.p2p.hidden import payloads
from cardtable.p2p.peer import Peer
from cardtable.p2p.simnet import Faults, Node, SimNet
from tests.p2p import all_over
from tests.p2p.test_hidden_table import _drop_kind, _withhold_keys_from, events, hidden_table, running


def table(net: SimNet, game: str, peers: int, bot: str = "heuristic") -> list[Node]:
    nodes = [net.node(f"p{i}") for i in range(peers)]
    config = scout.Config(players=peers) if game == "scout" else solo.Config(players=peers, rounds=1)
    host = net.host(nodes[0], config, 0, auto=bot, bots=bot, deal="hidden")
    for node in nodes[1:]:
        assert host.table_id is not None
        net.join(node, host.table_id, nodes[0].addr, auto=bot, bots=bot)
    return nodes


def accusations(node: Node) -> list[dict[str, Any]]:
    return [e for e in events(node, "applied") if e["kind"] == "fault" and e["ok"]]


def answers(node: Node, author: bytes | None = None) -> list[dict[str, Any]]:
    """The keys put in the log to answer accusations (by ``author``, if given)."""
    return [e for e in events(node, "applied") if e["kind"] == "keys" and e["summary"] == "keys" and e["ok"]
            and author in (None, bytes.fromhex(e["author"]))]


def keys_lost_to_two(seed: int) -> tuple[SimNet, list[Node], tuple[Peer, Peer, Peer]]:
    """Three machines; the third's keys never reach the other two (nor their asking again)."""
    net = SimNet(seed)
    nodes = hidden_table(net, 3, 3)
    member, first, second = nodes[2].peer, nodes[0].peer, nodes[1].peer
    assert member is not None and first is not None and second is not None
    _withhold_keys_from(member, first)
    _withhold_keys_from(member, second)
    return net, nodes, (member, first, second)


def honest_match(game: str, seed: int, loss: float, delay: tuple[float, float]) -> list[Node]:
    net = SimNet(seed, Faults(loss=loss, dup=loss / 2, reorder=loss, delay=delay))
    nodes = table(net, game, 4, "random")  # random play draws far more than people do: long rounds
    assert net.run(lambda: all_over(net), limit=1500), "the match did not finish"
    for node in nodes:
        assert not events(node, "fault"), events(node, "fault")
        assert not events(node, "round_void")
        assert node.peer is not None and [s.controller for s in node.peer.table.seats] == ["human"] * 4
    assert len({p.table.digest() for p in running(nodes)}) == 1
    return nodes


@pytest.mark.parametrize("game,loss,delay,seeds", [
    ("solo", 0.0, (0.001, 0.002), (0, 1)), ("solo", 0.1, (0.015, 0.045), (0, 2)),
    ("solo", 0.2, (0.001, 0.06), (1, 2)), ("solo", 0.3, (0.001, 0.06), (0, 2)),
    ("scout", 0.0, (0.001, 0.002), (0,)), ("scout", 0.1, (0.015, 0.045), (0,)),
    ("scout", 0.2, (0.001, 0.06), (1,)), ("scout", 0.3, (0.001, 0.06), (2,))])
def test_four_honest_machines_on_a_lossy_slow_lan_are_never_named(
        game: str, loss: float, delay: tuple[float, float], seeds: tuple[int, ...]) -> None:
    """0-30% loss (with as many reorders and half as many duplicates), 1-60 ms a datagram: every
    round is played and scored, nobody is named, every seat is its player's. SOLO, where the bug
    was, plays two seeds a case (before the patience was counted per slot, its cases at 10% and 30%
    named an honest member: they keep their seeds); SCOUT one a case. SOLO at 20% no longer plays
    seed 0, a round ten times as long as any other here (30 of the test's 78 CPU seconds)."""
    for seed in seeds:
        honest_match(game, seed, loss, delay)


def test_a_link_down_for_longer_than_the_patience_brings_accusations_that_are_answered() -> None:
    """The control of the test above: the link between two machines (neither the sequencer) is down
    for 15 s in the middle of a round, longer than the patience: holders do accuse, every accused
    member answers in the log, nobody is named, and the round is played and scored."""
    net = SimNet(5, Faults(loss=0.05))
    nodes = table(net, "solo", 4, "random")
    assert net.run(lambda: all(n.peer is not None and n.peer.table.hidden is not None
                               and n.peer.table.hidden.stage == "play" for n in nodes), limit=120)
    assert nodes[0].peer is not None and nodes[0].peer.is_sequencer
    net.partition([nodes[1]], [nodes[2]])
    net.run_for(15.0)
    net.heal()
    assert net.run(lambda: all_over(net), limit=1500)
    accused = accusations(nodes[0])
    assert accused, "no key was late: the link was not down long enough"
    assert len(answers(nodes[0])) >= len(accused)
    assert not any(events(n, "fault") or events(n, "round_void") for n in nodes)


def test_two_holders_accuse_one_member_and_both_accusations_are_answered() -> None:
    """The same member's keys fail to reach two holders (lost, say): each accuses it, and it answers
    each in the log; nobody is named (the bug of issue 35: only the first was answered)."""
    net, nodes, (slow, first, second) = keys_lost_to_two(15)
    assert net.run(lambda: all_over(net), limit=1800)
    assert not any(events(n, "fault") or events(n, "round_void") for n in nodes)
    accusers = {e["author"] for e in accusations(nodes[0])}
    assert accusers == {first.key.hex(), second.key.hex()}
    assert len(answers(nodes[0], slow.key)) >= 2


def test_a_member_is_named_only_once_the_unanswered_accusation_timed_out() -> None:
    """A member answers the first holder's accusation but not the second's: it is named for the
    second, no sooner than the timeout after that accusation went into the log."""
    net, nodes, (cheat, first, second) = keys_lost_to_two(14)
    real = cheat.side._answer_in_log

    def answer_first_only(table: Any, h: Any, sequencer: bytes | None, accuser: bytes) -> None:
        if accuser == first.key:
            real(table, h, sequencer, accuser)

    cheat.side._answer_in_log = answer_first_only  # type: ignore[method-assign]
    times: dict[str, float] = {}

    def watch() -> bool:
        for e in accusations(nodes[1]):
            times.setdefault(e["author"], net.now)
        if events(nodes[1], "fault"):
            times.setdefault("named", net.now)
        return "named" in times

    assert net.run(watch, limit=600)
    assert times["named"] >= times[second.key.hex()] + net.timeouts.reveal - 0.01
    faults = events(nodes[1], "fault")
    assert faults[0]["member"] == cheat.key.hex() and "keys" in faults[0]["text"]


def test_a_member_that_withholds_keys_from_two_holders_and_answers_none_is_named() -> None:
    net, nodes, (cheat, _, _) = keys_lost_to_two(16)
    _drop_kind(cheat, "keys")
    assert net.run(lambda: all(p.table.phase == "over" for p in running(nodes)), limit=1800)
    for node in nodes[:2]:
        faults = events(node, "fault")
        assert faults and faults[0]["member"] == cheat.key.hex() and faults[0]["code"] == "withheld"


# --- leaving never voids a round and never pays -------------------------------------------------------


def _in_play(net: SimNet, nodes: list[Node], moves: int = 6) -> None:
    """Run until every machine plays the round and ``moves`` moves are made."""
    def ready() -> bool:
        hs = [n.peer.table.hidden if n.peer is not None else None for n in nodes]
        return all(h is not None and h.stage == "play" and len(h.moves) >= moves for h in hs)
    assert net.run(ready, limit=120)


def _over(net: SimNet, nodes: list[Node]) -> bool:
    peers = [n.peer for n in nodes if n.peer is not None]
    return all(p.table.phase == "over" for p in peers) and len({p.commit_index for p in peers}) == 1


def test_a_player_who_leaves_mid_round_leaves_the_round_to_a_computer_player_and_it_is_scored() -> None:
    """SOLO, four machines: one leaves in the middle of the round. Its seed is rebuilt from the
    others' shares, a computer player plays its seat on (the discard pile is dealt again by the
    three left), and the round is played and scored: nothing void, nobody named, the same table on
    every machine."""
    net = SimNet(7, Faults(loss=0.05))
    nodes = table(net, "solo", 4, "random")
    _in_play(net, nodes)
    leaver = nodes[2]
    key = leaver.identity.key
    net.leave(leaver)
    stay = [n for n in nodes if n is not leaver]
    assert net.run(lambda: _over(net, stay), limit=1500)
    for node in stay:
        assert node.peer is not None
        t = node.peer.table
        assert not events(node, "fault") and not events(node, "round_void")
        (rebuild,) = _rebuilds(node)
        assert rebuild["facts"]["member"] == key.hex() and "p2 left" in rebuild["text"]
        (h,) = t.audited
        assert key in h.members and key in h.recovered and h.outcome is not None and not h.outcome.faults
        assert any(key not in spec.members for spec in h.specs[1:]), "no reshuffle after it left"
        assert t.match is not None and t.match.round_scores == [h.outcome.scores]
        seat = t.seat_of(key)
        assert seat is not None and t.seats[seat].controller == "bot"  # kept for it, played meanwhile
    assert len({n.peer.table.digest() for n in stay if n.peer}) == 1


def _rebuilds(node: Node) -> list[dict[str, Any]]:
    return [ev for e in events(node, "applied") if e["ok"] for ev in e.get("events", [])
            if ev.get("kind") == "rebuild"]


def test_a_player_who_leaves_at_the_audit_is_named_and_the_round_still_counts() -> None:
    """The round is decided; a member's machine does not show its seed and leaves: it is named for
    it, its seed is rebuilt from the shares, the audit runs and the round is scored as played."""
    net = SimNet(8)
    nodes = table(net, "scout", 4, "random")
    quitter = nodes[3]
    assert quitter.peer is not None
    _drop_kind(quitter.peer, "seed")
    assert net.run(lambda: quitter.peer is not None and quitter.peer.table.hidden is not None
                   and quitter.peer.table.hidden.stage == "reveal", limit=300)
    net.leave(quitter)
    stay = nodes[:3]
    assert net.run(lambda: all(n.peer is not None and n.peer.table.audited for n in stay), limit=120)
    key = quitter.identity.key
    for node in stay:
        assert node.peer is not None
        faults = events(node, "fault")
        assert faults and faults[0]["member"] == key.hex()
        assert "left at the end of the round" in faults[0]["text"]
        assert not events(node, "round_void")
        h = node.peer.table.audited[0]
        assert key in h.recovered and h.outcome is not None and not h.outcome.faults
        assert node.peer.table.match is not None and node.peer.table.match.round_scores[0] == h.outcome.scores
        assert node.peer.table.seat_of(key) is None  # named: its seat is a computer player's for good


def test_two_players_gone_in_one_round_void_it_and_the_void_says_who() -> None:
    """The escrow rebuilds one member at a time: when a second leaves in the same round, the round
    truly cannot go on, and the void line names the one who left and why."""
    net = SimNet(9)
    nodes = table(net, "scout", 4, "random")
    _in_play(net, nodes, moves=2)
    net.leave(nodes[2])
    net.run_for(0.05)
    net.leave(nodes[3])
    stay = nodes[:2]
    assert net.run(lambda: all(n.peer is not None and events(n, "round_void") for n in stay), limit=60)
    for node in stay:
        (void,) = events(node, "round_void")[:1]
        assert "p3 left" in void["text"] and "a second machine left" in void["text"], void
        assert not events(node, "fault")
    assert net.run(lambda: _over(net, stay), limit=1500)


# --- the escrow's own faults ------------------------------------------------------------------------


def test_a_false_complaint_about_an_escrow_share_names_nobody_and_the_dealer_shows_the_share() -> None:
    """A member says its sealed share of another's seed does not check, which only the two of them
    could tell: the dealer shows that share in the clear, everyone checks it, the complaint is
    settled, nobody is named and the match goes on."""
    net = SimNet(21)
    nodes = table(net, "scout", 4, "random")
    _in_play(net, nodes, moves=1)
    liar, dealer = nodes[1].peer, nodes[2].peer
    assert liar is not None and dealer is not None and liar.table.hidden is not None
    h = liar.table.hidden
    liar._propose(payloads.fault_payload(payloads.FaultEntry(h.round_no, dealer.key, "escrow", 0)))
    assert net.run(lambda: all_over(net), limit=600)
    shown = [e for e in events(nodes[0], "applied") if e["kind"] == "seed" and e["author"] == dealer.key.hex()
             and e["ok"] and e["index"] < _first_round_end(nodes[0])]
    assert shown, "the dealer did not show the questioned share"
    assert h.public_shares.get((dealer.key, liar.key))
    assert not any(events(n, "fault") or events(n, "round_void") for n in nodes)


def _first_round_end(node: Node) -> int:
    return next(e["index"] for e in events(node, "applied")
                if any(ev["kind"] == "round_end" for ev in e.get("events", [])))


def test_a_dealer_that_seals_a_wrong_share_and_will_not_show_it_is_named() -> None:
    """A modified dealer seals a share that does not check for one member and never shows it in the
    clear: the member's complaint stands, and the sequencer names the dealer."""
    net = SimNet(22)
    nodes = table(net, "scout", 4, "random")
    cheat, victim = nodes[2].peer, nodes[1].peer
    assert cheat is not None and victim is not None
    real = cheat.side.step

    def step(*args: Any, **kw: Any) -> Any:
        todo = real(*args, **kw)
        for payload in todo.propose:
            if payload[0] == "deal" and payload[4]:
                members = cheat.table.hidden.members if cheat.table.hidden else ()
                at = [m for m in members if m != cheat.key].index(victim.key) * 32
                payload[4] = payload[4][:at] + bytes(32) + payload[4][at + 32:]
        todo.propose = [p for p in todo.propose if not (p[0] == "seed" and len(p) == 4)]  # never shows it
        return todo

    cheat.side.step = step  # type: ignore[method-assign]
    assert net.run(lambda: all(events(n, "fault") for n in nodes[:2]), limit=120)
    complaints = [e for e in events(nodes[0], "applied") if e["kind"] == "fault" and e["ok"]
                  and e["author"] == victim.key.hex()]
    assert complaints, "the victim did not say its share does not check"
    for node in (nodes[0], nodes[1], nodes[3]):
        faults = events(node, "fault")
        assert faults[0]["member"] == cheat.key.hex(), faults


def test_at_a_table_of_this_release_a_deal_entry_without_its_escrow_is_refused() -> None:
    """Every dealer must escrow its seed (else leaving would void the round again): a modified
    member that sends its commitment without the escrow is refused, holds the deal up and is named;
    the deal goes on without it. A log written before wire 6 (no escrow) still replays."""
    net = SimNet(23)
    nodes = table(net, "scout", 4, "random")
    cheat = nodes[3].peer
    assert cheat is not None
    real = cheat.side.step

    def step(*args: Any, **kw: Any) -> Any:
        todo = real(*args, **kw)
        todo.propose = [p[:3] + [b"", b""] if p[0] == "deal" else p for p in todo.propose]
        return todo

    cheat.side.step = step  # type: ignore[method-assign]
    assert net.run(lambda: bool(events(nodes[0], "fault")), limit=60)
    refused = [e for e in events(nodes[0], "applied") if e["kind"] == "deal" and not e["ok"]]
    assert refused and refused[0]["reason"] == "an escrow of the wrong shape"
    assert events(nodes[0], "fault")[0]["member"] == cheat.key.hex()
    assert net.run(lambda: _over(net, nodes[:3]), limit=600)
    from cardtable.p2p.hidden.round import HiddenRound

    old = HiddenRound(b"t" * 16, None, b"s" * 32, 0, [b"a" * 32, b"b" * 32, b"c" * 32], [0, 1, 2], [])
    assert old.on_deal(b"a" * 32, payloads.DealEntry(0, b"c" * 32, [], [])) == ""  # before wire 6
    old.escrowed = True
    assert old.on_deal(b"b" * 32, payloads.DealEntry(0, b"c" * 32, [], [])) == "an escrow of the wrong shape"
