"""One SCOUT round (docs/rules.md section 2): the deal, the whole-hand turn, Show, Scout, Scout & Show.

Rulings beyond docs/rules.md, all kept here:

* Deal (the deterministic shuffle of docs/rules-notes.md): the cards in play, in canonical order
  (``cards.DECK``), are shuffled by ``Stream(seed, "scout/round/R/deal")``; then one ``below(2)``
  per card, in shuffled order, from ``Stream(seed, "scout/round/R/orient")``: 0 puts the lower value
  up, 1 the higher. Card ``i`` goes to seat ``(start + i) % n`` and is appended at the right end of
  that hand (index 0 is the left end). The start player of round ``r`` is seat ``r % n``.
* Two players: round ``r`` uses the deal of ``R = r - r % 2``; an even round deals the first 22
  shuffled cards and sets the last 22 aside, an odd round deals those 22 (orientation kept) and
  sets the first 22 aside. ``set_aside`` always holds the in-play cards that are not in this round.
* A one-card active set is scouted from the left end only (no duplicate actions).
* 3-5 players: the round also ends when the turn would pass to the active set's owner (everyone
  else has only scouted since their show). A set scouted empty keeps its owner (docs/rules.md 2.6.1):
  the table is empty, and the round still ends when the turn would come back to that owner.
* 2 players: whenever the seat to move can neither show (nothing beats the set) nor scout (no
  chips), the round ends and the active set's owner takes no hand penalty. docs/rules.md 2.7.4 names the
  case right after a show; the same rule covers a seat stuck after its own scout.
* 2 players with ``voluntary_pass``: ``pass`` is legal on every turn of the play phase (also
  on an empty table, and after the player's own scout); the round ends and the active set's
  owner (the player of the last show, if any) takes no hand penalty.
* ``chips`` counts the Scout chips each seat has received (3-5 players) or still holds
  (2 players, 3 at the start of each round); either way each is worth 1 point at round end.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from cardtable.engine.errors import IllegalAction, ParseError
from cardtable.engine.game import Event
from cardtable.engine.match import snapshot_digest
from cardtable.engine.shuffle import Stream

from .actions import FLIP, KEEP, PASS, Action, Pass, Scout, ScoutShow, Show, TurnChoice
from .cards import UNKNOWN, Card, deck_in_play, parse_card
from .config import Config

TWO_PLAYER_CHIPS = 3
PHASES = ("turn_choice", "play", "over")

Strength = tuple[int, int, int]
"""(number of cards, kind, value); kind 1 = set (a single counts as a set), 0 = run. A show
beats another exactly when its strength tuple is greater (docs/rules.md 2.3)."""


def strength(ups: Sequence[int]) -> Strength | None:
    """The strength of showing these up values in this order, or None if not a single/set/run.

    A set is all one value; a run steps by +1 or by -1 throughout (10 does not wrap to 1) and is
    valued by its lowest card.
    """
    n = len(ups)
    if n == 0:
        return None
    first = ups[0]
    if n == 1:
        return (1, 1, first)
    step = ups[1] - first
    if step not in (-1, 0, 1):
        return None
    for k in range(2, n):
        if ups[k] - ups[k - 1] != step:
            return None
    if step == 0:
        return (n, 1, first)
    return (n, 0, first if step == 1 else ups[-1])


def spans(ups: Sequence[int], target: Strength | None) -> list[tuple[int, int]]:
    """Every ``(first, last)`` span of ``ups`` that is a valid show beating ``target``.

    ``target`` None means an empty table (anything goes). Ordered by ``first``, then ``last``.
    """
    out: list[tuple[int, int]] = []
    h = len(ups)
    need = 1 if target is None else target[0]
    for i in range(h):
        a = ups[i]
        if need == 1 and (target is None or (1, 1, a) > target):
            out.append((i, i))
        j = i + 1
        if j == h:
            continue
        step = ups[j] - a
        if step not in (-1, 0, 1):
            continue
        while j < h and ups[j] - ups[j - 1] == step:
            count = j - i + 1
            if count >= need:
                if step == 0:
                    s: Strength = (count, 1, a)
                else:
                    s = (count, 0, a if step == 1 else ups[j])
                if target is None or s > target:
                    out.append((i, j))
            j += 1
    return out


def describe_show(cards: Sequence[Card]) -> str:
    """E.g. ``5-6-7 (run of 3)``, ``4-4 (set of 2)``, ``7 (single)``."""
    values = "-".join(str(c.up) for c in cards)
    s = strength([c.up for c in cards])
    if s is None or s[0] == 1:
        return f"{values} (single)"
    return f"{values} ({'set' if s[1] else 'run'} of {s[0]})"


def new_round(config: Config, seed: bytes, round_no: int,
              dealt: Sequence[Card] | None = None) -> State:
    """Deal round ``round_no`` (0-based) of a match with this config and seed; or, with ``dealt``,
    deal those cards in that order (hidden hands: ``UNKNOWN`` where this machine cannot see the
    card; the first half only with two players in round 0, the rest set aside)."""
    if not isinstance(config, Config):
        raise ParseError("new_round needs a SCOUT Config")
    if type(round_no) is not int or round_no < 0:
        raise ParseError(f"bad round number {round_no!r}")
    seed = bytes(seed)
    n = config.players
    set_aside: list[Card] = []
    if dealt is not None:
        deck = list(dealt)
        if n == 2 and len(deck) == len(deck_in_play(n)):
            deck, set_aside = deck[: len(deck) // 2], deck[len(deck) // 2 :]
    else:
        deal_round = round_no - round_no % 2 if n == 2 else round_no
        pairs = Stream(seed, f"scout/round/{deal_round}/deal").shuffle(deck_in_play(n))
        orient = Stream(seed, f"scout/round/{deal_round}/orient")
        deck = [Card(a, b) if orient.below(2) == 0 else Card(b, a) for a, b in pairs]
        if n == 2:
            half = len(deck) // 2
            if round_no % 2 == 0:
                deck, set_aside = deck[:half], deck[half:]
            else:
                deck, set_aside = deck[half:], deck[:half]
    start = round_no % n
    hands: list[list[Card]] = [[] for _ in range(n)]
    for i, card in enumerate(deck):
        hands[(start + i) % n].append(card)
    state = State.__new__(State)
    state.config = config
    state.seed = seed
    state.round_no = round_no
    state.start = start
    state.phase = "turn_choice"
    state.turn = None
    state.flipped = [None] * n
    state.hands = hands
    state.known = [[False] * len(h) for h in hands]
    state.active = []
    state.owner = None
    state.captured = [[] for _ in range(n)]
    state.chips = [TWO_PLAYER_CHIPS if n == 2 else 0] * n
    state.scout_show = [n > 2] * n
    state.set_aside = set_aside
    state.exempt = None
    state.hidden = dealt is not None
    state._legal = {}
    return state


class State:
    """A position of one SCOUT round. Mutated only by ``apply``."""

    __slots__ = (
        "_legal",
        "active",
        "captured",
        "chips",
        "config",
        "exempt",
        "flipped",
        "hands",
        "hidden",
        "known",
        "owner",
        "phase",
        "round_no",
        "scout_show",
        "seed",
        "set_aside",
        "start",
        "turn",
    )

    config: Config
    seed: bytes
    round_no: int
    start: int
    phase: str
    turn: int | None
    flipped: list[bool | None]
    hands: list[list[Card]]
    known: list[list[bool]]  # per hand position: is this card public (it was scouted)?
    active: list[Card]
    owner: int | None  # who showed the active set last; kept when it is scouted empty (2.6.1)
    captured: list[list[Card]]
    chips: list[int]
    scout_show: list[bool]
    set_aside: list[Card]
    exempt: int | None  # the seat that ended the round by the "nobody beat it" rule
    hidden: bool  # hidden hands: the round never looks at a card its view may not know
    _legal: dict[int, list[Action]]

    # --- queries ----------------------------------------------------------------------
    @property
    def players(self) -> int:
        return self.config.players

    def is_over(self) -> bool:
        return self.phase == "over"

    def to_move(self) -> int | None:
        """The seat the round waits for: the first undecided seat from the start player during the
        whole-hand-turn phase, the seat whose turn it is in play, None when over."""
        if self.phase == "turn_choice":
            n = self.players
            for k in range(n):
                seat = (self.start + k) % n
                if self.flipped[seat] is None:
                    return seat
            return None
        return self.turn

    def actors(self) -> list[int]:
        if self.phase == "turn_choice":
            return [s for s, f in enumerate(self.flipped) if f is None]
        if self.phase == "play" and self.turn is not None and (
                self.config.voluntary_pass or self._can_act(self.turn)):
            return [self.turn]
        return []

    def legal_actions(self, seat: int) -> list[Action]:
        """Every legal action of ``seat`` now, in a fixed order: the whole-hand turn choice
        (flip, keep); else shows by span, scouts (L before R, value ascending, position
        ascending), then Scout & Shows in the same order, then ``pass`` (option)."""
        cached = self._legal.get(seat)
        if cached is None:
            cached = self._legal[seat] = self._generate(seat)
        return list(cached)

    def _generate(self, seat: int) -> list[Action]:
        if self.phase == "turn_choice":
            if type(seat) is int and 0 <= seat < self.players and self.flipped[seat] is None:
                return [FLIP, KEEP]
            return []
        if self.phase != "play" or seat != self.turn:
            return []
        if self.stuck(seat):
            return [PASS]
        out = self._moves(seat)
        if self.config.voluntary_pass:
            out.append(PASS)
        return out

    def _moves(self, seat: int) -> list[Action]:
        """The shows, scouts and Scout & Shows of ``seat``, to move in the play phase."""
        hand = self.hands[seat]
        ups = [c.up for c in hand]
        active = self.active
        out: list[Action] = [Show(i, j) for i, j in spans(ups, strength([c.up for c in active]))]
        if not active or (self.players == 2 and self.chips[seat] == 0):
            return out
        ends = ("L",) if len(active) == 1 else ("L", "R")
        positions = range(len(hand) + 1)
        scouts = [
            Scout(end, value, pos)
            for end in ends
            for value in sorted(active[0] if end == "L" else active[-1])
            for pos in positions
        ]
        out.extend(scouts)
        if self.players == 2 or not self.scout_show[seat]:
            return out
        for scout in scouts:
            reduced = active[1:] if scout.end == "L" else active[:-1]
            target = strength([c.up for c in reduced])
            new_ups = ups[: scout.pos] + [scout.value] + ups[scout.pos :]
            out.extend(ScoutShow(scout, Show(i, j)) for i, j in spans(new_ups, target))
        return out

    def _can_act(self, seat: int) -> bool:
        """Whether ``seat``, to move in the play phase, has any legal action (cheap). Under hidden
        hands this may depend on cards other machines cannot see, so the round goes on and the
        seat's own machine answers ``pass`` when it cannot show (``stuck``; the audit checks it)."""
        if self.active and (self.players > 2 or self.chips[seat] > 0):
            return True
        return self.hidden or self._shows_any(seat)

    def _shows_any(self, seat: int) -> bool:
        return bool(spans([c.up for c in self.hands[seat]], strength([c.up for c in self.active])))

    def stuck(self, seat: int) -> bool:
        """Hidden hands, two players: ``seat``, out of Scout chips, cannot beat the active set (it
        then passes, which ends the round as the rule does); trusted unless its hand is known."""
        if not (self.hidden and self.players == 2 and self.active and self.chips[seat] == 0):
            return False
        return UNKNOWN in self.hands[seat] or not self._shows_any(seat)

    def learn(self, seat: int, pos: int, card: Card) -> None:
        """Hidden hands: the card at ``pos`` of ``seat``'s hand is ``card`` (as it lies now)."""
        self.hands[seat][pos] = card
        self._legal.clear()

    def round_scores(self) -> list[int]:
        """+1 per captured card, +1 per Scout chip, -1 per card in hand (not for the exempt seat)."""
        if self.phase != "over":
            raise IllegalAction("the round is not over yet")
        return [
            len(self.captured[s]) + self.chips[s] - (0 if s == self.exempt else len(self.hands[s]))
            for s in range(self.players)
        ]

    def observation(self, seat: int) -> dict[str, Any]:
        """What ``seat`` may know: its own hand, public counts, the table, the scouted cards.

        Keys: game, players, seat, round, start, phase, turn (``to_move()``), hand (own cards,
        up value first), hand_sizes, active, owner, captured (counts), captured_cards (every
        captured card was shown to all before it was taken), chips, scout_show,
        flipped (None undecided / True / False), known (per seat, aligned with its hand: the
        card text where it is public, i.e. scouted, else None; the observer's own hand in full),
        set_aside (a count), exempt, scores (once over, else None).
        """
        n = self.players
        if type(seat) is not int or not 0 <= seat < n:
            raise IllegalAction(f"there is no seat {seat!r} in a {n}-player round")
        known: list[list[str | None]] = []
        for s in range(n):
            if s == seat:
                known.append([str(c) for c in self.hands[s]])
            else:
                pairs = zip(self.hands[s], self.known[s], strict=True)
                known.append([str(c) if k else None for c, k in pairs])
        return {
            "game": "scout",
            "players": n,
            "seat": seat,
            "round": self.round_no,
            "start": self.start,
            "phase": self.phase,
            "turn": self.to_move(),
            "hand": [str(c) for c in self.hands[seat]],
            "hand_sizes": [len(h) for h in self.hands],
            "active": [str(c) for c in self.active],
            "owner": self.owner,
            "captured": [len(c) for c in self.captured],
            "captured_cards": [[str(c) for c in pile] for pile in self.captured],
            "chips": list(self.chips),
            "scout_show": list(self.scout_show),
            "flipped": list(self.flipped),
            "known": known,
            "set_aside": len(self.set_aside),
            "exempt": self.exempt,
            "scores": self.round_scores() if self.phase == "over" else None,
        }

    # --- moves ------------------------------------------------------------------------
    def apply(self, seat: int, action: Action) -> list[Event]:
        """Apply ``action`` for ``seat``; IllegalAction (state unchanged) if it is not legal now."""
        why = self._why_illegal(seat, action)
        if why is not None:
            raise IllegalAction(f"seat {seat}: {action}: {why}")
        self._legal.clear()
        if isinstance(action, TurnChoice):
            return self._turn_choice(seat, action.flip)
        if isinstance(action, Show):
            return self._show(seat, action)
        if isinstance(action, Pass):
            return [Event("pass", seat, "passes"), self._end(self.owner)]
        if isinstance(action, Scout):
            events = [self._scout(seat, action)]
            if self.players == 2:
                if not self._can_act(seat):
                    events.append(self._end(self.owner))
                return events
            return events + self._pass_turn(seat)
        assert isinstance(action, ScoutShow)
        self.scout_show[seat] = False
        events = [self._scout(seat, action.scout, " with the Scout & Show chip")]
        return events + self._show(seat, action.show)

    def _why_illegal(self, seat: int, action: Any) -> str | None:
        """Why ``action`` is not legal for ``seat`` now, or None if it is."""
        n = self.players
        if type(seat) is not int or not 0 <= seat < n:
            return f"there is no seat {seat!r} in a {n}-player round"
        if self.phase == "over":
            return "the round is over"
        if not isinstance(action, (TurnChoice, Show, Scout, ScoutShow, Pass)):
            return "not a SCOUT action"
        if self.phase == "turn_choice":
            if not isinstance(action, TurnChoice):
                waiting = [s for s, f in enumerate(self.flipped) if f is None]
                return f"every seat first chooses flip or keep (waiting for seats {waiting})"
            if self.flipped[seat] is not None:
                return "this seat has already chosen flip or keep"
            return None
        if isinstance(action, TurnChoice):
            return "the whole hand can only be turned before the first play"
        if seat != self.turn:
            return f"it is seat {self.turn}'s turn"
        if isinstance(action, Pass):
            if not self.config.voluntary_pass and not self.stuck(seat):
                return "there is no pass (only two players with the option voluntary_pass)"
            return None
        hand = self.hands[seat]
        ups = [c.up for c in hand]
        if isinstance(action, Show):
            return _show_error(ups, action, strength([c.up for c in self.active]))
        if isinstance(action, ScoutShow):
            if n == 2:
                return "there is no Scout & Show with two players"
            if not self.scout_show[seat]:
                return "the Scout & Show chip is already used this round"
            why = self._scout_error(seat, action.scout)
            if why is not None:
                return why
            scout = action.scout
            reduced = self.active[1:] if scout.end == "L" else self.active[:-1]
            new_ups = ups[: scout.pos] + [scout.value] + ups[scout.pos :]
            return _show_error(new_ups, action.show, strength([c.up for c in reduced]))
        return self._scout_error(seat, action)

    def _scout_error(self, seat: int, scout: Scout) -> str | None:
        active = self.active
        if not active:
            return "there is no active set to scout from"
        if self.players == 2 and self.chips[seat] == 0:
            return "no Scout chips left"
        if scout.end not in ("L", "R"):
            return "the end must be L or R"
        if scout.end == "R" and len(active) == 1:
            return "a one-card set is scouted from its left end (L)"
        card = active[0] if scout.end == "L" else active[-1]
        if type(scout.value) is not int or scout.value not in card:
            return f"the scouted card {card} has no value {scout.value!r}"
        if type(scout.pos) is not int or not 0 <= scout.pos <= len(self.hands[seat]):
            return f"insertion point must be 0..{len(self.hands[seat])}"
        return None

    def _turn_choice(self, seat: int, flip: bool) -> list[Event]:
        self.flipped[seat] = flip
        if flip:
            self.hands[seat] = [c.turned() for c in reversed(self.hands[seat])]
            self.known[seat].reverse()
            events = [Event("flip", seat, "turns their whole hand around", hand=True)]
        else:
            events = [Event("keep", seat, "keeps their hand as dealt", hand=True)]
        if all(f is not None for f in self.flipped):
            self.phase = "play"
            self.turn = self.start
            events.append(Event("start", self.start, "starts the play"))
        return events

    def _show(self, seat: int, show: Show) -> list[Event]:
        hand = self.hands[seat]
        cards = hand[show.first : show.last + 1]
        del hand[show.first : show.last + 1]
        del self.known[seat][show.first : show.last + 1]
        beaten = self.active
        self.captured[seat].extend(beaten)
        self.active = cards
        self.owner = seat
        text = f"shows {describe_show(cards)}"
        if beaten:
            text += f", captures {len(beaten)} card{'s' if len(beaten) != 1 else ''}"
        s = strength([c.up for c in cards])
        shape = "single" if s is None or s[0] == 1 else "set" if s[1] else "run"
        events = [Event("show", seat, text, cards=[str(c) for c in cards], shape=shape, count=len(beaten))]
        if not hand:
            self.phase = "over"
            self.turn = None
            events.append(Event("end", seat, "empties their hand: the round is over", spared=False))
            return events
        return events + self._pass_turn(seat)

    def _scout(self, seat: int, scout: Scout, how: str = "") -> Event:
        owner = self.owner
        card = self.active.pop(0 if scout.end == "L" else -1)
        if card.up != scout.value:
            card = card.turned()
        self.hands[seat].insert(scout.pos, card)
        self.known[seat].insert(scout.pos, True)
        side = "left" if scout.end == "L" else "right"
        text = f"scouts {card} from the {side} end of seat {owner}'s set{how}, inserts it at {scout.pos}"
        if self.players == 2:
            self.chips[seat] -= 1
            text += f", pays a Scout chip ({self.chips[seat]} left) and moves again"
        elif owner is not None:
            self.chips[owner] += 1
            text += f"; seat {owner} gets a Scout chip"
        if not self.active:
            text += "; the table is empty"
        return Event("scout", seat, text, cards=[str(card)], end=scout.end, pos=scout.pos, target=owner,
                     chips=self.chips[seat] if self.players == 2 else None, both=bool(how),
                     empty=not self.active)

    def _pass_turn(self, seat: int) -> list[Event]:
        """Move the turn on after ``seat``'s turn, ending the round if nobody beat the set."""
        nxt = (seat + 1) % self.players
        if self.players > 2 and nxt == self.owner:
            return [self._end(nxt)]
        self.turn = nxt
        if self.players == 2 and not self._can_act(nxt):
            return [self._end(self.owner)]
        return []

    def _end(self, owner: int | None) -> Event:
        """End the round because nobody could or would beat ``owner``'s set."""
        self.phase = "over"
        self.turn = None
        self.exempt = owner
        if owner is None:  # a pass before any show
            return Event("end", None, "the round is over")
        return Event("end", owner, "nobody beat their set: the round is over, no hand penalty", spared=True)

    # --- plain data -------------------------------------------------------------------
    def snapshot(self) -> dict[str, Any]:
        """The whole position as canonical plain data (captured piles sorted, face down)."""
        return {
            "config": self.config.to_dict(),
            "seed": self.seed.hex(),
            "round": self.round_no,
            "phase": self.phase,
            "turn": self.turn,
            "flipped": list(self.flipped),
            "hands": [[str(c) for c in h] for h in self.hands],
            "known": [list(k) for k in self.known],
            "active": [str(c) for c in self.active],
            "owner": self.owner,
            "captured": [sorted(_face_down(c) for c in pile) for pile in self.captured],
            "chips": list(self.chips),
            "scout_show": list(self.scout_show),
            "set_aside": [str(c) for c in self.set_aside],
            "exempt": self.exempt,
        }

    def digest(self) -> str:
        return snapshot_digest(self.snapshot())

    @classmethod
    def from_snapshot(cls, data: Any) -> State:
        """The position described by ``data`` (a ``snapshot()``); ParseError if malformed.

        Any set of distinct cards of the deck in play is accepted (not necessarily all of them),
        so tests can set up small positions. Captured piles may be given in any order.
        """
        return _load(data)

    def __repr__(self) -> str:
        return f"<scout.State round {self.round_no} {self.phase} turn={self.to_move()}>"


def _show_error(ups: list[int], show: Show, target: Strength | None) -> str | None:
    first, last = show.first, show.last
    if type(first) is not int or type(last) is not int or not 0 <= first <= last < len(ups):
        return f"the hand has positions 0..{len(ups) - 1}"
    s = strength(ups[first : last + 1])
    if s is None:
        return "those cards are neither a set nor a run"
    if target is not None and not s > target:
        return "not stronger than the active set"
    return None


def _face_down(card: Card) -> str:
    a, b = card.pair
    return f"{a}/{b}"


# --- loading a snapshot -------------------------------------------------------------------
_HEX = re.compile(r"(?:[0-9a-f]{2})*")
_KEYS = frozenset(
    (
        "config",
        "seed",
        "round",
        "phase",
        "turn",
        "flipped",
        "hands",
        "known",
        "active",
        "owner",
        "captured",
        "chips",
        "scout_show",
        "set_aside",
        "exempt",
    )
)


def _fail(why: str) -> ParseError:
    return ParseError(f"bad SCOUT snapshot: {why}")


def _int(value: Any, name: str, lo: int, hi: int | None = None) -> int:
    if type(value) is not int or value < lo or (hi is not None and value > hi):
        raise _fail(f"{name} must be an integer in {lo}..{'' if hi is None else hi}, not {value!r}")
    return value


def _seat_or_none(value: Any, name: str, n: int) -> int | None:
    return None if value is None else _int(value, name, 0, n - 1)


def _list(value: Any, name: str, length: int | None = None) -> list[Any]:
    if type(value) is not list or (length is not None and len(value) != length):
        size = "" if length is None else f" of {length}"
        raise _fail(f"{name} must be a list{size}")
    return value


def _cards(value: Any, name: str) -> list[Card]:
    out = []
    for text in _list(value, name):
        try:
            out.append(parse_card(text))
        except ParseError as e:
            raise _fail(f"{name}: {e}") from None
    return out


def _load(data: Any) -> State:
    if type(data) is not dict:
        raise _fail("expected a map")
    if set(data) != _KEYS:
        missing = sorted(_KEYS - set(data))
        unknown = sorted(map(str, set(data) - _KEYS))
        raise _fail(f"missing keys {missing}, unknown keys {unknown}")
    config = Config.from_dict(data["config"])
    n = config.players
    seed = data["seed"]
    if type(seed) is not str or not _HEX.fullmatch(seed):
        raise _fail("seed must be lowercase hex")
    round_no = _int(data["round"], "round", 0)
    phase = data["phase"]
    if phase not in PHASES:
        raise _fail(f"phase must be one of {PHASES}")
    flipped = _list(data["flipped"], "flipped", n)
    if any(f is not None and type(f) is not bool for f in flipped):
        raise _fail("flipped holds null, true or false per seat")
    if (phase == "turn_choice") != (None in flipped):
        raise _fail("the turn_choice phase lasts exactly while some seat is undecided")
    turn = _seat_or_none(data["turn"], "turn", n)
    if (turn is not None) != (phase == "play"):
        raise _fail("turn is a seat in the play phase and null otherwise")
    hands = [_cards(h, "hands") for h in _list(data["hands"], "hands", n)]
    known = _list(data["known"], "known", n)
    for h, k in zip(hands, known, strict=True):
        if type(k) is not list or len(k) != len(h) or any(type(x) is not bool for x in k):
            raise _fail("known holds one true/false per card of each hand")
    active = _cards(data["active"], "active")
    if active and strength([c.up for c in active]) is None:
        raise _fail("the active set is neither a set nor a run")
    owner = _seat_or_none(data["owner"], "owner", n)
    if active and owner is None:
        raise _fail("an active set has an owner")
    captured = [_cards(c, "captured") for c in _list(data["captured"], "captured", n)]
    max_chips = TWO_PLAYER_CHIPS if n == 2 else None
    chips = [_int(c, "chips", 0, max_chips) for c in _list(data["chips"], "chips", n)]
    scout_show = _list(data["scout_show"], "scout_show", n)
    if any(type(x) is not bool or (x and n == 2) for x in scout_show):
        raise _fail("scout_show holds true/false per seat (all false with two players)")
    set_aside = _cards(data["set_aside"], "set_aside")
    exempt = _seat_or_none(data["exempt"], "exempt", n)
    if exempt is not None and phase != "over":
        raise _fail("only a finished round has an exempt seat")
    everything = [c.pair for c in active + set_aside]
    for pile in hands + captured:
        everything.extend(c.pair for c in pile)
    if len(set(everything)) != len(everything):
        raise _fail("a card appears twice")
    extra = set(everything) - set(deck_in_play(n))
    if extra:
        raise _fail(f"cards not in play with {n} players: {sorted(extra)}")
    state = State.__new__(State)
    state.config = config
    state.seed = bytes.fromhex(seed)
    state.round_no = round_no
    state.start = round_no % n
    state.phase = phase
    state.turn = turn
    state.flipped = list(flipped)
    state.hands = hands
    state.known = [list(k) for k in known]
    state.active = active
    state.owner = owner
    state.captured = [sorted(Card(*c.pair) for c in pile) for pile in captured]
    state.chips = chips
    state.scout_show = list(scout_show)
    state.set_aside = set_aside
    state.exempt = exempt
    state.hidden = False
    state._legal = {}
    return state
