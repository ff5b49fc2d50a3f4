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
- extra event kinds: ``forfeit`` (seat), ``refused`` (one of this peer's own proposals was
  refused by the rules: index, kind, reason), ``resumed`` (commit index), ``left``.
"""

from __future__ import annotations

import collections
from dataclasses import dataclass, field
from typing import Any

from cardtable.ai.bots import Bot, make_bot
from cardtable.engine.shuffle import Stream
from cardtable.p2p import admission, freshness, lobby, seal, wire
from cardtable.p2p.discovery import encode_beacon
from cardtable.p2p.identity import Identity, verify
from cardtable.p2p.store import Store
from cardtable.p2p.table import BOT, HUMAN, OVER, PLAYING, SEEDING, Applied, Roster, TableState, commitment
from cardtable.p2p.wire import (
    APPEND_OK,
    JOIN,
    REDIRECT,
    VOTE,
    VOTE_ASK,
    Append,
    AppendOk,
    Beacon,
    Entry,
    Heartbeat,
    Join,
    Probe,
    Proposal,
    Propose,
    Redirect,
    Vote,
    VoteAsk,
    WireError,
)

Addr = tuple[str, int]
BROADCAST: Addr = ("<broadcast>", 0)
BOT_DEFAULT = "heuristic"
FOLLOWER, CANDIDATE, LEADER = "follower", "candidate", "leader"
MEMBER_KINDS = ("join", "leave")
SEQUENCER_KINDS = ("forfeit", "takeover")
PROPOSABLE = ("act", "commit", "reveal", "return", "leave")
THINK_ROUNDS = 32
WINDOW = 4  # unanswered APPENDs to one follower before no more new entries go to it
HEARTBEAT_TRIES = 6  # unanswered short heartbeats to one follower before a signed APPEND goes instead


@dataclass
class PeerEvent:
    kind: str
    data: dict[str, Any]


@dataclass
class Output:
    send: list[tuple[bytes, Addr]] = field(default_factory=list)
    deadline: float | None = None
    events: list[PeerEvent] = field(default_factory=list)


@dataclass(frozen=True)
class Timeouts:
    """Seconds.

    ``heartbeat``: an idle follower hears from the sequencer this often; an unanswered
    heartbeat goes again every ``2 * resend`` while the follower's election timer may still
    run (so that loss does not start needless elections; keep ``heartbeat + 4 * resend`` under
    ``election[0]``). ``resend``: the delay before resending a proposal not yet in the log, an
    APPEND whose entries or commit index are unacknowledged, or a vote request: three times
    ``resend``, then every ``2 * resend``; towards a peer silent for more than ``election[1]``
    every ``heartbeat`` (or ``retransmit``) instead. ``retransmit``: JOINs, and proposals
    already in the log but not committed. ``bot_delay``: the sequencer waits this long after
    the last applied entry before it proposes a move of a computer player (``SimNet`` uses 0
    unless given other timeouts).
    """

    heartbeat: float = 0.75
    election: tuple[float, float] = (1.2, 1.8)
    retransmit: float = 0.25
    resend: float = 0.05
    reveal: float = 10.0
    takeover: float = 30.0
    beacon: float = 1.0
    bot_delay: float = 0.8


@dataclass
class _Follower:
    """The sequencer's view of one member.

    ``base``: the index its log was last assumed to match (Raft's nextIndex - 1 when the
    follower was set up or last refused an APPEND); a resend after a silent loss starts after
    ``max(match, base)``, never from scratch. ``outstanding``: APPENDs sent since the last resend
    and not answered yet (followers answer each one; a resend forgets the older ones as lost);
    when it drops to 0 everything sent has arrived, so the commit index and the address list
    sent are known to the follower (``commit_known``, ``addrs_known``). ``answered``: it
    answered an APPEND of this term, so it knows the sequencer and idle heartbeats may go in
    the short form (``wire.Heartbeat``).
    """

    next: int
    base: int = -1
    match: int = 0
    outstanding: int = 0
    tries: int = 0  # resends since the last answer
    sent: float = float("-inf")
    acked: float = float("-inf")
    commit_sent: int = -1
    commit_known: int = -1
    addrs_sent: list[Any] | None = None  # the address list in an APPEND not yet answered
    addrs_known: list[Any] | None = None
    answered: bool = False

    def __post_init__(self) -> None:
        if self.base < 0:
            self.base = self.next - 1


@dataclass
class _Own:
    """One of this peer's proposals, kept until it shows in the committed log."""

    seq: int
    payload: list[Any]
    proposal: bytes
    sig: bytes
    decoded: Proposal


class Peer:
    """One player's replica of a table; see the module docstring and docs/protocol.md."""

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
        self.followers: dict[bytes, _Follower] = {}
        self.pair_keys: dict[tuple[bytes, bytes], bytes | None] = {}  # (table, member): heartbeat key
        self.votes: set[bytes] = set()
        self.lost: set[bytes] = set()  # members that would vote for this candidate but lost their store
        self.refused: set[bytes] = set()  # members that would not vote for this candidate
        self.incarnations: dict[bytes, set[int]] = {}  # JOINs seen, per member
        self.vote_sent = 0.0
        self.vote_tries = 0
        self.log_seqs: dict[tuple[bytes, int], int] = {}
        self.term_start = 0
        self.member_change = 0
        self.departed: dict[bytes, int] = {}  # leavers -> the index of their leave
        self.telling: dict[bytes, float] = {}  # leavers -> until when they hear that it committed
        self.leader_since = now
        self.incarnation = 0
        self.next_seq = 1
        self.queue: list[_Own] = []
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
        self.started = False
        self.busy = False
        self.nonce: bytes | None = None
        self.bots: dict[int, Bot] = {}
        self.auto_bot: Bot | None = None
        self.asked_at = -1  # the commit index at which this peer's own seat's bot was asked
        self.bots_asked_at = -1  # ... and the computer players (sequencer)
        self.applied_at = now  # when the last committed entry was applied
        self.stage: tuple[str, str] = ("", "")
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
             timeouts: Timeouts = Timeouts()) -> Peer:
        """Create a table (its first sequencer) with ``cpu_seats`` computer seats."""
        peer = cls(identity, store, now=now, seed=seed, passphrase=passphrase, bots=bots, auto=auto,
                   timeouts=timeouts)
        peer.table_id = peer._random_bytes(wire.ID_BYTES)
        peer.pass_key = seal.for_table(passphrase, peer.table_id)
        store.set_meta("passphrase", passphrase is not None)  # so that a restart can say it needs one
        peer.name = name[: wire.MAX_NAME]
        peer._start_incarnation(peer._random_int())
        peer._save_meta()
        peer._set_term(1, peer.key)
        peer._become_leader(noop=False)
        peer._propose(["create", peer.name, config.to_dict(), cpu_seats])
        peer._after()
        return peer

    @classmethod
    def joiner(cls, identity: Identity, store: Store, table_id: bytes, contact: Addr, name: str, *,
               now: float, seed: bytes, passphrase: str | None = None, bots: str = BOT_DEFAULT,
               auto: str | None = None, timeouts: Timeouts = Timeouts(), sequencer: bytes | None = None,
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
        store.set_meta("contact", list(contact))
        peer._propose(["join", peer.name])
        return peer

    @classmethod
    def resume(cls, identity: Identity, store: Store, *, now: float, seed: bytes,
               passphrase: str | None = None, bots: str = BOT_DEFAULT, auto: str | None = None,
               timeouts: Timeouts = Timeouts()) -> Peer:
        """Restart from a non-empty store, as a new incarnation."""
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
        peer.name = str(meta.get("name", ""))
        peer.addrs = {bytes(k): (str(h), int(p)) for k, h, p in meta.get("addrs", [])}
        for k, top in meta.get("seen", []):
            peer.seen.restore(bytes(k), int(top) + freshness.SAVE_STEP)
        if meta.get("nonce_table") == peer.table_id:
            peer.nonce = meta.get("nonce")
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
            if self.table.seats[seat].controller == BOT and not self._queued("return"):
                self._propose(["return", seat])
            self._propose(["act", seat, action])
        return self._finish()

    def leave(self, now: float) -> Output:
        """Give up the seat for good (a computer player takes it); see ``left``."""
        self._begin(now)
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

    def _election_timeout(self) -> float:
        lo, hi = self.timeouts.election
        return lo + (hi - lo) * self.rng.below(1_000_000) / 1_000_000

    # --- persistence -----------------------------------------------------------------------------
    def _start_incarnation(self, incarnation: int) -> None:
        self.incarnation, self.next_seq = incarnation, 1

    def _save_meta(self) -> None:
        self.store.set_meta("incarnation", self.incarnation)
        self.store.set_meta("name", self.name)

    def _set_term(self, term: int, vote: bytes | None) -> None:
        self.term, self.voted_for = term, vote
        self.store.set_term(term, vote)

    def _learn_addr(self, key: bytes, addr: Addr, direct: bool = True) -> None:
        """A member's address, from a fresh datagram of its own (``direct``) or as the sequencer
        relays it. A direct one that differs from the address known moves it only once the key
        answers a probe sent there (``p2p.freshness``): a datagram relayed by someone else is
        not enough."""
        if key == self.key or addr[0] == BROADCAST[0]:
            return
        if not direct and self.now - self.addr_seen.get(key, float("-inf")) < self.timeouts.election[1]:
            return
        known = self.addrs.get(key)
        if direct and known is not None and known != addr:
            self._probe(key, addr)
            return
        if direct:
            self.addr_seen[key] = self.now
        self._set_addr(key, addr)

    def _set_addr(self, key: bytes, addr: Addr) -> None:
        if self.addrs.get(key) != addr:
            self.addrs[key] = addr
            self.store.set_meta("addrs", [[k, h, p] for k, (h, p) in self.addrs.items()])

    def _freshness(self, key: bytes, stamp: int) -> str:
        """Classify a member's stamp (``p2p.freshness``); a replay is dropped and counted."""
        fresh = self.seen.check(key, stamp)
        if fresh == freshness.REPLAY:
            self._drop("replayed")
        elif fresh == freshness.NEWEST and self.seen.to_save(self.seen_saved):
            self.seen_saved = dict(self.seen.top)
            self.store.set_meta("seen", [[k, v] for k, v in self.seen_saved.items()])
        return fresh

    def _probe(self, key: bytes, addr: Addr) -> None:
        """Ask ``key`` to answer from ``addr`` (one probe at a time per key, at most one every
        ``resend``)."""
        pending = self.probes.get(key)
        if pending is not None and pending[0] == addr and self.now < pending[2] + self.timeouts.resend:
            return
        nonce = self._random_bytes(wire.NONCE_BYTES)
        self.probes[key] = (addr, nonce, self.now)
        self._send(self._msg(wire.PROBE, [self.table_id, self.key, nonce, False]), addr)

    def _on_probe(self, msg: Probe, addr: Addr) -> None:
        if not msg.answer and self.queue and self.queue[0].payload[0] == "join" and not self.log:
            self.cookie = msg.nonce  # the sequencer's cookie: the join again, with it, to where it is
            self.contact, self.contacts = addr, [addr]
            self.leader_heard = float("-inf")
            self._send_head()
            return
        if not msg.answer:
            self._send(self._msg(wire.PROBE, [self.table_id, self.key, msg.nonce, True]), addr)
            return
        pending = self.probes.get(msg.key)
        if pending is not None and pending[0] == addr and pending[1] == msg.nonce:
            del self.probes[msg.key]
            self.addr_seen[msg.key] = self.now
            self._set_addr(msg.key, addr)

    # --- the log ---------------------------------------------------------------------------------
    def _append_local(self, entry: Entry, raw: bytes | None = None, persist: bool = True) -> None:
        raw = raw or entry.pack()
        self.log.append(entry)
        self.raw.append(raw)
        if persist:
            self.store.append([raw])
        self._feed_roster(entry)

    def _feed_roster(self, entry: Entry) -> None:
        if not self.roster.admit(entry) and entry.decoded.kind in ("create",) + MEMBER_KINDS:
            reason, _ = self.roster.member_change(entry)
            if not reason and entry.decoded.kind in MEMBER_KINDS:
                self.member_change = entry.index
                if entry.decoded.kind == "leave":
                    self.departed[entry.decoded.author] = entry.index
        p = entry.decoded
        key = (p.author, p.incarnation)
        self.log_seqs[key] = max(self.log_seqs.get(key, 0), p.seq)

    def _truncate(self, length: int) -> None:
        del self.log[length:]
        del self.raw[length:]
        self.store.truncate(length)
        self.roster = Roster()
        self.log_seqs = {}
        self.member_change = 0
        self.departed = {}
        for entry in self.log:
            self._feed_roster(entry)

    def _last(self) -> tuple[int, int]:
        """(last term, last index) of the log."""
        return (self.log[-1].term, len(self.log)) if self.log else (0, 0)

    def _members(self) -> list[bytes]:
        return list(self.roster.members)

    def _commit_to(self, index: int, quiet: bool = False) -> None:
        """Apply committed entries up to ``index`` to the table."""
        if index <= self.commit_index:
            return
        for i in range(self.commit_index + 1, index + 1):
            self._applied(self.table.apply(self.log[i - 1]), self.log[i - 1], quiet)
        self.commit_index = index
        self.applied_at = self.now
        self.store.set_meta("commit", index)

    def _applied(self, done: Applied, entry: Entry, quiet: bool) -> None:
        p = entry.decoded
        mine = p.author == self.key and p.incarnation == self.incarnation
        if mine:
            self.queue = [o for o in self.queue if o.seq > p.seq]
            self.propose_at, self.propose_tries = self.now, 0
        if quiet:
            return
        self._event("applied", index=done.index, seat=done.seat, author=p.author.hex(), kind=done.kind,
                    summary=done.summary, ok=done.ok, reason=done.reason,
                    events=[e.to_dict() for e in done.events])
        if mine and not done.ok and done.reason != "duplicate":
            self._event("refused", index=done.index, kind=done.kind, reason=done.reason)
        if not done.ok:
            return
        self._table_events(done, p)

    def _table_events(self, done: Applied, p: Proposal) -> None:
        t = self.table
        if done.kind in ("create", "join") and p.author == self.key:
            self._event("seated", seat=t.seat_of(self.key))
        if done.kind in ("takeover", "return", "forfeit"):
            self._event(done.kind, seat=p.payload[1])
        if not self.started and t.seed is not None:
            self.started = True
            self._event("started", seed=t.seed.hex())
        for e in done.events:
            if e.kind == "round_end":
                self._event("round_end", text=str(e))
        if done.kind == "act" and t.phase == OVER and t.match is not None:
            self._event("match_over", digest=t.match.digest(), totals=t.match.scores(),
                        winners=t.match.winners())

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
        if speaker is admission.ASKING:  # a non-member's JOIN: the cookie before any signature
            assert isinstance(msg, Join)
            self._on_asking(msg, addr, packet)
            return
        if not packet.authentic():
            self._drop("forged")
            return
        if speaker is admission.NEWCOMER and not admission.joined_by_a_member(self, msg):
            self._drop("not a member")
            return
        if isinstance(msg, (Append, AppendOk, VoteAsk, Vote)) and msg.term > self.term:
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

    def _new_term(self, term: int) -> None:
        self._set_term(term, None)
        self._step_down()
        self.leader = self.leader_addr = None

    def _step_down(self) -> None:
        if self.role == LEADER:
            seat = self.my_seat
            self.queue = [o for o in self.queue if o.payload[0] not in SEQUENCER_KINDS
                          and not (o.payload[0] == "act" and o.payload[1] != seat)]
        self.role = FOLLOWER
        self.followers = {}
        self.votes, self.lost, self.refused = set(), set(), set()
        self.election_at = self.now + self._election_timeout()

    # --- Raft: replication (follower side) -------------------------------------------------------
    def _on_append(self, msg: Append, addr: Addr) -> None:
        if msg.term < self.term:
            self._drop("old term")
            self._send(self._msg(APPEND_OK, [self.table_id, self.key, self.term, False, len(self.log)]), addr)
            return
        if self.role == LEADER or (self.leader is not None and self.leader != msg.key):
            self._drop("two sequencers")
            return
        if self.leader is None:
            self._event("sequencer", key=msg.key.hex(), term=msg.term)
            self.propose_at, self.propose_tries = self.now, 0  # a pending proposal goes to it at once
        self.role, self.leader = FOLLOWER, msg.key
        self.leader_addr = self.addrs.get(msg.key, addr)  # the checked address (p2p.freshness)
        self.leader_heard = self.now
        self.votes, self.lost, self.refused = set(), set(), set()
        self.hello = False
        self.election_at = self.now + self._election_timeout()
        for key, host, port in msg.addrs:
            self._learn_addr(key, (host, port), direct=False)
        success, match = self._match_entries(msg)
        if success:
            self.leader_commit = max(self.leader_commit, msg.commit)
            self._commit_to(min(msg.commit, match))
            if self.amnesiac and self._caught_up() and self.log:
                self.amnesiac = False
        self._send(self._msg(APPEND_OK, [self.table_id, self.key, self.term, success, match]), addr)

    def _on_heartbeat(self, msg: Heartbeat, addr: Addr) -> None:
        """A short heartbeat: an empty APPEND from the sequencer this peer follows in this term
        (from anyone else it cannot be checked: dropped unanswered, and the sequencer then
        sends the signed form)."""
        leader = self.leader
        if self.role != FOLLOWER or leader is None or msg.term != self.term:
            self._drop("unknown sequencer")
            return
        pair_key = self._pair_key(leader)
        if pair_key is None or not msg.authentic(pair_key, self.table_id or b""):
            self._drop("forged")
            return
        fresh = self._freshness(leader, msg.stamp)
        if fresh == freshness.REPLAY:
            return
        self.heard[leader] = self.now
        if fresh == freshness.NEWEST:
            self._learn_addr(leader, addr)
        self._on_append(Append(self.table_id or b"", leader, msg.term, msg.prev_index, msg.prev_term,
                               msg.commit, (), ()), addr)

    def _match_entries(self, msg: Append) -> tuple[bool, int]:
        """Raft's log matching: (success, index up to which this log now equals the leader's)."""
        prev = msg.prev_index
        if prev > len(self.log):
            return False, len(self.log)
        if prev and self.log[prev - 1].term != msg.prev_term:
            bad = self.log[prev - 1].term
            while prev > self.commit_index + 1 and self.log[prev - 2].term == bad:
                prev -= 1
            return False, max(prev - 1, self.commit_index)
        index, last_term, fresh = prev, msg.prev_term, []
        for e in msg.entries:
            if e.index != index + 1 or not last_term <= e.term <= msg.term:
                self._drop("malformed")
                break
            if e.index <= len(self.log) and self.log[e.index - 1].term == e.term:
                index, last_term = e.index, e.term
                continue
            if e.index <= self.commit_index:
                self._drop("conflicts with committed")
                break
            if not e.authentic(self.table_id or b""):
                self._drop("forged")
                break
            if e.index <= len(self.log):
                self._truncate(e.index - 1)
            fresh.append(e)
            self._append_local(e, persist=False)
            index, last_term = e.index, e.term
        if fresh:
            self.store.append([self.raw[e.index - 1] for e in fresh])
        return True, index

    # --- Raft: replication (sequencer side) ------------------------------------------------------
    def _on_append_ok(self, msg: AppendOk) -> None:
        if self.role != LEADER or msg.term != self.term:
            return
        f = self.followers.get(msg.key)
        if f is None:
            return
        match = min(msg.match, len(self.log))
        f.acked, f.tries, f.answered = self.now, 0, True
        f.outstanding = max(0, f.outstanding - 1)
        if not f.outstanding:  # everything sent has arrived (a guess when datagrams are duplicated)
            f.commit_known = f.commit_sent
            if f.addrs_sent is not None:
                f.addrs_known, f.addrs_sent = f.addrs_sent, None
        if msg.success:
            f.match = max(f.match, match)
            f.next = max(f.next, f.match + 1)
            if not f.outstanding and f.match < len(self.log):
                f.next = f.match + 1  # all answered, yet some entries sent did not stick: again
            self._leader_commit()
        else:  # its log is shorter or differs from ``match`` on (it may even have lost its store)
            f.match = min(f.match, match)
            f.next = min(f.next, match + 1)
            f.base = min(f.base, match)

    def _leader_commit(self) -> None:
        members = self._members()
        if not members:
            n = len(self.log)
        else:
            matches = sorted((len(self.log) if k == self.key else self.followers[k].match
                              if k in self.followers else 0) for k in members)
            n = matches[::-1][len(matches) // 2]
        if n > self.commit_index and self.log[n - 1].term == self.term:
            self._commit_to(n)

    def _replicas(self) -> list[bytes]:
        """Whom the sequencer replicates to: the members, and leavers until they heard it committed.
        In log order (a list, never a set: the order of sends must not depend on hashing)."""
        keys = [k for k in self._members() if k != self.key]
        for key, index in self.departed.items():
            if (self.commit_index < index or self._telling(key)) and key != self.key and key not in keys:
                keys.append(key)
        return keys

    def _track_followers(self) -> list[bytes]:
        """Set up the sequencer's view of every replica it has none of yet; returns the replicas."""
        replicas = self._replicas()
        for key in replicas:
            if key not in self.followers:
                self.followers[key] = _Follower(next=len(self.log) + 1, acked=self.now)
        return replicas

    def _telling(self, key: bytes) -> bool:
        until = self.telling.setdefault(key, self.now + self.timeouts.election[1])
        return self.now < until

    def _flush(self) -> None:
        """Send what each follower is missing, the new commit index, heartbeats and resends."""
        replicas = self._track_followers()
        for key, f in list(self.followers.items()):
            if key not in replicas:
                del self.followers[key]
                continue
            if self.now < self._due(key, f):
                continue
            if f.outstanding and not self._news(f):  # no answer in time: take what is in flight as lost
                f.tries, f.outstanding, f.addrs_sent = f.tries + 1, 0, None
                if f.match < len(self.log):
                    f.next = max(f.match, f.base) + 1
            self._replicate(key, f)

    def _news(self, f: _Follower) -> bool:
        """Whether there is something new for ``f`` that may go at once: entries (within the
        window) or a commit index it was not sent. Nothing goes at once to a follower silent
        for longer than an election timeout (gone, or cut off): it gets heartbeats only."""
        if self._silent(f):
            return False
        return (f.next <= len(self.log) and f.outstanding < WINDOW) or f.commit_sent < self.commit_index

    def _silent(self, f: _Follower) -> bool:
        return self.now - f.acked > self.timeouts.election[1]

    def _due(self, key: bytes, f: _Follower) -> float:
        """When the next APPEND to ``f`` is due: news at once; a resend when the last one is
        unanswered; otherwise a heartbeat."""
        if key not in self.addrs:
            return f.sent + self.timeouts.heartbeat
        if self._news(f):
            return self.now
        if f.outstanding:
            return f.sent + self._resend_after(f)
        return f.sent + self.timeouts.heartbeat

    def _resend_after(self, f: _Follower) -> float:
        t = self.timeouts
        if self._silent(f):
            return t.heartbeat
        if f.match < len(self.log) or f.commit_known < self.commit_index:  # entries or a commit pending
            return self._backoff(f.tries)
        return 2 * t.resend  # a heartbeat: its election timer runs, try again soon

    def _backoff(self, tries: int) -> float:
        """The delay before resend number ``tries + 1``: ``resend`` for the first three, then
        twice that (the caller slows down further once the other side has been silent for long)."""
        return self.timeouts.resend * (1 if tries < 3 else 2)

    def _replicate(self, key: bytes, f: _Follower) -> None:
        addr = self.addrs.get(key)
        if addr is None:
            f.sent = self.now  # nowhere to send yet: try again at the next heartbeat
            return
        self._send(self._append_for(key, f), addr)

    def _append_for(self, key: bytes, f: _Follower) -> bytes:
        prev = min(f.next - 1, len(self.log))
        prev_term = self.log[prev - 1].term if prev else 0
        head = [self.table_id, self.key, self.term, prev, prev_term, self.commit_index]
        addrs = [[k, *self.addrs[k]] for k in self._members() if k != key and k in self.addrs]
        if addrs == f.addrs_known:
            addrs = []  # it has them: keep heartbeats small
        budget = wire.MAX_DATAGRAM - wire.append_overhead(head, addrs, self.pass_key)
        entries = [] if self._silent(f) else self._batch(prev, budget)  # silent: a probe, no backlog
        if not entries and prev < len(self.log) and not self._silent(f):
            addrs = []  # no room for them and an entry: the entry first
            entries = self._batch(prev, wire.MAX_DATAGRAM - wire.append_overhead(head, addrs, self.pass_key))
            if not entries:  # cannot happen (entries are small); never push it again at once
                f.outstanding = WINDOW
        if addrs:
            f.addrs_sent = addrs
        f.outstanding += 1
        f.next, f.sent, f.commit_sent = prev + len(entries) + 1, self.now, self.commit_index
        if not entries and not addrs and f.answered and f.tries < HEARTBEAT_TRIES and not self._silent(f):
            pair_key = self._pair_key(key)
            if pair_key is not None:
                return wire.encode_heartbeat(pair_key, self.table_id or b"", self.term, prev, prev_term,
                                             self.commit_index, self.pass_key, self._stamp())
        return wire.encode_append(head, entries, addrs, self.identity.sign, self.pass_key, self._stamp())

    def _pair_key(self, key: bytes) -> bytes | None:
        """The heartbeat key shared with ``key`` for this table (computed once)."""
        slot = (self.table_id or b"", key)
        if slot not in self.pair_keys:
            self.pair_keys[slot] = self.identity.pair_key(key, slot[0])
        return self.pair_keys[slot]

    def _batch(self, prev: int, budget: int) -> list[bytes]:
        out: list[bytes] = []
        for raw in self.raw[prev: prev + 60]:
            budget -= len(raw)
            if budget < 0:
                break
            out.append(raw)
        return out

    # --- Raft: elections -------------------------------------------------------------------------
    def _may_elect(self) -> bool:
        return not self.amnesiac and self.key in self.roster.members and self.role != LEADER

    def _caught_up(self) -> bool:
        """Whether this peer's committed view is as recent as the sequencer's last word."""
        return self.role == LEADER or (self.leader is not None and self.commit_index >= self.leader_commit)

    def _start_election(self) -> None:
        self._set_term(self.term + 1, self.key)
        self.role, self.leader, self.leader_addr = CANDIDATE, None, None
        self.votes, self.lost, self.refused = {self.key}, set(), set()
        self.vote_tries = 0
        self.election_at = self.now + self._election_timeout()
        if 2 * len(self.votes) > len(self._members()):
            self._become_leader()
            return
        self._ask_votes()

    def _ask_votes(self) -> None:
        last_term, last_index = self._last()
        data = self._msg(VOTE_ASK, [self.table_id, self.key, self.term, last_index, last_term])
        for key in self._members():
            if key not in self.votes and key not in self.lost and key not in self.refused:
                self._send(data, self.addrs.get(key))
        self.vote_sent = self.now
        self.vote_tries += 1

    def _on_vote_ask(self, msg: VoteAsk, addr: Addr) -> None:
        if msg.term < self.term:
            self._drop("old term")
        agree = (msg.term == self.term and self.voted_for in (None, msg.key)
                 and (msg.last_term, msg.last_index) >= self._last())
        if agree:
            self._set_term(self.term, msg.key)
            self.election_at = self.now + self._election_timeout()
        fields = [self.table_id, self.key, self.term, agree and not self.amnesiac, agree and self.amnesiac]
        self._send(self._msg(VOTE, fields), addr)
        if msg.term != self.term:
            return
        if self.role == CANDIDATE and (msg.last_term, msg.last_index, msg.key) < (*self._last(), self.key):
            # a rival candidate keeps its vote for itself this term, so the two may split the
            # votes until the next timeout: the one with the better log (on a tie, the greater
            # key) starts a new term at once, in which the other can vote for it
            self._start_election()
        elif self.role == FOLLOWER and (msg.last_term, msg.last_index) < self._last() and self._may_elect():
            # someone stands with a log that cannot win here: the sequencer is likely gone, and
            # this peer is the better candidate; stand soon (at a random moment, as others may)
            soon = 4 * self.timeouts.resend * self.rng.below(1000) / 1000
            self.election_at = min(self.election_at, self.now + soon)

    def _on_vote(self, msg: Vote) -> None:
        """Count a vote. A peer that lost its store may have acknowledged entries it no longer
        holds, so its agreement is not a vote; but when every member has answered, with a vote
        or such an agreement, no one alive holds more than this candidate: it wins too."""
        if self.role != CANDIDATE or msg.term != self.term:
            return
        if msg.granted:
            self.votes.add(msg.key)
        elif msg.lost_store:
            self.lost.add(msg.key)
        else:
            self.refused.add(msg.key)
        members = set(self._members())
        if 2 * len(self.votes & members) > len(members) or members <= self.votes | self.lost:
            self._become_leader()

    def _become_leader(self, noop: bool = True) -> None:
        self.role, self.leader, self.leader_addr = LEADER, self.key, None
        self.leader_since = self.stage_since = self.now
        self.followers = {}
        self.bots = {}
        self.asked_at = self.bots_asked_at = -1
        self.beacon_at = self.now
        self.log_seqs = {}
        for e in self.log:
            key = (e.decoded.author, e.decoded.incarnation)
            self.log_seqs[key] = max(self.log_seqs.get(key, 0), e.decoded.seq)
        self._event("sequencer", key=self.key.hex(), term=self.term)
        self.term_start = len(self.log) + 1
        self._track_followers()  # before the noop: its first APPEND carries the noop (Raft's nextIndex)
        if noop:
            self._append_noop()
        self._sequence_queue()

    def _append_noop(self) -> None:
        """Open the term with an entry of its own (Raft), in a sequence space of its own:
        incarnation 0, seq = term, so that it never overtakes this peer's pending proposals."""
        assert self.table_id is not None
        p = Proposal(self.table_id, self.key, 0, self.term, ["noop"])
        data = p.pack()
        self._sequence(data, self.identity.sign(wire.proposal_signed(data)), p)

    # --- proposals -------------------------------------------------------------------------------
    def _propose(self, payload: list[Any]) -> None:
        assert self.table_id is not None
        decoded = Proposal(self.table_id, self.key, self.incarnation, self.next_seq, payload)
        proposal = decoded.pack()
        sig = self.identity.sign(wire.proposal_signed(proposal))
        own = _Own(self.next_seq, payload, proposal, sig, decoded)
        self.next_seq += 1
        self.queue.append(own)
        if self.role == LEADER:
            self._sequence_queue()
        elif len(self.queue) == 1:
            self.propose_at, self.propose_tries = self.now, 0

    def _queued(self, kind: str) -> bool:
        return any(o.payload[0] == kind for o in self.queue)

    def _sequence_queue(self) -> None:
        """The sequencer appends its own pending proposals, strictly in their order."""
        done = self.log_seqs.get((self.key, self.incarnation), 0)
        for own in self.queue:
            if own.seq <= done:
                continue
            if own.payload[0] in MEMBER_KINDS and not self._may_change_members():
                return
            self._sequence(own.proposal, own.sig, own.decoded)

    def _send_head(self) -> None:
        """(Re)send the oldest pending proposal: in a JOIN if it is the join, else to the sequencer."""
        if not self.queue or self.role == LEADER:
            return
        head = self.queue[0]
        t = self.timeouts
        in_log = self.log_seqs.get((self.key, self.incarnation), 0) >= head.seq  # the sequencer has it
        slow = in_log or head.payload[0] == "join" or self.now - self.leader_heard > t.election[1]
        self.propose_at = self.now + (t.retransmit if slow else self._backoff(self.propose_tries))
        self.propose_tries += 1
        if head.payload[0] == "join":
            if self.now - self.leader_heard < self.timeouts.election[1]:
                return  # the sequencer has it; the join shows up in its log
            fields = [self.table_id, self.key, self.incarnation, self.name, head.proposal, head.sig,
                      self.cookie]
            contact = self.contact
            if self.sponsor is not None and self.contacts and self.leader_addr is None:
                contact = self.contacts[self.propose_tries % len(self.contacts)]  # the one that answers
            self._send(self._msg(JOIN, fields), self.leader_addr or contact)
        elif self.leader_addr is not None:
            self._send(wire.encode_propose(head.decoded.table_id, head.proposal, head.sig, self.pass_key),
                       self.leader_addr)

    def _on_propose(self, msg: Propose) -> None:
        if self.role != LEADER:
            self._drop("not the sequencer")
            return
        if msg.decoded.table_id != self.table_id:
            self._drop("other table")
            return
        if msg.decoded.kind not in PROPOSABLE:
            self._drop("not proposable")
            return
        if msg.decoded.kind in MEMBER_KINDS and not self._may_change_members():
            return
        if self._sequence(msg.proposal, msg.sig, msg.decoded):
            self.heard[msg.key] = self.now  # a new proposal: its author is alive (a replay is not new)

    def _sequence(self, proposal: bytes, sig: bytes, p: Proposal) -> bool:
        """Append a proposal to the log (sequencer only), once per (author, incarnation, seq)."""
        if p.seq <= self.log_seqs.get((p.author, p.incarnation), 0):
            if p.author != self.key:
                self._drop("duplicate")
            return False
        index = len(self.log) + 1
        assert self.table_id is not None
        seq_sig = self.identity.sign(wire.entry_signed(self.table_id, self.term, index, proposal))
        self._append_local(Entry(self.term, index, proposal, sig, self.key, seq_sig, p))
        if len(self._members()) <= 1:
            self._leader_commit()
        return True

    def _may_change_members(self) -> bool:
        """Raft's one-at-a-time rule: this term has committed an entry, no change is pending."""
        return self.commit_index >= self.term_start and self.member_change <= self.commit_index

    # --- joining and finding the sequencer -------------------------------------------------------
    def _on_join(self, msg: Join, addr: Addr) -> None:
        """A member's JOIN: it restarted (or lost its store) and says where it is now."""
        if self.role != LEADER:
            self._redirect(addr)
            return
        f = self.followers.setdefault(msg.key, _Follower(next=len(self.log) + 1, acked=self.now))
        fresh = msg.incarnation not in self.incarnations.setdefault(msg.key, set())
        if msg.proposal is not None and fresh:  # it lost its store: it holds nothing it acknowledged
            f.match, f.next, f.base = 0, 1, 0
        f.addrs_known = f.addrs_sent = None  # a restart: tell it the addresses again
        f.acked, f.tries, f.outstanding, f.answered = self.now, 0, 0, False
        self.incarnations[msg.key].add(msg.incarnation)
        self._replicate(msg.key, f)

    def _redirect(self, addr: Addr) -> None:
        if self.leader is not None and self.leader_addr is not None:
            host, port = self.leader_addr
            fields = [self.table_id, self.key, self.term, self.leader, host, port]
            self._send(self._msg(REDIRECT, fields), addr)

    def _on_asking(self, msg: Join, addr: Addr, packet: wire.Packet) -> None:
        """A non-member's JOIN (p2p/lobby.py): a round trip first (a cookie to its address),
        then the signatures, then the join goes in the log; nothing about it is kept before."""
        if self.role != LEADER:
            if self.door.may_answer(self.now):
                self._redirect(addr)
            return
        if msg.proposal is None or msg.proposal_sig is None:
            return
        if not self.roster.open or not self._may_change_members():
            return  # a full or started table: its beacon says so
        if not self.door.valid(msg.cookie, msg.key, addr, self.now):
            if self.door.may_answer(self.now):
                cookie = self.door.cookie(msg.key, addr, self.now)
                self._send(self._msg(wire.PROBE, [self.table_id, self.key, cookie, False]), addr)
            else:
                self._drop("busy")
            return
        if not packet.authentic():
            self._drop("forged")
            return
        try:
            p = wire.decode_proposal(msg.proposal)
            wire.check_payload(p.payload)
        except WireError:
            self._drop("malformed")
            return
        authentic = verify(msg.key, wire.proposal_signed(msg.proposal), msg.proposal_sig)
        if p.author != msg.key or p.table_id != self.table_id or p.kind != "join" or not authentic:
            self._drop("forged")
            return
        if self._sequence(msg.proposal, msg.proposal_sig, p):
            self.followers[msg.key] = _Follower(next=1, acked=self.now)
            self._learn_addr(msg.key, addr)  # a member now: the log says so

    def _on_redirect(self, msg: Redirect) -> None:
        if self.leader is None and msg.leader != self.key:
            self.contact, self.sponsor = (msg.host, msg.port), msg.leader
            self.contacts = [self.contact]
            if self.queue and self.queue[0].payload[0] == "join":
                self._send_head()

    def _say_hello(self) -> None:
        """A restarted peer tells the members where it is now (a JOIN without a proposal)."""
        self.hello_at = self.now + 2 * self.timeouts.retransmit
        data = self._msg(JOIN, [self.table_id, self.key, self.incarnation, self.name, None, None, None])
        for key in self._members():
            if key != self.key:
                self._send(data, self.addrs.get(key))

    # --- time ------------------------------------------------------------------------------------
    def _tick(self) -> None:
        if self.left:
            return
        now = self.now
        if self.role == LEADER:
            if now >= self.beacon_at:
                self._beacon()
            self._sequencer_timeouts()
            return
        if now >= self.election_at and self._may_elect():
            self._start_election()
            return
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
        if self.role == LEADER:
            times.append(self.beacon_at)
            times += [self._due(key, f) for key, f in self.followers.items()]
            times += self._sequencer_deadlines()
            if self._bots_due() and self.applied_at + t.bot_delay > self.now:
                times.append(self.applied_at + t.bot_delay)  # the computer players' turn to think
        else:
            if self._may_elect():
                times.append(self.election_at)
            if self.role == CANDIDATE:
                times.append(self.vote_sent + self._backoff(self.vote_tries - 1))
            if self.queue and (self.leader_addr is not None or self.queue[0].payload[0] == "join"):
                times.append(self.propose_at)
            if self.hello and self.leader is None:
                times.append(self.hello_at)
        return max(min(times), self.now) if times else None

    def _beacon(self) -> None:
        self.beacon_at = self.now + self.timeouts.beacon
        info = self.beacon_info()
        if self.table.config is None:
            return
        beacon = Beacon(self.table_id or b"", self.key, self.term, info["name"], info["config"],
                        info["taken"], info["total"], self.port, info["phase"])
        self._send(encode_beacon(beacon, self.identity.sign, self.pass_key, self._stamp()), BROADCAST)

    def _sequencer_deadlines(self) -> list[float]:
        t = self.table
        if self.queue:
            return []
        if t.phase == SEEDING:
            return [self.stage_since + self.timeouts.reveal]
        if t.phase == PLAYING:
            return [self._last_heard(s.owner) + self.timeouts.takeover for s in t.seats
                    if s.controller == HUMAN and s.owner not in (None, self.key)]
        return []

    def _last_heard(self, key: bytes | None) -> float:
        return max(self.heard.get(key or b"", float("-inf")), self.leader_since)

    def _sequencer_timeouts(self) -> None:
        """Forfeit seats that hold up the seed agreement; take over silent players."""
        t = self.table
        if self.queue:
            return
        if t.phase == SEEDING and self.now >= self.stage_since + self.timeouts.reveal:
            self.stage_since = self.now
            for seat in t.missing():
                self._propose(["forfeit", seat])
        elif t.phase == PLAYING:
            for seat, s in enumerate(t.seats):
                if s.controller == HUMAN and s.owner not in (None, self.key) \
                        and self.now >= self._last_heard(s.owner) + self.timeouts.takeover:
                    self._propose(["takeover", seat])
                    return

    # --- deciding: seed agreement, bots, returning -----------------------------------------------
    def _think(self) -> None:
        t = self.table
        if self.queue and self.queue[0].payload[0] == "join" and self.my_seat is not None:
            self.queue.pop(0)
        stage = (t.phase, t.stage)
        if stage != self.stage:
            self.stage, self.stage_since = stage, self.now
        if self.queue or self.leaving or t.table_id is None or not self._caught_up():
            return
        seat = self.my_seat
        if t.phase == SEEDING:
            self._seed_step(seat)
        elif t.phase == PLAYING:
            if seat is not None and t.seats[seat].controller == BOT:
                self._propose(["return", seat])
            else:
                self._play(seat)

    def _seed_step(self, seat: int | None) -> None:
        t = self.table
        if seat is None or seat not in t.seeding_seats() or t.table_id is None:
            return
        if self.nonce is None:
            self.nonce = self._random_bytes(32)
            self.store.set_meta("nonce", self.nonce)
            self.store.set_meta("nonce_table", t.table_id)
        mine = commitment(t.table_id, self.key, self.nonce)
        if t.stage == "commit" and seat not in t.commits:
            self._propose(["commit", mine])
        elif t.stage == "reveal" and seat not in t.reveals and t.commits.get(seat) == mine:
            self._propose(["reveal", self.nonce])

    def _play(self, seat: int | None) -> None:
        """Ask the bots this peer runs, in the headless driver's order; propose the first move.

        Each bot is asked once per committed position: this peer's own seat (``auto``) at once,
        the computer players (the sequencer's) only once every entry in the log is committed (no
        one's proposal is in flight) and ``bot_delay`` has passed since the last entry was
        applied, so that people can jump in, call or catch first: their proposals arriving in
        that time are sequenced first, and the bots then think again about the new position."""
        own = seat is not None and self.auto is not None and self.table.seats[seat].controller == HUMAN \
            and self.asked_at != self.commit_index
        bots = self._bots_due() and self.now >= self.applied_at + self.timeouts.bot_delay
        match = self.table.match
        waiting = match.to_move() if match and (own or bots) else None
        if match is None or waiting is None:
            return
        mine: set[int] = set()
        if own and seat is not None:
            self.asked_at = self.commit_index
            mine.add(seat)
        if bots:
            self.bots_asked_at = self.commit_index
            mine.update(self.table.bot_seats())
        actors = set(match.actors())
        n = len(self.table.seats)
        for k in range(1, n + 1):
            s = (waiting + k) % n
            if s not in mine or s not in actors:
                continue
            action = self._ask_bot(s, s == waiting, s == seat)
            if action is not None:
                self._propose(["act", s, str(action)])
                return

    def _bots_due(self) -> bool:
        """The sequencer has computer players to ask about this position, once it may."""
        return (self.role == LEADER and self.table.phase == PLAYING
                and self.bots_asked_at != self.commit_index and len(self.log) == self.commit_index
                and bool(self.table.bot_seats()))

    def _ask_bot(self, seat: int, must: bool, own: bool) -> Any:
        match = self.table.match
        assert match is not None
        if own:
            if self.auto_bot is None:
                self.auto_bot = make_bot(self.auto or "random", match.seed, seat)
            bot = self.auto_bot
        else:
            if seat not in self.bots:
                self.bots[seat] = make_bot(self.bots_spec, match.seed, seat)
            bot = self.bots[seat]
        legal = match.legal_actions(seat)
        obs = match.observation(seat)
        try:
            return bot.choose(obs, legal) if must else bot.react(obs, legal)
        except Exception as err:  # noqa: BLE001 - a broken bot must not stop the table
            self._event("bot_error", seat=seat, error=f"{type(err).__name__}: {err}")
            return legal[0] if must and legal else None

    # --- leaving ---------------------------------------------------------------------------------
    def _go_away(self) -> None:
        self.store.set_meta("left", True)
        self.left = True
        self.role = FOLLOWER
        self.queue = []
        self._event("left")
