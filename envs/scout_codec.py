"""SCOUT for learning agents: the token space of its actions and its observation vector.

Seats are relative (offset 0 is the observer, then seat order); hand positions are 0-based
from the left end as the hand lies, up to 45 cards (every card in play).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from cardtable.engine.scout.actions import Scout, ScoutShow, Show, TurnChoice
from cardtable.envs.layout import Layout, Norm

GAME = "scout"
SEATS = 5
MAX_HAND = 45
MAX_SET = 10

FLIP = 0
KEEP = 1
SHOW_FROM = 2  # + hand index: the first card of a show
SHOW_TO = SHOW_FROM + MAX_HAND  # + hand index: the last card of a show (ends the show)
SCOUT = SHOW_TO + MAX_HAND  # + end * 10 + value - 1: take the L/R end card with this value up
SCOUT_SHOW = SCOUT + 20  # the same, as the first part of a Scout & Show
INSERT = SCOUT_SHOW + 20  # + position 0..45: where the scouted card goes
PASS = None  # SCOUT has no out-of-turn chance to decline
NUM_TOKENS = INSERT + MAX_HAND + 1


def encode(action: Any, seat: int, players: int) -> tuple[int, ...]:
    """The token path of an engine action (``seat`` and ``players`` are not needed)."""
    if isinstance(action, TurnChoice):
        return (FLIP if action.flip else KEEP,)
    if isinstance(action, Show):
        return (SHOW_FROM + action.first, SHOW_TO + action.last)
    if isinstance(action, Scout):
        return _scout(SCOUT, action)
    assert isinstance(action, ScoutShow)
    show = action.show
    return (*_scout(SCOUT_SHOW, action.scout), SHOW_FROM + show.first, SHOW_TO + show.last)


def _scout(base: int, scout: Scout) -> tuple[int, int]:
    if scout.pos > MAX_HAND:
        raise ValueError(f"a hand of more than {MAX_HAND} cards cannot be encoded")
    return (base + (scout.end == "R") * 10 + scout.value - 1, INSERT + scout.pos)


def token_text(token: int) -> str:
    """A token in words, e.g. ``show from 3``, ``scout R 7``, ``insert at 0``."""
    if token in (FLIP, KEEP):
        return "flip" if token == FLIP else "keep"
    if token < SHOW_TO:
        return f"show from {token - SHOW_FROM}"
    if token < SCOUT:
        return f"show to {token - SHOW_TO}"
    if token < INSERT:
        k = (token - SCOUT) % 20
        what = "scout" if token < SCOUT_SHOW else "scout&show"
        return f"{what} {'LR'[k // 10]} {k % 10 + 1}"
    return f"insert at {token - INSERT}"


S, H = SEATS, MAX_HAND
LAYOUT = Layout([
    ("hands", (S, H, 20), "by offset and hand position: one-hot up value (1-10) then one-hot down value "
                          "(1-10); the observer's hand in full, other hands where a card is public "
                          "(it was scouted), else zero"),
    ("hand_sizes", (S,), "cards in each hand, by offset", Norm(45)),
    ("active", (MAX_SET, 20), "the active set, left to right: one-hot up value, one-hot down value"),
    ("owner", (S,), "one-hot by offset: the active set's owner"),
    ("captured", (S,), "cards each seat has captured this round", Norm(45)),
    ("chips", (S,), "Scout chips (received with 3-5 players, still held with 2)", Norm(10, 0, 10)),
    ("scout_show", (S,), "1 while that seat still has its Scout & Show chip"),
    ("turn", (S,), "one-hot by offset: the seat to move"),
    ("start", (S,), "one-hot by offset: the round's start player"),
    ("decided", (1,), "1 once the observer has made its whole-hand choice"),
    ("phase", (3,), "one-hot: whole-hand choice, play, over"),
    ("set_aside", (1,), "cards set aside this round (2 players)", Norm(45)),
    ("seated", (S,), "1 for each offset with a player"),
    ("totals", (S,), "running match totals, by offset", Norm(45, -5, 5)),
    ("round", (1,), "the round number, from 0", Norm(5)),
    ("asked", (3,), "the observer is asked: to move (must act), out of turn (never in SCOUT), "
                    "in the middle of a token path"),
    ("path", (NUM_TOKENS,), "count of each token in the path said so far for this action"),
])
_PHASES = ("turn_choice", "play", "over")


def _card(block: np.ndarray, text: str) -> None:
    up, _, down = text.partition("/")
    block[int(up) - 1] = 1
    block[10 + int(down) - 1] = 1


def features(obs: dict[str, Any], path: Sequence[int], asked: str) -> np.ndarray:
    """The observation vector of ``LAYOUT`` from an engine observation (``Match.observation``).

    Other seats' whole-hand choices are not encoded: they are made at the same moment.
    """
    vector, v = LAYOUT.new()
    me, n = obs["seat"], obs["players"]

    def rel(seat: int) -> int:
        return int((seat - me) % n)

    for seat, cards in enumerate(obs["known"]):
        for pos, text in enumerate(cards[:MAX_HAND]):
            if text is not None:
                _card(v["hands"][rel(seat), pos], text)
    for pos, text in enumerate(obs["active"][:MAX_SET]):
        _card(v["active"][pos], text)
    for seat in range(n):
        r = rel(seat)
        v["hand_sizes"][r] = obs["hand_sizes"][seat]
        v["captured"][r] = obs["captured"][seat]
        v["chips"][r] = obs["chips"][seat]
        v["scout_show"][r] = obs["scout_show"][seat]
        v["totals"][r] = obs["totals"][seat]
    if obs["owner"] is not None:
        v["owner"][rel(obs["owner"])] = 1
    if obs["phase"] == "play" and obs["turn"] is not None:
        v["turn"][rel(obs["turn"])] = 1
    v["start"][rel(obs["start"])] = 1
    v["decided"][0] = obs["flipped"][me] is not None
    v["phase"][_PHASES.index(obs["phase"])] = 1
    v["set_aside"][0] = obs["set_aside"]
    v["seated"][:n] = 1
    v["round"][0] = obs.get("round", 0)
    v["asked"][:] = [asked == "move", asked == "offer", bool(path)]
    for token in path:
        v["path"][token] += 1
    return vector


def open_call_catches(state: Any, seat: int, legal: list[Any]) -> list[Any]:
    """SCOUT has no catches: ``legal`` unchanged."""
    return legal
