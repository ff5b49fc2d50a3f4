"""What every part of a peer shares: its fields and the records they hold, its timeouts, its
output.

``Peer`` (``p2p/peer.py``) is one class assembled from one part per concern, each in a
module of its own, all working on the same fields (set by ``Peer.__init__``, declared
here so that each part can be read and type-checked alone):

- ``p2p/membership.py``: who is a member (the roster over the whole log), joining,
  restarts saying where they are, leaving, evictions;
- ``p2p/replication.py``: the local log, ``APPEND``s and their answers, heartbeats,
  batches, resends (their timing from measured round trips: ``p2p/roundtrip.py``), the
  commit index;
- ``p2p/elections.py``: terms, votes, becoming and stepping down as sequencer;
- ``p2p/chain.py``: heads compared between members, equivocation proved, forks undone;
- ``p2p/addresses.py``: the address book: learning addresses, probes;
- ``p2p/spectators.py``: machines that watch without a seat, both sides;
- ``p2p/proposals.py``: this peer's own proposals, and the sequencer putting proposals in
  the log;
- ``p2p/driving.py``: committed entries applied to the table and the events they raise,
  the seed agreement, the bots, and the sequencer's duties to seats that hold the table up
  (evictions in the lobby, forfeits in the seed agreement, takeovers in play).

Each part imports what it shares from here, and this module imports no part (nor
``p2p/peer.py``): ``PeerState`` declares what the parts ask of each other, ``Peer`` composes
them. Framing (every datagram encoded or decoded with the passphrase), the clock and the public
surface stay in ``p2p/peer.py``; who may speak is ``p2p/admission.py``, stamps
``p2p/freshness.py``, the lobby's door ``p2p/lobby.py``.
"""

from __future__ import annotations

import collections
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from cardtable.ai.bots import Bot
    from cardtable.engine.shuffle import Stream
    from cardtable.p2p import freshness, lobby, seal
    from cardtable.p2p.hidden.side import HiddenSide
    from cardtable.p2p.identity import Identity
    from cardtable.p2p.roundtrip import RoundTrips
    from cardtable.p2p.store import Store
    from cardtable.p2p.table import Applied, Roster, TableState
    from cardtable.p2p.wire import Append, AppendOk, Entry, Probe, Proposal, Witness

Addr = tuple[str, int]
BROADCAST: Addr = ("<broadcast>", 0)
FOLLOWER, CANDIDATE, LEADER = "follower", "candidate", "leader"


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
    heartbeat goes again after ``2 * resend`` or the member's RTO, whichever is longer, while
    the follower's election timer may still run (so that loss does not start needless
    elections; keep ``heartbeat + 4 * resend`` under ``election[0]``). ``resend`` and
    ``resend_max``: the bounds of the retransmission timeout (RTO), measured per member from
    round trips (``p2p.roundtrip``): the delay before resending a proposal not yet in the log,
    an APPEND whose entries or commit index are unacknowledged, or a vote request, three
    times, then twice that; towards a peer silent for more than ``election[1]`` every
    ``heartbeat`` (or ``retransmit``) instead. ``retransmit``: JOINs, and proposals already in
    the log but not committed. ``beacon``: how often the sequencer beacons while the lobby
    is open; ``beacon_closed`` once the table takes no one (the beacon then only says so).
    ``notice``: the sequencer tells the table a seated player it has not heard this long is not
    answering (a ``silent`` entry; none when it is not below ``takeover``); ``takeover``: a
    computer player takes the seat.
    ``lobby_silence``: a member silent this long in the lobby is evicted. ``bot_delay``: the
    sequencer waits this long after the last applied entry before it proposes a move of a
    computer player (``SimNet`` uses 0 unless given other timeouts).
    """

    heartbeat: float = 0.75
    election: tuple[float, float] = (1.2, 1.8)
    retransmit: float = 0.25
    resend: float = 0.05
    resend_max: float = 0.3
    reveal: float = 10.0
    lobby_silence: float = 5.0
    notice: float = 12.0
    takeover: float = 30.0
    beacon: float = 1.0
    beacon_closed: float = 2.0
    bot_delay: float = 0.8



@dataclass
class Follower:
    """The sequencer's view of one member (``p2p/replication.py``).

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
class Spectator:
    """The sequencer's view of one spectator (``p2p/spectators.py``): where it is, what it holds,
    and its newest stamp (``p2p/freshness.py``: a datagram of it not newer is a replay, or
    reordered: dropped)."""

    addr: Addr
    name: str
    follower: Follower
    stamp: int = 0



@dataclass
class Own:
    """One of this peer's proposals, kept until it shows in the committed log (``p2p/proposals.py``)."""

    seq: int
    payload: list[Any]
    proposal: bytes
    sig: bytes
    decoded: Proposal
    sent: float = float("-inf")  # when it first went to a sequencer
    sends: int = 0
    in_log: bool = False  # seen in the log (a round trip measured, or not if it went again)


@dataclass
class Witnessed:
    """A member's proposal this follower was sent because its author finds it censored: passed
    on to the sequencer (``p2p.proposals.FORWARD_EVERY``) until it is in the log, no longer allowed, or the
    sequencer changes, or ``CENSOR_AFTER`` has passed since it was first seen."""

    p: Proposal
    datagram: bytes  # the PROPOSE, as passed on
    since: float
    sequencer: bytes
    forward_at: float


class PeerState:
    """The fields of a peer, by concern (``Peer.__init__`` sets them all)."""

    # who it is, what it keeps, its randomness and clock
    identity: Identity
    key: bytes
    store: Store
    timeouts: Timeouts
    rng: Stream
    now: float
    port: int
    name: str
    incarnation: int
    dropped: collections.Counter[str]
    pass_key: seal.Seal | None  # the table's seal, if it has a passphrase
    _out: Output
    # the log, the table and the roster (membership over the whole log)
    table_id: bytes | None
    table: TableState
    log: list[Entry]
    raw: list[bytes]
    hashes: list[bytes]  # the chain hash at each index (p2p.chain)
    liars: dict[bytes, tuple[Witness, Witness]]  # sequencers proved to equivocate -> the proof
    heads_heard: dict[bytes, tuple[int, int, bytes]]  # member -> its head not yet compared
    head_told: tuple[int, bytes]  # the head last told to the next follower
    proof_sends: int
    proof_at: float
    roster: Roster
    commit_index: int
    log_seqs: dict[tuple[bytes, int], int]
    member_change: int
    departed: dict[bytes, int]  # leavers -> the index of their leave
    noticed: dict[bytes, float]  # silent players the sequencer said were so -> when it heard them last
    accusations_seen: dict[int, float]  # pending accusations (log index) -> since when this machine sees them
    telling: dict[bytes, float]  # leavers -> until when they hear that it committed
    incarnations: dict[bytes, list[int]]  # incarnations JOINs announced, per member
    incarnation_at: dict[bytes, float]
    buckets: dict[bytes, tuple[float, float]]
    waiting: tuple[bytes, int, float] | None
    censors: dict[bytes, float]
    garblers: dict[bytes, float]  # sequencers that starved this member with entries they spoilt -> when
    bad_appends: int  # the sequencer's APPENDs in a row with spoilt entries and none taken (p2p.replication)
    witnessed: dict[bytes, Witnessed]
    leaving: bool
    left: bool
    evicted: bool  # removed from the table by the sequencer (silent in the lobby)
    # terms and elections
    term: int
    voted_for: bytes | None
    role: str
    leader: bytes | None
    leader_addr: Addr | None
    leader_commit: int
    leader_since: float
    leader_heard: float
    term_start: int
    election_at: float
    votes: set[bytes]
    lost: set[bytes]  # members that would vote for this candidate but lost their store
    refused: set[bytes]  # members that would not vote for this candidate
    vote_sent: float
    vote_tries: int
    amnesiac: bool
    standing: int  # the term this peer stands for (its own term moves once a member answers in it)
    stand_past: int  # a term its next candidacy stands past (a worse candidate's, p2p.elections)
    complaints: dict[bytes, tuple[int, float, float]]  # members saying they starve -> (index, since, last)
    complained: dict[bytes, float]  # members whose word that they starve this member took -> when
    stall: tuple[int, float, bytes] | None  # the first entry not committed, since when, from which sequencer
    step_up_at: float  # when the sequencer may stand again to take back a member in a later term
    # replication (the sequencer's view of each follower)
    followers: dict[bytes, Follower]
    spectators: dict[bytes, Spectator]  # the sequencer's spectators (p2p/spectators.py)
    watching: bool  # this peer is a spectator
    watch_at: float  # when it may ask for the log again
    watch_tries: int
    pair_keys: dict[tuple[bytes, bytes], bytes | None]  # (table, member): heartbeat key
    round_trips: RoundTrips  # how long to wait for each member's answer
    # addresses and freshness
    addrs: dict[bytes, Addr]
    addr_seen: dict[bytes, float]
    probes: dict[bytes, tuple[Addr, bytes, float]]  # member -> (new address, nonce, sent)
    heard: dict[bytes, float]
    stamps: freshness.Stamps
    seen: freshness.Seen
    seen_saved: dict[bytes, int]
    # joining and restarting
    contact: Addr | None
    contacts: list[Addr]  # a joiner's addresses to try in turn (p2p.admission)
    sponsor: bytes | None  # before it holds a log: the sequencer a member named
    cookie: bytes | None  # the sequencer's cookie for this peer's join (p2p.lobby)
    door: lobby.Door
    hello: bool
    hello_at: float
    # this peer's own proposals
    next_seq: int
    queue: list[Own]
    propose_at: float
    propose_tries: int
    # driving the table: seed, bots, the sequencer's duties
    bots_spec: str
    auto: str | None
    started: bool
    busy: bool
    nonce: bytes | None
    side: HiddenSide  # this machine's part of hidden hands (p2p/hidden/side.py)
    bots: dict[int, Bot]
    auto_bot: Bot | None
    asked_at: int  # the table's position (``TableState.position``) when this seat's bot was asked
    due_at: int  # ... and when this machine made a move only it could make (hidden hands)
    bots_asked_at: int  # ... and the computer players (sequencer)
    applied_at: float  # when the last committed entry that is not talk was applied
    stage: tuple[Any, ...]
    stage_since: float
    beacon_at: float

    if TYPE_CHECKING:  # what the parts ask of each other (each is defined in one part)
        @property
        def my_seat(self) -> int | None: ...
        def _begin(self, now: float) -> None: ...
        def _finish(self) -> Output: ...
        def _event(self, name: str, /, **data: Any) -> None: ...
        def _drop(self, reason: str) -> None: ...
        def _send(self, data: bytes, addr: Addr | None) -> None: ...
        def _msg(self, kind: int, fields: list[Any]) -> bytes: ...
        def _append_msg(self, head: list[Any], entries: list[bytes], addrs: list[Any]) -> bytes: ...
        def _append_room(self, head: list[Any], addrs: list[Any]) -> int: ...
        def _heartbeat_msg(self, pair_key: bytes, prev: int, prev_term: int, prev_hash: bytes) -> bytes: ...
        def _propose_msg(self, own: Own) -> bytes: ...
        def _stamp(self) -> int: ...
        def _random_bytes(self, n: int) -> bytes: ...
        def _members(self) -> list[bytes]: ...
        def _feed_roster(self, entry: Entry) -> None: ...
        def _may_change_members(self, payload: list[Any] | None = None) -> bool: ...
        def _redirect(self, addr: Addr) -> None: ...
        def _hello_msg(self) -> bytes: ...
        def _start_election(self) -> None: ...
        def _step_down(self) -> None: ...
        def _check_censorship(self) -> None: ...
        def _censorship_due(self) -> list[float]: ...
        def _on_cookie(self, msg: Probe, addr: Addr) -> bool: ...
        def _append_local(self, entry: Entry, raw: bytes | None = None, persist: bool = True) -> None: ...
        def _last(self) -> tuple[int, int]: ...
        def _hash_at(self, index: int) -> bytes: ...
        def _tell_head(self, match: int) -> None: ...
        def _two_histories(self, entry: Entry, prev: bytes) -> None: ...
        def _forked_here(self, index: int) -> bool: ...
        def _rewind(self, index: int) -> None: ...
        def _truncate(self, length: int) -> None: ...
        def _caught_up(self) -> bool: ...
        def _leader_commit(self) -> None: ...
        def _track_followers(self) -> list[bytes]: ...
        def _replicate(self, key: bytes, f: Follower) -> None: ...
        def _took_answer(self, f: Follower, msg: AppendOk) -> bool: ...
        def _take_as_lost(self, f: Follower) -> None: ...
        def _due(self, key: bytes, f: Follower) -> float: ...
        def _feed_spectators(self) -> None: ...
        def _on_watch_cookie(self, addr: Addr) -> None: ...
        def _cookie_passed(self, key: bytes, cookie: bytes | None, addr: Addr) -> bool: ...
        def _member_addrs(self) -> list[Addr]: ...
        def _pair_key(self, key: bytes) -> bytes | None: ...
        def _backoff(self, tries: int, key: bytes | None = None) -> float: ...
        def _set_term(self, term: int, vote: bytes | None) -> None: ...
        def _election_timeout(self) -> float: ...
        def _takes_term(self, msg: Append | AppendOk) -> bool: ...
        def _may_elect(self) -> bool: ...
        def _learn_addr(self, key: bytes, addr: Addr, direct: bool = True) -> None: ...
        def _freshness(self, key: bytes, stamp: int) -> str: ...
        def _propose(self, payload: list[Any]) -> None: ...
        def _hidden_step(self) -> None: ...
        def _send_secret(self, to: bytes, item: Any) -> None: ...
        def _move_payload(self, seat: int, text: str) -> list[Any] | None: ...
        def _queued(self, kind: str) -> bool: ...
        def _sequence_queue(self) -> None: ...
        def _send_head(self) -> None: ...
        def _noticed_in_log(self) -> None: ...
        def _sequence(self, proposal: bytes, sig: bytes, p: Proposal) -> bool: ...
        def _commit_to(self, index: int, quiet: bool = False) -> None: ...
        def _applied(self, done: Applied, entry: Entry, quiet: bool) -> None: ...
        def _go_away(self) -> None: ...
        def _evicted_in(self, msg: Append) -> bool: ...
