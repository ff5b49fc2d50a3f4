"""Hidden hands (docs/hidden-hands.md): the joint deal and its openings for every player count of
both games, determinism, and a member's own view (what its machine can compute)."""

from __future__ import annotations

import functools
import hashlib
import itertools
from collections.abc import Sequence
from dataclasses import dataclass, field

import pytest

from cardtable.p2p.hidden.deal import Deal, DealSpec, dealt_cards, run
from cardtable.p2p.hidden.decks import scout_names, solo_names
from cardtable.p2p.hidden.group import DeckError, card_points, invert, mul, product, smul
from cardtable.p2p.hidden.member import Layer, new_seed
from cardtable.p2p.hidden.opening import KeyRing, orientation
from cardtable.p2p.identity import Identity

TABLE = bytes(range(16))
HAND = {"solo": 8, "scout": {2: 11, 3: 12, 4: 11, 5: 9}}


def identities(n: int) -> list[Identity]:
    return [Identity.from_seed(bytes([i + 1]) * 32) for i in range(n)]


def seeds(n: int, salt: int = 0) -> list[bytes]:
    return [new_seed(hashlib.sha512(b"deck-test/%d/%d" % (salt, i)).digest()) for i in range(n)]


def spec_for(members: Sequence[bytes], size: int, deal_no: int = 0, first_slot: int = 0,
             round_no: int = 0, cards: Sequence[int] | None = None) -> DealSpec:
    dealt = tuple(cards if cards is not None else range(size))
    return DealSpec(TABLE, round_no, deal_no, tuple(members), dealt, first_slot)


@dataclass
class Table:
    """A round's deal among ``n`` honest members, with every member's layer (the test knows all)."""

    names: tuple[str, ...]
    ids: list[Identity]
    seeds: list[bytes]
    points: tuple[bytes, ...]
    spec: DealSpec
    deal: Deal
    layers: list[Layer] = field(default_factory=list)

    @property
    def members(self) -> list[bytes]:
        return [i.key for i in self.ids]

    def truth(self) -> list[int]:
        return dealt_cards(self.spec, self.layers)

    def lookup(self) -> dict[bytes, int]:
        return {p: c for c, p in enumerate(self.points)}

    def ring_for(self, holder: int, slots: Sequence[int]) -> KeyRing:
        """The holder's keyring after every other member sent its keys for ``slots``."""
        ring = KeyRing(self.members)
        for slot in slots:
            for j, layer in enumerate(self.layers):
                ring.put(slot, self.members[j], layer.keys[slot - self.spec.first_slot])
        return ring


def deal_table(names: Sequence[str], n: int, salt: int = 0, game: str = "solo") -> Table:
    ids = identities(n)
    s = seeds(n, salt)
    points = card_points(TABLE, game, names)
    spec = spec_for([i.key for i in ids], len(names))
    deal = run(spec, s, points)
    return Table(tuple(names), ids, s, points, spec, deal, [spec.layer(x) for x in s])


def hands(n: int, per_hand: int) -> dict[int, list[int]]:
    """Slots dealt one at a time from slot 0, seat 0 first."""
    return {seat: [i for i in range(per_hand * n) if i % n == seat] for seat in range(n)}


COUNTS = [("solo", n) for n in range(2, 11)] + [("scout", n) for n in range(2, 6)]


@pytest.mark.parametrize(("game", "n"), COUNTS)
def test_every_holder_opens_exactly_its_cards_at_every_player_count(game: str, n: int) -> None:
    names = solo_names(True, True) if game == "solo" else scout_names(n)
    table = deal_table(names, n, salt=n, game=game)
    truth = table.truth()
    assert sorted(truth) == list(range(len(names)))  # a permutation: every card once
    per_hand = HAND["solo"] if game == "solo" else HAND["scout"][n]  # type: ignore[index]
    if game == "scout" and n == 2:
        per_hand = 11  # round 1's hands; the other 22 are set aside (a fresh deal in round 2)
    lookup = table.lookup()
    slots = table.deal.slots
    for seat, mine in hands(n, per_hand).items():
        ring = table.ring_for(seat, mine)
        assert [ring.open(i, slots[i], lookup) for i in mine] == [truth[i] for i in mine]
        if game == "scout":
            orient = [orientation(TABLE, i, ring.combined(i)) for i in mine]
            assert set(orient) <= {0, 1}
    if game == "scout":
        combined = [product([la.keys[i] for la in table.layers]) for i in range(len(names))]
        bits = [orientation(TABLE, i, k) for i, k in enumerate(combined)]
        assert 0 < sum(bits) < len(bits)  # both ways up occur


def test_the_deal_is_a_deterministic_function_of_the_seeds() -> None:
    names = scout_names(5)
    a, b = deal_table(names, 5, salt=1), deal_table(names, 5, salt=1)
    assert a.deal.digests == b.deal.digests and a.deal.points == b.deal.points and a.truth() == b.truth()
    other = seeds(5, 1)
    other[3] = seeds(5, 2)[3]  # one member's seed differs
    points = card_points(TABLE, "solo", names)
    c = run(a.spec, other, points)
    assert c.digests[:3] == a.deal.digests[:3] and c.digests[3] != a.deal.digests[3]
    assert not set(c.slots) & set(a.deal.slots)  # every final slot point differs
    assert dealt_cards(a.spec, [a.spec.layer(x) for x in other]) != a.truth()


def test_two_copies_of_one_face_have_different_points_and_a_deal_never_shows_a_pair() -> None:
    names = solo_names(False, False)
    assert names.count("wild") == 4
    table = deal_table(names, 3)
    assert len(set(table.points)) == len(names)
    for step in table.deal.points.values():
        assert len(set(step)) == len(step)


def test_a_holder_without_every_key_cannot_open_and_learns_whose_is_missing() -> None:
    table = deal_table(scout_names(3), 3)
    ring = KeyRing(table.members)
    ring.put(0, table.members[0], table.layers[0].keys[0])
    ring.put(0, table.members[2], table.layers[2].keys[0])
    assert ring.missing(0) == [table.members[1]]
    with pytest.raises(DeckError, match="no key yet from " + table.members[1].hex()[:8]):
        ring.open(0, table.deal.slots[0], table.lookup())


# --- a member's own view -------------------------------------------------------------------------

@functools.cache
def cached_mul(x: bytes, point: bytes) -> bytes:
    """``mul``, remembered: a view checked again after each event of a round redoes little."""
    return mul(x, point)


def view_opens(table: Table, me: int, received: dict[int, dict[int, bytes]],
               public: dict[int, bytes]) -> dict[int, int]:
    """Every slot member ``me``'s machine can open from what it holds: its seed (its own shuffle
    scalar and keys), the keys it received (``received[slot][member]``), the public combined keys of
    played cards, and every published point of the slot (each lock step and the final one). It tries
    every product of up to two of its scalars or their inverses, and the product of all the keys it
    has for the slot, on every point of the slot: what it finds is what it knows."""
    layer = table.layers[me]
    scalars = [layer.shuffle, *layer.keys, *public.values()]
    scalars += [k for by in received.values() for k in by.values()]
    scalars = list(dict.fromkeys(scalars))
    singles = scalars + [invert(s) for s in scalars]
    tries = set(singles) | {smul(a, b) for a, b in itertools.combinations(singles, 2)}
    # The tries are closed under inversion, so "x * point is a card" for some try x is the same as
    # "point is x * card" for some try x: one table of x * P(card), then lookups (three times fewer
    # multiplications than trying every x on every point).
    reach = {cached_mul(x, p): card for x in tries for card, p in enumerate(table.points)}
    lookup = table.lookup()
    n = len(table.members)
    found: dict[int, int] = {}
    for slot in range(table.spec.size):
        points = [table.deal.points[t][slot] for t in range(n, 2 * n)]
        mine = {me: layer.keys[slot], **received.get(slot, {})}
        if len(mine) == n:
            points = [*points, mul(invert(product(list(mine.values()))), points[-1])]
        for point in points:
            card = reach.get(point, lookup.get(point))
            if card is not None:
                found[slot] = card
    return found


def routed_keys(table: Table, me: int, my_slots: Sequence[int]) -> dict[int, dict[int, bytes]]:
    return {slot: {j: table.layers[j].keys[slot] for j in range(len(table.members)) if j != me}
            for slot in my_slots}


def test_a_members_machine_knows_exactly_the_cards_its_seat_may_see() -> None:
    """A small deal of 6 cards among 3 members: each holds one slot, slot 3 was played (public),
    slots 4 and 5 are face down. Whatever a member computes from its seed, the keys it received and
    the log, it finds its own card and the played one, and nothing else."""
    names = [f"c{i}" for i in range(6)]
    table = deal_table(names, 3, salt=7)
    truth = table.truth()
    public = {3: product([la.keys[3] for la in table.layers])}
    for me in range(3):
        found = view_opens(table, me, routed_keys(table, me, [me]), public)
        assert found == {me: truth[me], 3: truth[3]}


def test_through_a_simulated_round_each_machine_knows_exactly_what_its_seat_may_see() -> None:
    """A round of a SOLO-like game among three machines, checked after every event: the deal, a draw,
    a card played, a Gift, a Swap, another draw. Keys travel as the protocol says (to a slot's new
    holder, from every other machine); each machine's view is compared with what its seat may see:
    the cards it ever held or was given, and the cards played."""
    names = [f"c{i}" for i in range(6)]
    table = deal_table(names, 3, salt=21)
    truth = table.truth()
    received: dict[int, dict[int, dict[int, bytes]]] = {m: {} for m in range(3)}
    public: dict[int, bytes] = {}
    may_see: dict[int, set[int]] = {m: set() for m in range(3)}

    def give(slot: int, to: int) -> None:
        keys = {j: table.layers[j].keys[slot] for j in range(3) if j != to}
        received[to].setdefault(slot, {}).update(keys)
        may_see[to].add(slot)

    def check() -> None:
        for m in range(3):
            assert view_opens(table, m, received[m], public) == {s: truth[s] for s in may_see[m]}, m

    for seat in range(3):  # the deal: slot i to seat i; slots 3-5 are the draw pile
        give(seat, seat)
    check()
    give(3, 0)  # seat 0 draws
    check()
    public[1] = product([la.keys[1] for la in table.layers])  # seat 1 plays its card
    for m in range(3):
        may_see[m].add(1)
    check()
    give(3, 2)  # seat 0 gifts the drawn card to seat 2 (and still knows it)
    check()
    for slot, to in ((0, 2), (2, 0), (3, 0)):  # seats 0 and 2 swap hands
        give(slot, to)
    check()
    give(4, 1)  # seat 1 draws; slot 5 stays face down for everyone
    check()
    assert all(5 not in may_see[m] for m in range(3))


def test_the_view_check_sees_a_key_sent_to_the_wrong_member() -> None:
    """Control for the test above: a planted routing bug (member 1 also gets the other members'
    keys of slot 4) shows as a card member 1 may not see."""
    names = [f"c{i}" for i in range(6)]
    table = deal_table(names, 3, salt=7)
    received = routed_keys(table, 1, [1, 4])
    found = view_opens(table, 1, received, {})
    assert 4 in found and found[4] == table.truth()[4]


def test_the_view_check_sees_a_layer_that_reuses_one_key_for_every_slot() -> None:
    """Control: had the per-slot keys been one key per member, the keys a holder gets for its own
    slot would open every slot (the check finds them)."""
    names = [f"c{i}" for i in range(6)]
    table = deal_table(names, 2, salt=3)
    table.layers = [Layer(la.perm, la.shuffle, la.unshuffle, (la.keys[0],) * 6) for la in table.layers]
    table.deal = Deal(table.spec)
    from cardtable.p2p.hidden.deal import make_step
    for t in range(table.spec.steps):
        table.deal.add(None, make_step(table.spec, t, table.layers[table.spec.author(t)],
                                 table.deal.previous(table.points)))
    found = view_opens(table, 0, routed_keys(table, 0, [0]), {})
    assert set(found) == set(range(6))


# --- the round goes on: a SOLO reshuffle, a hand that changes holder, a takeover -------------------

def test_a_reshuffle_is_a_fresh_deal_of_known_cards_numbered_on_and_the_audit_covers_both() -> None:
    from cardtable.p2p.hidden.audit import RoundRecord, audit
    from cardtable.p2p.hidden.member import commitment

    names = [f"c{i}" for i in range(10)]
    table = deal_table(names, 3, salt=11)
    truth = table.truth()
    discard = [truth[i] for i in (6, 7, 8, 9)]  # opened publicly as they were played, in pile order
    spec1 = spec_for(table.members, 0, deal_no=1, first_slot=10, cards=discard[:-1])  # the top card stays
    redeal = run(spec1, table.seeds, table.points)
    layers1 = [spec1.layer(s) for s in table.seeds]
    assert sorted(dealt_cards(spec1, layers1)) == sorted(discard[:-1])
    ring = KeyRing(table.members)
    for slot in (10, 11, 12):
        for j, layer in enumerate(layers1):
            ring.put(slot, table.members[j], layer.keys[slot - 10])
    drawn = [ring.open(s, redeal.slots[s - 10], table.lookup()) for s in (10, 11, 12)]
    assert drawn == dealt_cards(spec1, layers1)
    rec = RoundRecord(TABLE, 0, tuple(table.members))
    for m, seed in zip(table.members, table.seeds, strict=True):
        rec.commitments[m], rec.reveals[m] = commitment(TABLE, 0, m, seed), seed
    rec.deals += [table.deal, redeal]
    report = audit(rec, table.points)
    assert report.first is None
    assert [report.cards[s] for s in range(13)] == truth + drawn


def test_a_hand_that_changes_holder_opens_for_the_new_holder_and_the_old_keeps_what_it_knew() -> None:
    """Swap hands between members 0 and 1 of three: every member but the new holder sends its keys
    for the moved slots (the old holder sends its own too). Member 0 then knows both hands, member 1
    both hands, member 2 only its own: as at a real table."""
    names = [f"c{i}" for i in range(6)]
    table = deal_table(names, 3, salt=5)
    truth = table.truth()
    before = {0: routed_keys(table, 0, [0]), 1: routed_keys(table, 1, [1]), 2: routed_keys(table, 2, [2])}
    after = {0: {**before[0], **routed_keys(table, 0, [1])}, 1: {**before[1], **routed_keys(table, 1, [0])},
             2: before[2]}
    assert view_opens(table, 0, after[0], {}) == {0: truth[0], 1: truth[1]}
    assert view_opens(table, 1, after[1], {}) == {0: truth[0], 1: truth[1]}
    assert view_opens(table, 2, after[2], {}) == {2: truth[2]}


def test_a_gone_members_seed_is_rebuilt_from_the_others_shares_and_its_seat_plays_on() -> None:
    """Member 2 of four is gone for good; its takeover is committed; the three others publish the
    shares its ``deal`` entry sealed for them. Everyone rebuilds its seed (checked against its
    commitment). The machine that runs the computer player in its seat (member 0) gets the others'
    keys for that hand as for any hand that changes holder, and opens it; member 1 still cannot
    (it lacks member 0's keys); the audit takes the rebuilt seed as member 2's reveal."""
    from cardtable.p2p.hidden import escrow
    from cardtable.p2p.hidden.audit import RoundRecord, audit
    from cardtable.p2p.hidden.member import commitment

    names = [f"c{i}" for i in range(5)]
    table = deal_table(names, 4, salt=9)
    gone = 2
    dealer = table.members[gone]
    committed = commitment(TABLE, 0, dealer, table.seeds[gone])
    points, sealed = escrow.escrow(table.ids[gone], table.seeds[gone], TABLE, 0, table.members)
    others = [x for x in range(4) if x != gone]
    released = {table.members[x]: escrow.open_share(table.ids[x], TABLE, 0, dealer, box)
                for x, box in zip(others, sealed, strict=True)}
    seed = escrow.recover(TABLE, 0, dealer, table.members, points, released, committed)
    assert seed == table.seeds[gone]
    hand = [2]  # seat 2's slot
    rebuilt = Layer.derive(seed, 0, len(names))
    runner = {slot: {j: (rebuilt if j == gone else table.layers[j]).keys[slot] for j in (1, 2, 3)}
              for slot in hand}
    assert view_opens(table, 0, runner, {}) == {slot: table.truth()[slot] for slot in hand}
    public = {slot: {gone: rebuilt.keys[slot]} for slot in hand}  # the seed is public now
    assert view_opens(table, 1, public, {}) == {}
    wrong = dict(released)
    wrong[table.members[3]] = bytes(32)
    with pytest.raises(DeckError, match=f"{table.members[3].hex()[:8]} published a wrong share"):
        escrow.recover(TABLE, 0, dealer, table.members, points, wrong, committed)
    del wrong[table.members[3]]
    with pytest.raises(DeckError, match="1 more share"):
        escrow.recover(TABLE, 0, dealer, table.members, points, wrong, committed)
    rec = RoundRecord(TABLE, 0, tuple(table.members))
    for m, s in zip(table.members, table.seeds, strict=True):
        rec.commitments[m], rec.reveals[m] = commitment(TABLE, 0, m, s), s
    rec.reveals[dealer] = seed
    rec.deals.append(table.deal)
    assert audit(rec, table.points).first is None
