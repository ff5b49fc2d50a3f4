"""Proposals: this peer's own, until committed; the sequencer putting proposals in the log.

Each author has one proposal in flight at a time (the oldest not yet committed), resent
until it shows in the log, then less often until committed. The sequencer appends a
proposal once per ``(author, incarnation, seq)``, in arrival order, and only within bounds
(a modified member cannot grow every replica at will): of an incarnation a JOIN announced
or the log holds, one the rules allow now (``TableState.refusal``: an author whose own
table refuses its pending proposal stops proposing it, with a ``refused`` event), at most
``MAX_PENDING`` of one author uncommitted, at most ``RATE`` a second on average per author.

Censorship: an author whose proposal is not committed ``CENSOR_AFTER`` seconds after it
first went to a sequencer that is alive stops following it (``censored``): it stands for
election, will not vote for it again, and sends the proposal to the other members; a
member that then sees that proposal (allowed by its rules) still missing from the log of
the same live sequencer after ``CENSOR_AFTER`` does the same.
"""

from __future__ import annotations

from typing import Any

from cardtable.p2p import chat, hosting, wire
from cardtable.p2p.membership import MEMBER_KINDS
from cardtable.p2p.peer_state import FOLLOWER, LEADER, Own, PeerState, Witnessed
from cardtable.p2p.wire import HIDDEN_KINDS, JOIN, Entry, Proposal, Propose

PROPOSABLE = ("act", "commit", "reveal", "return", "leave") + HIDDEN_KINDS + chat.KINDS + hosting.KINDS
SEQUENCER_KINDS = ("forfeit", "takeover")
MAX_PENDING = 2  # a member's proposals in the sequencer's log not yet committed
RATE = 20.0  # a member's proposals appended per second, on average ...
BURST = 40.0  # ... and at once
CENSOR_AFTER = 3.0  # seconds a proposal may wait for a live sequencer to append it


def shows_cards(payload: list[Any]) -> bool:
    """A hidden-hands move that carries its cards' proofs (``["keys", seat, action, opens]``)."""
    return bool(payload) and payload[0] == "keys" and len(payload) == 4


FORWARD_EVERY = 0.5


class Proposals(PeerState):
    """The proposals part of ``Peer`` (see ``p2p/peer_state.py``)."""

    def _propose(self, payload: list[Any]) -> None:
        assert self.table_id is not None
        if self.watching:
            return  # a spectator proposes nothing (p2p/spectators.py)
        decoded = Proposal(self.table_id, self.key, self.incarnation, self.next_seq, payload)
        proposal = decoded.pack()
        sig = self.identity.sign(wire.proposal_signed(proposal))
        own = Own(self.next_seq, payload, proposal, sig, decoded)
        self.next_seq += 1
        self.queue.append(own)
        if self.role == LEADER:
            self._sequence_queue()
        elif len(self.queue) == 1:
            self.propose_at, self.propose_tries = self.now, 0

    def _queued(self, kind: str) -> bool:
        return any(o.payload[0] == kind for o in self.queue)

    def _sequence_queue(self) -> None:
        """The sequencer appends its own pending proposals, strictly in their order (a move that
        shows cards once the log is all applied, and only if the rules allow it then)."""
        done = self.log_seqs.get((self.key, self.incarnation), 0)
        for own in list(self.queue):
            if own.seq <= done:
                continue
            if own.payload[0] in MEMBER_KINDS and not self._may_change_members(own.payload):
                return
            if shows_cards(own.payload):
                if len(self.log) != self.commit_index:
                    return
                reason = self.table.refusal(self.key, own.payload)
                if reason:  # never in the log: its cards stay hidden
                    self.queue.remove(own)
                    self._event("refused", index=None, kind=own.payload[0], reason=reason)
                    continue
            self._sequence(own.proposal, own.sig, own.decoded)

    def _send_head(self) -> None:
        """(Re)send the oldest pending proposal: in a JOIN if it is the join, else to the sequencer."""
        if not self.queue or self.role == LEADER:
            return
        head = self.queue[0]
        t = self.timeouts
        in_log = self.log_seqs.get((self.key, self.incarnation), 0) >= head.seq  # the sequencer has it
        slow = in_log or head.payload[0] == "join" or self.now - self.leader_heard > t.election[1]
        wait = t.retransmit if slow else self._backoff(self.propose_tries, self.leader)
        self.propose_at = self.now + wait
        self.propose_tries += 1
        if head.payload[0] in PROPOSABLE and not in_log and self._refused_here(head):
            return
        if head.payload[0] == "join":
            if self.now - self.leader_heard < self.timeouts.election[1] and self.key not in self.roster.away:
                return  # the sequencer has it; the join shows up in its log (one that left still
                # hears it for a moment: that says nothing of its join)
            fields = [self.table_id, self.key, self.incarnation, self.name, head.proposal, head.sig,
                      self.cookie]
            contact = self.contact
            if self.sponsor is not None and self.contacts and self.leader_addr is None:
                contact = self.contacts[self.propose_tries % len(self.contacts)]  # the one that answers
            self._send(self._msg(JOIN, fields), self.leader_addr or contact)
        elif self.leader_addr is not None and self.leader is not None:
            if not head.sends:
                head.sent = self.now
            head.sends += 1
            if self.waiting is None or self.waiting[:2] != (self.leader, head.seq):
                self.waiting = (self.leader, head.seq, self.now)
            if (self.key, self.incarnation) not in self.log_seqs:  # this incarnation is new: say so too
                self._send(self._hello_msg(), self.leader_addr)
            self._send(self._propose_msg(head), self.leader_addr)

    def _refused_here(self, head: Own) -> bool:
        """Whether this peer's own table, caught up with the sequencer, refuses its pending
        proposal (the sequencer would not append it): then it is dropped, with ``refused``."""
        if not self._caught_up() or len(self.log) != self.commit_index:
            return False
        reason = self.table.refusal(self.key, head.payload)
        if not reason:
            return False
        self.queue.pop(0)
        self.propose_at, self.propose_tries, self.waiting = self.now, 0, None
        self._event("refused", index=None, kind=head.payload[0], reason=reason)
        return True

    def _noticed_in_log(self) -> None:
        """The oldest pending proposal came back in the sequencer's log: a round trip measured
        if it went once (Karn's rule); from now on it goes again only at the slow pace."""
        head = self.queue[0] if self.queue else None
        if head is None or head.in_log or not head.sends or self.leader is None \
                or self.log_seqs.get((self.key, self.incarnation), 0) < head.seq:
            return
        head.in_log = True
        if head.sends == 1:
            self.round_trips.sample(self.leader, self.now - head.sent)
        else:
            self.round_trips.ambiguous()
        self.propose_at = max(self.propose_at, self.now + self.timeouts.retransmit)

    def _on_propose(self, msg: Propose) -> None:
        p = msg.decoded
        if p.table_id != self.table_id:
            self._drop("other table")
            return
        if p.kind not in PROPOSABLE:
            self._drop("not proposable")
            return
        if self.role != LEADER:
            self._witness_pending(msg)
            self._drop("not the sequencer")
            return
        if p.seq <= self.log_seqs.get((p.author, p.incarnation), 0):
            self._drop("duplicate")
            return
        reason = self._out_of_bounds(p)
        if reason:
            self._drop(reason)
            return
        if p.kind in MEMBER_KINDS and not self._may_change_members():
            return
        if self._sequence(msg.proposal, msg.sig, p):
            self.heard[msg.key] = self.now  # a new proposal: its author is alive (a replay is not new)

    def _known_incarnation(self, p: Proposal) -> bool:
        known = self.incarnations.get(p.author, ())
        return p.incarnation in known or (p.author, p.incarnation) in self.log_seqs

    def _out_of_bounds(self, p: Proposal) -> str:
        """Why the sequencer will not append a member's proposal now ("" if it will). A move that
        shows cards waits until the log is all applied: the rules judge it where it would go."""
        if not self._known_incarnation(p):
            return "unknown incarnation"
        if shows_cards(p.payload) and len(self.log) != self.commit_index:
            return "a move that shows cards waits for the log to be applied"
        if self.table.refusal(p.author, p.payload):
            return "refused by the rules"
        if sum(1 for e in self.log[self.commit_index:] if e.decoded.author == p.author) >= MAX_PENDING:
            return "too many pending"
        tokens, at = self.buckets.get(p.author, (BURST, self.now))
        tokens = min(BURST, tokens + (self.now - at) * RATE)
        if tokens < 1:
            self.buckets[p.author] = (tokens, self.now)
            return "too fast"
        self.buckets[p.author] = (tokens - 1, self.now)
        return ""

    # --- censorship ------------------------------------------------------------------------------
    def _witness_pending(self, msg: Propose) -> None:
        """A member sent its proposal to this follower too: it finds its sequencer censors it.
        Kept (one per author) if this peer's rules allow it now and it is not in the log, and
        passed on to the sequencer, so that a member that sends it only to followers cannot get
        an honest sequencer taken for a censor."""
        p = msg.decoded
        in_log = self.log_seqs.get((p.author, p.incarnation), 0) >= p.seq
        if self.leader is None or not self._caught_up() or in_log:
            return
        if self.table.refusal(p.author, p.payload) or not self._known_incarnation(p):
            return
        old = self.witnessed.get(p.author)
        same = old is not None and (old.p.incarnation, old.p.seq, old.sequencer) == (p.incarnation, p.seq,
                                                                                     self.leader)
        if not same:
            data = wire.encode_propose(p.table_id, msg.proposal, msg.sig, self.pass_key)
            self.witnessed[p.author] = Witnessed(p, data, self.now, self.leader, self.now)
            self._forward_witnessed()

    def _forward_witnessed(self) -> None:
        for w in self.witnessed.values():
            if self.now >= w.forward_at and w.sequencer == self.leader:
                w.forward_at = self.now + FORWARD_EVERY
                self._send(w.datagram, self.leader_addr)

    def _censorship_due(self) -> list[float]:
        """When ``_check_censorship`` may act next (while a sequencer is followed)."""
        if self.role != FOLLOWER or self.leader is None:
            return []
        due = [min(w.since + CENSOR_AFTER, w.forward_at) for w in self.witnessed.values()]
        due += [self.waiting[2] + CENSOR_AFTER] if self.waiting is not None and self.queue else []
        return [t for t in due if t > self.now]

    def _check_censorship(self) -> None:
        """A live sequencer that leaves this peer's (or a witnessed) proposal out too long."""
        alive = self.role == FOLLOWER and self.leader is not None \
            and self.now - self.leader_heard < self.timeouts.election[1]
        head, w = (self.queue[0] if self.queue else None), self.waiting
        if w is not None and head is not None and alive and (head.seq, self.leader) == (w[1], w[0]) \
                and self.now >= w[2] + CENSOR_AFTER:  # still uncommitted (the queue keeps it until then)
            self._censored(w[0], self.key)
            return
        for author, seen in list(self.witnessed.items()):
            p = seen.p
            gone = self.log_seqs.get((author, p.incarnation), 0) >= p.seq or seen.sequencer != self.leader
            if gone or (self._caught_up() and self.table.refusal(author, p.payload)):
                del self.witnessed[author]
            elif alive and self.now >= seen.since + CENSOR_AFTER:
                del self.witnessed[author]
                self._censored(seen.sequencer, author)
                return
        self._forward_witnessed()

    def _censored(self, sequencer: bytes, victim: bytes) -> None:
        self.censors[sequencer] = self.now
        self._event("censored", key=sequencer.hex(), seat=self.table.seat_of(sequencer),
                    victim=self.table.seat_of(victim), term=self.term)
        self.waiting = None
        if victim == self.key and self.queue:  # the others see it too (``_witness_pending``)
            data = self._propose_msg(self.queue[0])
            for key in self._members():
                if key not in (self.key, sequencer):
                    self._send(data, self.addrs.get(key))
        if self.key in self.roster.members and not self.amnesiac:
            self._start_election()

    def _sequence(self, proposal: bytes, sig: bytes, p: Proposal) -> bool:
        """Append a proposal to the log (sequencer only), once per (author, incarnation, seq)."""
        if p.seq <= self.log_seqs.get((p.author, p.incarnation), 0):
            return False
        index = len(self.log) + 1
        assert self.table_id is not None
        seq_sig = self.identity.sign(wire.entry_signed(self.table_id, self.term, index, proposal,
                                                       self._hash_at(index - 1)))
        self._append_local(Entry(self.term, index, proposal, sig, self.key, seq_sig, p))
        if len(self._members()) <= 1:
            self._leader_commit()
        return True
