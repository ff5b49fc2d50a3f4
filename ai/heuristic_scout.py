"""The rule-based SCOUT player: a sensible casual player (docs/ai.md, "The heuristic bots").

The core is a hand value ``hand_value(ups)``: the hand (its up values in order) cut into
adjacent groups (singles, sets, runs) so that the groups' values add up to the most, each
group valued at minus the cards it is likely to leave in the hand at the end, minus a turn
to play it. Longer groups, sets over runs and higher values are more likely to get out.
Every candidate move is then valued as what it gains now (cards captured, chips) plus the
value of the hand it leaves, plus a small bonus for owning a set (over a run) of high
value; the best wins. A voluntary pass (two-player option) is valued as the round ending
now: the whole hand counted, and the set's owner spared its hand.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import lru_cache
from typing import Any

from cardtable.engine.scout.actions import Pass, Scout, ScoutShow, Show, TurnChoice
from cardtable.engine.scout.cards import parse_card
from cardtable.engine.scout.state import Strength, spans, strength
from cardtable.engine.shuffle import Stream

TURN_COST = 0.35  # every group needs a turn to be shown
EMPTY_HAND = 8.0  # a show that empties the hand ends the round in our favour
OWNER_CHIP = 0.2  # the chip a scout hands to the set's owner (3-5 players)
OWN_SET_PER_CARD = 0.0  # long shows are not rewarded beyond the cards they shed: they feed captures
OWN_SET_KIND = 0.1  # ... a set more than a run
OWN_SET_VALUE = 0.02  # ... a high one more than a low one
SCOUT_SHOW_CHIP = 1.0  # what keeping the Scout & Show chip is worth early in the round
TWO_PLAYER_CHIP = 1.0  # a chip spent scouting in a 2-player round (it scores 1 at the end)
STUCK = 1.0  # 2 players: scouting and still unable to show
PASS_SPARES = 0.5  # per card of the set owner's hand that a voluntary pass spares it


def _shed_chance(count: int, is_set: bool, value: int) -> float:
    """How likely a group of ``count`` cards (a set or a run, valued by ``value``) gets shown."""
    if count == 1:
        return 0.10 + 0.05 * value
    if count == 2:
        return (0.55 if is_set else 0.45) + 0.03 * value
    if count == 3:
        return (0.85 if is_set else 0.80) + 0.01 * value
    return 0.95


def _group_value(count: int, is_set: bool, value: int) -> float:
    return -count * (1.0 - _shed_chance(count, is_set, value)) - TURN_COST


_MAX_GROUP = 16  # longer groups (never seen in play) are valued as this long
_TABLE: dict[bool, list[list[float]]] = {
    is_set: [[_group_value(k, is_set, v) if k else 0.0 for v in range(11)] for k in range(_MAX_GROUP + 1)]
    for is_set in (True, False)
}


@lru_cache(maxsize=65536)
def hand_value(ups: tuple[int, ...]) -> float:
    """The best sum of group values over the ways to cut ``ups`` into singles, sets and runs."""
    h = len(ups)
    sets, runs = _TABLE[True], _TABLE[False]
    best = [0.0] + [float("-inf")] * h
    for j in range(h):
        base = best[j]
        v = base + sets[1][ups[j]]
        if v > best[j + 1]:
            best[j + 1] = v
        if j + 1 == h:
            continue
        step = ups[j + 1] - ups[j]
        if step not in (-1, 0, 1):
            continue
        table = sets if step == 0 else runs
        i = j + 1
        while i < h and ups[i] - ups[i - 1] == step:
            low = ups[j] if step >= 0 else ups[i]
            v = base + table[min(i - j + 1, _MAX_GROUP)][low]
            if v > best[i + 1]:
                best[i + 1] = v
            i += 1
    return best[h]


def flipped(downs: Sequence[int]) -> tuple[int, ...]:
    """The up values of the hand turned around: the down values in reverse order."""
    return tuple(reversed(downs))


class View:
    """The parts of a SCOUT observation the rules of thumb look at."""

    def __init__(self, obs: dict[str, Any]) -> None:
        self.me: int = obs["seat"]
        self.n: int = obs["players"]
        hand = [parse_card(t) for t in obs["hand"]]
        self.ups = tuple(c.up for c in hand)
        self.downs = tuple(c.down for c in hand)
        self.active = tuple(parse_card(t).up for t in obs["active"])
        self.target: Strength | None = strength(self.active) if self.active else None
        self.chips: list[int] = list(obs["chips"])
        self.sizes: list[int] = list(obs["hand_sizes"])
        self.owner: int | None = obs["owner"]
        others = [s for k, s in enumerate(self.sizes) if k != self.me]
        self.shortest_other = min(others) if others else 0


# --- the two entry points -------------------------------------------------------------------
def choose(obs: dict[str, Any], legal: Sequence[Any], rng: Stream) -> Any:
    """The action for the seat the game waits for: always one of ``legal``."""
    view = View(obs)
    if any(isinstance(a, TurnChoice) for a in legal):
        return _turn_choice(view, legal)
    return _best(legal, lambda a: _value(view, a), rng)


def react(obs: dict[str, Any], legal: Sequence[Any], rng: Stream) -> Any | None:
    """Only the whole-hand turn is ever offered out of turn: decide it at once."""
    if any(isinstance(a, TurnChoice) for a in legal):
        return _turn_choice(View(obs), legal)
    return None


def _turn_choice(view: View, legal: Sequence[Any]) -> Any:
    """Turn the hand around when the turned hand is worth more (longer sets and runs)."""
    flip = hand_value(flipped(view.downs)) > hand_value(view.ups) + 1e-9
    wanted = [a for a in legal if isinstance(a, TurnChoice) and a.flip == flip]
    return wanted[0] if wanted else legal[0]


# --- valuing a move ---------------------------------------------------------------------------
def _show_value(view: View, ups: tuple[int, ...], first: int, last: int, captured: int) -> float:
    """Showing ``ups[first..last]`` from the hand ``ups``, capturing ``captured`` cards."""
    rest = ups[:first] + ups[last + 1:]
    shown = strength(ups[first:last + 1])
    assert shown is not None
    value = captured + hand_value(rest)
    if not rest:
        value += EMPTY_HAND
    count, kind, high = shown
    value += OWN_SET_PER_CARD * count + OWN_SET_KIND * kind + OWN_SET_VALUE * high
    return value


def _scouted(view: View, scout: Scout) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """The hand after ``scout`` and the active set it leaves."""
    ups = view.ups[:scout.pos] + (scout.value,) + view.ups[scout.pos:]
    reduced = view.active[1:] if scout.end == "L" else view.active[:-1]
    return ups, reduced


def _best_show(view: View, ups: tuple[int, ...], reduced: tuple[int, ...]) -> float | None:
    target = strength(reduced) if reduced else None
    values = [_show_value(view, ups, i, j, len(reduced)) for i, j in spans(ups, target)]
    return max(values) if values else None


def _value(view: View, action: Any) -> float:
    if isinstance(action, Show):
        return _show_value(view, view.ups, action.first, action.last, len(view.active))
    if isinstance(action, Scout):
        ups, reduced = _scouted(view, action)
        if view.n == 2:
            # The chip is spent and we move again: count the best show we could then make.
            after = _best_show(view, ups, reduced)
            stuck = hand_value(ups) - (STUCK if view.chips[view.me] <= 1 else STUCK / 2)
            return -TWO_PLAYER_CHIP + (stuck if after is None else max(after, stuck))
        return hand_value(ups) - OWNER_CHIP
    if isinstance(action, ScoutShow):
        ups, reduced = _scouted(view, action.scout)
        show = action.show
        chip = SCOUT_SHOW_CHIP * min(1.0, view.shortest_other / 5)
        return _show_value(view, ups, show.first, show.last, len(reduced)) - OWNER_CHIP - chip
    if isinstance(action, Pass):
        spared = view.sizes[view.owner] if view.owner is not None and view.owner != view.me else 0
        return -len(view.ups) - PASS_SPARES * spared
    return float("-inf")


def _best(options: Sequence[Any], score: Callable[[Any], float], rng: Stream) -> Any:
    """The option with the highest score; ties broken by the bot's own stream."""
    scored = [(score(a), a) for a in options]
    top = max(s for s, _ in scored)
    ties = [a for s, a in scored if s >= top - 1e-9]
    return ties[0] if len(ties) == 1 else ties[rng.below(len(ties))]
