"""One SOLO round over slots whose cards may or may not be known: the rules of SOLO, once.

Every card of a round sits in a numbered **slot**. Slot ``i`` of the deal is the i-th card dealt:
slot ``i < hand_size * n`` goes to seat ``(dealer + 1 + i) % n``; the rest is the draw pile, drawn
lowest slot first. A reshuffle deals the discard pile but its top card into new slots, numbered on
after the last one, in drawing order (``deals``). Hands, piles and the drawn card are slots;
``cards`` holds the card of every slot this view knows.

The same class is both kinds of table:

- **open** (``new_round``, ``from_snapshot``: the seed is known): every card is known, the setup
  card is turned at once, a reshuffle is dealt from the seed; this is the position every machine
  of an open table, the bots and the environments play on;
- **hidden** (``State(config, round_no, cards)``, no seed): one machine's view at a hidden-hands
  table (docs/hidden-hands.md), where the public course never depends on a card the view may not
  know: ``wanted()``/``turn_up`` turn the setup card in public; after a draw the drawer always
  acts (plays the card or ``keep``s it); with Protection in the deck a Protection window opens for
  every seat the rules let react (a seat without one declines); whether a SOLO call is due on a
  hand of 2 or more cards is the holder's to judge, recorded as a ``Judgement`` that a view
  knowing the cards checks, and ``audit_replay`` replays the round with every card known.

Legal actions are listed in the everyday notation (``R7``, ``engine/solo/actions.py``);
``slot_action`` writes one on slots (``R7@12``, ``engine/solo/slot_actions.py``); ``apply`` takes
either. Whether an action is legal is decided in one place (``_claims``); the lists only name
the candidates. Out-of-turn actions (jump-ins, calls, catches, Protection reactions) are ordinary
actions of the seats that may take them; when two seats act at once the log's order decides.
"""

from __future__ import annotations

from bisect import insort
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from itertools import product
from operator import attrgetter
from typing import Any

from cardtable.engine.errors import IllegalAction, ParseError
from cardtable.engine.game import Event
from cardtable.engine.shuffle import Stream
from cardtable.engine.solo.actions import CALL, DECLINE, DRAW, KEEP, Action, Catch, Play, Simple
from cardtable.engine.solo.cards import COLOUR_NAMES, COLOURS, FACES, Card, deck, hand_points, parse_card
from cardtable.engine.solo.config import MAX_PLAYERS, SOLO_PENALTY, Config
from cardtable.engine.solo.slot_actions import (
    CLEAR,
    OWED,
    SlotAction,
    SlotPlay,
    parse_slot_action,
    slot_multiples,
)
from cardtable.engine.solo.windows import (
    CALLED,
    MISSED,
    NONE,
    Ask,
    Judgement,
    Window,
    after,
    either,
    holds,
)

STACKABLE = ("d2", "wd4")
SETTLED = ("gift", "swap", "pass")
"""Plays whose SOLO call is judged once their effect is settled (docs/rules.md 1.8.14)."""

SLOT_LIMIT = 8192
"""Slots a hidden round may deal (a slot's number takes 2 bytes on the wire): past it the discard
pile is not dealt again, and a draw finds no card, as when the discard pile holds only its top."""

_INDEX = attrgetter("index")
_DUE: tuple[bool | None, bool | None] = (True, True)
_NOT_DUE: tuple[bool | None, bool | None] = (False, False)
_CATCHES = tuple(Catch(t) for t in range(MAX_PLAYERS))
_SINGLES = {c: Play((c,)) for c in FACES}  # each card laid alone, with no choice to make
_SLOT_ACTIONS = (SlotPlay, Simple, Catch)
_KIND_NAMES = {"skip": "Skip", "gift": "Gift", "swap": "Swap", "pass": "Pass hands"}


@dataclass(frozen=True)
class Deal:
    """A deal of the round: ``cards`` (in starting order) into slots ``first`` onwards;
    ``sources``: for a reshuffle, the discard pile's slots the cards come from, in that order."""

    number: int
    first: int
    cards: tuple[Card | None, ...]
    sources: tuple[int, ...] = ()


@dataclass
class React:
    """An open Protection window: seats in ``pending`` may protect or decline."""

    kind: str  # "skip", "gift", "swap" or "pass"
    by: int  # the seat whose card opened the window
    pending: list[int]
    target: int | None = None
    gift: tuple[int, ...] = ()  # the slots a Gift gives (in the giver's hand while the window is open)
    protected: list[int] = field(default_factory=list)
    call: bool = False  # the Gift / Swap / Pass hands was played with "!" (judged when settled)


class State:
    """A SOLO round as one view knows it. ``cards[i]``: slot i's card, when known.

    ``State(config, round_no, cards)`` is a hidden-hands view (``cards``: the deal's slots, None
    where unknown, then any reshuffle's cards known in advance); ``new_round`` deals an open one.
    """

    # slots: 36 attributes are more than CPython keeps in an instance's shared-key values, so a
    # __dict__ would make every attribute access a dictionary lookup
    __slots__ = ("config", "_call_sizes", "round_no", "n", "seed", "hidden", "deals", "next_slot", "cards",
                 "_later", "held", "draw_slots", "discard_slots", "reshuffles", "ready", "turn", "direction",
                 "colour", "penalty", "penalty_kind", "drawn_slot", "jump", "laid_by", "windows", "react",
                 "asked", "_closing", "winner", "judgements", "handed", "steps", "known", "_legal", "_hands",
                 "_by_card", "_faces")
    deals: list[Deal]
    draw_slots: list[int]  # drawn first to last
    _later: dict[int, Card]

    def __init__(self, config: Config, round_no: int, cards: Sequence[Card | None],
                 seed: bytes | None = None) -> None:
        full = deck(config.gifts, config.protection)
        if len(cards) < len(full):
            raise IllegalAction(f"a deal of {len(full)} cards needs {len(full)} slots, not {len(cards)}")
        self._blank(config, round_no, seed)
        n = self.n
        self.deals = [Deal(0, 0, tuple(full))]
        self.next_slot = len(full)
        self._later = {i: c for i, c in enumerate(cards) if i >= len(full) and c is not None}
        if seed is not None:  # an open deal: every card is the deck's, shuffled
            self.cards.update((i, c) for i, c in enumerate(cards[:len(full)]) if c is not None)
        else:
            for i, c in enumerate(cards[:len(full)]):
                if c is not None:
                    self.learn(i, c)
        dealer = round_no % n
        dealt = config.hand_size * n
        for i in range(dealt):
            self.held[(dealer + 1 + i) % n].append(i)
        self.draw_slots = list(range(dealt, len(full)))

    def _blank(self, config: Config, round_no: int, seed: bytes | None) -> None:
        n = config.players
        self.config = config
        self._call_sizes = call_sizes(config)
        self.round_no = round_no
        self.n = n
        self.seed = seed
        self.hidden = seed is None
        self.deals = []
        self.next_slot = 0
        self.cards: dict[int, Card] = {}
        self._later = {}
        self.held: list[list[int]] = [[] for _ in range(n)]  # each seat's slots, in arrival order
        self.draw_slots = []
        self.discard_slots: list[int] = []  # the top last
        self.reshuffles = 0
        self.ready = False
        self.turn: int | None = None
        self.direction = 1
        self.colour: str | None = None  # colour in force; None: any card fits
        self.penalty = 0
        self.penalty_kind: str | None = None
        self.drawn_slot: int | None = None
        self.jump = False
        self.laid_by: int | None = None
        self.windows: list[Window] = []  # open SOLO windows, in the order they close (1.8.17)
        self.react: React | None = None
        self.asked: Ask | None = None
        self._closing: tuple[int, SlotAction, list[Window]] | None = None
        self.winner: int | None = None
        self.judgements: list[Judgement] = []
        self.handed: list[tuple[int, int]] = []
        self.steps = 0
        # What each seat has seen of the others' hands (open tables; docs/rules.md 1.6): known[s][h].
        self.known: list[list[list[Card]]] = [[[] for _ in range(n)] for _ in range(n)]
        self._legal: dict[int, list[Action]] = {}
        self._hands: dict[int, list[Card]] = {}
        self._by_card: dict[int, dict[Card, list[int]]] = {}  # see _slots_by_card
        self._faces: dict[int, list[Card]] = {}  # the keys of _by_card[seat], in canonical order

    # --- what this view knows ------------------------------------------------------------
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
        self._by_card.clear()
        self._faces.clear()
        self._forget()

    def where(self, slot: int) -> tuple[str, int | None, int] | None:
        """Where ``slot`` is: ``("hand", seat, position)``, ``("draw", None, position)`` (0: drawn
        next) or ``("discard", None, position)`` (0: the bottom); None once reshuffled away."""
        for seat, hand in enumerate(self.held):
            if slot in hand:
                return "hand", seat, hand.index(slot)
        for name, pile in (("draw", self.draw_slots), ("discard", self.discard_slots)):
            if slot in pile:
                return name, None, pile.index(slot)
        return None

    def knows_hand(self, seat: int) -> bool:
        return all(s in self.cards for s in self.held[seat])

    def hand_cards(self, seat: int) -> list[Card] | None:
        """``seat``'s cards in arrival order, or None if this view does not know them all."""
        if not self.knows_hand(seat):
            return None
        return [self.cards[s] for s in self.held[seat]]

    def hand(self, seat: int) -> list[Card]:
        """The cards this view knows in ``seat``'s hand, in canonical order (a copy)."""
        return list(self._hand(seat))

    def _hand(self, seat: int) -> list[Card]:
        """``hand(seat)``, kept until the round changes (with the legal actions)."""
        cached = self._hands.get(seat)
        if cached is None:
            cards = self.cards
            cached = self._hands[seat] = sorted((cards[s] for s in self.held[seat] if s in cards), key=_INDEX)
        return cached

    def pile(self, slots: Iterable[int]) -> list[Card]:
        """The cards of ``slots`` (this view knows them)."""
        try:
            return [self.cards[s] for s in slots]
        except KeyError as err:
            raise IllegalAction(f"this view does not know the card of slot {err.args[0]}") from None

    @property
    def hands(self) -> list[list[Card]]:
        """Each seat's cards as far as this view knows them, in canonical order."""
        return [self.hand(s) for s in range(self.n)]

    @property
    def draw(self) -> list[Card]:
        """The draw pile's cards, the top (drawn next) last."""
        return self.pile(reversed(self.draw_slots))

    @property
    def drawn(self) -> Card | None:
        """The card drawn this turn, to play or keep (None: no draw, or one this view cannot see)."""
        return None if self.drawn_slot is None else self.cards.get(self.drawn_slot)

    @property
    def discard(self) -> list[Card]:
        """The discard pile's cards, the top last."""
        return self.pile(self.discard_slots)

    # --- the setup ---------------------------------------------------------------------------
    def wanted(self) -> list[int]:
        """The slots the round waits to see in public (the setup card, docs/rules.md 1.2.2)."""
        return [] if self.ready or not self.draw_slots else [self.draw_slots[0]]

    def turn_up(self, slot: int, card: Card) -> None:
        """Turn the setup slot ``slot``, proven to hold ``card``, onto the discard pile."""
        if self.ready:
            raise IllegalAction("the setup is over: no card is turned now")
        if slot != self.draw_slots[0]:
            raise IllegalAction(f"the setup turns slot {self.draw_slots[0]} next, not slot {slot}")
        self._open(slot, card)
        self.discard_slots.append(self.draw_slots.pop(0))
        if card.number or not self.draw_slots:  # docs/rules.md 1.2.2, 1.8.11, 1.8.16
            self.ready = True
            self.turn = (self.round_no % self.n + 1) % self.n
            self.colour = card.colour if card.number else None
            self.jump = not card.black
        self._forget()

    # --- queries -----------------------------------------------------------------------------
    @property
    def top(self) -> Card:
        return self.cards[self.discard_slots[-1]]

    @property
    def solo_seat(self) -> int | None:
        """The seat of the first open SOLO window (see ``windows`` for all of them)."""
        return self.windows[0].seat if self.windows else None

    @property
    def solo_called(self) -> bool:
        """Whether the first open SOLO window's call was made."""
        return bool(self.windows) and self.windows[0].called

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
        """The seats with a legal action now. In a hidden view every seat while the round is under
        way: whether one may jump in or catch depends on its hand, which only its own view knows."""
        if self.hidden:
            return [] if self.winner is not None or not self.ready else list(range(self.n))
        return [s for s in range(self.n) if self.legal_actions(s)]

    def window_of(self, seat: int) -> Window | None:
        """``seat``'s open SOLO window, if any (a seat has at most one)."""
        for window in self.windows:
            if window.seat == seat:
                return window
        return None

    def fits(self, card: Card) -> bool:
        """Whether ``card`` may be laid on the top card (no penalty pending)."""
        return self.colour is None or card in _fitting(self.colour, self.top)

    def needs_call(self, hand: list[Card]) -> bool:
        """Whether one play could empty ``hand``, so leaving it needs a SOLO call."""
        return needs_call(self.config, hand)

    def wrong_judgements(self) -> list[Judgement]:
        """The recorded claims this view knows to be false (on the audit's full replay: all)."""
        return [j for j in self.judgements if j.truth is False]

    def round_scores(self) -> list[int]:
        """The round's scores: only once every card left in a hand is known."""
        if self.winner is None:
            raise IllegalAction("the round is not over")
        hidden = sorted(s for hand in self.held for s in hand if s not in self.cards)
        if hidden:
            more = "..." if len(hidden) > 5 else ""
            raise IllegalAction(f"the scores need every card left in a hand: {len(hidden)} are not known "
                                f"(slots {', '.join(map(str, hidden[:5]))}{more})")
        return [self.config.round_delta(hand_points(self.cards[s] for s in hand)) for hand in self.held]

    # --- legal actions -------------------------------------------------------------------------
    def legal_actions(self, seat: int) -> list[Action]:
        """``seat``'s legal actions in the everyday notation; this view must know its whole hand
        (a hidden view: its own seats). ``slot_action`` writes one on slots."""
        cached = self._legal.get(seat)
        if cached is None:
            cached = self._legal[seat] = self._generate(seat)
        return cached

    def _generate(self, seat: int) -> list[Action]:
        """The candidates, in a fixed order, that ``refusal`` lets through."""
        if self.winner is not None or not self.ready or not 0 <= seat < self.n:
            return []
        if self.asked is not None:
            answer = self.answer(seat) if seat == self.asked.seat else None
            return [answer] if answer is not None else []
        window = self.window_of(seat)
        if self.hidden and (not self.knows_hand(seat) or (window is not None and len(window.mine) > 1)):
            raise IllegalAction(f"this view does not know every card of seat {seat}'s hand")
        self._slots_by_card(seat)
        faces = self._faces[seat]
        react = self.react
        acts: list[Action] = []
        if react is not None and seat in react.pending:  # protect first, then decline, then jump in
            protections = [c for c in faces if c.rank == "prot"]
            acts += self._plays(seat, protections) + [DECLINE]
            acts += self._plays(seat, [c for c in faces if c.rank != "prot"])
        else:
            acts += self._plays(seat, faces)
            if self.config.multiples and seat == self.turn:
                acts += self._multiples(seat, faces)
            if seat == self.turn:  # keep after a draw, else draw
                word = KEEP if self.drawn_slot is not None else DRAW
                if self._turn_word_refusal(seat, word.word) is None:
                    acts.append(word)
        if window is not None and self._allows(seat, CALL):
            acts.append(CALL)
        if self.config.call == "window":
            acts += [c for c in _CATCHES[:self.n] if c.target != seat]  # (``_catch_refusal``, inlined)
        return acts

    def _forget(self) -> None:
        """The round changed: what was worked out from it is stale."""
        self._legal.clear()
        self._hands.clear()

    def _allows(self, seat: int, action: SlotAction) -> bool:
        """Whether ``action`` is legal and every claim it makes about a hidden hand is true as this
        view knows it (the seat's own view: it knows its hand)."""
        try:
            claims = self._claims(seat, action)
        except IllegalAction:
            return False
        return all(truth for _, truth in claims)

    def _plays(self, seat: int, faces: list[Card]) -> list[Action]:
        """Every legal way to play each of ``faces`` alone, with its choices and call (a hot path:
        ``_call_could_be_due``'s hand-size test first, without a call)."""
        if not faces:
            return []
        order = self._laying_order
        if self._free_turn(seat):  # _placement's common case: the card fits
            if self.colour is None:  # any card fits
                placeable = faces
            else:
                fitting = _fitting(self.colour, self.top)
                placeable = [c for c in faces if c in fitting]
        elif self.react is None and seat != self.turn:  # _placement's jump-in case, without the words
            placeable = [c for c in faces if self._jump_in_ok(seat, c, False)]
        else:
            if seat == self.turn and self.drawn_slot is not None:  # only the drawn card is laid now
                faces = [c for c in faces if c is self.cards.get(self.drawn_slot)]
            placeable = [c for c in faces if self._placement(seat, c, (order(seat, c)[0],)) is None]
        # ``_laying_order`` without a call: no drawn card goes first unless ``seat`` drew it
        by_card = self._slots_by_card(seat) if self.drawn_slot is None or seat != self.turn else None
        kept, sizes = len(self.held[seat]) - 1, self._call_sizes
        out: list[Action] = []
        for card in placeable:
            slot = by_card[card][0] if by_card is not None else order(seat, card)[0]
            rank = card.rank
            gifts: list[tuple[Card, ...]] = [()]
            if rank == "gift":
                gifts = _gift_choices(self.pile(s for s in self.held[seat] if s != slot))
            for gift in gifts:
                given = tuple(sorted(self._lay(seat, (card, *gift))[1:])) if gift else ()
                call = ((kept - len(given) in sizes or kept in sizes)
                        and self._call_allowed(seat, (slot,), given, rank))
                if rank in ("wild", "wd4"):
                    forms = [Play((card,), colour=c) for c in COLOURS]
                elif rank in ("swap", "gift"):
                    forms = [Play((card,), target=t, gift=gift) for t in range(self.n) if t != seat]
                else:
                    forms = [_SINGLES[card]]
                for play in forms:
                    out.append(play)
                    if call:
                        out.append(Play(play.cards, play.colour, play.target, play.gift, True))
        return out

    def _free_turn(self, seat: int) -> bool:
        """Whether it is ``seat``'s turn with nothing pending (no Protection window, drawn card or
        penalty): then a card may be laid if it fits."""
        return self.react is None and seat == self.turn and self.drawn_slot is None and not self.penalty

    def _slots_by_card(self, seat: int) -> dict[Card, list[int]]:
        """Each card this view knows in ``seat``'s hand, with the slots holding it in arrival order
        (and ``_faces[seat]``: those cards in canonical order): worked out once, then kept up to
        date as slots come and go (``_give``, ``_remove``, ``_pass``)."""
        by_card = self._by_card.get(seat)
        if by_card is None:
            cards = self.cards
            by_card = self._by_card[seat] = {}
            for s in self.held[seat]:
                card = cards.get(s)
                if card is None:
                    continue
                if card in by_card:
                    by_card[card].append(s)
                else:
                    by_card[card] = [s]
            self._faces[seat] = sorted(by_card, key=_INDEX)
        return by_card

    def _laying_order(self, seat: int, card: Card) -> list[int]:
        """The slots of ``seat``'s hand holding ``card``, in the order the seat lays them: the card
        drawn this turn first, then in arrival order."""
        slots = (self._by_card.get(seat) or self._slots_by_card(seat)).get(card, [])  # (a hot path)
        drawn = self.drawn_slot
        if drawn is None or seat != self.turn or self.cards.get(drawn) is not card or slots[:1] == [drawn]:
            return slots
        return [drawn] + [s for s in slots if s != drawn]

    def _lay(self, seat: int, cards: Sequence[Card]) -> tuple[int, ...]:
        """The slots ``seat`` lays ``cards`` from, in turn (see ``_laying_order``)."""
        if len(cards) == 1:  # the common case
            slots = self._laying_order(seat, cards[0])
            if slots:
                return (slots[0],)
        taken: dict[Card, int] = {}
        out = []
        for card in cards:
            k = taken.get(card, 0)
            slots = self._laying_order(seat, card)
            if k >= len(slots):
                raise IllegalAction(f"seat {seat} does not hold {card}" if self.knows_hand(seat)
                                    else f"seat {seat} holds no {card} that this view knows")
            out.append(slots[k])
            taken[card] = k + 1
        return tuple(out)

    def _multiples(self, seat: int, faces: list[Card]) -> list[Action]:
        """Every legal multiples play (docs/rules.md 1.4) from ``faces`` (``seat``'s, in canonical
        order): 3 or more number cards of one number, any first and last, the middle in canonical
        order."""
        slots_of = self._slots_by_card(seat)
        out: list[Action] = []
        copies: dict[int, int] = {}  # number cards of each number in the hand
        for c in faces:
            if c.number:
                copies[c.number] = copies.get(c.number, 0) + len(slots_of[c])
        for number, count in copies.items():
            if count < 3:
                continue
            same = [c for c in faces if c.number == number]
            for pick in product(*(range(len(slots_of[f]) + 1) for f in same)):
                chosen = [f for f, k in zip(same, pick, strict=True) for _ in range(k)]
                if len(chosen) < 3:
                    continue
                slots = self._lay(seat, chosen)  # which card goes first or last changes no slot
                call: bool | None = None
                for first in _distinct(chosen):
                    if self._placement(seat, first, slots) is not None:
                        continue
                    if call is None:
                        call = self._call_allowed(seat, slots, (), first.rank)
                    others = list(chosen)
                    others.remove(first)
                    for last in _distinct(others):
                        middle = list(others)
                        middle.remove(last)
                        out.append(Play((first, *middle, last)))
                        if call:
                            out.append(Play((first, *middle, last), call=True))
        return out

    def _slot_of(self, seat: int, card: Card) -> int | None:
        """The slot ``seat`` lays ``card`` from: the drawn one if it is that card, else its first
        (None: it holds none that this view knows)."""
        slots = self._laying_order(seat, card)
        return slots[0] if slots else None

    def slot_action(self, seat: int, action: Action) -> SlotAction:
        """``action`` of ``seat`` written on slots (this view knows the cards it names)."""
        if not isinstance(action, Play):
            return action
        if len(action.cards) == 1 and not action.gift:  # the common case
            order = self._laying_order(seat, action.cards[0])
            if order:
                return SlotPlay(action.cards, (order[0],), action.colour, action.target, (), action.call)
        slots = self._lay(seat, action.cards + action.gift if action.gift else action.cards)
        if len(action.cards) > 1:
            return slot_multiples(list(zip(action.cards, slots, strict=True)), action.call)
        return SlotPlay(action.cards, slots[:1], action.colour, action.target, tuple(sorted(slots[1:])),
                        action.call)

    # --- what is legal: the one place ------------------------------------------------------------
    def _claims(self, seat: int, action: SlotAction) -> list[tuple[str, bool | None]]:
        """Refuse ``action`` unless the public state and its proven cards allow it; return the
        claims about hidden cards it makes (for the record)."""
        if self.winner is not None:
            raise IllegalAction("the round is over")
        if not self.ready:
            raise IllegalAction("the setup card is not turned yet (see wanted())")
        if not 0 <= seat < self.n:
            raise IllegalAction(f"there is no seat {seat} at a {self.n}-player table")
        word = action.word if isinstance(action, Simple) else None
        answering = word in ("owed", "clear")
        if self.asked is not None:
            if seat != self.asked.seat or not answering:
                raise IllegalAction(f"waiting for seat {self.asked.seat} to answer owed or clear")
            return []
        if answering:  # said before it is asked (classic): nothing waits on it later
            if self.answer(seat, public=True) is None:
                raise IllegalAction("nobody is asked to answer owed or clear now")
            return []
        if isinstance(action, Catch):
            why = self._catch_refusal(seat, action.target)
            if why is not None:
                raise IllegalAction(why())
            return []
        if word == "solo":
            window = self.window_of(seat)
            if self.config.call != "window" or window is None or MISSED not in window.public:
                raise IllegalAction("there is no missed SOLO call of yours to make now")
            if window.public == {MISSED}:
                return []
            return [("calls a missed SOLO late", holds(window.mine, MISSED))]
        react = self.react
        if word == "decline":
            if react is None or seat not in react.pending:
                if react is not None:
                    raise IllegalAction(f"waiting for seat {react.pending[0]} to protect or decline")
                raise IllegalAction("there is no Protection window open for you")
            return []
        if word is not None:
            why = self._turn_word_refusal(seat, word)
            if why is not None:
                raise IllegalAction(why())
            return []
        if not isinstance(action, SlotPlay):
            raise IllegalAction(f"{action} is not a SOLO action")
        self._check_slots(seat, action)
        self._check_form(seat, action)
        why = self._placement(seat, action.card, action.slots)
        if why is not None:
            raise IllegalAction(why())
        if not action.call:
            return []
        due_public, due_mine = self._call_could_be_due(seat, action.slots, action.gift, action.card.rank)
        if due_public is False:
            raise IllegalAction("SOLO may only be called with a play that leaves a hand one play could empty")
        return [] if due_public else [("calls SOLO with a call due", due_mine)]

    def _catch_refusal(self, seat: int, target: int) -> Callable[[], str] | None:
        """Why ``seat`` may not catch ``target`` (once nothing waits on an answer), or None."""
        if self.config.call != "window":
            return lambda: "catching is not part of these rules (a missed call costs 2 cards by itself)"
        if target == seat or not 0 <= target < self.n:
            return lambda: f"seat {seat} cannot catch seat {target}"
        return None

    def _turn_word_refusal(self, seat: int, word: str) -> Callable[[], str] | None:
        """Why ``seat`` may not say ``word`` (``draw``, ``keep``) now, or None."""
        react = self.react
        if react is not None:
            if seat in react.pending:
                return lambda: "a Protection window is open: play a Protection or decline"
            return lambda: f"waiting for seat {react.pending[0]} to protect or decline"
        if seat != self.turn:
            return lambda: f"it is seat {self.turn}'s turn, not seat {seat}'s"
        drawn = self.drawn_slot
        if word == "draw" and drawn is not None:
            return lambda: f"after drawing, play the drawn card {self._named(drawn)} or keep it"
        if word == "keep" and drawn is None:
            return lambda: "there is no drawn card to keep"
        if word not in ("draw", "keep"):
            return lambda: f"'{word}' is not possible now"
        return None

    def _check_slots(self, seat: int, play: SlotPlay) -> None:
        hand = self.held[seat]
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
            rest = len(self.held[seat]) - 1
            if len(play.gift) != min(2, rest):
                raise IllegalAction("a Gift gives 2 cards (all that are left if fewer)")

    def _placement(self, seat: int, card: Card, slots: tuple[int, ...]) -> Callable[[], str] | None:
        """Why the play laying ``slots`` (``card`` first) may not be laid now (turn, jump-in,
        Protection window, drawn card, penalty, fit: docs/rules.md 1.3, 1.4, 1.6, 1.8), as a thunk that
        words it (the lists try many plays), or None."""
        react = self.react
        many = len(slots) > 1
        turn = self.turn
        if self._free_turn(seat):
            if self.fits(card):  # the common case first: a play on one's own turn
                return None
            return self._misfit(card)
        if react is not None:
            if seat in react.pending and card.rank == "prot" and not many:
                return None
            if react.kind == "skip" and self._jump_in_ok(seat, card, many):
                return None
            if seat not in react.pending:
                return lambda: f"waiting for seat {react.pending[0]} to protect or decline"
            extra = f" (or jump in with {self.top})" if react.kind == "skip" else ""
            return lambda: f"a Protection window is open: play a Protection or decline{extra}"
        if seat != turn:  # no Protection window open: only a jump-in
            if self._jump_in_ok(seat, card, many):
                return None
            top = self.top
            if many:
                return lambda: f"it is seat {turn}'s turn; multiples are never a jump-in"
            if card.black or top.black:
                return lambda: f"it is seat {turn}'s turn; black cards cannot be jumped in"
            if self.jump and card is top and seat == self.laid_by:
                return lambda: "jumping in on your own card is off (option self_jump_in)"
            return lambda: f"it is seat {turn}'s turn; a jump-in needs the card identical to {top}, at once"
        drawn = self.drawn_slot
        if drawn is not None and drawn not in slots:
            return lambda: f"after drawing, only the drawn card {self._named(drawn)} may be played"
        if self.penalty:
            if many or not (card.rank == "prot" or self._stacks(card)):
                penalty = self.penalty
                return lambda: f"a penalty of {penalty} is pending: stack it, protect, or draw"
            return None
        if not self.fits(card):
            return self._misfit(card)
        return None

    def _misfit(self, card: Card) -> Callable[[], str]:
        """The words for ``card`` not fitting on the top card."""
        top, colour = self.top, self.colour
        in_force = f" with {COLOUR_NAMES[colour]} in force" if colour else ""
        return lambda: f"{card} does not fit on {top}{in_force}"

    def _named(self, slot: int) -> str:
        """A slot as a message names it: its card at an open table, else its number."""
        card = self.cards.get(slot)
        return str(card) if card is not None and not self.hidden else f"(slot {slot})"

    def _jump_in_ok(self, seat: int, card: Card, many: bool) -> bool:
        if many or not self.jump or card.black or card is not self.top:
            return False
        return seat != self.laid_by or self.config.self_jump_in

    def _stacks(self, card: Card) -> bool:
        return card.rank in STACKABLE and (self.config.mixed_stacking or card.rank == self.penalty_kind)

    def _call_allowed(self, seat: int, slots: tuple[int, ...], gift: tuple[int, ...], rank: str) -> bool:
        """Whether the play may take "!" as its seat knows its hand (``_claims``' rule)."""
        public, mine = self._call_could_be_due(seat, slots, gift, rank)
        return public is True or (public is None and mine is True)

    def _call_could_be_due(self, seat: int, slots: tuple[int, ...], gift: tuple[int, ...],
                           rank: str) -> tuple[bool | None, bool | None]:
        """Whether the play laying ``slots`` (the first of rank ``rank``) and giving ``gift`` may
        take "!" (docs/rules.md 1.8.7, 1.8.14): its effect leaves a hand that needs a call, or
        (Protection in the deck) a Protection that cancels its Gift, Swap or Pass hands would;
        publicly and for this view."""
        held = self.held[seat]
        kept = len(held) - len(slots)
        sizes = self._call_sizes
        effect = cancelled = _NOT_DUE
        if rank not in ("swap", "pass") and kept - len(gift) in sizes:
            if len(slots) == 1 and not gift:
                laid = slots[0]
                effect = self._due([s for s in held if s != laid])
            else:
                effect = self._due([s for s in held if s not in slots and s not in gift])
        if rank in SETTLED and self.config.protection and kept in sizes:
            cancelled = self._due([s for s in held if s not in slots])
        if cancelled is _NOT_DUE:
            return effect
        return either(effect[0], cancelled[0]), either(effect[1], cancelled[1])

    def _due(self, slots: list[int]) -> tuple[bool | None, bool | None]:
        """Whether the hand ``slots`` needs a SOLO call: publicly and for this view. At an open
        table the public knows the cards; at a hidden one only the hand's size."""
        size = len(slots)
        if size not in self._call_sizes:
            return _NOT_DUE
        cards = self.cards
        if not self.hidden:  # every card known
            return _DUE if needs_call(self.config, [cards[s] for s in slots]) else _NOT_DUE
        if size == 1:
            return _DUE
        if all(s in cards for s in slots):
            return None, needs_call(self.config, [cards[s] for s in slots])
        return None, None

    # --- applying actions -------------------------------------------------------------------------
    def apply(self, seat: int, action: Action | SlotAction | str) -> list[Event]:
        """Apply ``seat``'s action (everyday or slot notation; text is read as slot notation);
        ``handed`` then lists the (seat, slot) pairs that changed holder."""
        if isinstance(action, str):
            action = parse_slot_action(action)
        # an open table's listed action was judged legal by _claims, and makes no claim
        listed = False
        if not self.hidden:
            legal = self._legal.get(seat, ())
            for listed_action in legal:  # one picked from the list is that very object (a hot path)
                if listed_action is action:
                    listed = True
                    break
            else:
                listed = action in legal
        if listed:
            claims = []
            if isinstance(action, Play):
                action = self.slot_action(seat, action)
        else:
            if isinstance(action, Play):
                if not 0 <= seat < self.n:
                    raise IllegalAction(f"there is no seat {seat} at a {self.n}-player table")
                if self.winner is not None:
                    raise IllegalAction("the round is over")
                action = self.slot_action(seat, action)
            if not isinstance(action, _SLOT_ACTIONS):
                raise IllegalAction(f"{action} is not a SOLO action (a play names its cards: R7, or R7@12)")
            claims = self._claims(seat, action)
        self._forget()
        self.handed = []
        events: list[Event] = []
        word = action.word if isinstance(action, Simple) else None
        if self.asked is not None:
            self._answer(word == "owed", events)
        elif word in ("owed", "clear"):
            self._narrow(seat, word == "owed")
        else:
            for claim, truth in claims:
                self.judgements.append(Judgement(self.steps, seat, claim, truth))
            if isinstance(action, Catch):
                self._catch_or_ask(seat, action.target, events)
            elif word == "solo":
                window = self.window_of(seat)
                assert window is not None
                window.public = window.mine = frozenset({CALLED})
                events.append(Event("call", seat, "calls SOLO!"))
            elif word == "decline":  # closes no window, like a call or a catch (docs/rules.md 1.8.18)
                self._decline(seat, events)
            else:
                self.jump = False
                closing = [w for w in self.windows if w.seat != seat] if self.windows else None
                if closing:
                    self._closing = (seat, action, closing)
                    self._continue_closing(events)
                else:
                    self._carry_out(seat, action, events)
        self.steps += 1
        return events

    # --- windows, catches, answers -------------------------------------------------------------
    def _judge(self, seat: int, due: tuple[bool | None, bool | None], call: bool) -> None:
        """``seat``'s play left a hand that needs a call (``due``), made or not (``call``). A
        seat's own later plays never close its own window and never make up a missed call
        (docs/rules.md 1.8.6, 1.8.15); a new window goes after any other still open (1.8.17)."""
        window = self.window_of(seat)
        if window is None and due[0] is False and due[1] is False:
            return  # no window opens (the common case)
        public = window.public if window is not None else frozenset({NONE})
        mine = window.mine if window is not None else frozenset({NONE})
        self._set_window(seat, after(public, due[0], call), after(mine, due[1], call))

    def _set_window(self, seat: int, public: frozenset[str], mine: frozenset[str]) -> None:
        mine = mine & public or public  # a claim this view knows is false: follow the claim
        window = self.window_of(seat)
        if window is None:
            if public != {NONE}:
                self.windows.append(Window(seat, public, mine))
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
        truth = holds(window.mine, MISSED)
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
        """``seat``'s play, draw or keep closes every SOLO window of another seat (docs/rules.md 1.8.1,
        1.8.6, 1.8.17); in ``with_play`` mode each missed call costs 2 cards, in the windows'
        order (a protector's before the player it cancelled). A window whose miss depends on a
        hidden hand asks its seat first."""
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
        self._carry_out(seat, action, events)

    def _carry_out(self, seat: int, action: SlotAction, events: list[Event]) -> None:
        """``seat``'s play, draw or keep, once the other seats' windows are closed."""
        if isinstance(action, SlotPlay):
            self._play(seat, action, events)
        elif action == DRAW:
            self._draw_action(seat, events)
        else:
            events.append(Event("keep", seat, "keeps the card drawn"))
            self._end_turn(seat)

    # --- the moves ---------------------------------------------------------------------------------
    def _end_turn(self, seat: int) -> None:
        self.drawn_slot = None
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
        if self.hidden or self.fits(self.cards[got[0]]):  # docs/rules.md 1.8.9; hidden: the drawer keeps
            self.drawn_slot = got[0]
        else:
            self._end_turn(seat)

    def _take(self, seat: int, count: int) -> list[int]:
        """Draw up to ``count`` slots into ``seat``'s hand, reshuffling when needed (docs/rules.md 1.3,
        1.8.10)."""
        got: list[int] = []
        for _ in range(count):
            if not self.draw_slots:
                if len(self.discard_slots) <= 1 or (
                        self.hidden and self.next_slot + len(self.discard_slots) - 1 > SLOT_LIMIT):
                    break
                self._reshuffle()
            slot = self.draw_slots.pop(0)
            self._give(seat, slot)
            got.append(slot)
        return got

    def _reshuffle(self) -> None:
        """A fresh deal of the discard pile but its top card, into new slots: from the seed at an
        open table (label ``solo/round/R/reshuffle/K``), by the members at a hidden one."""
        pile = self.discard_slots[:-1]
        first = self.next_slot
        self.reshuffles += 1
        self.deals.append(Deal(len(self.deals), first, tuple(self.cards.get(s) for s in pile), tuple(pile)))
        self.next_slot += len(pile)
        self.draw_slots = list(range(first, self.next_slot))
        self.discard_slots = self.discard_slots[-1:]
        if self.seed is not None:
            label = f"solo/round/{self.round_no}/reshuffle/{self.reshuffles}"
            order = Stream(self.seed, label).shuffle(self.pile(pile))
            for slot, card in zip(self.draw_slots, reversed(order), strict=True):
                self.cards[slot] = card
        for s in self.draw_slots:
            if s in self._later:
                self.learn(s, self._later.pop(s))

    def stack(self, cards: list[Card], reshuffle: bool = False) -> None:
        """An open round's draw pile made ``cards`` (the top last), after dealing the discard pile
        but its top card into it if ``reshuffle``: chance choosing the cards a draw finds (the
        OpenSpiel game, ``envs/chance.py``)."""
        if self.seed is None:
            raise IllegalAction("a hidden-hands round's draw pile is dealt by the members")
        if reshuffle:  # the draw drains the pile left, then the discard pile is dealt again
            left = self.draw_slots
            self._reshuffle()
            self.draw_slots = left + self.draw_slots
        if len(cards) != len(self.draw_slots):
            raise IllegalAction(f"the draw pile holds {len(self.draw_slots)} cards, not {len(cards)}")
        for slot, card in zip(self.draw_slots, reversed(cards), strict=True):
            self.cards[slot] = card
        self._by_card.clear()
        self._faces.clear()
        self._forget()

    def _open(self, slot: int, card: Card) -> None:
        """``slot`` is laid face up, proven to hold ``card``."""
        if self.cards.get(slot) is not card:
            self.learn(slot, card)

    def _play(self, seat: int, play: SlotPlay, events: list[Event]) -> None:
        first, top = play.cards[0], play.cards[-1]  # (``play.card``, ``play.top``: a hot path)
        react = self.react
        protecting = react is not None and seat in react.pending and first.rank == "prot"
        jumping = not protecting and seat != self.turn
        cards = self.cards
        for i, s in enumerate(play.slots):
            if cards.get(s) is not play.cards[i]:  # (``_open``, inlined)
                self.learn(s, play.cards[i])
            self._remove(seat, s)
        self.discard_slots.extend(play.slots)
        self.laid_by = seat
        self.drawn_slot = None
        self.jump = not top.black
        verb = "jumps in with" if jumping else "plays"
        texts = [first.text] if len(play.cards) == 1 else [c.text for c in play.cards]  # (a hot path)
        events.append(Event("play", seat, f"{verb} {_describe(play)}", cards=texts, colour=play.colour,
                            target=play.target, call=play.call, jump=jumping))
        rest = self.held[seat]
        if not rest:
            self._win(seat, events)
            return
        if first.rank not in SETTLED:
            due = self._due(rest)
            if play.call or due != _NOT_DUE or self.windows:  # else no window opens or changes
                self._judge(seat, (True if play.call else due[0], due[1]), play.call)
        if protecting and react is not None and react.kind != "skip":
            self._protect(seat, top, react, events)
            return
        if protecting:
            events.append(Event("protect", seat, "is protected from the Skip", against="skip"))
        self.react = None
        self._effect(seat, play, events)

    def _reacts(self, seat: int) -> bool:
        """Whether a Protection window opens for ``seat`` (docs/rules.md 1.6, 1.8.2): at an open table
        when it holds a Protection; at a hidden one whenever Protection is in the deck."""
        if not self.config.protection:
            return False
        return self.hidden or any(self.cards[s].rank == "prot" for s in self.held[seat])

    def _effect(self, seat: int, play: SlotPlay, events: list[Event]) -> None:
        card = play.cards[-1]  # the top
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
            if self._reacts(target):
                self.turn = None
                self.react = React("skip", seat, [target], target)
            else:
                events.append(Event("skipped", target, "is skipped"))
                self.turn = self.next_seat(target)
        elif rank == "rev":
            self.direction = -self.direction
            self.turn = seat if self.n == 2 else self.next_seat(seat)
        elif rank in ("swap", "gift"):
            assert play.target is not None
            self.turn = None
            pending = [play.target] if self._reacts(play.target) else []
            self.react = React(rank, seat, pending, play.target, play.gift, call=play.call)
            if not pending:
                self._resolve(events)
        elif rank == "pass":
            pending = [s for s in (self.next_seat(seat, k) for k in range(1, self.n)) if self._reacts(s)]
            self.turn = None
            self.react = React("pass", seat, pending, call=play.call)
            if not pending:
                self._resolve(events)
        else:
            self.turn = self.next_seat(seat)

    def _protect(self, seat: int, card: Card, react: React, events: list[Event]) -> None:
        """A Protection played against a Gift, Swap or Pass hands."""
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
        """Carry out the Gift, Swap or Pass hands of the window, now closed."""
        react = self.react
        assert react is not None
        self.react = None
        by, target = react.by, react.target
        if react.kind == "swap":
            assert target is not None
            self._pass([by, target])
            events.append(Event("swap", by, f"swaps hands with seat {target}", target=target))
            self.turn = target
            self._settle_call(react, False)
        elif react.kind == "gift":
            assert target is not None
            for s in react.gift:
                self._remove(by, s)
                self._give(target, s)
                if not self.hidden:
                    _insert(self.known[by][target], self.cards[s])
            events.append(Event("gift", by, f"gives {len(react.gift)} card(s) to seat {target}",
                                target=target, count=len(react.gift)))
            self.turn = self.next_seat(by)
            if not self.held[by]:
                self._win(by, events)
            else:
                self._settle_call(react, True)
        else:
            ring = [s for s in (self.next_seat(by, k) for k in range(self.n)) if s not in react.protected]
            self._pass(ring)
            if len(ring) >= 2:
                events.append(Event("pass", by, f"hands pass on to the next player ({len(ring)} hands)",
                                    count=len(ring)))
            self.turn = self.next_seat(by)
            self._settle_call(react, len(ring) < 2)

    def _pass(self, ring: list[int]) -> None:
        """Every seat in ``ring`` passes its hand to the next (a Swap is a ring of two)."""
        if len(ring) < 2:
            return
        old = {s: self.held[s] for s in ring}
        # a hand's cards by slot go with it (those worked out: see _slots_by_card)
        worked = {s: (self._by_card.pop(s), self._faces.pop(s)) for s in ring if s in self._by_card}
        for i, s in enumerate(ring):
            nxt = ring[(i + 1) % len(ring)]
            self.held[nxt] = old[s]
            self.handed += [(nxt, slot) for slot in old[s]]
            if s in worked:
                self._by_card[nxt], self._faces[nxt] = worked[s]
        if self.hidden:
            return
        for row in self.known:  # what a seat knew of a hand travels with it
            before = {s: row[s] for s in ring}
            for i, s in enumerate(ring):
                row[ring[(i + 1) % len(ring)]] = before[s]
        cards = self.cards
        for i, s in enumerate(ring):
            nxt = ring[(i + 1) % len(ring)]
            self.known[s][s] = []
            self.known[s][nxt] = sorted([cards[slot] for slot in old[s]], key=_INDEX)  # hand(nxt)

    def _give(self, seat: int, slot: int) -> None:
        """``slot`` comes into ``seat``'s hand."""
        self.held[seat].append(slot)
        self.handed.append((seat, slot))
        by_card = self._by_card.get(seat)
        card = self.cards.get(slot)
        if by_card is not None and card is not None:
            slots = by_card.get(card)
            if slots is not None:
                slots.append(slot)
            else:
                by_card[card] = [slot]
                _insert(self._faces[seat], card)

    def _remove(self, seat: int, slot: int) -> None:
        """``slot`` leaves ``seat``'s hand."""
        self.held[seat].remove(slot)
        by_card = self._by_card.get(seat)
        card = self.cards.get(slot)
        if by_card is not None and card is not None:
            slots = by_card[card]
            slots.remove(slot)
            if not slots:
                del by_card[card]
                self._faces[seat].remove(card)
        if not self.hidden:
            assert card is not None
            for row in self.known:
                seen = row[seat]
                if seen and card in seen:
                    seen.remove(card)

    def _settle_call(self, react: React, kept: bool) -> None:
        """Judge the call of the settled Gift, Swap or Pass hands (docs/rules.md 1.8.14): due only if
        its player ``kept`` a hand of its own (not one received) that needs a call. A protector
        left owing a call keeps its own window open beside this one (docs/rules.md 1.8.17)."""
        due = self._due(self.held[react.by]) if kept else (False, False)
        self._judge(react.by, due, react.call)

    def _win(self, seat: int, events: list[Event]) -> None:
        self.winner = seat
        self.turn = None
        self.react = None
        self.jump = False
        events.append(Event("out", seat, "has no cards left and wins the round"))

    # --- observation and plain data -------------------------------------------------------------
    def observation(self, seat: int) -> dict[str, Any]:
        """What ``seat`` sees: its hand, the others' hand sizes, the piles, the cards it knows in
        other hands, SOLO windows as far as they are public (``called`` None: not settled); a
        hidden view adds ``unopened`` (cards of the hand it has not opened) and ``asked``."""
        react = self.react
        drawn: str | bool | None = self.drawn_slot is not None
        if seat == self.turn:
            drawn = self.cards[self.drawn_slot].text if self.drawn_slot in self.cards else None
        windows = [w.shown(w.seat == seat) for w in self.windows
                   if NONE not in (w.mine if w.seat == seat else w.public)]
        gift: list[str] | int = len(react.gift) if react is not None else 0
        if react is not None and seat in (react.by, react.target) and set(react.gift) <= set(self.cards):
            gift = _texts(sorted(self.pile(react.gift)))
        if self.hidden:
            known = {h: self.hand(h) for h in range(self.n) if h != seat}
        else:
            known = dict(enumerate(self.known[seat]))
        own = self.hand(seat)
        obs: dict[str, Any] = {
            "game": "solo", "seat": seat, "players": self.n, "hand": _texts(own),
            "hand_sizes": [len(h) for h in self.held],
            "top": self.top.text if self.discard_slots else None,  # None: the setup card is not turned yet
            "discard": _texts(self.pile(self.discard_slots)), "draw_size": len(self.draw_slots),
            "turn": self.turn, "to_move": self.to_move(), "direction": self.direction,
            "colour": self.colour, "penalty": self.penalty, "penalty_kind": self.penalty_kind,
            "drawn": drawn, "jump": self.jump, "laid_by": self.laid_by,
            "solo": windows[0] if windows else None, "solo_also": windows[1:],
            "react": None if react is None else {
                "kind": react.kind, "by": react.by, "target": react.target,
                "pending": list(react.pending), "protected": list(react.protected), "gift": gift,
                "call": react.call},
            "known": {h: _texts(cards) for h, cards in known.items() if cards and h != seat},
            "winner": self.winner,
        }
        if self.hidden:
            obs["unopened"] = len(self.held[seat]) - len(own)
            obs["asked"] = None if self.asked is None else self.asked.seat
        return obs

    def public_view(self) -> dict[str, Any]:
        """The public part of the round: the same in every machine's view of a hidden table."""
        react = self.react
        return {
            "ready": self.ready, "turn": self.turn, "direction": self.direction, "colour": self.colour,
            "penalty": self.penalty, "penalty_kind": self.penalty_kind,
            "hands": [list(h) for h in self.held], "draw": list(self.draw_slots),
            "discard": list(self.discard_slots),
            "top": self.top.text if self.discard_slots else None, "drawn": self.drawn_slot, "jump": self.jump,
            "laid_by": self.laid_by, "winner": self.winner,
            "windows": [(w.seat, sorted(w.public)) for w in self.windows],
            "react": None if react is None else {
                "kind": react.kind, "by": react.by, "target": react.target, "gift": list(react.gift),
                "pending": list(react.pending), "protected": list(react.protected), "call": react.call},
            "asked": None if self.asked is None else self.asked.seat,
            "deals": [(d.number, d.first, len(d.cards)) for d in self.deals],
        }

    def snapshot(self) -> dict[str, Any]:
        """An open round as plain data (cards, not slots; the draw pile's top last); ``solo`` is
        the first open SOLO window and ``solo_also`` (left out when empty) the others."""
        if self.seed is None:
            raise IllegalAction("a hidden-hands view has no snapshot (see public_view())")
        react = self.react
        data: dict[str, Any] = {
            "game": "solo",
            "config": self.config.to_dict(),
            "seed": self.seed.hex(),
            "round": self.round_no,
            "hands": [_texts(self.hand(s)) for s in range(self.n)],
            "draw": _texts(reversed(self.pile(self.draw_slots))),
            "discard": _texts(self.pile(self.discard_slots)),
            "reshuffles": self.reshuffles,
            "turn": self.turn,
            "direction": self.direction,
            "colour": self.colour,
            "penalty": self.penalty,
            "penalty_kind": self.penalty_kind,
            "drawn": self.cards[self.drawn_slot].text if self.drawn_slot is not None else None,
            "jump": self.jump,
            "laid_by": self.laid_by,
            "solo": self.windows[0].shown(True) if self.windows else None,
            "react": None if react is None else {
                "kind": react.kind, "by": react.by, "target": react.target,
                "gift": _texts(sorted(self.pile(react.gift))), "pending": list(react.pending),
                "protected": list(react.protected), "call": react.call,
            },
            "known": [[_texts(cards) for cards in row] for row in self.known],
            "winner": self.winner,
        }
        if len(self.windows) > 1:
            data["solo_also"] = [w.shown(True) for w in self.windows[1:]]
        return data

    @classmethod
    def from_snapshot(cls, data: dict[str, Any]) -> State:
        """An open round from ``snapshot()`` data; keys after ``discard`` may be left out."""
        try:
            return cls._from_snapshot(data)
        except ParseError:
            raise
        except (KeyError, TypeError, ValueError, AttributeError, IndexError, StopIteration) as err:
            raise ParseError(f"bad SOLO snapshot: {type(err).__name__}: {err}") from None

    @classmethod
    def _from_snapshot(cls, data: dict[str, Any]) -> State:
        config = Config.from_dict(data["config"])
        state = cls.__new__(cls)
        state._blank(config, int(data.get("round", 0)), bytes.fromhex(data.get("seed", "")))
        n = config.players
        hands = data["hands"]
        if len(hands) != n:
            raise ParseError(f"bad SOLO snapshot: {len(hands)} hands for {n} players")
        piles = [sorted(_cards(h)) for h in hands] + [_cards(data["draw"])[::-1], _cards(data["discard"])]
        if not piles[-1]:
            raise ParseError("bad SOLO snapshot: the discard pile is empty")
        everything = [c for pile in piles for c in pile]
        state.deals = [Deal(0, 0, tuple(everything))]
        state.next_slot = len(everything)
        state.cards = dict(enumerate(everything))
        slots = iter(range(len(everything)))
        state.held = [[next(slots) for _ in pile] for pile in piles[:n]]
        state.draw_slots = [next(slots) for _ in piles[n]]
        state.discard_slots = [next(slots) for _ in piles[n + 1]]
        state.ready = True
        state.reshuffles = int(data.get("reshuffles", 0))
        state.turn = _seat_or_none(data.get("turn", 0), n)
        state.direction = int(data.get("direction", 1))
        if state.direction not in (1, -1):
            raise ParseError("bad SOLO snapshot: direction must be 1 or -1")
        default_colour = None if state.top.black else state.top.colour
        state.colour = data.get("colour", default_colour)
        if state.colour not in COLOURS + (None,):
            raise ParseError(f"bad SOLO snapshot: colour {state.colour!r}")
        state.penalty = int(data.get("penalty", 0))
        state.penalty_kind = data.get("penalty_kind")
        drawn = data.get("drawn")
        if drawn:
            if state.turn is None:
                raise ParseError("bad SOLO snapshot: a drawn card needs a turn")
            state.drawn_slot = state._slot_of(state.turn, parse_card(drawn))
            if state.drawn_slot is None:
                raise ParseError(f"bad SOLO snapshot: seat {state.turn} does not hold the drawn {drawn}")
        state.jump = bool(data.get("jump", False))
        state.laid_by = _seat_or_none(data.get("laid_by"), n)
        state.windows = _windows(data.get("solo"), data.get("solo_also", []), n)
        react = data.get("react")
        if react is not None:
            by = int(react["by"])
            free = list(state.held[by])
            gift = []
            for card in _cards(react.get("gift", [])):
                slot = next(s for s in free if state.cards[s] is card)
                free.remove(slot)
                gift.append(slot)
            state.react = React(str(react["kind"]), by, [int(s) for s in react["pending"]],
                                _seat_or_none(react.get("target"), n), tuple(sorted(gift)),
                                [int(s) for s in react.get("protected", [])], bool(react.get("call", False)))
        known = data.get("known")
        if known is not None:
            state.known = [[sorted(_cards(cards)) for cards in row] for row in known]
        state.winner = _seat_or_none(data.get("winner"), n)
        return state

    def digest(self) -> str:
        from cardtable.engine.match import snapshot_digest

        return snapshot_digest(self.snapshot())


def call_sizes(config: Config) -> frozenset[int]:
    """The hand sizes that may need a SOLO call (docs/rules.md 1.5.2): one card; 3 or fewer with a Gift
    (Gifts in the deck); 3 to 8 of one number (multiples on)."""
    sizes = {1}
    if config.gifts:
        sizes |= {2, 3}
    if config.multiples:
        sizes |= set(range(3, 9))
    return frozenset(sizes)


def card_fits(card: Card, colour: str | None, top: Card) -> bool:
    """Whether ``card`` may be laid on ``top`` with ``colour`` in force, no penalty pending
    (docs/rules.md 1.4): a black card, any card when no colour is in force, the colour in force,
    or the top's rank on a coloured top."""
    if card.black or colour is None or card.colour == colour:
        return True
    return not top.black and card.rank == top.rank


_FITS: dict[tuple[str | None, Card], frozenset[Card]] = {}


def _fitting(colour: str | None, top: Card) -> frozenset[Card]:
    """The faces ``card_fits`` lets onto ``top`` with ``colour`` in force, worked out once each."""
    got = _FITS.get((colour, top))
    if got is None:
        got = _FITS[(colour, top)] = frozenset(c for c in FACES if card_fits(c, colour, top))
    return got


def needs_call(config: Config, hand: list[Card]) -> bool:
    """Whether one play could empty ``hand``, so leaving it needs a SOLO call (docs/rules.md 1.5.2)."""
    if len(hand) == 1:
        return True
    if config.multiples and len(hand) >= 3:
        first = hand[0].number
        if first and hand[1].number == first and all(c.number == first for c in hand):
            return True
    return len(hand) <= 3 and any(c.rank == "gift" for c in hand)


def new_round(config: Config, seed: bytes, round_no: int) -> State:
    """Deal open round ``round_no`` (0-based) from ``seed`` (docs/rules.md 1.2).

    The dealer is seat ``round_no % n``; cards are dealt one at a time from the top of the
    shuffled deck, starting left of the dealer; then cards are turned from the draw pile until a
    number card is on top (or the pile runs out); the seat left of the dealer starts.
    """
    cards = Stream(seed, f"solo/round/{round_no}/deal").shuffle(deck(config.gifts, config.protection))
    state = State(config, round_no, cards[::-1], seed)
    while state.wanted():
        slot = state.wanted()[0]
        state.turn_up(slot, state.cards[slot])
    return state


def audit_replay(config: Config, round_no: int, cards: Sequence[Card],
                 moves: Iterable[tuple[int, SlotAction | str]]) -> State:
    """The audit's replay of a hidden round: every slot's card known (reshuffles' slots after the
    deal's), the setup turned, every move applied. ``wrong_judgements()`` then names any false
    claim."""
    state = State(config, round_no, list(cards))
    while state.wanted():
        slot = state.wanted()[0]
        state.turn_up(slot, state.cards[slot])
    for seat, action in moves:
        state.apply(seat, action)
    return state


def _describe(play: SlotPlay) -> str:
    cards = play.cards
    text = cards[0].text if len(cards) == 1 else "+".join([c.text for c in cards])
    if play.colour:
        text += f" naming {COLOUR_NAMES[play.colour]}"
    if play.target is not None:
        text += f" at seat {play.target}"
    return text + (" and calls SOLO!" if play.call else "")


def _distinct(cards: list[Card]) -> list[Card]:
    """The distinct faces of a sorted list of cards, in order."""
    out: list[Card] = []
    for c in cards:
        if not out or out[-1] is not c:
            out.append(c)
    return out


def _gift_choices(rest: list[Card]) -> list[tuple[Card, ...]]:
    """The cards a Gift can give from ``rest``: all of them if at most 2, else any 2."""
    rest = sorted(rest)
    if len(rest) <= 2:
        return [tuple(rest)]
    faces = _distinct(rest)
    out: list[tuple[Card, ...]] = []
    for i, a in enumerate(faces):
        if rest.count(a) >= 2:
            out.append((a, a))
        out += [(a, b) for b in faces[i + 1:]]
    return out


def _insert(hand: list[Card], card: Card) -> None:
    """Insert keeping canonical order (after any equal card)."""
    insort(hand, card, key=_INDEX)


def _texts(cards: Iterable[Card]) -> list[str]:
    return [c.text for c in cards]


def _cards(texts: Any) -> list[Card]:
    if not isinstance(texts, list):
        raise ParseError("bad SOLO snapshot: a pile or hand must be a list of card texts")
    return [parse_card(t) for t in texts]


def _windows(first: Any, also: Any, n: int) -> list[Window]:
    """The open SOLO windows of a snapshot: ``solo`` (a map or None), then ``solo_also``."""
    if not isinstance(also, list) or (also and first is None):
        raise ParseError("bad SOLO snapshot: solo_also must be a list of windows after solo")
    windows = []
    for w in ([] if first is None else [first]) + also:
        seat = _seat_or_none(w["seat"], n)
        if seat is None:
            raise ParseError("bad SOLO snapshot: a SOLO window needs a seat")
        state = frozenset({CALLED if w["called"] else MISSED})
        windows.append(Window(seat, state, state))
    if len({w.seat for w in windows}) < len(windows):
        raise ParseError("bad SOLO snapshot: two SOLO windows of one seat")
    return windows


def _seat_or_none(value: Any, n: int) -> int | None:
    if value is None:
        return None
    if not isinstance(value, int) or not 0 <= value < n:
        raise ParseError(f"bad SOLO snapshot: {value!r} is not a seat")
    return value
