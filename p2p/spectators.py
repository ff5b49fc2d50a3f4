"""Spectators: machines that watch a table without a seat (``cardtable watch NAME``).

A spectator is no member: it holds no seat, has no vote, is never counted in an election or a
quorum and proposes nothing; nothing it sends changes the table's log or state. It asks the
sequencer for the log with a ``WATCH``, which passes the lobby's door as a join does (a cookie
round trip to its address, ``p2p/lobby.py``, before its signature is checked), so a forged source
address gets nothing but the cookie. The sequencer keeps at most ``MAX_SPECTATORS`` of them, at
the address the cookie came back from, and sends each the log as it sends a follower
(``APPEND``s and heartbeats, its own ``Follower`` view, never counted for commits); a spectator
answers each with an ``APPEND_OK``, and one not heard for ``SILENCE`` seconds is dropped. The
spectator's machine checks every entry as a follower does and builds the table from them: it sees
the public view only (with hidden hands it is no dealer and receives no key, so it opens no card).
When its sequencer goes quiet it asks again (``WATCH``) at the members' addresses it knows, and
follows the sequencer that answers (a member that is not the sequencer answers with a
``REDIRECT``).

The places are first come. A sequencer with no place for a ``WATCH`` says so: ``FULL`` when all
``MAX_SPECTATORS`` places are taken, ``SENT_AWAY`` when the host freed that spectator's place
(``free_spectator``): its key, and its machine's address unless a loopback one, get no place
again from this sequencer for ``SENT_AWAY_FOR`` seconds. The refusal is a ``PROBE`` like the
cookie (signed by the sequencer, heard by the spectator only from the sequencer it asked, at the
address it asked), whose nonce is no cookie but ``refusal_tag``: bound to the table, the
spectator's key and the reason, so it says nothing to another spectator and cannot be replayed to
a later one (each ``cardtable watch`` has a new key). It goes before any cookie round trip, so
it is rationed: one datagram at most per ``WATCH`` (smaller than the ``WATCH``: ``wire.WATCH_PAD``),
and at most one per address (host and port) per ``lobby.TICK``, whatever keys a flood of forged
``WATCH``es from it names. The spectator that is refused stops (``watch_refused`` says why).
"""

from __future__ import annotations

import functools
import hashlib
import ipaddress
from dataclasses import dataclass, field

from cardtable.p2p import lobby, wire
from cardtable.p2p.peer_state import LEADER, Addr, Follower, Output, PeerState, Spectator
from cardtable.p2p.wire import AppendOk, Watch

MAX_SPECTATORS = 4
SILENCE = 6.0
"""Seconds without an answer after which the sequencer drops a spectator."""
FULL, SENT_AWAY = "full", "sent away"
"""Why a sequencer gives a ``WATCH`` no place (``refusal_tag``)."""
SENT_AWAY_FOR = 600.0
"""Seconds for which a spectator the host sent away (its key, its machine) gets no place again."""
MAX_SENT_AWAY = 32
"""Keys and addresses sent away that a sequencer remembers (the oldest are forgotten first)."""
REFUSAL_DOMAIN = b"cardtable/no-place/"


def refusal_tag(table_id: bytes, key: bytes, reason: str) -> bytes:
    """The nonce of a sequencer's ``PROBE`` that tells the spectator ``key`` there is no place for
    it at ``table_id``, and why (``FULL``, ``SENT_AWAY``). Anyone can compute it: the sequencer's
    signature on the ``PROBE`` is what makes it the sequencer's word."""
    data = REFUSAL_DOMAIN + reason.encode() + b"/" + table_id + key
    return hashlib.blake2b(data, digest_size=wire.NONCE_BYTES).digest()


@dataclass
class Gate:
    """What a sequencer keeps to refuse spectators: its ration of refusals (``lobby.Door``'s
    fixed table, one source per address, whatever the key) and the keys and machines the host
    sent away (each until when)."""

    ration: lobby.Door
    sent_away: dict[bytes | str, float] = field(default_factory=dict)

    def barred(self, key: bytes, addr: Addr, now: float) -> bool:
        return any(now < self.sent_away.get(k, now) for k in (key, addr[0]))

    def bar(self, key: bytes, addr: Addr, now: float) -> None:
        """Send ``key`` away, and the machine at ``addr`` unless it is this machine's loopback
        (several processes on one machine, as when trying it out, each have a key of their own)."""
        barred: list[bytes | str] = [key] if _loopback(addr[0]) else [key, addr[0]]
        for k in barred:
            self.sent_away.pop(k, None)  # to the end: the newest
            self.sent_away[k] = now + SENT_AWAY_FOR
        for k, until in list(self.sent_away.items()):
            if until <= now or len(self.sent_away) > MAX_SENT_AWAY:
                del self.sent_away[k]


def _loopback(host: str) -> bool:
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


class Spectators(PeerState):
    """The spectators' part of ``Peer`` (see ``p2p/peer_state.py``): the sequencer's side and the
    spectator's own."""

    # --- the sequencer's side --------------------------------------------------------------------
    @functools.cached_property
    def _gate(self) -> Gate:
        """Made at the first ``WATCH`` this machine hears as sequencer (or when its host frees a
        place): a table nobody asks to watch never holds it. Not in ``Peer.__init__``: no part
        but this one uses it."""
        return Gate(lobby.Door(self.door.secret))

    def _on_watch(self, msg: Watch, addr: Addr, packet: wire.Packet) -> None:
        """A ``WATCH``: no place (full, or sent away): a refusal; else the door first, then the
        signature; at most ``MAX_SPECTATORS``."""
        if self.watching or msg.key in self.roster.members or addr in self._member_addrs():
            return  # a member watches by playing; no answer is turned on a member's address
        if self.role != LEADER:
            if self.door.may_answer(msg.key, addr, self.now):
                self._redirect(addr)
            return
        known = self.spectators.get(msg.key)
        if known is None:
            if self._gate.barred(msg.key, addr, self.now):
                self._refuse(msg.key, addr, SENT_AWAY)
                return
            if len(self.spectators) >= MAX_SPECTATORS:
                self._refuse(msg.key, addr, FULL)
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

    def _refuse(self, key: bytes, addr: Addr, reason: str) -> None:
        """Tell ``key`` at ``addr`` there is no place for it: one small signed datagram, at most
        one per address per tick (nothing of the ``WATCH`` is verified or kept)."""
        self._drop("spectators full" if reason == FULL else "spectator sent away")
        if self._gate.ration.may_answer(b"refusal", addr, self.now):
            tag = refusal_tag(self.table_id or b"", key, reason)
            self._send(self._msg(wire.PROBE, [self.table_id, self.key, tag, False]), addr)

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
                self._forget_spectator(key)
                continue
            if self.now >= self._due(key, f):
                self._take_as_lost(f)
                self._replicate(key, f)

    def _forget_spectator(self, key: bytes, **data: object) -> Spectator:
        watcher = self.spectators.pop(key)
        self.pair_keys.pop((self.table_id or b"", key), None)
        self._event("spectator_gone", name=watcher.name, watching=len(self.spectators), **data)
        return watcher

    def _spectators_due(self) -> list[float]:
        return [min(self._due(k, s.follower), s.follower.acked + SILENCE) for k, s in self.spectators.items()]

    # --- the host's control ----------------------------------------------------------------------
    def watchers(self) -> list[tuple[str, Addr]]:
        """The spectators this machine keeps (it is the sequencer), by place: the first come first
        (place 1); their names are theirs to choose: several may give the same."""
        return [(s.name, s.addr) for s in self.spectators.values()] if self.role == LEADER else []

    def free_spectator(self, which: int | str, now: float) -> Output:
        """The host frees a spectator place: ``which`` is its place (1 is the first come, as
        ``watchers`` lists them) or the name it gave. That spectator is no longer sent the log; its
        key, and its machine's address (unless a loopback one), get no place again from this
        sequencer for ``SENT_AWAY_FOR`` s (they are told so). Only the host may, and only on the
        sequencer's machine (which keeps the spectators: the host's, unless another was elected);
        else the event ``refused`` (kind ``unwatch``) says why."""
        self._begin(now)
        key, reason = self._spectator_to_free(which)
        if key is None:
            self._event("refused", index=None, kind="unwatch", reason=reason)
        else:
            watcher = self._forget_spectator(key, freed=True)
            self._gate.bar(key, watcher.addr, self.now)
        return self._finish()

    def _spectator_to_free(self, which: int | str) -> tuple[bytes | None, str]:
        if self.table.roster.host != self.key or self.left or self.watching:
            return None, "only the host does that"
        if self.role != LEADER:
            return None, "the sequencer keeps the spectators, and this machine is not the sequencer now"
        keys, n = list(self.spectators), len(self.spectators)
        if isinstance(which, str) and which.strip().isdigit():
            which = int(which.strip())
        if isinstance(which, int):
            if not 1 <= which <= n:
                return None, f"no spectator place {which}: {n} taken" if n else "nobody watches"
            return keys[which - 1], ""
        named = [k for k, s in self.spectators.items() if s.name == which.strip()]
        if len(named) != 1:
            return None, f"{len(named)} spectators are named {which.strip()!r}: give the place number" \
                if named else f"no spectator is named {which.strip()!r}"
        return named[0], ""

    # --- the spectator's side --------------------------------------------------------------------
    @property
    def watch_refused(self) -> str | None:
        """Why the sequencer this spectator asked gave it no place (``FULL``, ``SENT_AWAY``; it
        stopped then), or None."""
        if not self.watching or self.cookie is None or self.table_id is None:
            return None
        return next((r for r in (FULL, SENT_AWAY) if self.cookie == refusal_tag(self.table_id, self.key, r)),
                    None)

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
        """The sequencer's cookie (a ``PROBE``) or its address (a ``REDIRECT``): ask there now. A
        ``PROBE`` that refuses it (``refusal_tag``) while it asks (no sequencer sends it the log):
        it stops; while one does, it is no answer to anything: ignored."""
        if self.watch_refused is not None:
            if self.leader is None:
                self.left = True  # it stops; no ``left`` event: it left no table (the refusal says why)
            else:
                self.cookie = None
            return
        self.contact = addr
        if addr not in self.contacts:
            self.contacts = [addr, *self.contacts][:4]
        self._send(self._watch_msg(), addr)
