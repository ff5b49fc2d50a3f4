"""The stranger on the namespace LAN: tests/p2p/test_netns_attack.py runs it in its own namespace.

It holds no key of the table. The bridge floods every frame to every port (a hub), so a
packet socket on its interface sees all the table's traffic: it keeps every cardtable
datagram it sees and, until it is sent SIGTERM,

- the term attack: every ``--every`` seconds, to every peer address it has seen, an
  ``APPEND`` carrying its own join and a ``VOTE_ASK``, each signed by a fresh key, with a
  huge term (the wire's limit, 2**62, 10**6, or the highest term seen plus one or plus
  2**20);
- the replay attack: ``--rate`` captured member datagrams a second, each resent from its
  own address to where it went, and a captured beacon re-broadcast every half second;
- the salt flood (``--salt-flood N``): N datagrams a second that look like sealed beacons,
  broadcast to the discovery port: half with a new salt each, half with one of a hundred
  salts that come back every two seconds, as a table's do. (Look-alikes with the table's own
  salt would only help a joiner find it: tests/p2p/test_door.py has them.)

On SIGTERM it prints one JSON line of what it saw and sent, and exits.
"""

from __future__ import annotations

import argparse
import json
import random
import select
import signal
import socket
import struct
import time
from typing import Any

from cardtable.p2p import wire
from cardtable.p2p.identity import Identity

ETH_P_ALL = 0x0003
DISCOVERY_PORT = 47474


def udp_of(frame: bytes) -> tuple[tuple[str, int], tuple[str, int], bytes] | None:
    """(source, destination, payload) of an Ethernet frame carrying an unfragmented IPv4 UDP datagram."""
    if len(frame) < 42 or frame[12:14] != b"\x08\x00" or frame[23] != 17:
        return None
    ip = frame[14:]
    if struct.unpack("!H", ip[6:8])[0] & 0x3FFF:  # a fragment
        return None
    ihl = (ip[0] & 15) * 4
    sport, dport, length = struct.unpack("!HHH", ip[ihl:ihl + 6])
    payload = ip[ihl + 8: ihl + length]
    return (socket.inet_ntoa(ip[12:16]), sport), (socket.inet_ntoa(ip[16:20]), dport), payload


class Attacker:
    def __init__(self, me: str, broadcast: str, rate: float, every: float, seed: int) -> None:
        self.me, self.broadcast, self.rate, self.every = me, broadcast, rate, every
        self.rng = random.Random(seed)
        self.capture = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(ETH_P_ALL))
        self.capture.bind(("eth0", 0))
        self.out = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.out.setsockopt(socket.SOL_SOCKET, socket.SO_BROADCAST, 1)
        self.out.bind((me, 0))
        self.captured: list[tuple[tuple[str, int], bytes]] = []  # (where it went, datagram)
        self.beacons: list[bytes] = []
        self.peers: set[tuple[str, int]] = set()
        self.table_id: bytes | None = None
        self.top_term = 0
        self.counts = {"seen": 0, "replayed": 0, "term_attack": 0, "beacons_replayed": 0, "send_errors": 0,
                       "salt_flood": 0}
        self.salt_flood = 0.0
        self.salts = [self.rng.randbytes(16) for _ in range(100)]
        self.stop = False
        self.since = float("inf")  # when it first heard the table (the attacks start)

    def hear(self, frame: bytes) -> None:
        udp = udp_of(frame)
        if udp is None or udp[0][0] == self.me or not udp[2].startswith(wire.MAGIC):
            return
        src, dst, data = udp
        try:
            msg = wire.decode(data, None).msg
        except wire.WireError:
            return
        self.counts["seen"] += 1
        if self.table_id is None:
            self.since = time.monotonic()
        if isinstance(msg, wire.Beacon):
            self.beacons = (self.beacons + [data])[-50:]
            self.table_id = msg.table_id
            return
        self.peers |= {a for a in (src, dst) if a[0] != self.me}
        self.captured.append((dst, data))
        del self.captured[:-5000]
        self.table_id = getattr(msg, "table_id", None) or self.table_id
        self.top_term = max(self.top_term, getattr(msg, "term", 0))

    def send(self, data: bytes, addr: tuple[str, int]) -> None:
        try:
            self.out.sendto(data, addr)
        except OSError:
            self.counts["send_errors"] += 1

    def term_attack(self) -> None:
        if self.table_id is None:
            return
        tid = self.table_id
        for peer in sorted(self.peers):
            eve = Identity.from_seed(self.rng.randbytes(32))
            term = self.rng.choice([wire.MAX_INT, 2**62, 10**6, self.top_term + 1, self.top_term + 2**20])
            prop = wire.Proposal(tid, eve.key, 1, 1, ["join", "eve"]).pack()
            entry = wire.Entry(term, 1, prop, eve.sign(wire.proposal_signed(prop)), eve.key,
                               eve.sign(wire.entry_signed(tid, term, 1, prop)), wire.decode_proposal(prop))
            stamp = int(time.time() * 1_000_000)
            head = [tid, eve.key, term, 0, 0, 1]
            append = wire.encode_append(head, [entry.pack()], [], eve.sign, None, stamp)
            fields = [tid, eve.key, term, 10**6, term, bytes(32)]
            ask = wire.encode(wire.VOTE_ASK, fields, eve.sign, None, stamp)
            self.send(append, peer)
            self.send(ask, peer)
            self.counts["term_attack"] += 2

    def replay(self) -> None:
        if self.captured:
            dst, data = self.rng.choice(self.captured[-300:] if self.rng.random() < 0.5 else self.captured)
            self.send(data, dst)
            self.counts["replayed"] += 1

    def flood_salt(self) -> None:
        """One look-alike sealed beacon to the discovery port (see the module docstring)."""
        r, n = self.rng, self.counts["salt_flood"]
        head = wire.MAGIC + bytes((wire.VERSION, wire.FLAG_SEALED))
        salt = r.randbytes(16) if n % 2 == 0 else self.salts[n // 2 % len(self.salts)]
        data = head + salt + r.randbytes(r.randrange(40, 300))
        self.send(data, (self.broadcast, DISCOVERY_PORT))
        self.counts["salt_flood"] += 1

    def run(self) -> None:
        now = time.monotonic()
        next_replay = next_term = next_beacon = next_salt = now
        while not self.stop:
            ready, _, _ = select.select([self.capture], [], [], 0.002)
            if ready:
                for _ in range(200):
                    try:
                        frame = self.capture.recv(65535, socket.MSG_DONTWAIT)
                    except BlockingIOError:
                        break
                    self.hear(frame)
            now = time.monotonic()
            while self.rate and now >= next_replay:
                self.replay()
                next_replay += 1 / self.rate
            while self.salt_flood and now >= next_salt:
                self.flood_salt()
                next_salt += 1 / self.salt_flood
            if now >= next_term:
                self.term_attack()
                next_term = now + self.every
            if now >= next_beacon and self.beacons:
                self.send(self.rng.choice(self.beacons), (self.broadcast, DISCOVERY_PORT))
                self.counts["beacons_replayed"] += 1
                next_beacon = now + 0.5

    def report(self) -> dict[str, Any]:
        return {**self.counts, "seconds": max(0.0, time.monotonic() - self.since),
                "captured": len(self.captured),
                "peers": sorted(f"{h}:{p}" for h, p in self.peers),
                "table_id": self.table_id.hex() if self.table_id else None, "top_term": self.top_term}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--me", required=True, help="this namespace's address")
    parser.add_argument("--broadcast", required=True, help="the LAN's broadcast address")
    parser.add_argument("--rate", type=float, default=50.0, help="replays a second")
    parser.add_argument("--every", type=float, default=0.1, help="seconds between term-attack rounds")
    parser.add_argument("--salt-flood", type=float, default=0.0, help="look-alike sealed beacons a second")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    attacker = Attacker(args.me, args.broadcast, args.rate, args.every, args.seed)
    attacker.salt_flood = args.salt_flood
    serve(attacker)


def serve(attacker: Any) -> None:
    """Say "listening", run ``attacker`` until SIGTERM, then print its report as one JSON line."""

    def stop(*_: Any) -> None:
        attacker.stop = True

    signal.signal(signal.SIGTERM, stop)
    print("listening", flush=True)
    attacker.run()
    print(json.dumps(attacker.report()), flush=True)


if __name__ == "__main__":
    main()
