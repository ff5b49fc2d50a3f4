"""Hidden hands on the wire: key bundles and SECRET bodies, the log payloads and their sizes, the
escrow's share maths (docs/hidden-hands.md, "Payloads")."""

from __future__ import annotations

import itertools
import os
from typing import Any

import msgpack
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cardtable.p2p import seal, wire
from cardtable.p2p.hidden import escrow, payloads
from cardtable.p2p.hidden.bundles import (
    MAX_KEYS,
    STEP_POINTS,
    Bundle,
    StepChunk,
    Want,
    bundles_for,
    decode_secret,
    encode_secret,
    make_bundle,
    read_bundle,
)
from cardtable.p2p.hidden.group import DeckError, L, card_points, scalar, scalar_int
from cardtable.p2p.hidden.opening import PublicOpen
from tests.p2p.test_deck import TABLE, identities, seeds

MAXINT = 2**63 - 1


def keys(count: int) -> list[tuple[int, bytes]]:
    return [(300 + i, scalar(10**40 + i)) for i in range(count)]


def test_a_bundle_round_trips_and_any_changed_byte_is_refused() -> None:
    a, b = identities(2)
    bundle = make_bundle(a, TABLE, 3, b.key, keys(MAX_KEYS))
    back = read_bundle(bundle.wire())
    assert (back.sender, back.receiver, back.round_no, back.items) == (a.key, b.key, 3, bundle.items)
    data = bundle.wire()
    for i in range(0, len(data), 7):
        changed = data[:i] + bytes([data[i] ^ 1]) + data[i + 1:]
        with pytest.raises(DeckError):
            read_bundle(changed)
    with pytest.raises(DeckError, match="1 to 8 keys"):
        make_bundle(a, TABLE, 3, b.key, keys(9))
    assert [len(x.items) for x in bundles_for(a, TABLE, 3, b.key, keys(30))] == [8, 8, 8, 6]


def test_a_secret_opens_for_its_receiver_only_and_refuses_tampering() -> None:
    a, b, c = identities(3)
    bundle = make_bundle(a, TABLE, 0, b.key, keys(4))
    body = encode_secret(a, TABLE, b.key, bundle, os.urandom(24), stamp=77)
    sender, got, stamp = decode_secret(b, TABLE, body)
    assert isinstance(got, Bundle) and got.items == bundle.items and (sender, stamp) == (a.key, 77)
    chunk = StepChunk(0, 3, 20, tuple(card_points(TABLE, "x", ["a", "b"])))
    want = Want(1, -1, (4, 300))
    for item in (chunk, want):
        assert decode_secret(b, TABLE, encode_secret(a, TABLE, b.key, item, bytes(24), 1))[1] == item
    with pytest.raises(DeckError, match="for someone else"):
        decode_secret(c, TABLE, body)
    with pytest.raises(DeckError, match="for someone else"):
        decode_secret(b, bytes(16), body)
    raw = msgpack.unpackb(body)
    raw[3] = c.key  # re-addressed to c: c cannot open it (sealed with a and b's pair key)
    with pytest.raises(DeckError, match="does not open"):
        decode_secret(c, TABLE, msgpack.packb(raw))
    raw = msgpack.unpackb(body)
    raw[5] = 78  # the stamp is under the seal
    with pytest.raises(DeckError, match="does not open"):
        decode_secret(b, TABLE, msgpack.packb(raw))
    # c, who can seal to b, cannot pass off a's bundle as its own message
    forwarded = encode_secret(c, TABLE, b.key, bundle, os.urandom(24), stamp=1)
    with pytest.raises(DeckError, match="not its sender"):
        decode_secret(b, TABLE, forwarded)


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=300))
def test_junk_is_a_one_line_error_never_a_crash(data: bytes) -> None:
    me = identities(1)[0]
    for fn in (read_bundle, lambda d: decode_secret(me, TABLE, d)):
        try:
            fn(data)
        except DeckError as e:
            assert "\n" not in str(e)


_VALUES = st.recursive(st.none() | st.booleans() | st.integers(-2, 2**70) | st.binary(max_size=80)
                       | st.text(max_size=8), lambda inner: st.lists(inner, max_size=6), max_leaves=12)


@settings(max_examples=120, deadline=None)
@given(st.sampled_from(["deal", "deck", "keys", "seed", "fault"]), st.lists(_VALUES, max_size=6))
def test_malformed_payloads_are_refused_with_a_one_line_error(kind: str, rest: list[Any]) -> None:
    readers = [payloads.read_deal, payloads.read_deck, payloads.read_play, payloads.read_logged_secret,
               payloads.read_seed, payloads.read_fault]
    for read in readers:
        try:
            read([kind, *rest])
        except DeckError as e:
            assert "\n" not in str(e)


def entry_bytes(payload: list[Any]) -> int:
    """A datagram's worth: the payload in a worst-case entry (the largest ints) in a sealed APPEND."""
    proposal = wire.Proposal(TABLE, bytes(32), MAXINT, MAXINT, payload).pack()
    entry = wire.pack([MAXINT, MAXINT, proposal, bytes(64), bytes(32), bytes(64)])
    head = [TABLE, bytes(32), MAXINT, MAXINT, MAXINT, MAXINT]
    return wire.append_overhead(head, [], seal.derive("x", bytes(16))) + len(entry)


def test_every_payload_at_its_largest_fits_one_entry_of_a_sealed_append() -> None:
    ids = identities(10)
    members = [i.key for i in ids]
    points, sealed = escrow.escrow(ids[0], seeds(1)[0], TABLE, 0, members)
    assert len(points) == 9 and len(sealed) == 9
    deal = payloads.deal_payload(payloads.DealEntry(2**32 - 1, bytes(32), points, sealed))
    cards = card_points(TABLE, "solo", [f"c{i}" for i in range(120)])
    chunks = payloads.deck_payloads(255, 19, list(cards))
    assert len(chunks) == 6 and all(len(c[4]) <= 640 for c in chunks)
    play = payloads.play_payload(9, "x" * 64, [PublicOpen(511, 119, scalar(L - 1))] * 12)
    bundle = make_bundle(ids[1], TABLE, 2**32 - 1, ids[2].key, keys(MAX_KEYS))
    fault = payloads.fault_payload(payloads.FaultEntry(2**32 - 1, bytes(32), "key", bundle.wire()))
    withheld = payloads.fault_payload(payloads.FaultEntry(2**32 - 1, bytes(32), "withheld", bytes(2 * 200)))
    share = payloads.seed_payload(payloads.SeedEntry(2**32 - 1, bytes(32), bytes(32)))
    body = encode_secret(ids[1], TABLE, ids[2].key, bundle, bytes(24), MAXINT)
    digest = payloads.digest_payload(255, 19, bytes(32))
    logged = payloads.logged_secret_payload(bytes(32), body)
    for payload in [deal, *chunks, digest, play, fault, withheld, share, logged]:
        assert entry_bytes(payload) <= wire.MAX_DATAGRAM - 32, payload[0]  # 32 bytes to spare (wire 4)
        assert len(wire.pack(payload)) <= payloads.ENTRY_BUDGET
    secret = wire.HEAD_BYTES + seal.OVERHEAD + len(body)
    assert secret <= wire.MAX_DATAGRAM - 200, secret  # a SECRET with 8 keys, sealed: room to spare
    step = StepChunk(255, 19, 500, tuple(cards[:STEP_POINTS]))
    step_body = encode_secret(ids[1], TABLE, ids[2].key, step, bytes(24), MAXINT)
    assert wire.HEAD_BYTES + seal.OVERHEAD + len(step_body) <= wire.MAX_DATAGRAM - 32
    with pytest.raises(DeckError, match="1 to 28 points"):
        encode_secret(ids[1], TABLE, ids[2].key, StepChunk(0, 0, 0, tuple(cards[:29])), bytes(24), 1)
    # and each reads back
    assert payloads.read_deal(deal).escrow_points == points
    read = [payloads.read_deck(c) for c in reversed(chunks)]
    assert payloads.join_chunks([c for c in read if isinstance(c, payloads.DeckChunk)], 120) == list(cards)
    assert payloads.read_deck(digest) == payloads.DeckDigest(255, 19, bytes(32))
    assert payloads.read_play(play)[2][0] == PublicOpen(511, 119, scalar(L - 1))
    assert payloads.read_fault(fault).detail == bundle.wire()
    assert payloads.read_seed(share).dealer == bytes(32)
    assert payloads.read_logged_secret(logged) == (bytes(32), body)


def test_deck_chunks_that_disagree_or_stray_are_refused() -> None:
    cards = list(card_points(TABLE, "scout", [f"c{i}" for i in range(45)]))
    chunks = [c for c in (payloads.read_deck(p) for p in payloads.deck_payloads(0, 1, cards))
              if isinstance(c, payloads.DeckChunk)]
    assert payloads.join_chunks(chunks[:2], 45) is None
    assert payloads.join_chunks(chunks + chunks[:1], 45) == cards
    bad = payloads.DeckChunk(0, 1, 20, cards[:20][::-1])
    with pytest.raises(DeckError, match="disagree at step 1"):
        payloads.join_chunks([*chunks, bad], 45)
    with pytest.raises(DeckError, match="outside the deal"):
        payloads.join_chunks([payloads.DeckChunk(0, 1, 40, cards[:20])], 45)


# --- escrow -------------------------------------------------------------------------------------

@settings(max_examples=15, deadline=None)
@given(n=st.integers(3, 10), salt=st.integers(0, 10**6))
def test_the_escrow_rebuilds_a_seed_from_all_the_others_shares_and_from_no_fewer(n: int, salt: int) -> None:
    ids = identities(n)
    members = [i.key for i in ids]
    dealer = salt % n
    seed = seeds(n, salt)[dealer]
    points, sealed = escrow.escrow(ids[dealer], seed, TABLE, 5, members)
    others = [x for x in range(n) if x != dealer]
    shares = {}
    for x, box in zip(others, sealed, strict=True):
        share = escrow.open_share(ids[x], TABLE, 5, members[dealer], box)
        assert escrow.check_share(x + 1, share, points)
        assert not escrow.check_share(x + 1, scalar(scalar_int(share) + 1), points)
        shares[x + 1] = share
    assert escrow.combine(shares) == seed
    for fewer in itertools.combinations(shares, len(shares) - 1):
        assert escrow.combine({x: shares[x] for x in fewer}) != seed


def test_a_share_is_sealed_for_its_receiver_only() -> None:
    ids = identities(4)
    members = [i.key for i in ids]
    seed = seeds(1)[0]
    points, sealed = escrow.escrow(ids[0], seed, TABLE, 0, members)
    share_for_2 = escrow.open_share(ids[2], TABLE, 0, members[0], sealed[1])
    assert escrow.check_share(3, share_for_2, points)
    assert not escrow.check_share(3, escrow.open_share(ids[3], TABLE, 0, members[0], sealed[1]), points)
    assert not escrow.check_share(3, escrow.open_share(ids[2], TABLE, 1, members[0], sealed[1]), points)
    assert sealed[1] != share_for_2


def test_two_members_have_no_escrow() -> None:
    ids = identities(2)
    assert escrow.threshold_for(2) is None and escrow.threshold_for(3) == 2
    assert escrow.escrow(ids[0], seeds(1)[0], TABLE, 0, [i.key for i in ids]) == ([], [])
