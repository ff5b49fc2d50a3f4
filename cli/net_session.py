"""A seat at a LAN table (``NetSession``): a ``p2p.peer.Peer`` on a ``p2p.node.Node``."""

from __future__ import annotations

from typing import Any

from cardtable.cli import table_controls
from cardtable.cli.log_frames import match_moves
from cardtable.cli.player_words import Note, match_length, presence_words, shown, table_words
from cardtable.cli.public_view import public_observation
from cardtable.cli.seat_bots import shown_names
from cardtable.cli.session import BaseSession
from cardtable.cli.words import Speaker
from cardtable.engine.game import Event
from cardtable.engine.match import Match

COME_BACK = ("a computer player plays your seat on, and the round counts as played (leaving never voids it), "
             "until you join again (the same join, while the match runs; you play from the next deal)")
"""What becomes of a LAN seat its player leaves."""
MACHINE_WAIT = 2.0
"""Seconds a hidden round may wait for a machine before the status line says whose."""
PROTOCOL_NOTES = frozenset({"accused"})
"""Table events about the protocol, not the game: in the log and under ``-v``, not on the screen."""


class NetSession(BaseSession):
    """This peer's seat at a table, over ``p2p.node.Node`` (asyncio) and ``p2p.peer.Peer``.

    The node's ``on_event`` is taken over: peer events become notes. Game events arrive as the
    entries are committed (the words of the engine, as ``Applied.events`` holds them); a proposal
    that the rules refused when it was applied (someone else jumped in first) comes back as a
    ``refused`` note. The seat's view is the peer's replica of the match.
    """

    RETOLD = 40
    """Game events a resumed seat is told again: the newest of the round it resumes in."""

    def __init__(self, node: Any, peer: Any, keep: bool = False) -> None:
        super().__init__()
        self.node = node
        self.peer = peer
        self.keep = keep  # a private table (``play``): leaving keeps the match to resume, no leave entry
        self.kept = False
        self._silent: set[int] = set()  # seats told as not answering, not yet heard again
        node.on_event = self._on_peer_event
        self._retell()

    def digest(self) -> str | None:
        """The table's digest (with hidden hands, over what every machine sees)."""
        return self.peer.table.digest() if self.peer.table.match is not None else None

    def _retell(self) -> None:
        """A peer resumed from its store applied its committed entries quietly: tell the round
        so far again (its newest events), so that the log of a resumed client is not empty."""
        from cardtable.p2p.table import TableState

        committed = self.peer.log[:self.peer.commit_index]
        if self.peer.table.match is None or not committed:
            return
        table = TableState()
        notes: list[Note] = []
        for entry in committed:
            rounds = table.match.round_no if table.match is not None else -1
            applied = table.apply(entry)
            if table.match is not None and table.match.round_no != rounds:
                notes = []  # a new round: what came before is in the round summaries
            if applied.ok:
                notes += [Note.of(e) for e in applied.events]
        for note in notes[-self.RETOLD:]:
            self._emit(note)

    @property
    def seat(self) -> int | None:
        return self.peer.my_seat  # type: ignore[no-any-return]

    def match(self) -> Match | None:
        return self.peer.table.match  # type: ignore[no-any-return]

    def observation(self) -> dict[str, Any] | None:
        """The seat's view; a spectator's (no seat): the public one (``cli/public_view.py``)."""
        m = self.match()
        if m is None or self.seat is not None:
            return super().observation()
        return public_observation(m)

    def phase(self) -> str:
        return "left" if self.kept or self.peer.left or self.peer.leaving else str(self.peer.table.phase)

    def names(self) -> list[str]:
        return shown_names([shown(s.name) or f"seat {i}" for i, s in enumerate(self.peer.table.seats)],
                           str(self.peer.bots_spec))

    def controllers(self) -> list[str]:
        return [str(s.controller) for s in self.peer.table.seats]

    def moves(self) -> list[tuple[int, str]] | None:
        """The committed moves of the match being played (replayed from the peer's log; after a
        rematch, the new match's only); None where the machines dealt the cards together (hidden
        hands): the seed alone does not deal them."""
        if self.peer.table.match is None or self.peer.table.match.dealt_by_table:
            return None
        return match_moves(self.peer.log[:self.peer.commit_index])

    def status(self) -> str:
        t = self.peer.table
        phase = self.phase()
        if phase == "lobby":
            taken = sum(1 for o in t.roster.owners if o)
            return f"waiting for players: {taken} of {len(t.roster.owners)} seats taken"
        if phase == "seeding":
            return "agreeing on the shuffle (commit and reveal)"
        if t.table_id is None:
            return "joining the table"
        return phase

    def table_name(self) -> str:
        return shown(str(self.peer.table.name or ""))

    def machine_wait(self) -> str | None:
        wait = self.peer.waiting_for()
        if wait is None or wait[1] < MACHINE_WAIT:
            return None
        key, seconds = wait
        seat = self.peer.table.seat_of(key)
        name = self.names()[seat] if seat is not None else f"a member ({key.hex()[:8]})"
        return f"waiting for {name}'s machine: {seconds:.0f} s"

    def sealed(self) -> bool:
        return self.peer.pass_key is not None

    def after_leaving(self) -> str:
        if self.keep:
            return "the match is kept for cardtable play --resume"
        if self.peer.watching:
            return "you stop watching; the match goes on"
        return COME_BACK

    def seat_holders(self) -> list[tuple[str, str]]:
        me = self.seat
        rows = []
        names = self.names()
        for s, seat in enumerate(self.peer.table.seats):
            if s == me:
                rows.append(("you", "you"))
            elif seat.controller == "cpu":
                rows.append((names[s], "computer"))
            elif seat.owner is None:
                rows.append(("free", "free"))
            else:
                rows.append((shown(seat.name) or f"seat {s}", "player"))
        return rows

    def propose(self, text: str) -> str | None:
        text = text.strip()
        why = self.explain(text)
        if why is not None:
            return why
        self.node.propose(text)
        return None

    def leave(self) -> None:
        if self.keep and not self.is_over():
            if not self.kept:
                self.kept = True
                self._emit(Note("table", self.seat, "You leave the table; the match is kept where it stands: "
                                                    "cardtable play --resume takes it up again"))
        elif not self.peer.leaving and not self.peer.left:
            self._emit(Note("table", self.seat, f"You leave the table: {self.after_leaving()}"))
            self.node.leave()

    def talks(self) -> bool:
        return not self.keep and not self.peer.watching  # a spectator is no member: the table hears it not

    def talk(self, text: str) -> str | None:
        text = text.strip()
        if not self.talks():
            return super().talk(text)
        if text.startswith("/"):
            self.node.emote(text[1:].strip().lower())
        else:
            self.node.say(text)
        return None  # a line the table would refuse comes back as a refused event, with its reason

    def control(self, word: str, rest: str) -> str | None:
        if self.keep:
            return super().control(word, rest)
        return table_controls.control(self.node, self.peer, word, rest)

    def hosts(self) -> bool:
        return not self.keep and table_controls.hosting(self.peer)

    def rematches(self) -> bool:
        t = self.peer.table
        return not self.keep and not self.peer.left and t.phase == "over" and self.peer.key not in t.rematch \
            and t.seat_of(self.peer.key) in t.seeding_seats()

    def options(self) -> str:
        t = self.peer.table
        return "" if t.config is None else f"{t.config.describe()} · {match_length(t.config.to_dict())}"

    def table_settings(self) -> tuple[Any, int] | None:
        t = self.peer.table
        if not self.hosts() or t.config is None:
            return None
        return t.config, sum(1 for s in t.seats if s.controller == "cpu")

    def rematch_wanted(self) -> bool:
        return not self.keep and not self.peer.left and self.peer.table.phase == "over" \
            and bool(self.peer.table.rematch)

    def _on_peer_event(self, event: Any) -> None:
        from cardtable.p2p import chat

        kind, data = event.kind, event.data
        talk = data.get("kind") in chat.KINDS  # talk moves no position: no new version, no prompt
        if kind == "applied":
            self.version += not talk
            if data.get("ok"):
                for event in data.get("events", []):
                    if event.get("kind") not in PROTOCOL_NOTES:
                        self._emit(Note.of(Event.from_dict(event)))
                self._presence(data)
            return
        if kind == "refused" and data.get("protocol"):
            return  # a hidden-hands step of this machine's, not a move: the log and -v have it
        if kind == "refused":
            reason = str(data.get("reason") or "refused")
            note = Note("info", None, f"not said: {reason}") if talk else Note("refused", self.seat, reason)
            self._emit(note)
            return
        if kind == "chat":
            self._emit(Note("chat", None, str(data.get("line"))))
            return
        if kind == "cards_open":  # more of this seat's cards are open here: the view changes
            self.version += 1
            return
        if kind == "freed" and self.peer.evicted:
            self._emit(Note("table", None, "The host freed your seat: you are no longer at the table"))
            return
        seat = data.get("seat")
        if kind == "silent" and isinstance(seat, int):
            self._silent.add(seat)
        elif kind in ("return", "returning", "takeover", "leave", "forfeit") and isinstance(seat, int):
            self._silent.discard(seat)  # told otherwise
        text = table_words(kind, data, Speaker(self.seat, self.names()))
        if text is not None:
            self.version += 1
            self._emit(Note("table", None, text))

    def _presence(self, data: dict[str, Any]) -> None:
        """Another member's entry in the log, as presence: a join before the match is "NAME joined"
        (a join during the match is a member back at its seat: its ``return`` tells it); the
        first entry of a seat told as not answering, "NAME is back"."""
        seat = data.get("seat")
        if not isinstance(seat, int) or seat == self.seat or seat >= len(self.peer.table.seats):
            return
        name = self.names()[seat]
        if data.get("kind") == "join" and self.peer.table.match is None:
            said = presence_words("joined", {"name": name, "seat": seat})
        elif seat in self._silent and data.get("kind") not in ("return", "leave", "join"):  # told by theirs
            self._silent.discard(seat)
            said = presence_words("return", {"name": name, "seat": seat})
        else:
            return
        self._emit(Note("table", None, str(said)))
