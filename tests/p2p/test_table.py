"""The table state machine on hand-made entries: lobby, seed agreement, moves, seat control."""

from __future__ import annotations

import hashlib
from typing import Any

from cardtable.engine import scout, solo
from cardtable.p2p import wire
from cardtable.p2p.identity import Identity
from cardtable.p2p.table import BOT, CPU, HUMAN, SEED_DOMAIN, TableState, commitment

TID = b"T" * 16
HOST, ANN, BOB, EVE = (Identity.from_seed(bytes([i]) * 32) for i in range(1, 5))


class Log:
    """Feeds signed entries to a table, the way committed entries reach it."""

    def __init__(self, sequencer: Identity = HOST) -> None:
        self.table = TableState()
        self.index = 0
        self.seqs: dict[bytes, int] = {}
        self.sequencer = sequencer

    def add(self, author: Identity, payload: list[Any], seq: int | None = None, inc: int = 1,
            table_id: bytes = TID) -> tuple[bool, str]:
        if seq is None:
            seq = self.seqs.get(author.key, 0) + 1
        self.seqs[author.key] = max(seq, self.seqs.get(author.key, 0))
        self.index += 1
        data = wire.Proposal(table_id, author.key, inc, seq, payload).pack()
        sig = author.sign(wire.proposal_signed(data))
        seq_sig = self.sequencer.sign(wire.entry_signed(TID, 1, self.index, data))
        entry = wire.Entry(1, self.index, data, sig, self.sequencer.key, seq_sig, wire.decode_proposal(data))
        done = self.table.apply(entry)
        return done.ok, done.reason


def lobby(players: int = 3, cpu: int = 0, config: Any = None) -> Log:
    log = Log()
    config = config or scout.Config(players=players)
    assert log.add(HOST, ["create", "t", config.to_dict(), cpu]) == (True, "")
    return log


def seeded(log: Log, people: list[Identity], salt: bytes = b"") -> dict[bytes, bytes]:
    nonces = {p.key: hashlib.sha256(salt + p.key).digest() for p in people}
    for p in people:
        assert log.add(p, ["commit", commitment(TID, p.key, nonces[p.key])])[0]
    for p in people:
        assert log.add(p, ["reveal", nonces[p.key]])[0]
    return nonces


def test_create_and_join_until_full() -> None:
    log = lobby(players=4, cpu=1)
    t = log.table
    assert t.phase == "lobby" and t.table_id == TID and t.name == "t"
    assert [s.controller for s in t.seats] == [HUMAN, HUMAN, HUMAN, CPU]
    assert log.add(ANN, ["join", "ann"]) == (True, "")
    assert log.add(ANN, ["join", "ann"]) == (False, "already seated")
    assert log.add(BOB, ["join", "bob"])[0]
    assert t.phase == "seeding" and t.seat_of(BOB.key) == 2 and t.seats[2].name == "bob"
    assert log.add(EVE, ["join", "eve"]) == (False, "the table is full or started")
    assert t.members() == [HOST.key, ANN.key, BOB.key]


def test_a_lobby_leave_frees_the_seat() -> None:
    log = lobby(players=3)
    log.add(ANN, ["join", "ann"])
    assert log.add(ANN, ["leave"])[0]
    assert log.table.seats[1].owner is None and log.table.phase == "lobby"
    assert log.add(EVE, ["join", "eve"])[0] and log.table.seat_of(EVE.key) == 1


def test_only_create_starts_a_table_and_only_once() -> None:
    log = Log()
    assert log.add(ANN, ["join", "ann"]) == (False, "the table is not created yet")
    log = lobby()
    assert not log.add(ANN, ["create", "x", scout.Config(players=2).to_dict(), 0])[0]
    bad = Log()
    assert bad.add(HOST, ["create", "t", {"game": "scout", "players": 9}, 0])[1].startswith("bad config")
    assert bad.add(HOST, ["create", "t", {"game": "scout", "players": 2}, 2])[0] is False


def test_seed_agreement() -> None:
    log = lobby(players=3)
    log.add(ANN, ["join", "ann"])
    log.add(BOB, ["join", "bob"])
    t = log.table
    nonce = b"n" * 32
    assert log.add(HOST, ["reveal", nonce]) == (False, "not in the reveal stage of the seed agreement")
    assert log.add(EVE, ["commit", b"h" * 32]) == (False, "no seat in the seed agreement")
    assert log.add(HOST, ["commit", commitment(TID, HOST.key, nonce)])[0]
    assert log.add(HOST, ["commit", b"h" * 32]) == (False, "already committed")
    assert log.add(ANN, ["commit", commitment(TID, ANN.key, b"a" * 32)])[0]
    assert log.add(BOB, ["commit", commitment(TID, BOB.key, b"b" * 32)])[0]
    assert t.stage == "reveal"
    assert log.add(HOST, ["reveal", b"x" * 32]) == (False, "the nonce does not match the commitment")
    assert log.add(ANN, ["reveal", nonce]) == (False, "the nonce does not match the commitment")
    for who, n in ((HOST, nonce), (ANN, b"a" * 32), (BOB, b"b" * 32)):
        assert log.add(who, ["reveal", n])[0]
    assert t.phase == "playing" and t.match is not None
    assert t.seed == hashlib.sha256(SEED_DOMAIN + TID + nonce + b"a" * 32 + b"b" * 32).digest()
    assert t.match.seed == t.seed


def test_a_seat_that_never_reveals_is_forfeited_and_the_draw_stands() -> None:
    log = lobby(players=3)
    log.add(ANN, ["join", "ann"])
    log.add(BOB, ["join", "bob"])
    for who in (HOST, ANN, BOB):
        log.add(who, ["commit", commitment(TID, who.key, who.key)])
    assert log.add(ANN, ["forfeit", 2]) == (False, "only the sequencer forfeits a seat")
    log.add(HOST, ["reveal", HOST.key])
    log.add(ANN, ["reveal", ANN.key])
    assert log.add(HOST, ["forfeit", 0]) == (False, "that seat is not holding up the seed agreement")
    assert log.add(HOST, ["forfeit", 2]) == (True, "")
    t = log.table
    assert t.phase == "playing" and t.seats[2].controller == CPU and t.seats[2].owner is None
    assert t.seed == hashlib.sha256(SEED_DOMAIN + TID + HOST.key + ANN.key).digest()
    assert log.add(BOB, ["reveal", BOB.key])[0] is False  # too late: nothing is re-rolled


def test_a_seat_that_never_commits_is_forfeited() -> None:
    log = lobby(players=2)
    log.add(ANN, ["join", "ann"])
    log.add(HOST, ["commit", commitment(TID, HOST.key, b"h" * 32)])
    assert log.add(HOST, ["forfeit", 1])[0]
    assert log.table.stage == "reveal"
    assert log.add(HOST, ["reveal", b"h" * 32])[0]
    assert log.table.phase == "playing"
    assert log.table.members() == [HOST.key, ANN.key]  # still a member; just no seat


def playing(config: Any = None, cpu: int = 1) -> Log:
    config = config or scout.Config(players=3)
    log = lobby(config=config, cpu=cpu)
    people = [HOST, ANN, BOB][: config.players - cpu]
    for p in people[1:]:
        log.add(p, ["join", "p"])
    seeded(log, people)
    assert log.table.phase == "playing"
    return log


def test_actions_only_for_seats_the_author_controls_and_only_legal() -> None:
    log = playing()
    t = log.table
    match = t.match
    assert match is not None
    mover = match.to_move()
    assert mover is not None
    before = match.digest()
    other = (mover + 1) % 3
    owner = (HOST, ANN, HOST)[mover]  # seat 2 is the CPU seat, played by the sequencer (HOST)
    stranger = ANN if owner is HOST else HOST
    legal = str(match.legal_actions(mover)[0])
    assert log.add(stranger, ["act", mover, legal]) == (False, f"the author does not control seat {mover}")
    assert log.add(owner, ["act", mover, "no such move"])[0] is False
    assert match.digest() == before
    assert log.add(owner, ["act", other, str(match.legal_actions(mover)[0])])[0] is False
    assert match.digest() == before
    assert log.add(owner, ["act", 9, legal]) == (False, "there is no seat 9")
    assert log.add(owner, ["act", mover, legal]) == (True, "")
    assert match.digest() != before


def test_the_cpu_seat_is_played_by_the_entry_s_sequencer_only() -> None:
    log = playing()
    match = log.table.match
    assert match is not None
    while match.to_move() != 2:
        seat = match.to_move()
        assert seat is not None
        assert log.add((HOST, ANN)[seat], ["act", seat, str(match.legal_actions(seat)[0])])[0]
    move = str(match.legal_actions(2)[0])
    assert log.add(ANN, ["act", 2, move])[1] == "the author does not control seat 2"
    assert log.add(HOST, ["act", 2, move]) == (True, "")


def test_takeover_and_return() -> None:
    log = playing()
    t = log.table
    assert log.add(ANN, ["takeover", 0]) == (False, "only the sequencer takes a seat over")
    assert log.add(HOST, ["takeover", 2]) == (False, "that seat cannot be taken over")
    assert log.add(HOST, ["takeover", 1]) == (True, "")
    assert t.seats[1].controller == BOT and t.seat_of(ANN.key) == 1
    assert log.add(HOST, ["return", 1]) == (False, "that seat is not the author's to take back")
    assert log.add(ANN, ["return", 1]) == (True, "")
    assert t.seats[1].controller == HUMAN


def test_leave_in_play_keeps_the_seat_for_its_owner_and_a_computer_player_plays_it() -> None:
    log = playing()
    assert log.add(ANN, ["leave"])[0]
    t = log.table
    assert t.seats[1].controller == BOT and t.seat_of(ANN.key) == 1 and ANN.key not in t.members()
    assert t.away_seat(ANN.key) == 1 and t.away_seat(HOST.key) is None
    # not back yet: it acts for its seat no more than another member does
    assert log.add(ANN, ["return", 1]) == (False, "that seat is not the author's to take back")
    assert log.add(ANN, ["act", 1, "S"])[1] == "the author does not control seat 1"
    assert log.add(HOST, ["return", 1]) == (False, "that seat is not the author's to take back")
    assert log.add(EVE, ["join", "eve"]) == (False, "the table is full or started")
    assert t.refusal(ANN.key, ["return", 1]) and t.refusal(HOST.key, ["return", 1])


def test_a_member_that_left_comes_back_with_a_join_and_takes_its_seat_with_return() -> None:
    log = playing()
    t = log.table
    assert log.add(ANN, ["leave"])[0]
    assert log.add(ANN, ["join", "ann again"], inc=2) == (True, "")
    assert ANN.key in t.members() and t.seats[1].controller == BOT
    assert t.seats[1].name == "p"  # its name as it sat down
    assert t.away_seat(ANN.key) is None and t.refusal(ANN.key, ["return", 1]) == ""
    assert log.add(ANN, ["return", 1], inc=2) == (True, "")
    assert t.seats[1].controller == HUMAN and t.seat_of(ANN.key) == 1


def test_a_leave_in_the_seed_agreement_keeps_the_seat_and_drops_its_commitment() -> None:
    log = lobby(players=2)
    assert log.add(ANN, ["join", "ann"])[0]
    t = log.table
    assert log.add(ANN, ["commit", commitment(TID, ANN.key, b"n" * 32)])[0]
    assert log.add(ANN, ["leave"])[0]
    assert t.seats[1].controller == BOT and 1 not in t.commits and t.away_seat(ANN.key) == 1


def test_only_the_sequencer_says_who_is_not_answering() -> None:
    log = playing()
    assert log.add(ANN, ["silent", 1, 12]) == (False, "only the sequencer says who is not answering")
    position = log.table.position
    assert log.add(HOST, ["silent", 1, 12]) == (True, "")
    assert log.table.position == position  # a notice: no new position for the bots
    assert log.add(HOST, ["takeover", 1])[0]
    assert log.add(HOST, ["silent", 1, 20]) == (False, "that seat is not played by a person")


def test_exactly_once_per_author_incarnation_and_seq() -> None:
    log = lobby(players=3)
    assert log.add(ANN, ["join", "ann"], seq=5)[0]
    assert log.add(ANN, ["leave"], seq=5) == (False, "duplicate")
    assert log.add(ANN, ["leave"], seq=4) == (False, "duplicate")
    assert log.table.seat_of(ANN.key) == 1
    assert log.add(ANN, ["leave"], seq=1, inc=2)[0]  # a new incarnation counts afresh


def test_other_tables_and_odd_payloads_change_nothing() -> None:
    log = lobby(players=3)
    assert log.add(ANN, ["join", "ann"], table_id=b"X" * 16) == (False, "another table")
    assert log.add(ANN, ["fly", 1]) == (False, "malformed payload")
    assert log.add(ANN, ["noop"]) == (False, "only a sequencer marks its term")
    assert log.table.seat_of(ANN.key) is None


def test_two_replicas_agree() -> None:
    config = solo.Config.preset("anniversary", 3, threshold=1)
    a, b = playing(config, cpu=0), playing(config, cpu=0)
    assert a.table.match is not None and b.table.match is not None
    assert a.table.match.digest() == b.table.match.digest()


def test_the_tables_name_is_not_the_hosts() -> None:
    """``host --name kitchen`` names the table; the host's own seat has the host's name."""
    from cardtable.engine import scout
    from cardtable.p2p.simnet import SimNet

    net = SimNet(1)
    node = net.node("h")
    peer = net.host(node, scout.Config(players=3), 2, auto="random", bots="random", player="quinn")
    assert net.run(lambda: peer.table.match is not None, limit=30)
    assert peer.table.name == "h" and peer.table.seats[0].name == "quinn"
    other = net.host(net.node("kitchen"), scout.Config(players=3), 2, auto="random", bots="random")
    assert net.run(lambda: other.table.match is not None, limit=30)
    assert other.table.seats[0].name == "kitchen"  # no name given: the table's, as before
