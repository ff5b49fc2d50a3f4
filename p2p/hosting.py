"""The host's lobby controls and the rematch: the log entries ``start``, ``free``, ``options``
and ``rematch`` (docs/protocol.md, section 3, Lobby controls and rematch).

The host is the table's creator (the author of entry 1); only its key may ``start`` the match
early (the free seats become computer seats), ``free`` another member's seat or change the
``options``, and only while the lobby is open. Every machine checks it from the log, in
``Roster`` (over the whole log: who is a member, how many human seats) and ``TableState`` (the
seats shown). At a match's end each person seated agrees to a ``rematch``; once all did, the
same table starts a new match with the same seats and options: a fresh seed agreement on the
same log, so a replay of the log shows every match.

Here are the rules over the roster (whatever has its ``Seating``: ``p2p.table.Roster``); the
table applies the entries to its seats and runs the rematch (``TableState._start`` and
``_rematch``, ``p2p/table.py``), so this module knows nothing of the table.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

from cardtable.engine.games import config_from_dict

if TYPE_CHECKING:
    from cardtable.p2p.wire import Entry

HOST_KINDS = ("start", "free", "options")
"""Entries only the host may propose, in the lobby; each changes the roster."""
KINDS = HOST_KINDS + ("rematch",)


class Seating(Protocol):
    """What the host's entries read and change of the roster (``p2p.table.Roster``)."""

    config: Any
    host: bytes | None
    owners: list[bytes | None]  # one per human seat
    members: dict[bytes, int]  # key -> seat
    open: bool
    seeding: bool


def lobby_refusal(roster: Seating, author: bytes) -> str:
    """Why ``author`` may not use the host's controls now ("" if it may)."""
    if author != roster.host:
        return "only the host does that"
    if not roster.open:
        return "the lobby is closed: the match has begun"
    return ""


def entry_refusal(roster: Seating, payload: list[Any]) -> str:
    """Why the host's entry itself cannot be done ("" if it can): a seat to free that no other
    member holds, options the table's config refuses or too few human seats for those seated."""
    if payload[0] == "free" and freed(roster, payload[1]) is None:
        return "no other member holds that seat"
    if payload[0] == "options":
        asked = new_options(roster, payload)
        return asked if isinstance(asked, str) else ""
    return ""


def freed(roster: Seating, seat: int) -> bytes | None:
    """The member a ``free`` of ``seat`` removes: another member than the host (None: none)."""
    owner = roster.owners[seat] if seat < len(roster.owners) else None
    return owner if owner is not None and owner != roster.host else None


def roster_change(roster: Seating, entry: Entry) -> tuple[str, int | None]:
    """Apply a host's entry to the roster: (refusal reason or "", the seat concerned)."""
    p = entry.decoded
    reason = lobby_refusal(roster, p.author) or entry_refusal(roster, p.payload)
    if reason:
        return reason, None
    if p.kind == "start":
        roster.open = False
        roster.seeding = True  # closed for good: an eviction now gives the seat to a computer player
        return "", None
    if p.kind == "free":
        owner = freed(roster, p.payload[1])
        assert owner is not None
        seat = roster.members.pop(owner)
        roster.owners[seat] = None
        return "", seat
    asked = new_options(roster, p.payload)
    assert not isinstance(asked, str)
    roster.config, humans = asked
    seated: list[bytes | None] = [o for o in roster.owners if o is not None]
    if any(o is not None for o in roster.owners[humans:]):  # a seat taken would go: seat them in order
        roster.owners = seated + [None] * (humans - len(seated))
    else:
        roster.owners = roster.owners[:humans] + [None] * (humans - len(roster.owners))
    roster.members = {o: s for s, o in enumerate(roster.owners) if o is not None}
    roster.open = None in roster.owners
    return "", None


def new_options(roster: Seating, payload: list[Any]) -> tuple[Any, int] | str:
    """The config and the number of human seats an ``options`` entry asks for, or why not."""
    try:
        config = config_from_dict(dict(payload[1]))
        humans = config.players - payload[2]
    except Exception as err:  # noqa: BLE001 - any bad config is a refusal
        return f"bad config: {err}"
    if config.game != roster.config.game:
        return "the game of a table stays the same"
    if humans < max(1, len(roster.members)):
        return f"{len(roster.members)} people are seated: keep at least as many human seats"
    return config, humans


def describe(config: Any, humans: int) -> str:
    """The options in a few words: the game's own, and the human and computer seats."""
    cpu = config.players - humans
    return f"{config.describe()}; {humans} human seat{'s' if humans != 1 else ''}, {cpu} computer"


def seed_tag(match_no: int) -> bytes:
    """What the seed of a table's match ``match_no`` is also bound to (nothing for the first)."""
    return b"" if match_no == 0 else b"/match/" + match_no.to_bytes(4, "big")
