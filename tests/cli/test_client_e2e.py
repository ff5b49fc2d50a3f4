"""Two real processes on loopback: a host whose seat and computer seat are bots, and a joiner in
``--plain`` line mode whose moves this test types on its stdin, reading the legal moves from the
prompt lines it prints. The match must end with the same digest in both."""

from __future__ import annotations

import os
import queue
import random
import re
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CARDTABLE = [sys.executable, "-c", "from cardtable.cli.main import main; main()"]
DIGEST = re.compile(r"^digest: ([0-9a-f]{64})$", re.M)
PROMPT = re.compile(r"^your turn \(seat (\d+)\): (\d+) moves?: (.*)$")


def free_udp_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Started:
    """The processes of one test, all killed at its end, pass or fail."""

    def __init__(self) -> None:
        self.procs: list[subprocess.Popen[str]] = []

    def add(self, proc: subprocess.Popen[str]) -> subprocess.Popen[str]:
        self.procs.append(proc)
        return proc

    def kill_all(self) -> None:
        for proc in self.procs:
            if proc.poll() is None:
                proc.send_signal(signal.SIGKILL)
                proc.wait(10)


@pytest.fixture
def started() -> Iterator[Started]:
    s = Started()
    try:
        yield s
    finally:
        s.kill_all()


def test_a_plain_player_finishes_a_match_against_a_host_with_computer_players(started: Started,
                                                                                tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "CARDTABLE_DISCOVERY_PORT": str(free_udp_port()),
           "CARDTABLE_BROADCAST": "127.255.255.255", "PYTHONUNBUFFERED": "1"}
    env.pop("CARDTABLE_HOME", None)
    env.pop("CARDTABLE_PASSPHRASE", None)
    host_out, host_err = open(tmp_path / "host.out", "w"), open(tmp_path / "host.err", "w")  # noqa: SIM115
    host = started.add(subprocess.Popen(
        [*CARDTABLE, "host", "scout", "--name", "e2e", "--players", "3", "--cpu", "1", "--auto", "heuristic",
         "--bot-delay", "0.2", "--linger", "2", "--home", str(tmp_path / "h")],
        cwd=ROOT, env=env, stdin=subprocess.DEVNULL, stdout=host_out, stderr=host_err, text=True))
    join_err = open(tmp_path / "join.err", "w")  # noqa: SIM115
    joiner = started.add(subprocess.Popen(
        [*CARDTABLE, "join", "e2e", "--name", "bea", "--plain", "--seconds", "15", "--linger", "2",
         "--home", str(tmp_path / "j")],
        cwd=ROOT, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=join_err, text=True,
        bufsize=1))
    lines: queue.Queue[str | None] = queue.Queue()
    seen: list[str] = []

    def read() -> None:
        assert joiner.stdout is not None
        for line in joiner.stdout:
            lines.put(line.rstrip("\n"))
        lines.put(None)

    threading.Thread(target=read, daemon=True).start()
    rng = random.Random(6)
    answered = 0
    deadline = time.monotonic() + 75
    while True:
        remaining = deadline - time.monotonic()
        assert remaining > 0, "the match did not end in time; joiner said:\n" + "\n".join(seen[-40:]) \
            + "\n" + (tmp_path / "join.err").read_text()[-2000:]
        try:
            line = lines.get(timeout=remaining)
        except queue.Empty:
            continue
        if line is None:
            break
        seen.append(line)
        m = PROMPT.match(line)
        if m:
            assert m.group(1) == "1"  # the host is seat 0, the computer seat 2
            moves = m.group(3).split(" [+")[0].split()
            assert moves and len(moves) <= int(m.group(2))
            assert joiner.stdin is not None
            joiner.stdin.write(rng.choice(moves) + "\n")
            joiner.stdin.flush()
            answered += 1
    assert joiner.wait(30) == 0, (tmp_path / "join.err").read_text()[-3000:]
    assert host.wait(30) == 0, (tmp_path / "host.err").read_text()[-3000:]
    out = "\n".join(seen)
    joined_digest = DIGEST.findall(out)
    host_digest = DIGEST.findall((tmp_path / "host.out").read_text())
    assert len(joined_digest) == 1 and joined_digest == host_digest
    assert answered >= 10  # a flip/keep per round and the plays of three rounds
    assert "the match is over" in out
    assert sum(1 for line in seen if line.startswith("Round ") and "summary" in line) == 3
    assert any(line.startswith("Match over after 3 rounds") for line in seen)
    assert any(line.startswith("You show ") for line in seen)
    for f in (host_out, host_err, join_err):
        f.close()


def test_play_plain_on_loopback_then_leave_at_end_of_input(started: Started, tmp_path: Path) -> None:
    """``cardtable play`` through the p2p stack on loopback: the prompt, a bad move (one line on
    stderr, the prompt again), two good moves, then end of input hands the seat to a computer."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONUNBUFFERED": "1"}
    err_path = tmp_path / "play.err"
    with open(err_path, "w") as err:
        proc = started.add(subprocess.Popen(
            [*CARDTABLE, "play", "scout", "--players", "3", "--plain", "--seed", "4", "--bots", "heuristic"],
            cwd=ROOT, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=err, text=True,
            bufsize=1))
    assert proc.stdin is not None and proc.stdout is not None
    seen: list[str] = []
    answers = ["show:99", "keep", "first"]
    deadline = time.monotonic() + 30
    while answers:
        assert time.monotonic() < deadline, "\n".join(seen)
        line = proc.stdout.readline().rstrip("\n")
        assert line or proc.poll() is None, "\n".join(seen) + err_path.read_text()
        seen.append(line)
        m = PROMPT.match(line)
        if m:
            assert m.group(1) == "0"
            answer = answers.pop(0)
            if answer == "first":
                answer = m.group(3).split()[0]
            elif answer == "keep":
                assert m.group(3) == "flip keep"
            proc.stdin.write(answer + "\n")
            proc.stdin.flush()
    proc.stdin.close()  # end of input: leave
    assert proc.wait(30) == 0, err_path.read_text()
    seen += proc.stdout.read().splitlines()
    err_lines = err_path.read_text().splitlines()
    assert err_lines[0] == "seed: 4"
    assert any(e.startswith("cardtable: ") and "show:99" in e for e in err_lines), err_lines
    assert "Traceback" not in err_path.read_text()
    assert "You keep your hand as dealt" in seen
    assert ("You leave the table; the match is kept where it stands: cardtable play --resume takes it up "
            "again") in seen  # a play match: kept for play --resume
    assert not any(line.startswith("digest:") for line in seen)  # left before the end
