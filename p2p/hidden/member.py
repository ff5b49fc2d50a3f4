"""A member's secrets: its seed for a round, its commitment, and what it derives for each deal.

Everything comes from the seed through engine/shuffle.py's word stream (the deterministic shuffle of
docs/rules-notes.md), with labels of its own: ``hidden/deal/D/perm`` (the permutation, a
Fisher-Yates shuffle of the slot positions), ``hidden/deal/D/shuffle`` (the shuffle scalar s),
``hidden/deal/D/lock`` (the per-slot scalars k_0, k_1, ... in slot order), ``hidden/escrow`` (the
escrow polynomial). So a deal is a deterministic function of the members' seeds, and a revealed seed
lets anyone rebuild every step.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from cardtable.engine.shuffle import Stream, words
from cardtable.p2p.hidden.group import DeckError, invert, reduce64, scalar_from_words, scalar_int, smul

SEED_BYTES = 32
COMMIT_DOMAIN = b"cardtable/hidden/commit/"


def new_seed(random64: bytes) -> bytes:
    """A round's seed from 64 secret random bytes (``os.urandom(64)``): a uniform scalar, so that
    the escrow can share it (``escrow.split``)."""
    if len(random64) != 64:
        raise DeckError("a seed is drawn from 64 random bytes")
    return reduce64(random64)


def check_seed(seed: object) -> bytes:
    """``seed`` if it is a valid seed (32 bytes, a scalar below L), else a DeckError."""
    if not isinstance(seed, bytes):
        raise DeckError("a seed is 32 bytes")
    scalar_int(seed)
    return seed


def commitment(table_id: bytes, round_no: int, member: bytes, seed: bytes) -> bytes:
    """The hash a member puts in its ``deal`` entry before the round's first deal:
    ``SHA-256(COMMIT_DOMAIN || table id || round (4 bytes) || member key || seed)``."""
    return hashlib.sha256(COMMIT_DOMAIN + table_id + round_no.to_bytes(4, "big") + member + seed).digest()


@dataclass(frozen=True, slots=True)
class Layer:
    """A member's secrets for one deal of ``size`` slots.

    ``perm[p]`` is the position of the previous deck that lands at position ``p``; ``shuffle`` the
    scalar s; ``keys[i]`` the per-slot scalar k_i; ``lock(i)`` is k_i / s, what the lock step applies.
    """

    perm: tuple[int, ...]
    shuffle: bytes
    unshuffle: bytes
    keys: tuple[bytes, ...]

    @classmethod
    def derive(cls, seed: bytes, deal_no: int, size: int) -> Layer:
        perm = tuple(Stream(seed, f"hidden/deal/{deal_no}/perm").shuffle(range(size)))
        s = scalar_from_words(words(seed, f"hidden/deal/{deal_no}/shuffle"))
        stream = words(seed, f"hidden/deal/{deal_no}/lock")
        keys = tuple(scalar_from_words(stream) for _ in range(size))
        return cls(perm, s, invert(s), keys)

    def lock(self, i: int) -> bytes:
        """The scalar the lock step applies to slot ``i``: k_i * s^-1."""
        return smul(self.keys[i], self.unshuffle)
