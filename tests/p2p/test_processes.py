"""Real ``cardtable`` processes on loopback: a whole match, with a peer killed and restarted.

Every process is started through ``Procs``, which kills whatever is still running when the
test ends, pass or fail. Each test uses its own discovery port and sends beacons only to
``127.255.255.255``, so it neither hears nor disturbs any other table on the host.
"""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CARDTABLE = [sys.executable, "-c", "from cardtable.cli.main import main; main()"]
DIGEST = re.compile(r"^digest: ([0-9a-f]{64})$", re.M)


def free_udp_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Proc:
    """One started process; its stdout and stderr go to files (never a full pipe)."""

    def __init__(self, name: str, popen: subprocess.Popen[bytes], out: Path, err: Path) -> None:
        self.name, self.popen, self.out_path, self.err_path = name, popen, out, err

    @property
    def out(self) -> str:
        return self.out_path.read_text(errors="replace")

    @property
    def err(self) -> str:
        return self.err_path.read_text(errors="replace")

    def wait(self, timeout: float) -> int:
        try:
            return self.popen.wait(timeout)
        except subprocess.TimeoutExpired:
            raise AssertionError(f"{self.name} still running after {timeout:g} s; "
                                 f"stderr:\n{self.err[-3000:]}") from None

    def digest(self) -> str:
        found = DIGEST.findall(self.out)
        assert len(found) == 1, f"{self.name}: no digest; stdout {self.out!r}; stderr:\n{self.err[-3000:]}"
        return str(found[0])

    def kill(self) -> None:
        if self.popen.poll() is None:
            self.popen.send_signal(signal.SIGKILL)
            self.popen.wait(10)


class Procs:
    """Starts processes and kills every one still alive at the end."""

    def __init__(self, workdir: Path, env: dict[str, str]) -> None:
        self.workdir, self.env = workdir, env
        self.all: list[Proc] = []

    def start(self, name: str, argv: Sequence[str], prefix: Sequence[str] = (),
              stdin: int = subprocess.DEVNULL) -> Proc:
        n = len(self.all)
        out, err = self.workdir / f"{n}-{name}.out", self.workdir / f"{n}-{name}.err"
        with open(out, "wb") as fo, open(err, "wb") as fe:
            popen = subprocess.Popen([*prefix, *argv], cwd=ROOT, env=self.env, stdout=fo, stderr=fe,
                                     stdin=stdin)
        proc = Proc(name, popen, out, err)
        self.all.append(proc)
        return proc

    def cardtable(self, name: str, *args: str, prefix: Sequence[str] = ()) -> Proc:
        return self.start(name, [*CARDTABLE, *args], prefix)

    def kill_all(self) -> None:
        for proc in self.all:
            try:
                proc.kill()
            except (OSError, subprocess.TimeoutExpired):
                pass


@pytest.fixture
def procs(tmp_path: Path) -> Iterator[Procs]:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "CARDTABLE_DISCOVERY_PORT": str(free_udp_port()),
           "CARDTABLE_BROADCAST": "127.255.255.255", "PYTHONUNBUFFERED": "1"}
    env.pop("CARDTABLE_HOME", None)
    env.pop("CARDTABLE_PASSPHRASE", None)
    manager = Procs(tmp_path, env)
    try:
        yield manager
    finally:
        manager.kill_all()


def wait_until(predicate: Callable[[], bool], timeout: float, what: str, poll: float = 0.02) -> None:
    end = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > end:
            raise AssertionError(f"timed out after {timeout:g} s waiting for {what}")
        time.sleep(poll)


def test_four_processes_play_a_match_through_a_crash_and_restart(procs: Procs, tmp_path: Path) -> None:
    """Host + 3 joiners, SCOUT for 4 (4 rounds). A joiner is SIGKILLed after round 1, stays
    away long enough for its seat to be taken over by a bot, comes back with the same --home
    (resuming from its log) and takes its seat back; everyone ends with the same digest."""
    common = ["--auto", "random", "--takeover", "1.0", "--linger", "3"]
    host = procs.cardtable("host", "host", "scout", "--name", "proc-table", "--players", "4", "--cpu", "0",
                           "--home", str(tmp_path / "h"), *common)
    joiners = [procs.cardtable(f"join{i}", "join", "proc-table", "--name", f"j{i}", "--seconds", "10",
                               "--home", str(tmp_path / f"j{i}"), *common) for i in range(3)]
    victim = joiners[0]
    wait_until(lambda: "round 1 ends" in victim.err or victim.popen.poll() is not None, 60, "round 1 to end")
    assert victim.popen.poll() is None, f"the victim exited early:\n{victim.err}"
    victim.kill()
    assert "match over" not in victim.err  # killed mid-match
    wait_until(lambda: "played by a bot" in host.err, 30, "the host to let a bot play the silent seat")
    back = procs.cardtable("join0-again", "join", "--name", "j0", "--home", str(tmp_path / "j0"), *common)
    survivors = [host, *joiners[1:], back]
    for proc in survivors:
        assert proc.wait(90) == 0, f"{proc.name} failed:\n{proc.err[-3000:]}"
    digests = {proc.name: proc.digest() for proc in survivors}
    assert len(set(digests.values())) == 1, digests
    assert "resuming table 'proc-table'" in back.err
    # the restarted peer took its seat back (at a hidden-hands table, from the next deal)
    assert "is back with its owner" in host.err or "j0 is back and plays from the next deal" in host.err
    assert "match over" in back.err


def test_join_without_auto_and_without_a_terminal_is_a_one_line_error(procs: Procs) -> None:
    """Without --auto the terminal client plays the seat; with no terminal it says what to do."""
    proc = procs.cardtable("join", "join")
    assert proc.wait(30) == 2
    lines = proc.err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("cardtable: error: ") and "--plain" in lines[0], lines


def test_join_with_no_table_heard_is_a_one_line_error(procs: Procs, tmp_path: Path) -> None:
    proc = procs.cardtable("join", "join", "--auto", "random", "--seconds", "0.5",
                           "--home", str(tmp_path / "j"))
    assert proc.wait(30) == 1
    lines = proc.err.strip().splitlines()
    assert len(lines) == 1, lines
    assert lines[0].startswith("cardtable: error: no table heard on the LAN in 0.5 s: is it running, "
                               "on this LAN, with UDP port "), lines
    assert lines[0].endswith(" open? (a passphrase table is heard only with its --passphrase)"), lines


def test_join_with_two_tables_heard_lists_them_and_exits_2(procs: Procs, tmp_path: Path) -> None:
    hosts = [procs.cardtable(f"host{i}", "host", "solo", "--name", f"t{i}", "--players", "3",
                             "--auto", "random", "--home", str(tmp_path / f"h{i}")) for i in range(2)]
    wait_until(lambda: all("waiting for" in h.err for h in hosts), 30, "both tables")
    proc = procs.cardtable("join", "join", "--auto", "random", "--home", str(tmp_path / "j"))
    assert proc.wait(30) == 2
    lines = proc.err.strip().splitlines()
    assert lines[-1] == "cardtable: error: 2 tables heard: give TABLE (a name or an id prefix) " \
                        "(see 'cardtable join --help')"
    assert any(" t0 " in line for line in lines) and any(" t1 " in line for line in lines)


def test_a_passphrase_table_is_private(procs: Procs, tmp_path: Path) -> None:
    """Without the passphrase the table is not heard; with it, a two-player match is played."""
    host = procs.cardtable("host", "host", "solo", "--name", "secret", "--players", "2", "--pool", "1",
                           "--passphrase", "pw", "--auto", "heuristic", "--linger", "1",
                           "--home", str(tmp_path / "h"))
    wait_until(lambda: "waiting for" in host.err, 30, "the table")
    outsider = procs.cardtable("tables", "tables", "--json", "--seconds", "2.5")  # two beacons at least
    assert outsider.wait(30) == 0 and outsider.out.strip() == "[]"
    assert "with a passphrase heard: give its --passphrase" in outsider.err, outsider.err
    wrong = procs.cardtable("wrong", "join", "secret", "--passphrase", "pv", "--auto", "heuristic",
                            "--seconds", "3.5", "--home", str(tmp_path / "w"))  # its salt fails twice
    assert wrong.wait(30) == 1
    lines = wrong.err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("cardtable: error: no table heard 'secret'") \
        and "this --passphrase does not open (a wrong passphrase?)" in lines[0], lines
    guest = procs.cardtable("join", "join", "secret", "--passphrase", "pw", "--auto", "heuristic",
                            "--linger", "1", "--home", str(tmp_path / "j"))
    assert guest.wait(60) == 0 and host.wait(60) == 0, guest.err + host.err
    assert guest.digest() == host.digest()


def test_join_by_address_with_and_without_broadcast(procs: Procs, tmp_path: Path) -> None:
    """HOST:PORT picks the table heard at that address; ID@HOST:PORT needs no beacon at all
    (that joiner listens on another discovery port, so it cannot hear any)."""
    host = procs.cardtable("host", "host", "solo", "--name", "by-address", "--players", "3", "--pool", "1",
                           "--auto", "heuristic", "--linger", "2", "--home", str(tmp_path / "h"))
    wait_until(lambda: "UDP port" in host.err or host.popen.poll() is not None, 30, "the table")
    found = re.search(r"id ([0-9a-f]{32}), UDP port (\d+)", host.err)
    assert found, host.err
    table_id, port = found.groups()
    by_addr = procs.cardtable("join-addr", "join", f"127.0.0.1:{port}", "--auto", "heuristic",
                              "--linger", "2", "--home", str(tmp_path / "a"))
    procs.env = {**procs.env, "CARDTABLE_DISCOVERY_PORT": str(free_udp_port())}
    deaf = procs.cardtable("join-id", "join", f"{table_id}@127.0.0.1:{port}", "--auto", "heuristic",
                           "--linger", "2", "--home", str(tmp_path / "b"))
    for proc in (host, by_addr, deaf):
        assert proc.wait(60) == 0, f"{proc.name}:\n{proc.err}"
    assert host.digest() == by_addr.digest() == deaf.digest()
    assert f"joining table {table_id[:8]} at 127.0.0.1:{port}" in deaf.err


def test_a_player_who_left_joins_again_and_gets_the_seat_back(procs: Procs, tmp_path: Path) -> None:
    """Host + 2 joiners, SCOUT for 3. One plays with --plain and leaves once the cards are dealt
    (a computer player plays its seat); the same join with the same --home comes back from its
    kept log and takes the seat back; every machine ends with the same digest."""
    common = ["--linger", "3"]
    host = procs.cardtable("host", "host", "scout", "--name", "back-table", "--players", "3", "--cpu", "0",
                           "--home", str(tmp_path / "h"), "--auto", "random", "--bot-delay", "3", *common)
    other = procs.cardtable("join1", "join", "back-table", "--name", "j1", "--seconds", "10",
                            "--home", str(tmp_path / "j1"), "--auto", "random", *common)
    n = len(procs.all)
    out, err = tmp_path / f"{n}-join0.out", tmp_path / f"{n}-join0.err"
    with open(out, "wb") as fo, open(err, "wb") as fe:
        argv = [*CARDTABLE, "join", "back-table", "--name", "j0", "--plain", "--home", str(tmp_path / "j0")]
        popen = subprocess.Popen(argv, cwd=ROOT, env=procs.env, stdout=fo, stderr=fe, stdin=subprocess.PIPE)
    leaver = Proc("join0", popen, out, err)
    procs.all.append(leaver)
    wait_until(lambda: "hand:" in leaver.out or popen.poll() is not None, 60, "the cards to be dealt")
    assert popen.stdin is not None
    popen.stdin.write(b"leave\n")
    popen.stdin.close()
    assert leaver.wait(30) == 0, leaver.err
    wait_until(lambda: "j0 left" in host.err, 20, "the host to tell that j0 left")
    assert "match over" not in host.err
    back = procs.cardtable("join0-again", "join", "back-table", "--name", "j0", "--seconds", "10",
                           "--home", str(tmp_path / "j0"), "--auto", "random", *common)
    for proc in (host, other, back):
        assert proc.wait(150) == 0, f"{proc.name} failed:\n{proc.err[-3000:]}"
    assert len({proc.digest() for proc in (host, other, back)}) == 1
    assert "coming back to table 'back-table'" in back.err and "takes no new players" not in back.err
    assert "kept the previous table log" not in back.err  # its kept log is used again
    assert "j0 is back" in host.err and "j0 is back" in other.err


def test_watch_a_table_of_real_processes_in_line_mode(procs: Procs, tmp_path: Path) -> None:
    """``cardtable watch NAME --plain`` follows a table from its lobby to its end as a spectator: the
    moves in words, no seat, and the players' digest (its stdin stays open: end of input quits)."""
    common = ["--auto", "random", "--bot-delay", "0.1", "--linger", "1"]
    host = procs.cardtable("host", "host", "scout", "--name", "den", "--players", "3", "--cpu", "1",
                           "--home", str(tmp_path / "h"), *common)
    wait_until(lambda: "waiting for" in host.err, 30, "the table")
    watcher = procs.start("watch", [*CARDTABLE, "watch", "den", "--plain"], stdin=subprocess.PIPE)
    wait_until(lambda: "watching table 'den'" in watcher.err, 30, "the spectator")
    join = procs.cardtable("join", "join", "den", "--home", str(tmp_path / "j"), *common)
    assert host.wait(120) == 0 and join.wait(60) == 0, host.err + join.err
    assert watcher.wait(60) == 0, watcher.err
    assert watcher.digest() == host.digest() == join.digest()
    assert "match over" in watcher.out.lower() and "your turn" not in watcher.out
