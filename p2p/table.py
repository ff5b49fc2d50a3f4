"""The table state machine: committed log entries in, the table (lobby, seed, match) out.

Deterministic and free of I/O: every peer that applies the same entries in the same order
gets the same table. An entry that breaks a rule is refused by every peer alike and
changes nothing (its ``(author, incarnation, seq)`` still counts as used). ``Roster`` is the
part the ordering layer also needs over not-yet-committed entries: who is a member.
"""

from __future__ import annotations

import copy
import hashlib
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from cardtable.engine.errors import IllegalAction, ParseError
from cardtable.engine.game import Event
from cardtable.engine.games import config_from_dict
from cardtable.engine.match import Match, snapshot_digest
from cardtable.p2p import chat, hosting
from cardtable.p2p.hidden import payloads
from cardtable.p2p.hidden.bundles import read_bundle
from cardtable.p2p.hidden.group import DeckError
from cardtable.p2p.hidden.opening import PublicOpen
from cardtable.p2p.hidden.round import COMMIT, DEAL, DONE, PLAY, REVEAL, HiddenRound, Move
from cardtable.p2p.hidden.scout_round import ScoutRound, scout_points
from cardtable.p2p.hidden.solo_round import SoloRound, solo_points
from cardtable.p2p.wire import HIDDEN_KINDS, Entry, WireError, check_payload

HUMAN, BOT, CPU = "human", "bot", "cpu"
QUIET_KINDS = (*chat.KINDS, "silent")  # entries that are no new position for the bots
LOBBY, SEEDING, PLAYING, OVER = "lobby", "seeding", "playing", "over"
SEED_DOMAIN = b"cardtable/seed/"
MAX_ACCUSATIONS = 16  # per accuser and accused in a round: an honest holder needs one or two at most


def commitment(table_id: bytes, author: bytes, nonce: bytes) -> bytes:
    """The commitment to a seed nonce, bound to its table and author."""
    return hashlib.sha256(table_id + author + nonce).digest()


@dataclass
class Seat:
    """One seat. ``controller``: ``human`` (the owner plays), ``bot`` (taken over, or left after
    the lobby, until the owner returns) or ``cpu`` (a computer player for good: a CPU seat, or
    forfeited, or faulted). ``owner`` is the seated peer's key (None for a free lobby seat or a
    ``cpu`` seat); it stays while a member that left is away (``TableState.away_seat``)."""

    owner: bytes | None
    name: str
    controller: str = HUMAN


@dataclass
class Applied:
    """What applying one entry did."""

    index: int
    author: bytes
    seat: int | None
    kind: str
    ok: bool
    reason: str
    summary: str
    events: list[Event] = field(default_factory=list)
    line: str = ""  # a chat entry said: its words (``p2p/chat.py``)
    name: str = ""  # the name of the author's seat before the entry (a leave frees a lobby seat)


class Roster:
    """Membership: the table id, the human seats and their owners, exactly-once bookkeeping.

    A pure function of the entries fed to ``admit`` and ``member_change``; the peer keeps one
    over its whole log (for Raft's majorities) and the table one over the committed log.
    """

    def __init__(self) -> None:
        self.table_id: bytes | None = None
        self.config: Any = None
        self.deal = "open"
        self.escrow = False
        self.name = ""
        self.host: bytes | None = None  # the table's creator: only it uses the lobby controls
        self.owners: list[bytes | None] = []  # one per human seat
        self.members: dict[bytes, int] = {}  # key -> seat
        self.away: dict[bytes, int] = {}  # members that left after the lobby -> the seat kept for them
        self.open = False
        self.seeding = False  # an entry of the seed agreement is in (a full lobby stays closed)
        self.last_seq: dict[tuple[bytes, int], int] = {}

    def admit(self, entry: Entry) -> str:
        """Why the entry may not be applied at all ("" if it may): table, exactly-once, shape."""
        p = entry.decoded
        if self.table_id is None:
            if entry.index != 1 or p.kind != "create":
                return "the table is not created yet"
        elif p.table_id != self.table_id:
            return "another table"
        key = (p.author, p.incarnation)
        if p.seq <= self.last_seq.get(key, 0):
            return "duplicate"
        self.last_seq[key] = p.seq
        try:
            check_payload(p.payload)
        except WireError:
            return "malformed payload"
        if p.kind in ("commit", "reveal", "forfeit"):
            self.seeding = True
        return ""

    def member_change(self, entry: Entry) -> tuple[str, int | None]:
        """Apply a create, join or leave: (refusal reason or "", the seat concerned)."""
        p = entry.decoded
        if p.kind == "create":
            return self._create(p.table_id, p.author, p.payload)
        if p.kind == "join":
            if p.author in self.away:  # a member that left comes back to its seat
                seat = self.members[p.author] = self.away.pop(p.author)
                return "", seat
            if not self.open:
                return "the table is full or started", None
            if p.author in self.members:
                return "already seated", None
            seat = self.owners.index(None)
            self.owners[seat] = p.author
            self.members[p.author] = seat
            self.open = None in self.owners
            return "", seat
        if p.kind == "leave":
            seat = self.members.pop(p.author, -1)
            if seat < 0:
                return "not seated here", None
            if self.open:
                self.owners[seat] = None
            else:
                self.away[p.author] = seat
            return "", seat
        if p.kind == "evict":
            return self._evict(entry)
        if p.kind in hosting.HOST_KINDS:
            return hosting.roster_change(self, entry)
        return "", None

    def evictee(self, entry: Entry) -> bytes | None:
        """The member an ``evict`` entry would remove (None: none)."""
        seat = entry.decoded.payload[1]
        owner = self.owners[seat] if seat < len(self.owners) else None
        return owner if owner in self.members and owner != entry.decoded.author else None

    def _evict(self, entry: Entry) -> tuple[str, int | None]:
        """The sequencer removes a member silent in the lobby. Its seat is free again while no
        entry of the seed agreement is in (even if its join had closed the lobby)."""
        if entry.decoded.author != entry.sequencer:
            return "only the sequencer removes a member", None
        owner = self.evictee(entry)
        if owner is None:
            return "no other member holds that seat", None
        seat = self.members.pop(owner)
        if self.open or not self.seeding:
            self.owners[seat] = None
            self.open = True
        return "", seat

    def _create(self, table_id: bytes, author: bytes, payload: list[Any]) -> tuple[str, int | None]:
        if self.table_id is not None:
            return "the table exists already", None
        try:
            config = config_from_dict(dict(payload[2]))
            humans = config.players - payload[3]
        except Exception as err:  # noqa: BLE001 - any bad config is a refusal
            return f"bad config: {err}", None
        if humans < 1:
            return "a table needs at least one human seat", None
        self.table_id, self.config, self.name = table_id, config, payload[1]
        self.deal = payload[4] if len(payload) > 4 else "open"
        self.escrow = len(payload) > 5 and payload[5] == 1  # hidden deals escrow every seed (wire 6 on)
        self.host = author
        self.owners = [author] + [None] * (humans - 1)
        self.members = {author: 0}
        self.open = humans > 1
        return "", 0


class TableState:
    """The committed view of a table: seats, seed agreement, the match."""

    def __init__(self) -> None:
        self.roster = Roster()
        self.phase = LOBBY
        self.seats: list[Seat] = []
        self.commits: dict[int, bytes] = {}
        self.reveals: dict[int, bytes] = {}
        self.stage = "commit"
        self.seed: bytes | None = None
        self.match: Match | None = None
        self.applied = 0
        self.hidden: HiddenRound | None = None  # the round being dealt or played with hidden hands
        self.audited: list[HiddenRound] = []  # hidden rounds done, audited (their cards are public)
        self.accused: dict[tuple[bytes, bytes], int] = {}  # (accused, accuser) -> the accusation's index
        self.accusations: Counter[tuple[bytes, bytes]] = Counter()  # accusations of the round, per pair
        self._points: tuple[bytes, ...] = ()
        self.talk = chat.Bound()  # the chat rate bound, kept from the log
        self.position = 0  # entries applied that are not talk: the bots think again when it moves
        self.match_no = 0  # matches played before this one at the table (``rematch``: p2p/hosting.py)
        self.past: list[Match] = []  # those matches, finished
        self.spent: set[bytes] = set()  # their seed commitments (a nonce is never used twice)
        self.rematch: list[bytes] = []  # the members that agreed to a rematch, in log order
        self.returning: set[int] = set()  # seats whose owners are back: theirs again at the next deal

    # --- views -----------------------------------------------------------------------------------
    @property
    def table_id(self) -> bytes | None:
        return self.roster.table_id

    @property
    def config(self) -> Any:
        return self.roster.config

    @property
    def name(self) -> str:
        return self.roster.name

    def seat_of(self, key: bytes) -> int | None:
        """The seat ``key`` owns (also while a bot plays it), or None."""
        return next((s for s, seat in enumerate(self.seats) if seat.owner == key), None)

    def members(self) -> list[bytes]:
        return list(self.roster.members)

    def away_seat(self, key: bytes) -> int | None:
        """The seat kept for ``key``, a member that left after the lobby (a computer player plays
        it): the seat ``key`` may come back to with a ``join`` (None: none)."""
        seat = self.roster.away.get(key)
        ok = seat is not None and self.seats[seat].owner == key and self.seats[seat].controller == BOT
        return seat if ok else None

    def name_of(self, key: bytes) -> str:
        """The name of the seat ``key`` owns ("a member" without one)."""
        seat = self.seat_of(key)
        return self.seats[seat].name if seat is not None else f"a member ({key.hex()[:8]})"

    def seeding_seats(self) -> list[int]:
        """The seats whose owners take part in the seed agreement."""
        return [s for s, seat in enumerate(self.seats) if seat.controller == HUMAN and seat.owner is not None]

    def missing(self) -> list[int]:
        """Seeding seats whose commitment (commit stage) or reveal (reveal stage) is not in yet."""
        done = self.commits if self.stage == "commit" else self.reveals
        return [s for s in self.seeding_seats() if s not in done]

    def hides(self) -> bool:
        """Whether this table deals with hidden hands (``create``'s deal; docs/hidden-hands.md)."""
        return self.roster.deal == "hidden" and self.config is not None

    def dealers(self) -> list[bytes]:
        """The machines that deal the next round: the owners of the seats people play, seat order."""
        return [seat.owner for seat in self.seats if seat.controller == HUMAN and seat.owner is not None]

    def holder(self, seat: int, sequencer: bytes | None) -> bytes | None:
        """The machine that holds ``seat``'s cards: its owner, or for a computer player the machine
        that plays the computer players (``bot_runner``)."""
        s = self.seats[seat]
        return s.owner if s.controller == HUMAN else self.bot_runner(sequencer)

    def bot_runner(self, sequencer: bytes | None) -> bytes | None:
        """The machine that plays the computer players. With hidden hands it is fixed for the round,
        whoever is sequencer: the first dealing member in seat order that is still at the table (the
        host's, unless it left), so that no member can get the computer players' cards by becoming
        sequencer. Otherwise (an open deal, or between rounds) the sequencer."""
        h = self.hidden
        if h is None:
            return sequencer
        present = [m for m in h.members if m not in h.gone]
        return present[0] if present else sequencer

    def learn(self, slot: int, card: int, bit: int) -> None:
        """This machine has opened ``slot`` of the round (its own seat's card, or one it holds for a
        computer player): the card goes into its view of the round (nobody else's)."""
        h, match = self.hidden, self.match
        if h is not None and h.stage == PLAY and match is not None:
            h.learn(match.state, slot, card, bit)

    def digest(self) -> str:
        """The match's digest, over what every machine sees (with hidden hands a machine's view also
        holds its own cards, so the full digest differs from machine to machine)."""
        assert self.match is not None
        m = self.match
        last = self.hidden or (self.audited[-1] if self.audited else None)
        if not self.hides() or last is None:
            return m.digest()
        return snapshot_digest({"config": m.config.to_dict(), "round": m.round_no, "totals": list(m.totals),
                                "round_scores": [list(r) for r in m.round_scores],
                                "state": last.public_state(m.state)})

    def bot_seats(self) -> list[int]:
        """Seats the sequencer plays: computer seats and seats taken over."""
        return [s for s, seat in enumerate(self.seats) if seat.controller != HUMAN]

    def refusal(self, author: bytes, payload: list[Any]) -> str:
        """Why a member's proposal would be refused if it were applied now ("" if it would not
        be, as far as can be told without applying it): the sequencer refuses such proposals
        before they are appended, and an author stops proposing one (``p2p/proposals.py``).
        Only the kinds members propose (``act``, ``return``, ``commit``, ``reveal``, ``leave``,
        the hidden hands' and the talk's)."""
        kind = payload[0] if payload else ""
        seat = self.seat_of(author)
        if kind in chat.KINDS:
            return chat.refusal(author, payload, self.roster.members, self.talk)
        if kind == "leave":
            return "" if author in self.roster.members else "not seated here"
        if kind in hosting.HOST_KINDS:
            return hosting.lobby_refusal(self.roster, author) or hosting.entry_refusal(self.roster, payload)
        if kind == "rematch":
            return self.rematch_refusal(author)
        if kind in ("commit", "reveal"):
            done = self.commits if kind == "commit" else self.reveals
            if self.phase != SEEDING or self.stage != kind:
                return f"not in the {kind} stage of the seed agreement"
            ok = seat in self.seeding_seats() and seat not in done
            return "" if ok else "no seat in the seed agreement"
        if kind == "return":
            ok = self.phase == PLAYING and seat is not None and seat == payload[1] \
                and self.seats[seat].controller == BOT and author in self.roster.members \
                and seat not in self.returning
            return "" if ok else "that seat is not the author's to take back"
        if kind in HIDDEN_KINDS:
            ok = self.hidden is not None and author in self.roster.members
            if ok and kind == "keys" and len(payload) == 4:
                return self.play_refusal(author, payload)
            return "" if ok else "no hidden deal is under way"
        if kind == "act":
            target = payload[1]
            if self.phase != PLAYING or self.match is None:
                return "no match is being played"
            if target >= len(self.seats):
                return f"the author does not control seat {target}"
            runs = self.hidden is not None and self.seats[target].controller != HUMAN \
                and author == self.bot_runner(None)  # the machine that plays the computer players
            if not runs and (target != seat or self.seats[target].controller != HUMAN):
                return f"the author does not control seat {target}"
            try:
                parse = self.match.parse_action if self.hidden is None else self.hidden.parse
                action = parse(payload[2])
            except (ParseError, IllegalAction, ValueError) as err:
                return str(err) or "not an action"
            if self.hidden is not None:
                return ""  # the cards decide; every machine checks it when it is applied
            if target not in self.match.actors() or action not in self.match.legal_actions(target):
                return "not a legal action now"
            return ""
        return "not proposable"

    def play_refusal(self, author: bytes, payload: list[Any]) -> str:
        """Why a move that shows cards (``["keys", seat, action, opens]``) would be refused if it were
        applied now ("" if it would not be), tried on a copy of the view with its cards put in:
        the sequencer appends such a move only when its log is all applied and this says "", so
        that a move the rules refuse (a jump-in that lost its race) never puts its cards' proofs in
        the log (docs/hidden-hands.md, section 9)."""
        h, match = self.hidden, self.match
        if h is None or match is None or self.phase != PLAYING or h.stage != PLAY:
            return "no cards are in play"
        try:
            seat, text, opens = payloads.read_play(payload)
        except DeckError as err:
            return str(err)
        if seat >= len(self.seats):
            return f"there is no seat {seat}"
        owner = self.seats[seat]
        if (owner.owner if owner.controller == HUMAN else self.bot_runner(None)) != author:
            return f"the author does not control seat {seat}"
        try:
            action = h.parse(text)
            proven = h.prove(h.shown(seat, action), opens)
            if isinstance(proven, str):
                return proven
            if match.awaiting or match.is_over():
                return "no round is being played"
            trial = copy.deepcopy(match.state)
            if not h.put_public(trial, seat, action, proven):
                trial.apply(seat, action)
        except (IllegalAction, ParseError, DeckError, ValueError) as err:
            return str(err) or type(err).__name__
        return ""

    # --- applying --------------------------------------------------------------------------------
    def apply(self, entry: Entry) -> Applied:
        """Apply the next committed entry; never raises."""
        p = entry.decoded
        self.applied = entry.index
        seat = self.seat_of(p.author)
        out = Applied(entry.index, p.author, seat, p.kind, False, "", _summary(p.payload),
                      name=self.seats[seat].name if seat is not None else "")
        self.talk.saw(p.author, p.kind)
        self.position += p.kind not in QUIET_KINDS
        reason = self.roster.admit(entry)
        if not reason:
            try:
                reason = getattr(self, "_" + p.kind)(entry, p.payload, out.events)
            except Exception as err:  # noqa: BLE001 - a safety net; every replica fails alike
                reason = f"internal error: {type(err).__name__}: {err}"
        out.ok, out.reason = not reason, reason
        if out.ok and p.kind in chat.KINDS:
            out.line = chat.line(self.name_of(p.author), p.payload)
        if out.seat is None:
            out.seat = self.seat_of(p.author)
        return out

    def _create(self, entry: Entry, payload: list[Any], events: list[Event]) -> str:
        reason, _ = self.roster.member_change(entry)
        if reason:
            return reason
        humans = len(self.roster.owners)
        host = payload[6] if len(payload) > 6 else payload[1]  # the host's own name, or the table's
        self.seats = [Seat(entry.decoded.author if s == 0 else None, host if s == 0 else "")
                      for s in range(humans)]
        self.seats += [Seat(None, f"cpu {s}", CPU) for s in range(humans, self.config.players)]
        self._close_lobby()
        return ""

    def _join(self, entry: Entry, payload: list[Any], events: list[Event]) -> str:
        reason, seat = self.roster.member_change(entry)
        if reason or seat is None:
            return reason
        if self.seats[seat].owner == entry.decoded.author:
            return ""  # back at its seat: its machine takes it from the computer player with ``return``
        self.seats[seat] = Seat(entry.decoded.author, payload[1])
        self._close_lobby()
        return ""

    def _close_lobby(self) -> None:
        if self.phase == LOBBY and not self.roster.open:
            self.phase = SEEDING
            self._advance_seeding()

    def _leave(self, entry: Entry, payload: list[Any], events: list[Event]) -> str:
        reason, seat = self.roster.member_change(entry)
        if reason or seat is None:
            return reason
        if self.phase == LOBBY:
            self.seats[seat] = Seat(None, "")
            return ""
        if self.seats[seat].owner == entry.decoded.author:  # kept for it: a computer player plays meanwhile
            self.seats[seat].controller = BOT
            self._out_of_seeding(seat)
        self.returning.discard(seat)
        author, h = entry.decoded.author, self.hidden
        if h is not None and h.stage == REVEAL and author in h.members and author not in h.record.reveals:
            name = self.name_of(author)  # the round is decided: leaving now is leaving the audit
            text = (f"{name} (key {author.hex()[:8]}) left at the end of the round without showing its "
                    "seed (the others rebuild it): that seat goes to a computer player")
            events.append(Event("fault", None, text, member=author.hex(), code="withheld"))
            self._to_cpu(seat)
            self._gone(author, events, "left at the audit", name)
            return ""
        self._gone(author, events, "left")
        return ""

    def _evict(self, entry: Entry, payload: list[Any], events: list[Event]) -> str:
        owner = self.roster.evictee(entry)
        reason, seat = self.roster.member_change(entry)
        if reason or seat is None or owner is None:
            return reason
        events.append(Event("evict", seat, "was silent in the lobby and is no longer at the table",
                            member=owner.hex()))
        if self.roster.open:  # the lobby, open again if this seat's join had closed it
            self.phase, self.stage, self.commits, self.reveals = LOBBY, "commit", {}, {}
            self.seats[seat] = Seat(None, "")
        else:
            self._to_cpu(seat)
        return ""

    def _to_cpu(self, seat: int) -> None:
        """A seat becomes a computer seat for good; in the seed agreement it drops out."""
        old = self.seats[seat]
        self.seats[seat] = Seat(None, f"{old.name} (cpu)", CPU)
        self._out_of_seeding(seat)

    def _out_of_seeding(self, seat: int) -> None:
        """A seat no person plays any more takes no further part in the seed agreement."""
        if self.phase == SEEDING:
            if seat not in self.reveals:
                self.commits.pop(seat, None)
            self._advance_seeding()

    def _commit(self, entry: Entry, payload: list[Any], events: list[Event]) -> str:
        seat = self._seeding_seat(entry, "commit")
        if isinstance(seat, str):
            return seat
        if seat in self.commits:
            return "already committed"
        if payload[1] in self.spent:
            return "a commitment of an earlier match"
        self.commits[seat] = payload[1]
        self._advance_seeding()
        return ""

    def _reveal(self, entry: Entry, payload: list[Any], events: list[Event]) -> str:
        seat = self._seeding_seat(entry, "reveal")
        if isinstance(seat, str):
            return seat
        if seat in self.reveals:
            return "already revealed"
        assert self.table_id is not None
        if commitment(self.table_id, entry.decoded.author, payload[1]) != self.commits.get(seat):
            return "the nonce does not match the commitment"
        self.reveals[seat] = payload[1]
        self._advance_seeding()
        return ""

    def _seeding_seat(self, entry: Entry, stage: str) -> int | str:
        if self.phase != SEEDING or self.stage != stage:
            return f"not in the {stage} stage of the seed agreement"
        seat = self.seat_of(entry.decoded.author)
        if seat is None or seat not in self.seeding_seats():
            return "no seat in the seed agreement"
        return seat

    def _forfeit(self, entry: Entry, payload: list[Any], events: list[Event]) -> str:
        if entry.decoded.author != entry.sequencer:
            return "only the sequencer forfeits a seat"
        seat = payload[1]
        if self.phase != SEEDING or seat not in self.missing():
            return "that seat is not holding up the seed agreement"
        events.append(Event("forfeit", seat, "forfeits the seat to a computer player"))
        self._to_cpu(seat)
        return ""

    def _advance_seeding(self) -> None:
        if self.phase != SEEDING:
            return
        if self.stage == "commit" and not self.missing():
            self.stage = "reveal"
        if self.stage == "reveal" and not self.missing():
            assert self.table_id is not None
            nonces = b"".join(self.reveals[s] for s in sorted(self.reveals))
            tag = hosting.seed_tag(self.match_no)
            self.seed = hashlib.sha256(SEED_DOMAIN + self.table_id + tag + nonces).digest()
            self.phase = PLAYING
            if self.hides() and len(self.dealers()) > 1:
                solo = self.config.game == "solo"
                self._points = solo_points(self.table_id, self.config) if solo else \
                    scout_points(self.table_id, self.config.players)
                self._begin_round(0, None)
            else:
                self.match = Match(self.config, self.seed)

    def _act(self, entry: Entry, payload: list[Any], events: list[Event]) -> str:
        return self._move(entry, payload[1], payload[2], [], events)

    def _keys(self, entry: Entry, payload: list[Any], events: list[Event]) -> str:
        if len(payload) == 3:  # key bundles its receiver said were withheld, put in the log
            if self.hidden is None:
                return "no hidden deal is under way"
            receiver, _ = payloads.read_logged_secret(payload)
            self.accused.pop((entry.decoded.author, receiver), None)  # answers that holder's accusation
            return ""
        seat, text, opens = payloads.read_play(payload)
        return self._move(entry, seat, text, opens, events)

    def _move(self, entry: Entry, seat: int, text: str, opens: list[PublicOpen], events: list[Event]) -> str:
        if self.phase != PLAYING or self.match is None:
            return "no match is being played"
        if seat >= len(self.seats):
            return f"there is no seat {seat}"
        author = entry.decoded.author
        owner = self.seats[seat]
        allowed = owner.owner == author if owner.controller == HUMAN \
            else author == self.bot_runner(entry.sequencer)
        if not allowed:
            return f"the author does not control seat {seat}"
        h = self.hidden
        try:
            action = self.match.parse_action(text) if h is None else h.parse(text)
            if h is not None:
                if h.stage != PLAY:
                    return "the cards are not dealt yet"
                proven = h.check_opens(h.shown(seat, action), opens)
                if isinstance(proven, str):
                    return proven
                h.record.opens += [(author, o) for o in opens]
                if h.put_public(self.match.state, seat, action, proven):
                    return ""  # the setup card is turned: no move of the round
            events += self.match.apply(seat, action)
        except (IllegalAction, ParseError) as err:
            return str(err) or type(err).__name__
        if h is not None:
            h.after(self.match.state, seat, action)
            h.moves.append(Move(author, seat, text))
            if self.match.state.is_over():
                h.stage = REVEAL
                events.append(Event("audit", None, "the round is over: every machine shows its seed "
                                    "for the audit"))
        if self.match.is_over():
            self.phase = OVER
        return ""

    # --- hidden hands: the deal, the audit ------------------------------------------------------
    def _begin_round(self, round_no: int, cards: list[int] | None) -> None:
        """A hidden round's deal begins: the dealing members commit to their seeds."""
        assert self.table_id is not None and self.seed is not None
        for seat in sorted(self.returning):
            if self.seats[seat].controller == BOT and self.seats[seat].owner is not None:
                self.seats[seat].controller = HUMAN
        self.returning = set()
        if cards is None:
            cards = list(range(len(self._points)))
        game = SoloRound if self.config.game == "solo" else ScoutRound
        self.hidden = game(self.table_id, self.config, self.seed, round_no, self.dealers(), cards,
                           self._points)
        self.hidden.escrowed = self.roster.escrow
        self.accused, self.accusations = {}, Counter()

    def _deal(self, entry: Entry, payload: list[Any], events: list[Event]) -> str:
        if self.hidden is None:
            return "no hidden deal is under way"
        return self.hidden.on_deal(entry.decoded.author, payloads.read_deal(payload))

    def _deck(self, entry: Entry, payload: list[Any], events: list[Event]) -> str:
        h = self.hidden
        if h is None:
            return "no hidden deal is under way"
        before = h.stage
        reason = h.on_deck(entry.decoded.author, payloads.read_deck(payload))
        if reason or before != DEAL or h.stage != PLAY:  # a reshuffle's step, or the deal goes on
            return reason
        if self.match is None:
            self.match = Match(self.config, h.seed, h.first_state())
        else:
            self.match.next_round(h.first_state())
            events.append(Event("round_start", None, f"round {self.match.round_no + 1} dealt",
                                round=self.match.round_no + 1))
        events.append(Event("dealt", None, "the cards are dealt: each machine sees only its own hands"
                            + self._runner_words(h)))
        return ""

    def _seed(self, entry: Entry, payload: list[Any], events: list[Event]) -> str:
        h = self.hidden
        if h is None:
            return "no hidden deal is under way"
        reason = h.on_seed(entry.decoded.author, payloads.read_seed(payload))
        if h.escrow_fault is not None:  # a gone member's shares do not rebuild its seed: it cheated
            fault, h.escrow_fault = h.escrow_fault, None
            names = {s.owner: s.name for s in self.seats if s.owner is not None}
            events.append(Event("fault", None, fault.show(names), member=fault.member.hex(), code=fault.code))
            seat = self.seat_of(fault.member)
            if seat is not None:
                self._to_cpu(seat)
            assert self.match is not None
            events += self.match.finish_round(None, f"{names.get(fault.member, '?')}'s part of the deal "
                                              "could not be rebuilt")
            self._next_deal(None)
            return ""
        if reason or h.outcome is None:
            return reason
        assert self.match is not None
        self.audited.append(h)
        if h.outcome.faults:
            names = {s.owner: s.name for s in self.seats if s.owner is not None}
            for fault in h.outcome.faults[:1]:
                text = fault.show(names) + ": that seat goes to a computer player"
                events.append(Event("fault", None, text, member=fault.member.hex(), code=fault.code))
            first = h.outcome.faults[0].member
            named = self.seat_of(first)
            if named is not None:
                self._to_cpu(named)
            events += self.match.finish_round(None, f"the audit found that {names.get(first, '?')} cheated")
        else:
            events += self.match.finish_round(h.outcome.scores)
        self._next_deal(h)
        return ""

    def _next_deal(self, done: HiddenRound | None) -> None:
        """After a hidden round (audited, or void), deal the next one, if the match goes on."""
        assert self.match is not None
        if self.match.is_over():
            self.phase, self.hidden = OVER, None
            return
        round_no = self.match.round_no if self.match.redeal else self.match.round_no + 1
        cards = done.next_cards() if done is not None else None
        self._begin_round(round_no, None if cards is None else list(cards))

    def holding_up(self) -> list[bytes]:
        """Hidden hands: the members whose entry the round waits for now (a commitment, the next
        step, a seed, or an answer to an accusation of withholding keys), in seat order."""
        due = set(self.stage_due()) | {accused for accused, _ in self.accused}
        return [m for m in self.hidden.members if m in due] if self.hidden is not None else []

    def stage_due(self) -> list[bytes]:
        """The members whose entry the round's stage waits for (a commitment, the next step of a
        deal, a seed at the audit); accusations aside."""
        h = self.hidden
        if h is None:
            return []
        due: set[bytes] = set()
        if h.stage == COMMIT:
            due |= {m for m in h.members if m not in h.record.commitments}
        elif h.stage in (DEAL, PLAY) and h.dealing() is not None:  # the round's deal, or a reshuffle
            n = h.dealing()
            assert n is not None
            spec = h.specs[n]
            due.add(spec.members[spec.author(len(h.deals[n].digests))])
        elif h.stage == REVEAL:
            due |= {m for m in h.members if m not in h.record.reveals and m not in h.gone}
        due |= set(h.shares_due())
        return [m for m in h.members if m in due]

    def pending_accusations(self, accused: bytes | None = None) -> list[tuple[bytes, bytes, int]]:
        """The accusations of withholding keys not answered yet: (accused, accuser, log index),
        in log order; only those against ``accused`` if given."""
        return sorted(((a, b, i) for (a, b), i in self.accused.items() if accused in (None, a)),
                      key=lambda x: x[2])

    def progress(self) -> tuple[Any, ...]:
        """What changes whenever a hidden round's stage moves on (the sequencer's patience with the
        stage starts again; each accusation has its own)."""
        h = self.hidden
        if h is None:
            return ()
        return (h.round_no, h.stage, len(h.record.commitments), tuple(len(d.digests) for d in h.deals),
                len(h.record.reveals), len(h.gone), sum(map(len, h.released.values())), len(h.complaints()))

    def _fault(self, entry: Entry, payload: list[Any], events: list[Event]) -> str:
        """A holder accuses a member of withholding its keys (the member must then put them in the
        log for that holder), or shows a key that does not open its card (the round stops for the
        audit); a member says the escrow share a dealer sealed for it does not check; the sequencer
        names a member that holds the round up past the timeout (it loses its seat, and the round
        goes on without it where the escrow allows: ``_gone``). A sequencer's naming carries an
        integer detail; an accusation carries the slots its author waits for (docs/hidden-hands.md,
        section 7)."""
        h = self.hidden
        if h is None:
            return "no hidden deal is under way"
        f = payloads.read_fault(payload)
        author = entry.decoded.author
        if f.round_no != h.round_no or f.accused not in h.members or f.accused == author:
            return "not a member of this round's deal"
        if f.code == "withheld" and author == entry.sequencer and isinstance(f.detail, int):
            if f.accused not in self.holding_up():
                return "that member holds nothing up"
            events.append(Event("fault", None, self._held_up_text(f.accused), member=f.accused.hex(),
                                code="withheld"))
            self.accused = {pair: i for pair, i in self.accused.items() if pair[0] != f.accused}
            name = self.name_of(f.accused)
            seat = self.seat_of(f.accused)
            if seat is not None:
                self._to_cpu(seat)
            self._gone(f.accused, events, "was named", name)
            return ""
        evidence = f.code == "key" and h.stage == REVEAL and bool(h.record.evidence)
        early = f.code == "escrow" and h.stage in (DEAL, PLAY)
        if (h.stage != PLAY and not evidence and not early) or author not in self.roster.members:
            return "no cards are in play"
        if f.code == "withheld":
            if f.accused in h.gone:
                return "that member is gone: its part of the deal is rebuilt"
            pair = (f.accused, author)
            if pair in self.accused:
                return "that accusation waits for its answer already"
            if self.accusations[pair] >= MAX_ACCUSATIONS:
                return "too many accusations of that member this round"
            if not any(self.holder(seat, entry.sequencer) == author for seat in range(len(h.hands))):
                return "the accuser holds no cards"
            self.accused[pair] = entry.index
            self.accusations[pair] += 1
            events.append(Event("accused", None, f"{self.name_of(author)} waits for keys from "
                                f"{self.name_of(f.accused)}'s machine, which must now put them in the log",
                                member=f.accused.hex()))
            return ""
        if f.code == "escrow":  # my sealed share of its seed does not check: it must show it in the clear
            return h.complain(f.accused, author)
        if f.code == "key" and isinstance(f.detail, bytes):
            try:
                bundle = read_bundle(f.detail)
            except DeckError as err:
                return str(err)
            if (bundle.sender, bundle.receiver, bundle.round_no) != (f.accused, author, h.round_no):
                return "the evidence is not a bundle of the accused to the accuser"
            h.record.evidence.append((author, bundle))
            if h.stage == PLAY:
                h.stage = REVEAL
                events.append(Event("audit", None, "a card did not open with its keys: the round stops and "
                                    "every machine shows its seed for the audit"))
            return ""
        return "not a fault a member reports"

    def _held_up_text(self, member: bytes) -> str:
        """Why the sequencer names ``member``, in player words."""
        h = self.hidden
        who = f"{self.name_of(member)} (key {member.hex()[:8]})"
        if any(a == member for a, _ in self.accused):
            why = "did not hand over the card keys another player asked for"
        elif h is not None and member in h.shares_due():
            why = "did not give its share of a departed player's part of the deal"
        elif h is not None and h.stage == REVEAL:
            why = "did not show its seed at the end of the round (the others rebuild it)"
        else:
            why = "did not take its turn in the deal"
        return f"{who} {why}: that seat goes to a computer player"

    def _runner_words(self, h: HiddenRound) -> str:
        """Whose machine plays the computer players and so sees their cards ("" without any)."""
        runner = self.bot_runner(None)
        if not self.bot_seats() or runner is None:
            return ""
        return f"; {self.name_of(runner)}'s machine plays the computer players and sees their cards"

    def _gone(self, owner: bytes | None, events: list[Event], why: str, name: str = "") -> None:
        """Hidden hands: ``owner`` (a dealing member) no longer plays its seat: it left (``why``), its
        seat was taken over, or it was named. Before the cards are dealt the deal begins again
        without it; in play or at the audit its seed is rebuilt from the others' escrow shares and a
        computer player plays on, so the round is played and scored; only when that cannot be is
        the round void, and the void names it and says why (docs/hidden-hands.md, section 7)."""
        h = self.hidden
        if h is None or owner is None or owner not in h.members or h.stage == DONE or owner in h.gone:
            return
        name = name or self.name_of(owner)
        if h.stage in (COMMIT, DEAL):  # nothing is dealt yet: the deal begins again without it
            if self.match is None:
                self._begin_round(0, None)
            else:
                self._begin_round(h.round_no, list(h.spec.cards))
            return
        cannot = h.can_rebuild(owner)
        if not cannot:
            runner = self.bot_runner(None)
            h.gone.append(owner)
            moved = self._runner_words(h) if runner != self.bot_runner(None) else ""
            events.append(Event("rebuild", None, f"{name} {why}: the other machines rebuild its part of the "
                                f"deal and the round goes on{moved}", member=owner.hex()))
            return
        assert self.match is not None
        events += self.match.finish_round(None, f"{name} {why} and {cannot}")
        self._next_deal(None)

    def _takeover(self, entry: Entry, payload: list[Any], events: list[Event]) -> str:
        seat = payload[1]
        if entry.decoded.author != entry.sequencer:
            return "only the sequencer takes a seat over"
        ok = (self.phase == PLAYING and seat < len(self.seats) and self.seats[seat].controller == HUMAN
              and self.seats[seat].owner not in (None, entry.sequencer))
        if not ok:
            return "that seat cannot be taken over"
        self.seats[seat].controller = BOT
        self.returning.discard(seat)
        self._gone(self.seats[seat].owner, events, "stopped answering")
        return ""

    def _return(self, entry: Entry, payload: list[Any], events: list[Event]) -> str:
        seat = payload[1]
        author = entry.decoded.author  # a member that left is back (a join) before it takes its seat
        ok = (self.phase == PLAYING and seat < len(self.seats) and self.seats[seat].controller == BOT
              and self.seats[seat].owner == author and author in self.roster.members)
        if not ok or seat in self.returning:
            return "that seat is not the author's to take back"
        if self.hidden is not None and self.hidden.stage != DONE:  # a computer player's machine saw its cards
            self.returning.add(seat)  # the peer tells it: "returning"
            return ""
        self.seats[seat].controller = HUMAN
        return ""

    def _start(self, entry: Entry, payload: list[Any], events: list[Event]) -> str:
        """The host's lobby controls (``start``, ``free``, ``options``; their rules over the roster:
        p2p/hosting.py), applied to the seats after the roster took them."""
        p = entry.decoded
        old = {s.owner: s for s in self.seats if s.owner is not None}
        reason, seat = self.roster.member_change(entry)
        if reason:
            return reason
        if p.kind == "free":
            assert seat is not None
            events.append(Event("freed", None, f"the host freed seat {seat}: {self.seats[seat].name} is no "
                                "longer at the table", member=(self.seats[seat].owner or b"").hex()))
            self.seats[seat] = Seat(None, "")
            return ""
        humans = len(self.roster.owners)
        if p.kind == "options":
            self.seats = [old[o] if o is not None else Seat(None, "") for o in self.roster.owners]
            self.seats += [Seat(None, f"cpu {s}", CPU) for s in range(humans, self.config.players)]
            events.append(Event("options_set", None,
                                f"the host set the options: {hosting.describe(self.config, humans)}"))
        else:
            free = [s for s, o in enumerate(self.roster.owners) if o is None]
            for s in free:
                self.seats[s] = Seat(None, f"cpu {s}", CPU)
            events.append(Event("early_start", None, "the host starts now: computer players take "
                                f"{len(free)} free seat{'s' if len(free) != 1 else ''}"))
        self._close_lobby()
        return ""

    _free = _options = _start

    def rematch_refusal(self, author: bytes) -> str:
        """Why ``author`` may not agree to a rematch now ("" if it may)."""
        if self.phase != OVER:
            return "the match is not over"
        if self.seat_of(author) not in self.seeding_seats():
            return "no seat of the author's plays"
        if author in self.rematch:
            return "already agreed"
        return ""

    def _rematch(self, entry: Entry, payload: list[Any], events: list[Event]) -> str:
        """A person agrees to a rematch; once every person seated has, the new match begins."""
        author = entry.decoded.author
        reason = self.rematch_refusal(author)
        if reason:
            return reason
        self.rematch.append(author)
        waiting = [s for s in self.seeding_seats() if self.seats[s].owner not in self.rematch]
        events.append(Event("rematch", self.seat_of(author), "wants a rematch"
                            + (f" ({len(waiting)} more to agree: 'rematch')" if waiting else "")))
        if not waiting:
            self._begin_next(events)
        return ""

    def _begin_next(self, events: list[Event]) -> None:
        """The same seats and options play a new match: a fresh seed agreement (and hidden deal)."""
        assert self.match is not None
        self.past.append(self.match)
        self.spent |= set(self.commits.values())
        self.match_no += 1
        self.phase, self.stage, self.commits, self.reveals = SEEDING, "commit", {}, {}
        self.seed, self.match, self.hidden, self.audited = None, None, None, []
        self.accused, self.rematch = {}, []
        self.returning = set()
        events.append(Event("new_match", None, f"everyone agreed: match {self.match_no + 1} begins with the "
                            "same seats and options", match=self.match_no))
        self._advance_seeding()

    def nonce_spent(self, author: bytes, nonce: bytes) -> bool:
        """Whether ``nonce`` was ``author``'s in an earlier match of the table (a new one is drawn)."""
        return self.table_id is not None and commitment(self.table_id, author, nonce) in self.spent

    def _silent(self, entry: Entry, payload: list[Any], events: list[Event]) -> str:
        """The sequencer tells the table it has not heard a seated player for a while (before it
        takes the seat over): a notice, nothing changes."""
        seat = payload[1]
        if entry.decoded.author != entry.sequencer:
            return "only the sequencer says who is not answering"
        ok = self.phase == PLAYING and seat < len(self.seats) and self.seats[seat].controller == HUMAN
        return "" if ok else "that seat is not played by a person"

    def _noop(self, entry: Entry, payload: list[Any], events: list[Event]) -> str:
        return "" if entry.decoded.author == entry.sequencer else "only a sequencer marks its term"

    def _say(self, entry: Entry, payload: list[Any], events: list[Event]) -> str:
        """A chat line or an emote: checked and counted, nothing else changes (``p2p/chat.py``)."""
        author = entry.decoded.author
        reason = chat.refusal(author, payload, self.roster.members, self.talk)
        if not reason:
            self.talk.spend(author)
        return reason

    _emote = _say


def _summary(payload: list[Any]) -> str:
    """A short readable form of a payload (no secrets: nonces and commitments are abbreviated)."""
    kind = str(payload[0]) if payload else "?"
    if kind in ("commit", "reveal"):
        return kind
    if kind == "create" and len(payload) > 2 and isinstance(payload[2], dict):
        return f"create {payload[1]!s} ({payload[2].get('game')})"
    if kind == "keys" and len(payload) == 4:
        return f"act {payload[1]} {payload[2]} (with proofs)"
    if kind == "deck" and len(payload) > 2:
        return f"deck step {payload[2]}"
    if kind in HIDDEN_KINDS:
        return kind
    return chat.printable(" ".join(str(x) for x in payload))[:80]
