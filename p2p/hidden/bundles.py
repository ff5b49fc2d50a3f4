"""Key bundles: a member's per-slot keys for one receiver, signed, sealed in a ``SECRET`` message.

A bundle is ``[packed, sig]`` with ``packed = msgpack([table id, round, sender, receiver, slots,
keys])`` (slots: 2 bytes each, big-endian; keys: 32 bytes each, in the same order) and ``sig`` the
sender's Ed25519 signature of ``BUNDLE_DOMAIN + packed``. At most ``MAX_KEYS`` keys, so that a
receiver can put a bundle in a ``fault`` entry as evidence (``payloads``): the signature proves what
the sender sent, and the sender's revealed seed proves what it should have sent.

A ``SECRET`` body (message type 12) is ``[12, table id, sender, receiver, nonce, stamp, box]``:
``box`` is XChaCha20-Poly1305 of one item under the pair key of sender and receiver
(``Identity.pair_key`` with ``SECRET_CONTEXT + table id``), the other six fields packed as its
associated data. Only the receiver can read it; only the two of them could have made it. An item
is ``["keys", bundle]``, ``["step", deal, step, first, points]`` (a step on its way to the next
member: not secret, but this is the one member-to-member message) or ``["want", deal, step, numbers]``
(asking again for keys, step -1, or for the chunks of a step).
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


STEP_POINTS = 28  # points of a step in one SECRET (a datagram's worth)


@dataclass(frozen=True, slots=True)
class StepChunk:
    """Points ``first ..`` of step ``step`` of deal ``deal_no``, sent to the next step's author."""

    deal_no: int
    step: int
    first: int
    points: tuple[bytes, ...]


@dataclass(frozen=True, slots=True)
class Want:
    """A receiver asking again: the keys of ``slots`` (``step`` -1), or the chunks of a step that
    start at ``slots`` (each a first index)."""

    deal_no: int
    step: int
    slots: tuple[int, ...]


Content = Bundle | StepChunk | Want


def _content(item: Content) -> list[Any]:
    if isinstance(item, Bundle):
        return ["keys", item.wire()]
    if isinstance(item, StepChunk):
        if not 1 <= len(item.points) <= STEP_POINTS:
            raise DeckError(f"a step chunk carries 1 to {STEP_POINTS} points")
        return ["step", item.deal_no, item.step, item.first, b"".join(item.points)]
    return ["want", item.deal_no, item.step, b"".join(s.to_bytes(2, "big") for s in item.slots)]


def _read_content(raw: Any) -> Content:
    if type(raw) is not list or not raw:
        raise DeckError("not a secret")
    if raw[0] == "keys" and len(raw) == 2:
        return read_bundle(_field(raw[1], bytes))
    if raw[0] == "step" and len(raw) == 5:
        data = _field(raw[4], bytes)
        if not 0 < len(data) <= 32 * STEP_POINTS or len(data) % 32:
            raise DeckError("not a step chunk")
        deal_no, step, first = (_field(v, int) for v in raw[1:4])
        if not (0 <= deal_no < 256 and 0 <= step < 20 and 0 <= first < 512):
            raise DeckError("not a step chunk")
        return StepChunk(deal_no, step, first, tuple(data[i:i + 32] for i in range(0, len(data), 32)))
    if raw[0] == "want" and len(raw) == 4:
        data = _field(raw[3], bytes)
        deal_no, step = _field(raw[1], int), _field(raw[2], int)
        if len(data) % 2 or len(data) > 1024 or not (0 <= deal_no < 256 and -1 <= step < 20):
            raise DeckError("not a request")
        numbers = tuple(int.from_bytes(data[i:i + 2], "big") for i in range(0, len(data), 2))
        return Want(deal_no, step, numbers)
    raise DeckError("not a secret")


def encode_secret(me: Identity, table_id: bytes, receiver: bytes, item: Content, nonce: bytes,
                  stamp: int) -> bytes:
    """The ``SECRET`` body carrying ``item`` to ``receiver`` (framing and the optional passphrase
    seal are the wire's, as for every message). ``nonce``: 24 random bytes (``os.urandom``)."""
    if len(nonce) != NONCE_BYTES:
        raise DeckError("a nonce is 24 bytes")
    head = [SECRET, table_id, me.key, receiver, nonce, stamp]
    box = sodium.crypto_aead_xchacha20poly1305_ietf_encrypt(
        _pack(_content(item)), _pack(head), nonce, _pair_key(me, receiver, table_id))
    return _pack([*head, bytes(box)])


def decode_secret(me: Identity, table_id: bytes, body: bytes) -> tuple[bytes, Content, int]:
    """The sender, the item a ``SECRET`` body carries to ``me``, and the sender's stamp; a DeckError
    if it is not for this table and this member, does not open, or a bundle in it is not the
    sender's to this member."""
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
    item = _read_content(_unpack(bytes(plain)))
    if isinstance(item, Bundle) and (item.table_id, item.sender, item.receiver) != (table_id, sender, me.key):
        raise DeckError("a secret whose bundle is not its sender's to this member")
    return sender, item, int(stamp)
