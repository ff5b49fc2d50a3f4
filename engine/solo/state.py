"""One SOLO round: the position, its legal actions, and how actions change it.

Conventions: the top of the draw pile and of the discard pile is the *last* element of
its list; hands are kept sorted in canonical card order; "next" follows ``direction``.
Out-of-turn actions (jump-ins, SOLO calls, catches, Protection reactions) are ordinary
actions of the seats that may take them. When two seats act at the same moment, the one
applied first wins and the other is judged afresh against the new position (a second
jump-in on the same card is then no longer legal): the order is the log's, never a clock.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import product
from typing import Any

from cardtable.engine.errors import IllegalAction, ParseError
from cardtable.engine.game import Event
from cardtable.engine.shuffle import Stream
from cardtable.engine.solo.actions import CALL, DECLINE, DRAW, KEEP, Action, Catch, Play, Simple, multiples
from cardtable.engine.solo.cards import COLOUR_NAMES, COLOURS, Card, deck, hand_points, parse_card
from cardtable.engine.solo.config import SOLO_PENALTY, Config

STACKABLE = ("d2", "wd4")
SETTLED = ("gift", "swap", "pass")
"""Plays whose SOLO call is judged once their effect is settled (RULES.md 1.8.14)."""


@dataclass
class Window:
    """An open SOLO window (RULES.md 1.5.2, 1.8.17): ``seat`` owes a call and made it, or not."""

    seat: int
    called: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {"seat": self.seat, "called": self.called}


@dataclass
class React:
    """An open Protection window: seats in ``pending`` may protect or decline."""

    kind: str  # "skip", "gift", "swap" or "pass"
    by: int  # the seat whose card opened the window
    pending: list[int]
    target: int | None = None
    gift: tuple[Card, ...] = ()
    protected: list[int] = field(default_factory=list)
    call: bool = False  # the Gift / Swap / Pass hands was played with "!" (judged when settled)


class State:
    """A SOLO round. Build one with ``new_round`` or ``State.from_snapshot``."""

    def __init__(self, config: Config, seed: bytes, round_no: int) -> None:
        n = config.players
        self.config = config
        self.seed = seed
        self.round_no = round_no
        self.n = n
        self.hands: list[list[Card]] = [[] for _ in range(n)]
        self.draw: list[Card] = []
        self.discard: list[Card] = []
        self.reshuffles = 0
        self.turn: int | None = None
        self.direction = 1
        self.colour: str | None = None  # colour in force; None: any card fits
        self.penalty = 0
        self.penalty_kind: str | None = None
        self.drawn: Card | None = None
        self.jump = False
        self.laid_by: int | None = None
        self.windows: list[Window] = []  # open SOLO windows, in the order they close (1.8.17)
        self.react: React | None = None
        self.known: list[list[list[Card]]] = [[[] for _ in range(n)] for _ in range(n)]
        self.winner: int | None = None
        self._legal: dict[int, list[Action]] = {}

    # --- queries -----------------------------------------------------------------
    def is_over(self) -> bool:
        return self.winner is not None

    @property
    def solo_seat(self) -> int | None:
        """The seat of the first open SOLO window (see ``windows`` for all of them)."""
        return self.windows[0].seat if self.windows else None

    @property
    def solo_called(self) -> bool:
        """Whether the first open SOLO window's call was made."""
        return bool(self.windows) and self.windows[0].called

    def window_of(self, seat: int) -> Window | None:
        """``seat``'s open SOLO window, if any (a seat has at most one)."""
        return next((w for w in self.windows if w.seat == seat), None)

    @property
    def top(self) -> Card:
        return self.discard[-1]

    def next_seat(self, seat: int, steps: int = 1) -> int:
        return (seat + steps * self.direction) % self.n

    def to_move(self) -> int | None:
        if self.winner is not None:
            return None
        if self.react is not None:
            return self.react.pending[0]
        return self.turn

    def actors(self) -> list[int]:
        return [s for s in range(self.n) if self.legal_actions(s)]

    def fits(self, card: Card) -> bool:
        """Whether ``card`` may be laid on the top card (no penalty pending)."""
        if card.black or self.colour is None or card.colour == self.colour:
            return True
        top = self.top
        return not top.black and card.rank == top.rank

    def needs_call(self, hand: list[Card]) -> bool:
        """Whether one play could empty ``hand``, so leaving it needs a SOLO call."""
        return needs_call(self.config, hand)

    def round_scores(self) -> list[int]:
        if self.winner is None:
            raise IllegalAction("the round is not over")
        return [self.config.round_delta(hand_points(h)) for h in self.hands]

    # --- legal actions -------------------------------------------------------------
    def legal_actions(self, seat: int) -> list[Action]:
        cached = self._legal.get(seat)
        if cached is None:
            cached = self._legal[seat] = self._generate(seat)
        return cached

    def _generate(self, seat: int) -> list[Action]:
        if self.winner is not None or not 0 <= seat < self.n:
            return []
        hand = self.hands[seat]
        acts: list[Action] = []
        react = self.react
        if react is not None:
            if seat in react.pending:
                for c in _distinct(hand):
                    if c.rank == "prot":
                        acts += self._plays(seat, c)
                acts.append(DECLINE)
            if react.kind == "skip":
                acts += self._jump_ins(seat)
        elif seat == self.turn:
            acts += self._turn_actions(seat)
        else:
            acts += self._jump_ins(seat)
        if self.config.call == "window":
            window = self.window_of(seat)
            if window is not None and not window.called:
                acts.append(CALL)
            acts += [Catch(t) for t in range(self.n) if t != seat]
        return acts

    def _turn_actions(self, seat: int) -> list[Action]:
        hand = self.hands[seat]
        acts: list[Action] = []
        if self.drawn is not None:
            acts += self._plays(seat, self.drawn)
            if self.config.multiples:
                acts += self._multiples(seat, self.drawn)
            acts.append(KEEP)
            return acts
        if self.penalty:
            for c in _distinct(hand):
                if c.rank == "prot" or self._stacks(c):
                    acts += self._plays(seat, c)
            acts.append(DRAW)
            return acts
        for c in _distinct(hand):
            if self.fits(c):
                acts += self._plays(seat, c)
        if self.config.multiples:
            acts += self._multiples(seat, None)
        acts.append(DRAW)
        return acts

    def _stacks(self, card: Card) -> bool:
        if card.rank not in STACKABLE:
            return False
        return self.config.mixed_stacking or card.rank == self.penalty_kind

    def _jump_ins(self, seat: int) -> list[Action]:
        if not self.jump or (seat == self.laid_by and not self.config.self_jump_in):
            return []
        top = self.top
        if top.black or top not in self.hands[seat]:
            return []
        return self._plays(seat, top)

    def _plays(self, seat: int, card: Card) -> list[Action]:
        """Every way to play ``card`` from ``seat``'s hand, with its choices and call."""
        rest = list(self.hands[seat])
        rest.remove(card)
        plays: list[Play] = []
        if card.rank in ("wild", "wd4"):
            plays = [Play((card,), colour=c) for c in COLOURS]
        elif card.rank == "swap":
            plays = [Play((card,), target=t) for t in range(self.n) if t != seat]
        elif card.rank == "gift":
            for gift in _gift_choices(rest):
                plays += [Play((card,), target=t, gift=gift) for t in range(self.n) if t != seat]
        else:
            plays = [Play((card,))]
        out: list[Action] = []
        for p in plays:
            out.append(p)
            if self._call_could_be_due(rest, p):
                out.append(Play(p.cards, p.colour, p.target, p.gift, True))
        return out

    def _call_could_be_due(self, rest: list[Card], play: Play) -> bool:
        """Whether ``play``, leaving ``rest`` before its effect, may take "!" (RULES.md 1.8.7,
        1.8.14): its effect leaves a hand that needs a call, or (Protection in the deck) a
        Protection that cancels its Gift, Swap or Pass hands would."""
        rank = play.card.rank
        left = list(rest)
        for c in play.gift:
            left.remove(c)
        if rank not in ("swap", "pass") and left and self.needs_call(left):
            return True
        return rank in SETTLED and self.config.protection and bool(rest) and self.needs_call(rest)

    def _multiples(self, seat: int, drawn: Card | None) -> list[Action]:
        hand = self.hands[seat]
        out: list[Action] = []
        by_number: dict[int, list[Card]] = {}
        for c in hand:
            if c.number:
                by_number.setdefault(c.number, []).append(c)
        for number, cards in by_number.items():
            if len(cards) < 3 or (drawn is not None and drawn.number != number):
                continue
            faces = _distinct(cards)
            counts = [cards.count(f) for f in faces]
            for pick in product(*(range(k + 1) for k in counts)):
                chosen = [f for f, k in zip(faces, pick, strict=True) for _ in range(k)]
                if len(chosen) < 3 or (drawn is not None and drawn not in chosen):
                    continue
                rest = list(hand)
                for c in chosen:
                    rest.remove(c)
                call_ok = bool(rest) and self.needs_call(rest)
                for first in _distinct(chosen):
                    if not self.fits(first):
                        continue
                    others = list(chosen)
                    others.remove(first)
                    for last in _distinct(others):
                        middle = list(others)
                        middle.remove(last)
                        play = multiples([first, *middle, last])
                        out.append(play)
                        if call_ok:
                            out.append(multiples([first, *middle, last], call=True))
        return out

    # --- applying actions ----------------------------------------------------------
    def apply(self, seat: int, action: Action) -> list[Event]:
        if self.winner is not None:
            raise IllegalAction("the round is over")
        if not 0 <= seat < self.n:
            raise IllegalAction(f"there is no seat {seat} at a {self.n}-player table")
        if action not in self.legal_actions(seat):
            raise IllegalAction(self._why(seat, action))
        self._legal.clear()
        events: list[Event] = []
        if isinstance(action, Catch):
            self._catch(seat, action.target, events)
        elif action == CALL:
            window = self.window_of(seat)
            assert window is not None
            window.called = True
            events.append(Event("call", seat, "calls SOLO!"))
        elif action == DECLINE:  # closes no window, like a call or a catch (RULES.md 1.8.18)
            self._decline(seat, events)
        else:
            self._close_windows(seat, events)
            if isinstance(action, Play):
                self._play(seat, action, events)
            elif action == DRAW:
                self._draw_action(seat, events)
            else:
                events.append(Event("keep", seat, "keeps the card drawn"))
                self._end_turn(seat)
        return events

    def _close_windows(self, seat: int, events: list[Event]) -> None:
        """``seat``'s play, draw or keep closes the jump-in window and every SOLO window of another
        seat (RULES.md 1.8.1, 1.8.6, 1.8.17, 1.8.18); in ``with_play`` mode each missed call costs
        2 cards, in the windows' order (a protector's before the player it cancelled)."""
        self.jump = False
        for w in self.windows:
            if w.seat != seat and self.config.call == "with_play" and not w.called:
                got = self._take(w.seat, SOLO_PENALTY)
                events.append(Event("penalty", w.seat, f"did not call SOLO and draws {len(got)}",
                                    count=len(got)))
        self.windows = [w for w in self.windows if w.seat == seat]

    def _end_turn(self, seat: int) -> None:
        self.drawn = None
        self.turn = self.next_seat(seat)

    def _catch(self, seat: int, target: int, events: list[Event]) -> None:
        window = self.window_of(target)
        if window is not None and not window.called:
            got = self._take(target, SOLO_PENALTY)
            self.windows.remove(window)
            events.append(Event("catch", seat, f"catches seat {target}, who draws {len(got)}", target=target,
                                count=len(got)))
            return
        got = self._take(seat, self.config.false_catch_penalty)
        events.append(Event("false_catch", seat, f"catches seat {target} wrongly and draws {len(got)}",
                            target=target, count=len(got)))

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
        card = got[0]
        events.append(Event("draw", seat, "draws a card", count=1))
        if self.fits(card):
            self.drawn = card
        else:
            self._end_turn(seat)

    def _take(self, seat: int, count: int) -> list[Card]:
        """Draw up to ``count`` cards into ``seat``'s hand, reshuffling when needed."""
        got: list[Card] = []
        hand = self.hands[seat]
        for _ in range(count):
            if not self.draw:
                if len(self.discard) <= 1:
                    break
                self.reshuffles += 1
                label = f"solo/round/{self.round_no}/reshuffle/{self.reshuffles}"
                self.draw = Stream(self.seed, label).shuffle(self.discard[:-1])
                self.discard = self.discard[-1:]
            card = self.draw.pop()
            _insert(hand, card)
            got.append(card)
        return got

    def _play(self, seat: int, play: Play, events: list[Event]) -> None:
        react = self.react
        protecting = react is not None and seat in react.pending and play.card.rank == "prot"
        jumping = not protecting and seat != self.turn
        for c in play.cards:
            self._remove(seat, c)
        self.discard.extend(play.cards)
        self.laid_by = seat
        self.drawn = None
        top = play.top
        self.jump = not top.black
        verb = "jumps in with" if jumping else "plays"
        events.append(Event("play", seat, f"{verb} {_describe(play)}", cards=[c.text for c in play.cards],
                            colour=play.colour, target=play.target, call=play.call, jump=jumping))
        if not self.hands[seat]:
            self._win(seat, events)
            return
        if play.card.rank not in SETTLED:
            rest = self.hands[seat]
            self._judge_call(seat, bool(rest) and self.needs_call(rest), play.call)
        if protecting and react is not None and react.kind != "skip":
            self._protect(seat, top, react, events)
            return
        if protecting:
            events.append(Event("protect", seat, "is protected from the Skip", against="skip"))
        self.react = None
        self._effect(seat, play, events)

    def _judge_call(self, seat: int, due: bool, call: bool) -> None:
        """``seat``'s play left a hand that needs a call (``due``), made or not (``call``).

        A seat's own later plays never close its own window and never make up a missed call,
        with the call or without (RULES.md 1.8.6, 1.8.15): only a late call does (``solo``).
        A new window goes after any other still open (RULES.md 1.8.17).
        """
        window = self.window_of(seat)
        if window is not None:
            if window.called and due:
                window.called = call
            return
        if due:
            self.windows.append(Window(seat, call))

    def _effect(self, seat: int, play: Play, events: list[Event]) -> None:
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
            self._skip(seat, events)
        elif rank == "rev":
            self.direction = -self.direction
            self.turn = seat if self.n == 2 else self.next_seat(seat)
        elif rank in ("swap", "gift"):
            target = play.target
            assert target is not None
            self.turn = None
            self.react = React(rank, seat, [], target, play.gift, call=play.call)
            if self._holds_protection(target):
                self.react.pending = [target]
            else:
                self._resolve(events)
        elif rank == "pass":
            pending = [s for s in self._order_from(seat) if s != seat and self._holds_protection(s)]
            self.turn = None
            self.react = React("pass", seat, pending, call=play.call)
            if not pending:
                self._resolve(events)
        else:
            self.turn = self.next_seat(seat)

    def _skip(self, seat: int, events: list[Event]) -> None:
        target = self.next_seat(seat)
        if self._holds_protection(target):
            self.turn = None
            self.react = React("skip", seat, [target], target)
        else:
            events.append(Event("skipped", target, "is skipped"))
            self.turn = self.next_seat(target)

    def _holds_protection(self, seat: int) -> bool:
        return self.config.protection and any(c.rank == "prot" for c in self.hands[seat])

    def _order_from(self, seat: int) -> list[int]:
        return [self.next_seat(seat, k) for k in range(self.n)]

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
            self._swap(by, target)
            events.append(Event("swap", by, f"swaps hands with seat {target}", target=target))
            self.turn = target
            self._settle_call(react, False)
        elif react.kind == "gift":
            assert target is not None
            self._give(by, target, react.gift)
            events.append(Event("gift", by, f"gives {len(react.gift)} card(s) to seat {target}",
                                target=target, count=len(react.gift)))
            self.turn = self.next_seat(by)
            if not self.hands[by]:
                self._win(by, events)
            else:
                self._settle_call(react, True)
        else:
            ring = [s for s in self._order_from(by) if s not in react.protected]
            self._pass(by, ring)
            if len(ring) >= 2:
                events.append(Event("pass", by, f"hands pass on to the next player ({len(ring)} hands)",
                                    count=len(ring)))
            self.turn = self.next_seat(by)
            self._settle_call(react, len(ring) < 2)

    def _settle_call(self, react: React, kept: bool) -> None:
        """Judge the call of the settled Gift, Swap or Pass hands (RULES.md 1.8.14): due only if
        its player ``kept`` a hand of its own (not one received) that needs a call. A protector
        left owing a call keeps its own window open beside this one (RULES.md 1.8.17)."""
        by = react.by
        self._judge_call(by, kept and self.needs_call(self.hands[by]), react.call)

    def _swap(self, a: int, b: int) -> None:
        self.hands[a], self.hands[b] = self.hands[b], self.hands[a]
        for row in self.known:
            row[a], row[b] = row[b], row[a]
        self.known[a][a], self.known[b][b] = [], []
        self.known[a][b] = list(self.hands[b])
        self.known[b][a] = list(self.hands[a])

    def _give(self, giver: int, target: int, cards: tuple[Card, ...]) -> None:
        for c in cards:
            self._remove(giver, c)
            _insert(self.hands[target], c)
            _insert(self.known[giver][target], c)

    def _pass(self, by: int, ring: list[int]) -> None:
        """Every seat in ``ring`` (in the direction of play) passes its hand to the next."""
        if len(ring) < 2:
            return
        old = {s: self.hands[s] for s in ring}
        for i, s in enumerate(ring):
            nxt = ring[(i + 1) % len(ring)]
            self.hands[nxt] = old[s]
        for row in self.known:
            before = {s: row[s] for s in ring}
            for i, s in enumerate(ring):
                row[ring[(i + 1) % len(ring)]] = before[s]
        for i, s in enumerate(ring):
            nxt = ring[(i + 1) % len(ring)]
            self.known[s][s] = []
            self.known[s][nxt] = list(old[s])

    def _remove(self, seat: int, card: Card) -> None:
        self.hands[seat].remove(card)
        for row in self.known:
            if card in row[seat]:
                row[seat].remove(card)

    def _win(self, seat: int, events: list[Event]) -> None:
        self.winner = seat
        self.turn = None
        self.react = None
        self.jump = False
        events.append(Event("out", seat, "has no cards left and wins the round"))

    def _why(self, seat: int, action: Action) -> str:
        """A one-line reason why ``action`` is not legal for ``seat`` now."""
        if isinstance(action, Catch):
            if self.config.call != "window":
                return "catching is not part of these rules (a missed call costs 2 cards by itself)"
            return f"seat {seat} cannot catch seat {action.target}"
        if action == CALL:
            return "there is no missed SOLO call of yours to make now"
        if self.react is not None and seat not in self.react.pending:
            return f"waiting for seat {self.react.pending[0]} to protect or decline"
        if action == DECLINE:
            return "there is no Protection window open for you"
        if isinstance(action, Simple):
            if self.react is not None:
                return "a Protection window is open: play a Protection or decline"
            if seat != self.turn:
                return f"it is seat {self.turn}'s turn, not seat {seat}'s"
            return f"'{action}' is not possible now"
        hand = self.hands[seat]
        held = action.cards + action.gift
        missing = [c for c in held if held.count(c) > hand.count(c)]
        if missing:
            return f"seat {seat} does not hold {missing[0]}"
        if self.react is not None and action.card.rank != "prot":
            extra = f" (or jump in with {self.top})" if self.react.kind == "skip" else ""
            return f"a Protection window is open: play a Protection or decline{extra}"
        if len(action.cards) > 1 and not self.config.multiples:
            return "multiples are not part of these rules"
        if seat != self.turn and self.react is None:
            if len(action.cards) > 1:
                return f"it is seat {self.turn}'s turn; multiples are never a jump-in"
            if action.card.black or self.top.black:
                return f"it is seat {self.turn}'s turn; black cards cannot be jumped in"
            if not self.jump or self.top != action.card:
                return f"it is seat {self.turn}'s turn; a jump-in needs the card identical to {self.top}"
            if seat == self.laid_by and not self.config.self_jump_in:
                return "jumping in on your own card is off (option self_jump_in)"
        if self.drawn is not None and self.drawn not in action.cards:
            return f"after drawing, only the drawn card {self.drawn} may be played"
        if self.penalty and seat == self.turn:
            return f"a penalty of {self.penalty} is pending: stack it, protect, or draw"
        if not self.fits(action.card):
            return f"{action.card} does not fit on {self.top}" + (
                f" with {COLOUR_NAMES[self.colour]} in force" if self.colour else "")
        if action.call:
            return "SOLO may only be called with a play that leaves a hand one play could empty"
        return f"'{action}' is not a legal play here (check its colour, target or cards)"

    # --- observation and plain data --------------------------------------------------
    def observation(self, seat: int) -> dict[str, Any]:
        react = self.react
        return {
            "game": "solo",
            "seat": seat,
            "players": self.n,
            "hand": _texts(self.hands[seat]),
            "hand_sizes": [len(h) for h in self.hands],
            "top": self.top.text,
            "discard": _texts(self.discard),
            "draw_size": len(self.draw),
            "turn": self.turn,
            "to_move": self.to_move(),
            "direction": self.direction,
            "colour": self.colour,
            "penalty": self.penalty,
            "penalty_kind": self.penalty_kind,
            "drawn": self._drawn_seen_by(seat),
            "jump": self.jump,
            "laid_by": self.laid_by,
            "solo": self.windows[0].to_dict() if self.windows else None,
            "solo_also": [w.to_dict() for w in self.windows[1:]],
            "react": None if react is None else {
                "kind": react.kind, "by": react.by, "target": react.target,
                "pending": list(react.pending), "protected": list(react.protected),
                "gift": _texts(react.gift) if seat in (react.by, react.target) else len(react.gift),
                "call": react.call,
            },
            "known": {h: _texts(cards) for h, cards in enumerate(self.known[seat]) if cards and h != seat},
            "winner": self.winner,
        }

    def _drawn_seen_by(self, seat: int) -> str | bool | None:
        """The drawn card for the drawer; for the others only whether there is one."""
        if seat != self.turn:
            return self.drawn is not None
        return self.drawn.text if self.drawn else None

    def snapshot(self) -> dict[str, Any]:
        """Plain data; ``solo`` is the first open SOLO window and ``solo_also`` (left out when
        empty, so a position with one window digests as before RULES.md 1.8.17) the others."""
        react = self.react
        data: dict[str, Any] = {
            "game": "solo",
            "config": self.config.to_dict(),
            "seed": self.seed.hex(),
            "round": self.round_no,
            "hands": [_texts(h) for h in self.hands],
            "draw": _texts(self.draw),
            "discard": _texts(self.discard),
            "reshuffles": self.reshuffles,
            "turn": self.turn,
            "direction": self.direction,
            "colour": self.colour,
            "penalty": self.penalty,
            "penalty_kind": self.penalty_kind,
            "drawn": self.drawn.text if self.drawn else None,
            "jump": self.jump,
            "laid_by": self.laid_by,
            "solo": self.windows[0].to_dict() if self.windows else None,
            "react": None if react is None else {
                "kind": react.kind, "by": react.by, "target": react.target,
                "gift": _texts(react.gift), "pending": list(react.pending),
                "protected": list(react.protected), "call": react.call,
            },
            "known": [[_texts(cards) for cards in row] for row in self.known],
            "winner": self.winner,
        }
        if len(self.windows) > 1:
            data["solo_also"] = [w.to_dict() for w in self.windows[1:]]
        return data

    @classmethod
    def from_snapshot(cls, data: dict[str, Any]) -> State:
        """A state from ``snapshot()`` data; keys after ``discard`` may be left out."""
        try:
            return cls._from_snapshot(data)
        except ParseError:
            raise
        except (KeyError, TypeError, ValueError, AttributeError, IndexError) as err:
            raise ParseError(f"bad SOLO snapshot: {type(err).__name__}: {err}") from None

    @classmethod
    def _from_snapshot(cls, data: dict[str, Any]) -> State:
        config = Config.from_dict(data["config"])
        state = cls(config, bytes.fromhex(data.get("seed", "")), int(data.get("round", 0)))
        n = config.players
        hands = data["hands"]
        if len(hands) != n:
            raise ParseError(f"bad SOLO snapshot: {len(hands)} hands for {n} players")
        state.hands = [sorted(_cards(h)) for h in hands]
        state.draw = _cards(data["draw"])
        state.discard = _cards(data["discard"])
        if not state.discard:
            raise ParseError("bad SOLO snapshot: the discard pile is empty")
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
        state.drawn = parse_card(drawn) if drawn else None
        state.jump = bool(data.get("jump", False))
        state.laid_by = _seat_or_none(data.get("laid_by"), n)
        state.windows = _windows(data.get("solo"), data.get("solo_also", []), n)
        react = data.get("react")
        if react is not None:
            state.react = React(str(react["kind"]), int(react["by"]), [int(s) for s in react["pending"]],
                                _seat_or_none(react.get("target"), n), tuple(_cards(react.get("gift", []))),
                                [int(s) for s in react.get("protected", [])], bool(react.get("call", False)))
        known = data.get("known")
        if known is not None:
            state.known = [[sorted(_cards(cards)) for cards in row] for row in known]
        state.winner = _seat_or_none(data.get("winner"), n)
        return state

    def digest(self) -> str:
        from cardtable.engine.match import snapshot_digest

        return snapshot_digest(self.snapshot())


def needs_call(config: Config, hand: list[Card]) -> bool:
    """Whether one play could empty ``hand``, so leaving it needs a SOLO call (RULES.md 1.5.2)."""
    if len(hand) == 1:
        return True
    if config.multiples and len(hand) >= 3:
        first = hand[0].number
        if first and all(c.number == first for c in hand):
            return True
    return len(hand) <= 3 and any(c.rank == "gift" for c in hand)


def new_round(config: Config, seed: bytes, round_no: int) -> State:
    """Deal round ``round_no`` (0-based) from ``seed`` (RULES.md 1.2).

    The dealer is seat ``round_no % n``; cards are dealt one at a time from the top of
    the shuffled deck, starting left of the dealer; then cards are turned from the draw
    pile until a number card is on top (or the pile runs out); the seat left of the dealer
    starts.
    """
    state = State(config, seed, round_no)
    n = config.players
    cards = Stream(seed, f"solo/round/{round_no}/deal").shuffle(deck(config.gifts, config.protection))
    dealer = round_no % n
    for i in range(config.hand_size * n):
        _insert(state.hands[(dealer + 1 + i) % n], cards.pop())
    state.draw = cards
    while state.draw:
        state.discard.append(state.draw.pop())
        if state.top.number:
            break
    state.turn = (dealer + 1) % n
    if state.top.number:
        state.colour = state.top.colour
    # The jump-in window opens on the card left on top, also when the draw pile ran out before
    # a number card turned up (RULES.md 1.8.1, 1.8.16); any card fits then (1.8.11).
    state.jump = not state.top.black
    return state


_KIND_NAMES = {"skip": "Skip", "gift": "Gift", "swap": "Swap", "pass": "Pass hands"}


def _describe(play: Play) -> str:
    text = "+".join(c.text for c in play.cards)
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
    """Insert keeping canonical order."""
    i = len(hand)
    while i and hand[i - 1].index > card.index:
        i -= 1
    hand.insert(i, card)


def _texts(cards: Any) -> list[str]:
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
        windows.append(Window(seat, bool(w["called"])))
    if len({w.seat for w in windows}) < len(windows):
        raise ParseError("bad SOLO snapshot: two SOLO windows of one seat")
    return windows


def _seat_or_none(value: Any, n: int) -> int | None:
    if value is None:
        return None
    if not isinstance(value, int) or not 0 <= value < n:
        raise ParseError(f"bad SOLO snapshot: {value!r} is not a seat")
    return value
