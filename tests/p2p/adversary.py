"""A stranger on the simulated LAN that holds every datagram the table ever sent.

``Adversary.attack(n)`` sends ``n`` hostile datagrams straight into the members' peers at the
current virtual time: replays of anything in the trace (beacons included) from any address
(its own, the sender's, another member's, a new one), mutations, forgeries signed by fresh
keys (``APPEND`` with its own join and any term up to the wire's limit, ``VOTE_ASK``,
``APPEND_OK``, ``VOTE``, ``REDIRECT``, ``PROBE``, ``PROPOSE``, ``JOIN`` floods from spoofed
addresses, heartbeats with made-up MACs, beacons of new tables) and messages that claim a
member's key under a stranger's signature. It checks, datagram by datagram, what the docs
promise (docs/security.md):

- a datagram no member signed, or one the receiver has just handled (the same bytes again,
  from any address), changes nothing of the receiver's term, vote, role, log, commit index,
  address book, roster, timers or store (not one byte written);
- after any datagram, every address a peer holds is the member's own.

The adversary also feeds a lobby listener (``Discovery``) the table's real beacons and its
flood. Memory is measured as ``footprint``: the entries of every container reachable from a
peer's (or the listener's) own objects.
"""

from __future__ import annotations

import dataclasses
import os
import random
from collections import deque
from pathlib import Path
from typing import Any

from cardtable.p2p import discovery, wire
from cardtable.p2p.admission import MAX_TERM_STEP
from cardtable.p2p.identity import Identity
from cardtable.p2p.simnet import Node, SimNet
from cardtable.p2p.store import FileStore

EVE_ADDR = ("10.6.6.6", 6666)


def file_table(net: SimNet, config: Any, peers: int, home: Path) -> list[Node]:
    """A table of ``peers`` peers (the first hosts) whose stores are files under ``home``; the
    joiners know the host's key, as ``cardtable join`` does from the beacon it heard."""
    nodes = [net.node(f"p{i}", FileStore(home / f"p{i}.log", sync=False)) for i in range(peers)]
    host = net.host(nodes[0], config, 0, auto="random", bots="random")
    assert host.table_id is not None
    for node in nodes[1:]:
        net.join(node, host.table_id, nodes[0].addr, auto="random", bots="random", sequencer=host.key)
    return nodes


def store_bytes(node: Node) -> int:
    store = node.store
    assert isinstance(store, FileStore)
    return os.path.getsize(store.path) if store.path.exists() else 0


def footprint(root: Any) -> int:
    """How many entries the dicts, lists, sets, tuples and deques reachable from ``root`` hold,
    following the attributes of cardtable's network objects (not the game engine's)."""
    seen: set[int] = set()
    todo = [root]
    total = 0
    while todo:
        obj = todo.pop()
        if id(obj) in seen or isinstance(obj, (str, bytes, bytearray, int, float, bool, type(None))):
            continue
        seen.add(id(obj))
        if isinstance(obj, dict):
            total += len(obj)
            todo += list(obj.keys()) + list(obj.values())
        elif isinstance(obj, (list, tuple, set, frozenset, deque)):
            total += len(obj)
            todo += list(obj)
        elif type(obj).__module__.startswith("cardtable.p2p"):
            if dataclasses.is_dataclass(obj):
                todo += [getattr(obj, f.name) for f in dataclasses.fields(obj)]
            if hasattr(obj, "__dict__"):
                todo += list(vars(obj).values())
    return total


def _snapshot(node: Node) -> tuple[Any, ...]:
    p = node.peer
    assert p is not None
    return (p.term, p.voted_for, p.role, tuple(p.raw), p.commit_index, dict(p.addrs),
            tuple(p.table.roster.members), p.leader, node.deadline, store_bytes(node))


class Adversary:
    """The stranger: ``attack`` sends hostile datagrams, ``checked`` counts what it checked."""

    def __init__(self, net: SimNet, nodes: list[Node], seed: int) -> None:
        assert net.trace is not None
        self.net, self.nodes, self.rng = net, nodes, random.Random(seed)
        host = nodes[0].peer
        assert host is not None and host.table_id is not None
        self.table_id = host.table_id
        self.genuine = {n.identity.key: n.addr for n in nodes}
        self.listener = discovery.Discovery()
        self.beacons_heard = 0
        self.sent = 0
        self.checked = 0  # datagrams checked to have changed nothing
        self.admitted = 0  # replayed JOINs that let their (genuine) sender in

    # --- the datagrams ---------------------------------------------------------------------------
    def _fresh(self) -> Identity:
        return Identity.from_seed(self.rng.randbytes(32))

    def _new_addr(self) -> tuple[str, int]:
        r = self.rng
        return f"10.{r.randrange(256)}.{r.randrange(256)}.{r.randrange(1, 255)}", r.randrange(1, 65536)

    def _addr(self) -> tuple[str, int]:
        """Its own address, a new one, or a member's."""
        return self.rng.choice([EVE_ADDR, self._new_addr(), self.rng.choice(list(self.genuine.values()))])

    def _term(self, base: int) -> int:
        return self.rng.choice([base + 1, base + 2, base + MAX_TERM_STEP, base + MAX_TERM_STEP + 1,
                                10**6, 2**62, wire.MAX_INT])

    def _stamp(self) -> int:
        return self.rng.choice([1, 2**40, 2**62, self.rng.randrange(1, 2**63)])

    def _append(self, node: Node) -> bytes:
        """A fresh key's APPEND carrying its own join (sequenced by itself, or claiming a member
        sequenced it), or claiming a member's key, at any term."""
        p = node.peer
        assert p is not None
        eve, tid, r = self._fresh(), self.table_id, self.rng
        term, index = self._term(p.term), p.log_length + 1
        sequencer = r.choice([eve, None])  # None: a member's key with eve's signature
        seq_key = eve.key if sequencer else r.choice(list(self.genuine))
        prop = wire.Proposal(tid, eve.key, 1, 1, ["join", "eve"]).pack()
        entry = wire.Entry(term, index, prop, eve.sign(wire.proposal_signed(prop)), seq_key,
                           eve.sign(wire.entry_signed(tid, term, index, prop, p._hash_at(index - 1))),
                           wire.decode_proposal(prop))
        claimed = r.choice([eve.key, eve.key, r.choice(list(self.genuine))])
        last_term = p.log[-1].term if p.log else 0
        head = [tid, claimed, term, p.log_length, last_term, r.choice([p.commit_index, index, 10**6])]
        addrs = r.choice([[], [[k, *EVE_ADDR] for k in self.genuine]])
        return wire.encode_append(head, [entry.pack()], addrs, eve.sign, None, self._stamp())

    def _signed(self, node: Node) -> bytes:
        """A fresh key's (or a member's claimed key under a fresh signature) other messages."""
        p = node.peer
        assert p is not None
        eve, r, tid = self._fresh(), self.rng, self.table_id
        key = r.choice([eve.key, eve.key, r.choice(list(self.genuine))])
        term = self._term(p.term)
        kind = r.choice([wire.VOTE_ASK, wire.VOTE_ASK, wire.APPEND_OK, wire.VOTE, wire.REDIRECT, wire.PROBE,
                         wire.HEAD])
        fields: list[Any] = {
            wire.VOTE_ASK: [tid, key, term, r.choice([p.log_length, 10**6, wire.MAX_INT]), term,
                            r.randbytes(32)],
            wire.APPEND_OK: [tid, key, term, True, r.choice([p.log_length, 10**6]), r.randbytes(32)],
            wire.HEAD: [tid, key, term, r.choice([p.log_length, 10**6]), term, r.randbytes(32), []],
            wire.VOTE: [tid, key, term, True, r.choice([True, False])],
            wire.REDIRECT: [tid, key, term, eve.key, EVE_ADDR[0], EVE_ADDR[1]],
            wire.PROBE: [tid, key, r.randbytes(wire.NONCE_BYTES), r.choice([True, False])],
        }[kind]
        return wire.encode(kind, fields, eve.sign, None, self._stamp())

    def _propose(self, node: Node | None = None) -> bytes:
        eve, r = self._fresh(), self.rng
        author = r.choice([eve.key, r.choice(list(self.genuine))])
        payload = r.choice([["act", 0, "pass"], ["join", "eve"], ["leave"], ["forfeit", 1], ["noop"]])
        prop = wire.Proposal(self.table_id, author, 1, r.randrange(1, 10**6), payload).pack()
        return wire.encode_propose(self.table_id, prop, eve.sign(wire.proposal_signed(prop)), None)

    def _join(self, node: Node | None = None) -> bytes:
        eve, r = self._fresh(), self.rng
        prop = wire.Proposal(self.table_id, eve.key, 1, 1, ["join", "ghost"]).pack()
        cookie = r.choice([None, r.randbytes(wire.NONCE_BYTES)])
        fields = [self.table_id, eve.key, 1, "ghost", prop, eve.sign(wire.proposal_signed(prop)), cookie]
        return wire.encode(wire.JOIN, fields, eve.sign, None, self._stamp())

    def _heartbeat(self, node: Node) -> bytes:
        p = node.peer
        assert p is not None
        return wire.encode_heartbeat(self.rng.randbytes(32), self.table_id, p.term, p.log_length,
                                     p.log[-1].term if p.log else 0, p.commit_index, None, self._stamp())

    def _beacon(self, node: Node | None = None) -> bytes:
        eve, r = self._fresh(), self.rng
        config = {"game": "scout", "players": 3}
        beacon = wire.Beacon(r.randbytes(wire.ID_BYTES), eve.key, r.choice([1, wire.MAX_INT]), "party",
                             config, 1, 3, 7000, "lobby")
        return discovery.encode_beacon(beacon, eve.sign, None, self._stamp())

    def _mutate(self, data: bytes) -> bytes:
        r, out = self.rng, bytearray(data)
        how = r.randrange(5)
        if how == 0:
            out[r.randrange(len(out))] ^= 1 << r.randrange(8)
        elif how == 1:
            out[r.randrange(len(out))] = r.randrange(256)
        elif how == 2:
            del out[r.randrange(4, len(out)):]
        elif how == 3:
            out += r.randbytes(r.randrange(1, 40))
        else:
            other = r.choice(self.net.trace or [(0, 0, 0, data)])[3]
            cut = r.randrange(4, min(len(out), len(other)) + 1)
            out = out[:cut] + bytearray(other[cut:])
        return bytes(out[: wire.MAX_DATAGRAM])

    # --- sending and checking --------------------------------------------------------------------
    def _deliver(self, node: Node, data: bytes, src: tuple[str, int], strict: bool) -> None:
        """``node``'s peer receives ``data`` from ``src`` now; with ``strict``, it must change nothing."""
        assert node.peer is not None
        for _ in range(10):  # the peer's own work due now first (as the simulator would run it)
            if not strict or node.deadline is None or node.deadline > self.net.now:
                break
            self.net.handle(node, node.peer.timer(self.net.now))
        before = _snapshot(node) if strict else None
        raw_before = node.store.path.read_bytes() if strict else b""
        out = node.peer.receive(data, src, self.net.now)
        self.net.handle(node, out)
        self.sent += 1
        if before is not None:
            after = _snapshot(node)
            assert after == before, (f"seed {self.net.seed}: a datagram from {src} changed {node.name}: "
                                     + ", ".join(f"{i}: {a!r} -> {b!r}" for i, (a, b) in
                                                 enumerate(zip(before, after, strict=True)) if a != b)
                                     + f" ({wire.decode(data, None).msg!r:.300}; {out.events!r:.300})"
                                     + repr(node.store.path.read_bytes()[len(raw_before):]))
            self.checked += 1
        for k, a in node.peer.addrs.items():
            assert a == self.genuine.get(k), f"seed {self.net.seed}: {node.name} sends {k.hex()[:8]} to {a}"

    def _signed_by_a_member(self, data: bytes) -> bool:
        """Whether ``data`` decodes to something a member may have signed (a replay in disguise)."""
        try:
            packet = wire.decode(data, None)
        except wire.WireError:
            return False
        return isinstance(packet.msg, wire.Heartbeat) or packet.authentic()

    def _captured(self, trace: list[tuple[float, Any, Any, bytes]]) -> tuple[float, Any, Any, bytes]:
        """A datagram the table sent to a member or broadcast (recent or of any age). What it
        sent to a stranger's address (a cookie, a probe) is not resent: forwarding those makes
        the stranger a relay, a limit docs/security.md lists."""
        for _ in range(20):
            sent = trace[-self.rng.randrange(1, min(len(trace), 60) + 1)] if self.rng.random() < 0.5 \
                else self.rng.choice(trace)
            if sent[2] in self.net.nodes or sent[2][1] == 0:
                return sent
        return next((s for s in trace if s[2] in self.net.nodes), sent)

    def attack(self, n: int) -> None:
        """``n`` hostile datagrams, each to a random running member, now."""
        assert self.net.trace is not None
        trace = self.net.trace
        self._listen()
        for _ in range(n):  # beacons of made-up tables for the lobby listener, as many again
            self.listener.receive(self._beacon(), self._new_addr(), self.net.now)
        for _ in range(n):
            node = self.rng.choice([m for m in self.nodes if m.peer is not None])
            roll = self.rng.random()
            if roll < 0.35 and trace:  # a replay of anything, from anywhere, twice
                _, src, dst, data = self._captured(trace)
                target = self.net.nodes.get(dst, node)
                target = target if target.peer is not None else node
                assert target.peer is not None
                length = target.peer.log_length
                first = self.rng.choice([src if src in self.net.nodes else EVE_ADDR, self._addr()])
                self._deliver(target, data, first, strict=False)
                if target.peer.log_length != length:  # a delayed JOIN let its sender in
                    self.admitted += 1
                # What a datagram may do depends on where it comes from (a JOIN's cookie is bound
                # to an address; a newcomer hears its sequencer only where it contacted it): the
                # same bytes again from the same address, or from a stranger's.
                again = self.rng.choice([first, EVE_ADDR, self._new_addr()])
                self._deliver(target, data, again, strict=True)
            elif roll < 0.5 and trace:
                data = self._mutate(self._captured(trace)[3])
                strict = not self._signed_by_a_member(data)
                first = self._addr()
                self._deliver(node, data, first, strict=strict)
                self._deliver(node, data, self.rng.choice([first, EVE_ADDR, self._new_addr()]), strict=True)
            else:
                forge = self.rng.choice([self._append, self._signed, self._signed, self._propose, self._join,
                                         self._beacon, self._heartbeat])
                data = forge(node)
                self._deliver(node, data, self._addr(), strict=True)
                if forge == self._beacon:
                    self.listener.receive(data, self._addr(), self.net.now)

    def _listen(self) -> None:
        """The lobby listener hears the beacons the table broadcast since the last call, and
        two of them (any age) replayed from anywhere."""
        sent = self.net.broadcasts
        for _, src, data in sent[self.beacons_heard:]:
            self.listener.receive(data, src, self.net.now)
        self.beacons_heard = len(sent)
        for _, _, data in self.rng.sample(sent, min(len(sent), 2)):
            self.listener.receive(data, self._addr(), self.net.now)
