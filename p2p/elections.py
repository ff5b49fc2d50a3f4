"""Elections: terms, votes, becoming sequencer and stepping down (Raft, with a sticky sequencer).

A member whose election timer runs out stands: it asks every member for its vote in the next
term and wins with a majority (or when every member answered with a vote or "lost store").
A new sequencer opens its term with a ``noop``. Terms move only as Raft allows and only for
members (``p2p/admission.py`` checks who speaks before a term is looked at).

A live sequencer is sticky (Raft thesis, 4.2.3 and 9.6; docs/protocol.md, "Sticky sequencer"):

- a member that hears a *working* sequencer (``_sticky``: heard within the shortest election
  timeout, no evidence of its own against it: it equivocated, censored this member or one whose
  proposal it passed on (``p2p/proposals.py``), starved this member, or left an entry it sent
  uncommitted for ``STALL_AFTER``) votes for no one else, and no other member's message moves
  its term; the sequencer itself does the same while a majority answers it (Raft's
  check-quorum), and always at a table of two members (the other cannot be elected without it);
- a candidate does not move its own term when it stands (pre-vote, as far as the wire allows):
  it asks for the next term and keeps its own until a member answers in that one; a voter
  moves its term for a vote request only if it grants it. So a member that stands while the
  others hear the sequencer moves no term, its own included;
- one reason only its victim can see: a member whose vote requests say, for ``LAG_AFTER``, that
  its log stops at one place before entries committed here is starved (``_starved`` in
  ``p2p/replication.py``); the voter then holds to the sequencer no longer for the longest
  election timeout and stands itself, taking no ``APPEND`` of the term it leaves meanwhile
  (``_complaint``; at most once per ``COMPLAINT_EVERY`` for one member, which gets no vote from
  it, nor from the sequencer, for as long);
- a member left behind in a later term (it stood, or voted, while cut off with others) is
  taken back by the sequencer standing again in a term past that one, with its followers'
  votes (``_outrun``; at most once per ``STEP_UP_EVERY``).
"""

from __future__ import annotations

from cardtable.p2p import wire
from cardtable.p2p.peer_state import CANDIDATE, FOLLOWER, LEADER, Addr, PeerState
from cardtable.p2p.proposals import CENSOR_AFTER, SEQUENCER_KINDS
from cardtable.p2p.wire import VOTE, VOTE_ASK, Append, AppendOk, Proposal, Vote, VoteAsk

STALL_AFTER = CENSOR_AFTER  # an entry the sequencer sent still not committed: it withholds
LAG_AFTER = 0.5  # a member says it is starved this long before it is taken at its word
COMPLAINT_EVERY = 20.0  # one member's starvation moves this member at most this often
STEP_UP_EVERY = 5.0  # the sequencer stands again, to take back a member in a later term, at most this often


class Elections(PeerState):
    """The elections part of ``Peer`` (see ``p2p/peer_state.py``)."""

    def _set_term(self, term: int, vote: bytes | None) -> None:
        self.term, self.voted_for = term, vote
        self.store.set_term(term, vote)

    def _new_term(self, term: int) -> None:
        """``p2p/peer.py`` calls this when a member's ``APPEND``, ``APPEND_OK``, ``VOTE_ASK`` or
        ``VOTE`` carries a later term, before the message is handled. Nothing moves here: whether
        the term moves depends on who says what (a sticky sequencer), which the handler decides
        (``_on_vote_ask``, ``_on_vote``; ``_takes_term`` for the replication part)."""

    def _move_term(self, term: int, stand: bool = True) -> None:
        """Move to a later term: as a follower with no sequencer yet. A candidate stays one up
        to the term it stands for (in that one it keeps its own vote, from now on stored),
        unless it gives its vote there to another (``stand`` false)."""
        if stand and self.role == CANDIDATE and term <= self.standing:
            self._set_term(term, self.key if term == self.standing else None)
            self.leader = self.leader_addr = None  # the one it knew is of an earlier term
            return
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

    def _election_timeout(self) -> float:
        """Randomized within ``Timeouts.election``; a follower that holds evidence against the
        sequencer it hears (it censored, starved or deceived this member), or that found some
        within the longest election timeout and follows no one, stands again within 0.2 s, so
        that its vote requests go on while the others check (``p2p.proposals``, ``_complaint``)."""
        lo, hi = self.timeouts.election
        found = max([*self.garblers.values(), *self.censors.values()], default=float("-inf"))
        leader = self.leader
        if self.role == FOLLOWER and (self._evidence(leader) if leader is not None
                                      else self.now - found < hi):
            lo, hi = 0.0, 4 * self.timeouts.resend
        return lo + (hi - lo) * self.rng.below(1_000_000) / 1_000_000

    def _may_elect(self) -> bool:
        return not self.amnesiac and self.key in self.roster.members and self.role != LEADER

    # --- stickiness -------------------------------------------------------------------------------
    def _sticky(self) -> bool:
        """Whether this peer hears a working sequencer (or is one that a majority answered
        within the shortest election timeout, or that has one other member, which could not be
        elected without it): then it votes for no other member, and no other member's message
        moves its term. Spectators and peers that are no members of their own log are never
        sticky (they follow whoever the members elected)."""
        if self.watching or self.key not in self.roster.members:
            return False
        lo = self.timeouts.election[0]
        if self.role == LEADER:
            members = self._members()
            answered = sum(1 for k in members if k == self.key
                           or (k in self.followers and self.now - self.followers[k].acked < lo))
            return 2 * answered > len(members) or len(members) <= 2
        leader = self.leader
        return self.role == FOLLOWER and leader is not None and self.now - self.leader_heard < lo \
            and not self._evidence(leader) and not self._stalled() and not self._unstuck()

    def _evidence(self, key: bytes) -> bool:
        """Whether this member holds evidence of its own against ``key`` as sequencer."""
        return key in self.liars or key in self.censors or key in self.garblers

    def _unstuck(self) -> bool:
        """Whether this member took a member's word that the sequencer starves it, within the
        longest election timeout (``_complaint``)."""
        took = max(self.complained.values(), default=float("-inf"))
        return self.now - took < self.timeouts.election[1]

    def _watch_commits(self) -> None:
        """Keep when the first entry not committed here arrived (about: the sequencer's last
        ``APPEND`` before it was seen), per sequencer (``p2p/replication.py`` calls this for
        each ``APPEND``, before it is handled)."""
        first, leader = self.commit_index + 1, self.leader
        if len(self.log) < first or leader is None or self.role != FOLLOWER:
            self.stall = None
        elif self.stall is None or (self.stall[0], self.stall[2]) != (first, leader):
            since = self.leader_heard if self.leader_heard > float("-inf") else self.now
            self.stall = (first, since, leader)

    def _stalled(self) -> bool:
        """An entry the sequencer sent has waited ``STALL_AFTER`` to be committed: an honest
        sequencer commits within round trips while a majority answers it (``Censor`` with
        ``withhold`` in ``tests/p2p/members.py``)."""
        self._watch_commits()
        return self.stall is not None and self.now - self.stall[1] >= STALL_AFTER

    def _complaint(self, msg: VoteAsk) -> bool:
        """Whether a member that asks for votes while this peer hears a working sequencer is
        starved by it: its log, as its requests say, is this log's own chain up to an index
        below this commit index, and it has said so, at the same index, for ``LAG_AFTER`` or
        longer (a member back from a cut gets an ``APPEND`` from the sequencer as soon as its
        vote request reaches it, and stops asking). At most once per ``COMPLAINT_EVERY`` for
        one member. Nothing shows it is true (a modified member can say so): it is the price of
        letting a follower the sequencer starves get it replaced; the member that says so gets
        no vote here for ``COMPLAINT_EVERY``, and its log is behind anyway."""
        i = msg.last_index
        if msg.term <= self.term or i >= self.commit_index \
                or (i and self.log[i - 1].term != msg.last_term) or self._hash_at(i) != msg.last_hash:
            self.complaints.pop(msg.key, None)
            return False
        at, since, last = self.complaints.get(msg.key, (i, self.now, self.now))
        if at != i or self.now - last > 2 * self.timeouts.election[1]:
            since = self.now  # it moved on, or went quiet: a new claim
        self.complaints[msg.key] = (i, since, self.now)
        return self.now - since >= LAG_AFTER \
            and self.now >= self.complained.get(msg.key, float("-inf")) + COMPLAINT_EVERY

    def _takes_term(self, msg: Append | AppendOk) -> bool:
        """For ``p2p/replication.py``, before it handles an ``APPEND`` or ``APPEND_OK``: whether
        it goes on. A later term moves this peer's as in Raft, unless it is sticky: then an
        ``APPEND`` of a later term counts only from its own sequencer (re-elected), and a
        member's answer from a later term may make the sequencer stand again (``_outrun``). A
        candidate that stands for a starved member takes no ``APPEND`` of an earlier term."""
        if isinstance(msg, Append):
            self._watch_commits()
            if self.role == CANDIDATE and msg.term < self.standing and self._unstuck():
                self._drop("standing")  # it stands for a starved member: no going back meanwhile
                return False
        if msg.term <= self.term or (isinstance(msg, AppendOk) and msg.key not in self.roster.members):
            return True  # a leaver's answer moves no term (p2p/peer.py): the replication part sees to it
        own = isinstance(msg, Append) and msg.key == self.leader and self.role == FOLLOWER
        if own or (self.role == CANDIDATE and msg.term == self.standing) or not self._sticky():
            self._move_term(msg.term)
            return True
        if isinstance(msg, AppendOk) and self.role == LEADER:
            self._outrun(msg)
        self._drop("sequencer alive")
        return False

    def _outrun(self, msg: AppendOk) -> None:
        """A member answers this sequencer from a later term and has not answered in this one for
        the shortest election timeout: it stood, or voted, while cut off from it, and cannot come
        back (its term is ahead; the majority, sticky, never moves to it). If a majority has
        answered since that member last did, the sequencer asks for votes in a term past that
        one, sequencing on meanwhile (it stays sticky: no one else gets its vote in the window);
        its followers vote for it (their own sequencer), and so does that member; with a
        majority it opens that term (``_on_vote``). At most once per ``STEP_UP_EVERY`` (asked
        again, for the same term, while that member answers)."""
        f = self.followers.get(msg.key)
        if msg.success or f is None or self.now - f.acked < self.timeouts.election[0]:
            return
        if self.term < self.standing and msg.term < self.standing:  # asked already: once more
            if self.now >= self.vote_sent + self._backoff(self.vote_tries - 1):
                self._ask_votes()
            return
        members, fs = self._members(), self.followers
        on = sum(1 for k in members if k == self.key or (k in fs and fs[k].acked > f.acked))
        if self.now < self.step_up_at or 2 * on <= len(members):
            return  # (none: no majority answered since that member last did; they may have moved on)
        self.step_up_at = self.now + STEP_UP_EVERY
        self.standing = msg.term + 1
        self.votes, self.lost, self.refused = {self.key}, set(), set()
        self.vote_tries = 0
        self._ask_votes()

    # --- standing ---------------------------------------------------------------------------------
    def _start_election(self, past: int = 0) -> None:
        """Stand for the term after this one (or after ``past``), keeping this peer's own term,
        and the sequencer it knew in it, until a member answers in that one (``_move_term``): if
        that sequencer's next ``APPEND`` comes first, it follows it again as before (no
        ``sequencer`` event: nothing changed). Standing again for the same term
        within a round trip of the last requests does nothing (a follower of a sequencer that
        spoils its entries would otherwise stand and follow again at the pace of its APPENDs)."""
        standing = max(self.term, past, self.stand_past) + 1
        again = self.vote_sent + self._backoff(0)
        if standing == self.standing and self.now < again:
            self.election_at = max(self.election_at, again)
            return
        self.standing = standing
        self.role = CANDIDATE  # the sequencer it knew is kept until its term moves (``_move_term``)
        self.votes, self.lost, self.refused = {self.key}, set(), set()
        self.election_at = self.now + self._election_timeout()
        if 2 * len(self.votes) > len(self._members()):
            self._set_term(standing, self.key)
            self._become_leader()
            return
        self.vote_tries = 0
        self._ask_votes()

    def _ask_votes(self) -> None:
        last_term, last_index = self._last()
        data = self._msg(VOTE_ASK, [self.table_id, self.key, self.standing, last_index, last_term,
                                    self._hash_at(last_index)])
        for key in self._members():
            if key not in self.votes and key not in self.lost and key not in self.refused:
                self._send(data, self.addrs.get(key))
        self.vote_sent = self.now
        self.vote_tries += 1

    # --- voting -----------------------------------------------------------------------------------
    def _grants(self, msg: VoteAsk) -> bool:
        """Whether this peer would vote for ``msg``'s candidate in ``msg.term`` (stickiness aside)."""
        if self.role == CANDIDATE and msg.term == self.standing:
            voted: bytes | None = self.key  # its own, stored once a member answers in that term
        else:
            voted = self.voted_for if msg.term == self.term else None
        same_place = (msg.last_term, msg.last_index) == self._last()
        return voted in (None, msg.key) \
            and (msg.last_term, msg.last_index) >= self._last() and not self._evidence(msg.key) \
            and self.now >= self.complained.get(msg.key, float("-inf")) + COMPLAINT_EVERY \
            and not (same_place and msg.last_hash != self._hash_at(msg.last_index)
                     and not self._forked_here(msg.last_index))

    def _on_vote_ask(self, msg: VoteAsk, addr: Addr) -> None:
        if msg.term < self.term:
            self._drop("old term")
            self._send(self._msg(VOTE, [self.table_id, self.key, self.term, False, False]), addr)
            return
        if self._sticky() and msg.key != self.leader:
            f = self.followers.get(msg.key) if self.role == LEADER else None
            if f is not None:  # it does not hear this sequencer (back from a cut?): an APPEND at once
                self._replicate(msg.key, f)
            starved = self._complaint(msg)
            if starved and self.role == LEADER:  # its word is not taken here, but noted: no vote for it
                self.complained[msg.key] = self.now
            if self.role == LEADER or not starved:
                self._drop("sequencer alive")  # Raft thesis 4.2.3: no vote, no term moved
                if msg.term == self.term:  # a candidate behind in terms learns this one (and stands past it)
                    self._send(self._msg(VOTE, [self.table_id, self.key, self.term, False, False]), addr)
                return
            self.complained[msg.key] = self.now  # starved: no longer sticky (below: no vote; it stands)
        agree = self._grants(msg)
        if msg.term > self.term and agree and msg.key == self.leader and self.role == FOLLOWER:
            self._set_term(msg.term, None)  # its own sequencer stands again: still followed meanwhile
        elif msg.term > self.term and agree:
            self._move_term(msg.term, stand=False)  # a vote request refused moves no term (pre-vote)
        if agree:
            self._set_term(self.term, msg.key)
            self.election_at = self.now + self._election_timeout()
        fields = [self.table_id, self.key, self.term, agree and not self.amnesiac, agree and self.amnesiac]
        self._send(self._msg(VOTE, fields), addr)
        if self.role == CANDIDATE and msg.term in (self.term, self.standing) \
                and (msg.last_term, msg.last_index, msg.key) < (*self._last(), self.key):
            # a rival candidate stands for the same term, each keeps its vote for itself, and
            # some may have voted for the rival, so the two may split the votes until the next
            # timeout: the one with the better log (on a tie, the greater key) stands at once for
            # the term after, in which the others can vote for it
            self._start_election(past=msg.term)
        elif self.complained.get(msg.key) == self.now and self._may_elect():
            self._start_election()  # a starved member: stand now (the sequencer's APPENDs would put it off)
        elif self.role == FOLLOWER and (msg.last_term, msg.last_index) < self._last() and self._may_elect() \
                and self.now >= self.complained.get(msg.key, float("-inf")) + COMPLAINT_EVERY:
            # someone stands with a log that cannot win here (and this peer hears no working
            # sequencer): the sequencer is likely gone, and this peer is the better candidate;
            # stand soon (at a random moment, as others may), past that member's term (some may
            # have voted for it there)
            soon = 4 * self.timeouts.resend * self.rng.below(1000) / 1000
            self.election_at = min(self.election_at, self.now + soon)
            self.stand_past = max(self.stand_past, msg.term)

    def _on_vote(self, msg: Vote) -> None:
        """Count a vote. A peer that lost its store may have acknowledged entries it no longer
        holds, so its agreement is not a vote; but when every member has answered, with a vote
        or such an agreement, no one alive holds more than this candidate: it wins too."""
        mine = msg.term == self.standing and self.role in (CANDIDATE, LEADER)  # the term it stands for
        if msg.term > self.term and not mine:
            if self._sticky():
                return
            self._move_term(msg.term)
        elif msg.term > self.term and self.role == CANDIDATE:
            self._move_term(msg.term)  # a member answers in that term: its own vote there is kept
        if self.role not in (CANDIDATE, LEADER) or msg.term != self.standing \
                or (self.role == LEADER and self.term >= self.standing):
            return
        if msg.granted:
            self.votes.add(msg.key)
        elif msg.lost_store:
            self.lost.add(msg.key)
        else:
            self.refused.add(msg.key)
        members = set(self._members())
        if 2 * len(self.votes & members) > len(members) or members <= self.votes | self.lost:
            if self.term < self.standing:  # the sequencer standing again (``_outrun``)
                self._set_term(self.standing, self.key)
            self._become_leader()

    def _become_leader(self, noop: bool = True) -> None:
        self.role, self.leader, self.leader_addr = LEADER, self.key, None
        self.leader_since = self.stage_since = self.now
        self.followers = {}
        self.bots = {}
        self.asked_at = self.bots_asked_at = self.due_at = -1
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
