"""The joint deal: two passes over the members in seat order, each step a list of points.

Start: the card points of the cards dealt, in the order the spec gives (a round's first deal: the
canonical deck; a SOLO reshuffle: the discard pile as it lies, known to all). Steps ``0..n-1``
(shuffle): member ``t`` publishes ``s_t * prev[perm_t[p]]`` for each position ``p``. Steps ``n..2n-1``
(lock): member ``t - n`` publishes ``(k_i / s) * prev[i]`` for each slot ``i``. At the end slot ``i``
holds ``(prod_j k_{j,i}) * P(card)``: every shuffle scalar is gone and every member's per-slot key
is on it, so a slot opens only with every member's key for it.

Only the next member needs a step's points: a step goes to it directly, and the log holds the step's
digest (``step_digest``), which binds its author to it; the last step goes in the log in full, as
everyone needs it. The audit rebuilds the steps from the seeds and compares digests.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass, field

from cardtable.engine.solo.state import SLOT_LIMIT
from cardtable.p2p.hidden.group import POINT_BYTES, DeckError, mul
from cardtable.p2p.hidden.member import Layer

MAX_MEMBERS = 10
MAX_SLOTS = SLOT_LIMIT  # a slot's number takes 2 bytes; SOLO reshuffles into new slots
STEP_DOMAIN = b"cardtable/hidden/step/"


@dataclass(frozen=True, slots=True)
class DealSpec:
    """One deal of a round: who deals (member keys in seat order), which cards (canonical indices,
    in starting order), and where its slots start in the round's slot numbering."""

    table_id: bytes
    round_no: int
    deal_no: int
    members: tuple[bytes, ...]
    cards: tuple[int, ...]
    first_slot: int = 0

    def __post_init__(self) -> None:
        if not 1 <= len(self.members) <= MAX_MEMBERS or len(set(self.members)) != len(self.members):
            raise DeckError(f"a deal needs 1 to {MAX_MEMBERS} distinct members")
        if not 1 <= len(self.cards) or self.first_slot + len(self.cards) > MAX_SLOTS:
            raise DeckError(f"a round deals at most {MAX_SLOTS} slots")
        if len(set(self.cards)) != len(self.cards):
            raise DeckError("a deal deals each card once")

    @property
    def size(self) -> int:
        return len(self.cards)

    @property
    def steps(self) -> int:
        return 2 * len(self.members)

    def author(self, step: int) -> int:
        """The index (in ``members``) of the member that publishes ``step``."""
        return step % len(self.members)

    def kind(self, step: int) -> str:
        return "shuffle" if step < len(self.members) else "lock"

    def layer(self, seed: bytes) -> Layer:
        return Layer.derive(seed, self.deal_no, self.size)


def start(spec: DealSpec, card_points: Sequence[bytes]) -> list[bytes]:
    """The deck before the first step."""
    return [card_points[c] for c in spec.cards]


def make_step(spec: DealSpec, step: int, layer: Layer, prev: Sequence[bytes]) -> list[bytes]:
    """What the author of ``step`` publishes, from its layer and the previous deck."""
    if spec.kind(step) == "shuffle":
        return [mul(layer.shuffle, prev[layer.perm[p]]) for p in range(spec.size)]
    return [mul(layer.lock(i), prev[i]) for i in range(spec.size)]


def shape_fault(spec: DealSpec, points: Sequence[object]) -> str | None:
    """What is wrong with a published step that anyone can see at once (before any seed is
    revealed), or None: the count, a point outside the group, a point given twice."""
    if len(points) != spec.size:
        return f"published {len(points)} points for a deal of {spec.size}"
    for p in points:
        if not isinstance(p, bytes) or len(p) != POINT_BYTES:
            return "published something that is not a point"
    if len(set(points)) != len(points):
        return "published the same point twice"
    return None


def step_digest(spec: DealSpec, step: int, points: Sequence[bytes]) -> bytes:
    """What the log holds of a step passed from member to member: ``SHA-256(STEP_DOMAIN || table id ||
    round (4 bytes) || deal (2) || step (1) || the points)``."""
    head = spec.round_no.to_bytes(4, "big") + spec.deal_no.to_bytes(2, "big") + bytes([step])
    return hashlib.sha256(STEP_DOMAIN + spec.table_id + head + b"".join(points)).digest()


@dataclass
class Deal:
    """One deal as a member's machine follows it: every step's digest (from the log), and the points
    of the steps it has (the one before its own, sent by its author; the last one, which is in the
    log in full; any step put in the log as a fallback). Tests and the benchmark hold them all."""

    spec: DealSpec
    digests: list[bytes] = field(default_factory=list)
    points: dict[int, list[bytes]] = field(default_factory=dict)

    @property
    def complete(self) -> bool:
        return len(self.digests) == self.spec.steps and self.spec.steps - 1 in self.points

    @property
    def next_author(self) -> int:
        """The member whose step is due (``spec.members`` index); only while not complete."""
        return self.spec.author(len(self.digests))

    def add(self, digest: bytes | None, points: Sequence[bytes] | None = None) -> None:
        """The next step: its digest from the log and, when this machine has them, its points (the
        last step's digest is that of its points). A DeckError names what is wrong."""
        t = len(self.digests)
        if t == self.spec.steps:
            raise DeckError("the deal is complete")
        if points is None:
            if digest is None or t == self.spec.steps - 1:
                raise DeckError(f"step {t}: the last step goes in the log in full")
            self.digests.append(digest)
            return
        self._check(t, points, digest)
        self.digests.append(digest or step_digest(self.spec, t, points))
        self.points[t] = list(points)

    def attach(self, t: int, points: Sequence[bytes]) -> None:
        """The points of step ``t``, whose digest is already in: a DeckError unless they match it."""
        if not 0 <= t < len(self.digests):
            raise DeckError(f"step {t} has no digest yet")
        self._check(t, points, self.digests[t])
        self.points[t] = list(points)

    def _check(self, t: int, points: Sequence[bytes], digest: bytes | None) -> None:
        fault = shape_fault(self.spec, points)
        if fault is not None:
            raise DeckError(f"step {t}: {fault}")
        if digest is not None and step_digest(self.spec, t, points) != digest:
            raise DeckError(f"step {t}: the points do not match the digest in the log")

    def previous(self, card_points: Sequence[bytes]) -> list[bytes]:
        """The deck the next step starts from."""
        t = len(self.digests)
        if t == 0:
            return start(self.spec, card_points)
        if t - 1 not in self.points:
            raise DeckError(f"step {t - 1}: its points have not arrived")
        return self.points[t - 1]

    @property
    def slots(self) -> list[bytes]:
        """The final deck: slot ``first_slot + i`` holds ``slots[i]``."""
        if not self.complete:
            raise DeckError("the deal is not complete")
        return self.points[self.spec.steps - 1]


def run(spec: DealSpec, seeds: Sequence[bytes], card_points: Sequence[bytes]) -> Deal:
    """A whole deal with every member honest (tests, benchmarks, the audit's model)."""
    deal = Deal(spec)
    layers = [spec.layer(seed) for seed in seeds]
    for t in range(spec.steps):
        deal.add(None, make_step(spec, t, layers[spec.author(t)], deal.previous(card_points)))
    return deal


def dealt_cards(spec: DealSpec, layers: Sequence[Layer]) -> list[int]:
    """The card (canonical index) each slot holds after an honest deal with these layers."""
    cards = list(spec.cards)
    for layer in layers:
        cards = [cards[layer.perm[p]] for p in range(spec.size)]
    return cards
