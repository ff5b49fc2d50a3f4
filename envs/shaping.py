"""An optional shaped reward: potential-based, so it leaves the best policies as they are.

The potential of a seat is its round score if the round ended now, in reward units (SOLO:
minus the points in its hand; SCOUT: captured cards plus Scout chips minus cards in hand),
and 0 once the episode has ended. With ``shaping=w`` every action pays each seat
``w * (potential after - potential before)`` on top of the usual reward: over an episode
these terms add up to ``-w`` times the seat's potential where the episode started, a constant
(Ng, Harada and Russell, 1999), so a learner is told at once when a move gains or sheds
points without being steered to another goal.
"""

from __future__ import annotations

from typing import Any

from cardtable.engine.solo import State as SoloState
from cardtable.engine.solo.cards import hand_points


def potentials(state: Any) -> list[float]:
    """Each seat's round score if ``state``'s round ended now (more is better)."""
    if isinstance(state, SoloState):
        return [-float(hand_points(hand)) for hand in state.hands]
    return [float(len(captured) + chips - len(hand))
            for captured, chips, hand in zip(state.captured, state.chips, state.hands, strict=True)]
