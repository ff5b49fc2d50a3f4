"""The group: the prime-order subgroup of Ed25519 through libsodium (PyNaCl's bindings).

Points are 32-byte canonical encodings of points of the subgroup of order ``L``; scalars are
32-byte little-endian integers below ``L``. ``mul`` refuses any point outside the subgroup (libsodium
checks canonical encoding, small order and subgroup membership), so a published point is checked by
using it. Card points come from ``from_uniform`` (Elligator 2, cofactor cleared) of a
domain-separated hash: nobody knows a discrete logarithm between two card points, which is what
makes a public opening unforgeable (``opening.check_open``).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator, Sequence

import nacl.bindings as sodium
import nacl.exceptions

L = 2**252 + 27742317777372353535851937790883648493
POINT_BYTES = 32
SCALAR_BYTES = 32
CARD_DOMAIN = b"cardtable/hidden/card/"


class DeckError(ValueError):
    """Input the hidden-hands core refuses; the message is one line, fit to show."""


def scalar(value: int) -> bytes:
    """The 32-byte encoding of ``value mod L``."""
    return (value % L).to_bytes(SCALAR_BYTES, "little")


def scalar_int(data: bytes) -> int:
    """A scalar's integer value; a DeckError unless ``data`` is 32 bytes encoding a number below L."""
    if not isinstance(data, bytes) or len(data) != SCALAR_BYTES:
        raise DeckError("a scalar is 32 bytes")
    value = int.from_bytes(data, "little")
    if value >= L:
        raise DeckError("a scalar is below the group order")
    return value


def reduce64(data: bytes) -> bytes:
    """64 bytes reduced mod L (uniform when the bytes are)."""
    return bytes(sodium.crypto_core_ed25519_scalar_reduce(data))


def scalar_from_words(words: Iterator[int]) -> bytes:
    """A uniform nonzero scalar from eight 64-bit words of a stream (engine/shuffle.py)."""
    while True:
        wide = b"".join(next(words).to_bytes(8, "big") for _ in range(8))
        s = reduce64(wide)
        if any(s):
            return s


def smul(a: bytes, b: bytes) -> bytes:
    """The product of two scalars mod L."""
    return bytes(sodium.crypto_core_ed25519_scalar_mul(a, b))


def invert(a: bytes) -> bytes:
    """The inverse of a nonzero scalar mod L."""
    if not any(a):
        raise DeckError("zero has no inverse")
    return bytes(sodium.crypto_core_ed25519_scalar_invert(a))


def product(scalars: Sequence[bytes]) -> bytes:
    """The product of scalars mod L (1 for none)."""
    out = scalar(1)
    for s in scalars:
        out = smul(out, s)
    return out


def mul(k: bytes, point: bytes) -> bytes:
    """``k * point``; a DeckError if ``point`` is not a point of the subgroup (or k is zero)."""
    if not isinstance(point, bytes) or len(point) != POINT_BYTES:
        raise DeckError("a point is 32 bytes")
    try:
        return bytes(sodium.crypto_scalarmult_ed25519_noclamp(k, point))
    except (nacl.exceptions.RuntimeError, nacl.exceptions.CryptoError, ValueError, TypeError):
        raise DeckError("not a point of the group") from None


def base(k: bytes) -> bytes:
    """``k * G`` for the group's base point (escrow commitments)."""
    try:
        return bytes(sodium.crypto_scalarmult_ed25519_base_noclamp(k))
    except (nacl.exceptions.RuntimeError, nacl.exceptions.CryptoError):
        raise DeckError("zero scalar") from None


def add(p: bytes, q: bytes) -> bytes:
    """The sum of two points."""
    try:
        return bytes(sodium.crypto_core_ed25519_add(p, q))
    except (nacl.exceptions.RuntimeError, nacl.exceptions.CryptoError, ValueError, TypeError):
        raise DeckError("not a point of the group") from None


def is_point(data: object) -> bool:
    """Whether ``data`` encodes a point of the subgroup (not the identity)."""
    return (isinstance(data, bytes) and len(data) == POINT_BYTES
            and bool(sodium.crypto_core_ed25519_is_valid_point(data)))


def card_point(table_id: bytes, game: str, index: int, name: str) -> bytes:
    """The point of the card at canonical position ``index`` of ``game``'s deck.

    ``from_uniform(SHA-256(CARD_DOMAIN || table id || len(game) || game || index (2 bytes) || name))``:
    each copy of a card has its own point (two copies with one point would show in the shuffle
    pass which slots hold the same face), and no one knows a logarithm between two of them.
    """
    g = game.encode("utf-8")
    digest = hashlib.sha256(CARD_DOMAIN + table_id + bytes([len(g)]) + g + index.to_bytes(2, "big")
                            + name.encode("utf-8")).digest()
    return bytes(sodium.crypto_core_ed25519_from_uniform(digest))


def card_points(table_id: bytes, game: str, names: Sequence[str]) -> tuple[bytes, ...]:
    """The points of a whole deck, in canonical order."""
    return tuple(card_point(table_id, game, i, name) for i, name in enumerate(names))
