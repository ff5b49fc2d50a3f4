"""The host's lobby controls (start now, free a seat, change the options) and the rematch: on
hand-made entries (every rule, every refusal) and on the simulated LAN (every machine agrees)."""

from __future__ import annotations

import hashlib
from typing import Any

import pytest

from cardtable.engine import scout, solo
from cardtable.p2p import wire
from cardtable.p2p.simnet import Node, SimNet
from cardtable.p2p.table import CPU, HUMAN, TableState, commitment
from tests.p2p import all_over, check_replicas
from tests.p2p.test_table import ANN, BOB, EVE, HOST, TID, lobby, seeded

# --- the rules, on hand-made entries ---------------------------------------------------------------


def test_start_now_gives_the_free_seats_to_computer_players_and_begins_the_seed_agreement() -> None:
    log = lobby(players=4)
    assert log.add(ANN, ["join", "ann"])[0]
    assert log.add(ANN, ["start"]) == (False, "only the host does that")
    assert log.add(HOST, ["start"]) == (True, "")
    t = log.table
    assert t.phase == "seeding" and [s.controller for s in t.seats] == [HUMAN, HUMAN, CPU, CPU]
    assert log.add(EVE, ["join", "eve"]) == (False, "the table is full or started")
    assert log.add(HOST, ["start"]) == (False, "the lobby is closed: the match has begun")
    seeded(log, [HOST, ANN])
    assert t.phase == "playing" and t.match is not None and t.match.config.players == 4


def test_free_a_seat_only_the_host_only_another_member_only_in_the_lobby() -> None:
    log = lobby(players=4)
    log.add(ANN, ["join", "ann"])
    log.add(BOB, ["join", "bob"])
    assert log.add(ANN, ["free", 2]) == (False, "only the host does that")
    assert log.add(HOST, ["free", 0]) == (False, "no other member holds that seat")
    assert log.add(HOST, ["free", 3]) == (False, "no other member holds that seat")
    assert log.add(HOST, ["free", 9]) == (False, "no other member holds that seat")
    assert log.add(HOST, ["free", 1]) == (True, "")
    t = log.table
    assert t.seats[1].owner is None and t.members() == [HOST.key, BOB.key] and t.phase == "lobby"
    assert log.add(ANN, ["act", 1, "x"])[0] is False
    assert log.add(EVE, ["join", "eve"])[0] and t.seat_of(EVE.key) == 1
    assert log.add(ANN, ["join", "ann"])[0] and t.phase == "seeding"
    assert log.add(HOST, ["free", 1]) == (False, "the lobby is closed: the match has begun")


def test_options_change_the_config_and_keep_the_people_seated() -> None:
    log = lobby(players=5)
    log.add(ANN, ["join", "ann"])
    log.add(BOB, ["join", "bob"])
    log.add(HOST, ["free", 1])  # seats: host, free, bob, free, free
    t = log.table
    assert log.add(BOB, ["options", {"game": "scout", "players": 3}, 0]) == (False, "only the host does that")
    assert log.add(HOST, ["options", {"game": "scout", "players": 9}, 0])[1].startswith("bad config")
    assert log.add(HOST, ["options", {"game": "solo", "players": 4}, 0]) == \
        (False, "the game of a table stays the same")
    assert log.add(HOST, ["options", {"game": "scout", "players": 3}, 2]) == \
        (False, "2 people are seated: keep at least as many human seats")
    assert log.add(HOST, ["options", {"game": "scout", "players": 4}, 1]) == (True, "")
    assert t.config.players == 4 and t.phase == "lobby"
    assert [(s.owner, s.controller) for s in t.seats] == \
        [(HOST.key, HUMAN), (None, HUMAN), (BOB.key, HUMAN), (None, CPU)]
    assert log.add(HOST, ["options", {"game": "scout", "players": 3}, 1]) == (True, "")  # bob moves up
    assert [s.owner for s in t.seats] == [HOST.key, BOB.key, None] and t.seats[1].name == "bob"
    assert t.phase == "seeding" and t.roster.members == {HOST.key: 0, BOB.key: 1}


def test_malformed_controls_are_refused_and_change_nothing() -> None:
    log = lobby(players=3)
    log.add(ANN, ["join", "ann"])
    before = [(s.owner, s.controller) for s in log.table.seats]
    for payload in (["start", 1], ["free"], ["free", "1"], ["free", -1], ["options", {"game": "scout"}],
                    ["options", "scout", 0], ["options", {"game": "scout", "players": 3}, -1],
                    ["options", {"game": "scout", "players": 3}, 0, 1], ["rematch", 1]):
        assert log.add(HOST, payload) == (False, "malformed payload"), payload
    assert log.add(HOST, ["options", {"game": "scout"}, 0])[1].startswith("bad config")
    assert [(s.owner, s.controller) for s in log.table.seats] == before and log.table.phase == "lobby"


def test_a_rematch_begins_once_every_person_agreed_with_a_new_seed() -> None:
    log = lobby(players=2)
    log.add(ANN, ["join", "ann"])
    seeded(log, [HOST, ANN])
    t = log.table
    assert log.add(HOST, ["rematch"]) == (False, "the match is not over")
    _finish(log, t)
    first = t.seed
    assert log.add(EVE, ["rematch"]) == (False, "no seat of the author's plays")
    assert log.add(HOST, ["rematch"]) == (True, "") and t.phase == "over"
    assert log.add(HOST, ["rematch"]) == (False, "already agreed")
    assert log.add(ANN, ["rematch"]) == (True, "")
    assert t.phase == "seeding" and t.match is None and t.match_no == 1 and len(t.past) == 1
    used = commitment(TID, HOST.key, hashlib.sha256(HOST.key).digest())  # the first match's (``seeded``)
    assert log.add(HOST, ["commit", used]) == (False, "a commitment of an earlier match")
    seeded(log, [HOST, ANN], b"again")
    assert t.phase == "playing" and t.seed not in (None, first)


def _finish(log: Any, t: TableState) -> None:
    """Play the open match out with its first legal moves."""
    seats = {0: HOST, 1: ANN}
    while t.match is not None and not t.match.is_over():
        seat = t.match.to_move()
        assert seat is not None
        assert log.add(seats[seat], ["act", seat, str(t.match.legal_actions(seat)[0])])[0]
    assert t.phase == "over"


# --- on the simulated LAN --------------------------------------------------------------------------


def control(net: SimNet, node: Node, name: str, *args: Any) -> list[dict[str, Any]]:
    """Call a lobby control of ``node``'s peer now; the reasons it was refused at once."""
    assert node.peer is not None
    before = len(node.kinds("refused"))
    net.handle(node, getattr(node.peer, name)(*args, net.now))
    return node.kinds("refused")[before:]


def seated(net: SimNet, count: int) -> bool:
    return all(len(p.table.roster.members) == count and p.commit_index == p.log_length for p in net.peers())


def table_of(config: Any, net: SimNet, joiners: int, deal: str = "hidden") -> list[Node]:
    nodes = [net.node(f"p{i}") for i in range(joiners + 1)]
    host = net.host(nodes[0], config, 0, auto="random", bots="random", deal=deal)
    for node in nodes[1:]:
        assert host.table_id is not None
        net.join(node, host.table_id, nodes[0].addr, auto="random", bots="random")
    assert net.run(lambda: seated(net, joiners + 1), limit=60)
    return nodes


@pytest.mark.parametrize("seed,deal", [(1, "hidden"), (2, "open")])
def test_the_host_starts_early_and_computer_players_fill_the_empty_seats(seed: int, deal: str) -> None:
    net = SimNet(seed)
    nodes = table_of(scout.Config(players=4), net, 1, deal)
    assert control(net, nodes[1], "start_now") == [{"index": None, "kind": "start",
                                                    "reason": "only the host does that"}]
    assert control(net, nodes[0], "start_now") == []
    assert net.run(lambda: all_over(net), limit=600), "the match did not finish"
    tables = [p.table for p in net.peers()]
    assert all([s.controller for s in t.seats] == [HUMAN, HUMAN, CPU, CPU] for t in tables)
    assert len({t.digest() for t in tables}) == 1
    assert all(t.hides() == (deal == "hidden") for t in tables)
    if deal == "open":
        check_replicas(net)


def test_a_joiner_s_controls_are_refused_on_every_machine() -> None:
    net = SimNet(3)
    nodes = table_of(scout.Config(players=4), net, 2)
    joiner = nodes[1]
    assert [r["reason"] for r in control(net, joiner, "free_seat", 2)] == ["only the host does that"]
    assert [r["reason"] for r in control(net, joiner, "set_options", scout.Config(players=3), 0)] == \
        ["only the host does that"]
    # a modified joiner's proposal: the sequencer refuses it by the rules
    net.inject(nodes[0].addr, _proposal(joiner, ["start"]), joiner.addr)
    net.run_for(1)
    assert nodes[0].peer is not None and nodes[0].peer.dropped["refused by the rules"] == 1
    # a modified sequencer appends it anyway: every machine refuses it, nothing changes
    nodes[0].peer._out_of_bounds = lambda p: ""  # type: ignore[method-assign]
    net.inject(nodes[0].addr, _proposal(joiner, ["free", 2]), joiner.addr)
    net.run_for(2)
    for n in nodes:
        done = [a for a in n.kinds("applied") if a["kind"] == "free"]
        assert [(a["ok"], a["reason"]) for a in done] == [(False, "only the host does that")], n.name
        assert n.peer is not None and n.peer.table.phase == "lobby" and len(n.peer.table.members()) == 3


def _proposal(node: Node, payload: list[Any]) -> bytes:
    """A PROPOSE of ``payload`` signed by ``node``'s key, past its own machine's checks."""
    peer = node.peer
    assert peer is not None and peer.table_id is not None
    data = wire.Proposal(peer.table_id, peer.key, peer.incarnation, peer.next_seq, payload).pack()
    peer.next_seq += 1
    return wire.encode_propose(peer.table_id, data, node.identity.sign(wire.proposal_signed(data)), None)


def test_freeing_a_seat_in_the_lobby_tells_the_freed_member() -> None:
    net = SimNet(4)
    nodes = table_of(scout.Config(players=4), net, 2)
    assert control(net, nodes[0], "free_seat", 2) == []
    assert net.run(lambda: nodes[2].peer is not None and nodes[2].peer.left and all(
        n.peer is not None and n.peer.table.seats[2].owner is None for n in nodes[:2]), limit=30)
    assert nodes[2].kinds("freed") == [{"seat": 2}]
    for n in nodes[:2]:
        assert n.peer is not None and n.peer.table.seats[2].owner is None
        assert n.peer.table.roster.members == {nodes[0].identity.key: 0, nodes[1].identity.key: 1}


def test_changed_options_show_on_every_machine_and_the_match_plays_with_them() -> None:
    net = SimNet(5)
    nodes = table_of(solo.Config(players=4), net, 1)
    config = solo.Config(players=3, pool=200, threshold=200)
    assert control(net, nodes[0], "set_options", config, 1) == []
    assert net.run(lambda: all_over(net), limit=900), "the match did not finish"
    for p in net.peers():
        assert p.table.config == config and [s.controller for s in p.table.seats] == [HUMAN, HUMAN, CPU]
        assert p.table.match is not None and p.table.match.config == config
    assert len({p.table.digest() for p in net.peers()}) == 1
    assert any("the host set the options" in str(e) for e in _texts(nodes[1]))


def _texts(node: Node) -> list[str]:
    return [e["text"] for a in node.kinds("applied") if a["ok"] for e in a["events"]]


@pytest.mark.parametrize("seed,deal", [(6, "hidden"), (7, "open")])
def test_a_rematch_starts_only_when_everyone_agreed_and_every_machine_plays_it(seed: int, deal: str) -> None:
    net = SimNet(seed)
    nodes = table_of(scout.Config(players=3), net, 1, deal)
    control(net, nodes[0], "start_now")
    assert net.run(lambda: all_over(net), limit=600)
    first = {p.table.digest() for p in net.peers()}
    assert len(first) == 1
    assert control(net, nodes[0], "agree_rematch") == []
    net.run_for(5)
    assert all(p.table.phase == "over" and p.table.rematch == [nodes[0].identity.key] for p in net.peers())
    assert control(net, nodes[0], "agree_rematch")[0]["reason"] == "already agreed"
    assert control(net, nodes[1], "agree_rematch") == []
    assert net.run(lambda: all(p.table.match_no == 1 for p in net.peers()) and all_over(net), limit=600)
    tables = [p.table for p in net.peers()]
    assert len({t.digest() for t in tables}) == 1 and {t.digest() for t in tables} != first
    assert all(len(t.past) == 1 and t.past[0].is_over() for t in tables)
    assert all([s.controller for s in t.seats] == [HUMAN, HUMAN, CPU] for t in tables)
    assert all(n.kinds("new_match") == [{"match": 1}] for n in nodes)
    assert len({tuple(p.raw[:p.commit_index]) for p in net.peers()}) == 1  # one log, both matches
    replay = TableState()
    assert nodes[0].peer is not None
    for entry in nodes[0].peer.log[:nodes[0].peer.commit_index]:
        replay.apply(entry)
    assert replay.match_no == 1 and replay.digest() == tables[0].digest()
