"""Key bundles: a member's per-slot keys for one receiver, signed, sealed in a ``SECRET`` message.

A bundle is ``[packed, sig]`` with ``packed = msgpack([table id, round, sender, receiver, slots,
keys])`` (slots: 2 bytes each, big-endian; keys: 32 bytes each, in the same order) and ``sig`` the
sender's Ed25519 signature of ``BUNDLE_DOMAIN + packed``. At most ``MAX_KEYS`` keys, so that a
receiver can put a bundle in a ``fault`` entry as evidence (``payloads``): the signature proves what
the sender sent, and the sender's revealed seed proves what it should have sent.

A ``SECRET`` body (message type 12) is ``[12, table id, sender, receiver, nonce, stamp, box]``:
``box`` is XChaCha20-Poly1305 of the bundle under the pair key of sender and receiver
(``Identity.pair_key`` with ``SECRET_CONTEXT + table id``), the other six fields packed as its
associated data. Only the receiver can read it; only the two of them could have made it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import msgpack
import nacl.bindings as sodium
import nacl.exceptions

from cardtable.p2p.hidden.group import SCALAR_BYTES, DeckError, scalar_int
from cardtable.p2p.identity import Identity, verify

SECRET = 12
MAX_KEYS = 8
BUNDLE_DOMAIN = b"cardtable/hidden/keys/"
SECRET_CONTEXT = b"cardtable/secret/"
NONCE_BYTES = 24
ID_BYTES = 16
KEY_BYTES = 32
MAX_BODY = 1200


def _pack(value: Any) -> bytes:
    return bytes(msgpack.packb(value, use_bin_type=True))


def _unpack(data: object) -> Any:
    if not isinstance(data, bytes) or len(data) > MAX_BODY:
        raise DeckError("not a key bundle")
    try:
        return msgpack.unpackb(data, raw=False, strict_map_key=False, max_bin_len=MAX_BODY,
                               max_str_len=64, max_array_len=16, max_map_len=0)
    except (ValueError, TypeError, msgpack.ExtraData, msgpack.FormatError, msgpack.StackError):
        raise DeckError("not a key bundle") from None


def _field(value: Any, kind: type, size: int | None = None) -> Any:
    sized: Any = value
    if type(value) is not kind or (size is not None and len(sized) != size):
        raise DeckError("not a key bundle")
    return value


@dataclass(frozen=True, slots=True)
class Bundle:
    """Keys of ``sender`` for ``receiver``: ``items`` is ``((slot, key), ...)``."""

    table_id: bytes
    round_no: int
    sender: bytes
    receiver: bytes
    items: tuple[tuple[int, bytes], ...]
    packed: bytes
    sig: bytes

    def wire(self) -> bytes:
        return _pack([self.packed, self.sig])


def make_bundle(me: Identity, table_id: bytes, round_no: int, receiver: bytes,
                items: Sequence[tuple[int, bytes]]) -> Bundle:
    """Sign ``items`` (at most ``MAX_KEYS``) for ``receiver``."""
    if not 1 <= len(items) <= MAX_KEYS:
        raise DeckError(f"a bundle carries 1 to {MAX_KEYS} keys")
    slots = b"".join(slot.to_bytes(2, "big") for slot, _ in items)
    keys = b"".join(key for _, key in items)
    packed = _pack([table_id, round_no, me.key, receiver, slots, keys])
    return Bundle(table_id, round_no, me.key, receiver, tuple(items), packed, me.sign(BUNDLE_DOMAIN + packed))


def bundles_for(me: Identity, table_id: bytes, round_no: int, receiver: bytes,
                items: Sequence[tuple[int, bytes]]) -> list[Bundle]:
    """``items`` in as many bundles as it takes."""
    return [make_bundle(me, table_id, round_no, receiver, items[i:i + MAX_KEYS])
            for i in range(0, len(items), MAX_KEYS)]


def read_bundle(data: bytes) -> Bundle:
    """A bundle from its wire bytes, signature checked; a DeckError otherwise."""
    outer = _field(_unpack(data), list, 2)
    packed, sig = _field(outer[0], bytes), _field(outer[1], bytes, 64)
    raw = _field(_unpack(packed), list, 6)
    table_id, sender, receiver = (_field(raw[0], bytes, ID_BYTES), _field(raw[2], bytes, KEY_BYTES),
                                  _field(raw[3], bytes, KEY_BYTES))
    round_no = _field(raw[1], int)
    slots, keys = _field(raw[4], bytes), _field(raw[5], bytes)
    count = len(slots) // 2
    if not 1 <= count <= MAX_KEYS or len(slots) != 2 * count or len(keys) != SCALAR_BYTES * count \
            or not 0 <= round_no < 2**32:
        raise DeckError("not a key bundle")
    if not verify(sender, BUNDLE_DOMAIN + packed, sig):
        raise DeckError("a key bundle with a bad signature")
    items = []
    for i in range(count):
        key = keys[32 * i:32 * i + 32]
        scalar_int(key)
        items.append((int.from_bytes(slots[2 * i:2 * i + 2], "big"), key))
    return Bundle(table_id, round_no, sender, receiver, tuple(items), packed, sig)


def _pair_key(me: Identity, other: bytes, table_id: bytes) -> bytes:
    key = me.pair_key(other, SECRET_CONTEXT + table_id)
    if key is None:
        raise DeckError("not a usable member key")
    return key


def encode_secret(me: Identity, bundle: Bundle, nonce: bytes, stamp: int) -> bytes:
    """The ``SECRET`` body carrying ``bundle`` (framing and the optional passphrase seal are the
    wire's, as for every message). ``nonce``: 24 random bytes (``os.urandom``)."""
    if len(nonce) != NONCE_BYTES:
        raise DeckError("a nonce is 24 bytes")
    head = [SECRET, bundle.table_id, me.key, bundle.receiver, nonce, stamp]
    box = sodium.crypto_aead_xchacha20poly1305_ietf_encrypt(
        bundle.wire(), _pack(head), nonce, _pair_key(me, bundle.receiver, bundle.table_id))
    return _pack([*head, bytes(box)])


def decode_secret(me: Identity, table_id: bytes, body: bytes) -> tuple[Bundle, int]:
    """The bundle a ``SECRET`` body carries to ``me``, and the sender's stamp; a DeckError if it is
    not for this table and this member, does not open, or its bundle does not match its head."""
    raw = _field(_unpack(body), list, 7)
    if raw[0] != SECRET or raw[1] != table_id or raw[3] != me.key:
        raise DeckError("a secret for someone else")
    sender, nonce, stamp = _field(raw[2], bytes, KEY_BYTES), _field(raw[4], bytes, NONCE_BYTES), raw[5]
    _field(stamp, int)
    try:
        plain = sodium.crypto_aead_xchacha20poly1305_ietf_decrypt(
            _field(raw[6], bytes), _pack(raw[:6]), nonce, _pair_key(me, sender, table_id))
    except (nacl.exceptions.CryptoError, ValueError, TypeError):
        raise DeckError("a secret that does not open") from None
    bundle = read_bundle(bytes(plain))
    if (bundle.table_id, bundle.sender, bundle.receiver) != (table_id, sender, me.key):
        raise DeckError("a secret whose bundle is not its sender's to this member")
    return bundle, int(stamp)
