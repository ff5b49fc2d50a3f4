"""The table network's figures: latency, traffic, failover and catch-up.

Run: ``python bench/net.py [--actions N] [--loop-actions N] [--peers 2,4,10] [--loss 0,20,30]
[--only sim|loopback] [--trials T] [--json]`` (all of it takes a few minutes, mostly loopback
with loss, which runs in real time). ``--flood``: a stranger's flood, simulated; ``--fuzz
RATE``: the longest gap with nothing applied under fuzzed datagrams, loopback.

For each number of peers and loss rate, in the simulated LAN (``p2p.simnet``, virtual time)
and on loopback (in-process ``p2p.node.Node``s on 127.0.0.1, real sockets and wall-clock
time, loss thrown in at each node's input with the given rate):

- latency: from ``Peer.propose_action`` to the entry being applied on every peer (p50, p95,
  max). Every seat is human (no computer seats); a harness plays the seat to move with a
  random bot the moment its owner's peer sees its turn, so one action is in flight at a time;
- bytes and datagrams per action: everything the peers sent during those actions (beacons
  and heartbeats included) over the number of actions;
- idle: bytes/s a peer sends while the table waits (mean, and the sequencer's, the most),
  measured for 10 s from 1 s after the last timed action;
- failover: the sequencer is killed just before another peer's move; the time from the kill
  to that move being applied on every survivor (median and max over the trials);
- catch-up: a follower is killed, the match goes on (its seat played by a bot after a 1 s
  takeover timeout), it restarts from its store after ``--actions``/2 actions: the time until
  it has applied everything committed when it came back.

SOLO classic for N players; targets: loopback 0% loss 10 peers p95 < 20 ms; simulated 20% loss
10 peers p95 < 300 ms; failover < 2 s; idle < 1 KB/s per peer.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import statistics
import sys
import time
from collections import defaultdict, deque
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from cardtable.ai.bots import RandomBot  # noqa: E402
from cardtable.engine.solo import Config as SoloConfig  # noqa: E402
from cardtable.p2p.identity import Identity  # noqa: E402
from cardtable.p2p.peer import Peer, PeerEvent, Timeouts  # noqa: E402
from cardtable.p2p.simnet import Faults, SimNet  # noqa: E402
from cardtable.p2p.store import MemoryStore  # noqa: E402
from cardtable.p2p.table import HUMAN, PLAYING  # noqa: E402

IDLE_SECONDS = 10.0
SETTLE_SECONDS = 1.0  # before the idle measurement: the last exchanges (an entry in flight) end
CATCHUP_TIMEOUTS = Timeouts(takeover=1.0)


@dataclass
class Result:
    env: str
    peers: int
    loss: int
    actions: int = 0
    p50_ms: float = float("nan")
    p95_ms: float = float("nan")
    max_ms: float = float("nan")
    bytes_per_action: float = float("nan")
    datagrams_per_action: float = float("nan")
    idle_bps_mean: float = float("nan")
    idle_bps_max: float = float("nan")
    failover_s: list[float] = field(default_factory=list)
    elected_s: list[float] = field(default_factory=list)
    catchup_s: float = float("nan")
    catchup_entries: int = 0
    notes: list[str] = field(default_factory=list)


# --- the harness: plays the seats, times the actions ----------------------------------------------


class Harness:
    """Plays every human seat with a random bot through ``propose``; times each action.

    ``peers()`` gives the live peers by name; ``propose(name, action)`` proposes on one of
    them; ``event(name, event, t)`` must see every peer event with its time.
    """

    def __init__(self, peers: Callable[[], dict[str, Peer]], propose: Callable[[str, str], None],
                 clock: Callable[[], float]) -> None:
        self.peers = peers
        self.propose = propose
        self.clock = clock
        self.asked: dict[str, int] = {}
        self.bots: dict[str, RandomBot] = {}
        self.pending: dict[tuple[str, str], deque[Proposal]] = defaultdict(deque)
        self.proposals: list[Proposal] = []
        self.by_index: dict[int, Proposal] = {}
        self.untimed: set[int] = set()
        self.timed = 0
        self.applied: dict[int, dict[str, float]] = defaultdict(dict)
        self.paused = False
        self.before_propose: Callable[[str], None] | None = None

    @property
    def latencies(self) -> list[float]:
        return [p.latency for p in self.proposals if p.latency is not None]

    def drive(self) -> None:
        if self.paused:
            return
        for name, peer in list(self.peers().items()):
            seat, table = peer.my_seat, peer.table
            if seat is None or table.phase != PLAYING or table.seats[seat].controller != HUMAN:
                continue
            match = table.match
            if match is None or match.to_move() != seat or self.asked.get(name) == peer.commit_index:
                continue
            if self.before_propose is not None:
                self.before_propose(name)
                if name not in self.peers():
                    continue
            self.asked[name] = peer.commit_index
            bot = self.bots.setdefault(name, RandomBot(match.seed, seat))
            action = str(bot.choose(match.observation(seat), match.legal_actions(seat)))
            proposal = Proposal(self.clock())
            self.proposals.append(proposal)
            self.pending[(peer.key.hex(), f"act {seat} {action}")].append(proposal)
            self.propose(name, action)

    def event(self, name: str, event: PeerEvent, t: float) -> None:
        if event.kind != "applied":
            return
        data = event.data
        index = int(data["index"])
        if index not in self.by_index and data["kind"] == "act":
            waiting = self.pending.get((str(data["author"]), str(data["summary"])))
            if waiting:
                self.by_index[index] = waiting.popleft()
                self.untimed.add(index)
        self.applied[index].setdefault(name, t)
        self.settle()

    def settle(self) -> None:
        """Time every proposal whose entry is now applied on all live peers."""
        live = set(self.peers())
        for index in list(self.untimed):
            seen = self.applied.get(index, {})
            if live <= set(seen):
                proposal = self.by_index[index]
                proposal.latency = max(seen[n] for n in live) - proposal.at
                self.untimed.discard(index)
                self.timed += 1


@dataclass
class Proposal:
    at: float
    latency: float | None = None


def summarize(result: Result, latencies: list[float]) -> None:
    if not latencies:
        return
    ordered = sorted(latencies)
    result.actions = len(ordered)
    result.p50_ms = 1000 * statistics.median(ordered)
    result.p95_ms = 1000 * ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))]
    result.max_ms = 1000 * ordered[-1]


def config(peers: int) -> Any:
    return SoloConfig.preset("classic", peers)


# --- the simulated LAN ----------------------------------------------------------------------------


class SimTable:
    """A table of ``n`` peers on a ``SimNet``; every seat human."""

    def __init__(self, n: int, loss: float, seed: int, timeouts: Timeouts | None = None,
                 delay: tuple[float, float] | None = None) -> None:
        faults = Faults(loss=loss) if delay is None else Faults(loss=loss, delay=delay)
        self.net = SimNet(seed, faults, timeouts=timeouts)
        self.nodes = [self.net.node(f"p{i}") for i in range(n)]
        self.seen = {node.name: 0 for node in self.nodes}
        self.harness = Harness(self.peers, self.propose, lambda: self.net.now)
        host = self.net.host(self.nodes[0], config(n), 0, bots="random")
        assert host.table_id is not None
        for node in self.nodes[1:]:
            self.net.join(node, host.table_id, self.nodes[0].addr, bots="random")
        if not self.net.run(lambda: all(p.table.phase == PLAYING for p in self.peers().values()), limit=300):
            raise RuntimeError(f"sim: the {n}-peer table did not start")
        self.pump()

    def peers(self) -> dict[str, Peer]:
        return {node.name: node.peer for node in self.nodes if node.peer is not None}

    def propose(self, name: str, action: str) -> None:
        self.net.propose(next(n for n in self.nodes if n.name == name), action)

    def pump(self) -> None:
        """Pass new events to the harness, then let it move."""
        for node in self.nodes:
            fresh = node.events[self.seen[node.name]:]
            self.seen[node.name] = len(node.events)
            for t, event in fresh:
                self.harness.event(node.name, event, t)
        self.harness.drive()

    def run(self, until: Callable[[], bool], limit: float = 600.0) -> bool:
        end = self.net.now + limit
        while not until():
            if self.net.now > end or not self.net.step():
                return False
            self.pump()
        return True

    def leader(self) -> str:
        return next(name for name, p in self.peers().items() if p.is_sequencer)


def sim_case(n: int, loss: float, actions: int, trials: int, seed: int) -> Result:
    result = Result("sim", n, round(100 * loss))
    table = SimTable(n, loss, seed)
    net, h = table.net, table.harness
    sent, sent_bytes = net.sent, net.sent_bytes
    if not table.run(lambda: h.timed >= actions):
        over = any(p.table.phase != PLAYING for p in table.peers().values())
        result.notes.append("the match ended early" if over else "stalled")
    summarize(result, h.latencies)
    if result.actions:
        result.bytes_per_action = (net.sent_bytes - sent_bytes) / result.actions
        result.datagrams_per_action = (net.sent - sent) / result.actions
    # idle: nobody moves for a while
    h.paused = True
    net.run_for(SETTLE_SECONDS)
    net.trace = []
    net.run_for(IDLE_SECONDS)
    per_node: dict[tuple[str, int], int] = defaultdict(int)
    for _, src, _, data in net.trace:
        per_node[src] += len(data)
    net.trace = None
    rates = [per_node.get(node.addr, 0) / IDLE_SECONDS for node in table.nodes]
    result.idle_bps_mean, result.idle_bps_max = statistics.mean(rates), max(rates)
    if n >= 3:
        trial = [sim_failover(n, loss, seed + 1000 * (t + 1)) for t in range(trials)]
        result.elected_s, result.failover_s = [e for e, _ in trial], [f for _, f in trial]
    else:
        result.notes.append("no failover with 2 peers: one alone is not a majority")
    result.catchup_s, result.catchup_entries = sim_catchup(n, loss, actions // 2, seed + 77)
    return result


def _flood_pool(table: SimTable, count: int, rng: random.Random) -> list[bytes]:
    """What a stranger sends: forged joins and fresh-key APPENDs with huge terms (each from a new
    key), junk, and (added as the run goes) replays of what the table sent."""
    from cardtable.p2p import wire

    peer = next(iter(table.peers().values()))
    tid = peer.table_id or b""
    pool = []
    for i in range(count):
        fake = Identity.from_seed(rng.randbytes(32))
        if i % 3 == 0:
            prop = wire.Proposal(tid, fake.key, 1, 1, ["join", f"ghost{i}"]).pack()
            fields = [tid, fake.key, 1, "g", prop, fake.sign(wire.proposal_signed(prop)), None]
            pool.append(wire.encode(wire.JOIN, fields, fake.sign, None, i + 1))
        elif i % 3 == 1:
            head = [tid, fake.key, wire.MAX_INT, 0, 0, 0]
            pool.append(wire.encode_append(head, [], [], fake.sign, None, i + 1))
        else:
            pool.append(rng.randbytes(rng.randrange(5, 300)))
    return pool


def sim_flood(n: int, actions: int, seed: int, rate: int = 1000) -> str:
    """The same table with and without a stranger's flood of ``rate`` datagrams a second to
    every peer in turn (replays of the table's own datagrams from another address among them):
    p95 of a move and the CPU the peers spend per second of table time (one process)."""
    return "\n".join(_flood_run(n, actions, seed, rate if flood else 0) for flood in (False, True))


def _flood_run(n: int, actions: int, seed: int, rate: int) -> str:
    table = SimTable(n, 0.0, seed)
    net, h = table.net, table.harness
    rng = random.Random(seed)
    pool = _flood_pool(table, 300, rng) if rate else []
    net.trace = [] if rate else None
    start_cpu, start_t = time.process_time(), net.now
    sent = 0
    addrs = [node.addr for node in table.nodes]

    def until() -> bool:
        nonlocal sent
        due = int((net.now - start_t) * rate) + 10 if rate else 0
        while sent < due:
            trace = net.trace or []
            replay = trace and sent % 4 == 3
            data = trace[rng.randrange(len(trace))][3] if replay else pool[sent % len(pool)]
            at = max(start_t + sent / rate, net.now)
            net.inject(addrs[sent % len(addrs)], data, ("10.66.0.1", 6666), at)
            sent += 1
            if net.trace is not None and len(net.trace) > 2000:
                del net.trace[:1000]
        return h.timed >= actions

    table.run(until)
    cpu = time.process_time() - start_cpu
    seconds = max(net.now - start_t, 1e-9)
    p95 = statistics.quantiles(h.latencies, n=20)[-1] * 1000 if len(h.latencies) > 1 else float("nan")
    what = f"flood {rate}/s" if rate else "no flood"
    return (f"sim {n} peers, {what}: {len(h.latencies)} moves, p95 {p95:.1f} ms, {sent} datagrams from the "
            f"stranger, peers' CPU {100 * cpu / seconds / n:.1f}% of a core each ({cpu:.2f} s for "
            f"{seconds:.2f} s of table time, all peers in one process)")


def sim_fuzz(n: int, actions: int, seed: int, rate: int) -> str:
    """Simulated: the longest virtual time any peer went with nothing applied while ``actions``
    moves were played, under ``rate`` fuzzed datagrams a second (``fuzzed``, from what the table
    sent so far) to the peers in turn, from a stranger's address or a member's."""
    table = SimTable(n, 0.0, seed)
    net, h = table.net, table.harness
    rng = random.Random(seed)
    net.trace = []
    applied: dict[str, list[float]] = defaultdict(list)
    keep = h.event

    def event(name: str, e: PeerEvent, t: float) -> None:
        if e.kind == "applied":
            applied[name].append(t)
        keep(name, e, t)

    h.event = event  # type: ignore[method-assign]
    addrs = [node.addr for node in table.nodes]
    start, done, sent = net.now, h.timed, 0
    captured: list[bytes] = []

    def until() -> bool:
        nonlocal sent
        trace = net.trace or []
        captured.extend(d for _, _, _, d in trace[-50:])
        del captured[:-2000]
        trace.clear()
        due = int((net.now - start) * rate) + 10 if rate else 0
        while sent < due:
            src = rng.choice([("10.66.0.1", 6666), rng.choice(addrs)])
            at = max(start + sent / rate, net.now)
            net.inject(addrs[sent % len(addrs)], fuzzed(captured, rng), src, at)
            sent += 1
        return h.timed >= done + actions

    ok = table.run(until)
    gaps = [b - a for times in applied.values() for a, b in zip(times, times[1:], strict=False) if a >= start]
    what = f"fuzz flood {rate}/s" if rate else "no flood"
    return (f"sim {n} peers, {what}: {h.timed - done} moves{'' if ok else ' (stalled)'} in "
            f"{net.now - start:.1f} s of table time, longest gap with nothing applied "
            f"{1000 * max(gaps, default=0):.0f} ms, {sent} fuzzed datagrams")


def sim_failover(n: int, loss: float, seed: int) -> tuple[float, float]:
    """(seconds to elect a new sequencer, seconds until the move in flight is applied)."""
    table = SimTable(n, loss, seed)
    h, net = table.harness, table.net
    table.run(lambda: h.timed >= 5)
    old = table.leader()
    crash: dict[str, float] = {}

    def before(name: str) -> None:
        if not crash and name != old:
            crash["t"], crash["n"] = net.now, len(h.proposals)
            net.crash(next(node for node in table.nodes if node.name == old))

    h.before_propose = before
    if not table.run(lambda: bool(crash) and any(p.is_sequencer for p in table.peers().values()), limit=120):
        return float("nan"), float("nan")
    elected = net.now - crash["t"]
    if not table.run(lambda: h.proposals[int(crash["n"])].latency is not None, limit=120):
        return elected, float("nan")
    return elected, float(net.now - crash["t"])


def sim_catchup(n: int, loss: float, gap: int, seed: int) -> tuple[float, int]:
    if n < 3:
        return float("nan"), 0
    table = SimTable(n, loss, seed, CATCHUP_TIMEOUTS)
    h, net = table.harness, table.net
    table.run(lambda: h.timed >= 5)
    victim = next(node for node in table.nodes if node.peer is not None and not node.peer.is_sequencer)
    net.crash(victim)
    leader = next(p for p in table.peers().values() if p.is_sequencer)
    goal = leader.commit_index + gap
    table.run(lambda: leader.commit_index >= goal or leader.table.phase != PLAYING, limit=600)
    start, target = net.now, max(p.commit_index for p in table.peers().values())
    before = len(victim.store.state.entries)
    peer = net.resume(victim, bots="random", timeouts=CATCHUP_TIMEOUTS)
    table.seen[victim.name] = len(victim.events)
    if not table.run(lambda: peer.commit_index >= target, limit=120):
        return float("nan"), target - before
    return float(net.now - start), target - before


# --- loopback: real sockets -----------------------------------------------------------------------


class LoopTable:
    """``n`` in-process nodes on 127.0.0.1; each drops received datagrams with rate ``loss``."""

    def __init__(self, n: int, loss: float, seed: int, timeouts: Timeouts | None = None) -> None:
        self.n, self.loss, self.seed = n, loss, seed
        self.timeouts = timeouts or Timeouts()
        self.rng = random.Random(seed)
        self.nodes: dict[str, Any] = {}
        self.identities: dict[str, Identity] = {}
        self.stores: dict[str, MemoryStore] = {}
        self.harness = Harness(self.peers, self.propose, time.monotonic)
        self.loop: asyncio.AbstractEventLoop | None = None
        self.kick_pending = False

    def peers(self) -> dict[str, Peer]:
        return {name: node.peer for name, node in self.nodes.items()
                if node.peer is not None and not node.closed}

    def propose(self, name: str, action: str) -> None:
        self.nodes[name].propose(action)

    def on_event(self, name: str) -> Callable[[PeerEvent], None]:
        def handle(event: PeerEvent) -> None:
            self.harness.event(name, event, time.monotonic())
            if event.kind == "applied" and not self.kick_pending and self.loop is not None:
                self.kick_pending = True
                self.loop.call_soon(self.kick)
        return handle

    def kick(self) -> None:
        self.kick_pending = False
        self.harness.drive()

    async def node(self, name: str) -> Any:
        from cardtable.p2p.node import Node

        node = Node(host="127.0.0.1", broadcast=["127.255.255.255"], listen_discovery=False,
                    on_event=self.on_event(name), drop=(lambda d, a: self.rng.random() < self.loss))
        await node.open()
        self.nodes[name] = node
        return node

    async def start(self) -> None:
        self.loop = asyncio.get_running_loop()
        names = [f"p{i}" for i in range(self.n)]
        for name in names:
            self.identities[name] = Identity.generate()
            self.stores[name] = MemoryStore()
        first = await self.node(names[0])
        host = Peer.host(self.identities[names[0]], self.stores[names[0]], config(self.n), names[0], 0,
                         now=time.monotonic(), seed=random.Random(self.seed).randbytes(32), bots="random",
                         timeouts=self.timeouts)
        first.attach(host)
        assert host.table_id is not None
        for i, name in enumerate(names[1:], 1):
            node = await self.node(name)
            contact = ("127.0.0.1", first.port)
            peer = Peer.joiner(self.identities[name], self.stores[name], host.table_id, contact, name,
                               now=time.monotonic(), seed=random.Random(self.seed + i).randbytes(32),
                               bots="random", timeouts=self.timeouts)
            node.attach(peer)
        if not await self.wait(lambda: len(self.peers()) == self.n
                               and all(p.table.phase == PLAYING for p in self.peers().values()), 60):
            raise RuntimeError(f"loopback: the {self.n}-peer table did not start")
        self.kick()

    async def wait(self, until: Callable[[], bool], timeout: float) -> bool:
        end = time.monotonic() + timeout
        while not until():
            if time.monotonic() > end:
                return False
            await asyncio.sleep(0.002)
        return True

    async def crash(self, name: str) -> None:
        self.nodes[name].halt()
        await self.nodes[name].close()

    async def restart(self, name: str) -> Peer:
        node = await self.node(name)
        peer = Peer.resume(self.identities[name], self.stores[name], now=time.monotonic(),
                           seed=random.Random(self.seed + 99).randbytes(32), bots="random",
                           timeouts=self.timeouts)
        node.attach(peer)
        return peer

    def leader(self) -> str:
        return next(name for name, p in self.peers().items() if p.is_sequencer)

    async def close(self) -> None:
        for node in self.nodes.values():
            await node.close()


def fuzzed(captured: list[bytes], rng: random.Random) -> bytes:
    """A fuzzed datagram: one the table sent with bits flipped, bytes set, cut, extended or spliced
    with another, or random bytes (a third of them starting like a datagram)."""
    if not captured or rng.random() < 0.2:
        head = b"CT" + bytes((rng.randrange(256), rng.randrange(4))) if rng.random() < 0.33 else b""
        return head + rng.randbytes(rng.randrange(1, 1200 - len(head)))
    out = bytearray(rng.choice(captured))
    how = rng.randrange(5)
    if how == 0:
        out[rng.randrange(len(out))] ^= 1 << rng.randrange(8)
    elif how == 1:
        out[rng.randrange(len(out))] = rng.randrange(256)
    elif how == 2:
        del out[rng.randrange(1, len(out)):]
    elif how == 3:
        out += rng.randbytes(rng.randrange(1, 40))
    else:
        other = rng.choice(captured)
        cut = rng.randrange(1, min(len(out), len(other)) + 1)
        out = out[:cut] + bytearray(other[cut:])
    return bytes(out[:1200])


def _fuzz_sender(captured: list[bytes], ports: list[int], rate: int, seed: int, sent: Any) -> None:
    """A process of its own: ``rate`` fuzzed datagrams a second to the ports in turn, until killed."""
    import socket

    rng, sock = random.Random(seed), socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    start = time.monotonic()
    while True:
        due = int((time.monotonic() - start) * rate)
        while sent.value < due:
            try:
                sock.sendto(fuzzed(captured, rng), ("127.0.0.1", ports[sent.value % len(ports)]))
            except OSError:
                pass
            sent.value += 1
        time.sleep(0.002)


async def loop_fuzz(n: int, actions: int, seed: int, rate: int) -> str:
    """Loopback: the longest time any peer went with nothing applied while ``actions`` moves were
    played, under ``rate`` fuzzed datagrams a second (0: no flood) to the peers in turn, sent by
    another process from what the table sent in its first moves."""
    import multiprocessing

    table = LoopTable(n, 0.0, seed)
    captured: list[bytes] = []
    applied: dict[str, list[float]] = defaultdict(list)
    keep = table.on_event

    def on_event(name: str) -> Callable[[PeerEvent], None]:
        handle = keep(name)

        def both(event: PeerEvent) -> None:
            if event.kind == "applied":
                applied[name].append(time.monotonic())
            handle(event)
        return both

    table.on_event = on_event  # type: ignore[method-assign]
    context = multiprocessing.get_context("fork")
    sent, sender = context.Value("q", 0), None
    try:
        await table.start()
        for node in table.nodes.values():
            node.drop = lambda d, a: (len(captured) < 2000 and captured.append(d)) or False
        await table.wait(lambda: len(captured) >= 500, 10)
        if rate:
            ports = [node.port for node in table.nodes.values()]
            sender = context.Process(target=_fuzz_sender, args=(list(captured), ports, rate, seed, sent),
                                     daemon=True)
            sender.start()
        start, cpu = time.monotonic(), time.process_time()
        done = table.harness.timed
        ok = await table.wait(lambda: table.harness.timed >= done + actions, 60 + actions * 2.0)
        seconds, cpu = time.monotonic() - start, time.process_time() - cpu
    finally:
        if sender is not None:
            sender.kill()
            sender.join()
        await table.close()
    gaps = [b - a for times in applied.values() for a, b in zip(times, times[1:], strict=False)
            if a >= start]
    what = f"fuzz flood {rate}/s" if rate else "no flood"
    return (f"loopback {n} peers, {what}: {table.harness.timed - done} moves{'' if ok else ' (stalled)'} in "
            f"{seconds:.1f} s, longest gap with nothing applied {1000 * max(gaps, default=0):.0f} ms, p95 "
            f"{1000 * statistics.quantiles(table.harness.latencies, n=20)[-1]:.1f} ms, {sent.value} fuzzed "
            f"datagrams, the peers' CPU {100 * cpu / seconds:.0f}% of a core (all in one process)")


async def loop_case(n: int, loss: float, actions: int, trials: int, seed: int) -> Result:
    result = Result("loopback", n, round(100 * loss))
    table = LoopTable(n, loss, seed)
    try:
        await table.start()
        h = table.harness
        before = [(node.stats.bytes_out, node.stats.datagrams_out) for node in table.nodes.values()]
        if not await table.wait(lambda: h.timed >= actions, 60 + actions * 2.0):
            over = any(p.table.phase != PLAYING for p in table.peers().values())
            result.notes.append("the match ended early" if over else "stalled")
        summarize(result, h.latencies)
        after = [(node.stats.bytes_out, node.stats.datagrams_out) for node in table.nodes.values()]
        if result.actions:
            pairs = list(zip(after, before, strict=True))
            result.bytes_per_action = sum(a[0] - b[0] for a, b in pairs) / result.actions
            result.datagrams_per_action = sum(a[1] - b[1] for a, b in pairs) / result.actions
        h.paused = True
        await asyncio.sleep(SETTLE_SECONDS)  # let the last exchanges settle
        start = [node.stats.bytes_out for node in table.nodes.values()]
        await asyncio.sleep(IDLE_SECONDS)
        rates = [(node.stats.bytes_out - b) / IDLE_SECONDS for node, b in zip(table.nodes.values(), start,
                                                                               strict=True)]
        result.idle_bps_mean, result.idle_bps_max = statistics.mean(rates), max(rates)
    finally:
        await table.close()
    if n >= 3:
        trial = [await loop_failover(n, loss, seed + 1000 * (t + 1)) for t in range(trials)]
        result.elected_s, result.failover_s = [e for e, _ in trial], [f for _, f in trial]
    else:
        result.notes.append("no failover with 2 peers: one alone is not a majority")
    result.catchup_s, result.catchup_entries = await loop_catchup(n, loss, actions // 2, seed + 77)
    return result


async def loop_failover(n: int, loss: float, seed: int) -> tuple[float, float]:
    """(seconds to elect a new sequencer, seconds until the move in flight is applied)."""
    table = LoopTable(n, loss, seed)
    try:
        await table.start()
        h = table.harness
        await table.wait(lambda: h.timed >= 5, 60)
        old = table.leader()
        crash: dict[str, float] = {}

        def before(name: str) -> None:
            if not crash and name != old:
                crash["t"], crash["n"] = time.monotonic(), len(h.proposals)
                table.nodes[old].halt()  # stops at once, like a kill; the sockets close at the end

        h.before_propose = before
        if not await table.wait(lambda: bool(crash) and any(p.is_sequencer for p in table.peers().values()),
                                60):
            return float("nan"), float("nan")
        elected = time.monotonic() - crash["t"]
        if not await table.wait(lambda: h.proposals[int(crash["n"])].latency is not None, 60):
            return elected, float("nan")
        return elected, float(time.monotonic() - crash["t"])
    finally:
        await table.close()


async def loop_catchup(n: int, loss: float, gap: int, seed: int) -> tuple[float, int]:
    if n < 3:
        return float("nan"), 0
    table = LoopTable(n, loss, seed, CATCHUP_TIMEOUTS)
    try:
        await table.start()
        h = table.harness
        await table.wait(lambda: h.timed >= 5, 60)
        victim = next(name for name, p in table.peers().items() if not p.is_sequencer)
        await table.crash(victim)
        leader = table.peers()[table.leader()]
        goal = leader.commit_index + gap
        await table.wait(lambda: leader.commit_index >= goal or leader.table.phase != PLAYING, 120)
        before = len(table.stores[victim].state.entries)
        start = time.monotonic()
        target = max(p.commit_index for p in table.peers().values())
        peer = await table.restart(victim)
        if not await table.wait(lambda: peer.commit_index >= target, 60):
            return float("nan"), target - before
        return float(time.monotonic() - start), target - before
    finally:
        await table.close()


# --- the report -----------------------------------------------------------------------------------


def fmt(value: float, digits: int = 1) -> str:
    return "-" if value != value else f"{value:.{digits}f}"


def report(results: list[Result]) -> str:
    head = (f"{'env':<9} {'peers':>5} {'loss':>5} {'acts':>5} {'p50 ms':>8} {'p95 ms':>8} {'max ms':>8} "
            f"{'B/act':>7} {'dg/act':>7} {'idle B/s':>9} {'seq B/s':>8} {'elect s':>10} {'failover s':>11} "
            f"{'catch-up':>12}")
    lines = [head]
    for r in results:
        fo, el = spread(r.failover_s), spread(r.elected_s)
        cu = "-" if r.catchup_s != r.catchup_s else f"{r.catchup_s:.2f}s/{r.catchup_entries}e"
        lines.append(f"{r.env:<9} {r.peers:>5} {r.loss:>4}% {r.actions:>5} {fmt(r.p50_ms):>8} "
                     f"{fmt(r.p95_ms):>8} {fmt(r.max_ms):>8} {fmt(r.bytes_per_action, 0):>7} "
                     f"{fmt(r.datagrams_per_action):>7} "
                     f"{fmt(r.idle_bps_mean, 0):>9} {fmt(r.idle_bps_max, 0):>8} {el:>10} {fo:>11} {cu:>12}")
    lines.append("elect: kill of the sequencer to a new one; failover: kill to the move in flight applied "
                 "on every survivor (median/max of the trials, 'stuck': none in 60 s); catch-up: seconds/"
                 "entries fetched by a restarted follower; idle: B/s sent, mean per peer and the sequencer's")
    for r in results:
        for note in r.notes:
            lines.append(f"  {r.env} {r.peers} peers {r.loss}%: {note}")
    lines.append(targets(results))
    return "\n".join(lines)


def spread(values: list[float]) -> str:
    done = [v for v in values if v == v]
    if not values:
        return "-"
    if len(done) < len(values):
        return f"{len(values) - len(done)} stuck"
    return f"{statistics.median(done):.2f}/{max(done):.2f}"


def targets(results: list[Result]) -> str:
    def find(env: str, peers: int, loss: int) -> Result | None:
        return next((r for r in results if (r.env, r.peers, r.loss) == (env, peers, loss)), None)

    checks = []
    lo = find("loopback", 10, 0)
    if lo:
        checks.append(f"loopback 0% 10 peers p95 {fmt(lo.p95_ms)} ms (target < 20): "
                      f"{'met' if lo.p95_ms < 20 else 'NOT met'}")
    sim = find("sim", 10, 20)
    if sim:
        checks.append(f"sim 20% 10 peers p95 {fmt(sim.p95_ms)} ms (target < 300): "
                      f"{'met' if sim.p95_ms < 300 else 'NOT met'}")
    fails = [f if f == f else float("inf") for r in results for f in r.failover_s]
    if fails:
        worst = max(fails)
        checks.append(f"failover max {fmt(worst, 2)} s (target < 2): {'met' if worst < 2 else 'NOT met'}")
    idle = [r.idle_bps_max for r in results if r.idle_bps_max == r.idle_bps_max]
    if idle:
        checks.append(f"idle max {fmt(max(idle), 0)} B/s per peer (target < 1000): "
                      f"{'met' if max(idle) < 1000 else 'NOT met'}")
    return "targets: " + "; ".join(checks)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--actions", type=int, default=200, help="timed actions per simulated case [200]")
    parser.add_argument("--loop-actions", type=int, default=100, help="timed actions per loopback case [100]")
    parser.add_argument("--peers", default="2,4,10", help="peer counts [2,4,10]")
    parser.add_argument("--loss", default="0,20,30", help="loss rates in percent [0,20,30]")
    parser.add_argument("--only", choices=["sim", "loopback"], default=None)
    parser.add_argument("--trials", type=int, default=3, help="failover trials per case [3]")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", action="store_true", help="print the results as JSON")
    parser.add_argument("--flood", action="store_true",
                        help="only the rows of a table with and without a stranger's flood")
    parser.add_argument("--fuzz", type=int, default=0, metavar="RATE",
                        help="only the loopback rows of a table with and without RATE fuzzed datagrams "
                             "a second (the longest gap with nothing applied)")
    args = parser.parse_args()
    peers = [int(x) for x in args.peers.split(",")]
    losses = [int(x) / 100 for x in args.loss.split(",")]
    results: list[Result] = []
    if args.flood:
        print(sim_flood(4, args.actions, args.seed))
        return
    if args.fuzz:
        for rate in (0, args.fuzz):
            print(sim_fuzz(4, args.actions, args.seed, rate), flush=True)
        for rate in (0, args.fuzz):
            print(asyncio.run(loop_fuzz(4, args.loop_actions, args.seed, rate)), flush=True)
        return
    for env in ("sim", "loopback"):
        if args.only not in (None, env):
            continue
        for n in peers:
            for loss in losses:
                started = time.monotonic()
                if env == "sim":
                    r = sim_case(n, loss, args.actions, args.trials, args.seed)
                else:
                    r = asyncio.run(loop_case(n, loss, args.loop_actions, args.trials, args.seed))
                results.append(r)
                print(f"{env} {n} peers {round(100 * loss)}% loss: {time.monotonic() - started:.1f} s",
                      file=sys.stderr)
    print(json.dumps([asdict(r) for r in results]) if args.json else report(results))


if __name__ == "__main__":
    main()
