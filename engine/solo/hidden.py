"""A SOLO round as one machine sees it under hidden hands (docs/hidden-hands.md section 9).

Every card of the round sits in a numbered **slot**. Slot ``i`` of the deal is the i-th card
dealt: slot ``i < hand_size * n`` goes to seat ``(dealer + 1 + i) % n``; the rest is the draw
pile, drawn lowest slot first. A reshuffle deals the discard pile but its top card afresh into
new slots, numbered on after the last one, in drawing order (``deals`` lists every deal for
the table to run). The round is kept on slots: hands (in arrival order), the piles, who holds
what, and the card of every slot this view knows (``learn``).

The public course never depends on a card the view may not know, so every machine's view
runs the same course:

- the setup card is turned in public: ``wanted()`` names the slot, ``turn_up`` shows it;
- after a draw the drawer always acts: it plays the drawn card (proven) or ``keep``;
- with Protection in the deck a Protection window opens for every seat the rules let react;
  a seat without one declines; a decline closes no jump-in or SOLO window (a call, a catch
  and a decline are alike in that);
- whether a SOLO call is due on a hand of 2 or more cards (anniversary: Gift, multiples) is
  the holder's to judge: a ``!`` on such a play, a late ``solo``, and the answer (``owed`` /
  ``clear``) the round asks of a seat when a catch, or a classic closing, depends on it.
  Each such claim is a ``Judgement``; a view that knows the cards checks it, and the audit's
  full-knowledge replay (``audit_replay``) names the seat of any wrong one (``wrong_judgements``).

With every card known, the round plays as ``engine.solo.State`` does with the same deal, but
for the steps above (tests/engine/test_solo_hidden.py checks it move by move).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from cardtable.engine.errors import IllegalAction
from cardtable.engine.game import Event
from cardtable.engine.solo.actions import CALL, DECLINE, DRAW, KEEP, Action, Catch, Play, Simple
from cardtable.engine.solo.cards import COLOURS, Card, deck, hand_points
from cardtable.engine.solo.config import SOLO_PENALTY, Config
from cardtable.engine.solo.slot_actions import (
    CLEAR,
    OWED,
    SlotAction,
    SlotPlay,
    parse_slot_action,
    slot_multiples,
)
from cardtable.engine.solo.state import _KIND_NAMES, SETTLED, STACKABLE, State, _describe, needs_call

SLOT_LIMIT = 8192
"""Slots a round may deal (a slot's number takes 2 bytes on the wire): past it the discard pile is
not dealt again, and a draw finds no card, as when the discard pile holds only its top card."""

NONE, CALLED, MISSED = "none", "called", "missed"
"""The states of a seat's SOLO window: none open, open with the call made, open and missed."""

@dataclass(frozen=True)
class Deal:
    """A deal the table runs: ``cards`` (in starting order) into slots ``first`` onwards;
    ``sources``: for a reshuffle, the discard pile's slots the cards come from, in that order."""

    number: int
    first: int
    cards: tuple[Card, ...]
    sources: tuple[int, ...] = ()


@dataclass(frozen=True)
class Judgement:
    """A claim the holder of ``seat`` made about its hidden hand at action ``step`` of the
    round; ``truth``: whether it held, as far as this view knows (None: it cannot tell)."""

    step: int
    seat: int
    claim: str
    truth: bool | None


@dataclass
class SlotWindow:
    """A seat's SOLO window: the states it may be in, publicly and as far as this view knows."""

    seat: int
    public: frozenset[str]
    mine: frozenset[str]


@dataclass
class SlotReact:
    """An open Protection window (``engine.solo.state.React`` on slots)."""

    kind: str
    by: int
    pending: list[int]
    target: int | None = None
    gift: tuple[int, ...] = ()
    protected: list[int] = field(default_factory=list)
    call: bool = False


@dataclass(frozen=True)
class Ask:
    """The round waits for ``seat`` to answer ``owed`` or ``clear``: for the catch by
    ``catcher``, or (``catcher`` None) before another seat's action closes its classic window."""

    seat: int
    catcher: int | None


class SlotRound:
    """One machine's view of a SOLO round on slots. ``cards[i]``: slot i's card, or None."""

    def __init__(self, config: Config, round_no: int, cards: Sequence[Card | None]) -> None:
        n = config.players
        full = deck(config.gifts, config.protection)
        if len(cards) < len(full):
            raise IllegalAction(f"a deal of {len(full)} cards needs {len(full)} slots, not {len(cards)}")
        self.config = config
        self.round_no = round_no
        self.n = n
        self.deals = [Deal(0, 0, tuple(full))]
        self.next_slot = len(full)
        self.cards: dict[int, Card] = {}
        self.public: set[int] = set()
        self._later = {i: c for i, c in enumerate(cards) if i >= len(full) and c is not None}
        for i, c in enumerate(cards[:len(full)]):
            if c is not None:
                self.learn(i, c)
        dealer = round_no % n
        dealt = config.hand_size * n
        self.hands: list[list[int]] = [[] for _ in range(n)]
        for i in range(dealt):
            self.hands[(dealer + 1 + i) % n].append(i)
        self.draw: list[int] = list(range(dealt, len(full)))  # drawn first to last
        self.discard: list[int] = []
        self.ready = False
        self.turn: int | None = None
        self.direction = 1
        self.colour: str | None = None
        self.penalty = 0
        self.penalty_kind: str | None = None
        self.drawn: int | None = None
        self.jump = False
        self.laid_by: int | None = None
        self.windows: list[SlotWindow] = []
        self.react: SlotReact | None = None
        self.asked: Ask | None = None
        self._closing: tuple[int, SlotAction, list[SlotWindow]] | None = None
        self.winner: int | None = None
        self.judgements: list[Judgement] = []
        self.handed: list[tuple[int, int]] = []
        self.steps = 0

    # --- what this view knows --------------------------------------------------------
    def learn(self, slot: int, card: Card) -> None:
        """This view learns ``slot``'s card. It never changes the round's public course."""
        if not 0 <= slot < self.next_slot:
            raise IllegalAction(f"there is no slot {slot} in this round yet")
        known = self.cards.get(slot)
        if known is not None:
            if known is not card:
                raise IllegalAction(f"slot {slot} holds {known}, not {card}")
            return
        deal = next(d for d in reversed(self.deals) if d.first <= slot)
        last = deal.first + len(deal.cards)
        seen = sum(1 for s, c in self.cards.items() if c is card and deal.first <= s < last)
        if seen >= deal.cards.count(card):
            raise IllegalAction(f"deal {deal.number} has only {deal.cards.count(card)} {card}: "
                                f"slot {slot} cannot hold one more")
        self.cards[slot] = card

    def where(self, slot: int) -> tuple[str, int | None, int] | None:
        """Where ``slot`` is: ``("hand", seat, position)``, ``("draw", None, position)`` (0: drawn
        next) or ``("discard", None, position)`` (0: the bottom); None once reshuffled away."""
        for seat, hand in enumerate(self.hands):
            if slot in hand:
                return "hand", seat, hand.index(slot)
        for name, pile in (("draw", self.draw), ("discard", self.discard)):
            if slot in pile:
                return name, None, pile.index(slot)
        return None

    def knows_hand(self, seat: int) -> bool:
        return all(s in self.cards for s in self.hands[seat])

    def hand_cards(self, seat: int) -> list[Card] | None:
        """``seat``'s cards in arrival order, or None if this view does not know them all."""
        if not self.knows_hand(seat):
            return None
        return [self.cards[s] for s in self.hands[seat]]

    # --- the setup ----------------------------------------------------------------------
    def wanted(self) -> list[int]:
        """The slots the round waits to see in public (the setup card, RULES.md 1.2.2)."""
        return [] if self.ready or not self.draw else [self.draw[0]]

    def turn_up(self, slot: int, card: Card) -> None:
        """Turn the setup slot ``slot``, proven to hold ``card``, onto the discard pile."""
        if self.ready:
            raise IllegalAction("the setup is over: no card is turned now")
        if slot != self.draw[0]:
            raise IllegalAction(f"the setup turns slot {self.draw[0]} next, not slot {slot}")
        self._open(slot, card)
        self.discard.append(self.draw.pop(0))
        if card.number or not self.draw:  # RULES.md 1.2.2, 1.8.11, 1.8.16
            self.ready = True
            self.turn = (self.round_no % self.n + 1) % self.n
            self.colour = card.colour if card.number else None
            self.jump = not card.black

    # --- queries -----------------------------------------------------------------------
    @property
    def top(self) -> Card:
        return self.cards[self.discard[-1]]

    def is_over(self) -> bool:
        return self.winner is not None

    def next_seat(self, seat: int, steps: int = 1) -> int:
        return (seat + steps * self.direction) % self.n

    def to_move(self) -> int | None:
        """The seat the round waits for (None before the setup card and after the end)."""
        if self.winner is not None or not self.ready:
            return None
        if self.asked is not None:
            return self.asked.seat
        if self.react is not None:
            return self.react.pending[0]
        return self.turn

    def actors(self) -> list[int]:
        """The seats that may have a legal action now: every seat while the round is under way
        (whether one may jump in or catch depends on its hand, which only its own view knows;
        ``legal_card_actions`` says, for a seat whose hand this view knows)."""
        return [] if self.winner is not None or not self.ready else list(range(self.n))

    def window_of(self, seat: int) -> SlotWindow | None:
        return next((w for w in self.windows if w.seat == seat), None)

    def fits(self, card: Card) -> bool:
        if card.black or self.colour is None or card.colour == self.colour:
            return True
        return not self.top.black and card.rank == self.top.rank

    def wrong_judgements(self) -> list[Judgement]:
        """The recorded claims this view knows to be false (on the audit's full replay: all)."""
        return [j for j in self.judgements if j.truth is False]

    def round_scores(self) -> list[int]:
        """The round's scores: only once every card left in a hand is known (the audit)."""
        if self.winner is None:
            raise IllegalAction("the round is not over")
        hidden = sorted(s for hand in self.hands for s in hand if s not in self.cards)
        if hidden:
            more = "..." if len(hidden) > 5 else ""
            raise IllegalAction(f"the scores need every card left in a hand: {len(hidden)} are not known "
                                f"(slots {', '.join(map(str, hidden[:5]))}{more})")
        return [self.config.round_delta(hand_points(self.cards[s] for s in hand)) for hand in self.hands]

    def public_view(self) -> dict[str, Any]:
        """The public part of the round: the same in every machine's view."""
        react = self.react
        return {
            "ready": self.ready, "turn": self.turn, "direction": self.direction, "colour": self.colour,
            "penalty": self.penalty, "penalty_kind": self.penalty_kind,
            "hands": [list(h) for h in self.hands], "draw": list(self.draw), "discard": list(self.discard),
            "top": self.top.text if self.discard else None, "drawn": self.drawn, "jump": self.jump,
            "laid_by": self.laid_by, "winner": self.winner,
            "windows": [(w.seat, sorted(w.public)) for w in self.windows],
            "react": None if react is None else {
                "kind": react.kind, "by": react.by, "target": react.target, "gift": list(react.gift),
                "pending": list(react.pending), "protected": list(react.protected), "call": react.call},
            "asked": None if self.asked is None else self.asked.seat,
            "deals": [(d.number, d.first, len(d.cards)) for d in self.deals],
        }

    # --- legal actions -------------------------------------------------------------------
    def legal_actions(self, seat: int) -> list[SlotAction]:
        """``seat``'s legal actions on slots; this view must know its whole hand (its own seats)."""
        return [self.slot_action(seat, a) for a in self.legal_card_actions(seat)]

    def legal_card_actions(self, seat: int) -> list[Action]:
        """``seat``'s legal actions in today's notation (what a client or a bot chooses from;
        ``slot_action`` writes the choice on slots); this view must know its whole hand."""
        if self.winner is not None or not self.ready or not 0 <= seat < self.n:
            return []
        window = self.window_of(seat)
        mine = window.mine if window is not None else frozenset({NONE})
        if self.asked is not None:
            answer = self.answer(seat) if seat == self.asked.seat else None
            return [answer] if answer is not None else []
        hand = self.hand_cards(seat)
        if hand is None or len(mine) > 1:
            raise IllegalAction(f"this view does not know every card of seat {seat}'s hand")
        probe = State.from_snapshot(self._probe(seat, hand, mine))
        legal = probe.legal_actions(seat)
        if self.drawn is not None and seat == self.turn and not self.fits(self.cards[self.drawn]):
            legal = [a for a in legal if not isinstance(a, Play)]
        return legal

    def observation(self, seat: int) -> dict[str, Any]:
        """What ``seat`` sees, in ``State.observation``'s form: its hand (sorted, the cards this
        view has opened), the others' hand sizes, the cards it knows in other hands, SOLO windows
        as far as they are public (``called`` None: not public), and ``asked``."""
        react = self.react
        own = [self.cards[s] for s in self.hands[seat] if s in self.cards]
        drawn: str | bool | None = self.drawn is not None
        if seat == self.turn:
            drawn = self.cards[self.drawn].text if self.drawn in self.cards else None
        windows = [{"seat": w.seat, "called": _shown(w.mine if w.seat == seat else w.public)}
                   for w in self.windows if NONE not in (w.mine if w.seat == seat else w.public)]
        gift: list[str] | int = len(react.gift) if react is not None else 0
        if react is not None and seat in (react.by, react.target) and set(react.gift) <= set(self.cards):
            gift = [self.cards[s].text for s in react.gift]
        known = {h: sorted(self.cards[s] for s in hand if s in self.cards)
                 for h, hand in enumerate(self.hands) if h != seat}
        return {
            "game": "solo", "seat": seat, "players": self.n,
            "hand": [c.text for c in sorted(own)], "unopened": len(self.hands[seat]) - len(own),
            "hand_sizes": [len(h) for h in self.hands],
            "top": self.top.text if self.discard else None,  # None: the setup card is not turned yet
            "discard": [self.cards[s].text for s in self.discard], "draw_size": len(self.draw),
            "turn": self.turn, "to_move": self.to_move(), "direction": self.direction,
            "colour": self.colour, "penalty": self.penalty, "penalty_kind": self.penalty_kind,
            "drawn": drawn, "jump": self.jump, "laid_by": self.laid_by,
            "solo": windows[0] if windows else None, "solo_also": windows[1:],
            "react": None if react is None else {
                "kind": react.kind, "by": react.by, "target": react.target,
                "pending": list(react.pending), "protected": list(react.protected), "gift": gift,
                "call": react.call},
            "known": {h: [c.text for c in cards] for h, cards in known.items() if cards},
            "asked": None if self.asked is None else self.asked.seat,
            "winner": self.winner,
        }

    def _probe(self, seat: int, hand: list[Card], mine: frozenset[str]) -> dict[str, Any]:
        """Today's engine's position as ``seat`` sees it: its hand, the public state."""
        react = self.react
        drawn = self.cards[self.drawn].text if self.drawn is not None and seat == self.turn else None
        return {
            "game": "solo", "config": self.config.to_dict(), "seed": "", "round": self.round_no,
            "hands": [[c.text for c in hand] if s == seat else [] for s in range(self.n)],
            "draw": [], "discard": [self.cards[s].text for s in self.discard],
            "turn": self.turn, "direction": self.direction, "colour": self.colour,
            "penalty": self.penalty, "penalty_kind": self.penalty_kind, "drawn": drawn,
            "jump": self.jump, "laid_by": self.laid_by,
            "solo": None if mine == {NONE} else {"seat": seat, "called": mine == {CALLED}},
            "react": None if react is None else {
                "kind": react.kind, "by": react.by, "target": react.target, "gift": [],
                "pending": list(react.pending), "protected": list(react.protected), "call": react.call},
        }

    def slot_action(self, seat: int, action: Action) -> SlotAction:
        """Today's action ``action`` of ``seat`` written on slots (this view knows its hand)."""
        if not isinstance(action, Play):
            return action
        free = list(self.hands[seat])

        def take(card: Card) -> int:
            if self.drawn in free and seat == self.turn and self.cards.get(self.drawn) is card:
                free.remove(self.drawn)
                return self.drawn
            for s in free:
                if self.cards.get(s) is card:
                    free.remove(s)
                    return s
            raise IllegalAction(f"seat {seat} holds no {card} that this view knows")

        laid = [(c, take(c)) for c in action.cards]
        gift = tuple(sorted(take(c) for c in action.gift))
        if len(laid) > 1:
            return slot_multiples(laid, action.call)
        return SlotPlay((laid[0][0],), (laid[0][1],), action.colour, action.target, gift, action.call)

    # --- applying actions -----------------------------------------------------------------
    def apply(self, seat: int, action: SlotAction | str) -> list[Event]:
        """Apply ``seat``'s action; ``handed`` then lists the (seat, slot) pairs that changed holder."""
        if isinstance(action, str):
            action = parse_slot_action(action)
        if not isinstance(action, SlotPlay | Simple | Catch):
            raise IllegalAction(f"{action} is not a hidden-hands SOLO action (a play names its slots: R7@12)")
        if not self.ready:
            raise IllegalAction("the setup card is not turned yet (see wanted())")
        if self.winner is not None:
            raise IllegalAction("the round is over")
        if not 0 <= seat < self.n:
            raise IllegalAction(f"there is no seat {seat} at a {self.n}-player table")
        events: list[Event] = []
        if self.asked is not None:
            if seat != self.asked.seat or action not in (OWED, CLEAR):
                raise IllegalAction(f"waiting for seat {self.asked.seat} to answer owed or clear")
            self.handed = []
            self._answer(action == OWED, events)
            self.steps += 1
            return events
        if action in (OWED, CLEAR):  # said before it is asked (classic): nothing waits on it later
            if self.answer(seat, public=True) is None:
                raise IllegalAction("nobody is asked to answer owed or clear now")
            self.handed = []
            self._narrow(seat, action == OWED)
            self.steps += 1
            return events
        claims = self._check(seat, action)
        self.handed = []
        for claim, truth in claims:
            self.judgements.append(Judgement(self.steps, seat, claim, truth))
        if isinstance(action, Catch):
            self._catch_or_ask(seat, action.target, events)
        elif action == CALL:
            window = self.window_of(seat)
            assert window is not None
            window.public = window.mine = frozenset({CALLED})
            events.append(Event("call", seat, "calls SOLO!"))
        elif action == DECLINE:
            self._decline(seat, events)
        else:
            self.jump = False
            self._closing = (seat, action, [w for w in self.windows if w.seat != seat])
            self._continue_closing(events)
        self.steps += 1
        return events

    def _check(self, seat: int, action: SlotAction) -> list[tuple[str, bool | None]]:
        """Refuse ``action`` unless the public state and its proven cards allow it; return the
        claims about hidden cards it makes (for the record)."""
        if isinstance(action, Catch):
            if self.config.call != "window":
                raise IllegalAction("catching is not part of these rules "
                                    "(a missed call costs 2 cards by itself)")
            if action.target == seat or not 0 <= action.target < self.n:
                raise IllegalAction(f"seat {seat} cannot catch seat {action.target}")
            return []
        if action == CALL:
            window = self.window_of(seat)
            if self.config.call != "window" or window is None or MISSED not in window.public:
                raise IllegalAction("there is no missed SOLO call of yours to make now")
            if window.public == {MISSED}:
                return []
            return [("calls a missed SOLO late", _holds(window.mine, MISSED))]
        react = self.react
        if action == DECLINE:
            if react is None or seat not in react.pending:
                raise IllegalAction("there is no Protection window open for you")
            return []
        if isinstance(action, Simple):
            if react is not None:
                raise IllegalAction(f"waiting for seat {react.pending[0]} to protect or decline")
            if seat != self.turn:
                raise IllegalAction(f"it is seat {self.turn}'s turn, not seat {seat}'s")
            if action == DRAW and self.drawn is not None:
                raise IllegalAction(f"after drawing, play the drawn card (slot {self.drawn}) or keep it")
            if action == KEEP and self.drawn is None:
                raise IllegalAction("there is no drawn card to keep")
            if action not in (DRAW, KEEP):
                raise IllegalAction(f"'{action}' is not possible now")
            return []
        return self._check_play(seat, action)

    def _check_play(self, seat: int, play: SlotPlay) -> list[tuple[str, bool | None]]:
        hand = self.hands[seat]
        named = play.slots + play.gift
        if len(set(named)) < len(named) or len(play.cards) != len(play.slots) or not play.cards:
            raise IllegalAction("a play names each of its slots once, with its card")
        for s in named:
            if s not in hand:
                raise IllegalAction(f"seat {seat} does not hold slot {s}")
        for c, s in zip(play.cards, play.slots, strict=True):
            known = self.cards.get(s)
            if known is not None and known is not c:
                raise IllegalAction(f"slot {s} holds {known}, not {c}")
        self._check_form(seat, play)
        card, react = play.card, self.react
        many = len(play.cards) > 1
        if react is not None:
            protecting = seat in react.pending and card.rank == "prot" and not many
            if not protecting and not (react.kind == "skip" and self._jump_in_ok(seat, play)):
                extra = f" (or jump in with {self.top})" if react.kind == "skip" else ""
                raise IllegalAction(f"a Protection window is open: play a Protection or decline{extra}")
        elif seat != self.turn:
            if not self._jump_in_ok(seat, play):
                raise IllegalAction(f"it is seat {self.turn}'s turn; a jump-in needs the card identical to "
                                    f"{self.top}, at once, and never multiples or black cards")
        elif self.drawn is not None and self.drawn not in play.slots:
            raise IllegalAction(f"after drawing, only the drawn card (slot {self.drawn}) may be played")
        elif self.penalty:
            if many or not (card.rank == "prot" or self._stacks(card)):
                raise IllegalAction(f"a penalty of {self.penalty} is pending: stack it, protect, or draw")
        elif not self.fits(card):
            raise IllegalAction(f"{card} does not fit on {self.top}")
        if not play.call:
            return []
        due_public, due_mine = self._call_could_be_due(seat, play)
        if due_public is False:
            raise IllegalAction("SOLO may only be called with a play that leaves a hand one play could empty")
        return [] if due_public else [("calls SOLO with a call due", due_mine)]

    def _check_form(self, seat: int, play: SlotPlay) -> None:
        card = play.card
        if len(play.cards) > 1:
            if not self.config.multiples:
                raise IllegalAction("multiples are not part of these rules")
            if any(not c.number or c.number != card.number for c in play.cards) or len(play.cards) < 3:
                raise IllegalAction("multiples are 3 or more number cards of one number")
            if play != slot_multiples(list(zip(play.cards, play.slots, strict=True)), play.call):
                raise IllegalAction("multiples are written with the middle cards in canonical order")
            if play.colour is not None or play.target is not None or play.gift:
                raise IllegalAction("multiples take no colour or target")
            return
        wants_colour = card.rank in ("wild", "wd4")
        wants_target = card.rank in ("swap", "gift")
        if (play.colour is not None) != wants_colour or (wants_colour and play.colour not in COLOURS):
            raise IllegalAction(f"{card} {'names a colour' if wants_colour else 'takes no colour'}")
        if (play.target is not None) != wants_target:
            raise IllegalAction(f"{card} {'names a seat' if wants_target else 'takes no target'}")
        if play.target is not None and (play.target == seat or not 0 <= play.target < self.n):
            raise IllegalAction(f"{card} names another seat at the table, not {play.target}")
        if card.rank != "gift" and play.gift:
            raise IllegalAction(f"{card} gives no cards")
        if card.rank == "gift":
            rest = len(self.hands[seat]) - 1
            if len(play.gift) != min(2, rest):
                raise IllegalAction("a Gift gives 2 cards (all that are left if fewer)")

    def _jump_in_ok(self, seat: int, play: SlotPlay) -> bool:
        card = play.card
        if len(play.cards) > 1 or not self.jump or card.black or self.top.black or card is not self.top:
            return False
        return seat != self.laid_by or self.config.self_jump_in

    def _stacks(self, card: Card) -> bool:
        return card.rank in STACKABLE and (self.config.mixed_stacking or card.rank == self.penalty_kind)

    def _call_could_be_due(self, seat: int, play: SlotPlay) -> tuple[bool | None, bool | None]:
        """RULES.md 1.8.7, 1.8.14 (``State._call_could_be_due``), publicly and for this view."""
        rest = [s for s in self.hands[seat] if s not in play.slots]
        left = [s for s in rest if s not in play.gift]
        rank = play.card.rank
        after = (False, False) if rank in ("swap", "pass") else self._due(left)
        cancelled = self._due(rest) if rank in SETTLED and self.config.protection else (False, False)
        return _or(after[0], cancelled[0]), _or(after[1], cancelled[1])

    def _due(self, slots: list[int]) -> tuple[bool | None, bool | None]:
        """Whether the hand ``slots`` needs a SOLO call: publicly (its size) and for this view."""
        size = len(slots)
        if size <= 1:
            return size == 1, size == 1
        possible = (self.config.gifts and size <= 3) or (self.config.multiples and 3 <= size <= 8)
        if not possible:
            return False, False
        cards = [self.cards.get(s) for s in slots]
        mine = None if None in cards else needs_call(self.config, [c for c in cards if c is not None])
        return None, mine

    # --- windows, catches, answers ---------------------------------------------------------
    def _judge(self, seat: int, due: tuple[bool | None, bool | None], call: bool) -> None:
        """``State._judge_call`` over the states ``seat``'s window may be in."""
        window = self.window_of(seat)
        public = window.public if window is not None else frozenset({NONE})
        mine = window.mine if window is not None else frozenset({NONE})
        self._set_window(seat, _after(public, due[0], call), _after(mine, due[1], call))

    def _set_window(self, seat: int, public: frozenset[str], mine: frozenset[str]) -> None:
        mine = mine & public or public  # a claim this view knows is false: follow the claim
        window = self.window_of(seat)
        if window is None:
            if public != {NONE}:
                self.windows.append(SlotWindow(seat, public, mine))
            return
        window.public, window.mine = public, mine
        if public == {NONE}:
            self.windows.remove(window)

    def _catch_or_ask(self, seat: int, target: int, events: list[Event]) -> None:
        window = self.window_of(target)
        if window is not None and MISSED in window.public and window.public != {MISSED}:
            self.asked = Ask(target, seat)
            return
        self._catch(seat, target, events)

    def _catch(self, seat: int, target: int, events: list[Event]) -> None:
        window = self.window_of(target)
        if window is not None and window.public == {MISSED}:
            got = self._take(target, SOLO_PENALTY)
            self.windows.remove(window)
            events.append(Event("catch", seat, f"catches seat {target}, who draws {len(got)}", target=target,
                                count=len(got)))
            return
        got = self._take(seat, self.config.false_catch_penalty)
        events.append(Event("false_catch", seat, f"catches seat {target} wrongly and draws {len(got)}",
                            target=target, count=len(got)))

    def answer(self, seat: int, public: bool = False) -> Simple | None:
        """The answer ``seat``'s machine gives now: when the round asks it, or (``with_play``
        call) as soon as its window's miss is not public, so that the next action need not wait.
        None: nothing to answer (nor once the round is over: no action is taken then). With
        ``public``, whether an answer may be given (either one)."""
        window = self.window_of(seat)
        if self.winner is not None or window is None or MISSED not in window.public \
                or window.public == {MISSED}:
            return None
        asked = self.asked is not None and self.asked.seat == seat
        if not asked and (self.asked is not None or self.config.call != "with_play"):
            return None
        if public:
            return OWED
        if len(window.mine) > 1:
            raise IllegalAction(f"this view cannot tell whether seat {seat} owes a call")
        return OWED if window.mine == {MISSED} else CLEAR

    def _narrow(self, seat: int, owed: bool) -> None:
        """``seat`` says whether its window is missed: record the claim, narrow the window."""
        window = self.window_of(seat)
        assert window is not None
        truth = _holds(window.mine, MISSED)
        claim = "owes a missed SOLO call" if owed else "owes no missed SOLO call"
        if not owed and truth is not None:
            truth = not truth
        self.judgements.append(Judgement(self.steps, seat, claim, truth))
        kept = frozenset({MISSED}) if owed else window.public - {MISSED}
        self._set_window(seat, kept, window.mine & kept)

    def _answer(self, owed: bool, events: list[Event]) -> None:
        ask = self.asked
        assert ask is not None
        self.asked = None
        self._narrow(ask.seat, owed)
        if ask.catcher is not None:
            self._catch(ask.catcher, ask.seat, events)
        else:
            self._continue_closing(events)

    def _continue_closing(self, events: list[Event]) -> None:
        """Close the other seats' windows before an action (``State._close_windows``); a classic
        window whose miss depends on a hidden hand asks its seat first."""
        assert self._closing is not None
        seat, action, queue = self._closing
        while queue:
            window = queue[0]
            if self.config.call == "with_play" and MISSED in window.public:
                if window.public != {MISSED}:
                    self.asked = Ask(window.seat, None)
                    return
                got = self._take(window.seat, SOLO_PENALTY)
                events.append(Event("penalty", window.seat, f"did not call SOLO and draws {len(got)}",
                                    count=len(got)))
            queue.pop(0)
        self._closing = None
        self.windows = [w for w in self.windows if w.seat == seat]
        if isinstance(action, SlotPlay):
            self._play(seat, action, events)
        elif action == DRAW:
            self._draw_action(seat, events)
        else:
            events.append(Event("keep", seat, "keeps the card drawn"))
            self._end_turn(seat)

    # --- the moves ---------------------------------------------------------------------------
    def _end_turn(self, seat: int) -> None:
        self.drawn = None
        self.turn = self.next_seat(seat)

    def _draw_action(self, seat: int, events: list[Event]) -> None:
        if self.penalty:
            got = self._take(seat, self.penalty)
            events.append(Event("draw", seat, f"draws {len(got)} as a penalty of {self.penalty}",
                                count=len(got), penalty=self.penalty))
            self.penalty = 0
            self.penalty_kind = None
            return
        got = self._take(seat, 1)
        if not got:
            events.append(Event("draw", seat, "cannot draw: no cards left", count=0))
            self._end_turn(seat)
            return
        events.append(Event("draw", seat, "draws a card", count=1))
        self.drawn = got[0]  # the drawer plays it or keeps it: nobody else knows whether it fits

    def _take(self, seat: int, count: int) -> list[int]:
        """Draw up to ``count`` slots into ``seat``'s hand, reshuffling when needed."""
        got: list[int] = []
        for _ in range(count):
            if not self.draw:
                if len(self.discard) <= 1 or self.next_slot + len(self.discard) - 1 > SLOT_LIMIT:
                    break
                self._reshuffle()
            slot = self.draw.pop(0)
            self.hands[seat].append(slot)
            self.handed.append((seat, slot))
            got.append(slot)
        return got

    def _reshuffle(self) -> None:
        """A fresh deal of the discard pile but its top card, into new slots (RULES.md 1.3)."""
        pile = self.discard[:-1]
        first = self.next_slot
        self.deals.append(Deal(len(self.deals), first, tuple(self.cards[s] for s in pile), tuple(pile)))
        self.next_slot += len(pile)
        self.draw = list(range(first, self.next_slot))
        self.discard = self.discard[-1:]
        for s in self.draw:
            if s in self._later:
                self.learn(s, self._later.pop(s))

    def _open(self, slot: int, card: Card) -> None:
        self.learn(slot, card)
        self.public.add(slot)

    def _play(self, seat: int, play: SlotPlay, events: list[Event]) -> None:
        react = self.react
        protecting = react is not None and seat in react.pending and play.card.rank == "prot"
        jumping = not protecting and seat != self.turn
        for c, s in zip(play.cards, play.slots, strict=True):
            self._open(s, c)
            self.hands[seat].remove(s)
        self.discard.extend(play.slots)
        self.laid_by = seat
        self.drawn = None
        self.jump = not play.top.black
        as_today = Play(play.cards, play.colour, play.target, (), play.call)
        verb = "jumps in with" if jumping else "plays"
        events.append(Event("play", seat, f"{verb} {_describe(as_today)}", cards=[c.text for c in play.cards],
                            colour=play.colour, target=play.target, call=play.call, jump=jumping))
        rest = self.hands[seat]
        if not rest:
            self._win(seat, events)
            return
        if play.card.rank not in SETTLED:
            due = self._due(rest)
            self._judge(seat, (True if play.call else due[0], due[1]), play.call)
        if protecting and react is not None and react.kind != "skip":
            self._protect(seat, play.top, react, events)
            return
        if protecting:
            events.append(Event("protect", seat, "is protected from the Skip", against="skip"))
        self.react = None
        self._effect(seat, play, events)

    def _effect(self, seat: int, play: SlotPlay, events: list[Event]) -> None:
        card = play.top
        rank = card.rank
        self.colour = play.colour or card.colour
        if rank == "pass":
            self.colour = None
        if rank == "prot":
            self.penalty, self.penalty_kind = 0, None
        if rank in STACKABLE:
            self.penalty += 2 if rank == "d2" else 4
            self.penalty_kind = rank
        if rank == "skip":
            target = self.next_seat(seat)
            if self.config.protection:  # a window for the target, whether or not it holds one
                self.turn = None
                self.react = SlotReact("skip", seat, [target], target)
            else:
                events.append(Event("skipped", target, "is skipped"))
                self.turn = self.next_seat(target)
        elif rank == "rev":
            self.direction = -self.direction
            self.turn = seat if self.n == 2 else self.next_seat(seat)
        elif rank in ("swap", "gift"):
            assert play.target is not None
            self.turn = None
            pending = [play.target] if self.config.protection else []
            self.react = SlotReact(rank, seat, pending, play.target, play.gift, call=play.call)
            if not pending:
                self._resolve(events)
        elif rank == "pass":
            order = [self.next_seat(seat, k) for k in range(1, self.n)]
            pending = order if self.config.protection else []
            self.turn = None
            self.react = SlotReact("pass", seat, pending, call=play.call)
            if not pending:
                self._resolve(events)
        else:
            self.turn = self.next_seat(seat)

    def _protect(self, seat: int, card: Card, react: SlotReact, events: list[Event]) -> None:
        self.colour = card.colour
        react.pending.remove(seat)
        react.protected.append(seat)
        events.append(Event("protect", seat, f"is protected from the {_KIND_NAMES[react.kind]}",
                            against=react.kind))
        if react.kind == "pass":
            if not react.pending:
                self._resolve(events)
            return
        self.react = None
        self.turn = self.next_seat(react.by)
        self._settle_call(react, True)

    def _decline(self, seat: int, events: list[Event]) -> None:
        """A decline closes no window (like a call or a catch): every seat may have to decline."""
        react = self.react
        assert react is not None
        react.pending.remove(seat)
        events.append(Event("decline", seat, "does not protect"))
        if react.kind == "skip":
            events.append(Event("skipped", seat, "is skipped"))
            self.react = None
            self.turn = self.next_seat(seat)
        elif not react.pending:
            self._resolve(events)

    def _resolve(self, events: list[Event]) -> None:
        react = self.react
        assert react is not None
        self.react = None
        by, target = react.by, react.target
        if react.kind == "swap":
            assert target is not None
            self.hands[by], self.hands[target] = self.hands[target], self.hands[by]
            self.handed += [(by, s) for s in self.hands[by]] + [(target, s) for s in self.hands[target]]
            events.append(Event("swap", by, f"swaps hands with seat {target}", target=target))
            self.turn = target
            self._settle_call(react, False)
        elif react.kind == "gift":
            assert target is not None
            for s in react.gift:
                self.hands[by].remove(s)
                self.hands[target].append(s)
                self.handed.append((target, s))
            events.append(Event("gift", by, f"gives {len(react.gift)} card(s) to seat {target}",
                                target=target, count=len(react.gift)))
            self.turn = self.next_seat(by)
            if not self.hands[by]:
                self._win(by, events)
            else:
                self._settle_call(react, True)
        else:
            ring = [s for s in (self.next_seat(by, k) for k in range(self.n)) if s not in react.protected]
            if len(ring) >= 2:
                old = {s: self.hands[s] for s in ring}
                for i, s in enumerate(ring):
                    nxt = ring[(i + 1) % len(ring)]
                    self.hands[nxt] = old[s]
                    self.handed += [(nxt, slot) for slot in old[s]]
                events.append(Event("pass", by, f"hands pass on to the next player ({len(ring)} hands)",
                                    count=len(ring)))
            self.turn = self.next_seat(by)
            self._settle_call(react, len(ring) < 2)

    def _settle_call(self, react: SlotReact, kept: bool) -> None:
        """RULES.md 1.8.14: due only if its player ``kept`` a hand of its own that needs a call."""
        due = self._due(self.hands[react.by]) if kept else (False, False)
        self._judge(react.by, due, react.call)

    def _win(self, seat: int, events: list[Event]) -> None:
        self.winner = seat
        self.turn = None
        self.react = None
        self.jump = False
        events.append(Event("out", seat, "has no cards left and wins the round"))


def _after(states: frozenset[str], due: bool | None, call: bool) -> frozenset[str]:
    """The window states after a play that leaves a hand needing a call (``due``; None: either),
    from each of ``states`` (``State._judge_call``)."""
    out = set()
    for state in states:
        for d in ((True, False) if due is None else (due,)):
            if state == MISSED:
                out.add(MISSED)
            elif d:
                out.add(CALLED if call else MISSED)
            else:
                out.add(state)
    return frozenset(out)


def _holds(states: frozenset[str], state: str) -> bool | None:
    """Whether the window is in ``state``: True, False, or None (this view cannot tell)."""
    if states == {state}:
        return True
    return None if state in states else False


def _shown(states: frozenset[str]) -> bool | None:
    """A window's ``called`` for an observation: True, False, or None when not settled."""
    return True if states == {CALLED} else False if states == {MISSED} else None


def _or(a: bool | None, b: bool | None) -> bool | None:
    if a is True or b is True:
        return True
    return None if a is None or b is None else False


def audit_replay(config: Config, round_no: int, cards: Sequence[Card],
                 moves: Iterable[tuple[int, SlotAction | str]]) -> SlotRound:
    """The audit's replay: every slot's card known (reshuffles' slots after the deal's), the
    setup turned, every move applied. ``wrong_judgements()`` then names any false claim."""
    state = SlotRound(config, round_no, list(cards))
    while state.wanted():
        slot = state.wanted()[0]
        state.turn_up(slot, state.cards[slot])
    for seat, action in moves:
        state.apply(seat, action)
    return state

