"""Which SOLO seats drew because no card fitted, read from one seat's successive observations.

A bot is asked to act (or to jump in) at nearly every step of a SOLO round, so two of its
observations in a row are mostly one move apart. When the seat the game waited for, with no
penalty on it and no drawn card in hand, has one card more and the discard pile is unchanged,
it drew at its turn: under the heuristic's play it held no card that fitted the top card and
the colour in force but perhaps a Swap or a Pass hands, which it keeps when they would bring it
a bigger hand (a clue). From then on every unseen card the seat gains (a later draw, a
penalty, a Gift) may be one that fits, and every card it plays that would have fitted must be
one of those: the clue's ``budget`` counts how many of its cards may fit now (ai/_infer_solo.pxi
weighs the search's samples by it). A Swap, Pass hands or Gift on the table, a reshuffle of
the discard pile or a new round drops every clue (the hands no longer are what the clues
describe); a clue whose budget runs out (the seat played more fitting cards than it drew)
is dropped too. Only public information is read: hand sizes, the discard pile, the top card,
the colour in force, whose turn it is.
"""

from __future__ import annotations

from typing import Any

Clue = dict[str, Any]
COLOURS = "RGBY"
RESETS = ("swap", "pass", "gift")
"""Plays after which a hand is no longer the one its clues describe."""


def _colour(card: str) -> str | None:
    """A card's colour letter, or None for a black card (wild, wd4, pass)."""
    if card.startswith("prot"):
        return card[4:]
    return card[0] if card[0] in COLOURS else None


def _rank(card: str) -> str:
    if card.startswith("prot"):
        return "prot"
    return card[1:] if card[0] in COLOURS else card


def fits(card: str, top: str, colour: str | None) -> bool:
    """Whether ``card`` could have been played on ``top`` with ``colour`` in force: the
    engine's rule as far as a clue needs it (a black card always; else the colour or the
    symbol)."""
    own = _colour(card)
    if _rank(card) in ("swap", "pass"):
        return False  # a seat that drew may have kept these (ai/_infer_solo.pxi)
    return own is None or colour is None or own == colour or _rank(card) == _rank(top)


Move = tuple[int, int, list[str], str | None, str | None]
"""(seat, unseen cards it gained, cards it laid, and when it drew at its turn for want of a
card that fits: the top card and the colour it faced, else None, None)."""


class SoloClueReader:
    """Feed it every observation of one seat (``see``); ``clues`` is the list so far."""

    def __init__(self, seat: int) -> None:
        self.seat = seat
        self.last: dict[str, Any] | None = None
        self.clues: list[Clue] = []

    def see(self, obs: dict[str, Any]) -> list[Clue]:
        """Take in an observation (the seat's own); the clues that hold."""
        last, self.last = self.last, obs
        if last is None or last["round"] != obs["round"]:
            self.clues = []
            return self.clues
        old, new = last["discard"], obs["discard"]
        laid = new[len(old):]
        moves = None
        if len(new) >= len(old) and new[:len(old)] == old and not any(_rank(c) in RESETS for c in laid):
            moves = _one_move(last, obs, laid)
            if moves is None and last["to_move"] == self.seat:
                moves = _round_trip(last, obs, laid)
        if moves is None:  # a reshuffle, a hand that changed owner, or moves this cannot follow
            self.clues = []
            return self.clues
        for seat, gained, played, top, colour in moves:
            for clue in self.clues:
                if clue["seat"] == seat:
                    clue["budget"] += gained - sum(fits(c, clue["top"], clue["colour"]) for c in played)
            if top is not None and seat != self.seat:
                self.clues.append({"seat": seat, "top": top, "colour": colour,
                                   "budget": gained - sum(fits(c, top, colour) for c in played)})
            self.clues = [c for c in self.clues if c["budget"] >= 0]
        return self.clues


def _changes(last: dict[str, Any], obs: dict[str, Any]) -> dict[int, int]:
    return {s: obs["hand_sizes"][s] - last["hand_sizes"][s] for s in range(obs["players"])
            if obs["hand_sizes"][s] != last["hand_sizes"][s]}


def _free_turn(last: dict[str, Any], seat: int) -> bool:
    """``seat`` was to play at its own turn with no penalty, no drawn card, no open window."""
    return (last["to_move"] == seat and last["turn"] == seat and last["react"] is None
            and not last["penalty"] and not last["drawn"])


def _one_move(last: dict[str, Any], obs: dict[str, Any], laid: list[str]) -> list[Move] | None:
    """One seat's move between the two observations (what an observer asked at every step
    sees, as in the anniversary edition with its jump-ins), or None."""
    changes = _changes(last, obs)
    if not changes and not laid:
        return []
    if len(changes) != 1:
        return None
    (seat, delta), = changes.items()
    if laid and obs["laid_by"] != seat:
        return None
    gained = delta + len(laid)
    drew = gained == 1 and _free_turn(last, seat)
    return [(seat, max(0, gained), laid, last["top"] if drew else None, last["colour"] if drew else None)]


def _round_trip(last: dict[str, Any], obs: dict[str, Any], laid: list[str]) -> list[Move] | None:
    """Every seat's move from this seat's turn to its next one, when each laid one plain
    number card or drew one (kept or played), so that the order of play and each seat's top
    card are known (the classic edition, where nobody is asked out of turn); else None."""
    n, me, step = obs["players"], last["to_move"], last["direction"]
    if obs["to_move"] != me or obs["direction"] != step or any(not _rank(c).isdigit() for c in laid):
        return None
    changes = _changes(last, obs)
    top, colour = last["top"], last["colour"]
    moves: list[Move] = []
    cards = iter(laid)
    for k in range(n):
        seat = (me + k * step) % n
        delta = changes.get(seat, 0)
        if delta not in (-1, 0, 1):
            return None
        played = [] if delta == 1 else [next(cards, "")]
        if played == [""]:
            return None
        drew = delta >= 0
        moves.append((seat, 1 if drew else 0, played, top if drew else None, colour if drew else None))
        if played:
            top, colour = played[0], _colour(played[0])
    if next(cards, None) is not None:
        return None
    return moves
