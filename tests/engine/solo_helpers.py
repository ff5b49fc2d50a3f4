"""Building SOLO positions from readable pieces, for the rule tests."""

from __future__ import annotations

from typing import Any

import pytest

from cardtable.engine.errors import IllegalAction
from cardtable.engine.solo import Config, State, parse_action
from cardtable.engine.solo.actions import Catch


def position(
    edition: str = "anniversary",
    hands: tuple[str, ...] | list[str] = ("", "", "", ""),
    discard: str = "R5",
    draw: str = "",
    turn: int | None = 0,
    options: dict[str, Any] | None = None,
    seed: bytes = b"rules",
    **more: Any,
) -> State:
    """A state: one hand text per seat (player count = number of hands); piles as text, top last."""
    config = Config.preset(edition, len(hands), **(options or {}))
    snap: dict[str, Any] = {
        "game": "solo",
        "config": config.to_dict(),
        "seed": seed.hex(),
        "round": 0,
        "hands": [h.split() for h in hands],
        "draw": draw.split(),
        "discard": discard.split(),
        "turn": turn,
    }
    snap.update(more)
    return State.from_snapshot(snap)


def act(state: State, seat: int, text: str) -> list[str]:
    """Apply the action written ``text`` for ``seat``; the kinds of the events."""
    return [e.kind for e in state.apply(seat, parse_action(text))]


def refused(state: State, seat: int, text: str, why: str) -> None:
    """``text`` is illegal for ``seat``: refused with a message containing ``why``, nothing changed."""
    before = state.snapshot()
    assert text not in legal(state, seat)
    with pytest.raises(IllegalAction, match=why):
        state.apply(seat, parse_action(text))
    assert state.snapshot() == before


def legal(state: State, seat: int) -> set[str]:
    return {str(a) for a in state.legal_actions(seat)}


def moves(state: State, seat: int) -> set[str]:
    """Legal actions without the always-available catches and late calls."""
    return {str(a) for a in state.legal_actions(seat) if not isinstance(a, Catch) and str(a) != "solo"}


def hand(state: State, seat: int) -> list[str]:
    return sorted(c.text for c in state.hands[seat])


def cards(text: str) -> list[str]:
    return sorted(text.split())


def top(state: State) -> str:
    return state.top.text
