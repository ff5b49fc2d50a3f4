"""The host's lobby controls and the rematch: the log entries ``start``, ``free``, ``options``
and ``rematch`` (docs/protocol.md, section 3, Lobby controls and rematch).

The host is the table's creator (the author of entry 1); only its key may ``start`` the match
early (the free seats become computer seats), ``free`` another member's seat or change the
``options``, and only while the lobby is open. Every machine checks it from the log, in
``Roster`` (over the whole log: who is a member, how many human seats) and ``TableState`` (the
seats shown). At a match's end each person seated agrees to a ``rematch``; once all did, the
same table starts a new match with the same seats and options: a fresh seed agreement on the
same log, so a replay of the log shows every match.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from cardtable.engine.game import Event
from cardtable.engine.games import config_from_dict

if TYPE_CHECKING:
    from cardtable.p2p.table import Roster, TableState
    from cardtable.p2p.wire import Entry

HOST_KINDS = ("start", "free", "options")
"""Entries only the host may propose, in the lobby; each changes the roster."""
KINDS = HOST_KINDS + ("rematch",)


def lobby_refusal(roster: Roster, author: bytes) -> str:
    """Why ``author`` may not use the host's controls now ("" if it may)."""
    if author != roster.host:
        return "only the host does that"
    if not roster.open:
        return "the lobby is closed: the match has begun"
    return ""


def entry_refusal(roster: Roster, payload: list[Any]) -> str:
    """Why the host's entry itself cannot be done ("" if it can): a seat to free that no other
    member holds, options the table's config refuses or too few human seats for those seated."""
    if payload[0] == "free" and freed(roster, payload[1]) is None:
        return "no other member holds that seat"
    if payload[0] == "options":
        asked = new_options(roster, payload)
        return asked if isinstance(asked, str) else ""
    return ""


def freed(roster: Roster, seat: int) -> bytes | None:
    """The member a ``free`` of ``seat`` removes: another member than the host (None: none)."""
    owner = roster.owners[seat] if seat < len(roster.owners) else None
    return owner if owner is not None and owner != roster.host else None


def roster_change(roster: Roster, entry: Entry) -> tuple[str, int | None]:
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


def new_options(roster: Roster, payload: list[Any]) -> tuple[Any, int] | str:
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


# --- the table's side ----------------------------------------------------------------------------
def apply(t: TableState, entry: Entry, events: list[Event]) -> str:
    """Apply a host's entry to the table (after the roster took it)."""
    from cardtable.p2p.table import CPU, Seat

    p = entry.decoded
    old = {s.owner: s for s in t.seats if s.owner is not None}
    reason, seat = t.roster.member_change(entry)
    if reason:
        return reason
    if p.kind == "free":
        assert seat is not None
        events.append(Event("freed", None, f"the host freed seat {seat}: {t.seats[seat].name} is no longer "
                            "at the table", member=(t.seats[seat].owner or b"").hex()))
        t.seats[seat] = Seat(None, "")
        return ""
    humans = len(t.roster.owners)
    if p.kind == "options":
        t.seats = [old[o] if o is not None else Seat(None, "") for o in t.roster.owners]
        t.seats += [Seat(None, f"cpu {s}", CPU) for s in range(humans, t.config.players)]
        events.append(Event("options_set", None, f"the host set the options: {describe(t.config, humans)}"))
    else:
        free = [s for s, o in enumerate(t.roster.owners) if o is None]
        for s in free:
            t.seats[s] = Seat(None, f"cpu {s}", CPU)
        events.append(Event("early_start", None, f"the host starts now: computer players take {len(free)} "
                            f"free seat{'s' if len(free) != 1 else ''}"))
    t._close_lobby()
    return ""


def describe(config: Any, humans: int) -> str:
    """The options in a few words: the game's own, and the human and computer seats."""
    cpu = config.players - humans
    return f"{config.describe()}; {humans} human seat{'s' if humans != 1 else ''}, {cpu} computer"


def rematch_refusal(t: TableState, author: bytes) -> str:
    """Why ``author`` may not agree to a rematch now ("" if it may)."""
    from cardtable.p2p.table import OVER

    if t.phase != OVER:
        return "the match is not over"
    if t.seat_of(author) not in t.seeding_seats():
        return "no seat of the author's plays"
    if author in t.rematch:
        return "already agreed"
    return ""


def apply_rematch(t: TableState, entry: Entry, events: list[Event]) -> str:
    """A person agrees to a rematch; once every person seated has, the new match begins."""
    author = entry.decoded.author
    reason = rematch_refusal(t, author)
    if reason:
        return reason
    t.rematch.append(author)
    waiting = [s for s in t.seeding_seats() if t.seats[s].owner not in t.rematch]
    events.append(Event("rematch", t.seat_of(author), "wants a rematch"
                        + (f" ({len(waiting)} more to agree: 'rematch')" if waiting else "")))
    if not waiting:
        begin_next(t, events)
    return ""


def begin_next(t: TableState, events: list[Event]) -> None:
    """The same seats and options play a new match: a fresh seed agreement (and hidden deal)."""
    from cardtable.p2p.table import SEEDING

    assert t.match is not None
    t.past.append(t.match)
    t.spent |= set(t.commits.values())
    t.match_no += 1
    t.phase, t.stage, t.commits, t.reveals = SEEDING, "commit", {}, {}
    t.seed, t.match, t.hidden, t.audited, t.accused, t.rematch = None, None, None, [], {}, []
    t.returning = set()
    events.append(Event("new_match", None, f"everyone agreed: match {t.match_no + 1} begins with the same "
                        "seats and options", match=t.match_no))
    t._advance_seeding()


def seed_tag(match_no: int) -> bytes:
    """What the seed of a table's match ``match_no`` is also bound to (nothing for the first)."""
    return b"" if match_no == 0 else b"/match/" + match_no.to_bytes(4, "big")


def spent(t: TableState, author: bytes, nonce: bytes) -> bool:
    """Whether ``nonce`` was ``author``'s in an earlier match of the table (a new one is drawn)."""
    from cardtable.p2p.table import commitment

    return t.table_id is not None and commitment(t.table_id, author, nonce) in t.spent
