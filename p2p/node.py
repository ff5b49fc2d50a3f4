"""The asyncio adapter: a sans-I/O ``Peer`` on real UDP sockets.

A ``Node`` owns one unicast socket (bound to ``0.0.0.0`` on a given or ephemeral port) and,
unless told otherwise, the shared discovery socket (the well-known port 47474 with
``SO_REUSEADDR``, ``SO_REUSEPORT`` and ``SO_BROADCAST``, so that every peer on a host hears
every beacon). Both are created here and handed to ``asyncio_dgram.from_socket``. Every
datagram received on either goes to ``peer.receive``; beacons also go to the node's
``Discovery``. A timer (``loop.call_later``, re-armed from every ``Output.deadline``) calls
``peer.timer`` at the peer's deadline. Datagrams to ``BROADCAST`` go to every broadcast
address on the discovery port (sent from the discovery socket). ``Home`` is the config dir:
the identity key and the table log (``p2p.store.FileStore``).

Receive and send loops survive ``OSError``: asyncio-dgram re-raises an error of an earlier
send on the next call, so each one is caught, counted in ``stats.errors`` and the loop goes
on. Nothing the network does stops a node; only ``close()`` does.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import os
import socket
import time
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import asyncio_dgram

from cardtable.p2p import wire
from cardtable.p2p.discovery import DISCOVERY_PORT, Discovery, broadcast_addresses
from cardtable.p2p.identity import Identity, default_home
from cardtable.p2p.peer import BROADCAST
from cardtable.p2p.store import FileStore
from cardtable.p2p.table import OVER, TableState

Addr = tuple[str, int]

BROADCAST_REFRESH = 30.0
"""Seconds between re-reading the interfaces' broadcast addresses."""


def udp_socket(host: str = "0.0.0.0", port: int = 0, *, shared: bool = False) -> socket.socket:
    """A non-blocking IPv4 UDP socket bound to ``(host, port)`` that may send broadcasts.

    ``shared`` sets ``SO_REUSEADDR`` and ``SO_REUSEPORT`` so that several sockets (of this
    and other processes) can bind the same port; each then gets a copy of every broadcast.
    """
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        if shared:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            if hasattr(socket, "SO_REUSEPORT"):
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_BROADCAST, 1)
        sock.setblocking(False)
        sock.bind((host, port))
    except OSError:
        sock.close()
        raise
    return sock


@dataclass
class Stats:
    """What went over a node's sockets (bytes are UDP payloads)."""

    datagrams_out: int = 0
    bytes_out: int = 0
    datagrams_in: int = 0
    bytes_in: int = 0
    errors: Counter[str] = field(default_factory=Counter)

    def error(self, where: str, err: BaseException) -> None:
        code = getattr(err, "errno", None)
        name = errno.errorcode.get(code, type(err).__name__) if isinstance(code, int) else type(err).__name__
        self.errors[f"{where}:{name}"] += 1


class _Endpoint:
    """One asyncio-dgram stream with a receive loop and an ordered send queue."""

    def __init__(self, stream: Any, stats: Stats, on_datagram: Callable[[bytes, Addr], None], where: str):
        self.stream = stream
        self.stats = stats
        self.where = where
        self.on_datagram = on_datagram
        self.queue: asyncio.Queue[tuple[bytes, Addr]] = asyncio.Queue()
        self.tasks = [asyncio.create_task(self._receive_loop()), asyncio.create_task(self._send_loop())]

    @property
    def port(self) -> int:
        return int(self.stream.sockname[1])

    def send(self, data: bytes, addr: Addr) -> None:
        self.queue.put_nowait((data, addr))

    async def _receive_loop(self) -> None:
        while True:
            try:
                data, addr = await self.stream.recv()
            except asyncio_dgram.TransportClosed:
                return
            except OSError as err:  # an earlier failed send, re-raised here: count it, go on
                self.stats.error(f"{self.where}-recv", err)
                continue
            self.stats.datagrams_in += 1
            self.stats.bytes_in += len(data)
            try:
                self.on_datagram(data, (addr[0], addr[1]))
            except Exception as err:  # the core promises not to raise; a bug must not kill the node
                self.stats.error("handler", err)

    async def _send_loop(self) -> None:
        while True:
            data, addr = await self.queue.get()
            for _attempt in range(2):  # a pending error of an earlier send may stop this one: retry once
                try:
                    await self.stream.send(data, addr)
                except asyncio_dgram.TransportClosed:
                    return
                except OSError as err:
                    self.stats.error(f"{self.where}-send", err)
                    continue
                self.stats.datagrams_out += 1
                self.stats.bytes_out += len(data)
                break

    async def drain(self, timeout: float = 0.5) -> None:
        """Wait (a little) until everything queued has been handed to the kernel."""
        deadline = time.monotonic() + timeout
        while not self.queue.empty() and time.monotonic() < deadline:
            await asyncio.sleep(0.005)

    def close(self) -> None:
        for task in self.tasks:
            task.cancel()
        self.stream.close()


class DiscoveryListener:
    """The shared discovery socket on its own: hears beacons into a ``Discovery``."""

    def __init__(self, passphrase: str | None = None, clock: Callable[[], float] = time.monotonic) -> None:
        self.discovery = Discovery(passphrase)
        self.clock = clock
        self.received = 0
        self.stats = Stats()
        self.endpoint: _Endpoint | None = None

    @classmethod
    async def open(cls, port: int = DISCOVERY_PORT, passphrase: str | None = None, host: str = "0.0.0.0",
                   clock: Callable[[], float] = time.monotonic) -> DiscoveryListener:
        self = cls(passphrase, clock)
        stream = await asyncio_dgram.from_socket(udp_socket(host, port, shared=True))
        self.endpoint = _Endpoint(stream, self.stats, self._heard, "discovery")
        return self

    def _heard(self, data: bytes, addr: Addr) -> None:
        self.received += 1
        self.discovery.receive(data, addr, self.clock())

    async def listen(self, seconds: float, until: Callable[[], bool] | None = None) -> None:
        """Listen for ``seconds`` (or until ``until()`` holds, checked every 50 ms)."""
        end = self.clock() + seconds
        while self.clock() < end:
            if until is not None and until():
                return
            await asyncio.sleep(min(0.05, max(0.0, end - self.clock())))

    def close(self) -> None:
        if self.endpoint is not None:
            self.endpoint.close()


async def send_beacons(datagrams: Iterable[bytes], addresses: Sequence[str],
                       port: int = DISCOVERY_PORT) -> None:
    """Broadcast ``datagrams`` once to every address in ``addresses`` (for tests and tools)."""
    stream: Any = await asyncio_dgram.from_socket(udp_socket())
    try:
        for data in datagrams:
            for address in addresses:
                with contextlib.suppress(OSError):
                    await stream.send(data, (address, port))
    finally:
        stream.close()


class Node:
    """One peer on the network: sockets, receive loops, the timer, the broadcasts.

    Open the sockets first (``await node.open()``; ``node.port`` is then known), build the
    peer, then ``node.attach(peer, output)`` with the output its constructor returned (if any).
    ``on_event`` is called with every peer event; ``drop(datagram, addr)``, if given, throws
    away the received datagrams for which it returns True (simulated loss for benchmarks).
    """

    def __init__(self, *, host: str = "0.0.0.0", port: int = 0, discovery_port: int = DISCOVERY_PORT,
                 broadcast: Sequence[str] | None = None, passphrase: str | None = None,
                 listen_discovery: bool = True, clock: Callable[[], float] = time.monotonic,
                 on_event: Callable[[Any], None] | None = None,
                 drop: Callable[[bytes, Addr], bool] | None = None) -> None:
        self.host = host
        self.requested_port = port
        self.discovery_port = discovery_port
        self.fixed_broadcast = list(broadcast) if broadcast else None
        self.broadcast = self.fixed_broadcast or []
        self.listen_discovery = listen_discovery
        self.clock = clock
        self.on_event = on_event
        self.drop = drop
        self.dropped_in = 0
        self.discovery_error: OSError | None = None
        self.discovery = Discovery(passphrase, derive=False)  # its own table's key only: see attach
        self.stats = Stats()
        self.peer: Any = None
        self.event_counts: Counter[str] = Counter()
        self.changed = asyncio.Event()
        self.closed = False
        self._unicast: _Endpoint | None = None
        self._disc: _Endpoint | None = None
        self._deadline: float | None = None
        self._timer: asyncio.TimerHandle | None = None
        self._refresher: asyncio.Task[None] | None = None

    # --- sockets ---------------------------------------------------------------------------
    async def open(self) -> None:
        """Bind the unicast socket (an error is raised) and the discovery socket (an error is
        kept in ``discovery_error``: the peer still works, it only hears no beacons)."""
        self._unicast = _Endpoint(await asyncio_dgram.from_socket(udp_socket(self.host, self.requested_port)),
                                  self.stats, self._datagram, "unicast")
        if self.listen_discovery:
            try:
                sock = udp_socket(self.host, self.discovery_port, shared=True)
            except OSError as err:  # another program holds the port without sharing it
                self.discovery_error = err
            else:
                stream = await asyncio_dgram.from_socket(sock)
                self._disc = _Endpoint(stream, self.stats, self._beacon, "discovery")
        if self.fixed_broadcast is None:
            self.broadcast = await asyncio.to_thread(broadcast_addresses)
            self._refresher = asyncio.create_task(self._refresh_broadcast())

    @property
    def port(self) -> int:
        assert self._unicast is not None, "open() first (and not closed)"
        return self._unicast.port

    async def _refresh_broadcast(self) -> None:
        while True:
            await asyncio.sleep(BROADCAST_REFRESH)
            with contextlib.suppress(Exception):
                self.broadcast = await asyncio.to_thread(broadcast_addresses)

    # --- the peer ----------------------------------------------------------------------------
    def attach(self, peer: Any, output: Any = None) -> None:
        """Drive ``peer`` from now on; ``output`` is what building it returned, if anything.

        The peer's ``port`` (put in its beacons) is set to this node's unicast port; its table's
        key opens that table's beacons in ``discovery`` (which derives no key: a derivation
        takes about 0.1 s of the loop that plays the table, see ``p2p.seal``).
        """
        self.peer = peer
        peer.port = self.port
        if getattr(peer, "pass_key", None) is not None:
            self.discovery.keys.pin(peer.pass_key)
        if hasattr(peer, "stamps"):  # stamps follow the wall clock (p2p.freshness)
            peer.stamps.offset = time.time() - self.clock()
        if output is not None:
            self.handle(output)
        else:
            self.handle(peer.timer(self.clock()))

    def propose(self, action: str) -> None:
        """Propose a game action for this peer's seat."""
        self.handle(self.peer.propose_action(action, self.clock()))

    def leave(self) -> None:
        self.handle(self.peer.leave(self.clock()))

    def say(self, text: str) -> None:
        """Propose a chat line (``Peer.say``)."""
        self.handle(self.peer.say(text, self.clock()))

    def emote(self, name: str) -> None:
        """Propose a quick emote (``Peer.emote``)."""
        self.handle(self.peer.emote(name, self.clock()))

    def control(self, name: str, *args: Any) -> None:
        """Use a lobby control or agree to a rematch (``Peer.start_now``, ``free_seat``,
        ``set_options``, ``agree_rematch``: ``p2p/lobby_controls.py``)."""
        self.handle(getattr(self.peer, name)(*args, self.clock()))

    def _datagram(self, data: bytes, addr: Addr) -> None:
        if self.drop is not None and self.drop(data, addr):  # simulated loss (benchmarks)
            self.dropped_in += 1
            return
        if self.peer is not None and not self.closed:
            self.handle(self.peer.receive(data, addr, self.clock()))

    def _beacon(self, data: bytes, addr: Addr) -> None:
        self.discovery.receive(data, addr, self.clock())
        self._datagram(data, addr)

    def handle(self, output: Any) -> None:
        """Send what ``output`` says, set the timer to its deadline, record its events."""
        if self.closed:
            return
        for data, addr in output.send:
            self.send(data, addr)
        self._set_deadline(output.deadline)
        for event in output.events:
            self.event_counts[event.kind] += 1
            if self.on_event is not None:
                self.on_event(event)
        self.changed.set()

    def send(self, data: bytes, addr: Addr) -> None:
        assert self._unicast is not None
        if tuple(addr) == tuple(BROADCAST):
            out = self._disc or self._unicast
            for address in self.broadcast:
                out.send(data, (address, self.discovery_port))
        else:
            self._unicast.send(data, (addr[0], addr[1]))

    def _set_deadline(self, deadline: float | None) -> None:
        if deadline == self._deadline and self._timer is not None:
            return
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        self._deadline = deadline
        if deadline is not None:
            delay = max(0.0, deadline - self.clock())
            self._timer = asyncio.get_running_loop().call_later(delay, self._fire)

    def _fire(self) -> None:
        self._timer = None
        if self.peer is None or self.closed:
            return
        now = self.clock()
        if self._deadline is not None and now < self._deadline:  # early wake-up (clock skew): re-arm
            self._set_deadline(self._deadline)
            return
        self._deadline = None
        try:
            self.handle(self.peer.timer(now))
        except Exception as err:  # never lose the timer to a bug in the core
            self.stats.error("timer", err)
            self._set_deadline(now + 0.1)

    async def wait_for(self, predicate: Callable[[], bool], timeout: float | None = None) -> bool:
        """Run until ``predicate()`` holds (checked after every peer output); False on timeout."""
        end = None if timeout is None else self.clock() + timeout
        while not predicate():
            self.changed.clear()
            remaining = None if end is None else end - self.clock()
            if remaining is not None and remaining <= 0:
                return False
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.changed.wait(), remaining)
        return True

    def halt(self) -> None:
        """Stop the peer at once, as if its process died: nothing more is received, sent or
        timed (the sockets stay open until ``close``)."""
        self.closed = True
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    async def close(self) -> None:
        """Stop the timer and the loops, let queued datagrams out, close the sockets."""
        if self._unicast is not None and not self.closed:
            await self._unicast.drain()
        self.closed = True
        if self._timer is not None:
            self._timer.cancel()
        if self._refresher is not None:
            self._refresher.cancel()
        for endpoint in (self._unicast, self._disc):
            if endpoint is not None:
                endpoint.close()
        self._unicast = self._disc = None
        await asyncio.sleep(0)


# --- the config dir ---------------------------------------------------------------------------


@dataclass
class StoredTable:
    """What the table log kept in a config dir says: which table, how far, whether it is ours."""

    table_id: bytes
    name: str
    phase: str
    game: str
    entries: int
    committed: int
    seated: bool
    passphrase: bool | None = None  # whether the table was played with a passphrase (None: not recorded)
    left: bool = False  # this peer left it (its seat, kept after the lobby, comes back with ``join``)

    @property
    def resumable(self) -> bool:
        """An unfinished table this peer is (or was about to be) seated at and did not leave."""
        return self.seated and self.phase != OVER and not self.left

    @property
    def away(self) -> bool:
        """An unfinished table this peer left whose seat is kept for it (``Peer.come_back``)."""
        return self.seated and self.phase != OVER and self.left


class HomeBusy(OSError):
    """Another process holds the config dir (``Home.lock``)."""

    def __init__(self, path: Path) -> None:
        super().__init__(f"another cardtable process is using {path}")
        self.path = path


class Home:
    """The config dir: ``identity.key``, the current table's log ``table.log``, and
    ``tables/`` where finished or abandoned logs are kept (``<table id>.log``)."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = Path(path) if path is not None else default_home()
        self.store_path = self.path / "table.log"

    def identity(self) -> Identity:
        return Identity.load_or_create(self.path / "identity.key")

    def lock(self) -> None:
        """Hold the config dir for this process (until it exits or ``unlock``): one process per
        home, since two would write one store under one identity. Raises ``HomeBusy`` if another
        process holds it."""
        import fcntl

        self.path.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.path / "lock", os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)
            raise HomeBusy(self.path) from None
        self._lock_fd: int | None = fd

    def unlock(self) -> None:
        fd = getattr(self, "_lock_fd", None)
        if fd is not None:
            os.close(fd)
            self._lock_fd = None

    def store(self) -> FileStore:
        return FileStore(self.store_path)

    def stored(self, key: bytes, path: Path | None = None) -> StoredTable | None:
        """The table in ``table.log`` (or the log at ``path``) as seen by the peer ``key`` (None:
        no readable log)."""
        path = path or self.store_path
        if not path.exists():
            return None
        try:
            stored = FileStore(path).load()
            entries = [wire.decode_entry(raw) for raw in stored.entries]
        except (OSError, ValueError):
            return None
        if not entries:
            return None
        committed = min(int(stored.meta.get("commit", 0) or 0), len(entries))
        sealed = stored.meta.get("passphrase")
        table = TableState()
        for entry in entries[:committed]:
            table.apply(entry)
        mine = [e.decoded.kind for e in entries if e.decoded.author == key]
        seated = table.seat_of(key) is not None or (
            bool(mine) and mine[-1] in ("create", "join") and "leave" not in mine)
        config = table.config
        return StoredTable(entries[0].decoded.table_id, table.name, table.phase,
                           config.game if config is not None else "?", len(entries), committed, seated,
                           sealed if isinstance(sealed, bool) else None, bool(stored.meta.get("left")))

    def left_at(self, key: bytes, table_id: bytes) -> bool:
        """Whether ``key`` left the table ``table_id`` with its seat kept (by the log in
        ``table.log``, or one archived in ``tables/``): the seat it may come back to."""
        paths = [self.store_path, *sorted((self.path / "tables").glob(f"{table_id.hex()}*.log"))]
        return any(s is not None and s.table_id == table_id and s.away
                   for s in (self.stored(key, p) for p in paths))

    def archive(self) -> Path | None:
        """Move ``table.log`` to ``tables/`` (named by table id); returns where it went."""
        if not self.store_path.exists():
            return None
        from cardtable.p2p import wire
        name = f"unknown-{int(time.time())}"
        with contextlib.suppress(OSError, ValueError, IndexError):
            first = FileStore(self.store_path).load().entries[0]
            name = wire.decode_entry(first).decoded.table_id.hex()
        target = self.path / "tables" / f"{name}.log"
        target.parent.mkdir(parents=True, exist_ok=True)
        n = 1
        while target.exists():
            target = target.with_name(f"{name}.{n}.log")
            n += 1
        self.store_path.replace(target)
        return target
