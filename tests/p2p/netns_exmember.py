"""A member that left, on the namespace LAN: tests/p2p/test_netns_members.py runs it in its own namespace.

It is given the home of a peer that joined the table and left it (``--home``): once that
home's table log holds its join and its leave, it signs with that peer's own key. The bridge
is a hub, so a packet socket sees every table datagram: it learns the peers' addresses and the
highest term on the wire, and every ``--every`` seconds sends each peer an ``APPEND`` carrying
its own authentic ``join`` entry, at its place in the log, with a term one or 2**20 above the
highest it saw (before wire 4 such an ``APPEND`` counted as a newcomer sequencer's). On SIGTERM
it prints one JSON line of what it sent, and exits.
"""

from __future__ import annotations

import argparse
import select
import shutil
import socket
import tempfile
import time
from pathlib import Path
from typing import Any

from cardtable.p2p import wire
from cardtable.p2p.admission import MAX_TERM_STEP
from cardtable.p2p.identity import Identity
from cardtable.p2p.store import FileStore
from tests.p2p.netns_attacker import DISCOVERY_PORT, ETH_P_ALL, serve, udp_of


class ExMember:
    def __init__(self, me: str, home: Path, every: float) -> None:
        self.me, self.home, self.every = me, home, every
        self.capture = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(ETH_P_ALL))
        self.capture.bind(("eth0", 0))
        self.out = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.out.bind((me, 0))
        self.peers: set[tuple[str, int]] = set()
        self.top_term = 0
        self.identity: Identity | None = None
        self.join: wire.Entry | None = None
        self.before: int = 0  # the term of the entry before its join
        self.sent = 0
        self.stop = False

    def ready(self) -> bool:
        """Whether the home holds the peer's key, its join and its leave (then they are kept)."""
        if self.join is not None:
            return True
        key_path, log_path = self.home / "identity.key", self.home / "table.log"
        if not key_path.exists() or not log_path.exists():
            return False
        with tempfile.TemporaryDirectory() as tmp:
            copy = Path(tmp) / "table.log"
            shutil.copyfile(log_path, copy)
            entries = [wire.decode_entry(raw) for raw in FileStore(copy, sync=False).load().entries]
        identity = Identity.load_or_create(key_path)
        mine = [e for e in entries if e.decoded.author == identity.key]
        join = next((e for e in mine if e.decoded.kind == "join"), None)
        if join is None or not any(e.decoded.kind == "leave" for e in mine):
            return False
        self.identity, self.join, self.before = identity, join, entries[join.index - 2].term
        return True

    def hear(self, frame: bytes) -> None:
        udp = udp_of(frame)
        if udp is None or udp[0][0] == self.me or not udp[2].startswith(wire.MAGIC):
            return
        src, _, data = udp
        try:
            msg = wire.decode(data, None).msg
        except wire.WireError:
            return
        if src[1] != DISCOVERY_PORT:
            self.peers.add(src)
        self.top_term = max(self.top_term, getattr(msg, "term", 0))

    def attack(self) -> None:
        if not self.ready() or self.identity is None or self.join is None:
            return
        me, join = self.identity, self.join
        for peer in sorted(self.peers):
            term = self.top_term + (MAX_TERM_STEP if self.sent % 2 else 1)
            head = [join.decoded.table_id, me.key, term, join.index - 1, self.before, 0]
            data = wire.encode_append(head, [join.pack()], [], me.sign, None, int(time.time() * 1_000_000))
            try:
                self.out.sendto(data, peer)
                self.sent += 1
            except OSError:
                pass

    def run(self) -> None:
        next_attack = time.monotonic()
        while not self.stop:
            ready, _, _ = select.select([self.capture], [], [], 0.01)
            if ready:
                for _ in range(200):
                    try:
                        self.hear(self.capture.recv(65535, socket.MSG_DONTWAIT))
                    except BlockingIOError:
                        break
            if time.monotonic() >= next_attack:
                self.attack()
                next_attack = time.monotonic() + self.every

    def report(self) -> dict[str, Any]:
        return {"sent": self.sent, "ready": self.join is not None, "top_term": self.top_term,
                "peers": sorted(f"{h}:{p}" for h, p in self.peers)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--me", required=True, help="this namespace's address")
    parser.add_argument("--home", required=True, type=Path, help="the home of the peer that left")
    parser.add_argument("--every", type=float, default=0.1, help="seconds between rounds")
    args = parser.parse_args()
    serve(ExMember(args.me, args.home, args.every))


if __name__ == "__main__":
    main()
