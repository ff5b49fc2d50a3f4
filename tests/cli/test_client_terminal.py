"""The table on a real terminal (a pseudo-terminal, as a player's would be): the bell and the
window title when the game begins to wait for you, and ``NO_COLOR``, byte by byte as written."""

from __future__ import annotations

import fcntl
import os
import pty
import re
import select
import struct
import subprocess
import sys
import termios
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.cli.test_plain_script import CARDTABLE, ROOT

TABLE = """
import sys
from cardtable.cli.controller import Controller
from cardtable.cli.session import LocalSession
from cardtable.cli.tui import TableApp
from tests.cli.test_client_controller import solo_match

match = solo_match(["R7 R8 G3", "R1 G2 G6", "B1 B3 B4", "Y1 Y2 Y3"], turn=1)  # cpu 1 moves first
bell = {"on": True, "off": False, "default": None}[sys.argv[1]]
TableApp(Controller(LocalSession(match, 0, "heuristic"), bell=bell), bot_delay=0.3).run()
"""
"""The table for seat 0 against three computer players, the bell as the argument says."""
YOUR_TURN = "\x1b]2;▶ your turn — cardtable\x1b\\".encode()


def on_a_terminal(argv: list[str], env: dict[str, str], until: Callable[[bytes], bool],
                  size: tuple[int, int] = (80, 24), limit: float = 60.0) -> bytes:
    """Run ``argv`` on a pseudo-terminal of ``size`` (columns, rows) until what it wrote makes
    ``until`` true, then press q twice (leave) and return every byte it wrote."""
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", size[1], size[0], 0, 0))
    proc = subprocess.Popen(argv, stdin=slave, stdout=slave, stderr=slave, cwd=ROOT, start_new_session=True,
                            env={**os.environ, "PYTHONPATH": str(ROOT), "TERM": "xterm-256color",
                                 "COLORTERM": "truecolor", **env})
    os.close(slave)
    out = bytearray()

    def read(seconds: float) -> None:
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            ready, _, _ = select.select([master], [], [], 0.1)
            if ready:
                try:
                    out.extend(os.read(master, 65536))
                except OSError:  # the program ended
                    return

    try:
        start = time.monotonic()
        while not until(bytes(out)) and time.monotonic() - start < limit and proc.poll() is None:
            read(0.2)
        for key in (b"q", b"q"):
            os.write(master, key)
            read(0.5)
        proc.wait(timeout=20)
        read(0.5)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        os.close(master)
    return bytes(out)


def turn_shown(out: bytes) -> bool:
    return b"Your turn" in out


OSC = re.compile(rb"\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)")
"""An operating system command (the title, Textual's pointer shape), which BEL may end."""


def bells(out: bytes) -> int:
    """How many times the bell rang (BEL outside an operating system command)."""
    return OSC.sub(b"", out).count(b"\x07")


def test_the_bell_rings_and_the_title_says_so_when_your_turn_comes() -> None:
    out = on_a_terminal([sys.executable, "-c", TABLE, "on"], {}, turn_shown)
    assert turn_shown(out)
    assert bells(out) == 1  # once: the turn came, it stays yours
    assert out.index(YOUR_TURN) > out.index(b"\x1b[22;0t")  # the terminal's own title kept first ...
    assert out.rindex(b"\x1b[23;0t") > out.index(YOUR_TURN)  # ... and given back at the end


@pytest.mark.parametrize("bell", ["off", "default"])
def test_no_bell_nor_title_when_it_is_off(bell: str) -> None:
    """Asked off, or by default against computer players (``play``)."""
    out = on_a_terminal([sys.executable, "-c", TABLE, bell], {}, turn_shown)
    assert turn_shown(out)
    assert bells(out) == 0 and b"\x1b]2;" not in out


SGR = re.compile(rb"\x1b\[([0-9;]*)m")


def colours(out: bytes) -> set[tuple[int, int, int]]:
    """Every 24-bit colour the program set (foreground and background)."""
    found = set()
    for params in SGR.findall(out):
        codes = [int(p) for p in params.split(b";") if p]
        i = 0
        while i < len(codes):
            if codes[i] in (38, 48) and i + 4 < len(codes) + 1 and codes[i + 1:i + 2] == [2]:
                found.add((codes[i + 2], codes[i + 3], codes[i + 4]))
                i += 5
            else:
                i += 1
    return found


@pytest.fixture(scope="module")
def match_log(tmp_path_factory: pytest.TempPathFactory) -> Path:
    where = tmp_path_factory.mktemp("logs")
    subprocess.run([*CARDTABLE, "match", "solo", "--players", "3", "--games", "1", "--seed", "5", "--log-dir",
                    str(where)], cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)}, check=True,
                   capture_output=True, timeout=120)
    return where / "game-0000.ctlog"


@pytest.mark.parametrize("command", ["play", "replay"])
def test_no_color_draws_in_greys_alone(command: str, match_log: Path, tmp_path: Path) -> None:
    """Under ``NO_COLOR`` (https://no-color.org) every colour written is a grey (Textual's, and
    the cards' own); without it, the cards are in colour."""
    argv = [*CARDTABLE, "play", "solo", "--seed", "3", "--no-network", "--bots", "heuristic"]
    if command == "replay":
        argv = [*CARDTABLE, "replay", str(match_log), "--view"]
    home = {"CARDTABLE_HOME": str(tmp_path)}
    drawn = b"Your hand" if command == "play" else b"Hands"
    plain = on_a_terminal(argv, {**home, "NO_COLOR": "1"}, lambda out: drawn in out)
    assert drawn in plain
    assert {rgb for rgb in colours(plain) if len(set(rgb)) > 1} == set()
    coloured = on_a_terminal(argv, home, lambda out: drawn in out)
    cards = {(0xc6, 0x28, 0x28), (0x2e, 0x7d, 0x32), (0x15, 0x65, 0xc0), (0xfd, 0xd8, 0x35)}  # R, G, B, Y
    assert cards & colours(coloured)
