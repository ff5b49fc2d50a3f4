"""Opening a slot: for its holder only (every other member's key for it), or for everyone (the
holder's proof of a played card).

Slot ``i`` holds ``K_i * P(card)`` with ``K_i`` the product of every member's key for it. The holder,
with every key, computes ``K_i^-1 * slot`` and finds the card point. A public opening is the card
and ``K_i``: anyone checks ``K_i * P(card) == slot``. Forging one for another card would need
``K'`` with ``K' * P(other) == K_i * P(card)``, a discrete logarithm between two card points,
which nobody knows (``group.card_point``). A SCOUT card's orientation is one bit of a hash of
``K_i`` (``orientation``): unknown to everyone until every key is in, fixed by the deal, and
checked by the same proof.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from cardtable.p2p.hidden.group import DeckError, invert, mul, product, scalar_int

ORIENT_DOMAIN = b"cardtable/hidden/orient/"


def orientation(table_id: bytes, slot: int, combined: bytes) -> int:
    """A SCOUT slot's orientation bit (0: lower value up, as engine/scout/state.py) from K_i."""
    digest = hashlib.sha256(ORIENT_DOMAIN + table_id + slot.to_bytes(2, "big") + combined).digest()
    return digest[0] & 1


def open_point(slot_point: bytes, combined: bytes, lookup: Mapping[bytes, int]) -> int:
    """The card (canonical index) a slot holds, from its combined key K_i (``lookup``: card point
    to index); a DeckError if it does not open to a card (a wrong key or a wrong step: the audit
    says whose)."""
    card = lookup.get(mul(invert(combined), slot_point))
    if card is None:
        raise DeckError("the keys do not open this slot to a card")
    return card


@dataclass(frozen=True, slots=True)
class PublicOpen:
    """A holder's proof that ``slot`` holds ``card``: the slot's combined key ``K``."""

    slot: int
    card: int
    key: bytes


def check_open(proof: PublicOpen, slot_point: bytes, card_points: Sequence[bytes]) -> bool:
    """Whether the proof holds: ``key * P(card) == slot_point`` (never raises)."""
    if not 0 <= proof.card < len(card_points):
        return False
    try:
        if scalar_int(proof.key) == 0:
            return False
        return mul(proof.key, card_points[proof.card]) == slot_point
    except DeckError:
        return False


class KeyRing:
    """The keys a holder's machine has for the slots it may open: its own, and those the other
    members sent (``bundles``). ``missing`` names whose keys it still waits for."""

    def __init__(self, members: Sequence[bytes]) -> None:
        self.members = tuple(members)
        self._keys: dict[int, dict[bytes, bytes]] = {}
        self._deals: dict[tuple[int, int], tuple[bytes, ...]] = {}  # (first, size) -> its members

    def deal(self, first: int, size: int, members: Sequence[bytes]) -> None:
        """The slots ``first .. first + size - 1`` were dealt by ``members`` only (a SOLO reshuffle
        after a member left): their keys come from those."""
        self._deals[first, size] = tuple(members)

    def dealers(self, slot: int) -> tuple[bytes, ...]:
        """The members whose keys open ``slot``."""
        for (first, size), members in self._deals.items():
            if first <= slot < first + size:
                return members
        return self.members

    def put(self, slot: int, member: bytes, key: bytes) -> None:
        if member not in self.members:
            raise DeckError("a key from someone who did not deal")
        scalar_int(key)
        self._keys.setdefault(slot, {})[member] = key

    def missing(self, slot: int) -> list[bytes]:
        """The members (seat order) whose key for ``slot`` has not arrived."""
        have = self._keys.get(slot, {})
        return [m for m in self.dealers(slot) if m not in have]

    def combined(self, slot: int) -> bytes:
        """K_i; a DeckError naming the first member whose key is missing."""
        missing = self.missing(slot)
        if missing:
            raise DeckError(f"slot {slot}: no key yet from {missing[0].hex()[:8]}")
        return product([self._keys[slot][m] for m in self.dealers(slot)])

    def open(self, slot: int, slot_point: bytes, lookup: Mapping[bytes, int]) -> int:
        """The card in ``slot`` (see ``open_point``)."""
        combined = self.combined(slot)
        try:
            return open_point(slot_point, combined, lookup)
        except DeckError as e:
            raise DeckError(f"slot {slot}: {e}") from None

    def proof(self, slot: int, card: int) -> PublicOpen:
        """The public proof for a slot this machine opened."""
        return PublicOpen(slot, card, self.combined(slot))

    def slots(self) -> list[int]:
        return sorted(self._keys)
