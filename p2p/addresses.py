"""Addresses: where each member is, learned only from what a replay cannot give.

A member's first address comes from a fresh signed datagram of its own; a different one
counts only when the key answers a ``PROBE`` sent to it there (``p2p/freshness.py`` says which
datagrams are fresh). The sequencer relays addresses to the members (``p2p/replication.py``),
which take them only for keys they have not heard from directly for a while.
"""

from __future__ import annotations

from cardtable.p2p import freshness, wire
from cardtable.p2p.peer_state import BROADCAST, Addr, PeerState
from cardtable.p2p.wire import Probe


class Addresses(PeerState):
    """The address-book part of ``Peer`` (see ``p2p/peer_state.py``)."""

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
        """Answer a probe from where it came; take an answer to one of ours (the new address)."""
        if not msg.answer and self._on_cookie(msg, addr) and (not self.log or self.watching):
            return  # a newcomer's cookie; one coming back with its log also answers: the probe may be
            # the sequencer's, asking whether this is its new address (its join may be in already)
        if not msg.answer:
            self._send(self._msg(wire.PROBE, [self.table_id, self.key, msg.nonce, True]), addr)
            return
        pending = self.probes.get(msg.key)
        if pending is not None and pending[0] == addr and pending[1] == msg.nonce:
            del self.probes[msg.key]
            self.addr_seen[msg.key] = self.now
            self._set_addr(msg.key, addr)
