"""The rounds of a hidden-hands table (docs/hidden-hands.md) as the machine that kept its log can
rebuild them, for ``replay --view``, ``watch LOG`` and ``review`` (``cli/log_frames.py``).

A table that deals with hidden hands writes no card in its log that was not shown to all, and its
seed deals nothing. What the machine knows instead:

- an **audited** round: everything. At its end every member revealed its seed, and the audit
  opened every slot (``HiddenRound.outcome.report``): the round is replayed with every card, as
  the audit replayed it;
- a round **in play** (or one made void before its audit): its own cards, those its seeds and
  the keys it received open (``p2p/hidden/peek.py``: its seat's hand, and the computer players'
  if its machine played them), and the cards shown to all.

``seat_round`` is one SOLO round as one seat knew it, its own cards as they came and the cards
shown: what ``review`` searches from (a view that knows every card would tell the search every
hand; SCOUT's engine tells a seat only its own hand and the scouted cards already).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

EVERY, MINE, PUBLIC = "every", "mine", "public"
"""What a rebuilt round knows: every card (audited), this machine's and the shown ones, the shown ones."""


@dataclass
class Dealt:
    """One round a hidden-hands table dealt, as this machine rebuilds it."""

    round_no: int  # from 0 (a void round dealt again keeps its number)
    game: str
    moves: list[tuple[int, str]]  # (seat, action) as the round's entries write them (SOLO: on slots)
    actions: list[Any]  # the same, parsed for the round's view
    first: Callable[[], Any]  # a fresh view of the round, as dealt (SOLO: its setup card turned)
    known: str  # EVERY, MINE or PUBLIC
    closed: bool  # the table finished it: scored, or void (False: the round in play)
    scores: list[int] | None = None  # the round's scores once closed (None: void)
    why: str = ""  # why it is void
    truth: dict[int, Any] = field(default_factory=dict)  # every slot's card (EVERY only)
    config: Any = None

    def seat_first(self, seat: int) -> Any:
        """The round as dealt, as ``seat`` knew it (an audited round): what a review searches from."""
        if self.game == "solo":
            return seat_round(self.config, self.round_no, self.truth, seat)
        return self.first()

    def label(self, k: int) -> str:
        """Move ``k`` of the round (from 0) in the everyday notation (no slot numbers)."""
        from cardtable.engine.solo.actions import Play
        from cardtable.engine.solo.slot_actions import SlotPlay

        action = self.actions[k]
        if isinstance(action, SlotPlay):
            gift = tuple(sorted(self.truth[s] for s in action.gift)) if self.known == EVERY else ()
            return str(Play(action.cards, action.colour, action.target, gift, action.call))
        return self.moves[k][1]


def dealt_rounds(rounds: Sequence[Any], current: Any, kept: Mapping[str, Any]) -> list[Dealt]:
    """The rounds ``rounds`` (``p2p.hidden.round.HiddenRound``, in the order the table dealt
    them) whose cards were dealt, each as this machine can rebuild it: ``current`` is the round
    the table is still in (None: none), ``kept`` the store's meta (its seeds and received keys)."""
    out = []
    for h in rounds:
        if h.deal.complete:  # a deal begun again before its cards were dealt played nothing
            out.append(dealt(h, h is not current, kept))
    return out


def dealt(h: Any, closed: bool, kept: Mapping[str, Any] | None) -> Dealt:
    """Round ``h`` rebuilt with all this machine may know of it (``kept`` None: nothing of its own:
    an audited round needs nothing)."""
    game = h.config.game
    moves = [(m.seat, m.action) for m in h.moves]
    actions = [h.parse(text) for _, text in moves]
    outcome = h.outcome
    scores = outcome.scores if closed and outcome is not None and not outcome.faults else None
    why = "the audit found a cheat" if closed and outcome is not None and outcome.faults else ""
    base = Dealt(h.round_no, game, moves, actions, lambda: None, PUBLIC, closed, scores, why, config=h.config)
    truth = _audited(h)
    if truth is not None:
        first = _first(h, truth, truth)
        if _replays(first, moves, actions):
            base.first, base.known, base.truth = first, EVERY, truth
            return base
    public = {slot: _card(h, card, bit) for slot, (card, bit) in h.public.items()}
    mine = _opened(h, kept) if kept is not None else {}
    for cards, known in ((mine, MINE), ({}, PUBLIC)):
        first = _first(h, cards, public)
        if known == PUBLIC or _replays(first, moves, actions):
            base.first, base.known = first, known
            return base
    return base  # not reached: the public view is the table's own


def audited(h: Any) -> Dealt | None:
    """An audited round that counted, with every card (None: it is not one, or its cards do not
    replay its moves)."""
    if h.outcome is None or h.outcome.faults or h.outcome.scores is None:
        return None
    round_ = dealt(h, True, None)
    return round_ if round_.known == EVERY else None


def _audited(h: Any) -> dict[int, Any] | None:
    """Every slot's card as the audit opened it (None: not audited, or a slot it could not open)."""
    if h.outcome is None:
        return None
    report = h.outcome.report
    if any(s not in report.cards for s in range(h.size)):
        return None
    return {s: _card(h, report.cards[s], report.orientations[s]) for s in range(h.size)}


def _card(h: Any, card: int, bit: int) -> Any:
    """The engine's card for canonical card ``card`` lying as ``bit`` says (SCOUT; SOLO: no sides)."""
    if h.config.game == "solo":
        return h.faces[card]
    from cardtable.p2p.hidden.scout_round import scout_card

    return scout_card(h.config.players, card, bit)


def _opened(h: Any, kept: Mapping[str, Any]) -> dict[int, Any]:
    """The slots this machine's seeds and received keys open (``p2p/hidden/peek.py``)."""
    from cardtable.engine.errors import ParseError
    from cardtable.p2p.hidden.peek import round_view

    if h.config.game == "solo":
        from cardtable.engine.solo.cards import parse_card as solo_card
        parse: Callable[[str], Any] = solo_card
    else:
        from cardtable.engine.scout.cards import parse_card as scout_card
        parse = scout_card
    out = {}
    for slot, text in round_view(h, kept).opened.items():
        try:
            out[slot] = parse(text)
        except ParseError:
            continue
    return out


def _first(h: Any, cards: Mapping[int, Any], shown: Mapping[int, Any]) -> Callable[[], Any]:
    """A fresh view of round ``h`` as dealt that knows ``cards`` (slot -> card) and the cards
    ``shown`` to all: SOLO learns them as they are laid but for its setup card, turned here;
    SCOUT's engine needs a shown card's value before the show, so it knows them from the deal."""
    if h.config.game == "solo":
        from cardtable.engine.solo.state import State

        size = h.size

        def solo() -> Any:
            state = State(h.config, h.round_no, [cards.get(s) for s in range(size)])
            while state.wanted() and state.wanted()[0] in shown:
                slot = state.wanted()[0]
                state.turn_up(slot, shown[slot])
            return state

        return solo
    from cardtable.engine.scout.cards import UNKNOWN
    from cardtable.engine.scout.state import new_round

    dealt = [cards.get(s, shown.get(s, UNKNOWN)) for s in range(h.spec.size)]
    return lambda: new_round(h.config, h.seed, h.round_no, dealt)


def _replays(first: Callable[[], Any], moves: Sequence[tuple[int, str]], actions: Sequence[Any]) -> bool:
    """Whether the view ``first`` builds plays every move of the round."""
    try:
        state = first()
        for (seat, _), action in zip(moves, actions, strict=True):
            state.apply(seat, action)
    except Exception:  # noqa: BLE001 - a round that does not replay is shown with less, never a traceback
        return False
    return True


def seat_round(config: Any, round_no: int, truth: Mapping[int, Any], seat: int) -> Any:
    """A SOLO round on slots (``engine/solo/state.py``) as ``seat``'s machine knew it: its setup
    card turned, each card of its hand known as it comes, each card shown known as it is laid."""
    from cardtable.engine.solo.state import State

    class SeatRound(State):
        def apply(self, who: int, action: Any) -> Any:
            events = super().apply(who, action)  # a card laid is learnt from the play itself
            self.own()
            return events

        def own(self) -> None:
            for slot in self.held[seat]:
                if slot not in self.cards:
                    self.learn(slot, truth[slot])

    state = SeatRound(config, round_no, [None] * len(truth))
    while state.wanted():
        slot = state.wanted()[0]
        state.turn_up(slot, truth[slot])
    state.own()
    return state
