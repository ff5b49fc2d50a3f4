"""Replication: the local log, ``APPEND``s and their answers, the commit index.

Follower side: an ``APPEND`` (or a short ``HEARTBEAT`` standing for an empty one) is matched
against the local log (Raft's log matching), new entries are checked and stored, the commit
index follows the sequencer's; a sequencer whose own signed ``APPEND``s keep carrying entries that
do not verify, where no history explains it, is starving this member: named and voted out
(``_starved``). Sequencer side: one ``Follower`` view per member, what each is
missing goes at once (batched up to the datagram limit, at most ``WINDOW`` unanswered), idle
members get heartbeats, unanswered ``APPEND``s are resent, and an entry is committed once a
majority stores it.
"""

from __future__ import annotations

from cardtable.p2p import freshness, wire
from cardtable.p2p.identity import verify
from cardtable.p2p.peer_state import FOLLOWER, LEADER, Addr, Follower, PeerState
from cardtable.p2p.table import Roster
from cardtable.p2p.wire import APPEND_OK, GENESIS, Append, AppendOk, Entry, Heartbeat

WINDOW = 4  # unanswered APPENDs to one follower before no more new entries go to it
HEARTBEAT_TRIES = 6  # unanswered short heartbeats to one follower before a signed APPEND goes instead
BAD_APPENDS = 3  # APPENDs in a row with entries only the sequencer can have spoilt: it starves this member


class Replication(PeerState):
    """The replication part of ``Peer`` (see ``p2p/peer_state.py``)."""

    def _append_local(self, entry: Entry, raw: bytes | None = None, persist: bool = True) -> None:
        raw = raw or entry.pack()
        self.hashes.append(entry.chain(self.table_id or entry.decoded.table_id, self._hash_at(len(self.log))))
        self.log.append(entry)
        self.raw.append(raw)
        if persist:
            self.store.append([raw])
        self._feed_roster(entry)

    def _hash_at(self, index: int) -> bytes:
        """The chain hash of the log up to ``index`` (``GENESIS`` for 0)."""
        return self.hashes[index - 1] if 0 < index <= len(self.hashes) else GENESIS

    def _truncate(self, length: int) -> None:
        del self.log[length:]
        del self.raw[length:]
        del self.hashes[length:]
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

    def _caught_up(self) -> bool:
        """Whether this peer's committed view is as recent as the sequencer's last word."""
        return self.role == LEADER or (self.leader is not None and self.commit_index >= self.leader_commit)

    def _answer(self, success: bool, match: int, addr: Addr) -> None:
        fields = [self.table_id, self.key, self.term, success, match, self._hash_at(match)]
        self._send(self._msg(APPEND_OK, fields), addr)

    def _on_append(self, msg: Append, addr: Addr, prev_hash: bytes | None = None) -> None:
        if not self._takes_term(msg):  # terms and a sticky sequencer (p2p.elections)
            return
        if msg.term < self.term and self._evicted_in(msg):  # it stood alone while cut off: its term is ahead
            self.evicted = True
            self._event("evicted", seat=self.roster.members.get(self.key))
            return
        if msg.term < self.term:
            self._drop("old term")
            self._answer(False, len(self.log), addr)
            return
        if self.role == LEADER or (self.leader is not None and self.leader != msg.key):
            self._drop("two sequencers")
            return
        if msg.key in self.liars:  # it showed two histories: no member that knows follows it again
            self._drop("equivocated")
            return
        if self.leader is None:
            self._event("sequencer", key=msg.key.hex(), term=msg.term)
            self.propose_at, self.propose_tries = self.now, 0  # a pending proposal goes to it at once
            self.bad_appends = 0
        self.role, self.leader = FOLLOWER, msg.key
        self.leader_addr = self.addrs.get(msg.key, addr)  # the checked address (p2p.freshness)
        self.leader_heard = self.now
        self.votes, self.lost, self.refused = set(), set(), set()
        self.hello = False
        self.election_at = self.now + self._election_timeout()
        for key, host, port in msg.addrs:
            self._learn_addr(key, (host, port), direct=False)
        success, match = self._match_entries(msg, prev_hash)
        if success:
            self.leader_commit = max(self.leader_commit, msg.commit)
            self._noticed_in_log()
            self._commit_to(min(msg.commit, match))
            if self.amnesiac and self._caught_up() and self.log:
                self.amnesiac = False
            self._tell_head(match)
        self._answer(success, match, addr)
        if self.bad_appends >= BAD_APPENDS:
            self._starved(msg.key, match + 1)

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
                               msg.commit, (), ()), addr, msg.prev_hash)

    def _match_entries(self, msg: Append, prev_hash: bytes | None = None) -> tuple[bool, int]:
        """Raft's log matching on the hash chain: (success, index up to which this log now
        equals the leader's). An entry must chain on this log's entry before it (its
        sequencer's signature covers that entry's chain hash), so a log that differs anywhere
        before ``prev`` answers no, and the sequencer goes back further (``prev_hash``, a
        heartbeat's: the leader's chain hash at ``prev``)."""
        prev = msg.prev_index
        tid = self.table_id or b""
        if prev > len(self.log):
            return False, len(self.log)
        mismatch = prev and (self.log[prev - 1].term != msg.prev_term
                             or (prev_hash and self._hash_at(prev) != prev_hash))
        if mismatch:  # another term: back past the whole term; the same term, another chain: one step
            bad = self.log[prev - 1].term
            while bad != msg.prev_term and prev > self.commit_index + 1 and self.log[prev - 2].term == bad:
                prev -= 1
            return False, max(prev - 1, self.commit_index)
        index, last_term = prev, msg.prev_term
        fresh: list[Entry] = []
        spoilt = back = False
        for e in msg.entries:
            if e.index != index + 1 or not last_term <= e.term <= msg.term:
                self._drop("malformed")
                spoilt = True  # the APPEND alone shows it: no honest sequencer sends that
                break
            before = self._hash_at(index)
            if e.index <= len(self.log) and self.log[e.index - 1].term == e.term:
                if e.chain(tid, before) == self.hashes[e.index - 1]:
                    index, last_term = e.index, e.term
                    continue
                self._two_histories(e, before)  # one term, one index, another entry: proof if signed
            if not e.authentic(tid, before):
                self._drop("forged")  # or the chains part at or before prev: go back one
                spoilt = self._spoilt(e, index, msg.entries[index - prev - 1] if index > prev else None)
                back = not fresh and prev > self.commit_index
                break
            if e.index <= self.commit_index and not self._forked_here(e.index):
                self._drop("conflicts with committed")
                break
            if e.index <= len(self.log):
                self._rewind(e.index)
            fresh.append(e)
            self._append_local(e, persist=False)
            index, last_term = e.index, e.term
        if fresh:
            self.store.append([self.raw[e.index - 1] for e in fresh])
            self.bad_appends = 0
        elif spoilt:
            self.bad_appends += 1
        if back:
            return False, max(prev - 1, self.commit_index)
        return True, index

    def _spoilt(self, e: Entry, index: int, held: Entry | None) -> bool:
        """Whether an entry that does not verify after this log's first ``index`` entries can
        only be its sender's doing (the ``APPEND`` carrying it is signed by the sequencer:
        ``p2p/peer.py`` checks that before it gets here, so no stranger's datagram counts).

        Its author's signature (or its table) fails: no history explains that. Its sequencer's
        signature fails: only if the sequencer's chain at ``index`` is this log's. That holds
        when the entry the same ``APPEND`` carries at ``index`` (``held``: one this log holds)
        verifies on this log; or, when the ``APPEND`` starts at ``index``, when this member holds
        the first ``index`` entries committed and no sequencer was ever proved to equivocate
        (an honest sequencer holds every committed entry). Otherwise this log may hold another
        history (a fork of an equivocator, that the sequencer walks back over one entry at a
        time): not counted."""
        tid = self.table_id or b""
        if e.decoded.table_id != tid or not verify(e.decoded.author, wire.proposal_signed(e.proposal),
                                                    e.author_sig):
            return True
        if held is not None:
            return held.authentic(tid, self._hash_at(index - 1))
        return index == 0 or (index <= self.commit_index and not self.liars)

    def _starved(self, sequencer: bytes, index: int) -> None:
        """``BAD_APPENDS`` of the sequencer's signed APPENDs in a row carried entries spoilt by it
        (``_spoilt``), none this member could take: it starves this member (issue 35, item 4:
        the match used to wait for it for good, since every APPEND reset the election timer).
        Named (``bad_entries``), never voted for again; this member stands at once, and the
        sequencer the others elect gets it the log. If that is the same one and it goes on, it
        is caught again within three APPENDs."""
        self.bad_appends = 0
        self.garblers[sequencer] = self.now
        self._event("bad_entries", key=sequencer.hex(), seat=self.table.seat_of(sequencer), term=self.term,
                    index=index)
        if self._may_elect():
            self._start_election()

    def _on_append_ok(self, msg: AppendOk) -> None:
        if not self._takes_term(msg):  # terms and a sticky sequencer (p2p.elections)
            return
        f = self.followers.get(msg.key)
        if self.role == LEADER and f is not None and msg.key in self.departed:
            # a leaver (or an evicted member) answers, whatever its term: tell it on until it has heard
            f.acked, self.telling[msg.key] = self.now, self.now + self.timeouts.election[1]
        if self.role != LEADER or msg.term != self.term or f is None:
            return
        if f.outstanding == 1 and not f.tries:  # the one APPEND in flight, sent once: a clean sample
            self.round_trips.sample(msg.key, self.now - f.sent)
        elif f.tries:
            self.round_trips.ambiguous()
        if self._took_answer(f, msg):
            self._leader_commit()

    def _took_answer(self, f: Follower, msg: AppendOk) -> bool:
        """Follow a replica's (or a spectator's) answer in its view ``f``: whether it holds
        this log up to its ``match``."""
        match = min(msg.match, len(self.log))
        success = msg.success and self._same_chain(msg.key, match, msg.head)
        f.acked, f.tries, f.answered = self.now, 0, True
        f.outstanding = max(0, f.outstanding - 1)
        if not f.outstanding:  # everything sent has arrived (a guess when datagrams are duplicated)
            f.commit_known = f.commit_sent
            if f.addrs_sent is not None:
                f.addrs_known, f.addrs_sent = f.addrs_sent, None
        if success:
            f.match = max(f.match, match)
            f.next = max(f.next, f.match + 1)
            if not f.outstanding and f.match < len(self.log):
                f.next = f.match + 1  # all answered, yet some entries sent did not stick: again
        else:  # its log is shorter or differs from ``match`` on (it may even have lost its store)
            if msg.success:  # it holds as many entries, but another chain: back below the last try
                match = max(min(match, f.base) - 1, 0)
            f.match = min(f.match, match)
            f.next = min(f.next, match + 1)
            f.base = min(f.base, match)
        return success

    def _same_chain(self, key: bytes, index: int, head: bytes) -> bool:
        """Whether a member's answer names this log's own chain hash at ``index``."""
        return self._hash_at(index) == head

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
                self.followers[key] = Follower(next=len(self.log) + 1, acked=self.now)
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
            self._take_as_lost(f)
            self._replicate(key, f)
        self._feed_spectators()

    def _take_as_lost(self, f: Follower) -> None:
        """Due again with no answer in time and nothing new: what is in flight is lost."""
        if f.outstanding and not self._news(f):
            f.tries, f.outstanding, f.addrs_sent = f.tries + 1, 0, None
            if f.match < len(self.log):
                f.next = max(f.match, f.base) + 1

    def _news(self, f: Follower) -> bool:
        """Whether there is something new for ``f`` that may go at once: entries (within the
        window) or a commit index it was not sent. Nothing goes at once to a follower silent
        for longer than an election timeout (gone, or cut off): it gets heartbeats only."""
        if self._silent(f):
            return False
        return (f.next <= len(self.log) and f.outstanding < WINDOW) or f.commit_sent < self.commit_index

    def _silent(self, f: Follower) -> bool:
        return self.now - f.acked > self.timeouts.election[1]

    def _due(self, key: bytes, f: Follower) -> float:
        """When the next APPEND to ``f`` is due: news at once; a resend when the last one is
        unanswered; otherwise a heartbeat."""
        if key not in self.addrs and key not in self.spectators:
            return f.sent + self.timeouts.heartbeat
        if self._news(f):
            return self.now
        if f.outstanding:
            return f.sent + self._resend_after(key, f)
        return f.sent + self.timeouts.heartbeat

    def _resend_after(self, key: bytes, f: Follower) -> float:
        t = self.timeouts
        if self._silent(f):
            return t.heartbeat
        if f.match < len(self.log) or f.commit_known < self.commit_index:  # entries or a commit pending
            return self._backoff(f.tries, key)
        # a heartbeat: its election timer runs, try again soon
        return max(2 * t.resend, self.round_trips.timeout(key))

    def _backoff(self, tries: int, key: bytes | None = None) -> float:
        """The delay before resend number ``tries + 1`` of a message to ``key`` (None: to
        several): the round-trip timeout (``p2p.roundtrip``) for the first three, then twice
        that (the caller slows down further once the other side has been silent for long)."""
        return self.round_trips.timeout(key) * (1 if tries < 3 else 2)

    def _replicate(self, key: bytes, f: Follower) -> None:
        watcher = self.spectators.get(key)
        addr = watcher.addr if watcher is not None else self.addrs.get(key)
        if addr is None:
            f.sent = self.now  # nowhere to send yet: try again at the next heartbeat
            return
        self._send(self._append_for(key, f), addr)

    def _append_for(self, key: bytes, f: Follower) -> bytes:
        prev = min(f.next - 1, len(self.log))
        prev_term = self.log[prev - 1].term if prev else 0
        head = [self.table_id, self.key, self.term, prev, prev_term, self.commit_index]
        addrs = [[k, *self.addrs[k]] for k in self._members() if k != key and k in self.addrs]
        if addrs == f.addrs_known:
            addrs = []  # it has them: keep heartbeats small
        budget = self._append_room(head, addrs)
        entries = [] if self._silent(f) else self._batch(prev, budget)  # silent: a probe, no backlog
        if not entries and prev < len(self.log) and not self._silent(f):
            addrs = []  # no room for them and an entry: the entry first
            entries = self._batch(prev, self._append_room(head, addrs))
            if not entries:  # cannot happen (entries are small); never push it again at once
                f.outstanding = WINDOW
        if addrs:
            f.addrs_sent = addrs
        f.outstanding += 1
        f.next, f.sent, f.commit_sent = prev + len(entries) + 1, self.now, self.commit_index
        if not entries and not addrs and f.answered and f.tries < HEARTBEAT_TRIES and not self._silent(f):
            pair_key = self._pair_key(key)
            if pair_key is not None:
                confirmed = f.match == prev  # it answered with this very chain hash (``_same_chain``)
                prev_hash = b"" if confirmed else self._hash_at(prev)
                return self._heartbeat_msg(pair_key, prev, prev_term, prev_hash)
        return self._append_msg(head, entries, addrs)

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
