"""Elections: terms, votes, becoming sequencer and stepping down (Raft).

A member whose election timer runs out stands: it asks every member for its vote in a new
term and wins with a majority (or when every member answered with a vote or "lost store").
A new sequencer opens its term with a ``noop``. Terms move only as Raft allows and only for
members (``p2p/admission.py`` checks who speaks before a term is looked at).
"""

from __future__ import annotations

from cardtable.p2p import wire
from cardtable.p2p.peer_state import CANDIDATE, FOLLOWER, LEADER, Addr, PeerState
from cardtable.p2p.proposals import SEQUENCER_KINDS
from cardtable.p2p.wire import VOTE, VOTE_ASK, Proposal, Vote, VoteAsk


class Elections(PeerState):
    """The elections part of ``Peer`` (see ``p2p/peer_state.py``)."""

    def _set_term(self, term: int, vote: bytes | None) -> None:
        self.term, self.voted_for = term, vote
        self.store.set_term(term, vote)

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

    def _election_timeout(self) -> float:
        lo, hi = self.timeouts.election
        return lo + (hi - lo) * self.rng.below(1_000_000) / 1_000_000

    def _may_elect(self) -> bool:
        return not self.amnesiac and self.key in self.roster.members and self.role != LEADER

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
        data = self._msg(VOTE_ASK, [self.table_id, self.key, self.term, last_index, last_term,
                                    self._hash_at(last_index)])
        for key in self._members():
            if key not in self.votes and key not in self.lost and key not in self.refused:
                self._send(data, self.addrs.get(key))
        self.vote_sent = self.now
        self.vote_tries += 1

    def _on_vote_ask(self, msg: VoteAsk, addr: Addr) -> None:
        if msg.term < self.term:
            self._drop("old term")
        same_place = (msg.last_term, msg.last_index) == self._last()
        agree = (msg.term == self.term and self.voted_for in (None, msg.key)
                 and (msg.last_term, msg.last_index) >= self._last()
                 and msg.key not in self.liars and msg.key not in self.censors
                 and msg.key not in self.garblers
                 and not (same_place and msg.last_hash != self._hash_at(msg.last_index)
                          and not self._forked_here(msg.last_index)))
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
