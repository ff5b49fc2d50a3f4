"""The contract every game implements (docs/rules-notes.md, "Common to both games"), after OpenSpiel.

A game module provides a frozen config type, an action type with a text notation, and a
round state. ``engine.match.Match`` strings rounds together into a match; it is the one
object the rest of cardtable (bots, the log, the network, the client) talks to.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol, runtime_checkable

JSON = Any  # plain data: dict / list / str / int / bool / None


@runtime_checkable
class Action(Protocol):
    """A small immutable move. ``str(action)`` is its text and wire form."""

    def __str__(self) -> str: ...


class Config(Protocol):
    """A frozen rule set: the game, the player count, every option, the match settings."""

    game: str
    players: int

    def to_dict(self) -> dict[str, JSON]: ...

    def initial_totals(self) -> list[int]:
        """Each seat's running total before the first round."""
        ...

    def match_over(self, totals: Sequence[int], rounds_played: int) -> bool:
        """Whether the match ends after ``rounds_played`` rounds with these totals."""
        ...

    def winners(self, totals: Sequence[int]) -> list[int]:
        """The seats that share the win at the end of the match."""
        ...


class RoundState(Protocol):
    """One position of one round."""

    def actors(self) -> list[int]:
        """Seats with at least one legal action now (the seat to move and out-of-turn options)."""
        ...

    def to_move(self) -> int | None:
        """The seat the round is waiting for (None when the round is over)."""
        ...

    def legal_actions(self, seat: int) -> list[Any]: ...

    def apply(self, seat: int, action: Any) -> list[Event]:
        """Apply ``action`` for ``seat``; raise ``IllegalAction`` (state unchanged) if illegal."""
        ...

    def observation(self, seat: int) -> dict[str, JSON]: ...

    def is_over(self) -> bool: ...

    def round_scores(self) -> list[int]:
        """What each seat adds to its running total for this round (only when over)."""
        ...

    def snapshot(self) -> dict[str, JSON]: ...


class Event:
    """Something that happened, in words anyone at the table may read (no hidden cards).

    ``kind`` and ``seat`` say what and who; ``facts`` hold the rest as plain data (``cards``:
    card texts, ``colour``, ``target``, ``count`` ...; see ``docs/rules-notes.md``), so that a
    client can put it in its own words; ``text`` is the engine's own words (third person,
    seats by number). Events compare by kind, seat and text.
    """

    __slots__ = ("kind", "seat", "text", "facts")

    def __init__(self, kind: str, seat: int | None, text: str, **facts: JSON) -> None:
        self.kind = kind
        self.seat = seat
        self.text = text
        self.facts: dict[str, JSON] = facts

    def to_dict(self) -> dict[str, JSON]:
        """Plain data: ``kind``, ``seat``, ``text`` and ``facts``."""
        return {"kind": self.kind, "seat": self.seat, "text": self.text, "facts": dict(self.facts)}

    @classmethod
    def from_dict(cls, data: dict[str, JSON]) -> Event:
        facts = dict(data.get("facts") or {})
        return cls(str(data["kind"]), data.get("seat"), str(data.get("text", "")), **facts)

    def __repr__(self) -> str:
        return f"Event({self.kind!r}, {self.seat!r}, {self.text!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Event) and (self.kind, self.seat, self.text) == (
            other.kind,
            other.seat,
            other.text,
        )

    def __str__(self) -> str:
        who = "" if self.seat is None else f"seat {self.seat}: "
        return who + self.text
