"""A round dealt with hidden hands, as every machine's table follows it from the log (public part).

Stages: ``commit`` (each dealing member's ``deal`` entry: its seed's commitment), ``deal`` (the
steps of the round's deal: digests, and the last step in full), ``play`` (the slot map is set; moves
that show cards carry their proofs; a SOLO reshuffle is another deal of the same members, run in the
middle of play), ``reveal`` (each member's seed), ``done`` (audited and replayed). Everything here
is the same on every machine; what a machine privately knows (its keys, its cards) is
``p2p/hidden/side.py``. The games' parts (the slot map, which cards a move shows, the audit's
replay) are ``p2p/hidden/scout_round.py`` and ``p2p/hidden/solo_round.py``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from cardtable.p2p.hidden import escrow, payloads
from cardtable.p2p.hidden.audit import AuditReport, Fault, RoundRecord, audit
from cardtable.p2p.hidden.deal import Deal, DealSpec
from cardtable.p2p.hidden.group import DeckError
from cardtable.p2p.hidden.opening import PublicOpen, check_open, orientation

COMMIT, DEAL, PLAY, REVEAL, DONE = "commit", "deal", "play", "reveal", "done"


@dataclass
class Move:
    """A move of the round, for the audit's replay: who made it for which seat."""

    author: bytes
    seat: int
    action: str


@dataclass
class Outcome:
    """The audit's verdict: the faults (empty: the round stands) and, if it stands, the scores."""

    faults: list[Fault]
    report: AuditReport
    scores: list[int] | None


class HiddenRound:
    """One round's deals, public openings, moves and reveals (the parts both games share)."""

    def __init__(self, table_id: bytes, config: Any, seed: bytes, round_no: int, members: Sequence[bytes],
                 cards: Sequence[int], points: Sequence[bytes]) -> None:
        self.table_id = table_id
        self.config = config
        self.seed = seed
        self.round_no = round_no
        self.members = tuple(members)
        self.points = points
        self.lookup = {p: i for i, p in enumerate(points)}
        self.specs = [DealSpec(table_id, round_no, 0, self.members, tuple(cards))]
        self.deals = [Deal(self.specs[0])]
        self.record = RoundRecord(table_id, round_no, self.members, deals=self.deals)
        self.stage = COMMIT
        self.chunks: dict[tuple[int, int], list[payloads.DeckChunk]] = {}
        self.public: dict[int, tuple[int, int]] = {}  # slot -> (canonical card, orientation), shown to all
        self.moves: list[Move] = []
        self.outcome: Outcome | None = None
        self.escrowed = False  # every dealer must escrow its seed (a table created from wire 6 on)
        self.sealed: dict[bytes, list[bytes]] = {}  # dealer -> its escrow shares, sealed for the others
        self.gone: list[bytes] = []  # members that left mid-round: their seeds are rebuilt from shares
        self.released: dict[bytes, dict[bytes, bytes]] = {}  # gone member -> publisher -> its share
        self.public_shares: dict[tuple[bytes, bytes], bytes] = {}  # (dealer, member) -> shown at a complaint
        self.recovered: dict[bytes, bytes] = {}  # gone member -> its seed, rebuilt
        self.escrow_fault: Fault | None = None  # a gone member's escrow did not rebuild its seed

    @property
    def spec(self) -> DealSpec:
        """The round's first deal."""
        return self.specs[0]

    @property
    def deal(self) -> Deal:
        return self.deals[0]

    @property
    def size(self) -> int:
        """The slots dealt so far (the round's deal and any reshuffle)."""
        return self.specs[-1].first_slot + self.specs[-1].size

    # --- the deals -------------------------------------------------------------------------------
    def on_deal(self, author: bytes, entry: payloads.DealEntry) -> str:
        if self.stage != COMMIT or entry.round_no != self.round_no:
            return "not the time for this round's deal entry"
        if author not in self.members or author in self.record.commitments:
            return "not a dealing member, or committed already"
        threshold = escrow.threshold_for(len(self.members))
        shape = (threshold or 0, len(self.members) - 1 if threshold else 0)
        given = (len(entry.escrow_points), len(entry.sealed_shares))
        if given != shape and (self.escrowed or given != (0, 0)):  # a table before wire 6 may not escrow
            return "an escrow of the wrong shape"
        self.record.commitments[author] = entry.commitment
        self.sealed[author] = list(entry.sealed_shares)
        if entry.escrow_points:
            self.record.escrow_points[author] = list(entry.escrow_points)
        if len(self.record.commitments) == len(self.members):
            self.stage = DEAL
        return ""

    def on_deck(self, author: bytes, item: payloads.DeckChunk | payloads.DeckDigest) -> str:
        """A step (digest or chunk) of the round's deal, or of a reshuffle in play."""
        n = item.deal_no
        if n >= len(self.deals) or (self.stage != DEAL if n == 0 else self.stage != PLAY):
            return "no such deal is under way"
        spec, deal = self.specs[n], self.deals[n]
        if author != spec.members[spec.author(item.step)]:
            return f"step {item.step} is not the author's"
        t = len(deal.digests)
        try:
            if isinstance(item, payloads.DeckDigest):
                if item.step != t or t == spec.steps - 1:
                    return f"step {t} is due, in full if it is the last"
                deal.add(item.digest)
            else:
                key = (n, item.step)
                self.chunks.setdefault(key, []).append(item)
                whole = payloads.join_chunks(self.chunks[key], spec.size)
                if whole is not None and item.step == t:
                    deal.add(None, whole)
                elif whole is not None and item.step < t and item.step not in deal.points:
                    deal.attach(item.step, whole)
        except DeckError as err:
            self.chunks.pop((n, item.step), None)
            return str(err)
        if n == 0 and deal.complete:
            self.stage = PLAY
            self.on_dealt()
        return ""

    def add_deal(self, cards: Sequence[int]) -> None:
        """A reshuffle: the members still at the table deal ``cards`` (public, in pile order) into new
        slots (a member gone mid-round takes no part: its seed, rebuilt, is public)."""
        members = tuple(m for m in self.members if m not in self.gone)
        spec = DealSpec(self.table_id, self.round_no, len(self.specs), members, tuple(cards), self.size)
        self.specs.append(spec)
        self.deals.append(Deal(spec))

    def dealing(self) -> int | None:
        """The deal whose steps are under way (None: every deal is complete)."""
        return next((n for n, d in enumerate(self.deals) if not d.complete), None)

    def ready(self, slot: int) -> bool:
        """The slot's deal is complete (its point is known)."""
        n = self.deal_of(slot)
        return n is not None and self.deals[n].complete

    def deal_of(self, slot: int) -> int | None:
        for n, spec in enumerate(self.specs):
            if spec.first_slot <= slot < spec.first_slot + spec.size:
                return n
        return None

    def slot_point(self, slot: int) -> bytes:
        n = self.deal_of(slot)
        if n is None:
            raise DeckError(f"there is no slot {slot}")
        return self.deals[n].slots[slot - self.specs[n].first_slot]

    # --- moves -----------------------------------------------------------------------------------
    def check_opens(self, shown: Sequence[int],
                    opens: Sequence[PublicOpen]) -> str | dict[int, tuple[int, int]]:
        """``prove``, and the proven cards are public from now on."""
        out = self.prove(shown, opens)
        if not isinstance(out, str):
            self.public.update(out)
        return out

    def prove(self, shown: Sequence[int], opens: Sequence[PublicOpen]) -> str | dict[int, tuple[int, int]]:
        """The proven cards by slot (``card``, orientation bit), or why the proofs do not do:
        ``opens`` must prove exactly the ``shown`` slots not shown before. Changes nothing."""
        need = {slot for slot in shown if slot not in self.public}
        given = {o.slot: o for o in opens}
        if set(given) != need or len(given) != len(opens):
            return "the proofs do not cover exactly the cards shown"
        out: dict[int, tuple[int, int]] = {}
        for slot, proof in given.items():
            if not self.ready(slot) or not check_open(proof, self.slot_point(slot), self.points):
                return f"the proof for slot {slot} does not hold"
            out[slot] = (proof.card, orientation(self.table_id, slot, proof.key))
        return out

    # --- the audit -------------------------------------------------------------------------------
    def on_seed(self, author: bytes, entry: payloads.SeedEntry) -> str:
        """A member's reveal at the audit, or a share of an escrowed seed (``entry.dealer``)."""
        if entry.dealer is not None:
            return self._on_share(author, entry)
        if self.stage != REVEAL or entry.round_no != self.round_no:
            return "not the time for this round's seeds"
        if author not in self.members or author in self.record.reveals:
            return "not a dealing member, or revealed already"
        self.record.reveals[author] = entry.value
        self._audit_if_complete()
        return ""

    def _audit_if_complete(self) -> None:
        """Every seed is in (revealed or rebuilt) and no questioned share waits to be shown: audit."""
        if self.stage == REVEAL and len(self.record.reveals) == len(self.members) and not self.complaints():
            report = audit(self.record, self.points)
            self.outcome = Outcome(report.faults, report, None) if report.faults else self.replay(report)
            self.stage = DONE

    # --- the escrow: a member gone mid-round -------------------------------------------------------
    def can_rebuild(self, member: bytes) -> str:
        """Why the round cannot go on without ``member`` by rebuilding its seed ("" if it can)."""
        if escrow.threshold_for(len(self.members)) is None:
            return "with two machines dealing there is no escrow"
        if member not in self.record.escrow_points:
            return "its part of the deal was not escrowed"
        if any(g not in self.recovered for g in self.gone):
            return "another machine's part is still being rebuilt"
        if self.gone:
            return "a second machine left in the same round"
        n = self.dealing()
        if n is not None and n > 0 and member in self.specs[n].members:
            return "it left while the discard pile was being dealt again"
        if any(d == member for d, _ in self.complaints()):
            return "its escrow was in question"
        return ""

    def share_of(self, dealer: bytes, member: bytes) -> bytes | None:
        """``dealer``'s share sealed for ``member`` (None: none)."""
        others = [m for m in self.members if m != dealer]
        sealed = self.sealed.get(dealer, [])
        return sealed[others.index(member)] if member in others and len(sealed) == len(others) else None

    def x_of(self, member: bytes) -> int:
        return self.members.index(member) + 1

    def complaints(self) -> list[tuple[bytes, bytes]]:
        """(dealer, member) pairs whose sealed share the member said does not check, unanswered."""
        return [pair for pair, share in self.public_shares.items() if not share]

    def complain(self, dealer: bytes, member: bytes) -> str:
        if dealer not in self.sealed or member not in self.members or dealer == member:
            return "not a share of this round"
        if (dealer, member) in self.public_shares:
            return "that share was questioned already"
        self.public_shares[dealer, member] = b""
        return ""

    def shares_due(self) -> list[bytes]:
        """The members whose share of a gone member's seed the round waits for, and the dealers
        that must show a questioned share in the clear."""
        due = [d for d, _ in self.complaints()]
        for g in self.gone:
            if g not in self.recovered:
                due += [m for m in self.members if m != g and m not in self.gone
                        and m not in self.released.get(g, {}) and (g, m) not in self.public_shares]
        return due

    def _on_share(self, author: bytes, entry: payloads.SeedEntry) -> str:
        assert entry.dealer is not None
        if entry.round_no != self.round_no or author not in self.members or self.stage == DONE:
            return "not a share of this round"
        if (author, entry.dealer) in self.public_shares and not self.public_shares[author, entry.dealer]:
            points = self.record.escrow_points.get(author, [])  # a dealer shows a questioned share
            if not escrow.check_share(self.x_of(entry.dealer), entry.value, points):
                return "the share does not check"
            self.public_shares[author, entry.dealer] = entry.value
            self._audit_if_complete()
            return ""
        gone = entry.dealer
        if gone not in self.gone or gone in self.recovered or author == gone or author in self.gone:
            return "no share of that seed is due"
        if not escrow.check_share(self.x_of(author), entry.value, self.record.escrow_points.get(gone, [])):
            return "the share does not check"
        self.released.setdefault(gone, {})[author] = entry.value
        released = dict(self.released[gone])
        released.update({m: s for (d, m), s in self.public_shares.items() if d == gone and s})
        try:
            seed = escrow.recover(self.table_id, self.round_no, gone, self.members,
                                  self.record.escrow_points[gone], released, self.record.commitments[gone])
        except DeckError as err:
            if "more share" not in str(err):  # the shares check, the seed does not: the dealer's escrow
                self.escrow_fault = Fault(gone, "escrow", "escrowed shares that do not rebuild its seed")
            return ""
        self.recovered[gone] = seed
        self.record.reveals.setdefault(gone, seed)
        self._audit_if_complete()
        return ""

    # --- what each game says ---------------------------------------------------------------------
    @property
    def hands(self) -> list[list[int]]:
        """Each seat's hand, as slots (the same on every machine)."""
        raise NotImplementedError

    def on_dealt(self) -> None:
        """The round's deal is complete: the slot map is set."""

    def seat_slots(self, seat: int) -> list[int]:
        """The slots the machine that holds ``seat`` opens now (its hand; SOLO's dealer: the setup card)."""
        return list(self.hands[seat])

    def replay(self, report: AuditReport) -> Outcome:
        """The audit's replay of the round with every card: a wrong move names its author."""
        raise NotImplementedError

    def first_state(self) -> Any:
        """This machine's view of the round, every card unknown (it learns its own)."""
        raise NotImplementedError

    def parse(self, text: str) -> Any:
        """A move as the round's entries write it."""
        raise NotImplementedError

    def wire_move(self, state: Any, seat: int, text: str) -> tuple[str, list[int]]:
        """The entry text of a move chosen as ``text`` (what a client or a bot gives), and the
        slots whose cards it shows."""
        raise NotImplementedError

    def shown(self, seat: int, action: Any) -> list[int]:
        """The slots whose cards ``action`` shows to everyone."""
        raise NotImplementedError

    def put_public(self, state: Any, seat: int, action: Any, proven: dict[int, tuple[int, int]]) -> bool:
        """Put the proven cards into the view before the engine applies the move (True: the
        move is done, nothing for the engine)."""
        raise NotImplementedError

    def after(self, state: Any, seat: int, action: Any) -> None:
        """Follow a move the engine applied."""
        raise NotImplementedError

    def learn(self, state: Any, slot: int, card: int, bit: int) -> None:
        """This machine opened ``slot`` (held by one of its seats): into its view."""
        raise NotImplementedError

    def knows_hand(self, state: Any, seat: int) -> bool:
        raise NotImplementedError

    def public_state(self, state: Any) -> dict[str, Any]:
        """The view's state as every machine sees it (for the table's digest)."""
        raise NotImplementedError

    forced: frozenset[str] = frozenset()
    """Moves a seat's machine makes on its own when the seat has no other (SOLO: keep, decline,
    and the answers only the holder can give: owed, clear)."""

    def due_move(self, state: Any) -> tuple[int, str] | None:
        """A move the rules make for a seat whose machine alone can prove it (SOLO: the dealer
        turns the setup card), as ``(seat, text)``; None: nothing of the kind is due."""
        return None

    def next_cards(self) -> Sequence[int] | None:
        """The cards the next round deals (None: the whole deck)."""
        return None

    def card_text(self, card: int, bit: int) -> str:
        raise NotImplementedError

    def dealt_hands(self) -> list[list[str]]:
        """Each seat's hand as dealt, once audited (``?`` where a card could not be opened)."""
        if self.outcome is None:
            return []
        report = self.outcome.report
        return [[self.card_text(report.cards[s], report.orientations[s]) if s in report.cards else "?"
                 for s in slots] for slots in self.dealt_slots()]

    def dealt_slots(self) -> list[list[int]]:
        raise NotImplementedError


def replay_fault(move: Move, err: Exception) -> Fault:
    """The fault of a move the audit's replay, knowing every card, finds wrong."""
    return Fault(move.author, "act", f"made a move its cards did not allow ({move.action}: {err})")
