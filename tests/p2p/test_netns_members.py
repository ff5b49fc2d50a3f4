"""Modified members among real processes on the namespace LAN.

The LAN of tests/p2p/test_netns.py (four peer namespaces on a bridge, 10% loss each). An
equivocating host: the real program modified to equivocate (tests/p2p/netns_liar.py) shows
the first joiner a second, validly signed history once the match is under way; it is named,
refused, and the others finish on one history. A member that left: a fifth namespace on the
bridge (made a hub) holds the key and the join entry of a peer that joined and left, and
sends every peer ``APPEND``s carrying that entry with terms far ahead
(tests/p2p/netns_exmember.py); no term moves and the match finishes. Needs root and
``ip``/``nft``: skipped, saying why, without them.
"""

from __future__ import annotations

import json
import re
import shutil
import signal
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from cardtable.p2p.store import FileStore
from tests.p2p.test_netns import PEERS, Lan, _why_not, built_lan, processes_on_the_lan
from tests.p2p.test_processes import Procs, wait_until

pytestmark = pytest.mark.skipif(_why_not() is not None, reason=_why_not() or "")

LOSS = 10
LIAR = Path(__file__).with_name("netns_liar.py")
EX_MEMBER = Path(__file__).with_name("netns_exmember.py")
FIRST = re.compile(r"sequencer: ([0-9a-f]{8}) \(term 1\)")


@pytest.fixture
def lan() -> Iterator[Lan]:
    yield from built_lan(LOSS, strangers=1)


@pytest.fixture
def procs(tmp_path: Path) -> Iterator[Procs]:
    yield from processes_on_the_lan(tmp_path)


def test_an_equivocating_host_is_named_and_the_others_finish_on_one_history(lan: Lan, procs: Procs,
                                                                           tmp_path: Path) -> None:
    """SOLO classic for 4 with a pool of 1 (one round), heuristic bots."""
    common = ["--auto", "heuristic", "--linger", "4"]
    liar = procs.start("liar", [sys.executable, str(LIAR), "host", "solo", "--name", "liars", "--players",
                                str(PEERS), "--pool", "1", "--home", str(tmp_path / "h"), *common],
                       prefix=["ip", "netns", "exec", lan.peers[0]])
    wait_until(lambda: "waiting for" in liar.err or liar.popen.poll() is not None, 30, "the table")
    joiners = [procs.cardtable(f"join{i}", "join", "liars", "--name", f"j{i}", "--seconds", "15",
                               "--home", str(tmp_path / f"j{i}"), *common,
                               prefix=["ip", "netns", "exec", lan.peers[i]])
               for i in range(1, PEERS)]
    for proc in joiners:
        assert proc.wait(120) == 0, f"{proc.name} failed:\n{proc.err[-3000:]}"
    assert "equivocating from entry" in liar.err, liar.err[-3000:]
    digests = {proc.name: proc.digest() for proc in joiners}
    assert len(set(digests.values())) == 1, digests
    for proc in joiners:  # every honest screen names it (the host: the first term's sequencer)
        first = FIRST.search(proc.err)
        assert first is not None, proc.err
        named = ("sent two different histories as sequencer: every member refuses it as sequencer from now "
                 f"on, and another one is chosen (key {first.group(1)[:8]})")
        assert named in proc.err, f"{proc.name}:\n{proc.err[-3000:]}"


def test_a_member_that_left_moves_no_term_on_a_real_lan(lan: Lan, procs: Procs, tmp_path: Path) -> None:
    """A joiner in line mode with no input leaves at once (its join and leave in the log); a
    fifth namespace then sends every peer its join entry in APPENDs ten rounds a second, terms
    one or 2**20 ahead, while three more joiners fill the table and play: one digest, no
    stored term near the attack's."""
    attacker = procs.start("ex-member", [sys.executable, str(EX_MEMBER), "--me", lan.addr(PEERS), "--home",
                                         str(tmp_path / "gone")],
                           prefix=["ip", "netns", "exec", lan.strangers[0]])
    wait_until(lambda: "listening" in attacker.out or attacker.popen.poll() is not None, 30, "the attacker")
    common = ["--auto", "heuristic", "--linger", "4"]
    homes = [tmp_path / "h", *(tmp_path / f"j{i}" for i in range(1, PEERS))]
    host = procs.cardtable("host", "host", "solo", "--name", "exm", "--players", str(PEERS), "--pool", "1",
                           "--home", str(homes[0]), *common, prefix=["ip", "netns", "exec", lan.peers[0]])
    wait_until(lambda: "waiting for" in host.err or host.popen.poll() is not None, 30, "the table")
    gone = procs.cardtable("gone", "join", "exm", "--name", "gone", "--seconds", "15", "--plain", "--home",
                           str(tmp_path / "gone"), prefix=["ip", "netns", "exec", lan.peers[1]])
    assert gone.wait(60) == 0, gone.err[-3000:]
    joiners = [procs.cardtable(f"join{i}", "join", "exm", "--name", f"j{i}", "--seconds", "15",
                               "--home", str(homes[i]), *common, prefix=["ip", "netns", "exec", lan.peers[i]])
               for i in range(1, PEERS)]
    everyone = [host, *joiners]
    for proc in everyone:
        assert proc.wait(120) == 0, f"{proc.name} failed:\n{proc.err[-3000:]}"
    attacker.popen.send_signal(signal.SIGTERM)
    assert attacker.wait(20) == 0, attacker.err
    report = json.loads(attacker.out.strip().splitlines()[-1])
    digests = {proc.name: proc.digest() for proc in everyone}
    assert len(set(digests.values())) == 1, digests
    assert report["ready"] and report["sent"] > 50 and len(report["peers"]) >= PEERS, report
    for home in homes:  # no stored term anywhere near the attack's 2**20
        copy = tmp_path / "copy.log"
        shutil.copyfile(home / "table.log", copy)
        assert FileStore(copy, sync=False).load().term < 1000, home
