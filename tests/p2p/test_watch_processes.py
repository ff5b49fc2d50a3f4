"""Real ``cardtable watch`` processes on loopback (as ``tests/p2p/test_processes.py``): a fifth
spectator of a table whose 4 places are taken is told so in one line and exits with status 3,
within seconds, instead of waiting forever (issue 36 item 5)."""

from __future__ import annotations

import os
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.p2p.test_processes import CARDTABLE, Procs, free_udp_port, wait_until


@pytest.fixture
def watchers(tmp_path: Path) -> Iterator[Procs]:
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2]),
           "CARDTABLE_DISCOVERY_PORT": str(free_udp_port()), "CARDTABLE_BROADCAST": "127.255.255.255",
           "PYTHONUNBUFFERED": "1"}
    env.pop("CARDTABLE_HOME", None)
    env.pop("CARDTABLE_PASSPHRASE", None)
    manager = Procs(tmp_path, env)
    try:
        yield manager
    finally:
        manager.kill_all()


def test_a_fifth_spectator_of_real_processes_is_told_the_places_are_taken(
        watchers: Procs, tmp_path: Path) -> None:
    host = watchers.cardtable("host", "host", "scout", "--name", "den", "--players", "3", "--cpu", "1",
                              "--home", str(tmp_path / "h"), "--auto", "random")
    wait_until(lambda: "waiting for" in host.err, 30, "the table")
    taken = [watchers.start(f"watch{i}", [*CARDTABLE, "watch", "den", "--plain", "--name", f"w{i}"],
                            stdin=subprocess.PIPE) for i in range(4)]
    for proc in taken:
        wait_until(lambda: "watching table 'den'" in proc.err, 30, proc.name)  # noqa: B023 - waited at once
    started = time.monotonic()
    fifth = watchers.cardtable("fifth", "watch", "den", "--plain", "--name", "friend")
    assert fifth.wait(30) == 3, fifth.err
    lines = fifth.err.splitlines()
    assert len(lines) == 1, fifth.err
    assert lines[0].startswith("cardtable: error: the 4 spectator places of table 'den' (")
    assert lines[0].endswith(") are taken; ask the host to make room")
    assert time.monotonic() - started < 15  # beacons heard (about 2 s), then one round trip
    assert all(proc.popen.poll() is None for proc in [host, *taken])  # the table and its spectators go on
