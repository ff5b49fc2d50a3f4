"""Worlds a seat cannot tell apart from the true one (for OpenSpiel's ISMCTS).

``resample(round, seat, rng)`` gives a copy of an engine round state in which the cards the
seat cannot see (other hands, less the cards it knows are there; the SOLO draw pile; SCOUT's
set-aside cards) are dealt again at random. A SOLO card just drawn and a pending Gift's cards
stay where they are, and a SCOUT card's way up is drawn afresh.
"""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

from cardtable.engine.scout import State as ScoutState
from cardtable.engine.scout.cards import Card as ScoutCard
from cardtable.engine.solo import State as SoloState


def resample(state: Any, seat: int, rng: random.Random) -> Any:
    snap = state.snapshot()
    if isinstance(state, SoloState):
        return SoloState.from_snapshot(_solo(snap, seat, rng))
    return ScoutState.from_snapshot(_scout(snap, seat, rng))


def _solo(snap: dict[str, Any], seat: int, rng: random.Random) -> dict[str, Any]:
    hands: list[list[str]] = snap["hands"]
    fixed: list[Counter[str]] = [Counter(snap["known"][seat][s]) for s in range(len(hands))]
    if snap["drawn"] and snap["turn"] is not None:
        fixed[snap["turn"]][snap["drawn"]] += 1
    react = snap["react"]
    if react is not None:
        fixed[react["by"]].update(react["gift"])
    hidden: list[str] = list(snap["draw"])
    keep: list[list[str]] = []
    for s, hand in enumerate(hands):
        if s == seat:
            keep.append(list(hand))
            continue
        mine = fixed[s] & Counter(hand)
        keep.append(list(mine.elements()))
        hidden += list((Counter(hand) - mine).elements())
    rng.shuffle(hidden)
    for s, hand in enumerate(hands):
        if s != seat:
            need = len(hand) - len(keep[s])
            keep[s] += hidden[:need]
            del hidden[:need]
    snap["hands"], snap["draw"] = keep, hidden
    return snap


def _scout(snap: dict[str, Any], seat: int, rng: random.Random) -> dict[str, Any]:
    pool = [_pair(t) for t in snap["set_aside"]]
    for s, (hand, known) in enumerate(zip(snap["hands"], snap["known"], strict=True)):
        if s != seat:
            pool += [_pair(t) for t, k in zip(hand, known, strict=True) if not k]
    rng.shuffle(pool)
    for s, (hand, known) in enumerate(zip(snap["hands"], snap["known"], strict=True)):
        if s == seat:
            continue
        for i, k in enumerate(known):
            if not k:
                low, high = pool.pop()
                hand[i] = str(ScoutCard(high, low) if rng.random() < 0.5 else ScoutCard(low, high))
    snap["set_aside"] = [f"{a}/{b}" for a, b in pool]
    return snap


def _pair(text: str) -> tuple[int, int]:
    up, _, down = text.partition("/")
    a, b = int(up), int(down)
    return (a, b) if a < b else (b, a)
