"""Membership: who is a member, joining, restarts saying where they are, leaving, evictions.

The members of a table are the peers seated by its ``create`` and ``join`` entries, less
those that left, by the *whole* log, committed or not (Raft's single-server membership
changes): ``_feed_roster`` follows every entry appended or truncated. The sequencer appends a
``join`` or ``leave`` only when the previous one is committed and an entry of its own term is
(``_may_change_members``). A non-member's ``JOIN`` passes the lobby's door first
(``p2p/lobby.py``: a cookie round trip before any signature is checked); a member's ``JOIN``
says where it is after a restart. A member silent in the lobby is evicted by the sequencer
(``p2p/driving.py`` decides when), even while its own join is the change pending.
"""

from __future__ import annotations

from typing import Any

from cardtable.p2p import hosting, wire
from cardtable.p2p.identity import verify
from cardtable.p2p.peer_state import FOLLOWER, LEADER, Addr, Follower, PeerState
from cardtable.p2p.wire import JOIN, REDIRECT, Append, Entry, Join, Probe, Redirect, WireError

MEMBER_KINDS = ("join", "leave", "evict", "free")
REMOVALS = ("evict", "free")  # a member removed by another (the sequencer; the host: p2p/hosting.py)
INCARNATIONS_KEPT = 4  # the incarnations a member's JOINs announced that are remembered
INCARNATION_EVERY = 2.0  # seconds between two new incarnations of one member (restarts)


class Membership(PeerState):
    """The membership part of ``Peer`` (see ``p2p/peer_state.py``)."""

    def _feed_roster(self, entry: Entry) -> None:
        kind = entry.decoded.kind
        if not self.roster.admit(entry) and kind in ("create", "start", "options") + MEMBER_KINDS:
            gone = entry.decoded.author if kind == "leave" else \
                hosting.freed(self.roster, entry.decoded.payload[1]) if kind == "free" else \
                self.roster.evictee(entry) if kind == "evict" else None
            reason, _ = self.roster.member_change(entry)
            if not reason and kind in MEMBER_KINDS:
                self.member_change = entry.index
                if gone is not None:
                    self.departed[gone] = entry.index
                elif kind == "join":
                    self.departed.pop(entry.decoded.author, None)  # a member that left is back
        p = entry.decoded
        key = (p.author, p.incarnation)
        self.log_seqs[key] = max(self.log_seqs.get(key, 0), p.seq)

    def _members(self) -> list[bytes]:
        return list(self.roster.members)

    def _may_change_members(self, payload: list[Any] | None = None) -> bool:
        """Raft's one-at-a-time rule: this term has committed an entry, no change is pending.
        One exception: the eviction (``payload``) of the member whose join is the change
        pending, which brings the members back to those of the committed log."""
        if self.commit_index < self.term_start:
            return False
        if self.member_change <= self.commit_index:
            return True
        pending = self.log[self.member_change - 1].decoded
        return payload is not None and payload[0] == "evict" and pending.kind == "join" \
            and self.roster.members.get(pending.author) == payload[1]

    def _evicted_in(self, msg: Append) -> bool:
        """Whether ``msg``, from a member sequencer, of any term, shows this peer's eviction
        committed (both signatures of the entry checked)."""
        seat = self.roster.members.get(self.key)
        if seat is None or self.table_id is None or msg.key not in self.roster.members \
                or msg.prev_index > len(self.log):
            return False
        prev = self._hash_at(msg.prev_index)  # the entries chain on this log's (if it has their past)
        for e in msg.entries:
            if e.decoded.kind in REMOVALS and e.decoded.payload[1] == seat and e.index <= msg.commit \
                    and e.sequencer == msg.key and e.authentic(self.table_id, prev):
                return True
            prev = e.chain(self.table_id, prev)
        return False

    def _on_join(self, msg: Join, addr: Addr) -> None:
        """A member's JOIN: it restarted (or lost its store) and says where it is now. Its
        incarnation is the only way a new one starts (``p2p/proposals.py`` appends proposals
        of known incarnations only): at most one new one every ``INCARNATION_EVERY``."""
        known = self.incarnations.setdefault(msg.key, [])
        fresh = msg.incarnation not in known
        if fresh:
            if self.now < self.incarnation_at.get(msg.key, float("-inf")) + INCARNATION_EVERY:
                self._drop("too many incarnations")
                return
            known.append(msg.incarnation)
            del known[:-INCARNATIONS_KEPT]
            self.incarnation_at[msg.key] = self.now
        if self.role != LEADER:
            self._redirect(addr)
            return
        f = self.followers.setdefault(msg.key, Follower(next=len(self.log) + 1, acked=self.now))
        lost = msg.proposal is not None and fresh and (msg.key, msg.incarnation) not in self.log_seqs
        if lost:  # it lost its store: it holds nothing it acknowledged (not: back, its join in the log)
            f.match, f.next, f.base = 0, 1, 0
        f.addrs_known = f.addrs_sent = None  # a restart: tell it the addresses again
        f.acked, f.tries, f.outstanding, f.answered = self.now, 0, 0, False
        self._replicate(msg.key, f)

    def _hello_msg(self) -> bytes:
        return self._msg(JOIN, [self.table_id, self.key, self.incarnation, self.name, None, None, None])

    def _redirect(self, addr: Addr) -> None:
        if self.leader is not None and self.leader_addr is not None:
            host, port = self.leader_addr
            fields = [self.table_id, self.key, self.term, self.leader, host, port]
            self._send(self._msg(REDIRECT, fields), addr)

    def _on_asking(self, msg: Join, addr: Addr, packet: wire.Packet) -> None:
        """A non-member's JOIN (p2p/lobby.py): a round trip first (a cookie to its address),
        then the signatures, then the join goes in the log; nothing about it is kept before."""
        if msg.proposal is None or msg.proposal_sig is None or addr in self._member_addrs():
            return  # a newcomer's JOIN carries its join, from no member's address: an answer is
            # no bigger than it, and a stranger cannot turn answers on the members (lobby.py)
        if self.role != LEADER:
            if self.door.may_answer(msg.key, addr, self.now):
                self._redirect(addr)
            return
        back = self._coming_back(msg.key)
        if not (self.roster.open or back) or not self._may_change_members():
            return  # a full or started table: its beacon says so
        if not self._cookie_passed(msg.key, msg.cookie, addr):
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
        if self._sequence(msg.proposal, msg.proposal_sig, p):  # back: from where its kept log may end
            self.followers[msg.key] = Follower(next=len(self.log) if back else 1, acked=self.now)
            self.heard[msg.key] = self.now  # its cookie came back: it is alive
            self.seen.check(msg.key, packet.stamp)  # a member now: this JOIN replayed is a replay
            self._learn_addr(msg.key, addr)  # a member now: the log says so

    def _cookie_passed(self, key: bytes, cookie: bytes | None, addr: Addr) -> bool:
        """The lobby's door (``p2p/lobby.py``): whether ``cookie`` is the one for ``key`` at
        ``addr``; if not, the cookie goes to ``addr`` (at most once a tick per source)."""
        if self.door.valid(cookie, key, addr, self.now):
            return True
        if self.door.may_answer(key, addr, self.now):
            cookie = self.door.cookie(key, addr, self.now)
            self._send(self._msg(wire.PROBE, [self.table_id, self.key, cookie, False]), addr)
        else:
            self._drop("busy")
        return False

    def _coming_back(self, key: bytes) -> bool:
        """Whether ``key`` left this table after the lobby and its seat is still kept for it (by
        the whole log and the committed table): only that key may take the seat back."""
        return key in self.roster.away and self.table.away_seat(key) is not None

    def _member_addrs(self) -> list[Addr]:
        return [a for k, a in self.addrs.items() if k in self.roster.members]

    def _on_cookie(self, msg: Probe, addr: Addr) -> bool:
        """A joiner's side of the lobby's door: a probe before it holds a log is the
        sequencer's cookie; the join goes again, with it, to where the cookie came from."""
        if self.watching:
            self.cookie = msg.nonce
            self._on_watch_cookie(addr)
            return True
        if not (self.queue and self.queue[0].payload[0] == "join" and self.key not in self.roster.members):
            return False
        self.cookie = msg.nonce
        self.contact, self.contacts = addr, [addr]
        self.leader_heard = float("-inf")
        self._send_head()
        return True

    def _on_redirect(self, msg: Redirect) -> None:
        if self.leader is None and msg.leader != self.key:
            self.contact, self.sponsor = (msg.host, msg.port), msg.leader
            self.contacts = [self.contact]
            if self.queue and self.queue[0].payload[0] == "join":
                self._send_head()
            elif self.watching:
                self._on_watch_cookie(self.contact)

    def _say_hello(self) -> None:
        """A restarted peer tells the members where it is now (a JOIN without a proposal)."""
        self.hello_at = self.now + 2 * self.timeouts.retransmit
        data = self._hello_msg()
        for key in self._members():
            if key != self.key:
                self._send(data, self.addrs.get(key))

    def _go_away(self) -> None:
        self.store.set_meta("left", True)
        self.left = True
        self.role = FOLLOWER
        self.queue = []
        self._event("left")
