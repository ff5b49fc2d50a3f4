"""Strangers at the door: discovery and the lobby's cookies under floods (docs/security.md).

Each attack is a named adversary run against the defence and, as a control, against the
defence switched off (the old behaviour, restored in the test), where it must succeed: so
each test shows the defence is what stops it.

- ``SaltFlood``: look-alike sealed datagrams on the discovery port at 100 a second, with new
  salts, with a hundred salts each repeated at a beacon's rate, or with the real table's salt.
  A joiner (``join NAME --passphrase P``: ``Discovery`` with ``sought``) finds the table within
  ``join``'s listen window. Off: every salt is worth a derivation (``RECUR_GAP`` 0 and no name
  tags), as before.
- ``JoinFlood``: forged JOINs at 1,000 a second from spoofed sources and fresh keys. A real
  joiner gets its cookie within a second. Off: the old door, one budget of 20 answers a second
  for everyone.
- Two passphrase tables of one name under the salt flood: ``join NAME`` hears both (and lists
  them: ``cli/net_cmds.py``), never one alone.
"""

from __future__ import annotations

import hashlib
import random
from typing import Any

import click
import pytest

from cardtable.cli import net_cmds
from cardtable.engine import scout
from cardtable.p2p import discovery, lobby, seal, wire
from cardtable.p2p.discovery import Discovery, encode_beacon
from cardtable.p2p.identity import Identity
from cardtable.p2p.simnet import SimNet
from tests.p2p import build
from tests.p2p.adversary import footprint
from tests.p2p.test_strangers import forged_join

PASSPHRASE = "four random words here"
LISTEN = net_cmds.NAME_LISTEN  # what `join NAME` listens at least
SEEDS = 12


@pytest.fixture
def cheap_kdf(monkeypatch: pytest.MonkeyPatch) -> None:
    """Argon2id replaced by a keyed hash (the same key for the same passphrase and salt), and no
    process-wide cache: what is derived is counted by ``Keyring.derived``, in microseconds."""

    def kdf(size: int, secret: bytes, salt: bytes, opslimit: int, memlimit: int) -> bytes:
        return hashlib.blake2b(secret + salt, digest_size=size).digest()

    monkeypatch.setattr(seal.argon2id, "kdf", kdf)
    monkeypatch.setattr(seal, "derive", seal.derive.__wrapped__)


def defences_off(monkeypatch: pytest.MonkeyPatch) -> None:
    """The listener as it was: any salt from anyone is worth a derivation (within the one budget)."""
    monkeypatch.setattr(discovery, "RECUR_GAP", 0.0)
    monkeypatch.setattr(seal.Keyring, "named", lambda self, data, head: False)


class SaltFlood:
    """A stranger without the passphrase on the discovery port: ``rate`` sealed-looking datagrams
    a second. ``mode``: ``fresh`` (a new salt each), ``recurring`` (a hundred salts, each sent
    again every second, as a table's beacons are), ``mimic`` (the real table's salt and a real
    beacon's nonce with other bytes)."""

    def __init__(self, mode: str, rng: random.Random, real: bytes, rate: int = 100) -> None:
        self.mode, self.rng, self.real, self.rate = mode, rng, real, rate
        self.salts = [rng.randbytes(seal.SALT_BYTES) for _ in range(rate)]
        self.sent = 0

    def datagram(self) -> bytes:
        r, head = self.rng, wire.MAGIC + bytes((wire.VERSION, wire.FLAG_SEALED))
        self.sent += 1
        if self.mode == "fresh":
            return head + r.randbytes(seal.SALT_BYTES) + r.randbytes(r.randrange(40, 300))
        if self.mode == "recurring":
            return head + self.salts[self.sent % len(self.salts)] + r.randbytes(r.randrange(40, 300))
        cut = wire.HEAD_BYTES + seal.SALT_BYTES + seal.NONCE_BYTES
        return self.real[:cut] + r.randbytes(len(self.real) - cut)


Heard = list[tuple[float, bytes, tuple[str, int]]]


def tables_beacons(names: list[str], seed: int, loss: float = 0.1) -> Heard:
    """Every table's beacons over the listen window: one a second from a random phase, ``loss``
    of them lost; (time, datagram, source), in time order."""
    rng = random.Random(seed)
    out = []
    for n, name in enumerate(names):
        who = Identity.from_seed(bytes([n + 1]) * 32)
        table_id = bytes([seed % 256, n]) * 8
        key = seal.for_table(PASSPHRASE, table_id)
        b = wire.Beacon(table_id, who.key, 1, name, {"game": "scout", "players": 3}, 1, 3, 7000, "lobby")
        phase = rng.random()
        for i in range(int(LISTEN) + 1):
            if rng.random() >= loss:
                out.append((phase + i, encode_beacon(b, who.sign, key, i + 1), (f"10.0.0.{n + 1}", 47474)))
    return sorted(out, key=lambda x: x[0])


def listen(disc: Discovery, beacons: Heard, flood: SaltFlood | None,
           until: float = LISTEN) -> None:
    """The listener hears the beacons and the flood (``flood.rate`` a second) until ``until``."""
    ticks = int(until * (flood.rate if flood else 0))
    events = [(t, data, src) for t, data, src in beacons if t <= until]
    if flood is not None:
        events += [(i / flood.rate, b"", ("10.6.6.6", 47474)) for i in range(ticks)]
    for t, data, src in sorted(events, key=lambda x: x[0]):
        if not data and flood is not None:
            data = flood.datagram()
        disc.receive(data, src, t)


def seeker(name: str | None = "kitchen", passphrase: str = PASSPHRASE) -> Discovery:
    disc = Discovery(passphrase)
    disc.sought = name
    return disc


# --- the salt flood -------------------------------------------------------------------------------


@pytest.mark.parametrize("mode", ["fresh", "recurring", "mimic"])
@pytest.mark.usefixtures("cheap_kdf")
def test_a_salt_flood_never_hides_the_table_from_a_joiner(mode: str) -> None:
    """100 look-alike sealed datagrams a second: every joiner finds the table within join's
    4 s, opening every beacon it hears; no wrong-passphrase hint is given."""
    for seed in range(SEEDS):
        beacons = tables_beacons(["kitchen"], seed)
        disc = seeker()
        listen(disc, beacons, SaltFlood(mode, random.Random(seed), beacons[0][1]))
        assert [t.name for t in disc.find("kitchen")] == ["kitchen"], (mode, seed, disc.dropped)
        assert disc.tables()[0].beacons == sum(t <= LISTEN for t, *_ in beacons), (mode, seed)  # all opened
        assert disc.pending(LISTEN) == 0, (mode, seed)
        assert "wrong passphrase" not in (net_cmds._locked(disc, LISTEN, PASSPHRASE) or ""), (mode, seed)
        assert disc.keys.derived <= 1 + seal.DERIVE_BURST + LISTEN / seal.DERIVE_EVERY  # the budget holds


@pytest.mark.parametrize("mode", ["fresh", "recurring"])
@pytest.mark.usefixtures("cheap_kdf")
def test_control_without_the_defence_the_salt_flood_hides_the_table(mode: str,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    defences_off(monkeypatch)
    found = 0
    for seed in range(SEEDS):
        beacons = tables_beacons(["kitchen"], seed)
        disc = seeker()
        listen(disc, beacons, SaltFlood(mode, random.Random(seed), beacons[0][1]))
        found += bool(disc.find("kitchen"))
    assert found <= SEEDS // 3, found


@pytest.mark.usefixtures("cheap_kdf")
def test_tables_without_a_name_are_not_hidden_by_new_salts_and_count_only_salts_heard_again() -> None:
    """``cardtable tables --passphrase P`` (no name to check tags with): salts heard once, a flood
    of them, are neither derived nor counted; the table's salt, heard again, is opened."""
    beacons = tables_beacons(["kitchen"], 1)
    disc = seeker(name=None)
    listen(disc, beacons, SaltFlood("fresh", random.Random(1), beacons[0][1]))
    assert [t.name for t in disc.tables()] == ["kitchen"]
    assert disc.locked(LISTEN) == 0 and disc.keys.derived == 1
    outsider = Discovery()  # no passphrase: the table is counted once, the flood not at all
    listen(outsider, beacons, SaltFlood("fresh", random.Random(1), beacons[0][1]))
    assert outsider.locked(LISTEN) == 1 and net_cmds._locked(outsider, LISTEN, None) == \
        "1 table with a passphrase heard: give its --passphrase to see it"


@pytest.mark.usefixtures("cheap_kdf")
def test_the_wrong_passphrase_hint_is_given_only_when_likely_true() -> None:
    beacons = tables_beacons(["kitchen"], 2, loss=0.0)
    wrong = seeker(passphrase="another passphrase")
    listen(wrong, beacons, None)  # the table's salt heard again and again, never opened
    assert wrong.refused(LISTEN) == 1
    assert "does not open (a wrong passphrase?)" in (net_cmds._locked(wrong, LISTEN, "x") or "")
    for mode in ("fresh", "recurring", "mimic"):  # the right passphrase under a flood: never said
        right = seeker()
        listen(right, beacons, SaltFlood(mode, random.Random(2), beacons[0][1]))
        assert right.find("kitchen"), mode  # (a stranger repeating salts is "refused": another passphrase)
        assert "wrong passphrase" not in (net_cmds._locked(right, LISTEN, PASSPHRASE) or ""), mode
        assert right.refused(LISTEN) == (4 if mode == "recurring" else 0), mode
    once = seeker()  # the table's salt heard once with junk: no hint at all
    once.receive(beacons[0][1][:60] + bytes(len(beacons[0][1]) - 60), ("10.6.6.6", 1), 0.5)
    assert once.refused(1.0) == 0 and once.locked(1.0) == 0 and not once.shut(beacons[0][1][4:20], 1.0)


def test_the_name_tag_is_argon2id_of_the_passphrase_with_the_names_salt(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A beacon's nonce: 8 random bytes, then a tag keyed by Argon2id (the interactive limits) of
    the passphrase with the salt of the name in lower case; other datagrams carry no tag."""
    asked: list[tuple[bytes, int, int]] = []
    real_kdf = seal.argon2id.kdf

    def kdf(size: int, secret: bytes, salt: bytes, opslimit: int, memlimit: int) -> bytes:
        asked.append((salt, opslimit, memlimit))
        return real_kdf(size, secret, salt, opslimit=opslimit, memlimit=memlimit)

    monkeypatch.setattr(seal.argon2id, "kdf", kdf)
    monkeypatch.setattr(seal, "derive", seal.derive.__wrapped__)
    who = Identity.from_seed(b"n" * 32)
    key = seal.for_table(PASSPHRASE, b"N" * 16)
    assert key is not None
    b = wire.Beacon(b"N" * 16, who.key, 1, "Kitchen", {"game": "scout", "players": 3}, 1, 3, 7000, "lobby")
    data = encode_beacon(b, who.sign, key, 1)
    assert (seal.name_salt("kitchen"), seal.OPSLIMIT, seal.MEMLIMIT) in asked
    assert seal.MEMLIMIT == 64 * 2**20 and seal.OPSLIMIT == 2
    head = wire.HEAD_BYTES
    assert seal.name_tagged(seal.name_key(PASSPHRASE, "KITCHEN"), data, head)
    assert not seal.name_tagged(seal.name_key(PASSPHRASE, "attic"), data, head)
    assert not seal.name_tagged(seal.name_key("another passphrase", "kitchen"), data, head)
    other = wire.encode(wire.PROBE, [b"N" * 16, who.key, bytes(16), False], who.sign, key, 2)
    assert not seal.name_tagged(seal.name_key(PASSPHRASE, "kitchen"), other, head)


# --- two passphrase tables of one name ------------------------------------------------------------


@pytest.mark.parametrize("mode", ["fresh", "recurring"])
@pytest.mark.usefixtures("cheap_kdf")
def test_two_passphrase_tables_of_one_name_are_both_heard_under_a_flood(mode: str) -> None:
    for seed in range(SEEDS):
        beacons = tables_beacons(["kitchen", "Kitchen"], seed)
        disc = seeker()
        listen(disc, beacons, SaltFlood(mode, random.Random(seed), beacons[0][1]))
        assert len(disc.find("kitchen")) == 2, (mode, seed)


@pytest.mark.usefixtures("cheap_kdf")
def test_control_without_the_defence_one_of_two_tables_of_one_name_goes_unheard(
        monkeypatch: pytest.MonkeyPatch) -> None:
    defences_off(monkeypatch)
    alone = 0
    for seed in range(SEEDS):
        disc = seeker()
        beacons = tables_beacons(["kitchen", "kitchen"], seed)
        listen(disc, beacons, SaltFlood("fresh", random.Random(seed), beacons[0][1]))
        alone += len(disc.find("kitchen")) == 1
    assert alone >= 2, alone  # join NAME would have joined that one, silently


def test_join_name_lists_two_passphrase_tables_of_one_name(monkeypatch: pytest.MonkeyPatch) -> None:
    """The command's side: with both heard, it lists them and asks for an id (exit 2)."""
    disc = seeker()
    for t, data, src in tables_beacons(["kitchen", "kitchen"], 3):
        disc.receive(data, src, t)
    assert len(disc.find("kitchen")) == 2

    async def heard(*args: Any, **kw: Any) -> tuple[list[Any], Discovery, float]:
        return disc.tables(), disc, 4.0

    monkeypatch.setattr(net_cmds, "_listen", heard)
    with pytest.raises(click.UsageError, match="2 tables match: give TABLE"):
        net_cmds._find_table("kitchen", 47474, PASSPHRASE, 8.0, lambda _: False)


# --- another wire version -------------------------------------------------------------------------


def _other(data: bytes, version: int) -> bytes:
    return data[:2] + bytes((version,)) + data[3:]


def test_a_beacon_of_another_wire_version_is_named_in_one_line(monkeypatch: pytest.MonkeyPatch) -> None:
    who = Identity.from_seed(b"v" * 32)
    b = wire.Beacon(b"V" * 16, who.key, 1, "attic", {"game": "scout", "players": 3}, 1, 3, 7000, "lobby")
    clear = encode_beacon(b, who.sign, None, 1)
    other = (wire.VERSION + 1) % 256
    disc = Discovery()
    assert disc.receive(_other(clear, other), ("10.0.0.2", 47474), 0.0) is None
    assert disc.dropped["version"] == 1 and disc.tables() == []
    assert disc.other_versions() == [(other, "attic")]
    line = f"table 'attic' speaks wire version {other}, this cardtable speaks {wire.VERSION}: " \
           "both need the same release"
    assert net_cmds._versions(disc) == [line]
    sealed = encode_beacon(b, who.sign, seal.Seal(b"s" * 16, bytes(32)), 2)
    older = (wire.VERSION - 1) % 256
    disc.receive(_other(sealed, older), ("10.0.0.3", 47474), 0.0)  # unreadable: said once heard again
    assert disc.other_versions() == [(other, "attic")]
    disc.receive(_other(sealed, older), ("10.0.0.3", 47474), 1.0)
    assert disc.other_versions() == sorted([(other, "attic"), (older, None)])
    forged = _other(encode_beacon(b, Identity.from_seed(b"f" * 32).sign, None, 3), other)
    disc.receive(forged, ("10.0.0.2", 47474), 1.0)  # a bad signature names nothing
    assert [n for v, n in disc.other_versions() if v == other] == ["attic"]

    checked = 0
    real_verify = wire.verify

    def counting(*args: Any) -> bool:
        nonlocal checked
        checked += 1
        return real_verify(*args)

    monkeypatch.setattr(wire, "verify", counting)
    for n in range(3 * discovery.MAX_TABLES):  # a flood of badly signed ones: a bounded number checked
        disc.receive(forged, ("10.0.0.2", 47474), 2.0 + n / 100)
    assert checked <= discovery.MAX_TABLES

    async def heard(*args: Any, **kw: Any) -> tuple[list[Any], Discovery, float]:
        return [], disc, 1.0

    monkeypatch.setattr(net_cmds, "_listen", heard)
    with pytest.raises(click.ClickException) as err:
        net_cmds._find_table("Attic", 47474, None, 8.0, lambda _: False)
    assert err.value.message == line


# --- the join flood -------------------------------------------------------------------------------


class OneBudgetDoor(lobby.Door):
    """The door as it was: one budget of 20 answers a second for every source together."""

    def __init__(self, secret: bytes) -> None:
        super().__init__(secret)
        self.second = -1

    def may_answer(self, key: bytes, addr: tuple[str, int], now: float) -> bool:
        if int(now) != self.second:
            self.second, self.answered = int(now), 0
        self.answered += 1
        return self.answered <= 20


class JoinFlood:
    """Forged JOINs (each signed by a fresh key, from a spoofed source) at ``rate`` a second."""

    def __init__(self, net: SimNet, dst: tuple[str, int], table_id: bytes, rate: int = 1000) -> None:
        self.net, self.dst, self.table_id, self.rate = net, dst, table_id, rate
        self.pool = [forged_join(table_id, n) for n in range(500)]

    def run(self, start: float, seconds: float) -> None:
        for n in range(int(seconds * self.rate)):
            src = (f"10.{n % 200}.{n // 200 % 250}.{n % 250 + 1}", 1024 + n % 60000)
            self.net.inject(self.dst, self.pool[n % len(self.pool)], src, start + n / self.rate)


def _cookie_wait(door: type[lobby.Door] | None) -> float:
    """Seconds from a real joiner's start to its cookie, under a 4 s JOIN flood at 1,000 a second."""
    net = SimNet(31)
    host_node, real = net.node("host"), net.node("real")
    host = net.host(host_node, scout.Config(players=3), 0, auto="random", bots="random")
    assert host.table_id is not None
    if door is not None:
        host.door = door(host.door.secret)
    net.run_for(1.37)
    JoinFlood(net, host_node.addr, host.table_id).run(net.now, 4.0)
    net.run_for(0.5)
    start = net.now
    joiner = net.join(real, host.table_id, host_node.addr, auto="random", bots="random", sequencer=host.key)
    net.run(lambda: joiner.cookie is not None, limit=3.4)
    waited = net.now - start if joiner.cookie is not None else float("inf")
    if door is None:
        assert net.run(lambda: joiner.my_seat is not None, limit=3.0)  # and it is seated
    return waited


def test_a_join_flood_does_not_delay_a_real_joiners_cookie() -> None:
    assert _cookie_wait(None) <= 1.0


def test_control_with_one_budget_for_everyone_the_join_flood_starves_the_joiner() -> None:
    assert _cookie_wait(OneBudgetDoor) > 3.0


def test_the_door_answers_each_source_once_a_tick_in_fixed_memory() -> None:
    """A source is answered at most once per TICK, whatever it sends; a flood from 20,000
    spoofed sources grows nothing the peer holds (the door's slots are allocated once)."""
    net = SimNet(32)
    host_node = net.node("host")
    host = net.host(host_node, scout.Config(players=3), 0, auto="random", bots="random")
    assert host.table_id is not None
    net.run_for(0.5)
    join = forged_join(host.table_id, 1)
    answered = host.door.answered
    for i in range(100):  # one source, 100 JOINs in 0.1 s: one answer
        host.receive(join, ("10.9.9.9", 9999), net.now + i / 1000)
    assert host.door.answered == answered + 1
    host.receive(join, ("10.9.9.9", 9999), net.now + lobby.TICK)
    assert host.door.answered == answered + 2  # the next tick, once more
    before, size = footprint(host), len(host.door._slots)
    pool = [forged_join(host.table_id, n) for n in range(200)]
    for n in range(20_000):
        host.receive(pool[n % 200], (f"10.{n // 62500}.{n // 250 % 250}.{n % 250}", 2000 + n % 50000),
                     net.now + 1 + n / 20_000)
    assert footprint(host) == before and len(host.door._slots) == size == 8 * lobby.SLOTS
    assert host.door.answered - answered <= 2 + 20_000  # never more than one answer per JOIN


def test_an_answer_to_a_strangers_join_is_smaller_than_the_join() -> None:
    """Answering every new source is safe for others: the sequencer's cookie (a signed PROBE) and
    a member's REDIRECT are smaller than the JOIN they answer, so a spoofed address gets fewer
    bytes than the stranger sends; a JOIN without a join (smaller), or from a member's address,
    is not answered at all."""
    net = SimNet(33)
    nodes = build(net, scout.Config(players=3), 2, 0)
    net.run_for(1.0)
    host, member = (n.peer for n in nodes)
    assert host is not None and member is not None and host.is_sequencer and host.table_id is not None
    join = forged_join(host.table_id, 7)
    ghost = Identity.from_seed(b"g" * 32)
    bare = wire.encode(wire.JOIN, [host.table_id, ghost.key, 1, "g", None, None, None], ghost.sign, None, 5)
    for peer, kind in ((host, wire.PROBE), (member, wire.REDIRECT)):
        out = peer.receive(join, ("10.9.9.8", 9998), net.now)
        assert [(wire.decode(d, None).msg.__class__.__name__.upper(), a) for d, a in out.send] == \
            [(("PROBE", "REDIRECT")[kind == wire.REDIRECT], ("10.9.9.8", 9998))]
        assert len(out.send[0][0]) < len(join)
        assert peer.receive(bare, ("10.9.9.7", 9997), net.now).send == []
    # spoofed from a member's address: no answer goes to a member (it would answer a cookie)
    for peer, other in ((host, member), (member, host)):
        at = peer.addrs[other.key]
        assert peer.receive(forged_join(host.table_id, 8), at, net.now).send == []
