"""Modified members on the simulated LAN: each holds a real key of the table and runs its own code.

Each adversary is named for its attack (docs/security.md, "What a modified-client member can
do"):

- ``ExMember``: a member that left keeps its key and its authentic ``join`` entry and sends
  every peer ``APPEND``s carrying it, with a term far ahead (it froze tables before wire 4);
- ``Equivocator``: the sequencer shows one follower a second history from one index on: its
  own entry there, and every later entry signed again over that other chain;
- ``Censor``: the sequencer never appends one member's proposals (or never commits them), and
  keeps heartbeating it;
- ``Flooder``: a seated member sends the sequencer proposals the rules refuse, legal ones
  under fresh incarnations, and ``JOIN``s announcing a fresh incarnation each time.
"""

from __future__ import annotations

import random
from typing import Any

from cardtable.p2p import wire
from cardtable.p2p.admission import MAX_TERM_STEP
from cardtable.p2p.identity import Identity
from cardtable.p2p.peer import Peer
from cardtable.p2p.simnet import Node, SimNet


class ExMember:
    """A member that left: its APPENDs with its own join entry, to every running peer."""

    def __init__(self, net: SimNet, node: Node, nodes: list[Node]) -> None:
        self.net, self.node, self.nodes = net, node, nodes
        self.identity = node.identity
        host = next(n.peer for n in nodes if n.peer is not None)
        assert host is not None
        key = node.identity.key
        self.join = next(e for e in host.log if e.decoded.author == key and e.decoded.kind == "join")
        self.stamp = 2**50

    def attack(self) -> int:
        """One APPEND to each running peer (its join at its own place, the term moved as far as
        a member may move it at once, or by one); returns how many went."""
        sent = 0
        for n in self.nodes:
            p = n.peer
            if p is None or n is self.node or p.table_id is None:
                continue
            self.stamp += 1
            j = self.join
            term = p.term + (MAX_TERM_STEP if self.stamp % 2 else 1)
            head = [p.table_id, self.identity.key, term, j.index - 1, p.log[j.index - 2].term, p.commit_index]
            data = wire.encode_append(head, [j.pack()], [], self.identity.sign, p.pass_key, self.stamp)
            self.net.inject(n.addr, data, self.node.addr)
            sent += 1
        return sent


class SecondHistory:
    """The liar's log as it shows it to one follower: from index ``fork`` on, its own noop at
    ``fork`` and every later entry signed again over that other chain. ``rewrite`` turns a
    datagram the liar sends that follower (an ``APPEND``, a heartbeat) into its second-history
    form; others pass unchanged. The liar's own log and chain come from ``peer``."""

    def __init__(self, peer: Peer, identity: Identity, victim: bytes, fork: int) -> None:
        assert peer.table_id is not None
        self.peer, self.identity, self.victim, self.fork = peer, identity, victim, fork
        self.tid = peer.table_id
        self.alt: dict[int, tuple[wire.Entry, bytes]] = {}
        self.rewritten = 0

    def _alt_hash(self, index: int) -> bytes:
        return self.peer._hash_at(index) if index < self.fork else self._other(index)[1]

    def _other(self, index: int) -> tuple[wire.Entry, bytes]:
        """The entry at ``index`` of the second history, and its chain hash."""
        if index in self.alt:
            return self.alt[index]
        real = self.peer.log[index - 1]
        prev = self._alt_hash(index - 1)
        me = self.identity
        if index == self.fork:
            p = wire.Proposal(self.tid, me.key, 0, 10**9, ["noop"])
            proposal, decoded = p.pack(), p
            author_sig = me.sign(wire.proposal_signed(proposal))
        else:
            proposal, author_sig, decoded = real.proposal, real.author_sig, real.decoded
        sig = me.sign(wire.entry_signed(self.tid, real.term, index, proposal, prev))
        entry = wire.Entry(real.term, index, proposal, author_sig, me.key, sig, decoded)
        self.alt[index] = (entry, entry.chain(self.tid, prev))
        return self.alt[index]

    def rewrite(self, data: bytes) -> bytes:
        key = self.peer.pass_key
        packet = wire.decode(data, key)
        msg, me = packet.msg, self.identity
        if isinstance(msg, wire.Append) and any(e.index >= self.fork for e in msg.entries):
            for e in msg.entries:  # in order: each one's chain needs the one before
                if e.index >= self.fork:
                    self._other(e.index)
            entries = [(self._other(e.index)[0] if e.index >= self.fork else e).pack() for e in msg.entries]
            head = [msg.table_id, msg.key, msg.term, msg.prev_index, msg.prev_term, msg.commit]
            self.rewritten += 1
            addrs = [list(a) for a in msg.addrs]
            return wire.encode_append(head, entries, addrs, me.sign, key, packet.stamp)
        if isinstance(msg, wire.Heartbeat) and msg.prev_hash and msg.prev_index >= self.fork:
            pair_key = me.pair_key(self.victim, self.tid)
            assert pair_key is not None
            self.rewritten += 1
            return wire.encode_heartbeat(pair_key, self.tid, msg.term, msg.prev_index, msg.prev_term,
                                         msg.commit, key, packet.stamp, self._alt_hash(msg.prev_index))
        return data


def pretend_every_answer_matches(peer: Peer) -> None:
    """A modified sequencer does not mind that a follower answers with another chain hash."""
    peer._same_chain = lambda key, index, head: True  # type: ignore[method-assign]


class Equivocator:
    """The sequencer's datagrams to ``victim`` on the simulated LAN, in a second history from
    index ``fork`` on (``SecondHistory``)."""

    def __init__(self, net: SimNet, liar: Node, victim: Node, fork: int) -> None:
        self.net, self.liar, self.victim = net, liar, victim
        assert liar.peer is not None
        pretend_every_answer_matches(liar.peer)
        self.second = SecondHistory(liar.peer, liar.identity, victim.identity.key, fork)
        self._transmit = net.transmit
        net.transmit = self.transmit  # type: ignore[method-assign]

    @property
    def rewritten(self) -> int:
        return self.second.rewritten

    def transmit(self, src: Any, dst: Any, data: bytes) -> None:
        if src == self.liar.addr and dst == self.victim.addr and self.liar.peer is not None:
            data = self.second.rewrite(data)
        self._transmit(src, dst, data)


class Censor:
    """The sequencer drops every proposal of ``victim`` (and heartbeats it as usual); with
    ``withhold``, it appends them but never commits one (nor anything after it)."""

    def __init__(self, liar: Node, victim: Node, withhold: bool = False) -> None:
        peer = liar.peer
        assert peer is not None
        self.dropped = 0
        key = victim.identity.key
        honest_propose, honest_commit = peer._on_propose, peer._commit_to

        def on_propose(msg: wire.Propose) -> None:
            if msg.key == key and not withhold:
                self.dropped += 1
                return
            honest_propose(msg)

        def commit_to(index: int, quiet: bool = False) -> None:
            if peer.is_sequencer:
                held = [e.index for e in peer.log[peer.commit_index:index] if e.decoded.author == key]
                if held:
                    self.dropped += 1
                    index = held[0] - 1
            honest_commit(index, quiet)

        peer._on_propose = on_propose  # type: ignore[method-assign]
        if withhold:
            peer._commit_to = commit_to  # type: ignore[method-assign]


class Flooder:
    """A seated member's flood at the sequencer: each datagram pair, a proposal (one the rules
    refuse: nonsense, another seat's move, a return of a seat not taken over; or one of its
    own seat's legal moves) and a ``JOIN`` announcing a fresh incarnation. Its proposals go
    under the incarnation of a ``JOIN`` it sent (a new one every ``every`` seconds, seq
    counting up) or under one never announced."""

    def __init__(self, net: SimNet, node: Node, nodes: list[Node], seed: int, every: float = 2.1) -> None:
        self.net, self.node, self.nodes, self.every = net, node, nodes, every
        self.rng = random.Random(seed)
        self.sent = 0
        self.incarnation, self.since, self.seq = 0, float("-inf"), 0

    def burst(self, n: int) -> None:
        me, p = self.node.identity, self.node.peer
        boss = next((m for m in self.nodes if m.peer is not None and m.peer.is_sequencer), None)
        if p is None or boss is None or p.table_id is None:
            return
        seat = p.my_seat or 0
        match = p.table.match
        legal = [str(a) for a in match.legal_actions(seat)] if match is not None else []
        if self.net.now >= self.since + self.every:  # a new incarnation, announced below first
            self.incarnation, self.since, self.seq = self.rng.randrange(1, 2**62), self.net.now, 0
        for i in range(n):
            fresh = self.rng.randrange(1, 2**62)
            announced = self.incarnation if i == 0 else fresh
            fields = [p.table_id, me.key, announced, p.name, None, None, None]
            self.net.inject(boss.addr, wire.encode(wire.JOIN, fields, me.sign, p.pass_key, p._stamp()),
                            self.node.addr)
            self.seq += 1
            incarnation = self.rng.choice([self.incarnation, fresh])
            payload = self.rng.choice([["act", seat, "nonsense"], ["act", (seat + 1) % 3, "flip"],
                                       ["return", seat], ["act", seat, self.rng.choice(legal or ["x"])]])
            prop = wire.Proposal(p.table_id, me.key, incarnation, self.seq, payload).pack()
            data = wire.encode_propose(p.table_id, prop, me.sign(wire.proposal_signed(prop)), p.pass_key)
            self.net.inject(boss.addr, data, self.node.addr)
            self.sent += 2


def flood_bytes(peer: Peer, author: bytes, own: int) -> int:
    """Bytes of ``author``'s entries under incarnations other than ``own`` in ``peer``'s log."""
    return sum(len(raw) for e, raw in zip(peer.log, peer.raw, strict=True)
               if e.decoded.author == author and e.decoded.incarnation not in (own, 0))
