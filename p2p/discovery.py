"""LAN discovery: beacons, the list of tables heard, and where to broadcast (sans-I/O).

A table's sequencer broadcasts a ``BEACON`` (message type 1, docs/protocol.md section 2)
about once a second to the well-known discovery port on every interface's broadcast address
and on ``127.255.255.255`` (peers on one host). ``Discovery`` turns the beacons it is given
into a list of tables, forgets a table it has not heard from for ``ttl`` seconds, and finds
a table by name, id prefix or address. It never touches a socket or a clock: the
caller passes every datagram and the time (``time.monotonic()``).

With a passphrase, beacons are sealed (``p2p/seal.py``): a listener opens a beacon with the
key of the salt in its clear head, derived from its passphrase within the bounds of a
``seal.Keyring``. Anyone can send datagrams that look sealed, with any salt, so a salt is
worth a derivation only when the beacon's name tag holds for the name sought (``sought``:
``join NAME``), or when the salt is heard again at a beacon's rate (``RECUR_GAP``), not in a
burst. Only salts heard again are counted as tables not opened (``locked``), and a
passphrase is called wrong (``refused``, ``shut``) only when a salt heard again fails to open
again and never opens. A beacon of another wire version is dropped (``version``) but
remembered, with its name when it is a clear beacon whose signature holds (``other_versions``).
"""

from __future__ import annotations

import dataclasses
import ipaddress
import json
import shutil
import socket
import struct
import subprocess
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from cardtable.engine.games import compact_config, config_from_dict
from cardtable.p2p import seal, wire

DISCOVERY_PORT = 47474
"""The well-known UDP port every peer listens on for beacons (shared with SO_REUSEPORT)."""
LOOPBACK_BROADCAST = "127.255.255.255"
LIMITED_BROADCAST = "255.255.255.255"
BEACON_TTL = 4.0
"""Seconds a table stays listed after its last beacon (beacons come about once a second)."""
MAX_TABLES = 64
"""Tables listed at most: beacons of further new tables are dropped (``too many tables``)
before their signature is checked, so a flood of made-up tables costs bounded memory and no
Ed25519 verification once the list is full."""
MAX_TABLES_PER_KEY = 4
"""Tables one sequencer key may have listed at once: one key's flood does not fill the list."""
MAX_ADDRS = 4
"""Addresses kept per table."""
RECUR_GAP = 0.5
"""A salt heard again at least this long after it was first heard (and within the ttl) is
heard at a beacon's rate (beacons come every 1-2 s): a flood of new salts is not."""
MAX_SALTS = 256
"""Salts heard once that are remembered (the oldest forgotten first): at 100 new salts a second a
table's salt is still there when its next beacon comes."""
MAX_VERSIONS = 8
"""Other wire versions remembered, with at most ``MAX_ADDRS`` table names each."""

Addr = tuple[str, int]


class BeaconError(ValueError):
    """A datagram that is not a valid beacon (the reason is the message)."""


_CLEAR = seal.Seal(b"", b"")
"""The key tried on a clear datagram when there is a passphrase: it opens nothing."""


Beacon = wire.Beacon


def encode_beacon(beacon: Beacon, sign: Callable[[bytes], bytes], pass_key: seal.Seal | None = None,
                  stamp: int = 1) -> bytes:
    """The beacon as one datagram, signed with ``sign`` (the sequencer's ``Identity.sign``) and
    sealed with ``pass_key`` (the table's ``seal.for_table``); its config goes in the short form
    (``compact_config``) and comes back whole from ``decode_beacon``."""
    fields = [beacon.table_id, beacon.key, beacon.term, beacon.name,
              compact_config(config_from_dict(beacon.config)), beacon.taken, beacon.total, beacon.port,
              beacon.phase]
    return wire.encode(wire.BEACON, fields, sign, pass_key and pass_key.for_beacon(beacon.name), stamp)


def decode_beacon(data: bytes, passphrase: str | None = None) -> Beacon:
    """The beacon in ``data``, or ``BeaconError`` saying why it is not one (never another error).

    The seal (with a passphrase: the key of the beacon's salt, derived) and the sequencer's
    signature are both checked.
    """
    salt = wire.sealed_salt(data)
    if passphrase is None or salt is None:
        return _decode(data, None if passphrase is None else _CLEAR)
    return _decode(data, seal.derive(passphrase, salt))


def _decode(data: bytes, pass_key: seal.Seal | None,
            admit: Callable[[wire.Packet], str] | None = None) -> Beacon:
    """The checked beacon; ``admit(packet)`` may refuse it (a reason) before its signature is checked."""
    try:
        packet = wire.decode(data, pass_key)
    except wire.WireError as err:
        raise BeaconError(err.reason) from None
    msg = packet.msg
    if not isinstance(msg, wire.Beacon):
        raise BeaconError("not a beacon")
    if pass_key is not None and pass_key.salt != seal.table_salt(msg.table_id):
        raise BeaconError("malformed")  # sealed with another table's salt
    reason = admit(packet) if admit is not None else ""
    if reason:
        raise BeaconError(reason)
    if not packet.authentic():
        raise BeaconError("forged")
    if msg.taken > msg.total:
        raise BeaconError("malformed")
    try:
        config = config_from_dict(msg.config).to_dict()  # beacons carry it short: compact_config
    except (ValueError, TypeError):
        raise BeaconError("bad config") from None
    return dataclasses.replace(msg, config=config, stamp=packet.stamp)


# --- the tables heard -------------------------------------------------------------------


@dataclass
class TableHeard:
    """A table some beacon told us about, and when and from where we last heard it."""

    table_id: bytes
    name: str
    config: dict[str, Any]
    taken: int
    total: int
    host_key: bytes
    term: int
    phase: str
    addr: Addr
    first_heard: float
    last_heard: float
    beacons: int = 0
    stamp: int = 0
    _addrs: dict[Addr, float] = field(default_factory=dict, repr=False)

    @property
    def id_hex(self) -> str:
        return self.table_id.hex()

    @property
    def short_id(self) -> str:
        return self.table_id.hex()[:8]

    @property
    def game(self) -> str:
        game = self.config.get("game")
        return game if isinstance(game, str) else "?"

    @property
    def edition(self) -> str:
        """The SOLO edition, or ``-`` for a game without editions."""
        edition = self.config.get("edition")
        return edition if isinstance(edition, str) else "-"

    @property
    def free(self) -> int:
        return max(0, self.total - self.taken)

    @property
    def host(self) -> str:
        """The sequencer's key, shortened (its fingerprint)."""
        return self.host_key.hex()[:8]

    def to_json(self) -> dict[str, Any]:
        return {"table_id": self.id_hex, "name": self.name, "game": self.game, "edition": self.edition,
                "config": self.config, "seats_taken": self.taken, "seats_total": self.total,
                "seats_free": self.free, "phase": self.phase, "host_key": self.host_key.hex(),
                "host": self.host, "term": self.term, "address": f"{self.addr[0]}:{self.addr[1]}"}


@dataclass
class _Salt:
    """When a salt was heard (this streak: since it was last silent for the ttl), when a beacon
    with it opened, and when its key failed to open one (this streak)."""

    first: float
    last: float
    opened: float = float("-inf")
    failed_first: float = float("-inf")
    failed_last: float = float("-inf")
    named: bool = False

    def hear(self, now: float, ttl: float) -> None:
        if now - self.last > ttl:
            self.first = now
        self.last = now

    def fail(self, now: float, ttl: float) -> None:
        if now - self.failed_last > ttl:
            self.failed_first = now
        self.failed_last = now

    @property
    def recurring(self) -> bool:
        return self.last - self.first >= RECUR_GAP

    def live(self, now: float, ttl: float) -> bool:
        return now - self.last <= ttl

    def shut(self, now: float, ttl: float) -> bool:
        """Its key failed again and again (at a beacon's rate) and opened nothing lately."""
        return (self.failed_last - self.failed_first >= RECUR_GAP and now - self.failed_last <= ttl
                and now - self.opened > ttl)


@dataclass
class _Version:
    """Beacons of another wire version: when heard, and the names of those that could be read."""

    first: float
    last: float
    names: list[str] = field(default_factory=list)
    tried: int = 0  # signatures checked: at most MAX_TABLES, so a flood of them costs no more


class Discovery:
    """The tables heard on the LAN, from the beacons given to ``receive``.

    Beacons must carry a valid sequencer signature; with a passphrase only beacons sealed
    with it are heard, without one sealed beacons are dropped (they cannot be opened).
    Every dropped datagram is counted in ``dropped[reason]``; the salts of sealed datagrams
    are remembered (``MAX_SALTS`` heard once, ``MAX_TABLES`` heard again, for ``ttl``) to
    decide which are worth a key and to say how many tables could not be opened
    (``locked``, ``refused``). ``derive=False``: no key is derived, only pinned ones are used
    (``keys.pin``: a playing node's own table). ``sought``: a table name (any case) that a
    full list still makes room for, in place of the table heard longest ago, so a flood of
    made-up tables with other names does not hide the table a joiner looks for; with a
    passphrase, beacons with its name tag are opened first (``seal.Keyring.named``).
    """

    def __init__(self, passphrase: str | None = None, ttl: float = BEACON_TTL, derive: bool = True) -> None:
        self.keys = seal.Keyring(passphrase, **({} if derive else {"burst": 0}))
        self.ttl = ttl
        self.dropped: Counter[str] = Counter()
        self._tables: dict[bytes, TableHeard] = {}
        self._once: dict[bytes, _Salt] = {}
        self._again: dict[bytes, _Salt] = {}
        self._versions: dict[int, _Version] = {}
        self._sought: str | None = None

    @property
    def sought(self) -> str | None:
        return self._sought

    @sought.setter
    def sought(self, name: str | None) -> None:
        self._sought = name
        self.keys.name = None if name is None else name.strip()

    # --- salts -------------------------------------------------------------------------------
    def _salts(self, now: float) -> list[_Salt]:
        """The salts heard again at a beacon's rate, heard within the ttl, not opened since."""
        return [s for s in self._again.values()
                if s.recurring and s.live(now, self.ttl) and now - s.opened > self.ttl]

    def locked(self, now: float) -> int:
        """How many tables with a passphrase (distinct salts heard again at a beacon's rate) were
        heard in the last ``ttl`` seconds without being opened. Anyone can send such datagrams:
        this is a hint for the user, not a fact."""
        return len(self._salts(now))

    def refused(self, now: float) -> int:
        """How many of the ``locked`` salts were tried with this passphrase and failed again and
        again (a wrong passphrase, or a stranger repeating one made-up salt)."""
        return sum(1 for s in self._salts(now) if s.shut(now, self.ttl))

    def pending(self, now: float) -> int:
        """Salts heard lately whose name tag holds for ``sought`` but that neither opened nor
        failed yet (their key waits for the budget): ``join NAME`` waits for them."""
        return sum(1 for s in [*self._once.values(), *self._again.values()]
                   if s.named and s.live(now, self.ttl) and now - s.opened > self.ttl
                   and now - s.failed_last > self.ttl)

    def shut(self, salt: bytes, now: float) -> bool:
        """Whether beacons with ``salt`` failed to open again and again at a beacon's rate in the
        last ``ttl`` seconds and none opened (for the salt of a key held: another passphrase)."""
        heard = self._again.get(salt) or self._once.get(salt)
        return heard is not None and heard.shut(now, self.ttl)

    def _hear(self, salt: bytes, now: float) -> _Salt:
        heard = self._again.get(salt)
        if heard is not None:
            heard.hear(now, self.ttl)
            return heard
        heard = self._once.pop(salt, None)
        if heard is None:
            heard = _Salt(now, now)
        heard.hear(now, self.ttl)
        if not heard.recurring:
            self._once[salt] = heard  # the newest last: the oldest goes first
            while len(self._once) > MAX_SALTS:
                del self._once[next(iter(self._once))]
            return heard
        self._again[salt] = heard
        while len(self._again) > MAX_TABLES:
            del self._again[min(self._again, key=lambda k: self._again[k].last)]
        return heard

    def _key(self, salt: bytes, datagram: bytes, now: float) -> seal.Seal | None:
        """The key to try on a sealed datagram, within the bounds (None, counted: none now)."""
        heard = self._hear(salt, now)
        key = self.keys.held(salt)
        if key is not None:
            return key
        if self.keys.passphrase is None:
            self.dropped["passphrase"] += 1
            return None
        heard.named = heard.named or self.keys.named(datagram, wire.HEAD_BYTES)
        if not heard.named and not heard.recurring:
            self.dropped["salt heard once"] += 1  # worth a key when it comes again, as beacons do
            return None
        key = self.keys.get(salt, now, named=heard.named)
        if key is None:
            self.dropped["busy"] += 1
        return key

    # --- other wire versions -----------------------------------------------------------------
    def _other_version(self, datagram: bytes, now: float) -> bool:
        """Remember a datagram of another wire version (the name of a clear beacon that checks
        out under this version's codec); False if it is not one."""
        if len(datagram) <= wire.HEAD_BYTES or datagram[:2] != wire.MAGIC or datagram[2] == wire.VERSION:
            return False
        self.dropped["version"] += 1
        version = datagram[2]
        heard = self._versions.get(version)
        if heard is None:
            if len(self._versions) >= MAX_VERSIONS:
                return True
            heard = self._versions[version] = _Version(now, now)
        if now - heard.last > self.ttl:
            heard.first = now
        heard.last = now
        if len(heard.names) < MAX_ADDRS and heard.tried < MAX_TABLES and not datagram[3]:
            heard.tried += 1
            try:
                name = _decode(datagram[:2] + bytes((wire.VERSION,)) + datagram[3:], None).name
            except BeaconError:
                return True
            if name not in heard.names:
                heard.names.append(name)
        return True

    def other_versions(self) -> list[tuple[int, str | None]]:
        """(wire version, table name) of the beacons of other versions heard: every name read,
        or None for a version heard again at a beacon's rate whose beacons could not be read."""
        out: list[tuple[int, str | None]] = []
        for version, heard in sorted(self._versions.items()):
            if heard.names:
                out += [(version, name) for name in heard.names]
            elif heard.last - heard.first >= RECUR_GAP:
                out.append((version, None))
        return out

    # --- beacons -----------------------------------------------------------------------------
    def receive(self, datagram: bytes, addr: Addr, now: float) -> TableHeard | None:
        """Record the beacon in ``datagram`` sent from ``addr``; None (and a count) if it is not one."""
        if self._other_version(datagram, now):
            return None
        salt = wire.sealed_salt(datagram)
        key = None if self.keys.passphrase is None else _CLEAR
        if salt is not None:
            key = self._key(salt, datagram, now)
            if key is None:
                return None
        def admit(packet: wire.Packet) -> str:
            msg = packet.msg
            assert isinstance(msg, wire.Beacon)
            table = self._tables.get(msg.table_id)
            if table is None and len(self._tables) >= MAX_TABLES:
                self.expire(now)
                if len(self._tables) >= MAX_TABLES and not self._wanted(msg.name):
                    return "too many tables"
            mine = sum(t.host_key == msg.key for t in self._tables.values())
            if table is None and mine >= MAX_TABLES_PER_KEY:
                return "too many tables of one key"
            if table is not None and table.host_key == msg.key and packet.stamp < table.stamp:
                return "replayed"  # older than the newest (the newest is heard on every interface)
            return ""

        try:
            beacon = _decode(datagram, key, admit)
        except BeaconError as err:
            self.dropped[str(err)] += 1
            heard = None if salt is None else self._again.get(salt) or self._once.get(salt)
            if heard is not None and str(err) == "passphrase":
                heard.fail(now, self.ttl)
            return None
        if salt is not None:
            self.keys.opened(salt)
            heard = self._again.get(salt) or self._once.get(salt)
            if heard is not None:
                heard.opened = now
        return self.heard(beacon, addr, now)

    def heard(self, beacon: Beacon, addr: Addr, now: float) -> TableHeard | None:
        """Record a decoded beacon that came from ``addr``; None if an older term is speaking.

        The table's address is the sender's IP and the beacon's port (its source port if the
        beacon says 0). When two sequencers of one table are heard (the old one has not yet
        noticed a failover), the one with the higher term wins.
        """
        contact = (addr[0], beacon.port or addr[1])
        table = self._tables.get(beacon.table_id)
        if table is not None and beacon.term < table.term and now - table.last_heard <= self.ttl:
            self.dropped["old term"] += 1
            return None
        if table is None:
            if len(self._tables) >= MAX_TABLES:  # only a sought table gets this far
                unsought = [t for t in self._tables.values() if not self._wanted(t.name)]
                if not unsought:
                    self.dropped["too many tables"] += 1
                    return None
                del self._tables[min(unsought, key=lambda t: t.last_heard).table_id]
            table = TableHeard(beacon.table_id, beacon.name, beacon.config, beacon.taken, beacon.total,
                               beacon.key, beacon.term, beacon.phase, contact, now, now)
            self._tables[beacon.table_id] = table
        if beacon.key != table.host_key or beacon.term != table.term:
            table._addrs.clear()  # another sequencer (a failover), or the same one restarted
        table.name, table.config, table.phase = beacon.name, beacon.config, beacon.phase
        table.taken, table.total = beacon.taken, beacon.total
        table.host_key, table.term, table.stamp = beacon.key, beacon.term, beacon.stamp
        if contact not in table._addrs and len(table._addrs) >= MAX_ADDRS:
            others = [a for a in table._addrs if a != table.addr]  # the address in use stays
            del table._addrs[min(others, key=lambda a: table._addrs[a])]
        table._addrs[contact] = now
        table.last_heard = now
        table.beacons += 1
        # A host may be heard on several addresses (loopback and a LAN): prefer one other peers
        # can reach too (not loopback), and the one heard first, so the address stays put.
        live = [a for a, t in table._addrs.items() if now - t <= self.ttl]
        table._addrs = {a: table._addrs[a] for a in live}
        if table.addr not in table._addrs or _is_loopback(table.addr[0]):
            table.addr = next((a for a in live if not _is_loopback(a[0])), live[0])
        return table

    def _wanted(self, name: str) -> bool:
        return self.sought is not None and name.lower() == self.sought.strip().lower()

    def expire(self, now: float) -> list[TableHeard]:
        """Forget the tables silent for more than ``ttl`` seconds; returns them."""
        gone = [t for t in self._tables.values() if now - t.last_heard > self.ttl]
        for table in gone:
            del self._tables[table.table_id]
        return gone

    def tables(self, now: float | None = None) -> list[TableHeard]:
        """The tables heard (still alive at ``now`` when given), by name then id."""
        if now is not None:
            self.expire(now)
        return sorted(self._tables.values(), key=lambda t: (t.name.lower(), t.table_id))

    def get(self, table_id: bytes) -> TableHeard | None:
        return self._tables.get(table_id)

    def find(self, query: str) -> list[TableHeard]:
        """The tables ``query`` names: an exact name (any case), else an id prefix in hex."""
        query = query.strip()
        by_name = [t for t in self.tables() if t.name.lower() == query.lower()]
        if by_name:
            return by_name
        prefix = query.lower()
        if prefix and all(c in "0123456789abcdef" for c in prefix):
            return [t for t in self.tables() if t.id_hex.startswith(prefix)]
        return []

    def at(self, addr: Addr) -> list[TableHeard]:
        """The tables heard at ``addr`` (``HOST:PORT`` already resolved)."""
        return [t for t in self.tables() if addr == t.addr or addr in t._addrs]


def _is_loopback(host: str) -> bool:
    try:
        return ipaddress.IPv4Address(host).is_loopback
    except ValueError:
        return False


def parse_hostport(text: str) -> Addr | None:
    """``HOST:PORT`` (an IPv4 address or a host name) → (ip, port); None if ``text`` is not one."""
    host, sep, port = text.strip().rpartition(":")
    if not sep or not host or not port.isdigit() or not 0 < int(port) < 65536:
        return None
    try:
        return str(ipaddress.IPv4Address(host)), int(port)
    except ValueError:
        pass
    try:
        return socket.gethostbyname(host), int(port)
    except (OSError, UnicodeError):
        return None


# --- where to broadcast -------------------------------------------------------------------


def broadcast_addresses() -> list[str]:
    """The IPv4 broadcast address of every interface that is up, then ``127.255.255.255``.

    Read from ``ip -j addr`` when the ``ip`` command is there, else from the kernel with the
    SIOCGIFBRDADDR ioctl; ``255.255.255.255`` when neither finds any.
    """
    found = _from_ip_command()
    if found is None:
        found = _from_ioctl()
    if not found:
        found = [LIMITED_BROADCAST]
    return _unique(found + [LOOPBACK_BROADCAST])


def parse_ip_json(text: str) -> list[str]:
    """The broadcast addresses in ``ip -j addr`` output (interfaces up, loopback left out).

    An address without a ``broadcast`` field gets the top of its subnet (but not /31 or /32).
    """
    try:
        links = json.loads(text)
    except ValueError:
        return []
    out: list[str] = []
    if not isinstance(links, list):
        return out
    for link in links:
        if not isinstance(link, dict):
            continue
        flags = link.get("flags") or []
        if "UP" not in flags or "LOOPBACK" in flags:
            continue
        for info in link.get("addr_info") or []:
            if not isinstance(info, dict) or info.get("family") != "inet":
                continue
            brd = info.get("broadcast")
            if not brd:
                try:
                    net = ipaddress.IPv4Interface(f"{info.get('local')}/{info.get('prefixlen')}").network
                except ValueError:
                    continue
                if net.prefixlen >= 31:
                    continue
                brd = str(net.broadcast_address)
            try:
                address = ipaddress.IPv4Address(brd)
            except ValueError:
                continue
            if not address.is_loopback:
                out.append(str(address))
    return _unique(out)


def _from_ip_command() -> list[str] | None:
    ip = shutil.which("ip") or next((p for p in ("/usr/sbin/ip", "/sbin/ip") if shutil.which(p)), None)
    if ip is None:
        return None
    try:
        done = subprocess.run([ip, "-j", "-4", "addr", "show"], capture_output=True, text=True, timeout=2,
                              check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    if done.returncode != 0:
        return None
    return parse_ip_json(done.stdout)


def _from_ioctl() -> list[str]:
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not on Linux
        return []
    siocgifflags, siocgifbrdaddr = 0x8913, 0x8919
    iff_up, iff_broadcast, iff_loopback = 0x1, 0x2, 0x8
    out: list[str] = []
    try:
        names = [name for _, name in socket.if_nameindex()]
    except OSError:
        return out
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        for name in names:
            request = struct.pack("256s", name.encode()[:15])
            try:
                flags = struct.unpack_from("H", fcntl.ioctl(sock.fileno(), siocgifflags, request), 16)[0]
                if not flags & iff_up or not flags & iff_broadcast or flags & iff_loopback:
                    continue
                reply = fcntl.ioctl(sock.fileno(), siocgifbrdaddr, request)
            except OSError:
                continue
            out.append(socket.inet_ntoa(reply[20:24]))
    return _unique(out)


def _unique(items: list[str]) -> list[str]:
    return list(dict.fromkeys(items))
