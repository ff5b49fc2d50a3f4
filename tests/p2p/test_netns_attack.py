"""A stranger's namespace on the virtual LAN attacks a real 4-peer match, which still finishes.

The LAN of tests/p2p/test_netns.py (four peer namespaces on a bridge, 10% loss each) with a
fifth namespace for the stranger, and the bridge made a hub, so the stranger sees every
frame. The stranger (tests/p2p/netns_attacker.py, no key of the table) captures the table's
traffic from before the host starts until the match is over and meanwhile runs the term
attack (APPENDs with its own join and VOTE_ASKs, signed by fresh keys, with terms up to the
wire's limit, to every peer address, ten rounds a second) and the replay attack (captured
member datagrams resent from its own address, 50 a second, and captured beacons
re-broadcast). A second test runs a passphrase table while the stranger floods the discovery
port with look-alike sealed beacons (``--salt-flood``): its joiners still find it. Needs root
and ``ip``/``nft``: skipped, saying why, without them.
"""

from __future__ import annotations

import json
import shutil
import signal
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from cardtable.p2p.store import FileStore, Stored
from tests.p2p.test_netns import PEERS, SUBNET, Lan, _why_not, built_lan, processes_on_the_lan
from tests.p2p.test_processes import Procs, wait_until

pytestmark = pytest.mark.skipif(_why_not() is not None, reason=_why_not() or "")

LOSS = 10
ATTACKER = Path(__file__).with_name("netns_attacker.py")
REPLAYS_PER_SECOND = 50
TERM_ROUNDS_PER_SECOND = 10


@pytest.fixture
def lan() -> Iterator[Lan]:
    yield from built_lan(LOSS, strangers=1)


@pytest.fixture
def procs(tmp_path: Path) -> Iterator[Procs]:
    yield from processes_on_the_lan(tmp_path)


def stored(home: Path, tmp: Path) -> list[Stored]:
    """What every table log in a peer's home holds (read from copies)."""
    found = []
    for i, path in enumerate([home / "table.log", *sorted((home / "tables").glob("*.log"))]):
        if path.exists():
            copy = tmp / f"copy{i}.log"
            shutil.copyfile(path, copy)
            found.append(FileStore(copy, sync=False).load())
    return found


def test_a_match_survives_a_strangers_term_and_replay_attacks(lan: Lan, procs: Procs, tmp_path: Path) -> None:
    """SOLO classic for 4 with a pool of 1 (one round), heuristic bots, under attack throughout."""
    me = lan.addr(PEERS)
    attacker = procs.start("attacker", [sys.executable, str(ATTACKER), "--me", me, "--broadcast",
                                            f"{SUBNET}.255", "--rate", str(REPLAYS_PER_SECOND), "--every",
                                            str(1 / TERM_ROUNDS_PER_SECOND)],
                               prefix=["ip", "netns", "exec", lan.strangers[0]])
    wait_until(lambda: "listening" in attacker.out or attacker.popen.poll() is not None, 30, "the attacker")
    assert attacker.popen.poll() is None, attacker.err
    common = ["--auto", "heuristic", "--linger", "4"]
    homes = [tmp_path / "h", *(tmp_path / f"j{i}" for i in range(1, PEERS))]
    host = procs.cardtable("host", "host", "solo", "--name", "netns", "--players", str(PEERS),
                               "--pool", "1", "--home", str(homes[0]), *common,
                               prefix=["ip", "netns", "exec", lan.peers[0]])
    wait_until(lambda: "waiting for" in host.err or host.popen.poll() is not None, 30, "the table")
    joiners = [procs.cardtable(f"join{i}", "join", "netns", "--name", f"j{i}", "--seconds", "15",
                                   "--home", str(homes[i]), *common,
                                   prefix=["ip", "netns", "exec", lan.peers[i]])
               for i in range(1, PEERS)]
    everyone = [host, *joiners]
    for proc in everyone:
        assert proc.wait(150) == 0, f"{proc.name} failed:\n{proc.err[-3000:]}"
    attacker.popen.send_signal(signal.SIGTERM)
    assert attacker.wait(20) == 0, attacker.err
    report = json.loads(attacker.out.strip().splitlines()[-1])

    digests = {proc.name: proc.digest() for proc in everyone}
    assert len(set(digests.values())) == 1, digests
    # The attack happened: it saw the table's traffic and sent both attacks to every peer.
    assert report["table_id"] is not None and report["captured"] > 300, report
    peers = {lan.addr(i) for i in range(PEERS)}
    assert {p.split(":")[0] for p in report["peers"]} == peers, report
    seconds = report["seconds"]  # since it first heard the table
    assert seconds > 5 and report["replayed"] > 10 * seconds, report  # 10 a second at least
    assert report["term_attack"] > PEERS * TERM_ROUNDS_PER_SECOND * seconds / 2, report
    assert report["top_term"] < 1000, report  # no peer ever sent a term the stranger gave
    for home in homes:  # what each peer stored: a sane term, only the peers' addresses
        logs = stored(home, tmp_path)
        assert logs and max(s.term for s in logs) < 1000, (home, [s.term for s in logs])
        hosts = {h for s in logs for _, h, *_ in s.meta.get("addrs", [])}
        assert hosts and hosts <= peers, (home, hosts)


SALT_FLOOD = 100


def test_joiners_find_a_passphrase_table_under_a_salt_flood(lan: Lan, procs: Procs, tmp_path: Path) -> None:
    """SOLO classic for 3 with a pool of 1 and a passphrase; the stranger floods the discovery
    port with 100 look-alike sealed beacons a second (new salts, and salts that come back as a
    table's do) from before the host starts to the end."""
    me = lan.addr(PEERS)
    attacker = procs.start("attacker", [sys.executable, str(ATTACKER), "--me", me, "--broadcast",
                                        f"{SUBNET}.255", "--rate", "0", "--every", "3600",
                                        "--salt-flood", str(SALT_FLOOD)],
                           prefix=["ip", "netns", "exec", lan.strangers[0]])
    wait_until(lambda: "listening" in attacker.out or attacker.popen.poll() is not None, 30, "the attacker")
    assert attacker.popen.poll() is None, attacker.err
    common = ["--auto", "heuristic", "--linger", "3", "--passphrase", "four random words here"]
    homes = [tmp_path / f"p{i}" for i in range(3)]
    host = procs.cardtable("host", "host", "solo", "--name", "sealed", "--players", "3", "--pool", "1",
                           "--home", str(homes[0]), *common, prefix=["ip", "netns", "exec", lan.peers[0]])
    wait_until(lambda: "waiting for" in host.err or host.popen.poll() is not None, 30, "the table")
    started = time.monotonic()
    joiners = [procs.cardtable(f"join{i}", "join", "sealed", "--name", f"j{i}", "--home", str(homes[i]),
                               *common, prefix=["ip", "netns", "exec", lan.peers[i]])
               for i in (1, 2)]
    for proc in [*joiners, host]:  # a joiner that hears no table says so after its 8 s
        assert proc.wait(120) == 0, f"{proc.name} failed:\n{proc.err[-3000:]}"
    flooded = time.monotonic() - started
    attacker.popen.send_signal(signal.SIGTERM)
    assert attacker.wait(20) == 0, attacker.err
    report = json.loads(attacker.out.strip().splitlines()[-1])
    assert len({proc.digest() for proc in [host, *joiners]}) == 1
    # it flooded throughout: at least half its rate over the whole time the joiners ran
    assert report["salt_flood"] > SALT_FLOOD * flooded / 2, (report, flooded)
