"""The hash chain between members: heads compared, equivocation proved, forks undone.

Every entry's sequencer signature covers the chain hash of the whole log before it
(``wire.chain_hash``), so two members whose chain hashes agree at an index hold the same
history up to it. After each ``APPEND`` it takes, a follower tells the next follower (the
members but the sequencer, in log order, as a ring) its head: index, entry term and chain
hash (``HEAD``). A member that holds an entry of the same term at that index with another
chain hash answers with a *witness* of its own entry there (the sequencer's signature and
what it covers); the member that gets a witness of another history at one of its own
entries' term and index holds a *proof*: two chain hashes signed by one sequencer at one
term and index. It keeps the proof (in its store too), raises ``equivocation`` and sends the
proof to every member, who check it alone. A member that holds a proof against a key never
follows it as sequencer again nor votes for it: the table elects another sequencer, whose
log replaces the forked suffix on the members that held the other history (``rewound``:
entries applied there are undone and the table replays from the last common entry).
"""

from __future__ import annotations

from typing import Any

from cardtable.p2p import wire
from cardtable.p2p.peer_state import PeerState
from cardtable.p2p.table import TableState
from cardtable.p2p.wire import HEAD, Entry, Head, Witness

HEADS_KEPT = 1  # the newest head of each member not yet compared (its log may be ahead)
PROOF_SENDS = 4  # a new proof goes to every member this many times, every PROOF_EVERY
PROOF_EVERY = 0.5


class Chain(PeerState):
    """The chain part of ``Peer`` (see ``p2p/peer_state.py``)."""

    # --- heads ------------------------------------------------------------------------------------
    def _ring_next(self) -> bytes | None:
        """The follower this one tells its head to: the next member after it in log order,
        the sequencer left out (it hears every follower's head in its APPEND_OK)."""
        ring = [k for k in self._members() if k != self.leader]
        if self.key not in ring or len(ring) < 2:
            return None
        return ring[(ring.index(self.key) + 1) % len(ring)]

    def _tell_head(self, match: int) -> None:
        """After an APPEND taken: compare what others told, and tell the next follower."""
        self._compare_heads()
        if not match or self.watching or self.head_told == (match, self._hash_at(match)):
            return
        nxt = self._ring_next()
        if nxt is None:
            return
        self.head_told = (match, self._hash_at(match))
        self._send_head_to(nxt, match, [])

    def _send_head_to(self, key: bytes, index: int, witnesses: list[Witness]) -> None:
        entry_term = self.log[index - 1].term if 0 < index <= len(self.log) else 0
        fields = [self.table_id, self.key, self.term, index, entry_term, self._hash_at(index),
                  [w.to_list() for w in witnesses]]
        self._send(self._msg(HEAD, fields), self.addrs.get(key))

    def _witness(self, index: int) -> Witness:
        return self.log[index - 1].witness(self.table_id or b"", self._hash_at(index - 1))

    def _on_head(self, msg: Head) -> None:
        tid = self.table_id or b""
        if len(msg.witnesses) == 2:
            a, b = msg.witnesses
            if wire.equivocation(tid, a, b):
                self._convict(a, b)
            return
        for w in msg.witnesses:  # a member shows its entry where our heads disagree
            if 0 < w.index <= len(self.log) and self.log[w.index - 1].term == w.term:
                mine = self._witness(w.index)
                if wire.equivocation(tid, mine, w):
                    self._convict(mine, w)
            return
        self.heads_heard[msg.key] = (msg.index, msg.entry_term, msg.hash)
        self._compare_heads()

    def _compare_heads(self) -> None:
        """Compare the heads members told with this log where it reaches them: one term at
        one index with another chain hash means one of the two histories is not the
        sequencer's only one; the member is shown this peer's entry there (a witness)."""
        for key, (index, term, head) in list(self.heads_heard.items()):
            if index > len(self.log):
                continue
            del self.heads_heard[key]
            if index and self.log[index - 1].term == term and self._hash_at(index) != head \
                    and key in self.roster.members:
                self._send_head_to(key, index, [self._witness(index)])

    # --- proofs -----------------------------------------------------------------------------------
    def _two_histories(self, entry: Entry, prev: bytes) -> None:
        """A sequencer's APPEND carries an entry of one of this log's terms at one of its
        indexes, chained on the same history, yet another entry: a proof if both are signed."""
        mine = self._witness(entry.index)
        theirs = entry.witness(self.table_id or b"", prev)
        if wire.equivocation(self.table_id or b"", mine, theirs):
            self._convict(mine, theirs)

    def _convict(self, a: Witness, b: Witness) -> None:
        liar = a.sequencer
        if liar in self.liars or liar not in self.roster.members:  # only members sequence: a
            return  # proof against any other key would only grow the list
        self.liars[liar] = (a, b)
        self.store.set_meta("liars", [[a.to_list(), b.to_list()] for a, b in self.liars.values()])
        self._event("equivocation", key=liar.hex(), seat=self.table.seat_of(liar), term=a.term, index=a.index)
        self.proof_sends, self.proof_at = PROOF_SENDS, self.now
        self._send_proofs()
        if self.leader == liar:  # stop following it; stand soon (others may, at random moments)
            self._step_down()
            self.leader, self.leader_addr = None, None
            soon = 4 * self.timeouts.resend * self.rng.below(1000) / 1000
            self.election_at = min(self.election_at, self.now + soon)

    def _send_proofs(self) -> None:
        """Every proof this peer holds, to every member but the liar (a few times: no answer)."""
        if self.proof_sends <= 0 or self.now < self.proof_at:
            return
        self.proof_sends -= 1
        self.proof_at = self.now + PROOF_EVERY
        tid = self.table_id or b""
        for liar, (a, b) in self.liars.items():
            data = self._msg(HEAD, [tid, self.key, self.term, a.index, a.term, a.hash(tid),
                                    [a.to_list(), b.to_list()]])
            for key in self._members():
                if key not in (self.key, liar):
                    self._send(data, self.addrs.get(key))

    def _proof_deadlines(self) -> list[float]:
        return [self.proof_at] if self.proof_sends > 0 else []

    def _load_liars(self, stored: Any) -> None:
        """The proofs kept in the store (each checked again)."""
        tid = self.table_id or b""
        for pair in stored if isinstance(stored, list) else []:
            try:
                a, b = (wire.witness_from_list(w) for w in pair)
            except (wire.WireError, TypeError, ValueError):
                continue
            if wire.equivocation(tid, a, b):
                self.liars[a.sequencer] = (a, b)

    # --- forks undone -----------------------------------------------------------------------------
    def _forked_here(self, index: int) -> bool:
        """Whether this log's entry at ``index`` was sequenced by a key proved to equivocate
        (then even a committed entry there may be another history's: the sequencer's log wins)."""
        return self.log[index - 1].sequencer in self.liars

    def _rewind(self, index: int) -> None:
        """Cut the log before ``index``; entries applied from there are undone: the table is
        replayed from the start up to what stays."""
        undone = self.commit_index >= index
        self._truncate(index - 1)
        if not undone:
            return
        keep = index - 1
        self.table = TableState()
        for entry in self.log[:keep]:
            self.table.apply(entry)
        self.commit_index = keep
        self.asked_at = self.bots_asked_at = self.due_at = -1
        self.store.set_meta("commit", keep)
        self._event("rewound", index=index)
