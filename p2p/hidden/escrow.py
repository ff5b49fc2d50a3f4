"""A member's seed in escrow, for a takeover: Shamir shares over the scalar field, one for each
other member, with Feldman commitments so that every share can be checked on its own.

The dealer's polynomial has the seed as its constant term and ``threshold - 1`` more coefficients
from its seed's stream (label ``hidden/escrow``), so the escrow too is a function of the seed and the
audit checks it. Member ``m`` (index ``m`` in the deal's member list) gets the share at ``x = m + 1``,
sealed with a pad only the two of them can compute (their pair key). The commitments ``a_c * G`` and
the sealed shares go in the dealer's ``deal`` entry; a member checks its own share at once. When a
takeover of the dealer's seat is committed, each other member publishes its opened share (a ``seed``
entry); anyone checks each against the commitments and, with ``threshold`` of them, rebuilds the seed
(Lagrange at 0) and checks it against the dealer's commitment. ``threshold`` is every other member
(``threshold_for``): no coalition short of all the others can rebuild a seed; with two members there
is no escrow at all (the one share would be the seed).
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence

from cardtable.engine.shuffle import words
from cardtable.p2p.hidden.group import DeckError, L, add, base, mul, scalar, scalar_from_words, scalar_int
from cardtable.p2p.hidden.member import commitment
from cardtable.p2p.identity import Identity

ESCROW_CONTEXT = b"cardtable/hidden/escrow/"


def threshold_for(members: int) -> int | None:
    """How many shares rebuild a seed at a table of ``members``: all the others; None under 3."""
    return members - 1 if members >= 3 else None


def polynomial(seed: bytes, threshold: int) -> list[int]:
    """The coefficients: the seed, then ``threshold - 1`` nonzero scalars from its stream."""
    stream = words(seed, "hidden/escrow")
    return [scalar_int(seed)] + [scalar_int(scalar_from_words(stream)) for _ in range(threshold - 1)]


def commitments(seed: bytes, threshold: int) -> list[bytes]:
    """Feldman's commitments ``a_c * G`` (what the ``deal`` entry publishes)."""
    return [base(scalar(a)) for a in polynomial(seed, threshold)]


def share(seed: bytes, threshold: int, x: int) -> bytes:
    """The share at ``x`` (member index + 1)."""
    value = 0
    for a in reversed(polynomial(seed, threshold)):
        value = (value * x + a) % L
    return scalar(value)


def check_share(x: int, share_bytes: bytes, points: Sequence[bytes]) -> bool:
    """Whether ``share_bytes`` is the share at ``x`` of the polynomial ``points`` commit to
    (``share * G == sum_c x^c * A_c``); never raises."""
    try:
        value = scalar_int(share_bytes)
        if value == 0 or not points:
            return False
        total = points[0]
        power = 1
        for point in points[1:]:
            power = power * x % L
            total = add(total, mul(scalar(power), point))
        return base(share_bytes) == total
    except DeckError:
        return False


def combine(shares: Mapping[int, bytes]) -> bytes:
    """The polynomial's constant term (the seed) from shares ``{x: share}`` (Lagrange at 0)."""
    xs = list(shares)
    secret = 0
    for x in xs:
        num, den = 1, 1
        for other in xs:
            if other != x:
                num = num * other % L
                den = den * (other - x) % L
        secret = (secret + scalar_int(shares[x]) * num * pow(den, -1, L)) % L
    return scalar(secret)


def _pad(me: Identity, other: bytes, table_id: bytes, round_no: int, dealer: bytes, receiver: bytes) -> bytes:
    key = me.pair_key(other, ESCROW_CONTEXT + table_id)
    if key is None:
        raise DeckError("not a usable member key")
    return hashlib.blake2b(round_no.to_bytes(4, "big") + dealer + receiver, key=key, digest_size=32,
                           person=b"ct-escrow").digest()


def seal_share(me: Identity, table_id: bytes, round_no: int, receiver: bytes, share_bytes: bytes) -> bytes:
    """The dealer's share for ``receiver``, sealed (32 bytes: the share XOR a pad of their pair key;
    its integrity is the Feldman check)."""
    pad = _pad(me, receiver, table_id, round_no, me.key, receiver)
    return bytes(a ^ b for a, b in zip(share_bytes, pad, strict=True))


def open_share(me: Identity, table_id: bytes, round_no: int, dealer: bytes, sealed: bytes) -> bytes:
    """The share ``dealer`` sealed for ``me`` (check it with ``check_share``)."""
    if len(sealed) != 32:
        raise DeckError("a sealed share is 32 bytes")
    pad = _pad(me, dealer, table_id, round_no, dealer, me.key)
    return bytes(a ^ b for a, b in zip(sealed, pad, strict=True))


def escrow(me: Identity, seed: bytes, table_id: bytes, round_no: int,
           members: Sequence[bytes]) -> tuple[list[bytes], list[bytes]]:
    """What a member's ``deal`` entry carries: the commitments and one sealed share for each other
    member, in seat order (both empty with fewer than three members)."""
    threshold = threshold_for(len(members))
    if threshold is None:
        return [], []
    points = commitments(seed, threshold)
    sealed = [seal_share(me, table_id, round_no, other, share(seed, threshold, x + 1))
              for x, other in enumerate(members) if other != me.key]
    return points, sealed


def recover(table_id: bytes, round_no: int, dealer: bytes, members: Sequence[bytes], points: Sequence[bytes],
            released: Mapping[bytes, bytes], committed: bytes) -> bytes:
    """A gone member's seed from the shares the others published after its takeover (``released``:
    member key to share). A DeckError names the first member (seat order) whose share fails the
    Feldman check, or says how many shares are still missing; the seed is checked against the
    dealer's commitment (a mismatch there is the dealer's: its escrow did not share its seed)."""
    threshold = threshold_for(len(members))
    if threshold is None:
        raise DeckError("a table of two members has no escrow: the round is redealt")
    shares: dict[int, bytes] = {}
    for x, member in enumerate(members):
        if member == dealer or member not in released:
            continue
        if not check_share(x + 1, released[member], points):
            raise DeckError(f"{member.hex()[:8]} published a wrong share of {dealer.hex()[:8]}'s seed")
        shares[x + 1] = released[member]
    if len(shares) < threshold:
        raise DeckError(f"{threshold - len(shares)} more share(s) of {dealer.hex()[:8]}'s seed needed")
    seed = combine(dict(list(shares.items())[:threshold]))
    if commitment(table_id, round_no, dealer, seed) != committed:
        raise DeckError(f"{dealer.hex()[:8]}'s escrow does not share the seed it committed to")
    return seed
