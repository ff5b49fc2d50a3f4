"""An equivocating host among real processes on the namespace LAN: named, refused, and the
others finish the match on one history.

The LAN of tests/p2p/test_netns.py (four peer namespaces on a bridge, 10% loss each). The host
is the real program modified to equivocate (tests/p2p/netns_liar.py): once the match is under
way it shows the first joiner a second, validly signed history. Needs root and ``ip``/``nft``:
skipped, saying why, without them.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.p2p.test_netns import PEERS, Lan, _why_not, built_lan, processes_on_the_lan
from tests.p2p.test_processes import Procs, wait_until

pytestmark = pytest.mark.skipif(_why_not() is not None, reason=_why_not() or "")

LOSS = 10
LIAR = Path(__file__).with_name("netns_liar.py")
FIRST = re.compile(r"sequencer: ([0-9a-f]{8}) \(term 1\)")


@pytest.fixture
def lan() -> Iterator[Lan]:
    yield from built_lan(LOSS)


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
        assert f"equivocation: {{'key': '{first.group(1)}" in proc.err, f"{proc.name}:\n{proc.err[-3000:]}"
