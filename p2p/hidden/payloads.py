"""The log payloads of hidden hands, byte for byte (msgpack arrays, kind first, as every payload;
docs/hidden-hands.md has the table with sizes). Each fits one entry of a sealed ``APPEND``
(``ENTRY_BUDGET``): a deck step goes in chunks of ``POINTS_PER_CHUNK`` points.

- ``["deal", round, commitment (32), escrow commitments (32 each), sealed shares (32 each)]``
- ``["deck", deal, step, digest (32)]``: a step passed to the next member directly
- ``["deck", deal, step, first, points (32 each)]``: the last step (everyone needs it), or a step
  whose author was told it did not arrive
- ``["keys", seat, action, opens (35 each: slot 2, card 1, K 32)]``: a play with its proofs
- ``["keys", receiver (32), SECRET body]``: a key bundle put in the log when its receiver said it was
  withheld
- ``["seed", round, seed (32)]``: the audit's reveal; ``["seed", round, share (32), dealer (32)]``: a
  share of a gone member's seed, after its takeover
- ``["fault", round, accused (32), code, detail]``: detail is an int (a step or a slot), the slots a
  holder still waits for (2 bytes each), or a key bundle as evidence
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from cardtable.p2p.hidden.bundles import MAX_KEYS
from cardtable.p2p.hidden.group import POINT_BYTES, DeckError
from cardtable.p2p.hidden.opening import PublicOpen

POINTS_PER_CHUNK = 20
OPEN_BYTES = 35
ENTRY_BUDGET = 697  # payload bytes one entry can carry in a sealed APPEND, worst case (tests check it)
MAX_ROUND = 2**32 - 1
FAULT_CODES = ("reveal", "escrow", "step", "key", "accuse", "open", "withheld", "share", "act")


def _bytes(value: Any, size: int | None = None, multiple: int = 1, limit: int = ENTRY_BUDGET) -> bytes:
    if type(value) is not bytes or len(value) > limit or (size is not None and len(value) != size) \
            or len(value) % multiple:
        raise DeckError("a malformed hidden-hands payload")
    return value


def _int(value: Any, hi: int) -> int:
    if type(value) is not int or not 0 <= value <= hi:
        raise DeckError("a malformed hidden-hands payload")
    return value


def _kind(payload: Any, kind: str, sizes: tuple[int, ...]) -> list[Any]:
    if type(payload) is not list or len(payload) not in sizes or payload[0] != kind:
        raise DeckError(f"not a {kind} payload")
    return payload


def _split(data: bytes, size: int) -> list[bytes]:
    return [data[i:i + size] for i in range(0, len(data), size)]


@dataclass(frozen=True, slots=True)
class DealEntry:
    round_no: int
    commitment: bytes
    escrow_points: list[bytes]
    sealed_shares: list[bytes]


def deal_payload(entry: DealEntry) -> list[Any]:
    return ["deal", entry.round_no, entry.commitment, b"".join(entry.escrow_points),
            b"".join(entry.sealed_shares)]


def read_deal(payload: Any) -> DealEntry:
    p = _kind(payload, "deal", (5,))
    return DealEntry(_int(p[1], MAX_ROUND), _bytes(p[2], 32), _split(_bytes(p[3], None, 32, 320), 32),
                     _split(_bytes(p[4], None, 32, 320), 32))


@dataclass(frozen=True, slots=True)
class DeckChunk:
    deal_no: int
    step: int
    first: int
    points: list[bytes]


def deck_payloads(deal_no: int, step: int, points: Sequence[bytes]) -> list[list[Any]]:
    """A published step, in chunks."""
    return [["deck", deal_no, step, i, b"".join(points[i:i + POINTS_PER_CHUNK])]
            for i in range(0, len(points), POINTS_PER_CHUNK)]


@dataclass(frozen=True, slots=True)
class DeckDigest:
    deal_no: int
    step: int
    digest: bytes


def digest_payload(deal_no: int, step: int, digest: bytes) -> list[Any]:
    return ["deck", deal_no, step, digest]


def read_deck(payload: Any) -> DeckChunk | DeckDigest:
    p = _kind(payload, "deck", (4, 5))
    if len(p) == 4:
        return DeckDigest(_int(p[1], 255), _int(p[2], 19), _bytes(p[3], 32))
    points = _split(_bytes(p[4], None, POINT_BYTES, POINT_BYTES * POINTS_PER_CHUNK), POINT_BYTES)
    if not points:
        raise DeckError("a deck chunk without points")
    return DeckChunk(_int(p[1], 255), _int(p[2], 19), _int(p[3], 511), points)


def join_chunks(chunks: Sequence[DeckChunk], size: int) -> list[bytes] | None:
    """A step from its chunks (any order, repeats ignored), or None while some are missing; a
    DeckError if two chunks disagree or a chunk lies outside the deal."""
    points: list[bytes | None] = [None] * size
    for chunk in chunks:
        if chunk.first + len(chunk.points) > size:
            raise DeckError(f"a deck chunk outside the deal at step {chunk.step}")
        for i, point in enumerate(chunk.points):
            if points[chunk.first + i] not in (None, point):
                raise DeckError(f"two deck chunks disagree at step {chunk.step}")
            points[chunk.first + i] = point
    if any(p is None for p in points):
        return None
    return [p for p in points if p is not None]


def play_payload(seat: int, action: str, opens: Sequence[PublicOpen]) -> list[Any]:
    packed = b"".join(o.slot.to_bytes(2, "big") + bytes([o.card]) + o.key for o in opens)
    return ["keys", seat, action, packed]


def read_play(payload: Any) -> tuple[int, str, list[PublicOpen]]:
    p = _kind(payload, "keys", (4,))
    if type(p[2]) is not str or len(p[2]) > 64:
        raise DeckError("a malformed hidden-hands payload")
    raw = _bytes(p[3], None, OPEN_BYTES, OPEN_BYTES * 16)
    opens = [PublicOpen(int.from_bytes(c[:2], "big"), c[2], c[3:]) for c in _split(raw, OPEN_BYTES)]
    return _int(p[1], 9), p[2], opens


def logged_secret_payload(receiver: bytes, body: bytes) -> list[Any]:
    return ["keys", receiver, body]


def read_logged_secret(payload: Any) -> tuple[bytes, bytes]:
    p = _kind(payload, "keys", (3,))
    return _bytes(p[1], 32), _bytes(p[2])


@dataclass(frozen=True, slots=True)
class SeedEntry:
    """A reveal (``dealer`` None) or an escrow share of ``dealer``'s seed."""

    round_no: int
    value: bytes
    dealer: bytes | None


def seed_payload(entry: SeedEntry) -> list[Any]:
    if entry.dealer is None:
        return ["seed", entry.round_no, entry.value]
    return ["seed", entry.round_no, entry.value, entry.dealer]


def read_seed(payload: Any) -> SeedEntry:
    p = _kind(payload, "seed", (3, 4))
    return SeedEntry(_int(p[1], MAX_ROUND), _bytes(p[2], 32), _bytes(p[3], 32) if len(p) == 4 else None)


@dataclass(frozen=True, slots=True)
class FaultEntry:
    round_no: int
    accused: bytes
    code: str
    detail: int | bytes


def fault_payload(entry: FaultEntry) -> list[Any]:
    return ["fault", entry.round_no, entry.accused, entry.code, entry.detail]


def read_fault(payload: Any) -> FaultEntry:
    p = _kind(payload, "fault", (5,))
    if p[3] not in FAULT_CODES:
        raise DeckError("a fault of an unknown kind")
    detail = p[4] if type(p[4]) is int else _bytes(p[4], None, 1, 36 * MAX_KEYS + 200)
    if type(detail) is int:
        _int(detail, 2**16)
    return FaultEntry(_int(p[1], MAX_ROUND), _bytes(p[2], 32), p[3], detail)


def read_any(payload: Any) -> Any:
    """Any hidden-hands payload, read by the reader of its kind and shape; a DeckError otherwise."""
    kind = payload[0] if type(payload) is list and payload else None
    if kind == "keys":
        return read_play(payload) if len(payload) == 4 else read_logged_secret(payload)
    reader = {"deal": read_deal, "deck": read_deck, "seed": read_seed, "fault": read_fault}.get(str(kind))
    if reader is None:
        raise DeckError("not a hidden-hands payload")
    return reader(payload)
