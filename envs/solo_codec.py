"""SOLO for learning agents: the token space of its actions and its observation vector.

Seats in tokens and features are *relative*: offset 0 is the observer, offset 1 the next
seat in seat order (clockwise), and so on, up to 9 (ten seats). Cards are the 63 faces of
``engine.solo.cards.FACES`` in their canonical order (``R1``..``R9``, ``Rskip``, ``Rrev``,
``Rd2``, ``Rswap``, ``Rgift``, then G, B, Y likewise, ``wild``, ``wd4``, ``pass``,
``protR``..``protY``); the 36 number faces are counted ``R1``..``R9``, ``G1``.. ``Y9``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from cardtable.engine.solo.actions import Catch, Play, Simple
from cardtable.engine.solo.cards import CARDS, COLOURS, FACES, Card
from cardtable.envs.layout import Layout, Norm

GAME = "solo"
SEATS = 10
FACE_COUNT = len(FACES)
NUMBER_FACES = tuple(f for f in FACES if f.number)
_NUMBER_SLOT = {f.index: i for i, f in enumerate(NUMBER_FACES)}

PLAY = 0  # + face: lay this one card
PLAY_CALL = PLAY + FACE_COUNT  # + face: lay this one card and call SOLO!
MULTI = PLAY_CALL + FACE_COUNT  # + number slot: multiples whose first (fitting) card is this
MULTI_CALL = MULTI + 36  # + number slot: the same with the SOLO call
WITH = MULTI_CALL + 36  # + number slot: a middle card of the multiples (canonical order)
TOP = WITH + 36  # + number slot: the last card of the multiples (the new top; ends the path)
COLOUR = TOP + 36  # + R, G, B, Y: the colour a Wild or Wild Draw 4 names
TARGET = COLOUR + 4  # + offset - 1: the seat a Swap or Gift aims at (offset 1..9)
GIFT = TARGET + 9  # + face: a card given with a Gift (two tokens, canonical order)
DRAW = GIFT + FACE_COUNT
KEEP = DRAW + 1
CALL = KEEP + 1  # the late SOLO call (window mode)
DECLINE = CALL + 1  # no Protection
CATCH = DECLINE + 1  # + offset - 1: catch that seat for a missed call
PASS = CATCH + 9  # not now: decline an out-of-turn chance
NUM_TOKENS = PASS + 1

_SIMPLE = {"draw": DRAW, "keep": KEEP, "solo": CALL, "decline": DECLINE}


def encode(action: Any, seat: int, players: int) -> tuple[int, ...]:
    """The token path of an engine action taken by ``seat``."""
    if isinstance(action, Simple):
        return (_SIMPLE[action.word],)
    if isinstance(action, Catch):
        return (CATCH + (action.target - seat) % players - 1,)
    assert isinstance(action, Play)
    cards = action.cards
    if len(cards) > 1:
        head = (MULTI_CALL if action.call else MULTI) + _NUMBER_SLOT[cards[0].index]
        middle = tuple(WITH + _NUMBER_SLOT[c.index] for c in cards[1:-1])
        return (head, *middle, TOP + _NUMBER_SLOT[cards[-1].index])
    path = [(PLAY_CALL if action.call else PLAY) + cards[0].index]
    if action.colour is not None:
        path.append(COLOUR + COLOURS.index(action.colour))
    if action.target is not None:
        path.append(TARGET + (action.target - seat) % players - 1)
        path += [GIFT + c.index for c in action.gift]
    return tuple(path)


def token_text(token: int) -> str:
    """A token in words, e.g. ``play wild``, ``colour B``, ``target +2``."""
    for start, size, name in _RANGES:
        if start <= token < start + size:
            k = token - start
            if name in ("play", "play!", "gift"):
                return f"{name} {FACES[k].text}"
            if name in ("multiples", "multiples!", "with", "top"):
                return f"{name} {NUMBER_FACES[k].text}"
            if name == "colour":
                return f"colour {COLOURS[k]}"
            return f"{name} +{k + 1}"
    return {DRAW: "draw", KEEP: "keep", CALL: "solo", DECLINE: "decline", PASS: "pass"}[token]


_RANGES = [(PLAY, FACE_COUNT, "play"), (PLAY_CALL, FACE_COUNT, "play!"), (MULTI, 36, "multiples"),
           (MULTI_CALL, 36, "multiples!"), (WITH, 36, "with"), (TOP, 36, "top"),
           (COLOUR, 4, "colour"), (TARGET, 9, "target"), (GIFT, FACE_COUNT, "gift"),
           (CATCH, 9, "catch")]

F, S = FACE_COUNT, SEATS
LAYOUT = Layout([
    ("hand", (F,), "count of each face in the observer's hand", Norm(4)),
    ("top", (F,), "one-hot: the top card of the discard pile"),
    ("colour", (5,), "one-hot: the colour in force R, G, B, Y, or (last) any card fits"),
    ("clockwise", (1,), "1 while play goes in seat order, 0 when reversed"),
    ("penalty", (1,), "cards a pending Draw 2 / Wild Draw 4 penalty makes the next player draw",
     Norm(32)),
    ("penalty_kind", (2,), "one-hot: the pending penalty is of Draw 2s, of Wild Draw 4s"),
    ("drawn", (F,), "one-hot: the card the observer just drew and may play (else zero)"),
    ("holding_drawn", (1,), "1 when the seat to move holds a card it just drew"),
    ("jump", (1,), "1 while the top card may be jumped in on"),
    ("laid_by", (S,), "one-hot by offset: who laid the top card"),
    ("turn", (S,), "one-hot by offset: whose turn it is (zero inside a Protection window)"),
    ("to_move", (S,), "one-hot by offset: the seat the game waits for"),
    ("seated", (S,), "1 for each offset with a player (the table's size)"),
    ("hand_sizes", (S,), "cards in each hand, by offset", Norm(120)),
    ("totals", (S,), "running match totals, by offset", Norm(500, -4, 4)),
    ("solo", (S,), "one-hot by offset: the seat whose SOLO window is open"),
    ("solo_called", (1,), "1 if that seat has called SOLO"),
    ("react_kind", (4,), "one-hot: an open Protection window against a Skip, Gift, Swap, Pass hands"),
    ("react_by", (S,), "one-hot by offset: who opened the window"),
    ("react_target", (S,), "one-hot by offset: the Skip's, Gift's or Swap's target"),
    ("react_pending", (S,), "offsets still to protect or decline"),
    ("react_protected", (S,), "offsets that played a Protection in this window"),
    ("react_gift", (F,), "the Gift's cards, counted (only for its giver and target)", Norm(2)),
    ("react_gift_size", (1,), "how many cards the Gift gives", Norm(2)),
    ("known", (S, F), "cards the observer knows to be in each other hand (by offset; row 0 empty)",
     Norm(4)),
    ("discard", (F,), "count of each face in the discard pile", Norm(4)),
    ("draw_size", (1,), "cards in the draw pile", Norm(120)),
    ("round", (1,), "the round number, from 0", Norm(10, 0, 100)),
    ("rules", (7,), "gifts, protection, multiples, call=window, scoring=pool, self_jump_in, "
                    "mixed_stacking (1 when on)"),
    ("asked", (3,), "the observer is asked: to move (must act), out of turn (may pass), "
                    "in the middle of a token path"),
    ("path", (NUM_TOKENS,), "count of each token in the path said so far for this action",
     Norm(8)),
])
_KINDS = ("skip", "gift", "swap", "pass")


def _card_index(text: str) -> int:
    return CARDS[text].index


_INDEX = {text: card.index for text, card in CARDS.items()}


def _counts(texts: list[str]) -> np.ndarray:
    """How many of each face ``texts`` holds."""
    return np.bincount([_INDEX[t] for t in texts], minlength=FACE_COUNT)


def features(obs: dict[str, Any], path: Sequence[int], asked: str) -> np.ndarray:
    """The observation vector of ``LAYOUT`` from an engine observation (``Match.observation``).

    ``asked`` is ``"move"``, ``"offer"`` or ``""`` (not asked now); ``path`` the tokens said.
    """
    vector, v = LAYOUT.new()
    me, n = obs["seat"], obs["players"]

    def rel(seat: int) -> int:
        return int((seat - me) % n)

    def one(name: str, seat: int | None) -> None:
        if seat is not None:
            v[name][rel(seat)] = 1

    v["hand"][:] = _counts(obs["hand"])
    v["top"][_card_index(obs["top"])] = 1
    colour = obs["colour"]
    v["colour"][4 if colour is None else COLOURS.index(colour)] = 1
    v["clockwise"][0] = obs["direction"] == 1
    v["penalty"][0] = obs["penalty"]
    if obs["penalty_kind"]:
        v["penalty_kind"][0 if obs["penalty_kind"] == "d2" else 1] = 1
    drawn = obs["drawn"]
    if isinstance(drawn, str):
        v["drawn"][_card_index(drawn)] = 1
    v["holding_drawn"][0] = bool(drawn)
    v["jump"][0] = obs["jump"]
    one("laid_by", obs["laid_by"])
    one("turn", obs["turn"])
    one("to_move", obs["to_move"])
    v["seated"][:n] = 1
    for seat in range(n):
        v["hand_sizes"][rel(seat)] = obs["hand_sizes"][seat]
        v["totals"][rel(seat)] = obs["totals"][seat]
    solo = obs["solo"]
    if solo is not None:
        one("solo", solo["seat"])
        v["solo_called"][0] = solo["called"]
    react = obs["react"]
    if react is not None:
        v["react_kind"][_KINDS.index(react["kind"])] = 1
        one("react_by", react["by"])
        one("react_target", react["target"])
        for seat in react["pending"]:
            one("react_pending", seat)
        for seat in react["protected"]:
            one("react_protected", seat)
        gift = react["gift"]
        if isinstance(gift, list):
            for text in gift:
                v["react_gift"][_card_index(text)] += 1
            v["react_gift_size"][0] = len(gift)
        else:
            v["react_gift_size"][0] = gift
    for seat, texts in obs["known"].items():
        v["known"][rel(int(seat))] = _counts(texts)
    v["discard"][:] = _counts(obs["discard"])
    v["draw_size"][0] = obs["draw_size"]
    v["round"][0] = obs.get("round", 0)
    config = obs["config"]
    v["rules"][:] = [config["gifts"], config["protection"], config["multiples"],
                     config["call"] == "window", config["scoring"] == "pool",
                     config["self_jump_in"], config["mixed_stacking"]]
    v["asked"][:] = [asked == "move", asked == "offer", bool(path)]
    for token in path:
        v["path"][token] += 1
    return vector


def open_call_catches(state: Any, seat: int, legal: list[Any]) -> list[Any]:
    """``legal`` less the catches that cannot succeed: a catch is kept only when aimed at
    a seat whose SOLO window is open and uncalled (public knowledge)."""
    targets = {w.seat for w in state.windows if not w.called}
    return [a for a in legal if not isinstance(a, Catch) or a.target in targets]


def card_face(card: Card) -> int:
    """The face index of a card (its chance outcome in the OpenSpiel game)."""
    return card.index
