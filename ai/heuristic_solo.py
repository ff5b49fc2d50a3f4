"""The rule-based SOLO player: a sensible casual player (docs/ai.md, "The heuristic bots").

Every candidate play is scored from what the observation shows (the bot's own hand, the
hand sizes, the direction, the pending penalty) and the best one is taken. The score is

* ``100 x`` how many cards the play takes off the hand (for a Swap or a Pass hands: the
  hand size it leaves minus the hand size it brings), so shedding more always comes first;
* a cost for spending a black card while the hand is still long (kept for later);
* bonuses for Skip / Draw 2 / Wild Draw 4 / Reverse aimed at a next player close to going
  out, for shedding high-value cards, and for leaving in force a colour the hand can follow;
* for a Gift: a target close to going out, and no black card given away.

Penalties, Protection windows, SOLO calls and catches follow fixed rules (see ``choose``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from cardtable.ai.catches import genuine_catches
from cardtable.engine.shuffle import Stream
from cardtable.engine.solo.actions import Play, Simple
from cardtable.engine.solo.cards import Card, parse_card

WIN = 1_000_000.0
PER_CARD = 100.0  # one card more or less in the hand
KEEP_BLACK = 30.0  # the cost of spending a black card while 3+ cards stay in the hand
KEEP_PROTECTION = 20.0  # Protection is kept a little more eagerly still
FOLLOW = 4.0  # per card of the hand that fits on the colour left in force
POINTS = 0.3  # per point of value shed
LONG_HAND = 3  # black cards are spent freely once the hand is shorter than this
DRAW_SCORE = -PER_CARD  # drawing one card
BIG_PENALTY = 4  # a pending penalty this large is cancelled with a Protection
GIVE_SHORT = 30.0  # per point of threat of the hand a Swap or Pass hands gives away
SMALL_HAND = 3  # at most this many cards: protect against a Skip or any penalty


def _threat(size: int) -> int:
    """How close a seat with ``size`` cards is to going out: 3 for one card, 0 for 4+."""
    return max(0, 4 - size)


class View:
    """The parts of a SOLO observation the rules of thumb look at."""

    def __init__(self, obs: dict[str, Any]) -> None:
        self.me: int = obs["seat"]
        self.n: int = obs["players"]
        self.direction: int = obs["direction"]
        self.hand: list[Card] = [parse_card(t) for t in obs["hand"]]
        self.sizes: list[int] = list(obs["hand_sizes"])
        self.penalty: int = obs["penalty"]
        self.react: dict[str, Any] | None = obs["react"]
        drawn = obs.get("drawn")
        self.drawn: Card | None = parse_card(drawn) if isinstance(drawn, str) else None
        self.next = (self.me + self.direction) % self.n
        self.prev = (self.me - self.direction) % self.n


# --- the two entry points -------------------------------------------------------------------
def choose(obs: dict[str, Any], legal: Sequence[Any], rng: Stream) -> Any:
    """The action for the seat the game waits for: always one of ``legal``."""
    meta = _meta(obs, legal)
    if meta is not None:
        return meta
    view = View(obs)
    react = view.react
    if react is not None and view.me in react["pending"]:
        return _protect_or_decline(view, legal, rng)
    words = {str(a): a for a in legal if isinstance(a, Simple)}
    plays = [a for a in legal if isinstance(a, Play)]
    if "keep" in words:  # the card just drawn fits
        keep_score = _keep_score(view)
        return _best([*plays, words["keep"]],
                     lambda a: keep_score if a is words["keep"] else _score(view, a), rng)
    if view.penalty and "draw" in words:
        return _answer_penalty(view, plays, words["draw"], rng)
    moves = [*plays, words["draw"]] if "draw" in words else plays
    if not moves:
        return legal[0]
    return _best(moves, lambda a: DRAW_SCORE if isinstance(a, Simple) else _score(view, a), rng)


def react(obs: dict[str, Any], legal: Sequence[Any], rng: Stream) -> Any | None:
    """An out-of-turn action (late call, catch, jump-in) or None."""
    meta = _meta(obs, legal)
    if meta is not None:
        return meta
    view = View(obs)
    if view.react is not None and view.me in view.react["pending"]:
        return None  # decided when the window waits for this seat (``choose``)
    jumps = [a for a in legal if isinstance(a, Play) and a.card.rank != "prot"]
    if not jumps:
        return None
    best = _best(jumps, lambda a: _score(view, a), rng)
    return best if _score(view, best) > 0 else None


# --- calls and catches ----------------------------------------------------------------------
def _meta(obs: dict[str, Any], legal: Sequence[Any]) -> Any | None:
    """A late SOLO call of our own, else a catch of a seat whose call is missing, else None.

    A catch is only ever aimed at a seat the observation shows with an uncalled open window
    (the first such, when several are open: docs/rules.md 1.8.17), so it is never a false catch.
    """
    for a in legal:
        if isinstance(a, Simple) and a.word == "solo":
            return a
    catches = genuine_catches(obs, legal)
    return catches[0] if catches else None


# --- scoring a play -------------------------------------------------------------------------
def _rest(hand: list[Card], play: Play) -> list[Card]:
    rest = list(hand)
    for c in play.cards + play.gift:
        rest.remove(c)
    return rest


def _score(view: View, play: Play) -> float:
    """How good ``play`` is for ``view``'s seat (higher is better; see the module doc)."""
    rest = _rest(view.hand, play)
    bonus = 1.0 if play.call else 0.0  # always the variant with the SOLO call
    if not rest:
        return WIN + bonus
    card, top = play.card, play.top
    rank = card.rank
    sizes = view.sizes
    if rank == "swap" and play.target is not None:
        after = sizes[play.target]
    elif rank == "pass":
        after = sizes[view.prev]
    else:
        after = len(rest)
    score = PER_CARD * (len(view.hand) - after) + bonus
    score += POINTS * sum(c.points for c in play.cards)
    if card.black and len(rest) >= LONG_HAND:
        score -= KEEP_BLACK + (KEEP_PROTECTION if rank == "prot" else 0.0)
    threat_next = _threat(sizes[view.next])
    two = view.n == 2
    if rank == "skip":
        score += 25.0 if two else 5.0 + 15.0 * threat_next
    elif rank == "rev":
        score += 25.0 if two else 15.0 * (threat_next - _threat(sizes[view.prev]))
    elif rank == "d2":
        score += 8.0 + 20.0 * threat_next
    elif rank == "wd4":
        score += 10.0 + 25.0 * threat_next
    elif rank == "gift" and play.target is not None:
        score += _gift_bonus(view, play)
    elif rank == "swap" and play.target is not None:
        # The target moves next with our hand: never hand a short one over.
        score += _target_bonus(view, play.target) - GIVE_SHORT * _threat(len(rest))
    elif rank == "pass":
        score += 10.0 * threat_next + 3.0 * (len(rest) - sizes[view.next])
        score -= GIVE_SHORT * _threat(len(rest))
    if rank not in ("swap", "pass"):
        # (The cards a Gift gives away count as kept here, so only their value picks them.)
        score += FOLLOW * _followers(rest + list(play.gift), play.colour or top.colour, top)
    return score


def _followers(rest: list[Card], colour: str | None, top: Card) -> int:
    """Cards of ``rest`` that would fit if ``top`` stayed on the pile with ``colour`` in force."""
    return sum(1 for c in rest
               if c.black or c.colour == colour or (not top.black and c.rank == top.rank))


def _target_bonus(view: View, target: int) -> float:
    """Prefer hurting the seat closest to going out, then the shorter hand."""
    return 15.0 * _threat(view.sizes[target]) - 0.1 * view.sizes[target]


def _gift_bonus(view: View, play: Play) -> float:
    assert play.target is not None
    score = _target_bonus(view, play.target)
    for c in play.gift:
        score += POINTS * c.points  # the highest-value cards leave first
        if c.black:
            score -= 40.0  # a black card always fits: never hand one to an opponent
        elif c.rank in ("d2", "skip"):
            score -= 10.0  # nor a weapon
    return score


def _keep_score(view: View) -> float:
    """Keeping the drawn card: better than playing a Protection while the hand is long."""
    if view.drawn is not None and view.drawn.rank == "prot" and len(view.hand) > LONG_HAND:
        return WIN / 2  # above any play of it
    return 0.0


# --- penalties and Protection windows --------------------------------------------------------
def _answer_penalty(view: View, plays: list[Play], draw: Simple, rng: Stream) -> Any:
    """Stack if possible; else protect against a large penalty (or with a short hand); else draw."""
    stacks = [p for p in plays if p.card.rank in ("d2", "wd4")]
    if stacks:
        return _best(stacks, lambda a: _score(view, a), rng)
    protects = [p for p in plays if p.card.rank == "prot"]
    if protects and (view.penalty >= BIG_PENALTY or len(view.hand) <= SMALL_HAND):
        return _best(protects, lambda a: _score(view, a), rng)
    return draw


def _protect_or_decline(view: View, legal: Sequence[Any], rng: Stream) -> Any:
    """The Protection window waits for us: protect only when the effect would hurt."""
    react = view.react
    assert react is not None
    plays = [a for a in legal if isinstance(a, Play)]
    protects = [p for p in plays if p.card.rank == "prot"]
    jumps = [p for p in plays if p.card.rank != "prot"]
    decline = next((a for a in legal if isinstance(a, Simple) and a.word == "decline"), None)
    kind = react["kind"]
    if kind == "skip" and jumps:  # the identical Skip: shed it and skip our next player
        return _best(jumps, lambda a: _score(view, a), rng)
    if protects and _hurts(view, react):
        return _best(protects, lambda a: _score(view, a), rng)
    if decline is not None:
        return decline
    return legal[0]


def _hurts(view: View, react: dict[str, Any]) -> bool:
    """Whether the Skip, Swap, Gift or Pass hands of the open window would hurt us."""
    mine_if_protected = len(view.hand) - 1
    kind = react["kind"]
    if kind == "skip":
        return len(view.hand) <= SMALL_HAND
    if kind == "gift":
        return True  # two more cards, and it may be the giver's last two
    if kind == "swap":
        return int(view.sizes[react["by"]]) > mine_if_protected
    # Pass hands: we would get the hand of the nearest seat before us that passes.
    seat = (view.me - view.direction) % view.n
    while seat in react["protected"] and seat != view.me:
        seat = (seat - view.direction) % view.n
    return view.sizes[seat] > mine_if_protected


# --- choosing --------------------------------------------------------------------------------
def _best(options: Sequence[Any], score: Callable[[Any], float], rng: Stream) -> Any:
    """The option with the highest score; ties broken by the bot's own stream."""
    scored = [(score(a), a) for a in options]
    top = max(s for s, _ in scored)
    ties = [a for s, a in scored if s >= top - 1e-9]
    return ties[0] if len(ties) == 1 else ties[rng.below(len(ties))]
