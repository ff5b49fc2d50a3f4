"""Beacons and the list of tables heard (sans-I/O), broadcast addresses, and a real loopback test."""

from __future__ import annotations

import asyncio
import dataclasses
import itertools
import json
import socket
from pathlib import Path
from typing import Any

import pytest

from cardtable.engine.games import config_from_dict
from cardtable.p2p import seal
from cardtable.p2p.discovery import (
    BEACON_TTL,
    LOOPBACK_BROADCAST,
    Beacon,
    BeaconError,
    Discovery,
    broadcast_addresses,
    decode_beacon,
    encode_beacon,
    parse_hostport,
    parse_ip_json,
)
from cardtable.p2p.identity import Identity
from cardtable.p2p.node import send_beacons
from cardtable.p2p.peer import Output, PeerEvent
from tests.p2p.test_processes import Procs, procs, wait_until  # noqa: F401 - procs is a fixture

HOST = Identity.from_seed(bytes(32))
OTHER = Identity.from_seed(bytes([7]) * 32)
KEY = HOST.key


def beacon(table: bytes = b"T" * 16, name: str = "kitchen", taken: int = 1, total: int = 4,
           port: int = 40001, who: Identity = HOST, term: int = 1, phase: str = "lobby") -> Beacon:
    config = config_from_dict({"game": "solo", "edition": "anniversary", "players": total}).to_dict()
    return Beacon(table, who.key, term, name, config, taken, total, port, phase)


STAMPS = itertools.count(1)


def enc(b: Beacon, passphrase: str | None = None, who: Identity | None = None) -> bytes:
    """The beacon signed (by its key's owner unless ``who``), with a stamp newer than any before."""
    signer = who or (OTHER if b.key == OTHER.key else HOST)
    return encode_beacon(b, signer.sign, seal.for_table(passphrase, b.table_id), next(STAMPS))


def test_a_beacon_round_trips_and_fits_a_datagram() -> None:
    b = beacon()
    data = enc(b)
    assert len(data) <= 1200 and data[:2] == b"CT"
    assert decode_beacon(data) == b
    assert b"mixed_stacking" not in data  # the config goes short (the preset's options left out)
    custom = dataclasses.replace(b, config={**b.config, "mixed_stacking": True})
    assert decode_beacon(enc(custom)) == custom
    assert b.game == "solo"


def test_a_beacon_signed_by_another_key_is_forged() -> None:
    with pytest.raises(BeaconError, match="forged"):
        decode_beacon(enc(beacon(), who=OTHER))


def test_passphrase_beacons_need_the_passphrase() -> None:
    b = beacon()
    tagged = enc(b, "swordfish")
    assert decode_beacon(tagged, "swordfish") == b
    for passphrase in (None, "sword"):
        with pytest.raises(BeaconError):
            decode_beacon(tagged, passphrase)
    with pytest.raises(BeaconError):  # a passphrase table does not hear untagged beacons
        decode_beacon(enc(b), "swordfish")
    flipped = bytearray(tagged)
    flipped[10] ^= 1
    with pytest.raises(BeaconError):
        decode_beacon(bytes(flipped), "swordfish")


GARBAGE = [b"", b"CT", b"XX\x01\x00\x90", b"CT\x02\x00\x90", b"CT\x01\x00\xc1",
           b"CT\x01\x00" + b"\x00" * 1300, b"CT\x01\x04\x90", b"CT\x01\x00\x92\x01\x02"]


@pytest.mark.parametrize("data", GARBAGE)
def test_garbage_is_refused_with_a_reason_never_a_crash(data: bytes) -> None:
    with pytest.raises(BeaconError):
        decode_beacon(data)


def test_every_truncation_and_bit_flip_is_refused() -> None:
    """The signature covers every field, so no damaged beacon gets through."""
    data = enc(beacon())
    for cut in range(len(data)):
        with pytest.raises(BeaconError):
            decode_beacon(data[:cut])
    for i in range(len(data)):
        for bit in range(8):
            damaged = bytearray(data)
            damaged[i] ^= 1 << bit
            with pytest.raises(BeaconError):
                decode_beacon(bytes(damaged))


def test_discovery_records_updates_and_expires_tables() -> None:
    disc = Discovery(ttl=3.0)
    assert disc.receive(enc(beacon()), ("10.0.0.5", 47474), now=100.0) is not None
    assert disc.receive(b"junk", ("10.0.0.9", 47474), now=100.1) is None
    assert disc.receive(enc(beacon(), who=OTHER), ("10.0.0.9", 47474), now=100.1) is None
    assert disc.dropped == {"malformed": 1, "forged": 1}
    disc.receive(enc(beacon(table=b"U" * 16, name="attic", taken=2, total=3)), ("10.0.0.6", 5), 101.0)
    tables = disc.tables(101.0)
    assert [t.name for t in tables] == ["attic", "kitchen"]
    kitchen = tables[1]
    assert kitchen.addr == ("10.0.0.5", 40001)  # the beacon's port, the sender's address
    assert (kitchen.game, kitchen.taken, kitchen.free, kitchen.edition) == ("solo", 1, 3, "anniversary")
    assert kitchen.host == KEY.hex()[:8] and kitchen.phase == "lobby"
    disc.receive(enc(beacon(taken=4, phase="seeding")), ("10.0.0.5", 47474), now=102.5)
    assert (kitchen.taken, kitchen.free, kitchen.phase, kitchen.beacons) == (4, 0, "seeding", 2)
    assert [t.name for t in disc.tables(104.2)] == ["kitchen"]  # attic silent for 3.2 s
    assert disc.tables(105.6) == []
    json.dumps([t.to_json() for t in tables])


def test_port_zero_means_the_source_port() -> None:
    disc = Discovery()
    table = disc.receive(enc(beacon(port=0)), ("10.0.0.5", 40123), 1.0)
    assert table is not None and table.addr == ("10.0.0.5", 40123)


def test_the_address_prefers_the_lan_stays_put_and_follows_a_failover() -> None:
    disc = Discovery(ttl=3.0)
    b = enc(beacon())
    table = disc.receive(b, ("127.0.0.1", 47474), 10.0)
    assert table is not None and table.addr == ("127.0.0.1", 40001)
    disc.receive(b, ("192.168.1.4", 47474), 10.1)  # the same host heard on the LAN too
    assert table.addr == ("192.168.1.4", 40001)  # an address the other peers can reach
    disc.receive(b, ("127.0.0.1", 47474), 11.0)
    disc.receive(b, ("10.1.1.1", 47474), 11.0)
    assert table.addr == ("192.168.1.4", 40001)  # stays put while it is heard
    disc.receive(b, ("10.1.1.1", 47474), 14.5)
    assert table.addr == ("10.1.1.1", 40001)  # 192.168.1.4 silent for longer than the ttl
    assert disc.at(("10.1.1.1", 40001)) == [table] and disc.at(("10.1.1.1", 40002)) == []
    # failover: another member is sequencer in a higher term, at another address
    disc.receive(enc(beacon(who=OTHER, port=40009, term=2)), ("192.168.1.7", 47474), 15.0)
    assert (table.addr, table.host_key, table.term) == (("192.168.1.7", 40009), OTHER.key, 2)
    # the deposed sequencer, still beaconing, is not believed while the new one is heard
    assert disc.receive(b, ("10.1.1.1", 47474), 15.5) is None
    assert table.addr == ("192.168.1.7", 40009) and disc.dropped["old term"] == 1
    # ... but a table whose only sequencer is the old one again (the other died) is followed
    assert disc.receive(b, ("10.1.1.1", 47474), 15.0 + BEACON_TTL + 0.1) is table
    assert table.addr == ("10.1.1.1", 40001)


def test_find_by_name_or_id_prefix() -> None:
    disc = Discovery()
    disc.receive(enc(beacon(table=bytes.fromhex("ab" * 16), name="Kitchen")), ("10.0.0.5", 1), 1.0)
    disc.receive(enc(beacon(table=bytes.fromhex("ac" * 16), name="attic")), ("10.0.0.6", 1), 1.0)
    assert [t.name for t in disc.find("kitchen")] == ["Kitchen"]
    assert [t.name for t in disc.find("abab")] == ["Kitchen"]
    assert len(disc.find("a")) == 2
    assert disc.find("nowhere") == [] and disc.find("") == []


def test_a_passphrase_discovery_hears_only_its_tables() -> None:
    assert Discovery().receive(enc(beacon(), "pw"), ("10.0.0.5", 1), 1.0) is None
    disc = Discovery(passphrase="pw")
    disc.receive(enc(beacon(name="open")), ("10.0.0.5", 1), 1.0)
    disc.receive(enc(beacon(table=b"S" * 16, name="secret"), "pw"), ("10.0.0.6", 1), 1.0)
    assert disc.tables() == []  # a salt heard once: anyone can send one
    disc.receive(enc(beacon(table=b"S" * 16, name="secret"), "pw"), ("10.0.0.6", 1), 2.0)
    assert [t.name for t in disc.tables()] == ["secret"]
    seeker = Discovery(passphrase="pw")
    seeker.sought = "SECRET"  # join NAME: its name tag holds, so its first beacon is opened
    seeker.receive(enc(beacon(table=b"S" * 16, name="secret"), "pw"), ("10.0.0.6", 1), 1.0)
    assert [t.name for t in seeker.tables()] == ["secret"]


def test_parse_hostport() -> None:
    assert parse_hostport("10.1.2.3:4000") == ("10.1.2.3", 4000)
    assert parse_hostport("localhost:4000") == ("127.0.0.1", 4000)
    for bad in ("10.1.2.3", "10.1.2.3:0", "10.1.2.3:70000", ":4000", "kitchen", "abcd1234"):
        assert parse_hostport(bad) is None


IP_JSON = json.dumps([
    {"ifname": "lo", "flags": ["LOOPBACK", "UP"], "addr_info": [
        {"family": "inet", "local": "127.0.0.1", "prefixlen": 8}]},
    {"ifname": "eth0", "flags": ["BROADCAST", "UP"], "addr_info": [
        {"family": "inet", "local": "192.168.1.4", "prefixlen": 24, "broadcast": "192.168.1.255"},
        {"family": "inet6", "local": "fe80::1", "prefixlen": 64}]},
    {"ifname": "wg0", "flags": ["UP"], "addr_info": [
        {"family": "inet", "local": "10.9.0.2", "prefixlen": 32}]},
    {"ifname": "veth1", "flags": ["BROADCAST", "UP"], "addr_info": [
        {"family": "inet", "local": "10.77.0.3", "prefixlen": 16}]},
    {"ifname": "eth1", "flags": ["BROADCAST"], "addr_info": [
        {"family": "inet", "local": "172.16.0.2", "prefixlen": 24, "broadcast": "172.16.0.255"}]},
])


def test_broadcast_addresses_from_ip_json() -> None:
    assert parse_ip_json(IP_JSON) == ["192.168.1.255", "10.77.255.255"]
    assert parse_ip_json("not json") == [] and parse_ip_json("{}") == []


def test_broadcast_addresses_of_this_host_end_with_loopback() -> None:
    found = broadcast_addresses()
    assert found[-1] == LOOPBACK_BROADCAST and len(found) == len(set(found))
    for address in found:
        socket.inet_aton(address)


# --- on real sockets ---------------------------------------------------------------------


def free_udp_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_two_listeners_on_one_port_both_hear_loopback_beacons() -> None:
    """Shared-port reuse: every discovery socket on the host hears every beacon."""
    from cardtable.p2p.node import DiscoveryListener

    port = free_udp_port()

    async def scenario() -> tuple[list[str], list[str], int]:
        one = await DiscoveryListener.open(port)
        two = await DiscoveryListener.open(port)
        try:
            beacons = [enc(beacon(table=bytes([i]) * 16, name=f"t{i}", port=40000 + i))
                       for i in range(2)]
            for _ in range(3):
                await send_beacons(beacons, [LOOPBACK_BROADCAST], port)
                await asyncio.sleep(0.05)
            await asyncio.sleep(0.1)
            return ([t.name for t in one.discovery.tables()], [t.name for t in two.discovery.tables()],
                    one.received)
        finally:
            one.close()
            two.close()

    heard_one, heard_two, received = asyncio.run(scenario())
    assert heard_one == heard_two == ["t0", "t1"]
    assert received >= 6


def test_two_processes_see_each_others_tables(procs: Procs, tmp_path: Path) -> None:  # noqa: F811
    """``cardtable tables`` in one process hears a table hosted by another on the same host."""
    host = procs.cardtable("host", "host", "solo", "--name", "loopback-test", "--players", "3", "--cpu", "1",
                           "--auto", "random", "--home", str(tmp_path / "h"))
    wait_until(lambda: "waiting for" in host.err or host.popen.poll() is not None, 30, "the table")
    listing = procs.cardtable("tables", "tables", "--json", "--seconds", "2.5")
    assert listing.wait(30) == 0, listing.err
    tables = json.loads(listing.out)
    assert [(t["name"], t["game"], t["seats_total"], t["seats_taken"], t["phase"]) for t in tables] == [
        ("loopback-test", "solo", 2, 1, "lobby")]
    assert tables[0]["address"].startswith("127.0.0.1:")
    people = procs.cardtable("tables-text", "tables", "--seconds", "1.5")
    assert people.wait(30) == 0
    header, row = people.out.splitlines()
    assert header.split() == ["id", "name", "game", "edition", "seats", "free", "phase", "host", "address"]
    assert row.split()[1:7] == ["loopback-test", "solo", "classic", "1/2", "1", "lobby"]


# --- the adapter (p2p/node.py) on real sockets, with stand-in peers --------------------------------


class StandIn:
    """A peer that sends what it is told on every timer call and keeps what it receives."""

    def __init__(self, sends: list[tuple[bytes, tuple[str, int]]], every: float = 0.02) -> None:
        self.sends, self.every = sends, every
        self.port = 0
        self.got: list[tuple[bytes, tuple[str, int]]] = []
        self.timer_calls = 0
        self.next: float | None = None

    def timer(self, now: float) -> Output:
        self.timer_calls += 1
        self.next = now + self.every
        return Output(send=list(self.sends), deadline=self.next, events=[PeerEvent("tick", {})])

    def receive(self, datagram: bytes, addr: tuple[str, int], now: float) -> Output:
        self.got.append((datagram, addr))
        return Output(deadline=self.next)  # every output carries the peer's next deadline


def test_a_node_survives_failed_sends_and_keeps_its_timer() -> None:
    """A datagram the kernel refuses (EMSGSIZE) is counted; the next ones still go out."""
    from cardtable.p2p.node import Node

    async def scenario() -> tuple[StandIn, StandIn, Any, int]:
        receiver = Node(host="127.0.0.1", listen_discovery=False, broadcast=[LOOPBACK_BROADCAST])
        await receiver.open()
        sink = StandIn([], every=10)
        receiver.attach(sink)
        sender = Node(host="127.0.0.1", listen_discovery=False, broadcast=[LOOPBACK_BROADCAST])
        await sender.open()
        to = ("127.0.0.1", receiver.port)
        source = StandIn([(b"x" * 70_000, to), (b"hello", to)])
        ticks: list[str] = []
        sender.on_event = lambda event: ticks.append(event.kind)
        sender.attach(source)
        await asyncio.sleep(0.3)
        await sender.close()
        await receiver.close()
        return source, sink, sender.stats, len(ticks)

    source, sink, stats, ticks = asyncio.run(scenario())
    assert source.timer_calls >= 5 and ticks == source.timer_calls
    assert len(sink.got) >= 4 and {d for d, _ in sink.got} == {b"hello"}
    assert sink.got[0][1][0] == "127.0.0.1"
    assert sum(n for where, n in stats.errors.items() if "EMSGSIZE" in where) >= 4
    assert stats.datagrams_out >= len(sink.got)


def test_broadcasts_go_to_every_discovery_socket_on_the_host() -> None:
    """``BROADCAST`` in a peer's output reaches the peers of every node listening on the port."""
    from cardtable.p2p.node import Node
    from cardtable.p2p.peer import BROADCAST

    port = free_udp_port()

    async def scenario() -> list[StandIn]:
        nodes, peers = [], []
        for sends in ([(b"beacon?", BROADCAST)], [], []):
            node = Node(discovery_port=port, broadcast=[LOOPBACK_BROADCAST])
            await node.open()
            peer = StandIn(sends, every=0.05)
            node.attach(peer)
            nodes.append(node)
            peers.append(peer)
        await asyncio.sleep(0.3)
        for node in nodes:
            await node.close()
        return peers

    peers = asyncio.run(scenario())
    for peer in peers:  # the sender's own discovery socket hears it too
        assert [d for d, _ in peer.got].count(b"beacon?") >= 3
        assert all(addr[0] == "127.0.0.1" for _, addr in peer.got)


def test_a_node_turns_beacons_into_tables() -> None:
    from cardtable.p2p.node import Node

    port = free_udp_port()

    async def scenario() -> list[str]:
        node = Node(discovery_port=port, broadcast=[LOOPBACK_BROADCAST])
        await node.open()
        node.attach(StandIn([], every=10))
        await send_beacons([enc(beacon(name="heard")), b"noise"], [LOOPBACK_BROADCAST], port)
        await asyncio.sleep(0.1)
        await node.close()
        return [t.name for t in node.discovery.tables()]

    assert asyncio.run(scenario()) == ["heard"]


def test_a_flood_of_made_up_tables_costs_bounded_memory_and_no_verification_once_full() -> None:
    from cardtable.p2p import wire as w
    from cardtable.p2p.discovery import MAX_TABLES

    disc = Discovery()
    calls = 0
    real_verify = w.verify

    def counting(*args: Any) -> bool:
        nonlocal calls
        calls += 1
        return real_verify(*args)

    beacons = [enc(made_up(n)[0], who=made_up(n)[1]) for n in range(3 * MAX_TABLES)]
    w.verify = counting  # type: ignore[assignment]
    try:
        for i, data in enumerate(beacons):
            disc.receive(data, ("10.1.1.1", 5000), 0.001 * i)
    finally:
        w.verify = real_verify  # type: ignore[assignment]
    assert len(disc.tables()) == MAX_TABLES and calls == MAX_TABLES
    assert disc.dropped["too many tables"] == 2 * MAX_TABLES
    disc.receive(beacons[-1], ("10.1.1.1", 5000), 100.0)  # the silent ones expire: room again
    assert len(disc.tables()) == 1


def made_up(n: int, name: str = "kitchen") -> tuple[Beacon, Identity]:
    """The ``n``-th made-up table, signed by a fresh key of its own."""
    who = Identity.from_seed(n.to_bytes(32, "big"))
    return dataclasses.replace(beacon(name=name, who=who), table_id=n.to_bytes(16, "big")), who


def test_one_key_lists_a_few_tables_only() -> None:
    from cardtable.p2p.discovery import MAX_TABLES, MAX_TABLES_PER_KEY

    disc = Discovery()
    for n in range(MAX_TABLES):  # one key's flood of made-up tables
        made = dataclasses.replace(beacon(), table_id=n.to_bytes(16, "big"))
        disc.receive(enc(made), ("10.6.6.6", 5000), n / 100)
    assert len(disc.tables()) == MAX_TABLES_PER_KEY
    assert disc.dropped["too many tables of one key"] == MAX_TABLES - MAX_TABLES_PER_KEY
    assert disc.receive(enc(beacon(table=b"R" * 16, name="real", who=OTHER)), ("10.1.1.1", 5000), 1.0)
    assert [t.name for t in disc.find("real")] == ["real"]


def test_a_full_list_still_makes_room_for_the_table_a_joiner_seeks() -> None:
    from cardtable.p2p.discovery import MAX_TABLES

    disc = Discovery()
    for n in range(MAX_TABLES):  # made-up tables from fresh keys fill the list
        b, who = made_up(n + 1, name=f"junk {n}")
        disc.receive(enc(b, who=who), ("10.6.6.6", 5000), n / 100)
    real = enc(beacon(table=b"R" * 16, name="Real", who=OTHER))
    assert disc.receive(real, ("10.1.1.1", 5000), 1.0) is None and disc.dropped["too many tables"] == 1
    disc.sought = "real"
    assert disc.receive(enc(beacon(table=b"R" * 16, name="Real", who=OTHER)), ("10.1.1.1", 5000), 1.1)
    assert len(disc.tables()) == MAX_TABLES and [t.name for t in disc.find("REAL")] == ["Real"]
    assert "junk 0" not in {t.name for t in disc.tables()}  # the one heard longest ago made room
    b, who = made_up(999, name="junk again")  # other names still find the list full
    assert disc.receive(enc(b, who=who), ("10.6.6.6", 5000), 1.2) is None


def test_an_old_beacon_replayed_is_dropped_and_addresses_stay_few() -> None:
    disc = Discovery()
    old, new = enc(beacon()), enc(beacon())
    assert disc.receive(new, ("10.1.1.1", 5000), 0.0) is not None
    assert disc.receive(old, ("10.6.6.6", 5000), 0.5) is None and disc.dropped["replayed"] == 1
    table = disc.tables()[0]
    assert ("10.6.6.6", 5000) not in table._addrs
    for i in range(20):  # the newest one replayed from many addresses: a few kept, the first stays
        disc.receive(new, (f"10.6.6.{i}", 5000), 1.0 + i / 100)
    assert len(table._addrs) <= 4 and table.addr == ("10.1.1.1", 40001)
