"""Costs of hidden hands (docs/hidden-hands.md): CPU per member and bytes per deal.

Run: ``python bench/deck.py [--repeat R] [--rounds N]``. One process; CPU time
(``time.process_time``), median of ``R`` repeats. Prints: the group's operations (and, for the
choice of group, ristretto255 through the system's libsodium when it has one, and a 2048-bit
modular exponentiation); each member's CPU for the deal of a 10-player SOLO anniversary round and
of a 5-player SCOUT round; an opening, a public proof check and the whole audit; bytes published
per deal and per round against today's traffic (bytes per action from docs/protocol.md, actions
and draws per round from random play as bench/engine.py plays).
"""

from __future__ import annotations

import argparse
import ctypes
import ctypes.util
import hashlib
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.engine import _meta  # noqa: E402
from cardtable.engine.scout import Config as ScoutConfig  # noqa: E402
from cardtable.engine.scout import new_round as scout_round  # noqa: E402
from cardtable.engine.shuffle import Stream  # noqa: E402
from cardtable.engine.solo import Config as SoloConfig  # noqa: E402
from cardtable.engine.solo import new_round as solo_round  # noqa: E402
from cardtable.engine.solo.actions import Play  # noqa: E402
from cardtable.p2p import seal, wire  # noqa: E402
from cardtable.p2p.hidden import escrow, payloads  # noqa: E402
from cardtable.p2p.hidden.audit import RoundRecord, audit  # noqa: E402
from cardtable.p2p.hidden.bundles import (  # noqa: E402
    STEP_POINTS,
    Bundle,
    StepChunk,
    bundles_for,
    decode_secret,
    encode_secret,
    make_bundle,
)
from cardtable.p2p.hidden.deal import Deal, DealSpec, make_step, step_digest  # noqa: E402
from cardtable.p2p.hidden.decks import scout_names, solo_names  # noqa: E402
from cardtable.p2p.hidden.group import base, card_points, invert, mul, product, scalar  # noqa: E402
from cardtable.p2p.hidden.member import Layer, commitment, new_seed  # noqa: E402
from cardtable.p2p.hidden.opening import KeyRing, check_open, open_point  # noqa: E402
from cardtable.p2p.identity import Identity  # noqa: E402

TABLE = bytes(range(16))
MAXINT = 2**63 - 1
# Today's traffic, bytes sent per action, all peers together (docs/protocol.md, simulated, 0% loss).
TODAY_B_PER_ACT = {10: 6391, 4: 2192}


def cpu(fn: Callable[[], Any], repeat: int) -> float:
    """Median CPU seconds of ``fn``."""
    times = []
    for _ in range(repeat):
        t = time.process_time()
        fn()
        times.append(time.process_time() - t)
    return statistics.median(times)


def group_costs(repeat: int) -> list[str]:
    p = card_points(TABLE, "bench", ["x"])[0]
    s = scalar(2**200 + 12345)
    n = 500
    rows = [
        ("ed25519 mul (noclamp, subgroup checked)", cpu(lambda: [mul(s, p) for _ in range(n)], repeat) / n),
        ("ed25519 base mul", cpu(lambda: [base(s) for _ in range(n)], repeat) / n),
        ("card point (from_uniform of a hash)", cpu(lambda: card_points(TABLE, "b", ["x"] * n), repeat) / n),
        ("scalar invert", cpu(lambda: [invert(s) for _ in range(n)], repeat) / n),
    ]
    lib_name = ctypes.util.find_library("sodium")
    if lib_name:
        lib = ctypes.CDLL(lib_name)
        lib.sodium_init()
        q = ctypes.create_string_buffer(32)
        rp = ctypes.create_string_buffer(32)
        lib.crypto_core_ristretto255_from_hash(rp, ctypes.create_string_buffer(hashlib.sha512(b"r").digest()))
        sb = ctypes.create_string_buffer(s, 32)

        def rist() -> None:
            for _ in range(n):
                lib.crypto_scalarmult_ristretto255(q, sb, rp)
        rows.append(("ristretto255 mul (system libsodium, ctypes)", cpu(rist, repeat) / n))
    modulus = 2**2048 - 1557  # timing only: the cost of pow does not depend on primality
    e = int.from_bytes(hashlib.sha512(b"e").digest() * 4, "big") % modulus
    rows.append(("mod-p 2048-bit exponentiation (full exponent)", cpu(lambda: pow(5, e, modulus), repeat)))
    return [f"  {name:48s} {t * 1e6:9.1f} us" for name, t in rows]


def deal_per_member(names: tuple[str, ...], n: int, hand: int,
                    repeat: int) -> tuple[list[str], dict[str, Any]]:
    """Each member's CPU for one round's deal: its seed, commitment and escrow; checking the shares
    sealed for it; its two steps; its key bundles to every other holder (signed and sealed); opening
    the bundles it gets and its own hand. The card points are per table (once), shown apart."""
    ids = [Identity.from_seed(bytes([i + 1]) * 32) for i in range(n)]
    members = tuple(i.key for i in ids)
    points = card_points(TABLE, "solo", names)
    lookup = {pt: c for c, pt in enumerate(points)}
    spec = DealSpec(TABLE, 0, 0, members, tuple(range(len(names))))
    seeds = [new_seed(hashlib.sha512(b"bench/%d" % i).digest()) for i in range(n)]
    per = [0.0] * n
    samples: list[list[float]] = [[] for _ in range(n)]
    result: dict[str, Any] = {}
    for _ in range(repeat):
        per = [0.0] * n
        layers: list[Layer] = []
        escrows = []
        for j in range(n):
            t = time.process_time()
            commitment(TABLE, 0, members[j], seeds[j])
            escrows.append(escrow.escrow(ids[j], seeds[j], TABLE, 0, members))
            layers.append(spec.layer(seeds[j]))
            per[j] += time.process_time() - t
        threshold = escrow.threshold_for(n)
        for j in range(n):
            t = time.process_time()
            for d in range(n):
                if d != j and threshold is not None:
                    box = escrows[d][1][j if j < d else j - 1]
                    share = escrow.open_share(ids[j], TABLE, 0, members[d], box)
                    assert escrow.check_share(j + 1, share, escrows[d][0])
            per[j] += time.process_time() - t
        deal = Deal(spec)
        for step in range(spec.steps):
            j = spec.author(step)
            t = time.process_time()
            out = make_step(spec, step, layers[j], deal.previous(points))
            digest = step_digest(spec, step, out)
            last = step == spec.steps - 1
            nxt = (j + 1) % n
            chunks = [StepChunk(0, step, i, tuple(out[i:i + STEP_POINTS]))
                      for i in range(0, len(out), STEP_POINTS)]
            sent = [] if last else [encode_secret(ids[j], TABLE, members[nxt], c, bytes(24), 1)
                                    for c in chunks]
            per[j] += time.process_time() - t
            if last:  # in the log in full: everyone checks its shape and takes it
                deal.add(None, out)
                for k in range(n):
                    t = time.process_time()
                    read = [payloads.read_deck(c) for c in payloads.deck_payloads(0, step, out)]
                    payloads.join_chunks([c for c in read if isinstance(c, payloads.DeckChunk)], spec.size)
                    per[k] += time.process_time() - t
            else:  # the digest in the log; the points to the next member, who checks them
                deal.add(digest)
                t = time.process_time()
                got: list[bytes] = []
                for body in sent:
                    item = decode_secret(ids[nxt], TABLE, body)[1]
                    assert isinstance(item, StepChunk)
                    got += item.points
                deal.attach(step, got)
                per[nxt] += time.process_time() - t
        hands = {h: [i for i in range(hand * n) if i % n == h] for h in range(n)}
        inbox: dict[int, list[bytes]] = {h: [] for h in range(n)}
        for j in range(n):
            t = time.process_time()
            for h in range(n):
                if h != j:
                    items = [(i, layers[j].keys[i]) for i in hands[h]]
                    for b in bundles_for(ids[j], TABLE, 0, members[h], items):
                        inbox[h].append(encode_secret(ids[j], TABLE, members[h], b, bytes(24), 1))
            per[j] += time.process_time() - t
        for h in range(n):
            t = time.process_time()
            ring = KeyRing(members)
            for i in hands[h]:
                ring.put(i, members[h], layers[h].keys[i])
            for body in inbox[h]:
                bundle = decode_secret(ids[h], TABLE, body)[1]
                assert isinstance(bundle, Bundle)
                for slot, key in bundle.items:
                    ring.put(slot, bundle.sender, key)
            [ring.open(i, deal.slots[i], lookup) for i in hands[h]]
            per[h] += time.process_time() - t
        for j in range(n):
            samples[j].append(per[j])
        result = {"deal": deal, "layers": layers, "seeds": seeds, "points": points, "spec": spec,
                  "escrows": escrows, "inbox": inbox}
    med = [statistics.median(s) for s in samples]
    card_cpu = cpu(lambda: card_points(TABLE, "solo", names), repeat)
    lines = [f"  per member: max {max(med) * 1e3:6.1f} ms, mean {statistics.mean(med) * 1e3:6.1f} ms "
             f"(card points, once per table: {card_cpu * 1e3:.1f} ms)"]
    return lines, result


def open_and_check(res: dict[str, Any], repeat: int) -> list[str]:
    deal, layers, points = res["deal"], res["layers"], res["points"]
    lookup = {pt: c for c, pt in enumerate(points)}
    combined = product([la.keys[0] for la in layers])
    n = 200
    t_open = cpu(lambda: [open_point(deal.slots[0], product([la.keys[0] for la in layers]), lookup)
                          for _ in range(n)], repeat) / n
    card = open_point(deal.slots[0], combined, lookup)
    from cardtable.p2p.hidden.opening import PublicOpen
    proof = PublicOpen(0, card, combined)
    t_check = cpu(lambda: [check_open(proof, deal.slots[0], points) for _ in range(n)], repeat) / n
    ids = [Identity.from_seed(bytes([i + 1]) * 32) for i in range(len(layers))]
    members = [i.key for i in ids]
    slot = 100  # a draw by member 0: every other member sends its key for the slot

    def send() -> list[bytes]:
        out = []
        for j in range(1, len(ids)):
            bundle = make_bundle(ids[j], TABLE, 0, members[0], [(slot, layers[j].keys[slot])])
            out.append(encode_secret(ids[j], TABLE, members[0], bundle, bytes(24), 1))
        return out
    bodies = send()

    def receive() -> int:
        ring = KeyRing(members)
        ring.put(slot, members[0], layers[0].keys[slot])
        for body in bodies:
            bundle = decode_secret(ids[0], TABLE, body)[1]
            assert isinstance(bundle, Bundle)
            ring.put(slot, bundle.sender, bundle.items[0][1])
        return ring.open(slot, deal.slots[slot], lookup)
    t_send = cpu(send, repeat) / (len(ids) - 1)
    t_receive = cpu(receive, repeat)
    return [f"  a holder's opening (keys combined, inverted, one mul, lookup): {t_open * 1e6:7.1f} us",
            f"  a public proof check (one mul):                               {t_check * 1e6:7.1f} us",
            f"  a draw: each sender signs and seals its key {t_send * 1e3:.2f} ms; the drawer opens "
            f"{len(ids) - 1} bundles and the card {t_receive * 1e3:.2f} ms"]


def audit_cost(res: dict[str, Any], extra: list[tuple[int, int]], repeat: int) -> str:
    """The whole audit: the round's deal plus ``extra`` deals (deal_no, cards) such as SOLO reshuffles."""
    spec: DealSpec = res["spec"]
    rec = RoundRecord(TABLE, 0, spec.members)
    for m, seed in zip(spec.members, res["seeds"], strict=True):
        rec.commitments[m] = commitment(TABLE, 0, m, seed)
        rec.reveals[m] = seed
    threshold = escrow.threshold_for(len(spec.members))
    if threshold is not None:
        for m, (pts, _) in zip(spec.members, res["escrows"], strict=True):
            rec.escrow_points[m] = pts
    rec.deals.append(res["deal"])
    first = spec.size
    for deal_no, cards in extra:
        sub = DealSpec(TABLE, 0, deal_no, spec.members, tuple(range(cards)), first)
        deal = Deal(sub)
        layers = [sub.layer(s) for s in res["seeds"]]
        for step in range(sub.steps):
            deal.add(None, make_step(sub, step, layers[sub.author(step)], deal.previous(res["points"])))
        rec.deals.append(deal)
        first += cards
    t = cpu(lambda: audit(rec, res["points"]), max(1, repeat // 2))
    report = audit(rec, res["points"])
    assert report.first is None and len(report.cards) == first
    return f"  the whole audit ({len(rec.deals)} deal(s), {first} slots): {t * 1e3:7.1f} ms per member"


def entry_wire(payload: list[Any]) -> int:
    """Bytes of one entry as it travels (in an APPEND; the PROPOSE to the sequencer is about the same)."""
    proposal = wire.Proposal(TABLE, bytes(32), 1, 1000, payload).pack()
    return len(wire.pack([3, 1000, proposal, bytes(64), bytes(32), bytes(64)]))


def deal_bytes(n: int, cards: int, with_escrow: bool, all_logged: bool = False) -> int:
    """Bytes sent for one deal, all peers together. A log entry goes to the sequencer once and to
    n - 1 followers (n copies; APPEND framing shared with other entries left out). As built: each
    step but the last goes once, to the next member (SECRET step chunks), with its digest in the
    log; the last step in the log in full. ``all_logged``: every step in the log in full (the
    design this replaced)."""
    step = [bytes(32)] * cards
    logged_step = sum(entry_wire(c) for c in payloads.deck_payloads(0, 0, step)) * n
    if all_logged:
        total = logged_step * 2 * n
    else:
        ident, other = Identity.from_seed(bytes(32)), Identity.from_seed(bytes([1]) * 32).key
        chunks = [StepChunk(0, 0, i, tuple(step[i:i + STEP_POINTS])) for i in range(0, cards, STEP_POINTS)]
        bodies = [encode_secret(ident, TABLE, other, c, bytes(24), 2**52) for c in chunks]
        direct = sum(wire.HEAD_BYTES + seal.OVERHEAD + len(b) for b in bodies)
        digests = entry_wire(payloads.digest_payload(0, 0, bytes(32))) * n
        total = (2 * n - 1) * (direct + digests) + logged_step
    if with_escrow:
        t = escrow.threshold_for(n)
        deal = payloads.deal_payload(payloads.DealEntry(0, bytes(32), [bytes(32)] * (t or 0),
                                                        [bytes(32)] * ((n - 1) if t else 0)))
        total += entry_wire(deal) * n * n
    return total


def secret_bytes(keys_per_bundle: int) -> int:
    ident, other = Identity.from_seed(bytes(32)), Identity.from_seed(bytes([1]) * 32).key
    b = make_bundle(ident, TABLE, 0, other, [(i, scalar(10**70 + i)) for i in range(keys_per_bundle)])
    return wire.HEAD_BYTES + seal.OVERHEAD + len(encode_secret(ident, TABLE, other, b, bytes(24), 2**52))


def random_rounds(kind: str, n: int, rounds: int) -> dict[str, float]:
    """Actions, cards drawn, cards played, cards moved between hands and reshuffled cards per round."""
    rng = Stream(b"bench-deck", f"{kind}/{n}")
    tot = {"actions": 0.0, "drawn": 0.0, "played": 0.0, "moved": 0.0, "reshuffled": 0.0, "reshuffles": 0.0}
    for r in range(rounds):
        if kind == "solo":
            state: Any = solo_round(SoloConfig.preset("anniversary", n), f"bench/{r}".encode(), 0)
        else:
            state = scout_round(ScoutConfig(n), f"bench/{r}".encode(), 0)
        while not state.is_over():
            seat = state.to_move()
            legal = [a for a in state.legal_actions(seat) if not _meta(str(a))]
            action = legal[rng.below(len(legal))]
            if kind == "solo":
                sizes = [len(h) for h in state.hands]
                shuffles = state.reshuffles
                state.apply(seat, action)
                if state.reshuffles > shuffles:
                    tot["reshuffles"] += 1
                    tot["reshuffled"] += len(state.draw) + 1
                if isinstance(action, Play):  # cards that change holder (a Protection may cancel it)
                    rank = action.card.rank
                    if rank == "swap" and action.target is not None:
                        tot["moved"] += sizes[seat] - 1 + sizes[action.target]
                    elif rank == "pass":
                        tot["moved"] += sum(sizes) - 1
                    elif rank == "gift":
                        tot["moved"] += len(action.gift)
                after = [len(h) for h in state.hands]
                tot["drawn"] += max(0, sum(after) - sum(sizes))
                tot["played"] += max(0, sum(sizes) - sum(after))
            else:
                state.apply(seat, action)
            tot["actions"] += 1
    return {k: v / rounds for k, v in tot.items()}


def traffic(kind: str, n: int, cards: int, today_per_act: float, rounds: int) -> list[str]:
    stats = random_rounds(kind, n, rounds)
    deal = deal_bytes(n, cards, with_escrow=True)
    logged = deal_bytes(n, cards, with_escrow=True, all_logged=True)
    one_key, eight_keys = secret_bytes(1), secret_bytes(8)
    per_holder = 8 if kind == "solo" else cards // n
    deal_keys = n * (n - 1) * ((per_holder + 7) // 8) * eight_keys
    draws = stats["drawn"] * (n - 1) * one_key
    moves = stats["moved"] / 8 * (n - 1) * eight_keys
    proofs = (stats["played"] if kind == "solo" else cards) * payloads.OPEN_BYTES * n
    pile = max(1, int(stats["reshuffled"] / max(1, stats["reshuffles"])))
    reshuffles = stats["reshuffles"] * deal_bytes(n, pile, with_escrow=False)
    seeds = n * entry_wire(payloads.seed_payload(payloads.SeedEntry(0, bytes(32), None))) * n
    extra = deal + deal_keys + draws + moves + proofs + reshuffles + seeds
    today = stats["actions"] * today_per_act
    return [
        f"  random play: {stats['actions']:.0f} actions, {stats['drawn']:.0f} cards drawn, "
        f"{stats['reshuffles']:.2f} reshuffles per round",
        f"  the deal: {deal / 1e3:7.1f} KB ({2 * n} steps of {cards} points: each to the next member, its "
        f"digest in the log, the last in the log in full; every step in the log: {logged / 1e3:.1f} KB)",
        f"  keys at the deal (SECRET, {eight_keys} B each): {deal_keys / 1e3:6.1f} KB; draws "
        f"({one_key} B a key): {draws / 1e3:6.1f} KB; hands moved: {moves / 1e3:6.1f} KB",
        f"  proofs of played cards: {proofs / 1e3:6.1f} KB; reshuffle deals: {reshuffles / 1e3:6.1f} KB; "
        f"seed reveals: {seeds / 1e3:5.1f} KB",
        f"  hidden hands add {extra / 1e3:7.1f} KB per round to today's {today / 1e3:7.1f} KB "
        f"({today_per_act:.0f} B/action): {(today + extra) / today:.2f} times today's traffic",
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5, help="repeats per measure (median) [5]")
    parser.add_argument("--rounds", type=int, default=20, help="random rounds for the traffic estimate [20]")
    parser.add_argument("--today5", type=float, default=2892.0,
                        help="today's bytes per action at 5 peers, simulated, 0%% loss "
                             "[2892: bench/net.py --only sim --peers 5 --loss 0]")
    args = parser.parse_args()
    print("group operations (CPU, one call):")
    print("\n".join(group_costs(args.repeat)))
    print("SOLO anniversary, 10 players, 120 cards:")
    lines, solo = deal_per_member(solo_names(True, True), 10, 8, args.repeat)
    print("\n".join(lines + open_and_check(solo, args.repeat)))
    print(audit_cost(solo, [], args.repeat))
    print(audit_cost(solo, [(1, 60)], args.repeat).replace("audit", "audit with one reshuffle of 60"))
    print("\n".join(traffic("solo", 10, 120, TODAY_B_PER_ACT[10], args.rounds)))
    print("SCOUT, 5 players, 45 cards:")
    lines, scout = deal_per_member(scout_names(5), 5, 9, args.repeat)
    print("\n".join(lines))
    print(audit_cost(scout, [], args.repeat))
    print("\n".join(traffic("scout", 5, 45, args.today5, args.rounds)))


if __name__ == "__main__":
    main()
