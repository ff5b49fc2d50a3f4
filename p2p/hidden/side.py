"""One machine's private part of hidden hands: its seed for each deal, its steps, the keys it sends
and receives, the cards it opens (docs/hidden-hands.md). Sans-I/O.

The peer calls ``logged`` with each committed hidden-hands entry, ``secret`` with each ``SECRET``
that reaches it, and ``step`` when it is caught up with the log (and on its resend timer); ``step``
returns the payloads to propose and the items to send, member by member. Cards this machine opens
go into its table's view (``TableState.learn``). Nothing here changes what the log holds.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from cardtable.p2p.hidden import escrow, payloads
from cardtable.p2p.hidden.bundles import (
    Bundle,
    Content,
    StepChunk,
    Want,
    bundles_for,
    decode_secret,
    encode_secret,
    read_bundle,
)
from cardtable.p2p.hidden.deal import MAX_SLOTS
from cardtable.p2p.hidden.dealing import Dealing, Propose, Send
from cardtable.p2p.hidden.group import DeckError
from cardtable.p2p.hidden.member import commitment, new_seed
from cardtable.p2p.hidden.opening import KeyRing, PublicOpen, orientation
from cardtable.p2p.hidden.round import COMMIT, DEAL, PLAY, REVEAL, HiddenRound
from cardtable.p2p.identity import Identity

RESEND = (0.1, 0.5)  # seconds between asking again for what has not come (steps, keys): twice the
# longest round-trip timeout the peer measured, within these bounds (on a quick LAN the floor)
EARLY_CHUNKS = 64  # step chunks kept for a deal this machine has not begun yet (a step's worth and more)


@dataclass
class Todo:
    """What ``step`` asks of the peer."""

    propose: list[list[Any]] = field(default_factory=list)
    send: list[tuple[bytes, Content]] = field(default_factory=list)


def deal_name(h: HiddenRound) -> str:
    """A deal's name in the store: its match's seed, its round and its dealers (a round dealt again
    after a member left is another deal, and so is a rematch's round: each with fresh seeds)."""
    return hashlib.sha256(h.seed + h.round_no.to_bytes(4, "big") + b"".join(h.members)).hexdigest()[:24]


def bundle_name(h: HiddenRound, bundle: Bundle) -> str:
    """Where a received key bundle is kept in the store."""
    return f"hkey/{deal_name(h)}/{bundle.sender.hex()[:16]}/{bundle.items[0][0]}"


class HiddenSide:
    """This machine's secrets and keys for the table's hidden rounds."""

    def __init__(self, identity: Identity, random_bytes: Callable[[int], bytes],
                 seeds: dict[str, bytes], save_seed: Callable[[str, bytes], None]) -> None:
        self.identity = identity
        self.key = identity.key
        self.random_bytes = random_bytes
        self.seeds = seeds  # the store's seeds and received bundles, by name: a restart deals and opens on
        self.save_seed = save_seed
        self.round: HiddenRound | None = None
        self.told: HiddenRound | None = None  # the round whose hand this machine saw complete
        self.seen: tuple[HiddenRound | None, int] = (None, 0)  # the round and the cards opened, told
        self.dealings: dict[int, Dealing] = {}  # the round's deal (0) and its reshuffles
        self.ring = KeyRing(())
        self.sent: set[tuple[int, bytes]] = set()
        self.outbox = Todo()
        self.proposed: set[Any] = set()  # "deal", "seed", ...: proposed for this round (the queue resends)
        self.opened: set[int] = set()
        self.wrong: set[int] = set()  # slots whose keys did not open them to a card
        self.bundles: dict[tuple[int, bytes], Bundle] = {}  # (slot, sender) -> the bundle it came in
        self.asking: dict[int, float] = {}  # slot -> when this machine could first ask for its keys
        self.accusing: dict[bytes, tuple[int, float]] = {}  # member -> (its accusations seen, since when)
        self.answered: set[int] = set()  # the log indices of the accusations of this machine answered
        self.early: list[StepChunk] = []  # step chunks that came before this machine began their deal
        self.shares: dict[bytes, bytes] = {}  # dealer -> its escrow share for this machine, opened
        self.rebuilt: set[bytes] = set()  # gone members whose rebuilt keys are in the ring
        self.asked_at = float("-inf")
        self.resend = RESEND[1]  # the peer sets it from its round trips (``ask_every``)

    # --- following the rounds --------------------------------------------------------------------
    def _follow(self, h: HiddenRound, now: float | None = None) -> None:
        if self.round is not h:
            self.round, self.dealings, self.ring, self.sent = h, {}, KeyRing(h.members), set()
            self.outbox, self.proposed, self.opened, self.wrong = Todo(), set(), set(), set()
            self.bundles, self.asking, self.accusing, self.answered, self.early = {}, {}, {}, set(), []
            self.shares, self.rebuilt = {}, set()
            prefix = "hkey/" + deal_name(h) + "/"
            for name, data in list(self.seeds.items()):
                if name.startswith(prefix):
                    try:
                        bundle = read_bundle(data)
                    except DeckError:
                        continue
                    self._put(h, bundle.sender, bundle, keep=False)
            if now is not None:
                self.asked_at = now

    def seed_for(self, h: HiddenRound) -> bytes:
        name = "hseed/" + deal_name(h)
        if name not in self.seeds:
            self.seeds[name] = new_seed(self.random_bytes(64))
            self.save_seed(name, self.seeds[name])  # in the store before its commitment is proposed
        return self.seeds[name]

    def logged(self, h: HiddenRound | None, payload: list[Any]) -> None:
        """A committed ``deck`` entry of the round, or key bundles put in the log for this machine."""
        if h is None:
            return
        self._follow(h)
        if payload[0] == "deck" and payload[1] in self.dealings:
            self._take(self.dealings[payload[1]].on_logged(payload))
        elif payload[0] == "keys" and len(payload) == 3:
            receiver, body = payloads.read_logged_secret(payload)
            if receiver == self.key:
                try:
                    sender, item, _ = decode_secret(self.identity, h.table_id, body)
                except DeckError:
                    return
                self._put(h, sender, item)

    def _put(self, h: HiddenRound, sender: bytes, item: Content, keep: bool = True) -> None:
        """Keys from ``sender`` (kept in the store: a restart opens its hand again without asking)."""
        if isinstance(item, Bundle) and item.round_no == h.round_no and sender in h.members:
            for slot, key in item.items:
                if 0 <= slot < MAX_SLOTS:
                    self.ring.put(slot, sender, key)
                    self.bundles[slot, sender] = item
            name = bundle_name(h, item)
            if keep and name not in self.seeds:
                self.seeds[name] = item.wire()
                self.save_seed(name, item.wire())

    def _take(self, outs: list[Any]) -> None:
        for out in outs:
            if isinstance(out, Propose):
                self.outbox.propose.append(out.payload)
            elif isinstance(out, Send):
                self.outbox.send.append((out.to, out.item))

    # --- what to do now --------------------------------------------------------------------------
    def step(self, table: Any, sequencer: bytes | None, now: float, patience: float = 10.0) -> Todo:
        """What this machine proposes and sends now, the table being caught up with the log.
        ``patience``: how long it waits for keys before it accuses their sender in the log."""
        h: HiddenRound | None = table.hidden
        if h is None:
            return Todo()
        self._follow(h, now)
        dealer = self.key in h.members
        if dealer and h.stage == COMMIT and "deal" not in self.proposed:
            self.proposed.add("deal")
            seed = self.seed_for(h)
            mine = commitment(h.table_id, h.round_no, self.key, seed)
            points, sealed = escrow.escrow(self.identity, seed, h.table_id, h.round_no, h.members)
            entry = payloads.DealEntry(h.round_no, mine, points, sealed)
            self.outbox.propose.append(payloads.deal_payload(entry))
        for spec in h.specs[1:]:
            self.ring.deal(spec.first_slot, spec.size, spec.members)
        self._rebuild(h)
        if dealer and h.stage in (DEAL, PLAY, REVEAL):
            self._escrow_duties(h)
            for n, spec in enumerate(h.specs):
                if n not in self.dealings and self.key in spec.members:
                    self.dealings[n] = dealing = Dealing(spec, self.key, self.seed_for(h), h.points)
                    for i, key in enumerate(dealing.layer.keys):
                        self.ring.put(spec.first_slot + i, self.key, key)
                    self._take(dealing.start())
                    self._catch_up(h, n, dealing)
                    for chunk in [c for c in self.early if c.deal_no == n]:
                        self._take(dealing.on_chunk(chunk))  # sent before this machine saw the deal begin
                    self.early = [c for c in self.early if c.deal_no != n]
        if h.stage == PLAY:
            if dealer:
                self._send_keys(table, h, sequencer)
                for _, accuser, index in table.pending_accusations(self.key):
                    if index not in self.answered:  # every accusation, from every accuser, is answered
                        self.answered.add(index)
                        self._answer_in_log(table, h, sequencer, accuser)
            self._open(table, h, sequencer)
            self._accuse(table, h, sequencer, now, patience)
        if dealer and h.stage == REVEAL and "seed" not in self.proposed:
            self.proposed.add("seed")
            reveal = payloads.SeedEntry(h.round_no, self.seed_for(h), None)
            self.outbox.propose.append(payloads.seed_payload(reveal))
        if now >= self.asked_at + self.resend:
            self.asked_at = now
            self._ask_again(table, h, sequencer)
        out, self.outbox = self.outbox, Todo()
        out.propose = [p for p in out.propose if _still_due(h, self.key, p)]
        return out

    def _rebuild(self, h: HiddenRound) -> None:
        """The keys of a member gone mid-round, from its seed rebuilt from the escrow shares: every
        machine has them now (they open nothing alone: each slot needs every dealer's key)."""
        for gone, seed in h.recovered.items():
            if gone in self.rebuilt:
                continue
            self.rebuilt.add(gone)
            for spec in h.specs:
                if gone in spec.members:
                    for i, key in enumerate(spec.layer(seed).keys):
                        self.ring.put(spec.first_slot + i, gone, key)

    def _escrow_duties(self, h: HiddenRound) -> None:
        """Check the escrow shares sealed for this machine (say so in the log if one does not
        check); publish its share of a gone member's seed; show in the clear a share of its own
        that a member questioned."""
        for dealer in h.sealed:
            if dealer == self.key or dealer in self.shares:
                continue
            sealed = h.share_of(dealer, self.key)
            if sealed is None:
                continue
            share = escrow.open_share(self.identity, h.table_id, h.round_no, dealer, sealed)
            self.shares[dealer] = share
            if not escrow.check_share(h.x_of(self.key), share, h.record.escrow_points.get(dealer, [])):
                fault = payloads.FaultEntry(h.round_no, dealer, "escrow", 0)
                self.outbox.propose.append(payloads.fault_payload(fault))
        for gone in h.gone:
            if gone != self.key and gone not in h.recovered and ("share", gone) not in self.proposed \
                    and gone in self.shares and (gone, self.key) not in h.public_shares:
                self.proposed.add(("share", gone))
                self.outbox.propose.append(payloads.seed_payload(
                    payloads.SeedEntry(h.round_no, self.shares[gone], gone)))
        threshold = escrow.threshold_for(len(h.members))
        for dealer, member in h.complaints():
            if dealer == self.key and threshold and ("show", member) not in self.proposed:
                self.proposed.add(("show", member))
                share = escrow.share(self.seed_for(h), threshold, h.x_of(member))
                shown = payloads.SeedEntry(h.round_no, share, member)
                self.outbox.propose.append(payloads.seed_payload(shown))

    def _catch_up(self, h: HiddenRound, n: int, dealing: Dealing) -> None:
        """Feed a new ``Dealing`` what the log already holds of deal ``n``, step by step."""
        deal = h.deals[n]
        for t, digest in enumerate(list(deal.digests)):
            if (n, t) in h.chunks:
                for chunk in h.chunks[n, t]:
                    self._take(dealing.on_logged(["deck", n, t, chunk.first, b"".join(chunk.points)]))
            else:
                self._take(dealing.on_logged(["deck", n, t, digest]))
        for chunk in h.chunks.get((n, len(deal.digests)), []):
            self._take(dealing.on_logged(["deck", n, chunk.step, chunk.first, b"".join(chunk.points)]))

    def _held(self, table: Any, h: HiddenRound, sequencer: bytes | None, holder: bytes) -> list[int]:
        """The slots the seats ``holder`` holds must open now (their hands; SOLO's dealer: the
        setup card), but the ones shown to all."""
        return [slot for seat in range(len(h.hands)) if table.holder(seat, sequencer) == holder
                for slot in h.seat_slots(seat) if slot not in h.public]

    def _key(self, h: HiddenRound, slot: int) -> bytes | None:
        """This machine's key for ``slot`` (None: its deal has not begun here)."""
        n = h.deal_of(slot)
        dealing = self.dealings.get(n) if n is not None else None
        return None if dealing is None else dealing.layer.keys[slot - dealing.spec.first_slot]

    def _send_keys(self, table: Any, h: HiddenRound, sequencer: bytes | None) -> None:
        """My key for every slot a machine holds that is not mine, once to each holder."""
        by_holder: dict[bytes, list[tuple[int, bytes]]] = {}
        for seat in range(len(h.hands)):
            holder = table.holder(seat, sequencer)
            if holder is None or holder == self.key:
                continue
            for slot in h.seat_slots(seat):
                key = self._key(h, slot)
                if slot not in h.public and (slot, holder) not in self.sent and key is not None:
                    self.sent.add((slot, holder))
                    by_holder.setdefault(holder, []).append((slot, key))
        for holder, items in by_holder.items():
            for bundle in bundles_for(self.identity, h.table_id, h.round_no, holder, items):
                self.outbox.send.append((holder, bundle))

    def _open(self, table: Any, h: HiddenRound, sequencer: bytes | None) -> None:
        """Open every slot of the hands this machine holds whose keys are all in."""
        for slot in self._held(table, h, sequencer, self.key):
            if slot in self.opened or self.ring.missing(slot) or not h.ready(slot):
                continue
            self.opened.add(slot)
            try:
                card = self.ring.open(slot, h.slot_point(slot), h.lookup)
            except DeckError:
                self.wrong.add(slot)  # a wrong key: shown in the log, the audit names its sender
                continue
            table.learn(slot, card, orientation(h.table_id, slot, self.ring.combined(slot)))

    def _answer_in_log(self, table: Any, h: HiddenRound, sequencer: bytes | None, accuser: bytes) -> None:
        """Accused of withholding keys: put them in the log, sealed for the accuser (every slot its
        seats hold; the shown ones too if that is all, so that an answer is always there)."""
        held = self._held(table, h, sequencer, accuser)
        if not held:
            held = [slot for seat in range(len(h.hands)) if table.holder(seat, sequencer) == accuser
                    for slot in h.seat_slots(seat)]
        items = [(s, k) for s in held if (k := self._key(h, s)) is not None]
        for bundle in bundles_for(self.identity, h.table_id, h.round_no, accuser, items):
            body = encode_secret(self.identity, h.table_id, accuser, bundle, self.random_bytes(24), 1)
            self.outbox.propose.append(payloads.logged_secret_payload(accuser, body))

    def _accuse(self, table: Any, h: HiddenRound, sequencer: bytes | None, now: float,
                patience: float) -> None:
        """Keys of a slot still missing ``patience`` seconds after this machine could first ask
        for them: say in the log whose, with the slots (once per accusation; again only if the
        answer still left keys out, ``patience`` after it); or, if keys came and do not open the
        card, show their bundles (the round stops for the audit)."""
        held = self._held(table, h, sequencer, self.key)
        for slot in held:
            if slot in self.wrong and "key" not in self.proposed:
                self.proposed.add("key")  # whose key is wrong only the seeds tell: show every bundle
                for member in h.members:
                    bundle = self.bundles.get((slot, member))
                    if bundle is not None and member != self.key:
                        self.outbox.propose.append(payloads.fault_payload(
                            payloads.FaultEntry(h.round_no, member, "key", bundle.wire())))
                return
        late: dict[bytes, list[int]] = {}
        for slot in held:
            missing = [m for m in self.ring.missing(slot) if m not in h.gone] if h.ready(slot) else []
            if not missing:
                self.asking.pop(slot, None)
                continue
            if now >= self.asking.setdefault(slot, now) + patience:
                for member in missing:
                    late.setdefault(member, []).append(slot)
        for member, slots in late.items():
            pair = (member, self.key)
            if member == self.key or pair in table.accused:
                continue
            seen = table.accusations[pair]
            count, since = self.accusing.get(member, (-1, float("-inf")))
            if seen != count:  # answered since (or none yet): a fresh patience for what is still missing
                self.accusing[member] = (seen, now if count >= 0 else float("-inf"))
                if count >= 0:
                    continue
            elif now < since + patience:
                continue  # proposed and not in the log yet
            self.accusing[member] = (seen, now)
            detail = b"".join(slot.to_bytes(2, "big") for slot in slots[:64])
            fault = payloads.FaultEntry(h.round_no, member, "withheld", detail)
            self.outbox.propose.append(payloads.fault_payload(fault))

    def ask_every(self, rto: float) -> None:
        """Ask again for what has not come every ``2 * rto`` seconds, within ``RESEND``."""
        self.resend = min(RESEND[1], max(RESEND[0], 2 * rto))

    def proofs(self, h: HiddenRound, slots: list[int]) -> list[PublicOpen] | None:
        """The public proofs of the cards in ``slots`` (None: one is not open here yet)."""
        out = []
        for slot in slots:
            if slot in h.public:
                continue
            if self.ring.missing(slot) or not h.ready(slot):
                return None
            card = self.ring.open(slot, h.slot_point(slot), h.lookup)
            out.append(self.ring.proof(slot, card))
        return out

    def knows_hand(self, table: Any, seat: int) -> bool:
        """Every card of ``seat``'s hand is open on this machine (it may act for the seat)."""
        h, match = table.hidden, table.match
        return h is not None and match is not None and h.knows_hand(match.state, seat)

    def waiting(self, table: Any, sequencer: bytes | None) -> bool:
        """Something this machine needs has not come: a step before its own, or keys of its hands."""
        h: HiddenRound | None = table.hidden
        if h is None or h is not self.round:
            return False
        if any(d.want() is not None for d in self.dealings.values()):
            return True
        if h.stage != PLAY:
            return False
        held = self._held(table, h, sequencer, self.key)
        return any(self.ring.missing(s) for s in held if s not in self.opened)

    def _ask_again(self, table: Any, h: HiddenRound, sequencer: bytes | None) -> None:
        for dealing in self.dealings.values():
            want = dealing.want()
            if want is not None:
                self.outbox.send.append(want)
        if h.stage != PLAY:
            return
        slots = self._held(table, h, sequencer, self.key)
        for member in h.members:
            if member == self.key or member in h.gone:
                continue
            missing = tuple(s for s in slots if member in self.ring.missing(s))
            for i in range(0, len(missing), 64):
                self.outbox.send.append((member, Want(0, -1, missing[i:i + 64])))

    # --- what reaches this machine ---------------------------------------------------------------
    def secret(self, table: Any, sender: bytes, item: Content, sequencer: bytes | None) -> None:
        """A ``SECRET`` from a member, opened."""
        h: HiddenRound | None = table.hidden
        if h is None:
            return
        self._follow(h)
        if isinstance(item, Bundle):
            self._put(h, sender, item)
        elif isinstance(item, StepChunk):
            if item.deal_no in self.dealings:
                self._take(self.dealings[item.deal_no].on_chunk(item))
            elif item.deal_no <= len(h.specs) and len(self.early) < EARLY_CHUNKS:
                self.early.append(item)  # the previous member is ahead of this machine's log: keep it
        elif item.step == -1:
            if h.stage == PLAY:
                held = set(self._held(table, h, sequencer, sender))
                items = [(s, k) for s in item.slots if s in held and (k := self._key(h, s)) is not None]
                for bundle in bundles_for(self.identity, h.table_id, h.round_no, sender, items):
                    self.outbox.send.append((sender, bundle))
        elif item.deal_no in self.dealings:
            self._take(self.dealings[item.deal_no].on_want(item))


def _still_due(h: HiddenRound, me: bytes, payload: list[Any]) -> bool:
    """A proposal from an earlier call that the log has not made pointless since."""
    if payload[0] == "deal":
        return h.stage == COMMIT and me not in h.record.commitments
    if payload[0] == "seed" and len(payload) == 4:  # a share: of a gone member's seed, or questioned
        return payload[3] in h.gone and payload[3] not in h.recovered or (me, payload[3]) in h.complaints()
    if payload[0] == "seed":
        return h.stage == REVEAL and me not in h.record.reveals
    if payload[0] == "deck":
        n, step = payload[1], payload[2]
        if n >= len(h.deals) or h.stage != (DEAL if n == 0 else PLAY):
            return False
        deal = h.deals[n]
        return step >= len(deal.digests) or (len(payload) == 5 and step not in deal.points)
    return True
