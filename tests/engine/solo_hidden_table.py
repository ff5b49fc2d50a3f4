"""A SOLO round played by today's engine while the hidden-hands views follow it, fed as a
table would feed them (docs/hidden-hands.md section 9): one view per seat, a public view and
the audit's full-knowledge view."""

from __future__ import annotations

from collections import Counter
from typing import Any

from cardtable.engine.game import Event
from cardtable.engine.shuffle import Stream
from cardtable.engine.solo import Config, State, deck, new_round
from cardtable.engine.solo.actions import CALL, DECLINE, KEEP, Action, Catch
from cardtable.engine.solo.cards import Card, parse_card
from cardtable.engine.solo.slot_actions import SlotAction, SlotPlay, parse_slot_action
from cardtable.engine.solo.windows import NONE


def dealt(config: Config, seed: bytes, round_no: int) -> list[Card]:
    """Slot i's card for the deal ``new_round(config, seed, round_no)`` makes (slot i: the
    i-th card dealt, from the end of the shuffled deck)."""
    shuffled = Stream(seed, f"solo/round/{round_no}/deal").shuffle(deck(config.gifts, config.protection))
    return list(reversed(shuffled))


def event_rows(events: list[Event]) -> list[tuple[Any, ...]]:
    return [(e.kind, e.seat, e.text, sorted(e.facts.items())) for e in events]


class Table:
    """Today's engine and the views of the same round, stepped together."""

    def __init__(self, config: Config, seed: bytes, round_no: int = 0) -> None:
        self.config, self.seed, self.round_no, self.n = config, seed, round_no, config.players
        self.engine = new_round(config, seed, round_no)
        self.truth = dealt(config, seed, round_no)
        self.full = State(config, round_no, self.truth)
        blank: list[Card | None] = [None] * len(self.truth)
        self.public = State(config, round_no, blank)
        self.seats = [State(config, round_no, blank) for _ in range(self.n)]
        self.held: list[set[int]] = [set() for _ in range(self.n)]
        for seat, view in enumerate(self.seats):
            for slot in self.full.held[seat]:
                view.learn(slot, self.truth[slot])  # its hand's keys arrived
                self.held[seat].add(slot)
        self.opened: set[int] = set()
        while self.full.wanted():
            slot = self.full.wanted()[0]
            for view in self.views():
                view.turn_up(slot, self.truth[slot])
            self.opened.add(slot)
        self.moves: list[tuple[int, str]] = []
        self.dealt = 1
        self.handed: list[tuple[int, int]] = []  # the slots that changed holder in the last step
        self.rows: list[list[tuple[Any, ...]]] = []
        self.seen: Counter[str] = Counter()

    def views(self) -> list[State]:
        return [self.full, self.public, *self.seats]

    # --- stepping ------------------------------------------------------------------------
    def step(self, seat: int, action: Action) -> None:
        """Apply today's ``action`` to the engine and its hidden form (with the steps hidden
        hands add) to every view; check they agree."""
        self.handed = []
        today = event_rows(self.engine.apply(seat, action))
        hidden = self.seats[seat].slot_action(seat, action)
        got = self.feed(seat, hidden, inserted=False)
        got += self.settle(seat)
        assert got == today, (action, hidden, got, today)
        self.check()

    def feed(self, seat: int, action: SlotAction, inserted: bool) -> list[tuple[Any, ...]]:
        """``action`` (through its text) to every view; the events today's engine would show."""
        text = str(action)
        assert parse_slot_action(text) == action
        self.moves.append((seat, text))
        rows = [event_rows(view.apply(seat, text)) for view in self.views()]
        assert all(r == rows[0] for r in rows)
        self.rows.append(rows[0])
        if isinstance(action, SlotPlay):
            self.opened.update(action.slots)
        self._deal_reshuffles()
        handed = self.full.handed
        assert all(view.handed == handed for view in self.views())
        self.handed += handed
        for holder, slot in handed:
            self.seats[holder].learn(slot, self.truth[slot])  # every other machine sends its keys
            self.held[holder].add(slot)
        self.seen[type(action).__name__ if not inserted else str(action)] += 1
        if inserted:
            return [r for r in rows[0] if r[0] not in ("keep", "decline")]
        return list(rows[0])

    def settle(self, seat: int) -> list[tuple[Any, ...]]:
        """The steps hidden hands add after an action: answers, the keep after a draw whose card
        does not fit, the declines of seats without a Protection."""
        rows: list[tuple[Any, ...]] = []
        while True:
            if self.full.asked is not None:
                asked = self.full.asked.seat
                (answer,) = self.seats[asked].legal_actions(asked)  # its own machine judges
                self.seen["asked"] += 1
                rows += self.feed(asked, answer, inserted=True)
            elif self.full.drawn is not None and self.engine.drawn is None and not self.engine.is_over():
                rows += self.feed(self.full.turn or 0, KEEP, inserted=True)
            elif self.full.react is not None and self._extra_pending():
                rows += self.feed(self._extra_pending()[0], DECLINE, inserted=True)
            elif len(self.moves) % 2 and self._unsettled():  # a classic machine may answer unasked
                owner = self._unsettled()[0]
                answer = self.seats[owner].answer(owner)
                assert answer is not None
                self.seen["volunteered"] += 1
                rows += self.feed(owner, answer, inserted=True)
            else:
                return rows

    def _unsettled(self) -> list[int]:
        return [s for s in range(self.n) if self.full.answer(s, public=True) is not None]

    def _extra_pending(self) -> list[int]:
        react = self.full.react
        assert react is not None
        real = self.engine.react.pending if self.engine.react is not None else []
        return [s for s in react.pending if s not in real]

    def _deal_reshuffles(self) -> None:
        """The table deals each reshuffle; the audit's view learns its slots at once."""
        for d in self.full.deals[self.dealt:]:
            label = f"solo/round/{self.round_no}/reshuffle/{d.number}"
            order = Stream(self.seed, label).shuffle(list(d.cards))
            self.truth += list(reversed(order))
            for i in range(len(d.cards)):
                self.full.learn(d.first + i, self.truth[d.first + i])
            self.seen["reshuffle"] += 1
        self.dealt = len(self.full.deals)

    # --- checks ----------------------------------------------------------------------------
    def check(self) -> None:
        engine, full = self.engine, self.full
        public = full.public_view()
        for view in self.views():
            assert view.public_view() == public
        assert (full.turn, full.direction, full.colour, full.penalty, full.penalty_kind) == (
            engine.turn, engine.direction, engine.colour, engine.penalty, engine.penalty_kind)
        assert [len(h) for h in full.held] == [len(h) for h in engine.held]
        assert len(full.draw_slots) == len(engine.draw_slots)
        assert full.discard == engine.discard
        assert (full.jump, full.laid_by, full.winner) == (engine.jump, engine.laid_by, engine.winner)
        assert (full.drawn is None) == (engine.drawn is None)
        react, real = full.react, engine.react
        assert (react is None) == (real is None)
        if react is not None and real is not None:
            assert (react.kind, react.by, react.target, react.pending, react.protected, react.call) == (
                real.kind, real.by, real.target, real.pending, real.protected, real.call)
            assert sorted(full.pile(react.gift)) == sorted(engine.pile(real.gift))
        truth = [(w.seat, w.called) for w in engine.windows]
        assert [(w.seat, "called" in w.mine) for w in full.windows if NONE not in w.mine] == truth
        for w in full.windows:
            assert w.mine <= w.public
        for seat, view in enumerate(self.seats):
            own = view.window_of(seat)
            state = own.mine if own is not None else frozenset({NONE})
            assert len(state) == 1
            assert (NONE not in state) == (engine.window_of(seat) is not None)
            hand = view.hand_cards(seat)
            assert hand is not None and Counter(hand) == Counter(engine.hands[seat])
            assert set(view.cards) == self.opened | self.held[seat], f"seat {seat} knows other cards"
            legal = [str(a) for a in engine.legal_actions(seat)]
            assert [str(a) for a in view.legal_actions(seat)] == legal
            mine, today = view.observation(seat), engine.observation(seat)
            for key in ("hand", "hand_sizes", "top", "discard", "draw_size", "turn", "to_move", "direction",
                        "colour", "penalty", "penalty_kind", "drawn", "jump", "laid_by", "winner"):
                assert mine[key] == today[key], (key, mine[key], today[key])
            if today["react"] is not None:
                assert {k: v for k, v in mine["react"].items() if k != "gift"} == {
                    k: v for k, v in today["react"].items() if k != "gift"}
            for holder, cards in today["known"].items():  # today's forgets a face when any copy is played
                assert not Counter(cards) - Counter(mine["known"].get(holder, [])), (holder, cards)
        assert set(self.public.cards) == self.opened
        for seat in range(self.n):
            assert Counter(full.hand_cards(seat) or []) == Counter(engine.hands[seat])

    def finish(self) -> None:
        """The audit: every view learns every card left in a hand; the scores agree."""
        for view in self.views():
            for hand in self.full.held:
                for slot in hand:
                    view.learn(slot, self.truth[slot])
            assert view.round_scores() == self.engine.round_scores()


def random_step(state: State, rng: Stream) -> tuple[int, Action]:
    """Mostly the waiting seat's non-meta moves; sometimes anyone's anything (catches too); a seat
    holding a Protection declines as often as it protects (a decline closes no window at either
    table, docs/rules.md 1.8.18)."""
    if rng.below(10) == 0:
        actors = state.actors()
        seat = actors[rng.below(len(actors))]
        legal = state.legal_actions(seat)
    else:
        waiting = state.to_move()
        assert waiting is not None
        seat = waiting
        legal = [a for a in state.legal_actions(seat) if not isinstance(a, Catch) and a != CALL]
    return seat, legal[rng.below(len(legal))]


def play_round(config: Config, seed: bytes, steps: int = 400) -> Table:
    table = Table(config, seed)
    table.check()
    rng = Stream(seed, "test/hidden")
    for _ in range(steps):
        if table.engine.is_over():
            break
        table.step(*random_step(table.engine, rng))
    return table


def arrange(config: Config, placed: dict[int, str]) -> list[Card]:
    """A deal with ``placed`` (slot: card text); the other slots hold the rest of the deck in
    canonical order."""
    rest = deck(config.gifts, config.protection)
    for text in placed.values():
        rest.remove(parse_card(text))
    return [parse_card(placed[i]) if i in placed else rest.pop(0) for i in range(len(rest) + len(placed))]
