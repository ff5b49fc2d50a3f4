"""The datagram codec: round trips, framing, the passphrase tag, and hostile input."""

from __future__ import annotations

from typing import Any

import msgpack
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cardtable.p2p import seal, wire
from cardtable.p2p.identity import Identity
from cardtable.p2p.wire import WireError

ME = Identity.from_seed(b"w" * 32)
TID = b"t" * 16


def proposal(payload: list[object], seq: int = 1, author: Identity = ME) -> tuple[bytes, bytes]:
    data = wire.Proposal(TID, author.key, 7, seq, payload).pack()
    return data, author.sign(wire.proposal_signed(data))


def entry(payload: list[object], index: int = 1, term: int = 1) -> wire.Entry:
    data, sig = proposal(payload)
    seq_sig = ME.sign(wire.entry_signed(TID, term, index, data))
    return wire.Entry(term, index, data, sig, ME.key, seq_sig, wire.decode_proposal(data))


def test_signed_messages_round_trip_with_and_without_passphrase() -> None:
    cases: list[tuple[int, list[Any], Any]] = [
        (wire.VOTE_ASK, [TID, ME.key, 3, 10, 2, b"h" * 32], wire.VoteAsk),
        (wire.VOTE, [TID, ME.key, 3, True, False], wire.Vote),
        (wire.APPEND_OK, [TID, ME.key, 3, False, 9, b"h" * 32], wire.AppendOk),
        (wire.HEAD, [TID, ME.key, 3, 9, 2, b"h" * 32, ()], wire.Head),
        (wire.JOIN, [TID, ME.key, 5, "ann", None, None, b"c" * 16], wire.Join),
        (wire.PROBE, [TID, ME.key, b"n" * 16, True], wire.Probe),
        (wire.REDIRECT, [TID, ME.key, 3, ME.key, "10.0.0.1", 7000], wire.Redirect),
        (wire.BEACON, [TID, ME.key, 3, "t", {"game": "scout", "players": 3}, 1, 3, 0, "lobby"], wire.Beacon),
    ]
    for key in (None, seal.for_table("secret", TID)):
        for kind, fields, cls in cases:
            packet = wire.decode(wire.encode(kind, fields, ME.sign, key, stamp=12345), key)
            assert isinstance(packet.msg, cls) and packet.stamp == 12345
            assert packet.authentic()
            assert [getattr(packet.msg, f) for f in cls.__slots__][: len(fields)] == fields


def test_append_carries_entries_exactly() -> None:
    entries = [entry(["act", 1, "R7"], index=i) for i in (4, 5)]
    head = [TID, ME.key, 2, 3, 1, 3]
    data = wire.encode_append(head, [e.pack() for e in entries], [[ME.key, "10.0.0.2", 7001]], ME.sign, None)
    packet = wire.decode(data, None)
    msg = packet.msg
    assert isinstance(msg, wire.Append) and packet.authentic()
    assert (msg.term, msg.prev_index, msg.prev_term, msg.commit) == (2, 3, 1, 3)
    assert [e.pack() for e in msg.entries] == [e.pack() for e in entries]
    assert msg.addrs == ((ME.key, "10.0.0.2", 7001),)
    assert len(data) <= wire.append_overhead(head, [[ME.key, "10.0.0.2", 7001]], None) + sum(
        len(e.pack()) for e in entries)


def test_a_heartbeat_is_short_and_its_mac_covers_key_table_and_fields() -> None:
    pair = ME.pair_key(Identity.from_seed(b"f" * 32).key, TID)
    assert pair is not None
    for key in (None, seal.for_table("secret", TID)):
        data = wire.encode_heartbeat(pair, TID, 3, 120, 2, 118, key, prev_hash=b"h" * 32)
        packet = wire.decode(data, key)
        msg = packet.msg
        assert isinstance(msg, wire.Heartbeat) and not packet.authentic()  # no signature: a MAC
        assert (msg.term, msg.prev_index, msg.prev_term, msg.commit) == (3, 120, 2, 118)
        assert msg.prev_hash == b"h" * 32
        assert msg.authentic(pair, TID)
        assert not msg.authentic(pair, b"x" * 16) and not msg.authentic(bytes(32), TID)
        assert len(data) <= 64 + (seal.OVERHEAD if key else 0)
        short = wire.encode_heartbeat(pair, TID, 3, 120, 2, 118, key)  # the hash already confirmed
        assert len(short) <= 31 + (seal.OVERHEAD if key else 0)
        changed = wire.Heartbeat(msg.term, msg.prev_index, msg.prev_term, b"g" * 32, msg.commit, msg.stamp,
                                 msg.mac)
        assert not changed.authentic(pair, TID)  # the chain hash is under the MAC
    data = bytearray(wire.encode_heartbeat(pair, TID, 3, 120, 2, 118, None))
    data[6] ^= 1  # another term (3 -> 2), the MAC unchanged
    msg = wire.decode(bytes(data), None).msg
    assert isinstance(msg, wire.Heartbeat) and not msg.authentic(pair, TID)


def test_propose_and_a_claimed_author() -> None:
    data, sig = proposal(["act", 0, "draw"])
    packet = wire.decode(wire.encode_propose(TID, data, sig, None), None)
    assert isinstance(packet.msg, wire.Propose) and packet.authentic()
    other = Identity.from_seed(b"o" * 32)
    forged = wire.Proposal(TID, other.key, 1, 1, ["act", 0, "draw"]).pack()
    packet = wire.decode(wire.encode_propose(TID, forged, ME.sign(wire.proposal_signed(forged)), None), None)
    assert packet.msg.key == other.key and not packet.authentic()


def test_entry_signatures_cover_table_term_index_and_proposal() -> None:
    e = entry(["noop"], index=3, term=2)
    assert e.authentic(TID)
    assert not e.authentic(b"x" * 16)
    for change in ({"term": 3}, {"index": 4}, {"sequencer": Identity.from_seed(b"s" * 32).key}):
        moved = wire.Entry(**{**{f: getattr(e, f) for f in e.__slots__}, **change})
        assert not moved.authentic(TID)


def test_an_entry_signature_covers_the_chain_before_it_and_two_make_a_proof() -> None:
    data, sig = proposal(["noop"])
    prev = wire.chain_hash(TID, 1, 1, b"d" * 32, wire.GENESIS)
    e = wire.Entry(1, 2, data, sig, ME.key, ME.sign(wire.entry_signed(TID, 1, 2, data, prev)),
                   wire.decode_proposal(data))
    assert e.authentic(TID, prev) and not e.authentic(TID, wire.GENESIS) and not e.authentic(TID, b"o" * 32)
    other = wire.chain_hash(TID, 1, 1, b"e" * 32, wire.GENESIS)
    forked = wire.Entry(1, 2, data, sig, ME.key, ME.sign(wire.entry_signed(TID, 1, 2, data, other)),
                        wire.decode_proposal(data))
    a, b = e.witness(TID, prev), forked.witness(TID, other)
    assert a.valid(TID) and b.valid(TID) and wire.equivocation(TID, a, b)
    assert not wire.equivocation(TID, a, a)  # one history twice proves nothing
    assert wire.witness_from_list(a.to_list()) == a
    data = wire.encode(wire.HEAD, [TID, ME.key, 1, 2, 1, e.chain(TID, prev), [a.to_list(), b.to_list()]],
                       ME.sign, None)
    msg = wire.decode(data, None).msg
    assert isinstance(msg, wire.Head) and wire.equivocation(TID, *msg.witnesses)
    bad = wire.Witness(b.term, b.index, b.digest, b.prev, b.sequencer, b"x" * 64)
    assert not wire.equivocation(TID, a, bad)  # a witness needs the sequencer's signature


def test_a_secret_decodes_to_its_sender_and_receiver_and_hidden_payloads_are_checked() -> None:
    from cardtable.p2p.hidden.bundles import Want, encode_secret
    from cardtable.p2p.identity import Identity

    other = Identity.generate()
    body = encode_secret(ME, TID, other.key, Want(0, -1, (3,)), b"n" * 24, 5)
    msg = wire.decode(wire.frame(body, None), None).msg
    assert isinstance(msg, wire.Secret) and (msg.key, msg.receiver, msg.body) == (ME.key, other.key, body)
    with pytest.raises(WireError, match="malformed"):  # a secret is seven fields
        wire.decode(wire.frame(wire.pack([wire.SECRET, TID, ME.key]), None), None)
    with pytest.raises(WireError, match="unknown type"):
        wire.decode(wire.frame(wire.pack([wire.WATCH + 1, TID, ME.key]), None), None)
    wire.check_payload(["seed", 0, b"s" * 32])
    wire.check_payload(["create", "t", {"game": "scout", "players": 2}, 0, "hidden"])
    wire.check_payload(["create", "t", {"game": "scout", "players": 2}, 0, "hidden", 1])  # escrow (wire 6)
    wire.check_payload(["create", "t", {"game": "scout", "players": 2}, 0, "hidden", 1, "quinn"])  # the host
    for bad in (["seed", 1], ["deck", 0, 1, b"x"], ["keys", 1, "show:0", b"y" * 3],
                ["fault", 0, b"k" * 32, "no", 0],
                ["create", "t", {"game": "scout", "players": 2}, 0, "peek"],
                ["create", "t", {"game": "scout", "players": 2}, 0, "hidden", 2],
                ["create", "t", {"game": "scout", "players": 2}, 0, "hidden", True],
                ["create", "t", {"game": "scout", "players": 2}, 0, "hidden", 1, "q" * 33]):
        with pytest.raises(WireError, match="malformed"):
            wire.check_payload(bad)


def test_framing_errors_have_reasons() -> None:
    good = wire.encode(wire.VOTE, [TID, ME.key, 1, True], ME.sign, None)
    with pytest.raises(WireError, match="version"):  # wire 3, as a release before the hash chain sent it
        wire.decode(good[:2] + b"\x03" + good[3:], None)
    key = seal.for_table("pw", TID)
    with pytest.raises(WireError, match="oversized"):
        wire.decode(good + b"x" * 1200, None)
    with pytest.raises(WireError, match="version"):
        wire.decode(good[:2] + b"\x01" + good[3:], None)
    with pytest.raises(WireError, match="passphrase"):
        wire.decode(good, key)  # not sealed, but we need a seal
    tagged = wire.encode(wire.VOTE, [TID, ME.key, 1, True], ME.sign, key)
    with pytest.raises(WireError, match="passphrase"):
        wire.decode(tagged, None)  # sealed, we cannot open it
    with pytest.raises(WireError, match="passphrase"):
        wire.decode(tagged, seal.derive("other", seal.table_salt(TID)))
    with pytest.raises(WireError, match="other table"):
        wire.decode(tagged, seal.for_table("pw", b"o" * 16))
    with pytest.raises(WireError, match="passphrase"):
        wire.decode(tagged[:-1] + bytes([tagged[-1] ^ 1]), key)
    with pytest.raises(WireError, match="unknown type"):
        wire.decode(wire.frame(msgpack.packb([99, b"", b""]), None), None)
    with pytest.raises(WireError, match="malformed"):
        wire.decode(b"XX\x01\x00\x90", None)


def test_payload_shapes() -> None:
    ok: list[list[Any]] = [
          ["create", "t", {"game": "scout", "players": 2}, 0], ["join", "ann"], ["commit", b"h" * 32],
          ["reveal", b"n" * 32], ["act", 2, "R7"], ["forfeit", 1], ["takeover", 1], ["return", 1],
          ["leave"], ["noop"]]
    for payload in ok:
        wire.check_payload(payload)
    bad: list[list[Any]] = [
           ["act", 2], ["act", -1, "x"], ["act", 10, "x"], ["act", 1, "x" * 65], ["commit", b"short"],
           ["create", "t", {"game": [1]}, 0], ["create", "t", {"game": "solo"}, 11], ["join", "n" * 33],
           ["leave", 1], ["fly"], [1]]
    for payload in bad:
        with pytest.raises(WireError):
            wire.check_payload(payload)


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**63), 2**64 - 1) | st.floats(allow_nan=True)
    | st.text(max_size=20) | st.binary(max_size=40),
    lambda inner: st.lists(inner, max_size=8) | st.dictionaries(st.text(max_size=5), inner, max_size=5),
    max_leaves=30,
)


@settings(max_examples=400, deadline=None)
@given(st.binary(max_size=1300))
def test_arbitrary_bytes_only_raise_wire_errors(data: bytes) -> None:
    for key in (None, seal.for_table("k", TID)):
        try:
            wire.decode(data, key)
        except WireError:
            pass
        try:
            wire.decode(wire.MAGIC + bytes((wire.VERSION, 0)) + data, None)
        except WireError:
            pass


@settings(max_examples=400, deadline=None)
@given(st.integers(0, 10), json_values, json_values)
def test_arbitrary_msgpack_bodies_only_raise_wire_errors(kind: int, inner: object, extra: object) -> None:
    bodies = [[kind, msgpack.packb(inner), b"s" * 64], [kind, inner, extra], [kind, TID, inner, extra], inner,
              [kind, inner, extra, 1, 2, b"m" * 16]]
    for body in bodies:
        try:
            packet = wire.decode(wire.frame(msgpack.packb(body), None), None)
        except WireError:
            continue
        assert not packet.authentic()
        if isinstance(packet.msg, wire.Heartbeat):
            assert not packet.msg.authentic(b"k" * 32, TID)


def test_a_watch_round_trips_and_a_wrong_one_is_malformed() -> None:
    pad = bytes(wire.WATCH_PAD)
    data = wire.encode(wire.WATCH, [TID, ME.key, "bea", b"c" * wire.NONCE_BYTES, pad], ME.sign, None, 3)
    packet = wire.decode(data, None)
    assert packet.msg == wire.Watch(TID, ME.key, "bea", b"c" * wire.NONCE_BYTES) and packet.authentic()
    bare = wire.decode(wire.encode(wire.WATCH, [TID, ME.key, "bea", None, pad], ME.sign, None), None).msg
    assert isinstance(bare, wire.Watch) and bare.cookie is None
    wrongs = ([TID, ME.key, "bea", b"short", pad], [TID, ME.key, "bea", None],  # the cookie, the pad
              [TID, ME.key, "bea", None, b""], [TID, ME.key, "bea", None, b"x" * wire.WATCH_PAD])
    for wrong in wrongs:
        with pytest.raises(WireError, match="malformed"):
            wire.decode(wire.encode(wire.WATCH, wrong, ME.sign, None), None)
