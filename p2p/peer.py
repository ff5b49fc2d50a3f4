"""The sans-I/O peer: Raft-style ordering of signed proposals into one table log.

``Peer`` takes datagrams (``receive``), the passing of time (``timer``) and its user's
actions (``propose_action``, ``leave``) and returns an ``Output``: datagrams to send, the
next deadline (call ``timer`` then) and events. It has no sockets, no clock and no global
randomness: time comes in as ``now``; randomness (table id, incarnation, election timeouts,
the seed nonce) from the ``seed`` given at construction, which must be secret random bytes
outside tests. docs/protocol.md is the protocol.

API notes beyond the contract (for the adapter):
- every factory takes ``auto`` (a bot spec that plays this peer's own seat) and ``bots``
  (the spec of the computer players the sequencer runs); ``BOT_DEFAULT`` is the default;
- ``peer.port`` (default 0) is put in beacons; 0 tells a listener to use the beacon's
  source port, so set it when beacons are not sent from the peer's unicast socket;
- ``leave`` proposes the leave; the peer goes on until the event ``left`` (the leave is
  committed), then stays silent;
- ``Timeouts`` (every factory takes ``timeouts``) holds the protocol's timers and
  ``bot_delay``, how long the sequencer lets people act before a computer player moves
  (0.8 s; 0 is fine for headless runs);
- extra event kinds: ``forfeit`` (seat), ``evicted`` (seat: its member was silent in the
  lobby and is out; when that is this peer, ``left`` follows), ``refused`` (one of this peer's
  own proposals was refused by the rules: index, kind, reason), ``resumed`` (commit index),
  ``left``, ``equivocation`` (a sequencer proved to show two histories: key, seat, term,
  index), ``rewound`` (entries from index on were another history and are undone),
  ``censored`` (a sequencer left a proposal out: key, seat, the seat left out, term),
  ``spectator`` and ``spectator_gone`` (the sequencer took or dropped a spectator: name, how
  many watch now; ``p2p/spectators.py``).
"""

from __future__ import annotations

import collections
from typing import Any

from cardtable.ai.bots import Bot
from cardtable.engine.shuffle import Stream
from cardtable.p2p import admission, chat, freshness, lobby, seal, wire
from cardtable.p2p.addresses import Addresses
from cardtable.p2p.chain import Chain
from cardtable.p2p.discovery import encode_beacon
from cardtable.p2p.driving import Driving
from cardtable.p2p.elections import Elections
from cardtable.p2p.hidden.bundles import decode_secret, encode_secret
from cardtable.p2p.hidden.group import DeckError
from cardtable.p2p.hidden.side import HiddenSide
from cardtable.p2p.identity import Identity
from cardtable.p2p.lobby_controls import LobbyControls
from cardtable.p2p.membership import Membership
from cardtable.p2p.peer_state import (
    BROADCAST,
    CANDIDATE,
    FOLLOWER,
    LEADER,
    Addr,
    Follower,
    Output,
    Own,
    PeerEvent,
    Spectator,
    Timeouts,
    Witnessed,
)
from cardtable.p2p.proposals import Proposals
from cardtable.p2p.replication import Replication
from cardtable.p2p.roundtrip import RoundTrips
from cardtable.p2p.spectators import Spectators
from cardtable.p2p.store import Store
from cardtable.p2p.table import BOT, LOBBY, PLAYING, Roster, TableState
from cardtable.p2p.wire import (
    Append,
    AppendOk,
    Beacon,
    Entry,
    Head,
    Heartbeat,
    Join,
    Probe,
    Propose,
    Redirect,
    Secret,
    Vote,
    VoteAsk,
    Watch,
    WireError,
)

__all__ = ["BOT_DEFAULT", "BROADCAST", "Addr", "Output", "Peer", "PeerEvent", "Timeouts"]

BOT_DEFAULT = "heuristic"
TIMEOUTS = Timeouts()  # the factories' default
THINK_ROUNDS = 32


class Peer(LobbyControls, Driving, Proposals, Elections, Chain, Replication, Addresses, Membership,
           Spectators):
    """One player's replica of a table; see the module docstring and docs/protocol.md.

    Its parts, one per concern, are listed in ``p2p/peer_state.py``; this class holds the
    factories, the public surface, the framing of datagrams and the clock."""

    def __init__(self, identity: Identity, store: Store, *, now: float, seed: bytes,
                 passphrase: str | None, bots: str, auto: str | None, timeouts: Timeouts) -> None:
        self.identity = identity
        self.key = identity.key
        self.store = store
        self.timeouts = timeouts
        self.pass_key: seal.Seal | None = None  # the table's seal: set with the table id (seal.for_table)
        self.bots_spec = bots
        self.auto = auto
        self.rng = Stream(bytes(seed), "p2p/peer")
        self.port = 0
        self.name = ""
        self.table_id: bytes | None = None
        self.table = TableState()
        self.term = 0
        self.voted_for: bytes | None = None
        self.log: list[Entry] = []
        self.raw: list[bytes] = []
        self.hashes: list[bytes] = []  # the chain hash at each index (p2p.chain)
        self.liars: dict[bytes, tuple[wire.Witness, wire.Witness]] = {}  # key -> proof it equivocated
        self.heads_heard: dict[bytes, tuple[int, int, bytes]] = {}  # member -> (index, entry term, hash)
        self.head_told: tuple[int, bytes] = (0, wire.GENESIS)
        self.proof_sends = 0
        self.proof_at = now
        self.roster = Roster()
        self.commit_index = 0
        self.role = FOLLOWER
        self.leader: bytes | None = None
        self.leader_addr: Addr | None = None
        self.leader_commit = 0
        self.addrs: dict[bytes, Addr] = {}
        self.addr_seen: dict[bytes, float] = {}
        self.probes: dict[bytes, tuple[Addr, bytes, float]] = {}  # member -> (new address, nonce, sent)
        self.heard: dict[bytes, float] = {}
        self.followers: dict[bytes, Follower] = {}
        self.spectators: dict[bytes, Spectator] = {}
        self.watching = False
        self.watch_at = now
        self.watch_tries = 0
        self.pair_keys: dict[tuple[bytes, bytes], bytes | None] = {}  # (table, member): heartbeat key
        self.round_trips = RoundTrips(timeouts.resend, timeouts.resend_max)
        self.votes: set[bytes] = set()
        self.lost: set[bytes] = set()  # members that would vote for this candidate but lost their store
        self.refused: set[bytes] = set()  # members that would not vote for this candidate
        self.incarnations: dict[bytes, list[int]] = {}  # incarnations JOINs announced, per member
        self.incarnation_at: dict[bytes, float] = {}  # when a member's JOIN last announced a new one
        self.buckets: dict[bytes, tuple[float, float]] = {}  # member -> (tokens, when) (p2p.proposals)
        self.waiting: tuple[bytes, int, float] | None = None  # (sequencer, seq, since) of the own head
        self.censors: dict[bytes, float] = {}  # sequencers seen censoring -> when
        self.garblers: dict[bytes, float] = {}  # sequencers seen spoiling entries -> when (p2p.replication)
        self.bad_appends = 0  # APPENDs in a row with entries spoilt by the sequencer (p2p.replication)
        self.witnessed: dict[bytes, Witnessed] = {}  # author -> its proposal seen left out (p2p.proposals)
        self.vote_sent = 0.0
        self.vote_tries = 0
        self.standing = 0  # the term this peer stands for (p2p.elections)
        self.stand_past = 0  # a term its next candidacy stands past (p2p.elections)
        self.complaints: dict[bytes, tuple[int, float, float]] = {}  # starved members -> (index, since, last)
        self.complained: dict[bytes, float] = {}  # members taken at their word that they starve -> when
        self.stall: tuple[int, float, bytes] | None = None  # first uncommitted entry, since, sequencer
        self.step_up_at = float("-inf")  # when the sequencer may stand again for a member in a later term
        self.log_seqs: dict[tuple[bytes, int], int] = {}
        self.term_start = 0
        self.member_change = 0
        self.departed: dict[bytes, int] = {}  # leavers -> the index of their leave
        self.telling: dict[bytes, float] = {}  # leavers -> until when they hear that it committed
        self.noticed: dict[bytes, float] = {}  # silent players said to be so -> heard last then
        self.accusations_seen: dict[int, float] = {}  # pending accusations (log index) -> seen since
        self.leader_since = now
        self.incarnation = 0
        self.next_seq = 1
        self.queue: list[Own] = []
        self.propose_at = now
        self.propose_tries = 0
        self.contact: Addr | None = None
        self.contacts: list[Addr] = []  # a joiner's addresses to try in turn (p2p.admission)
        self.sponsor: bytes | None = None  # before it holds a log: the sequencer a member named
        self.cookie: bytes | None = None  # the sequencer's cookie for this peer's join (p2p.lobby)
        self.door = lobby.Door(bytes(self.rng.below(256) for _ in range(32)))
        self.hello = False
        self.hello_at = now
        self.amnesiac = False
        self.leader_heard = float("-inf")
        self.leaving = False
        self.evicted = False
        self.started = False
        self.busy = False
        self.nonce: bytes | None = None
        self.side = HiddenSide(identity, self._random_bytes, {}, store.set_meta)
        self.bots: dict[int, Bot] = {}
        self.auto_bot: Bot | None = None
        self.asked_at = -1  # the table's position at which this peer's own seat's bot was asked
        self.bots_asked_at = -1  # ... and the computer players (sequencer)
        self.due_at = -1  # ... and this machine made a move only it could make (hidden hands)
        self.applied_at = now  # when the last committed entry that is not talk was applied
        self.stage: tuple[Any, ...] = ()
        self.stage_since = now
        self.beacon_at = now
        self.left = False
        self.dropped: collections.Counter[str] = collections.Counter()
        self.stamps = freshness.Stamps()
        self.seen = freshness.Seen()
        self.seen_saved: dict[bytes, int] = {}
        self.now = now
        self.election_at = now + self._election_timeout()
        self._out = Output()

    # --- factories -------------------------------------------------------------------------------
    @classmethod
    def host(cls, identity: Identity, store: Store, config: Any, name: str, cpu_seats: int, *, now: float,
             seed: bytes, passphrase: str | None = None, bots: str = BOT_DEFAULT, auto: str | None = None,
             timeouts: Timeouts = TIMEOUTS, deal: str = "open", player: str | None = None) -> Peer:
        """Create a table ``name`` (its first sequencer) with ``cpu_seats`` computer seats; ``deal``:
        ``hidden`` (the members deal together, docs/hidden-hands.md) or ``open`` (from the seed);
        ``player``: the host's own name at it (None: the table's)."""
        peer = cls(identity, store, now=now, seed=seed, passphrase=passphrase, bots=bots, auto=auto,
                   timeouts=timeouts)
        peer.table_id = peer._random_bytes(wire.ID_BYTES)
        peer.pass_key = seal.for_table(passphrase, peer.table_id)
        store.set_meta("passphrase", passphrase is not None)  # so that a restart can say it needs one
        peer.name = name[: wire.MAX_NAME]
        peer._start_incarnation(peer._random_int())
        peer._save_meta()
        peer._save_wire()
        peer._set_term(1, peer.key)
        peer._become_leader(noop=False)
        mine = [] if player is None else [player[: wire.MAX_NAME]]
        peer._propose(["create", peer.name, config.to_dict(), cpu_seats, deal, 1, *mine])
        peer._after()
        return peer

    @classmethod
    def joiner(cls, identity: Identity, store: Store, table_id: bytes, contact: Addr, name: str, *,
               now: float, seed: bytes, passphrase: str | None = None, bots: str = BOT_DEFAULT,
               auto: str | None = None, timeouts: Timeouts = TIMEOUTS, sequencer: bytes | None = None,
               contacts: list[Addr] | None = None) -> Peer:
        """Join the table ``table_id`` through ``contact`` (also: come back with an empty store).

        ``sequencer``: the key its beacon was signed with; then only that key (or the sequencer
        it names) is heard before the log arrives, so a beacon replayed from another address
        leads nowhere. ``contacts``: every address the beacon was heard from, tried in turn."""
        peer = cls(identity, store, now=now, seed=seed, passphrase=passphrase, bots=bots, auto=auto,
                   timeouts=timeouts)
        peer.table_id = bytes(table_id)
        peer.pass_key = seal.for_table(passphrase, peer.table_id)
        store.set_meta("passphrase", passphrase is not None)
        peer.name = name[: wire.MAX_NAME]
        peer.contact = contact
        peer.sponsor = sequencer
        peer.contacts = [contact] + [c for c in contacts or [] if c != contact][:3]
        peer.amnesiac = True
        peer._start_incarnation(peer._random_int())
        peer._save_meta()
        peer._save_wire()
        store.set_meta("contact", list(contact))
        peer._propose(["join", peer.name])
        return peer

    @classmethod
    def resume(cls, identity: Identity, store: Store, *, now: float, seed: bytes,
               passphrase: str | None = None, bots: str = BOT_DEFAULT, auto: str | None = None,
               timeouts: Timeouts = TIMEOUTS) -> Peer:
        """Restart from a non-empty store, as a new incarnation (the store's ``wire`` stays as it
        was: ``_save_wire``)."""
        stored = store.load()
        if stored.empty():
            raise ValueError("the store holds no table to resume")
        peer = cls(identity, store, now=now, seed=seed, passphrase=passphrase, bots=bots, auto=auto,
                   timeouts=timeouts)
        peer.term, peer.voted_for = stored.term, stored.vote
        for raw in stored.entries:
            peer._append_local(wire.decode_entry(raw), raw, persist=False)
        peer.table_id = peer.log[0].decoded.table_id
        peer.pass_key = seal.for_table(passphrase, peer.table_id)
        meta = stored.meta
        peer._load_liars(meta.get("liars"))
        peer.name = str(meta.get("name", ""))
        peer.addrs = {bytes(k): (str(h), int(p)) for k, h, p in meta.get("addrs", [])}
        for k, top in meta.get("seen", []):
            peer.seen.restore(bytes(k), int(top) + freshness.SAVE_STEP)
        if meta.get("nonce_table") == peer.table_id:
            peer.nonce = meta.get("nonce")
        kept = {k: bytes(v) for k, v in meta.items() if str(k).startswith(("hseed/", "hkey/"))}
        peer.side.seeds.update(kept)  # this machine's seeds and the keys it received
        peer.stamps = freshness.Stamps(int(meta.get("stamp", 0) or 0))
        peer._start_incarnation(int(meta.get("incarnation", 0)) + 1)
        peer._save_meta()
        peer._commit_to(min(int(meta.get("commit", 0)), len(peer.log)), quiet=True)
        peer.started = peer.table.seed is not None
        peer._event("resumed", commit=peer.commit_index)
        if meta.get("left"):
            peer._go_away()
        elif peer.key in peer.roster.members:
            peer.hello = True
        elif peer.table.phase == "lobby" and isinstance(meta.get("contact"), list):
            peer.contact = (str(meta["contact"][0]), int(meta["contact"][1]))  # its join got lost: again
            peer._propose(["join", peer.name])
        return peer

    @classmethod
    def come_back(cls, identity: Identity, store: Store, contact: Addr, *, now: float, seed: bytes,
                  passphrase: str | None = None, bots: str = BOT_DEFAULT, auto: str | None = None,
                  timeouts: Timeouts = TIMEOUTS, sequencer: bytes | None = None,
                  contacts: list[Addr] | None = None) -> Peer:
        """Sit down again, from the kept log, at a table this peer left while its match runs:
        a ``join`` through ``contact`` (as ``joiner``), then ``return`` takes the seat back from
        the computer player. (With an empty store, ``joiner`` does the same.)"""
        store.set_meta("left", False)
        peer = cls.resume(identity, store, now=now, seed=seed, passphrase=passphrase, bots=bots, auto=auto,
                          timeouts=timeouts)
        if peer.key not in peer.roster.members:
            peer.contact, peer.sponsor = contact, sequencer
            peer.contacts = [contact] + [c for c in contacts or [] if c != contact][:3]
            peer._propose(["join", peer.name])
        return peer

    @classmethod
    def spectator(cls, identity: Identity, store: Store, table_id: bytes, contact: Addr, name: str, *,
                  now: float, seed: bytes, passphrase: str | None = None, timeouts: Timeouts = TIMEOUTS,
                  sequencer: bytes | None = None, contacts: list[Addr] | None = None) -> Peer:
        """Watch the table ``table_id`` through ``contact`` without a seat (``p2p/spectators.py``);
        ``sequencer`` and ``contacts`` as for ``joiner``. ``store`` holds the log it is sent."""
        peer = cls(identity, store, now=now, seed=seed, passphrase=passphrase, bots=BOT_DEFAULT, auto=None,
                   timeouts=timeouts)
        peer.table_id = bytes(table_id)
        peer.pass_key = seal.for_table(passphrase, peer.table_id)
        peer.name = name[: wire.MAX_NAME]
        peer.watching = True
        peer.contact, peer.sponsor = contact, sequencer
        peer.contacts = [contact] + [c for c in contacts or [] if c != contact][:3]
        peer.amnesiac = True
        return peer

    # --- the public surface ----------------------------------------------------------------------
    def receive(self, datagram: bytes, addr: Addr, now: float) -> Output:
        self._begin(now)
        self._guarded(lambda: self._receive(bytes(datagram), addr))
        return self._finish()

    def timer(self, now: float) -> Output:
        self._begin(now)
        self._guarded(self._tick)
        return self._finish()

    def propose_action(self, action: str, now: float) -> Output:
        """Propose ``action`` (engine text notation) for this peer's own seat."""
        self._begin(now)
        seat, match = self.my_seat, self.table.match
        reason = "" if seat is not None and self.table.phase == PLAYING and not self.left and match else \
            "no seat of yours is in play"
        if not reason and match is not None:
            try:
                match.parse_action(action if len(action) <= wire.MAX_ACTION else "")
            except Exception as err:  # noqa: BLE001 - the engine's ParseError, or anything else odd
                reason = str(err) or "not an action"
        if reason:
            self._event("refused", index=None, kind="act", reason=reason)
        else:
            assert seat is not None
            payload = self._move_payload(seat, action)
            if payload is None:
                self._event("refused", index=None, kind="act", reason="your cards are not all open yet")
                return self._finish()
            if self.table.seats[seat].controller == BOT and not self._queued("return"):
                self._propose(["return", seat])
            self._propose(payload)
        return self._finish()

    def say(self, text: str, now: float) -> Output:
        """Propose a chat line (``p2p/chat.py``); a line the table would refuse is refused at once."""
        return self._talk(["say", text.strip() if isinstance(text, str) else text], now)

    def emote(self, name: str, now: float) -> Output:
        """Propose a quick emote (``chat.EMOTES``)."""
        return self._talk(["emote", name], now)

    def _talk(self, payload: list[Any], now: float) -> Output:
        self._begin(now)
        reason = "you are not at the table" if self.left or self.leaving else \
            self.table.refusal(self.key, payload)
        if not reason and sum(1 for o in self.queue if o.payload[0] in chat.KINDS) >= chat.BURST:
            reason = f"{chat.BURST} lines are still on their way: wait a moment"
        if reason:
            self._event("refused", index=None, kind=payload[0], reason=reason)
        else:
            self._propose(payload)
        return self._finish()

    def leave(self, now: float) -> Output:
        """Give up the seat for good (a computer player takes it); see ``left``. A spectator
        just stops (``left`` at once; the sequencer drops it once it is silent)."""
        self._begin(now)
        if self.watching:
            self._go_away()
            return self._finish()
        self.leaving = True
        self.queue = [o for o in self.queue if o.payload[0] != "join"]
        if self.key in self.roster.members and not self._queued("leave"):
            self._propose(["leave"])
        return self._finish()

    @property
    def my_seat(self) -> int | None:
        return self.table.seat_of(self.key)

    @property
    def is_sequencer(self) -> bool:
        return self.role == LEADER

    @property
    def log_length(self) -> int:
        return len(self.log)

    def beacon_info(self) -> dict[str, Any]:
        """What a beacon carries."""
        t = self.table
        owners = t.roster.owners
        return {"table_id": self.table_id, "name": t.name, "game": t.config.game if t.config else "",
                "config": t.config.to_dict() if t.config else {}, "taken": sum(1 for o in owners if o),
                "total": len(owners), "sequencer": self.leader, "term": self.term,
                "phase": t.phase, "port": self.port, "passphrase": self.pass_key is not None}

    # --- per-call plumbing -----------------------------------------------------------------------
    def _begin(self, now: float) -> None:
        self.now = max(self.now, now)

    def _finish(self) -> Output:
        self._guarded(self._after)
        out, self._out = self._out, Output()
        out.deadline = self._deadline()
        return out

    def _after(self) -> None:
        if self.left:
            return
        self.busy = False
        for _ in range(THINK_ROUNDS):  # a lone sequencer commits its own moves at once: go on
            before = self.commit_index
            self._think()
            if self.commit_index == before:
                break
        else:
            self.busy = True  # more to do: the deadline is now
        if self.role == LEADER:
            self._sequence_queue()
            self._flush()
        elif self.queue and self.now >= self.propose_at:
            self._send_head()
        if self.leaving and not self._queued("leave") and self.key not in self.table.roster.members:
            self._go_away()
        elif self.evicted:
            self._go_away()

    def _guarded(self, step: Any) -> None:
        """Run one step; a bug must not crash the adapter: count it (the tests watch this counter)."""
        try:
            step()
        except Exception as err:  # noqa: BLE001
            self._drop(f"internal error: {type(err).__name__}: {err}")

    def _event(self, name: str, /, **data: Any) -> None:
        self._out.events.append(PeerEvent(name, data))

    def _drop(self, reason: str) -> None:
        self.dropped[reason] += 1
        self._event("dropped", reason=reason)

    def _send(self, data: bytes, addr: Addr | None) -> None:
        if addr is not None:
            self._out.send.append((data, addr))

    def _msg(self, kind: int, fields: list[Any]) -> bytes:
        return wire.encode(kind, fields, self.identity.sign, self.pass_key, self._stamp())

    def _append_msg(self, head: list[Any], entries: list[bytes], addrs: list[Any]) -> bytes:
        return wire.encode_append(head, entries, addrs, self.identity.sign, self.pass_key, self._stamp())

    def _append_room(self, head: list[Any], addrs: list[Any]) -> int:
        """The bytes left for entries in an APPEND with this head and address list."""
        return wire.MAX_DATAGRAM - wire.append_overhead(head, addrs, self.pass_key)

    def _heartbeat_msg(self, pair_key: bytes, prev: int, prev_term: int, prev_hash: bytes) -> bytes:
        return wire.encode_heartbeat(pair_key, self.table_id or b"", self.term, prev, prev_term,
                                     self.commit_index, self.pass_key, self._stamp(), prev_hash)

    def _propose_msg(self, own: Own) -> bytes:
        return wire.encode_propose(own.decoded.table_id, own.proposal, own.sig, self.pass_key)

    def _stamp(self) -> int:
        """The stamp of the next datagram (``p2p.freshness``); reservations go to the store."""
        stamp, reserve = self.stamps.next(self.now)
        if reserve is not None:
            self.store.set_meta("stamp", reserve)
        return stamp

    def _random_bytes(self, n: int) -> bytes:
        return b"".join(self.rng.below(256).to_bytes(1, "big") for _ in range(n))

    def _random_int(self) -> int:
        return 1 + self.rng.below(2**62)

    # --- persistence -----------------------------------------------------------------------------
    def _start_incarnation(self, incarnation: int) -> None:
        self.incarnation, self.next_seq = incarnation, 1

    def _save_meta(self) -> None:
        self.store.set_meta("incarnation", self.incarnation)
        self.store.set_meta("name", self.name)

    def _save_wire(self) -> None:
        """Say which wire version keeps this store (meta ``wire``; ``cli/table_logs.py`` reads it),
        once, when the store starts (``host``, ``joiner``). ``resume`` never writes it: the entries
        already kept were played by the rules of the release that kept them, which the version
        (or its absence: wire 6 or older) is there to tell. An upgraded peer going on with an old
        store leaves the old value: the log began under the old rules and keeps saying so, though
        its later entries follow the new ones."""
        self.store.set_meta("wire", wire.VERSION)

    # --- receiving -------------------------------------------------------------------------------
    def _receive(self, datagram: bytes, addr: Addr) -> None:
        if self.left:
            return
        try:
            packet = wire.decode(datagram, self.pass_key)
        except WireError as err:
            self._drop(err.reason)
            return
        msg = packet.msg
        if isinstance(msg, Beacon):
            return
        if isinstance(msg, Heartbeat):
            self._on_heartbeat(msg, addr)
            return
        if msg.table_id != self.table_id:
            self._drop("other table")
            return
        if msg.key == self.key:
            self._drop("echo")
            return
        speaker = admission.speaker(self, msg, addr)
        if speaker is admission.STRANGER:
            self._drop("not a member")
            return
        if speaker is admission.ASKING:  # a non-member's JOIN or WATCH: the cookie before any signature
            if isinstance(msg, Watch):
                self._on_watch(msg, addr, packet)
            else:
                assert isinstance(msg, Join)
                self._on_asking(msg, addr, packet)
            return
        if speaker is admission.WATCHER:
            assert isinstance(msg, AppendOk)
            self._on_spectator_ok(msg, addr, packet)
            return
        if isinstance(msg, Secret):
            self._on_secret(msg)
            return
        if not packet.authentic():
            self._drop("forged")
            return
        if isinstance(msg, VoteAsk) and msg.key in self.liars:  # proved to equivocate: it moves no term
            self._drop("equivocated")
            return
        leaver = isinstance(msg, AppendOk) and msg.key not in self.roster.members  # it moves no term
        if isinstance(msg, (Append, AppendOk, VoteAsk, Vote)) and msg.term > self.term and not leaver:
            if msg.term - self.term > admission.MAX_TERM_STEP:
                self._drop("term too far")
                return
            self._new_term(msg.term)
        fresh = freshness.FRESH if speaker is admission.ASKING or isinstance(msg, Propose) \
            else self._freshness(msg.key, packet.stamp)
        if fresh == freshness.REPLAY:
            return
        if speaker is admission.MEMBER and not isinstance(msg, (Propose, Redirect)):
            self.heard[msg.key] = self.now
            if fresh == freshness.NEWEST and not isinstance(msg, Probe):
                self._learn_addr(msg.key, addr)
        self._dispatch(msg, addr)

    def _dispatch(self, msg: wire.Message, addr: Addr) -> None:
        if isinstance(msg, Append):
            self._on_append(msg, addr)
        elif isinstance(msg, AppendOk):
            self._on_append_ok(msg)
        elif isinstance(msg, VoteAsk):
            self._on_vote_ask(msg, addr)
        elif isinstance(msg, Vote):
            self._on_vote(msg)
        elif isinstance(msg, Propose):
            self._on_propose(msg)
        elif isinstance(msg, Join):
            self._on_join(msg, addr)
        elif isinstance(msg, Redirect):
            self._on_redirect(msg)
        elif isinstance(msg, Probe):
            self._on_probe(msg, addr)
        elif isinstance(msg, Head):
            self._on_head(msg)

    def _on_secret(self, msg: Secret) -> None:
        """A member's ``SECRET``: opened here (only this member can), then to the hidden side."""
        assert self.table_id is not None
        try:
            sender, item, _ = decode_secret(self.identity, self.table_id, msg.body)
        except DeckError:
            self._drop("secret")
            return
        self.heard[sender] = self.now
        self.side.secret(self.table, sender, item, self.leader)

    def _send_secret(self, to: bytes, item: Any) -> None:
        assert self.table_id is not None
        body = encode_secret(self.identity, self.table_id, to, item, self._random_bytes(24), self._stamp())
        self._send(wire.frame(body, self.pass_key), self.addrs.get(to))

    # --- time ------------------------------------------------------------------------------------
    def _tick(self) -> None:
        if self.left:
            return
        now = self.now
        self._send_proofs()
        if self.role == LEADER:
            if now >= self.beacon_at:
                self._beacon()
            self._sequencer_timeouts()
            return
        if self.watching:
            self._watch_tick()
            return
        if now >= self.election_at and self._may_elect():
            self._start_election()
            return
        self._check_censorship()
        if self.role == CANDIDATE and now >= self.vote_sent + self._backoff(self.vote_tries - 1):
            self._ask_votes()
        if self.queue and now >= self.propose_at:
            self._send_head()
        if self.hello and self.leader is None and now >= self.hello_at:
            self._say_hello()

    def _deadline(self) -> float | None:
        if self.left:
            return None
        t = self.timeouts
        times = [self.now] if self.busy else []
        times += self._proof_deadlines()
        if self.table.hidden is not None and self._caught_up() and self.side.waiting(self.table, self.leader):
            times.append(self.side.asked_at + self.side.resend)
        if self.due_at != self.table.position and self.applied_at + t.bot_delay > self.now \
                and self._forced_move() is not None:
            times.append(self.applied_at + t.bot_delay)  # this person's forced move, after the pause
        if self._bots_due() and self.applied_at + t.bot_delay > self.now:
            times.append(self.applied_at + t.bot_delay)  # the computer players' turn to think
        if self.role == LEADER:
            times.append(self.beacon_at)
            times += [self._due(key, f) for key, f in self.followers.items()]
            times += self._sequencer_deadlines()
            times += self._spectators_due()
        elif self.watching:
            times.append(self._watch_deadline())
        else:
            if self._may_elect():
                times.append(self.election_at)
            if self.role == CANDIDATE:
                times.append(self.vote_sent + self._backoff(self.vote_tries - 1))
            if self.queue and (self.leader_addr is not None or self.queue[0].payload[0] == "join"):
                times.append(self.propose_at)
            if self.hello and self.leader is None:
                times.append(self.hello_at)
            times += self._censorship_due()
        return max(min(times), self.now) if times else None

    def _beacon(self) -> None:
        t = self.timeouts
        self.beacon_at = self.now + (t.beacon if self.table.phase == LOBBY else t.beacon_closed)
        info = self.beacon_info()
        if self.table.config is None:
            return
        beacon = Beacon(self.table_id or b"", self.key, self.term, info["name"], info["config"],
                        info["taken"], info["total"], self.port, info["phase"])
        self._send(encode_beacon(beacon, self.identity.sign, self.pass_key, self._stamp()), BROADCAST)
