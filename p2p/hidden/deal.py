"""The joint deal: two passes over the members in seat order, each step a list of points.

Start: the card points of the cards dealt, in the order the spec gives (a round's first deal: the
canonical deck; a SOLO reshuffle: the discard pile as it lies, known to all). Steps ``0..n-1``
(shuffle): member ``t`` publishes ``s_t * prev[perm_t[p]]`` for each position ``p``. Steps ``n..2n-1``
(lock): member ``t - n`` publishes ``(k_i / s) * prev[i]`` for each slot ``i``. At the end slot ``i``
holds ``(prod_j k_{j,i}) * P(card)``: every shuffle scalar is gone and every member's per-slot key
is on it, so a slot opens only with every member's key for it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from cardtable.p2p.hidden.group import POINT_BYTES, DeckError, mul
from cardtable.p2p.hidden.member import Layer

MAX_MEMBERS = 10
MAX_SLOTS = 512


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


@dataclass
class Deal:
    """The published steps of one deal, as a member's machine collects them from the log."""

    spec: DealSpec
    steps: list[list[bytes]] = field(default_factory=list)

    @property
    def complete(self) -> bool:
        return len(self.steps) == self.spec.steps

    @property
    def next_author(self) -> int:
        """The member whose step is due (``spec.members`` index); only while not complete."""
        return self.spec.author(len(self.steps))

    def add(self, points: Sequence[bytes]) -> None:
        """Take the next step; a DeckError (naming the fault) if its shape is wrong. A point
        outside the group is found when the next member uses it (``make_step`` raises)."""
        if self.complete:
            raise DeckError("the deal is complete")
        fault = shape_fault(self.spec, points)
        if fault is not None:
            raise DeckError(f"step {len(self.steps)}: {fault}")
        self.steps.append(list(points))

    def previous(self, card_points: Sequence[bytes]) -> list[bytes]:
        """The deck the next step starts from."""
        return self.steps[-1] if self.steps else start(self.spec, card_points)

    @property
    def slots(self) -> list[bytes]:
        """The final deck: slot ``first_slot + i`` holds ``slots[i]``."""
        if not self.complete:
            raise DeckError("the deal is not complete")
        return self.steps[-1]


def run(spec: DealSpec, seeds: Sequence[bytes], card_points: Sequence[bytes]) -> Deal:
    """A whole deal with every member honest (tests, benchmarks, the audit's model)."""
    deal = Deal(spec)
    layers = [spec.layer(seed) for seed in seeds]
    for t in range(spec.steps):
        deal.add(make_step(spec, t, layers[spec.author(t)], deal.previous(card_points)))
    return deal


def dealt_cards(spec: DealSpec, layers: Sequence[Layer]) -> list[int]:
    """The card (canonical index) each slot holds after an honest deal with these layers."""
    cards = list(spec.cards)
    for layer in layers:
        cards = [cards[layer.perm[p]] for p in range(spec.size)]
    return cards
