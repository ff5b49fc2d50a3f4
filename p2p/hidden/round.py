"""A round dealt with hidden hands, as every machine's table follows it from the log (public part).

Stages: ``commit`` (each dealing member's ``deal`` entry: its seed's commitment), ``deal`` (the
steps: digests, and the last step in full), ``play`` (the slot map is set; plays that show cards
carry their proofs), ``reveal`` (each member's seed), ``done`` (audited). Everything here is the
same on every machine; what a machine privately knows (its keys, its cards) is ``p2p/hidden/side.py``.

The slot map (SCOUT): slot ``i`` of the round's deal goes to seat ``(start + i) % n`` (with two
players in round 0, only the first half: the rest is set aside, held by nobody); hands keep their
slots in hand order, the active set its slots; the map follows every action as the engine does.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from cardtable.engine.errors import IllegalAction, ParseError
from cardtable.engine.scout.actions import Scout, ScoutShow, Show, TurnChoice
from cardtable.engine.scout.cards import Card, deck_in_play
from cardtable.engine.scout.state import new_round
from cardtable.p2p.hidden import payloads
from cardtable.p2p.hidden.audit import AuditReport, Fault, RoundRecord, audit
from cardtable.p2p.hidden.deal import Deal, DealSpec
from cardtable.p2p.hidden.decks import scout_names
from cardtable.p2p.hidden.group import DeckError, card_points
from cardtable.p2p.hidden.opening import PublicOpen, check_open, orientation

COMMIT, DEAL, PLAY, REVEAL, DONE = "commit", "deal", "play", "reveal", "done"


def scout_card(players: int, index: int, bit: int) -> Card:
    """Canonical card ``index`` lying as its slot's orientation ``bit`` says (0: lower value up)."""
    low, high = deck_in_play(players)[index]
    return Card(low, high) if bit == 0 else Card(high, low)


def table_points(table_id: bytes, players: int) -> tuple[bytes, ...]:
    """The card points of a SCOUT table (once per table)."""
    return card_points(table_id, "scout", scout_names(players))


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
    """One round's deal, slot map, public openings, moves and reveals."""

    def __init__(self, table_id: bytes, config: Any, seed: bytes, round_no: int, members: Sequence[bytes],
                 cards: Sequence[int], points: Sequence[bytes]) -> None:
        self.table_id = table_id
        self.config = config
        self.seed = seed
        self.round_no = round_no
        self.members = tuple(members)
        self.points = points
        self.lookup = {p: i for i, p in enumerate(points)}
        self.spec = DealSpec(table_id, round_no, 0, self.members, tuple(cards))
        self.deal = Deal(self.spec)
        self.record = RoundRecord(table_id, round_no, self.members, deals=[self.deal])
        self.stage = COMMIT
        self.chunks: dict[int, list[payloads.DeckChunk]] = {}
        self.hands: list[list[int]] = [[] for _ in range(config.players)]
        self.active: list[int] = []
        self.public: dict[int, tuple[int, int]] = {}  # slot -> (canonical card, orientation), shown to all
        self.moves: list[Move] = []
        self.outcome: Outcome | None = None

    # --- the deal --------------------------------------------------------------------------------
    def on_deal(self, author: bytes, entry: payloads.DealEntry) -> str:
        if self.stage != COMMIT or entry.round_no != self.round_no:
            return "not the time for this round's deal entry"
        if author not in self.members or author in self.record.commitments:
            return "not a dealing member, or committed already"
        self.record.commitments[author] = entry.commitment
        if entry.escrow_points:
            self.record.escrow_points[author] = list(entry.escrow_points)
        if len(self.record.commitments) == len(self.members):
            self.stage = DEAL
        return ""

    def on_deck(self, author: bytes, item: payloads.DeckChunk | payloads.DeckDigest) -> str:
        if self.stage != DEAL or item.deal_no != 0:
            return "no deal is under way"
        if author != self.members[self.spec.author(item.step)]:
            return f"step {item.step} is not the author's"
        t = len(self.deal.digests)
        try:
            if isinstance(item, payloads.DeckDigest):
                if item.step != t or t == self.spec.steps - 1:
                    return f"step {t} is due, in full if it is the last"
                self.deal.add(item.digest)
            else:
                self.chunks.setdefault(item.step, []).append(item)
                whole = payloads.join_chunks(self.chunks[item.step], self.spec.size)
                if whole is not None and item.step == t:
                    self.deal.add(None, whole)
                elif whole is not None and item.step < t and item.step not in self.deal.points:
                    self.deal.attach(item.step, whole)
        except DeckError as err:
            self.chunks.pop(item.step, None)
            return str(err)
        if self.deal.complete:
            self.stage = PLAY
            self._seat_slots()
        return ""

    def _seat_slots(self) -> None:
        """Slot i to seat (start + i) % n; with two players in round 0 the second half is set aside."""
        self.hands = self._dealt_slots()

    def first_state(self) -> Any:
        """The engine's round with every card unknown (a machine learns its own with ``learn``)."""
        return new_round(self.config, self.seed, self.round_no, [Card(0, 0)] * self.spec.size)

    def slot_point(self, slot: int) -> bytes:
        return self.deal.slots[slot]

    def card(self, slot: int, card: int, bit: int, flipped: bool) -> Card:
        """The engine's card for ``slot`` opened as canonical ``card`` with orientation ``bit``, in a
        hand turned around (``flipped``) or not."""
        c = scout_card(self.config.players, card, bit)
        return c.turned() if flipped else c

    # --- play ------------------------------------------------------------------------------------
    def shown_slots(self, seat: int, action: Any) -> list[tuple[int, int]]:
        """(hand position, slot) of each card ``action`` shows from ``seat``'s hand, positions as
        the engine will see them (after a Scout & Show's insertion)."""
        hand = list(self.hands[seat])
        if isinstance(action, ScoutShow):
            end = 0 if action.scout.end == "L" else -1
            if not self.active:
                return []
            hand.insert(action.scout.pos, self.active[end])
            action = action.show
        if not isinstance(action, Show) or not 0 <= action.first <= action.last < len(hand):
            return []
        return [(p, hand[p]) for p in range(action.first, action.last + 1)]

    def check_opens(self, seat: int, action: Any,
                    opens: Sequence[PublicOpen]) -> str | dict[int, tuple[int, int]]:
        """The proven cards by slot (``card``, orientation bit), or why the proofs do not do."""
        need = {slot for _, slot in self.shown_slots(seat, action) if slot not in self.public}
        given = {o.slot: o for o in opens}
        if set(given) != need or len(given) != len(opens):
            return "the proofs do not cover exactly the cards shown"
        out: dict[int, tuple[int, int]] = {}
        for slot, proof in given.items():
            if not check_open(proof, self.slot_point(slot), self.points):
                return f"the proof for slot {slot} does not hold"
            out[slot] = (proof.card, orientation(self.table_id, slot, proof.key))
        return out

    def after(self, seat: int, action: Any) -> None:
        """Follow ``action`` (applied by the engine) in the slot map."""
        hand = self.hands[seat]
        if isinstance(action, TurnChoice):
            if action.flip:
                hand.reverse()
            return
        if isinstance(action, (Scout, ScoutShow)):
            scout = action if isinstance(action, Scout) else action.scout
            hand.insert(scout.pos, self.active.pop(0 if scout.end == "L" else -1))
        if isinstance(action, (Show, ScoutShow)):
            show = action if isinstance(action, Show) else action.show
            self.active = hand[show.first:show.last + 1]
            del hand[show.first:show.last + 1]

    def position(self, slot: int) -> tuple[int, int] | None:
        """(seat, hand position) of a slot in a hand, or None."""
        for seat, hand in enumerate(self.hands):
            if slot in hand:
                return seat, hand.index(slot)
        return None

    # --- the audit -------------------------------------------------------------------------------
    def on_seed(self, author: bytes, entry: payloads.SeedEntry) -> str:
        if self.stage != REVEAL or entry.round_no != self.round_no or entry.dealer is not None:
            return "not the time for this round's seeds"
        if author not in self.members or author in self.record.reveals:
            return "not a dealing member, or revealed already"
        self.record.reveals[author] = entry.value
        if len(self.record.reveals) == len(self.members):
            self.outcome = self._audit()
            self.stage = DONE
        return ""

    def _audit(self) -> Outcome:
        report = audit(self.record, self.points)
        if report.faults:
            return Outcome(report.faults, report, None)
        dealt = [scout_card(self.config.players, report.cards[s], report.orientations[s])
                 for s in range(self.spec.size)]
        state = new_round(self.config, self.seed, self.round_no, dealt)
        for move in self.moves:
            try:
                state.apply(move.seat, _parse(move.action))
            except (IllegalAction, ParseError) as err:
                why = f"made a move its cards did not allow ({move.action}: {err})"
                fault = Fault(move.author, "act", why)
                return Outcome([fault], report, None)
        if not state.is_over():
            return Outcome([], report, None)
        return Outcome([], report, state.round_scores())

    def dealt_hands(self) -> list[list[str]]:
        """Each seat's hand as dealt (before any whole-hand turn), once audited: e.g. ``3/7``."""
        if self.outcome is None:
            return []
        n = self.config.players
        report = self.outcome.report
        hands: list[list[str]] = [[] for _ in range(n)]
        for seat, slots in enumerate(self._dealt_slots()):
            hands[seat] = [str(scout_card(n, report.cards[s], report.orientations[s])) if s in report.cards
                           else "?" for s in slots]
        return hands

    def _dealt_slots(self) -> list[list[int]]:
        n = self.config.players
        dealt = self.spec.size // 2 if n == 2 and self.spec.size == len(deck_in_play(2)) else self.spec.size
        slots: list[list[int]] = [[] for _ in range(n)]
        for i in range(dealt):
            slots[(self.round_no + i) % n].append(i)
        return slots

    def set_aside_cards(self) -> list[int] | None:
        """Two players, round 0, audited: the set-aside cards in their order (round 1 deals them)."""
        if self.outcome is None or self.outcome.faults:
            return None
        half = self.spec.size // 2
        return [self.outcome.report.cards[s] for s in range(half, self.spec.size)]


def _parse(text: str) -> Any:
    from cardtable.engine.scout.actions import parse_action

    return parse_action(text)
