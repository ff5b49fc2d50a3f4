"""A simulated LAN for tests and benchmarks: peers in one process, in virtual time.

Datagrams are lost, duplicated and delayed (which reorders them) per datagram, from a
seeded ``random.Random``; the clock jumps to the next delivery or peer deadline. A node
keeps its identity and store when its ``Peer`` crashes, so it can restart (``resume``) or
come back with an empty store (``rejoin``). Partitions cut links both ways. Broadcasts
(beacons) are recorded, not delivered. ``propose``/``leave`` (or ``handle`` with any
``Output``) route what a caller asks of a peer directly. A run depends on ``seed`` alone
(never on ``PYTHONHASHSEED``). Unless given timeouts, computer players move at once
(``bot_delay=0``), which keeps simulated matches short.
"""

from __future__ import annotations

import hashlib
import heapq
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from cardtable.p2p.identity import Identity
from cardtable.p2p.peer import BROADCAST, Addr, Output, Peer, PeerEvent, Timeouts
from cardtable.p2p.store import MemoryStore, Store
from cardtable.p2p.wire import MAX_DATAGRAM


@dataclass(frozen=True)
class Faults:
    """Per-datagram fault rates; a reordered datagram gets up to ``reorder_delay`` extra delay."""

    loss: float = 0.0
    dup: float = 0.0
    reorder: float = 0.0
    delay: tuple[float, float] = (0.0005, 0.002)
    reorder_delay: float = 0.03


@dataclass
class Node:
    """One machine: an address, an identity, a store and (while it runs) a peer."""

    name: str
    addr: Addr
    identity: Identity
    store: Store
    peer: Peer | None = None
    deadline: float | None = None
    events: list[tuple[float, PeerEvent]] = field(default_factory=list)
    restarts: int = 0

    def kinds(self, kind: str) -> list[dict[str, Any]]:
        """The data of this node's events of one kind."""
        return [e.data for _, e in self.events if e.kind == kind]


class SimNet:
    """The network, the clock and the nodes."""

    def __init__(self, seed: int, faults: Faults = Faults(), timeouts: Timeouts | None = None,
                 record: bool = False) -> None:
        self.seed = seed
        self.rng = random.Random(seed)
        self.faults = faults
        self.timeouts = timeouts or Timeouts(bot_delay=0.0)  # computer players move at once
        self.now = 0.0
        self.nodes: dict[Addr, Node] = {}
        self._queue: list[tuple[float, int, Addr, Addr, bytes]] = []
        self._count = 0
        self.cut: set[frozenset[Addr]] = set()
        self.broadcasts: list[tuple[float, Addr, bytes]] = []
        self.sent = 0
        self.sent_bytes = 0
        self.biggest = 0
        self.trace: list[tuple[float, Addr, Addr, bytes]] | None = [] if record else None

    # --- nodes -----------------------------------------------------------------------------------
    def node(self, name: str, store: Store | None = None) -> Node:
        """A new machine with a deterministic identity and a store (empty, in memory by default)."""
        addr = (f"10.0.0.{len(self.nodes) + 1}", 7000 + len(self.nodes))
        secret = hashlib.sha256(f"simnet/{self.seed}/{name}".encode()).digest()
        node = Node(name, addr, Identity.from_seed(secret), store or MemoryStore())
        self.nodes[addr] = node
        return node

    def peer_seed(self, node: Node) -> bytes:
        """A fresh seed for the node's next peer (every start differs)."""
        node.restarts += 1
        return hashlib.sha256(f"simnet/{self.seed}/{node.name}/{node.restarts}".encode()).digest()

    def host(self, node: Node, config: Any, cpu_seats: int, **kw: Any) -> Peer:
        return self._launch(node, Peer.host, config, node.name, cpu_seats, **kw)

    def join(self, node: Node, table_id: bytes, contact: Addr, **kw: Any) -> Peer:
        return self._launch(node, Peer.joiner, table_id, contact, node.name, **kw)

    def watch(self, node: Node, table_id: bytes, contact: Addr, **kw: Any) -> Peer:
        """A spectator (``Peer.spectator``): no seat, the log only."""
        return self._launch(node, Peer.spectator, table_id, contact, node.name, **kw)

    def resume(self, node: Node, **kw: Any) -> Peer:
        return self._launch(node, Peer.resume, **kw)

    def rejoin(self, node: Node, table_id: bytes, contact: Addr, **kw: Any) -> Peer:
        """Come back with an empty store (the old one is lost)."""
        node.store = MemoryStore()
        return self.join(node, table_id, contact, **kw)

    def come_back(self, node: Node, contact: Addr, **kw: Any) -> Peer:
        """Sit down again from the kept store at a table this node left (``Peer.come_back``)."""
        return self._launch(node, Peer.come_back, contact, **kw)

    def _launch(self, node: Node, make: Callable[..., Peer], *args: Any, **kw: Any) -> Peer:
        """Start ``node``'s next peer with ``make`` (a ``Peer`` constructor), its identity and store
        first, the simulation's clock, a fresh seed and (unless given) the simulation's timeouts."""
        kw.setdefault("timeouts", self.timeouts)
        peer = make(node.identity, node.store, *args, now=self.now, seed=self.peer_seed(node), **kw)
        self.start(node, peer)
        return peer

    def start(self, node: Node, peer: Peer) -> None:
        node.peer = peer
        self.handle(node, peer.timer(self.now))

    def crash(self, node: Node) -> None:
        """The peer stops at once; its store stays."""
        node.peer, node.deadline = None, None

    def partition(self, *groups: list[Node]) -> None:
        """Cut every link between nodes of different groups."""
        for i, a in enumerate(groups):
            for b in groups[i + 1:]:
                self.cut |= {frozenset((x.addr, y.addr)) for x in a for y in b}

    def heal(self) -> None:
        self.cut = set()

    # --- the network -----------------------------------------------------------------------------
    def handle(self, node: Node, out: Output) -> None:
        """Route an ``Output`` of ``node``'s peer: send its datagrams (through the fault model),
        take its deadline, record its events. For what a caller asks of a peer directly
        (``propose_action``, ``leave``); ``propose`` and ``leave`` below do both at once."""
        node.deadline = out.deadline
        node.events += [(self.now, e) for e in out.events]
        for data, dst in out.send:
            self.transmit(node.addr, dst, data)

    def propose(self, node: Node, action: str) -> Output:
        """``node``'s peer proposes ``action`` for its seat, now; returns the routed output."""
        assert node.peer is not None, f"{node.name} is not running"
        out = node.peer.propose_action(action, self.now)
        self.handle(node, out)
        return out

    def leave(self, node: Node) -> Output:
        """``node``'s peer leaves the table (see ``Peer.leave``); returns the routed output."""
        assert node.peer is not None, f"{node.name} is not running"
        out = node.peer.leave(self.now)
        self.handle(node, out)
        return out

    def transmit(self, src: Addr, dst: Addr, data: bytes) -> None:
        """Put one datagram on the wire, through the fault model."""
        if len(data) > MAX_DATAGRAM:
            raise AssertionError(f"a {len(data)}-byte datagram from {src}")
        self.sent += 1
        self.sent_bytes += len(data)
        self.biggest = max(self.biggest, len(data))
        if self.trace is not None:
            self.trace.append((self.now, src, dst, data))
        if dst == BROADCAST:
            self.broadcasts.append((self.now, src, data))
            return
        f = self.faults
        if self.rng.random() < f.loss:
            return
        for _ in range(2 if self.rng.random() < f.dup else 1):
            delay = self.rng.uniform(*f.delay)
            if self.rng.random() < f.reorder:
                delay += self.rng.uniform(0, f.reorder_delay)
            self.inject(dst, data, src, self.now + delay)

    def inject(self, dst: Addr, data: bytes, src: Addr, at: float | None = None) -> None:
        """Deliver ``data`` to ``dst`` as if sent from ``src`` (no faults)."""
        self._count += 1
        heapq.heappush(self._queue, (self.now if at is None else at, self._count, dst, src, data))

    # --- the clock -------------------------------------------------------------------------------
    def _timer(self) -> tuple[float, int, Node] | None:
        due = [(n.deadline, i, n) for i, n in enumerate(self.nodes.values())
               if n.peer is not None and n.deadline is not None]
        return min(due, key=lambda d: (d[0], d[1]), default=None)

    def next_time(self) -> float | None:
        """When the next delivery or deadline is due (None: nothing will happen)."""
        timer = self._timer()
        times = ([timer[0]] if timer else []) + ([self._queue[0][0]] if self._queue else [])
        return min(times) if times else None

    def step(self) -> bool:
        """Run the next delivery or deadline; False when nothing is left to happen."""
        timer = self._timer()
        if self._queue and (timer is None or self._queue[0][0] < timer[0]):
            at, _, dst, src, data = heapq.heappop(self._queue)
            self.now = max(self.now, at)
            node = self.nodes.get(dst)
            if node is None or node.peer is None or frozenset((src, dst)) in self.cut:
                return True
            self.handle(node, node.peer.receive(data, src, self.now))
            return True
        if timer is None:
            return False
        node = timer[2]
        assert node.peer is not None
        self.now = max(self.now, timer[0])
        self.handle(node, node.peer.timer(self.now))
        return True

    def run(self, until: Callable[[], bool] | None = None, limit: float = 600.0,
            steps: int = 5_000_000) -> bool:
        """Step until ``until()`` holds (True) or the virtual time passes ``limit`` (False)."""
        end = self.now + limit
        for _ in range(steps):
            if until is not None and until():
                return True
            if self.now > end or not self.step():
                return until is None
        raise AssertionError(f"no end after {steps} steps at t={self.now:.3f}")

    def run_for(self, seconds: float) -> None:
        """Let ``seconds`` of virtual time pass."""
        end = self.now + seconds
        while (at := self.next_time()) is not None and at <= end:
            self.step()
        self.now = max(self.now, end)

    # --- views -----------------------------------------------------------------------------------
    def peers(self) -> list[Peer]:
        return [n.peer for n in self.nodes.values() if n.peer is not None]
