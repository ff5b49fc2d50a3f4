"""Spectators: machines that watch a table without a seat (``cardtable watch NAME``).

A spectator is no member: it holds no seat, has no vote, is never counted in an election or a
quorum and proposes nothing; nothing it sends changes the table's log or state. It asks the
sequencer for the log with a ``WATCH``, which passes the lobby's door as a join does (a cookie
round trip to its address, ``p2p/lobby.py``, before its signature is checked), so a forged source
address gets nothing. The sequencer keeps at most ``MAX_SPECTATORS`` of them, at the address the
cookie came back from, and sends each the log as it sends a follower (``APPEND``s and heartbeats,
its own ``Follower`` view, never counted for commits); a spectator answers each with an
``APPEND_OK``, and one not heard for ``SILENCE`` seconds is dropped. The spectator's machine checks
every entry as a follower does and builds the table from them: it sees the public view only
(with hidden hands it is no dealer and receives no key, so it opens no card). When its sequencer
goes quiet it asks again (``WATCH``) at the members' addresses it knows, and follows the sequencer
that answers (a member that is not the sequencer answers with a ``REDIRECT``).
"""

from __future__ import annotations

from dataclasses import dataclass

from cardtable.p2p import wire
from cardtable.p2p.peer_state import LEADER, Addr, PeerState
from cardtable.p2p.replication import Follower
from cardtable.p2p.wire import AppendOk, Watch

MAX_SPECTATORS = 4
SILENCE = 6.0
"""Seconds without an answer after which the sequencer drops a spectator."""


@dataclass
class Spectator:
    """The sequencer's view of one spectator: where it is, what it holds, and its newest stamp
    (``p2p/freshness.py``: a datagram of it not newer is a replay, or reordered: dropped)."""

    addr: Addr
    name: str
    follower: Follower
    stamp: int = 0


class Spectators(PeerState):
    """The spectators' part of ``Peer`` (see ``p2p/peer_state.py``): the sequencer's side and the
    spectator's own."""

    # --- the sequencer's side --------------------------------------------------------------------
    def _on_watch(self, msg: Watch, addr: Addr, packet: wire.Packet) -> None:
        """A ``WATCH``: the door first, then the signature; at most ``MAX_SPECTATORS``."""
        if self.watching or msg.key in self.roster.members or addr in self._member_addrs():
            return  # a member watches by playing; no answer is turned on a member's address
        if self.role != LEADER:
            if self.door.may_answer(msg.key, addr, self.now):
                self._redirect(addr)
            return
        known = self.spectators.get(msg.key)
        if known is None and len(self.spectators) >= MAX_SPECTATORS:
            self._drop("spectators full")
            return
        if not self._cookie_passed(msg.key, msg.cookie, addr):
            return
        if not packet.authentic():
            self._drop("forged")
            return
        if known is None:
            f = Follower(next=1, acked=self.now)
            self.spectators[msg.key] = Spectator(addr, msg.name, f, packet.stamp)
            self._event("spectator", name=msg.name, watching=len(self.spectators))
            self._replicate(msg.key, f)
        elif packet.stamp > known.stamp:
            known.addr, known.follower.acked, known.stamp = addr, self.now, packet.stamp

    def _on_spectator_ok(self, msg: AppendOk, addr: Addr, packet: wire.Packet) -> None:
        """A spectator's answer: from its address, signed, of this term; it only moves its view."""
        watcher = self.spectators.get(msg.key)
        if watcher is None or addr != watcher.addr or self.role != LEADER or msg.term != self.term:
            return
        if not packet.authentic():
            self._drop("forged")
            return
        if packet.stamp <= watcher.stamp:
            self._drop("replayed")
            return
        watcher.stamp = packet.stamp
        f = watcher.follower
        f.acked, f.tries, f.answered = self.now, 0, True
        f.outstanding = max(0, f.outstanding - 1)
        self._took_answer(f, msg)

    def _feed_spectators(self) -> None:
        """Send each spectator what it is missing (as to a follower); drop the silent ones."""
        for key, watcher in list(self.spectators.items()):
            f = watcher.follower
            if self.now >= f.acked + SILENCE or key in self.roster.members:
                del self.spectators[key]
                self.pair_keys.pop((self.table_id or b"", key), None)
                self._event("spectator_gone", name=watcher.name, watching=len(self.spectators))
                continue
            if self.now >= self._due(key, f):
                self._take_as_lost(f)
                self._replicate(key, f)

    def _spectators_due(self) -> list[float]:
        return [min(self._due(k, s.follower), s.follower.acked + SILENCE) for k, s in self.spectators.items()]

    # --- the spectator's side --------------------------------------------------------------------
    def _watch_tick(self) -> None:
        """Ask for the log until a sequencer sends it, and again when it goes quiet."""
        quiet = self.now >= self.leader_heard + self.timeouts.election[1]
        if quiet and self.log and self.leader is not None:
            self.leader, self.leader_addr = None, None  # gone or deposed: whoever sends the log next
        if not quiet or self.now < self.watch_at:
            return
        self.watch_at = self.now + self.timeouts.retransmit
        targets = [a for a in [self.contact, *self.contacts, *self.addrs.values()] if a is not None]
        if targets:  # before the log: where the cookie came from; then each member's address in turn
            self.watch_tries += 1
            self._send(self._watch_msg(), targets[self.watch_tries % len(targets) if self.log else 0])

    def _watch_msg(self) -> bytes:
        return self._msg(wire.WATCH, [self.table_id, self.key, self.name, self.cookie, bytes(wire.WATCH_PAD)])

    def _watch_deadline(self) -> float:
        return max(self.watch_at, self.leader_heard + self.timeouts.election[1])

    def _on_watch_cookie(self, addr: Addr) -> None:
        """The sequencer's cookie (a ``PROBE``) or its address (a ``REDIRECT``): ask there now."""
        self.contact = addr
        if addr not in self.contacts:
            self.contacts = [addr, *self.contacts][:4]
        self._send(self._watch_msg(), addr)
