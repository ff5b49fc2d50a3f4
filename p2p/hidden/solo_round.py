"""SOLO's part of a hidden round (``p2p/hidden/round.py``), over the engine's view on slots
(``engine/solo/state.py``, a ``State`` without the seed), which keeps the slot map itself.

Slot ``i`` of the round's deal goes to seat ``(dealer + 1 + i) % n`` while ``i < hand_size * n``; the
rest is the draw pile, drawn lowest slot first. The dealer seat's machine turns the setup card in
public (``turn``: its proof); a played card is shown with its proof; a drawn, gifted or swapped card
moves to a hand and its new holder receives the keys. A reshuffle deals the discard pile but its top
card again, with the same members and seeds, into new slots numbered on (``add_deal``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from cardtable.engine.errors import IllegalAction, ParseError
from cardtable.engine.solo.actions import DECLINE, KEEP, parse_action
from cardtable.engine.solo.cards import deck
from cardtable.engine.solo.slot_actions import CLEAR, OWED, SlotPlay, parse_slot_action
from cardtable.engine.solo.state import State, audit_replay
from cardtable.p2p.hidden.audit import AuditReport, Fault
from cardtable.p2p.hidden.decks import solo_names
from cardtable.p2p.hidden.group import card_points
from cardtable.p2p.hidden.round import HiddenRound, Outcome, replay_fault

TURN = "turn"
"""The dealer's machine turns the setup card: ``["keys", dealer seat, "turn", proof]``."""


def solo_points(table_id: bytes, config: Any) -> tuple[bytes, ...]:
    """The card points of a SOLO table (once per table)."""
    return card_points(table_id, "solo", solo_names(config.gifts, config.protection))


class SoloRound(HiddenRound):
    """A SOLO round with hidden hands."""

    forced = frozenset(str(a) for a in (KEEP, DECLINE, OWED, CLEAR))

    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        self.faces = deck(self.config.gifts, self.config.protection)
        self.view: State | None = None

    @property
    def hands(self) -> list[list[int]]:
        return self.view.held if self.view is not None else [[] for _ in range(self.config.players)]

    @property
    def dealer(self) -> int:
        return int(self.round_no % self.config.players)

    def dealt_slots(self) -> list[list[int]]:
        n = self.config.players
        slots: list[list[int]] = [[] for _ in range(n)]
        for i in range(self.config.hand_size * n):
            slots[(self.dealer + 1 + i) % n].append(i)
        return slots

    def first_state(self) -> State:
        """This machine's view of the round with every card unknown."""
        self.view = State(self.config, self.round_no, [None] * self.spec.size)
        return self.view

    def seat_slots(self, seat: int) -> list[int]:
        view = self.view
        extra = view.wanted() if view is not None and seat == self.dealer else []
        return list(self.hands[seat]) + extra

    def due_move(self, state: Any) -> tuple[int, str] | None:
        """The dealer's seat turns the setup card (its machine opened it: it alone can prove it)."""
        return (self.dealer, TURN) if state is not None and state.wanted() else None

    def card_text(self, card: int, bit: int) -> str:
        return self.faces[card].text

    # --- moves -----------------------------------------------------------------------------------
    def parse(self, text: str) -> Any:
        return TURN if text == TURN else parse_slot_action(text)

    def wire_move(self, state: Any, seat: int, text: str) -> tuple[str, list[int]]:
        """The entry text of a move chosen in the everyday notation (``R7``), written on slots
        (``R7@12``), and the slots whose cards it shows."""
        action = TURN if text == TURN else state.slot_action(seat, parse_action(text))
        return str(action), self.shown(seat, action)

    def shown(self, seat: int, action: Any) -> list[int]:
        if action == TURN:
            return self.view.wanted() if self.view is not None and seat == self.dealer else []
        return list(action.slots) if isinstance(action, SlotPlay) else []

    def put_public(self, state: Any, seat: int, action: Any, proven: dict[int, tuple[int, int]]) -> bool:
        """Put the cards a move shows, proven in public, into the view; the setup card is turned
        here (True: nothing left for the engine to apply)."""
        if action == TURN:
            if seat != self.dealer or not proven:
                raise IllegalAction("only the dealer's seat turns the setup card")
            for slot, (card, _) in proven.items():
                state.turn_up(slot, self.faces[card])
            return True
        if isinstance(action, SlotPlay):
            for named, slot in zip(action.cards, action.slots, strict=True):
                if slot in proven and self.faces[proven[slot][0]] is not named:
                    raise IllegalAction(f"slot {slot} holds {self.faces[proven[slot][0]]}, not {named}")
        for slot, (card, _) in proven.items():
            state.learn(slot, self.faces[card])
        return False

    def after(self, state: Any, seat: int, action: Any) -> None:
        """A draw that emptied the draw pile started a reshuffle: the members deal it."""
        while len(state.deals) > len(self.specs):
            reshuffle = state.deals[len(self.specs)]
            self.add_deal([self.public[s][0] for s in reshuffle.sources])

    def learn(self, state: Any, slot: int, card: int, bit: int) -> None:
        if slot not in state.cards:
            state.learn(slot, self.faces[card])

    def knows_hand(self, state: Any, seat: int) -> bool:
        return bool(state.knows_hand(seat))

    def public_state(self, state: Any) -> dict[str, Any]:
        return dict(state.public_view())

    # --- the audit -------------------------------------------------------------------------------
    def replay(self, report: AuditReport) -> Outcome:
        cards = [self.faces[report.cards[s]] for s in range(self.size)]
        try:
            state = audit_replay(self.config, self.round_no, cards, [(m.seat, m.action) for m in self.moves])
        except (IllegalAction, ParseError) as err:
            bad = self._failing_move(cards)
            return Outcome([replay_fault(bad, err)], report, None) if bad else Outcome([], report, None)
        wrong = state.wrong_judgements()
        if wrong:
            move = self.moves[wrong[0].step]
            claim = f"claimed {wrong[0].claim} for its hand, which was false"
            return Outcome([Fault(move.author, "act", claim)], report, None)
        return Outcome([], report, state.round_scores() if state.is_over() else None)

    def _failing_move(self, cards: Sequence[Any]) -> Any:
        """The first move the full replay refuses."""
        state = audit_replay(self.config, self.round_no, cards, [])
        for move in self.moves:
            try:
                state.apply(move.seat, move.action)
            except (IllegalAction, ParseError):
                return move
        return None
