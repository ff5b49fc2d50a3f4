"""Learn from a round: the decisions where the search rates another move clearly better.

``review_round`` replays one round of a match (its config, seed and moves, as a log holds them)
and, at each decision of the reviewed seats, asks the search at a level (``ai/ismcts.py``) for
its value of every move it considers, from that seat's observation alone (what the seat could
see: the search samples the hidden cards itself, as the ``ismcts`` bot does). A decision is
flagged when the search's choice, the move it visits most, has a mean reward above the played
move's by more than ``threshold``.

Rewards are the search's, ``tanh(margin / scale)`` in -1..1 (docs/ai.md): 0.1 is a tenth of
the way from an even round to a clear win. Every root move gets at least ``FLOOR`` visits on
top of the level's iterations, so the played move is valued even if the search would hardly
look at it; a move visited a few times is valued roughly, so the threshold is a margin, not a
proof. Deterministic: each search is seeded from the match seed, the round, the step and the
seat. Calls and catches (SOLO), which the bot makes without searching, are not reviewed, nor
are decisions with one move, nor moves the search does not consider (``Review.unrated``).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from cardtable.ai.bots import bot_seed
from cardtable.ai.ismcts import LEVELS, IsmctsBot, parse_level
from cardtable.engine.errors import ParseError
from cardtable.engine.match import Match
from cardtable.engine.solo.actions import Play
from cardtable.engine.solo.slot_actions import SlotPlay

THRESHOLD = 0.1
"""How much higher (in the search's reward, -1..1) the search must rate its move to flag one."""
FLOOR = 10
"""Visits every move the search considers gets at least, so that each has a value."""


@dataclass(frozen=True)
class Flag:
    """A decision where the search prefers another move: ``better`` None is "not now"."""

    round_no: int  # from 0
    turn: int      # the move's number in its round, from 1
    step: int      # its index among the match's moves, from 0
    seat: int
    played: str
    better: str | None
    played_value: float
    better_value: float

    @property
    def cost(self) -> float:
        """The estimated reward lost by the played move."""
        return self.better_value - self.played_value


@dataclass
class Review:
    """One round reviewed: the flagged decisions, and how many were rated or could not be."""

    round_no: int
    seats: list[int]
    level: str
    threshold: float
    flags: list[Flag] = field(default_factory=list)
    rated: int = 0
    unrated: int = 0


def review_round(config: Any, seed: bytes, moves: Sequence[tuple[int, Any]], round_no: int,
                 seats: Iterable[int], level: str = "strong", threshold: float = THRESHOLD,
                 start: Match | None = None) -> Review:
    """Review round ``round_no`` (from 0) of the match ``moves`` play from ``config`` and ``seed``,
    for ``seats``, with the search at ``level`` (``review_level``).

    ``start``: the match as round ``round_no`` begins, where the seed does not deal it (hidden
    hands: the round as the audit opened it, seen by the reviewed seat: ``cli/hidden_rounds.py``);
    ``moves`` are then that round's, as actions its state applies (SOLO's on slots)."""
    level = review_level(level)
    seats = sorted(set(seats))
    raters = {s: IsmctsBot(bot_seed(seed, s), s, level) for s in seats}
    out = Review(round_no, seats, level, threshold)
    match = start if start is not None else Match(config, seed)
    turn = 0
    for step, (seat, action) in enumerate(moves):
        if match.round_no > round_no or match.is_over():
            break
        if match.round_no == round_no:
            turn += 1
            for s in set(match.actors()) & raters.keys():  # what each seat was shown (inference reads it)
                raters[s].see(match.observation(s))
            if seat in raters:
                _rate(match, raters[seat], (step, turn, seat, action), out)
        match.apply(seat, action)
    return out


def _rate(match: Match, rater: IsmctsBot, move: tuple[int, int, int, Any], out: Review) -> None:
    step, turn, seat, action = move
    played = played_text(match, action)
    rater.clues.note(played)
    if played == "solo" or played.startswith("catch:"):
        return
    waiting = match.to_move() == seat
    choices = [a for a in match.legal_actions(seat) if str(a) != "solo" and not str(a).startswith("catch:")]
    if waiting and len(choices) < 2:
        return
    obs = match.observation(seat)
    wait = not waiting and obs["game"] == "solo"  # SCOUT's only out-of-turn move is the hand's turn
    seed = search_seed(match.seed, match.round_no, step, seat)
    children = rater.rate(obs, wait, seed, FLOOR, len(choices) + 1)
    values = {text: mean for text, _, mean in children}
    value = values.get(played, values.get(played + "!"))  # the search plays a call with the card
    if value is None or not children:
        out.unrated += 1
        return
    out.rated += 1
    best, _, best_value = children[0]
    if best not in (played, played + "!") and best_value - value > out.threshold:
        out.flags.append(Flag(match.round_no, turn, step, seat, played, best, value, best_value))


def played_text(match: Match, action: Any) -> str:
    """A move as the search writes it: a SOLO play on slots (hidden hands) as the play of its cards."""
    if isinstance(action, str):
        return str(match.parse_action(action))
    if isinstance(action, SlotPlay):
        cards = getattr(match.state, "cards", {})  # SOLO's round on slots: the giver knows its gift
        gift = tuple(sorted(cards[s] for s in action.gift))
        return str(Play(action.cards, action.colour, action.target, gift, action.call))
    return str(action)


def review_level(level: str) -> str:
    """An ismcts level (``strong``, ``ismcts:strong``, ``1500+cpuct=1``) without its bot name;
    ParseError if it is not one, or is a time budget (a review must replay alike)."""
    name, _, rest = level.partition(":")
    level = (rest or "strong") if name == "ismcts" else level
    settings = parse_level(level)[1]
    searching = ", ".join(n for n in LEVELS if not parse_level(n)[1].get("learned"))
    if settings.get("seconds"):
        raise ParseError(f"the level {level!r} is a time budget: a review needs an iteration level "
                         f"({searching} or a number of iterations)")
    if settings.get("learned"):
        raise ParseError(f"the level {level!r} does not search: a review compares each move with a "
                         f"search's ({searching} or a number of iterations)")
    return level


def search_seed(seed: bytes, round_no: int, step: int, seat: int) -> int:
    """The seed of one review search: from the match seed, the round, the step and the seat."""
    text = f"\0{round_no}\0{step}\0{seat}".encode()
    return int.from_bytes(hashlib.sha256(b"cardtable/review\0" + bytes(seed) + text).digest()[:8], "big") >> 1
