"""The deal and the draws as chance events, card by card (for the OpenSpiel games).

The engine deals from a seed; OpenSpiel wants every random event to be a chance node with
its outcomes and probabilities. These classes deal a round one card at a time from chance
outcomes and build the engine's round state from the result, and put the cards a SOLO
action will draw on top of the draw pile as chance chooses them. A reshuffle of the discard
pile is done here, just before the action that needs it, with the same cards as the
engine's own reshuffle would use: the engine's seeded shuffle is never consulted.
"""

from __future__ import annotations

import copy
from collections import Counter
from typing import Any

from cardtable.engine.scout import State as ScoutState
from cardtable.engine.scout.cards import DECK, Card, deck_in_play
from cardtable.engine.solo import State as SoloState
from cardtable.engine.solo.actions import DRAW, Catch
from cardtable.engine.solo.cards import FACES, deck

Outcomes = list[tuple[int, float]]


def _outcomes(counts: dict[int, int]) -> Outcomes:
    total = sum(counts.values())
    return [(k, c / total) for k, c in sorted(counts.items()) if c]


def _take(counts: dict[int, int], outcome: int) -> None:
    if counts.get(outcome, 0) <= 0:
        raise ValueError(f"chance outcome {outcome} is not possible now")
    counts[outcome] -= 1


def _elements(counts: dict[int, int]) -> list[Any]:
    return [FACES[k] for k, c in sorted(counts.items()) for _ in range(c)]


class SoloDeal:
    """A SOLO round dealt by chance: 8 cards a seat from left of the dealer, then cards
    turned up until a number card is on top. Outcomes are face indices."""

    kind = "deal"

    def __init__(self, config: Any, round_no: int) -> None:
        self.config = config
        self.round_no = round_no
        self.counts: dict[int, int] = dict(Counter(c.index for c in deck(config.gifts, config.protection)))
        self.hands: list[list[Any]] = [[] for _ in range(config.players)]
        self.turned: list[Any] = []
        self.dealt = 0

    def outcomes(self) -> Outcomes:
        return _outcomes(self.counts)

    def apply(self, outcome: int) -> None:
        _take(self.counts, outcome)
        card = FACES[outcome]
        n = self.config.players
        if self.dealt < self.config.hand_size * n:
            self.hands[(self.round_no % n + 1 + self.dealt) % n].append(card)
            self.dealt += 1
        else:
            self.turned.append(card)

    def done(self) -> bool:
        if self.dealt < self.config.hand_size * self.config.players:
            return False
        return bool(self.turned and self.turned[-1].number) or not any(self.counts.values())

    def state(self) -> Any:
        n = self.config.players
        top = self.turned[-1] if self.turned else None
        number = top is not None and bool(top.number)
        return SoloState.from_snapshot({
            "config": self.config.to_dict(), "seed": "", "round": self.round_no,
            "hands": [[c.text for c in h] for h in self.hands],
            "draw": [c.text for c in _elements(self.counts)],
            "discard": [c.text for c in self.turned],
            "turn": (self.round_no % n + 1) % n,
            "colour": top.colour if number and top is not None else None,
            "jump": number,
        })

    @staticmethod
    def text(outcome: int) -> str:
        return FACES[outcome].text


def solo_cards_to_draw(state: Any, seat: int, action: Any) -> int:
    """How many cards applying ``action`` will draw (0 for most actions)."""
    missed = state.config.call == "with_play" and any(not w.called and w.seat != seat for w in state.windows)
    if not (missed or action == DRAW or isinstance(action, Catch)):
        return 0
    trial = copy.deepcopy(state)
    before, discard, reshuffles = len(trial.draw), len(trial.discard), trial.reshuffles
    trial.apply(seat, action)
    if trial.reshuffles == reshuffles:
        return before - len(trial.draw)
    return before + discard - 1 - len(trial.draw)


class SoloDraw:
    """The cards one SOLO action draws, chosen by chance from the draw pile, then (if it
    runs out) from the discard pile less its top card."""

    kind = "draw"

    def __init__(self, state: Any, count: int) -> None:
        self.state = state
        self.count = count
        self.pile: dict[int, int] = dict(Counter(c.index for c in state.draw))
        self.reshuffled: dict[int, int] = dict(Counter(c.index for c in state.discard[:-1]))
        self.in_pile = len(state.draw)
        self.picks: list[int] = []

    def outcomes(self) -> Outcomes:
        return _outcomes(self.pile if len(self.picks) < self.in_pile else self.reshuffled)

    def apply(self, outcome: int) -> None:
        _take(self.pile if len(self.picks) < self.in_pile else self.reshuffled, outcome)
        self.picks.append(outcome)

    def done(self) -> bool:
        return len(self.picks) >= self.count

    def arrange(self) -> None:
        """Put the chosen cards on top of the draw pile, first drawn last in the list."""
        state = self.state
        top = [FACES[k] for k in reversed(self.picks)]
        if self.count <= self.in_pile:
            state.stack(_elements(self.pile) + top)
        else:
            state.stack(_elements(self.reshuffled) + top, reshuffle=True)

    @staticmethod
    def text(outcome: int) -> str:
        return FACES[outcome].text


class ScoutDeal:
    """A SCOUT round dealt by chance, card by card from the start player, each outcome a card
    and the way up it lands: ``2 * k + up`` for card ``DECK[k]``, ``up`` 1 when the higher
    value is up. Two players: 22 cards of the 44, the other 22 are the next round's."""

    kind = "deal"

    def __init__(self, config: Any, round_no: int, pool: list[tuple[int, int]] | None = None,
                 aside: list[tuple[int, int]] | None = None) -> None:
        n = config.players
        self.aside = aside
        self.config = config
        self.round_no = round_no
        pairs = pool if pool is not None else deck_in_play(n)
        self.remaining = {DECK.index(p) for p in pairs}
        self.count = len(pairs) if n > 2 or pool is not None else len(pairs) // 2
        self.hands: list[list[Card]] = [[] for _ in range(n)]
        self.dealt = 0

    def outcomes(self) -> Outcomes:
        p = 1 / (2 * len(self.remaining))
        return [(2 * k + up, p) for k in sorted(self.remaining) for up in (0, 1)]

    def apply(self, outcome: int) -> None:
        k, up = divmod(outcome, 2)
        if k not in self.remaining:
            raise ValueError(f"chance outcome {outcome} is not possible now")
        self.remaining.discard(k)
        low, high = DECK[k]
        n = self.config.players
        self.hands[(self.round_no % n + self.dealt) % n].append(Card(high, low) if up else Card(low, high))
        self.dealt += 1

    def done(self) -> bool:
        return self.dealt >= self.count

    def state(self) -> Any:
        n = self.config.players
        return ScoutState.from_snapshot({
            "config": self.config.to_dict(), "seed": "", "round": self.round_no, "phase": "turn_choice",
            "turn": None, "flipped": [None] * n, "hands": [[str(c) for c in h] for h in self.hands],
            "known": [[False] * len(h) for h in self.hands], "active": [], "owner": None,
            "captured": [[] for _ in range(n)], "chips": [3 if n == 2 else 0] * n,
            "scout_show": [n > 2] * n, "exempt": None,
            "set_aside": [f"{a}/{b}" for a, b in (self.left() if self.aside is None else self.aside)],
        })

    def left(self) -> list[tuple[int, int]]:
        """The cards of the pool not dealt (set aside for the next round with 2 players)."""
        return [DECK[k] for k in sorted(self.remaining)]

    @staticmethod
    def text(outcome: int) -> str:
        k, up = divmod(outcome, 2)
        low, high = DECK[k]
        return f"{high}/{low}" if up else f"{low}/{high}"
