"""Proposals: this peer's own, until committed; the sequencer putting proposals in the log.

Each author has one proposal in flight at a time (the oldest not yet committed), resent
until it shows in the log, then less often until committed. The sequencer appends a
proposal once per ``(author, incarnation, seq)``, in arrival order.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from cardtable.p2p import wire
from cardtable.p2p.membership import MEMBER_KINDS
from cardtable.p2p.peer_state import LEADER, PeerState
from cardtable.p2p.wire import JOIN, Entry, Proposal, Propose

PROPOSABLE = ("act", "commit", "reveal", "return", "leave")
SEQUENCER_KINDS = ("forfeit", "takeover")


@dataclass
class Own:
    """One of this peer's proposals, kept until it shows in the committed log."""

    seq: int
    payload: list[Any]
    proposal: bytes
    sig: bytes
    decoded: Proposal
    sent: float = float("-inf")  # when it first went to a sequencer
    sends: int = 0
    in_log: bool = False  # seen in the log (a round trip measured, or not if it went again)


class Proposals(PeerState):
    """The proposals part of ``Peer`` (see ``p2p/peer_state.py``)."""

    def _propose(self, payload: list[Any]) -> None:
        assert self.table_id is not None
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
        """The sequencer appends its own pending proposals, strictly in their order."""
        done = self.log_seqs.get((self.key, self.incarnation), 0)
        for own in self.queue:
            if own.seq <= done:
                continue
            if own.payload[0] in MEMBER_KINDS and not self._may_change_members(own.payload):
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
        wait = t.retransmit if slow else self._backoff(self.propose_tries, self.leader)
        self.propose_at = self.now + wait
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
            if not head.sends:
                head.sent = self.now
            head.sends += 1
            self._send(self._propose_msg(head), self.leader_addr)

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
        seq_sig = self.identity.sign(wire.entry_signed(self.table_id, self.term, index, proposal,
                                                       self._hash_at(index - 1)))
        self._append_local(Entry(self.term, index, proposal, sig, self.key, seq_sig, p))
        if len(self._members()) <= 1:
            self._leader_commit()
        return True
