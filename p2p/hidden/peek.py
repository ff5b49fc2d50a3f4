"""What a machine's store lets it know of the hidden cards: the cheater's own view.

A machine's store holds the table's log, its own seeds and the key bundles it received. With all of
that, a slot opens when its key from every dealing member is there (its own from its seed, the
others' from bundles). ``peek`` replays the log and answers, round by round: which cards this
machine could open (and which of them are its seats' hands as dealt), which were shown to all, and
(for audited rounds) that everything is public since the seeds were revealed. ``cardtable peek``
prints it; the tests assert it equals what the machine's seats may see.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from cardtable.p2p.hidden.bundles import read_bundle
from cardtable.p2p.hidden.group import DeckError
from cardtable.p2p.hidden.member import Layer, commitment
from cardtable.p2p.hidden.opening import KeyRing, orientation
from cardtable.p2p.hidden.round import DONE, HiddenRound
from cardtable.p2p.hidden.side import deal_name


@dataclass
class RoundView:
    """One hidden round as one machine knows it."""

    round_no: int
    member: bytes | None  # this machine's key in the round's deal (None: it did not deal)
    opened: dict[int, str] = field(default_factory=dict)  # slot -> card, from keys it holds
    public: dict[int, str] = field(default_factory=dict)  # slot -> card, shown to everyone
    audited: bool = False
    hands: list[list[int]] = field(default_factory=list)  # each seat's slots as dealt
    runners: list[bytes] = field(default_factory=list)  # the machines that played the computer players

    def seat_of(self, slot: int) -> int | None:
        """The seat whose hand the slot was dealt to (None: set aside)."""
        return next((s for s, hand in enumerate(self.hands) if slot in hand), None)


def round_view(h: HiddenRound, kept: Mapping[str, Any]) -> RoundView:
    """What the seeds and bundles in ``kept`` (a store's meta) open of round ``h``."""
    view = RoundView(h.round_no, None, audited=h.stage == DONE, hands=h.dealt_slots())
    for k in range(len(h.gone) + 1):  # the machine that played the computer players, in turn
        present = [m for m in h.members if m not in h.gone[:k]]
        if present and present[0] not in view.runners:
            view.runners.append(present[0])
    for slot, (card, bit) in h.public.items():
        view.public[slot] = h.card_text(card, bit)
    seed = kept.get("hseed/" + deal_name(h))
    if seed is None or not h.deal.complete:
        return view
    seed = bytes(seed)
    view.member = next((m for m in h.members
                        if h.record.commitments.get(m) == commitment(h.table_id, h.round_no, m, seed)), None)
    if view.member is None:
        return view
    ring = KeyRing(h.members)
    for n, spec in enumerate(h.specs):
        ring.deal(spec.first_slot, spec.size, spec.members)
        for i, key in enumerate(Layer.derive(seed, n, spec.size).keys):
            ring.put(spec.first_slot + i, view.member, key)
        for gone, rebuilt in h.recovered.items():  # a member gone mid-round: its seed is public
            if gone in spec.members:
                for i, key in enumerate(spec.layer(rebuilt).keys):
                    ring.put(spec.first_slot + i, gone, key)
    prefix = "hkey/" + deal_name(h) + "/"
    for name, data in kept.items():
        if str(name).startswith(prefix):
            try:
                bundle = read_bundle(bytes(data))
            except DeckError:
                continue
            if bundle.receiver == view.member and bundle.round_no == h.round_no:
                for slot, key in bundle.items:
                    if 0 <= slot < h.size and bundle.sender in h.members:
                        ring.put(slot, bundle.sender, key)
    for slot in range(h.size):
        if ring.missing(slot) or not h.ready(slot):
            continue
        try:
            card = ring.open(slot, h.slot_point(slot), h.lookup)
        except DeckError:
            continue
        bit = orientation(h.table_id, slot, ring.combined(slot))
        view.opened[slot] = h.card_text(card, bit)
    return view


def peek(table: Any, kept: Mapping[str, Any]) -> list[RoundView]:
    """Every hidden round of ``table`` (a replayed ``TableState``), as this store knows it."""
    rounds: Sequence[HiddenRound] = list(table.audited)
    if table.hidden is not None and table.hidden not in rounds:
        rounds = [*rounds, table.hidden]
    return [round_view(h, kept) for h in rounds]
