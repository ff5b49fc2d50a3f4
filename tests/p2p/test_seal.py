"""The passphrase seal: Argon2id keys per table salt, every datagram encrypted and authenticated.

Argon2id derivations take about 0.1 s each: the simulated matches here derive once per table
(``seal.derive`` caches), and the flood test counts derivations with a stand-in KDF.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import msgpack
import nacl.pwhash.argon2id as argon2id
import pytest

from cardtable.engine import scout, solo
from cardtable.p2p import seal, wire
from cardtable.p2p.discovery import Discovery, TableHeard, encode_beacon
from cardtable.p2p.identity import Identity
from cardtable.p2p.peer import BROADCAST
from cardtable.p2p.simnet import Faults, SimNet
from tests.p2p import all_over, build, check_replicas, live

PASSPHRASE = "correct horse battery staple"
LOSSY = Faults(loss=0.15, dup=0.1, reorder=0.1)


def test_the_key_is_argon2id_of_the_passphrase_with_the_tables_own_salt() -> None:
    one, two = b"\x01" * 16, b"\x02" * 16
    a, b = seal.for_table(PASSPHRASE, one), seal.for_table(PASSPHRASE, two)
    assert a is not None and b is not None
    assert a.salt == seal.table_salt(one) != b.salt == seal.table_salt(two)
    assert len(a.salt) == 16 and a.salt != one
    assert a.key != b.key  # one passphrase, two tables: two keys
    expected = argon2id.kdf(32, PASSPHRASE.encode(), a.salt, opslimit=argon2id.OPSLIMIT_INTERACTIVE,
                            memlimit=argon2id.MEMLIMIT_INTERACTIVE)
    assert a.key == expected
    assert seal.OPSLIMIT >= argon2id.OPSLIMIT_INTERACTIVE and seal.MEMLIMIT >= argon2id.MEMLIMIT_INTERACTIVE
    hits = seal.derive.cache_info().hits
    assert seal.for_table(PASSPHRASE, one) is a and seal.derive.cache_info().hits == hits + 1  # derived once
    assert seal.for_table(None, one) is None


NAMES = ("ann-in-the-kitchen", "bob-on-the-porch", "cy-in-the-attic")


def _match(passphrase: str | None) -> SimNet:
    """A three-peer SCOUT match at 15% loss, every datagram recorded (names long enough that
    finding them in the capture by chance is out of the question)."""
    net = SimNet(21, LOSSY, record=True)
    nodes = [net.node(name) for name in NAMES]
    host = net.host(nodes[0], scout.Config(players=3), 0, auto="random", bots="random", passphrase=passphrase)
    assert host.table_id is not None
    for node in nodes[1:]:
        net.join(node, host.table_id, nodes[0].addr, auto="random", bots="random", passphrase=passphrase)
    assert net.run(lambda: all_over(net), limit=600)
    return net


@pytest.fixture(scope="module")
def sealed_match() -> Iterator[SimNet]:
    yield _match(PASSPHRASE)


def _captured(net: SimNet) -> list[tuple[Any, Any, bytes]]:
    assert net.trace is not None
    return [(src, dst, data) for _, src, dst, data in net.trace]


def _secrets(net: SimNet) -> dict[str, bytes]:
    """What an outsider must not read: the table's name and id, every member key, every move."""
    host = live(net)[0]
    assert host.table_id is not None
    assert host.table.name == NAMES[0]
    found = {"table id": host.table_id}
    found.update({f"name {name}": name.encode() for name in NAMES})
    found.update({f"key {p.key.hex()[:8]}": p.key for p in live(net)})
    acts = [e.decoded.payload for e in host.log if e.decoded.kind == "act"]
    assert len(acts) > 20
    found.update({f"move {p}": wire.pack(p) for p in acts[:40]})
    return found


def test_a_passphrase_match_on_the_simulated_lan_finishes_with_equal_digests(sealed_match: SimNet) -> None:
    check_replicas(sealed_match)
    for peer in live(sealed_match):
        assert peer.pass_key is not None and peer.pass_key.salt == seal.table_salt(peer.table_id or b"")
        assert not peer.dropped["passphrase"]


def test_a_captured_datagram_shows_only_the_head_and_the_salt(sealed_match: SimNet) -> None:
    captured = _captured(sealed_match)
    host = live(sealed_match)[0]
    salt = seal.table_salt(host.table_id or b"")
    assert any(dst == BROADCAST for _, dst, _ in captured)  # beacons too
    for _, _, data in captured:
        assert data[:4] == wire.MAGIC + bytes((wire.VERSION, wire.FLAG_SEALED)) and data[4:20] == salt
    stream = b"\x00".join(data for _, _, data in captured)
    assert [what for what, needle in _secrets(sealed_match).items() if needle in stream] == []


def test_without_a_passphrase_the_same_search_finds_everything() -> None:
    """The search above can fail: in clear, every secret it looks for is there."""
    net = _match(None)
    stream = b"\x00".join(data for _, _, data in _captured(net))
    secrets = _secrets(net)
    assert [what for what, needle in secrets.items() if needle in stream] == list(secrets)


def test_changing_any_byte_is_dropped_and_counted(sealed_match: SimNet) -> None:
    src, dst, data = max(((s, d, x) for s, d, x in _captured(sealed_match) if d != BROADCAST),
                         key=lambda c: len(c[2]))
    target = sealed_match.nodes[dst].peer
    assert target is not None and len(data) > 200

    def state() -> tuple[Any, ...]:
        drops = sum(target.dropped.values())
        return target.term, target.commit_index, len(target.log), dict(target.addrs), drops

    before = state()
    for i in range(len(data)):
        for flip in (0x01, 0x80):
            mutated = bytearray(data)
            mutated[i] ^= flip
            with pytest.raises(wire.WireError):
                wire.decode(bytes(mutated), target.pass_key)
            target.receive(bytes(mutated), src, sealed_match.now)
    after = state()
    assert after[:4] == before[:4]
    assert after[4] == before[4] + 2 * len(data)
    assert not any(r.startswith("internal") for r in target.dropped)
    assert target.dropped["passphrase"] >= 2 * (len(data) - 20)  # all but the head and salt fail the AEAD


def test_a_wrong_passphrase_can_neither_read_nor_inject(sealed_match: SimNet) -> None:
    peers = live(sealed_match)
    host, member = peers[0], peers[1]
    assert host.table_id is not None and host.pass_key is not None
    wrong = seal.derive("correct horse battery stapler", host.pass_key.salt)
    for _, _, data in _captured(sealed_match)[:50]:
        with pytest.raises(wire.WireError, match="passphrase"):
            wire.decode(data, wrong)
    # A message the table would accept (a member's own signature, a fresh stamp), sealed with the
    # wrong key: dropped before anything looks at it.
    fields = [host.table_id, member.key, host.term + 5, 10**6, host.term + 5, bytes(32)]
    forged = wire.encode(wire.VOTE_ASK, fields, member.identity.sign, wrong, stamp=2**62)
    right = wire.encode(wire.VOTE_ASK, fields, member.identity.sign, host.pass_key, stamp=2**62)
    assert isinstance(wire.decode(right, host.pass_key).msg, wire.VoteAsk)  # the control
    term, drops = host.term, host.dropped["passphrase"]
    src = next(n.addr for n in sealed_match.nodes.values() if n.peer is member)
    host.receive(forged, src, sealed_match.now)
    assert host.term == term and host.dropped["passphrase"] == drops + 1


def test_the_largest_datagrams_still_fit_with_the_seal() -> None:
    """Long names, a big config and a catch-up of a whole match packed into APPENDs: the seal's
    56 bytes come out of the body's budget (the simulator refuses anything over 1200 bytes)."""
    net = SimNet(13, Faults(loss=0.1, dup=0.1, reorder=0.1))
    config = solo.Config.preset("anniversary", 5, threshold=1)
    nodes = [net.node("N" * 40 + str(i)) for i in range(4)]
    host = net.host(nodes[0], config, 1, auto="random", bots="random", passphrase=PASSPHRASE)
    assert host.table_id is not None
    for node in nodes[1:]:
        net.join(node, host.table_id, nodes[0].addr, auto="random", bots="random", passphrase=PASSPHRASE)
    assert net.run(lambda: all_over(net), limit=600)
    late = nodes[3]
    late.peer = None
    net.rejoin(late, host.table_id, nodes[0].addr, auto="random", bots="random", passphrase=PASSPHRASE)
    assert net.run(lambda: len({p.commit_index for p in live(net)}) == 1, limit=30)
    check_replicas(net)
    assert wire.MAX_DATAGRAM - 120 < net.biggest <= wire.MAX_DATAGRAM
    # and the budget the sequencer packs by is an upper bound with the seal
    key = seal.for_table(PASSPHRASE, host.table_id)
    me = Identity.from_seed(b"m" * 32)
    head = [host.table_id, me.key, wire.MAX_INT, wire.MAX_INT, wire.MAX_INT, wire.MAX_INT]
    addrs = [[me.key, "255.255.255.255", 65535]] * 9
    raw = host.raw[:60]
    data = wire.encode_append(head, raw, addrs, me.sign, key, stamp=wire.MAX_INT)
    assert len(data) <= wire.append_overhead(head, addrs, key) + sum(len(r) for r in raw)


def test_resume_keeps_the_salt_and_the_match_goes_on() -> None:
    net = SimNet(5, LOSSY)
    nodes = build(net, scout.Config(players=3), 3, 0, passphrase=PASSPHRASE)
    assert net.run(lambda: all(p.table.phase == "playing" and p.commit_index > 20 for p in live(net)),
                   limit=120)
    victim = nodes[0]
    assert victim.peer is not None
    before = victim.peer.pass_key
    net.crash(victim)
    net.run_for(3)
    back = net.resume(victim, auto="random", bots="random", passphrase=PASSPHRASE)
    assert back.pass_key == before and before is not None
    assert net.run(lambda: all_over(net), limit=600)
    check_replicas(net)


# --- listening for beacons ------------------------------------------------------------------------


def _beacon(table_id: bytes, name: str, who: Identity, passphrase: str | None, stamp: int) -> bytes:
    return _sealed(table_id, name, who, seal.for_table(passphrase, table_id), stamp)


def _sealed(table_id: bytes, name: str, who: Identity, key: seal.Seal | None, stamp: int) -> bytes:
    config = {"game": "scout", "players": 3}
    beacon = wire.Beacon(table_id, who.key, 1, name, config, 1, 3, 7000, "lobby")
    return encode_beacon(beacon, who.sign, key, stamp)


def test_a_listener_opens_the_beacons_its_passphrase_opens_and_counts_the_others() -> None:
    who = Identity.from_seed(b"h" * 32)
    mine = _beacon(b"\x03" * 16, "kitchen", who, PASSPHRASE, 1)
    other = _beacon(b"\x04" * 16, "attic", who, "another passphrase", 2)
    clear = _beacon(b"\x05" * 16, "porch", who, None, 3)
    for data in (mine, other):
        assert b"kitchen" not in data and b"attic" not in data and who.key not in data
    with_it = Discovery(PASSPHRASE)
    for now in (1.0, 2.0, 3.0):  # beacons come once a second: a salt is tried when heard again
        for data in (mine, other, clear):
            with_it.receive(data, ("10.0.0.9", 1), now)
        assert [t.name for t in with_it.tables()] == ([] if now == 1.0 else ["kitchen"])
    assert with_it.dropped["salt heard once"] == 2
    assert with_it.locked(3.0) == 1 and with_it.locked(3.0 + 2 * with_it.ttl) == 0
    assert with_it.refused(3.0) == 1  # attic's salt failed at 2.0 and 3.0: another passphrase
    without = Discovery()
    for now in (1.0, 2.0):
        for data in (mine, other, clear):
            without.receive(data, ("10.0.0.9", 1), now)
        # a salt heard once is no table yet (anyone can send one)
        assert without.locked(now) == (0 if now == 1.0 else 2)
    assert [t.name for t in without.tables()] == ["porch"]
    # a joiner's node holds its table's key only: it tells a wrong passphrase from a silent table
    key = seal.for_table(PASSPHRASE, b"\x03" * 16)
    assert key is not None
    node = Discovery(PASSPHRASE, derive=False)
    node.keys.pin(key)
    node.receive(mine, ("10.0.0.9", 1), 1.0)
    assert not node.shut(key.salt, 1.0) and [t.name for t in node.tables()] == ["kitchen"]
    wrong = _sealed(b"\x03" * 16, "kitchen", who, seal.Seal(key.salt, bytes(32)), 4)
    for now in (2.0, 3.0, 4.5):
        assert node.receive(wrong, ("10.0.0.9", 1), now) is None
        assert not node.shut(key.salt, now)  # its beacons opened at 1.0: the failures are a stranger's
    assert node.receive(wrong, ("10.0.0.9", 1), 5.5) is None
    assert node.shut(key.salt, 5.5) and not node.shut(key.salt, 5.5 + 2 * node.ttl)


def test_a_listener_bounds_the_derivations_a_stranger_makes_it_do(monkeypatch: pytest.MonkeyPatch) -> None:
    """Beacons with ever-new salts: none derived until heard again; salts heard again, at most
    DERIVE_BURST derivations at once, then one per DERIVE_EVERY seconds; at most KEYRING_SIZE
    keys held; a table already opened stays open."""
    calls: list[bytes] = []
    who = Identity.from_seed(b"r" * 32)
    real_key = seal.for_table(PASSPHRASE, b"\x06" * 16)
    other_key = seal.for_table(PASSPHRASE, b"\x07" * 16)
    assert real_key is not None

    def kdf(size: int, secret: bytes, salt: bytes, opslimit: int, memlimit: int) -> bytes:
        """A stand-in (the real key for the real table), so that hundreds of salts cost nothing."""
        calls.append(salt)
        if salt == real_key.salt:
            return real_key.key
        return hashlib.blake2b(secret + salt, digest_size=size).digest()

    real = _sealed(b"\x06" * 16, "real", who, real_key, 1)
    later = {i: _sealed(b"\x06" * 16, "real", who, real_key, 2 + i) for i in range(0, 3000, 50)}
    monkeypatch.setattr(seal.argon2id, "kdf", kdf)
    monkeypatch.setattr(seal, "derive", seal.derive.__wrapped__)  # no process-wide cache either
    rng = random.Random(3)
    disc = Discovery(PASSPHRASE)

    def junk(now: float) -> None:
        salt = rng.randbytes(seal.SALT_BYTES)
        data = wire.MAGIC + bytes((wire.VERSION, wire.FLAG_SEALED)) + salt + rng.randbytes(200)
        assert disc.receive(data, ("10.0.0.66", 1), now) is None

    for i in range(1000):  # a burst of new salts, each heard once: no derivation at all
        junk(i / 1000)
    assert calls == [] and disc.dropped["salt heard once"] == 1000
    assert disc.receive(real, ("10.0.0.7", 1), 1.0) is None  # heard once: not yet worth a key
    heard: TableHeard | None = disc.receive(real, ("10.0.0.7", 1), 2.0)  # again, a beacon later
    assert heard is not None and heard.name == "real" and len(calls) == 1
    derived = len(calls)
    salts = [rng.randbytes(seal.SALT_BYTES) for _ in range(3000)]
    for i in range(3000):  # a minute of 50 made-up salts a second, each heard again a second later
        now = 2.0 + i / 50
        for salt in (salts[i], salts[i - 50]):
            data = wire.MAGIC + bytes((wire.VERSION, wire.FLAG_SEALED)) + salt + rng.randbytes(200)
            assert disc.receive(data, ("10.0.0.66", 1), now) is None
        if i in later:
            assert disc.receive(later[i], ("10.0.0.7", 1), now) is not None  # no new derivation for it
    assert len(calls) - derived <= seal.DERIVE_BURST + 60 / seal.DERIVE_EVERY + 1
    assert len(disc.keys) <= seal.KEYRING_SIZE
    assert disc.locked(now) <= 64
    # a playing node's discovery derives nothing: it opens its own table's beacons only
    quiet = Discovery(PASSPHRASE, derive=False)
    quiet.keys.pin(real_key)
    beacons = [_sealed(b"\x07" * 16, "x", who, other_key, 1), _sealed(b"\x06" * 16, "real", who, real_key, 1),
               _sealed(b"\x07" * 16, "x", who, other_key, 2)]  # (sealing one derives its name key)
    before = len(calls)
    assert quiet.receive(beacons[0], ("10.0.0.7", 1), 0.0) is None
    assert quiet.receive(beacons[1], ("10.0.0.7", 1), 0.0) is not None
    assert quiet.receive(beacons[2], ("10.0.0.7", 1), 1.0) is None
    assert len(calls) == before and quiet.dropped["salt heard once"] == 1 and quiet.dropped["busy"] == 1


def test_a_sealed_datagram_of_arbitrary_bytes_is_a_wire_error() -> None:
    key = seal.for_table(PASSPHRASE, b"\x01" * 16)
    assert key is not None
    rng = random.Random(9)
    head = wire.MAGIC + bytes((wire.VERSION, wire.FLAG_SEALED))
    for n in (0, 1, 20, 39, 40, 55, 56, 57, 300, 1200 - 20):
        for data in (head + key.salt + rng.randbytes(n), head + rng.randbytes(n)):
            with pytest.raises(wire.WireError):
                wire.decode(data, key)
            with pytest.raises(wire.WireError):
                wire.decode(data, None)
    assert wire.sealed_salt(head + key.salt + bytes(40)) == key.salt
    assert wire.sealed_salt(wire.frame(msgpack.packb([1]), None)) is None


def test_nonces_change_nothing_a_seeded_run_decides(sealed_match: SimNet) -> None:
    """Nonces come from the OS, not the peers' seeded streams: the same seed plays the same
    match, datagram for datagram; only the ciphertexts differ."""
    again = _match(PASSPHRASE)
    first, second = _captured(sealed_match), _captured(again)
    assert [(s, d, len(x)) for s, d, x in first] == [(s, d, len(x)) for s, d, x in second]
    assert all(x != y for (_, _, x), (_, _, y) in zip(first, second, strict=True))
    assert [p.raw for p in live(sealed_match)] == [p.raw for p in live(again)]


def test_a_restart_says_when_the_passphrase_is_missing_or_not_wanted(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The store records whether the table has a passphrase; host/join resuming it without
    one (or with one for a table without) is a one-line error, not a peer nobody hears."""
    from cardtable.cli.main import main
    from cardtable.p2p.node import Home
    from cardtable.p2p.peer import Peer

    for passphrase, given, words in ((PASSPHRASE, [], "with a passphrase: give its --passphrase"),
                                     (None, ["--passphrase", "pw"], "without a passphrase: resume it")):
        home = Home(tmp_path / ("sealed" if passphrase else "clear"))
        identity = home.identity()
        peer = Peer.host(identity, home.store(), scout.Config(players=3), "attic", 0, now=0.0, seed=b"s" * 32,
                         passphrase=passphrase)
        stored = home.stored(identity.key)
        assert stored is not None and stored.resumable and stored.passphrase is (passphrase is not None)
        del peer
        with pytest.raises(SystemExit) as done:
            main(["host", "scout", "--name", "attic", "--auto", "random", "--home", str(home.path), *given])
        assert done.value.code == 1
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and "the unfinished table 'attic'" in err[0] and words in err[0], err
    again = Peer.resume(home.identity(), home.store(), now=1.0, seed=b"t" * 32, passphrase=None)
    assert again.pass_key is None
