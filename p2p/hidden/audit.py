"""The audit at a round's end: every member has revealed its seed; every peer checks each
commitment, rebuilds every step from the seeds, opens every slot and checks what was claimed.

The steps are rebuilt from the seeds, from the deal's start, and compared with the digests in the
log: the first step that differs is pinned on its author (the later ones were built on it, so they
are not blamed; a deal with a wrong step is void, so no later cheat in it matters). The checks run
in this order, and the first fault is the one the table names (every peer finds the same, from the
same log): reveals (withheld, or not matching the commitment), escrow commitments, the steps of
each deal in order, key bundles a holder presented as evidence (a wrong key names its sender; when
every bundle shown is right, in a deal that checks out, the accuser is named), public openings (a
card a slot does not hold).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from cardtable.p2p.hidden import escrow
from cardtable.p2p.hidden.bundles import Bundle
from cardtable.p2p.hidden.deal import Deal, dealt_cards, make_step, start, step_digest
from cardtable.p2p.hidden.group import DeckError, product
from cardtable.p2p.hidden.member import Layer, check_seed, commitment
from cardtable.p2p.hidden.opening import PublicOpen, check_open, orientation
from cardtable.p2p.hidden.payloads import FaultEntry


@dataclass(frozen=True, slots=True)
class Fault:
    """A member that did not follow the protocol: ``code`` (reveal, escrow, step, key, accuse,
    open), where (``deal_no`` and ``step``, or ``slot``; -1 where it does not apply) and what."""

    member: bytes
    code: str
    text: str
    deal_no: int = -1
    step: int = -1
    slot: int = -1

    def show(self, names: Mapping[bytes, str]) -> str:
        """E.g. ``ann (key 3f2a9c1b) published a wrong shuffle at step 3 (a wrong permutation)``."""
        return f"{names.get(self.member, '?')} (key {self.member.hex()[:8]}) {self.text}"

    def entry(self, round_no: int) -> FaultEntry:
        """The ``fault`` entry that records it (detail: the step, else the slot, else 0)."""
        where = self.step if self.step >= 0 else self.slot
        return FaultEntry(round_no, self.member, self.code, max(where, 0))


@dataclass
class RoundRecord:
    """What a round's log holds for the audit, as the table collects it."""

    table_id: bytes
    round_no: int
    members: tuple[bytes, ...]
    commitments: dict[bytes, bytes] = field(default_factory=dict)
    escrow_points: dict[bytes, list[bytes]] = field(default_factory=dict)
    deals: list[Deal] = field(default_factory=list)
    opens: list[tuple[bytes, PublicOpen]] = field(default_factory=list)
    evidence: list[tuple[bytes, Bundle]] = field(default_factory=list)
    reveals: dict[bytes, bytes] = field(default_factory=dict)


@dataclass
class AuditReport:
    """The faults found (in the order above) and, for each deal that checked out, every slot's card
    (canonical index) and orientation bit."""

    faults: list[Fault]
    cards: dict[int, int]
    orientations: dict[int, int]

    @property
    def first(self) -> Fault | None:
        return self.faults[0] if self.faults else None


def _seeds(record: RoundRecord, faults: list[Fault]) -> dict[bytes, bytes]:
    seeds: dict[bytes, bytes] = {}
    for m in record.members:
        seed = record.reveals.get(m)
        if seed is None:
            faults.append(Fault(m, "reveal", "withheld its seed"))
            continue
        try:
            check_seed(seed)
        except DeckError:
            seed = b""
        if commitment(record.table_id, record.round_no, m, seed) != record.commitments.get(m):
            faults.append(Fault(m, "reveal", "revealed a seed that does not match its commitment"))
            continue
        seeds[m] = seed
    return seeds


def _step_fault(deal: Deal, t: int, expected: list[bytes]) -> str:
    if deal.spec.kind(t) == "lock":
        return f"published a wrong lock at step {t}"
    published = deal.points.get(t)
    if published is None:  # only its digest is in the log
        return f"published a wrong shuffle at step {t}"
    why = "a wrong permutation" if sorted(published) == sorted(expected) else "a wrong layer"
    return f"published a wrong shuffle at step {t} ({why})"


def audit(record: RoundRecord, card_points: Sequence[bytes]) -> AuditReport:
    """Check the round (see the module's docstring)."""
    faults: list[Fault] = []
    seeds = _seeds(record, faults)
    threshold = escrow.threshold_for(len(record.members))
    for m in record.members:
        if threshold is not None and m in seeds and m in record.escrow_points \
                and record.escrow_points[m] != escrow.commitments(seeds[m], threshold):
            faults.append(Fault(m, "escrow", "published escrow commitments its seed does not give"))
    cards: dict[int, int] = {}
    orients: dict[int, int] = {}
    keys: dict[tuple[bytes, int], bytes] = {}
    good_slots: set[int] = set()
    for deal in record.deals:
        spec = deal.spec
        layers = {m: spec.layer(seeds[m]) for m in spec.members if m in seeds}
        clean = len(layers) == len(spec.members)
        expected = start(spec, card_points)
        for t in range(spec.steps if clean else 0):
            author = spec.members[spec.author(t)]
            expected = make_step(spec, t, layers[author], expected)
            if t >= len(deal.digests):
                faults.append(Fault(author, "step", f"did not publish step {t}", spec.deal_no, t))
                clean = False
                break
            if step_digest(spec, t, expected) != deal.digests[t]:
                faults.append(Fault(author, "step", _step_fault(deal, t, expected), spec.deal_no, t))
                clean = False  # the later steps are built on this one: only its author is named
                break
        for m, layer in layers.items():
            for i, k in enumerate(layer.keys):
                keys[(m, spec.first_slot + i)] = k
        if clean:
            ordered: list[Layer] = [layers[m] for m in spec.members]
            for i, card in enumerate(dealt_cards(spec, ordered)):
                slot = spec.first_slot + i
                combined = product([layer.keys[i] for layer in ordered])
                cards[slot] = card
                orients[slot] = orientation(record.table_id, slot, combined)
                good_slots.add(slot)
    blamed = False  # a holder cannot tell whose key is wrong: it shows every bundle of the slot
    for _, bundle in record.evidence:
        wrong = [slot for slot, key in bundle.items
                 if bundle.sender in seeds and keys.get((bundle.sender, slot)) not in (None, key)]
        if wrong:
            blamed = True
            faults.append(Fault(bundle.sender, "key", f"sent a wrong key for slot {wrong[0]}", slot=wrong[0]))
    for accuser, bundle in record.evidence[:1] if not blamed else []:
        unknown = [slot for slot, _ in bundle.items if (bundle.sender, slot) not in keys]
        if bundle.sender in seeds and not unknown and all(s in good_slots for s, _ in bundle.items):
            slot = bundle.items[0][0]
            faults.append(Fault(accuser, "accuse", f"blamed a right key for slot {slot}", slot=slot))
    slot_points = {deal.spec.first_slot + i: p for deal in record.deals if deal.complete
                   for i, p in enumerate(deal.slots)}
    for author, proof in record.opens:
        point = slot_points.get(proof.slot)
        forged = point is None or not check_open(proof, point, card_points)
        if forged or (proof.slot in cards and cards[proof.slot] != proof.card):
            faults.append(Fault(author, "open", f"opened slot {proof.slot} as a card it does not hold",
                                slot=proof.slot))
    return AuditReport(faults, cards, orients)
