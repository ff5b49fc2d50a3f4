"""SCOUT's part of a hidden round (``p2p/hidden/round.py``): the slot map and the audit's replay.

Slot ``i`` of the round's deal goes to seat ``(round + i) % n`` (with two players in round 0, only
the first half: the rest is set aside, held by nobody); hands keep their slots in hand order, the
active set its slots, and the map follows every action as the engine does. A slot's card lies as
its orientation bit says (0: the lower value up), turned with the whole hand.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from cardtable.engine.errors import IllegalAction, ParseError
from cardtable.engine.scout.actions import Scout, ScoutShow, Show, TurnChoice, parse_action
from cardtable.engine.scout.cards import UNKNOWN, Card, deck_in_play
from cardtable.engine.scout.state import new_round
from cardtable.p2p.hidden.audit import AuditReport
from cardtable.p2p.hidden.decks import scout_names
from cardtable.p2p.hidden.group import card_points
from cardtable.p2p.hidden.round import HiddenRound, Outcome, replay_fault


def scout_card(players: int, index: int, bit: int) -> Card:
    """Canonical card ``index`` lying as its slot's orientation ``bit`` says (0: lower value up)."""
    low, high = deck_in_play(players)[index]
    return Card(low, high) if bit == 0 else Card(high, low)


def scout_points(table_id: bytes, players: int) -> tuple[bytes, ...]:
    """The card points of a SCOUT table (once per table)."""
    return card_points(table_id, "scout", scout_names(players))


class ScoutRound(HiddenRound):
    """A SCOUT round with hidden hands."""

    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        self._hands: list[list[int]] = [[] for _ in range(self.config.players)]
        self.active: list[int] = []

    @property
    def hands(self) -> list[list[int]]:
        return self._hands

    def on_dealt(self) -> None:
        self._hands = self.dealt_slots()

    def dealt_slots(self) -> list[list[int]]:
        n = self.config.players
        size = self.spec.size
        dealt = size // 2 if n == 2 and size == len(deck_in_play(2)) else size
        slots: list[list[int]] = [[] for _ in range(n)]
        for i in range(dealt):
            slots[(self.round_no + i) % n].append(i)
        return slots

    def first_state(self) -> Any:
        """The engine's round with every card unknown (a machine learns its own with ``learn``)."""
        return new_round(self.config, self.seed, self.round_no, [UNKNOWN] * self.spec.size)

    def card_text(self, card: int, bit: int) -> str:
        return str(scout_card(self.config.players, card, bit))

    # --- moves -----------------------------------------------------------------------------------
    def parse(self, text: str) -> Any:
        return parse_action(text)

    def wire_move(self, state: Any, seat: int, text: str) -> tuple[str, list[int]]:
        """The entry text of a move chosen as ``text``, and the slots whose cards it shows."""
        return text, self.shown(seat, self.parse(text))

    def shown(self, seat: int, action: Any) -> list[int]:
        """The slots whose cards ``action`` shows from ``seat``'s hand."""
        return [slot for _, slot in self._shown_at(seat, action)]

    def _shown_at(self, seat: int, action: Any) -> list[tuple[int, int]]:
        """(hand position, slot) of each card shown, positions as the engine will see them (after a
        Scout & Show's insertion)."""
        hand = list(self.hands[seat])
        if isinstance(action, ScoutShow):
            if not self.active:
                return []
            hand.insert(action.scout.pos, self.active[0 if action.scout.end == "L" else -1])
            action = action.show
        if not isinstance(action, Show) or not 0 <= action.first <= action.last < len(hand):
            return []
        return [(p, hand[p]) for p in range(action.first, action.last + 1)]

    def put_public(self, state: Any, seat: int, action: Any, proven: dict[int, tuple[int, int]]) -> bool:
        """Put the cards a move shows, proven in public, into the view (positions of a Scout &
        Show's show count the scouted card, which is not in the hand yet). False: the engine
        applies the move next."""
        for pos, slot in self._shown_at(seat, action):
            if slot in proven:
                card, bit = proven[slot]
                at = pos - 1 if isinstance(action, ScoutShow) and pos > action.scout.pos else pos
                state.learn(seat, at, self._card(card, bit, state.flipped[seat] is True))
        return False

    def after(self, state: Any, seat: int, action: Any) -> None:
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

    def learn(self, state: Any, slot: int, card: int, bit: int) -> None:
        """This machine opened ``slot`` (a card of a hand it holds): into its view."""
        for seat, hand in enumerate(self.hands):
            if slot in hand:
                pos = hand.index(slot)
                if state.hands[seat][pos] == UNKNOWN:
                    state.learn(seat, pos, self._card(card, bit, state.flipped[seat] is True))
                return

    def _card(self, card: int, bit: int, flipped: bool) -> Card:
        c = scout_card(self.config.players, card, bit)
        return c.turned() if flipped else c

    def knows_hand(self, state: Any, seat: int) -> bool:
        return all(c != UNKNOWN for c in state.hands[seat])

    def public_state(self, state: Any) -> dict[str, Any]:
        """The view's snapshot with what only some machines know masked (hands, the set-aside pile)."""
        snap = state.snapshot()
        snap["hands"] = [[c if k else "?" for c, k in zip(h, known, strict=True)]
                         for h, known in zip(snap["hands"], snap["known"], strict=True)]
        snap["set_aside"] = ["?"] * len(snap["set_aside"])
        return dict(snap)

    # --- the audit -------------------------------------------------------------------------------
    def replay(self, report: AuditReport) -> Outcome:
        dealt = [scout_card(self.config.players, report.cards[s], report.orientations[s])
                 for s in range(self.spec.size)]
        state = new_round(self.config, self.seed, self.round_no, dealt)
        for move in self.moves:
            try:
                state.apply(move.seat, parse_action(move.action))
            except (IllegalAction, ParseError) as err:
                return Outcome([replay_fault(move, err)], report, None)
        return Outcome([], report, state.round_scores() if state.is_over() else None)

    def next_cards(self) -> Sequence[int] | None:
        """The cards the next round deals (two players, after round 0: the set-aside ones, in their
        order); None: the whole deck."""
        if self.config.players != 2 or self.round_no % 2 or self.outcome is None or self.outcome.faults:
            return None
        half = self.spec.size // 2
        return [self.outcome.report.cards[s] for s in range(half, self.spec.size)]
