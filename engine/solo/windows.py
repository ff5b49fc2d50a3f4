"""SOLO windows as sets of the states they may be in (docs/rules.md 1.5.2, 1.8.6, 1.8.17).

A seat's SOLO window is none, called or missed. At an open table every machine knows which; at a
hidden-hands table whether a call was due on a hand of 2 or more cards is its holder's to know, so
a window is kept as the set of states it may be in: publicly, and as this view knows it. With every
card known both sets hold one state.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

NONE, CALLED, MISSED = "none", "called", "missed"
"""The states of a seat's SOLO window: none open, open with the call made, open and missed."""


@dataclass
class Window:
    """A seat's SOLO window: the states it may be in, publicly and as far as this view knows."""

    seat: int
    public: frozenset[str]
    mine: frozenset[str]

    @property
    def called(self) -> bool:
        """Whether the call is made (as far as this view knows)."""
        return self.mine == {CALLED}

    def shown(self, mine: bool) -> dict[str, object]:
        """The window for an observation: ``called`` None when not settled."""
        return {"seat": self.seat, "called": settled(self.mine if mine else self.public)}


@dataclass(frozen=True)
class Judgement:
    """A claim the holder of ``seat`` made about its hidden hand at action ``step`` of the
    round; ``truth``: whether it held, as far as this view knows (None: it cannot tell)."""

    step: int
    seat: int
    claim: str
    truth: bool | None


@dataclass(frozen=True)
class Ask:
    """The round waits for ``seat`` to answer ``owed`` or ``clear``: for the catch by
    ``catcher``, or (``catcher`` None) before another seat's action closes its classic window."""

    seat: int
    catcher: int | None


@cache
def after(states: frozenset[str], due: bool | None, call: bool) -> frozenset[str]:
    """The window states after a play that leaves a hand needing a call (``due``; None: either),
    from each of ``states``. A missed call stays missed: a seat's own later plays neither close
    its window nor make up for the miss (docs/rules.md 1.8.6, 1.8.15)."""
    out = set()
    for state in states:
        for d in ((True, False) if due is None else (due,)):
            if state == MISSED:
                out.add(MISSED)
            elif d:
                out.add(CALLED if call else MISSED)
            else:
                out.add(state)
    return frozenset(out)


def holds(states: frozenset[str], state: str) -> bool | None:
    """Whether the window is in ``state``: True, False, or None (this view cannot tell)."""
    if states == {state}:
        return True
    return None if state in states else False


def settled(states: frozenset[str]) -> bool | None:
    """A window's ``called`` for an observation: True, False, or None when not settled."""
    return True if states == {CALLED} else False if states == {MISSED} else None


def either(a: bool | None, b: bool | None) -> bool | None:
    """``a or b`` where None is "cannot tell"."""
    if a is True or b is True:
        return True
    return None if a is None or b is None else False
