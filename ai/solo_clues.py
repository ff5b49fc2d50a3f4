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


WALK_LIMIT = 2000
"""Orders of play tried at most for one classic round (else no clue from it)."""
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
    """Every seat's moves from this seat's turn to its next one (the classic edition, where
    nobody is asked out of turn): the first order of play that explains the cards laid and
    every hand's change (each seat lays a card, takes a penalty and plays on, or draws and
    keeps or plays the card drawn; skips, reverses, Draw 2 and Wild Draw 4 as the rules say);
    None when none does. A seat that drew faced the top card and colour of that moment
    (unknown right after a wild card: no clue then)."""
    n, me = obs["players"], last["to_move"]
    target = [obs["hand_sizes"][s] - last["hand_sizes"][s] for s in range(n)]

    def lay(i: int, seat: int, step: int, penalty: int) -> tuple[int, int, int] | None:
        """The next seat, the direction and the penalty after ``seat`` laid laid[i]."""
        rank = _rank(laid[i])
        if rank in ("d2", "wd4"):
            return (seat + step) % n, step, penalty + (2 if rank == "d2" else 4)
        if penalty:
            return None
        if rank == "skip":
            return (seat + 2 * step) % n, step, 0
        if rank == "rev":
            return (seat if n == 2 else (seat - step) % n), -step, 0
        return (seat + step) % n, step, 0

    budget = [WALK_LIMIT]

    def walk(i: int, seat: int, step: int, penalty: int, top: str, colour: str | None,
             delta: list[int], moves: list[Move], turns: int) -> list[Move] | None:
        budget[0] -= 1
        if budget[0] < 0 or any(d > t + len(laid) - i for d, t in zip(delta, target, strict=True)):
            return None  # too long a search, or hands grown past what is left to lay could undo
        if turns and seat == me:
            done = i == len(laid) and delta == target and step == obs["direction"]
            return moves if done and penalty == obs["penalty"] else None
        if turns > 3 * n:
            return None
        if penalty:  # take it and play on, or stack
            taken = delta.copy()
            taken[seat] += penalty
            took: Move = (seat, penalty, [], None, None)
            found = walk(i, seat, step, 0, top, colour, taken, [*moves, took], turns)
            if found is not None or i == len(laid):
                return found
            after = lay(i, seat, step, penalty)
            if after is None:
                return None
            down = delta.copy()
            down[seat] -= 1
            return walk(i + 1, after[0], after[1], after[2], laid[i], _colour(laid[i]) or "?", down,
                        [*moves, (seat, 0, [laid[i]], None, None)], turns + 1)
        clue = (top, colour) if colour != "?" else (None, None)
        for drew in (0, 1):
            wild = i < len(laid) and _rank(laid[i]) in ("wild", "wd4")
            if i < len(laid) and (colour == "?" or wild or fits(laid[i], top, colour)):
                after = lay(i, seat, step, 0)
                if after is not None:
                    changed = delta.copy()
                    changed[seat] += drew - 1
                    move = (seat, drew, [laid[i]], *(clue if drew else (None, None)))
                    found = walk(i + 1, after[0], after[1], after[2], laid[i], _colour(laid[i]) or "?",
                                 changed, [*moves, move], turns + 1)
                    if found is not None:
                        return found
        kept = delta.copy()
        kept[seat] += 1
        move = (seat, 1, [], *clue)
        return walk(i, (seat + step) % n, step, 0, top, colour, kept, [*moves, move], turns + 1)

    if last["react"] is not None or last["drawn"]:
        return None
    return walk(0, me, last["direction"], last["penalty"], last["top"], last["colour"], [0] * n, [], 0)
