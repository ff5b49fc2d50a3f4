"""Hidden hands: every cheat a modified member can try is caught, and the audit names the cheater
(docs/hidden-hands.md, "What a member can no longer do")."""

from __future__ import annotations

import hashlib
from collections.abc import Callable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cardtable.p2p.hidden import escrow, payloads
from cardtable.p2p.hidden.audit import RoundRecord, audit
from cardtable.p2p.hidden.bundles import make_bundle
from cardtable.p2p.hidden.deal import Deal, DealSpec, make_step, start, step_digest
from cardtable.p2p.hidden.group import DeckError, L, base, mul, product, scalar, scalar_int, smul
from cardtable.p2p.hidden.member import Layer, commitment
from cardtable.p2p.hidden.opening import KeyRing, PublicOpen, check_open, orientation
from tests.p2p.test_deck import TABLE, Table, deal_table

NAMES = [f"c{i}" for i in range(7)]
Cheat = Callable[[DealSpec, int, Layer, list[bytes]], list[bytes]]


def honest(spec: DealSpec, t: int, layer: Layer, prev: list[bytes]) -> list[bytes]:
    return make_step(spec, t, layer, prev)


def dealt_with(table: Table, cheater: int, step: int, cheat: Cheat) -> Deal:
    """The table's deal again, member ``cheater`` publishing ``cheat``'s output at ``step``."""
    deal = Deal(table.spec)
    for t in range(table.spec.steps):
        author = table.spec.author(t)
        how = cheat if (author, t) == (cheater, step) else honest
        deal.add(None, how(table.spec, t, table.layers[author], deal.previous(table.points)))
    return deal


def record_of(table: Table, deal: Deal | None = None) -> RoundRecord:
    rec = RoundRecord(TABLE, 0, tuple(table.members))
    for m, seed in zip(table.members, table.seeds, strict=True):
        rec.commitments[m] = commitment(TABLE, 0, m, seed)
        rec.reveals[m] = seed
    rec.deals.append(deal or table.deal)
    return rec


def other_perm(spec: DealSpec, t: int, layer: Layer, prev: list[bytes]) -> list[bytes]:
    perm = list(layer.perm)
    perm[0], perm[1] = perm[1], perm[0]
    return make_step(spec, t, Layer(tuple(perm), layer.shuffle, layer.unshuffle, layer.keys), prev)


def other_layer(spec: DealSpec, t: int, layer: Layer, prev: list[bytes]) -> list[bytes]:
    s = smul(layer.shuffle, scalar(2))
    return make_step(spec, t, Layer(layer.perm, s, layer.unshuffle, layer.keys), prev)


def other_lock(spec: DealSpec, t: int, layer: Layer, prev: list[bytes]) -> list[bytes]:
    keys = (smul(layer.keys[0], scalar(3)),) + layer.keys[1:]
    return make_step(spec, t, Layer(layer.perm, layer.shuffle, layer.unshuffle, keys), prev)


def test_an_honest_round_audits_clean_and_opens_every_slot() -> None:
    table = deal_table(NAMES, 3)
    report = audit(record_of(table), table.points)
    assert report.first is None
    assert [report.cards[i] for i in range(len(NAMES))] == table.truth()
    combined = [product([la.keys[i] for la in table.layers]) for i in range(len(NAMES))]
    assert [report.orientations[i] for i in range(len(NAMES))] == \
        [orientation(TABLE, i, k) for i, k in enumerate(combined)]


@pytest.mark.parametrize(("cheat", "step", "text"), [
    (other_perm, 1, "published a wrong shuffle at step 1 (a wrong permutation)"),
    (other_layer, 2, "published a wrong shuffle at step 2 (a wrong layer)"),
    (other_lock, 4, "published a wrong lock at step 4"),
])
def test_a_wrong_step_is_named_with_its_author(cheat: Cheat, step: int, text: str) -> None:
    table = deal_table(NAMES, 3)
    cheater = table.spec.author(step)
    report = audit(record_of(table, dealt_with(table, cheater, step, cheat)), table.points)
    assert report.first is not None
    assert (report.first.member, report.first.step, report.first.text) == (table.members[cheater], step, text)
    assert len(report.faults) == 1  # later honest steps, built on the wrong one, are not blamed
    assert report.first.show({table.members[cheater]: "eve"}).startswith(
        f"eve (key {table.members[cheater].hex()[:8]}) published a wrong")
    assert report.cards == {}  # a deal that does not check out opens nothing: the round is void
    entry = payloads.read_fault(payloads.fault_payload(report.first.entry(0)))
    assert (entry.accused, entry.code, entry.detail) == (table.members[cheater], "step", step)


@settings(max_examples=20, deadline=None)
@given(n=st.integers(2, 4), data=st.data())
def test_any_wrong_step_of_any_member_names_exactly_that_member(n: int, data: st.DataObject) -> None:
    table = deal_table(NAMES[:5], n, salt=n)
    step = data.draw(st.integers(0, 2 * n - 1))
    cheats = [other_perm, other_layer] if table.spec.kind(step) == "shuffle" else [other_lock]
    cheat = data.draw(st.sampled_from(cheats))
    report = audit(record_of(table, dealt_with(table, table.spec.author(step), step, cheat)), table.points)
    assert [(f.member, f.step) for f in report.faults] == [(table.members[table.spec.author(step)], step)]


def test_a_repeated_point_is_refused_at_once_and_a_non_point_is_found_by_the_next_member() -> None:
    table = deal_table(NAMES, 3)
    deal = Deal(table.spec)
    first = make_step(table.spec, 0, table.layers[0], start(table.spec, table.points))
    with pytest.raises(DeckError, match="step 0: published the same point twice"):
        deal.add(None, [first[0], *first[:-1]])
    junk = bytes(32)  # not a point of the group
    deal.add(None, [junk, *first[1:]])
    with pytest.raises(DeckError, match="not a point"):
        make_step(table.spec, 1, table.layers[1], deal.points[0])
    report = audit(record_of(table, deal), table.points)
    assert report.first is not None and report.first.member == table.members[0]
    assert report.first.text == "published a wrong shuffle at step 0 (a wrong layer)"


def test_a_step_sent_to_the_next_member_must_match_its_digest_in_the_log() -> None:
    """A step goes to the next member directly and only its digest is in the log: the next member
    refuses points that differ from that digest, so the author cannot send one step and log
    another. A wrong step known only by its digest is still named at the audit."""
    table = deal_table(NAMES, 3)
    cheat = other_perm(table.spec, 1, table.layers[1], table.deal.points[0])
    deal = Deal(table.spec)
    deal.add(table.deal.digests[0])
    deal.attach(0, table.deal.points[0])
    deal.add(table.deal.digests[1])  # the honest digest in the log...
    with pytest.raises(DeckError, match="step 1: the points do not match the digest in the log"):
        deal.attach(1, cheat)  # ...and other points sent directly
    with pytest.raises(DeckError, match="step 1: its points have not arrived"):
        deal.previous(table.points)
    logged = Deal(table.spec)
    logged.add(table.deal.digests[0])
    logged.add(step_digest(table.spec, 1, cheat))  # the cheat, logged by digest only
    for t in range(2, table.spec.steps - 1):
        logged.add(table.deal.digests[t])
    logged.add(None, table.deal.points[table.spec.steps - 1])
    report = audit(record_of(table, logged), table.points)
    assert [(f.member, f.text) for f in report.faults] == [
        (table.members[1], "published a wrong shuffle at step 1")]


def test_a_withheld_or_wrong_reveal_is_named() -> None:
    table = deal_table(NAMES, 3)
    rec = record_of(table)
    del rec.reveals[table.members[1]]
    rec.reveals[table.members[2]] = table.seeds[0]
    report = audit(rec, table.points)
    assert [(f.member, f.text) for f in report.faults] == [
        (table.members[1], "withheld its seed"),
        (table.members[2], "revealed a seed that does not match its commitment")]
    assert report.cards == {}


def test_a_step_that_never_came_names_the_member_whose_step_it_was() -> None:
    table = deal_table(NAMES, 3)
    deal = Deal(table.spec)
    for t in range(4):
        deal.add(table.deal.digests[t])
    report = audit(record_of(table, deal), table.points)
    assert report.first is not None
    assert (report.first.member, report.first.text) == (table.members[1], "did not publish step 4")


def test_a_wrong_key_fails_the_holders_opening_and_its_bundle_names_the_sender() -> None:
    table = deal_table(NAMES, 3)
    holder, liar = 0, 2
    ring = table.ring_for(holder, [0])
    bad = smul(table.layers[liar].keys[0], scalar(5))
    bundle = make_bundle(table.ids[liar], TABLE, 0, table.members[holder], [(0, bad)])
    ring.put(0, bundle.sender, bundle.items[0][1])
    with pytest.raises(DeckError, match="slot 0: the keys do not open this slot to a card"):
        ring.open(0, table.deal.slots[0], table.lookup())
    rec = record_of(table)
    rec.evidence.append((table.members[holder], bundle))
    report = audit(rec, table.points)
    named = [(f.member, f.text) for f in report.faults]
    assert named == [(table.members[liar], "sent a wrong key for slot 0")]


def test_a_holder_that_blames_a_right_key_is_named_itself() -> None:
    table = deal_table(NAMES, 3)
    bundle = make_bundle(table.ids[1], TABLE, 0, table.members[0], [(0, table.layers[1].keys[0])])
    rec = record_of(table)
    rec.evidence.append((table.members[0], bundle))
    report = audit(rec, table.points)
    named = [(f.member, f.text) for f in report.faults]
    assert named == [(table.members[0], "blamed a right key for slot 0")]


def test_a_forged_public_opening_fails_and_is_named() -> None:
    table = deal_table(NAMES, 3)
    truth = table.truth()
    slot, holder = 2, 1
    proof = table.ring_for(holder, [slot]).proof(slot, truth[slot])
    point = table.deal.slots[slot]
    assert check_open(proof, point, table.points)
    other = (truth[slot] + 1) % len(NAMES)
    forged = [PublicOpen(slot, other, proof.key),  # the right key, another card
              PublicOpen(slot, other, smul(proof.key, scalar(7))),  # a guessed key
              PublicOpen(slot, truth[slot], smul(proof.key, scalar(2))),  # the card, a wrong key
              PublicOpen(slot, other, scalar(0)), PublicOpen(slot, 99, proof.key)]
    assert not any(check_open(f, point, table.points) for f in forged)
    rec = record_of(table)
    rec.opens += [(table.members[holder], proof), (table.members[holder], forged[0])]
    report = audit(rec, table.points)
    assert [(f.member, f.text) for f in report.faults] == [
        (table.members[holder], f"opened slot {slot} as a card it does not hold")]


def test_with_card_points_of_known_logarithms_a_holder_could_forge_an_opening() -> None:
    """Why card points come from a hash: were P(b) = 2 * P(a), the holder of a slot with card b
    could claim card a with the key 2K. ``check_open`` accepts such a forgery; the real deck's
    points (from_uniform of a hash) leave no such relation to exploit (test above)."""
    table = deal_table(NAMES, 3)
    truth = table.truth()
    slot = 0
    combined = product([la.keys[slot] for la in table.layers])
    points = list(table.points)
    a = (truth[slot] + 1) % len(NAMES)
    points[truth[slot]] = mul(scalar(2), points[a])  # a deck where P(b) = 2 P(a)
    slot_point = mul(combined, points[truth[slot]])
    assert check_open(PublicOpen(slot, a, smul(combined, scalar(2))), slot_point, points)


def test_an_orientation_cannot_be_claimed_the_other_way() -> None:
    """SCOUT: a slot's orientation is a bit of a hash of K_i, which the public proof checks: to
    claim the card the other way up the holder needs another K' that opens the same slot to the
    same card, i.e. K' = K (the group has prime order)."""
    table = deal_table(NAMES, 3, game="scout")
    slot = 4
    combined = product([la.keys[slot] for la in table.layers])
    point = table.deal.slots[slot]
    card = table.truth()[slot]
    up = orientation(TABLE, slot, combined)
    flips = [k for k in (scalar(scalar_int(combined) + d) for d in range(1, 40))
             if orientation(TABLE, slot, k) != up]
    assert flips and not any(check_open(PublicOpen(slot, card, k), point, table.points) for k in flips)
    negated = scalar(L - scalar_int(combined))  # -K: the same x-coordinate family, still refused
    assert not check_open(PublicOpen(slot, card, negated), point, table.points)


def test_a_withheld_key_leaves_the_holder_unable_to_open_and_names_the_withholder() -> None:
    table = deal_table(NAMES, 4)
    ring = KeyRing(table.members)
    for j in (0, 1, 3):
        ring.put(5, table.members[j], table.layers[j].keys[5])
    assert ring.missing(5) == [table.members[2]]
    with pytest.raises(DeckError, match="no key yet"):
        ring.proof(5, 0)


def test_escrow_commitments_a_seed_does_not_give_are_named() -> None:
    table = deal_table(NAMES, 4)
    rec = record_of(table)
    t = escrow.threshold_for(4)
    assert t == 3
    for m, seed in zip(table.members, table.seeds, strict=True):
        rec.escrow_points[m] = escrow.commitments(seed, t)
    assert audit(rec, table.points).first is None
    rec.escrow_points[table.members[3]] = [base(scalar(5)), *rec.escrow_points[table.members[3]][1:]]
    report = audit(rec, table.points)
    assert [(f.member, f.code) for f in report.faults] == [(table.members[3], "escrow")]


def test_a_seed_reveal_does_not_match_another_rounds_commitment() -> None:
    table = deal_table(NAMES, 2)
    assert commitment(TABLE, 0, table.members[0], table.seeds[0]) != \
        commitment(TABLE, 1, table.members[0], table.seeds[0])
    assert commitment(TABLE, 0, table.members[0], table.seeds[0]) != \
        commitment(TABLE, 0, table.members[1], table.seeds[0])
    assert len(hashlib.sha256().digest()) == len(commitment(TABLE, 0, table.members[0], table.seeds[0]))
