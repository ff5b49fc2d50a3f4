"""``--plain`` for scripts: piped lines are queued and each is used when the seat may act; a bad
line still gets its one-line error; end of input after the last line leaves cleanly (exit 0).
The same --seed deals the same cards with and without the network."""

from __future__ import annotations

import io
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CARDTABLE = [sys.executable, "-c", "from cardtable.cli.main import main; main()"]
SCRIPT = "R99\nG5\ndraw\nkeep\n"  # (computer players wait 0.5 s: the script is faster)


def run_script(tmp_path: Path, *extra: str) -> tuple[list[str], list[str], int]:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "CARDTABLE_HOME": str(tmp_path / "home")}
    proc = subprocess.run(
        [*CARDTABLE, "play", "solo", "--plain", "--players", "3", "--seed", "7", "--bots", "heuristic",
         "--bot-delay", "0.5", *extra],
        cwd=ROOT, env=env, input=SCRIPT, capture_output=True, text=True, timeout=120)
    return proc.stdout.splitlines(), proc.stderr.splitlines(), proc.returncode


def kept_play_log(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    """A ``play`` match (SOLO, 3 players, seed 7) whose person draws and keeps, then leaves: its
    kept log, and the environment that home was made with."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "CARDTABLE_HOME": str(tmp_path / "home")}
    proc = subprocess.run([*CARDTABLE, "play", "solo", "--plain", "--players", "3", "--seed", "7", "--bots",
                           "heuristic", "--bot-delay", "0.1"], cwd=ROOT, env=env, input="draw\nkeep\n",
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    return tmp_path / "home" / "play" / "table.log", env


@pytest.mark.parametrize("network", [False, True], ids=["no-network", "loopback"])
def test_a_piped_script_plays_its_lines_as_its_turns_come(tmp_path: Path, network: bool) -> None:
    out, err, code = run_script(tmp_path, *([] if network else ["--no-network"]))
    assert code == 0, err
    assert "Traceback" not in "\n".join(err)
    # the one bad line, and only it, gets one line on stderr
    assert [e for e in err if e.startswith("cardtable:")] == [
        "cardtable: 'R99' is not a SOLO action: 'R99' is not a SOLO card (try R7, Gskip, Bd2, wild, protY)"]
    # every line is echoed when used, in order, each at a moment the seat could use it
    used = [line for line in out if line in SCRIPT.split()]
    assert used == SCRIPT.split()
    mine = [line for line in out if line.startswith("You ") and not line.startswith("You are seated")]
    assert mine[:3] == ["You play G5", "You draw a card", "You keep the card drawn"]
    # "draw" was held while the others played after our G5: it came after our next turn's prompt
    between = out[out.index("You play G5"):out.index("draw")]
    assert [line for line in between if line.startswith("cpu ")], between
    assert between[-1].startswith("your turn (seat 0)")
    assert "hand: R3 R3 G4 G5 B3 B4 B9 pass" in out  # the deal of --seed 7, with or without network
    assert out[-1].startswith("You leave the table") or out[-2].startswith("You leave the table")


def test_a_line_typed_ahead_is_held_and_said_so() -> None:
    """Typed (not piped): an action that cannot be made yet waits for the seat's turn, and the
    player is told it waits; then it is played."""
    import asyncio
    import io

    from cardtable.cli.controller import Controller
    from cardtable.cli.plain import PlainClient
    from cardtable.cli.session import LocalSession
    from tests.cli.test_client_controller import solo_match

    session = LocalSession(solo_match(["R7 G3", "R1 G1", "R2 B1", "R3 Y1"], turn=1), 0, "heuristic")
    out = io.StringIO()
    client = PlainClient(Controller(session), out, io.StringIO(), bot_delay=0.0)

    async def main() -> None:
        lines: asyncio.Queue[str | None] = asyncio.Queue()
        for line in ("R7", None):
            lines.put_nowait(line)
        await asyncio.wait_for(client.run(lines, tick=0.01), 30)

    asyncio.run(main())
    said = out.getvalue().splitlines()
    assert "(held until your seat may act: R7)" in said
    assert said.index("(held until your seat may act: R7)") < said.index("You play R7")


class Terminal(io.StringIO):
    """Output that says it is a terminal."""

    def isatty(self) -> bool:
        return True


def test_plain_rings_the_bell_as_your_turn_comes_on_a_terminal_only() -> None:
    from cardtable.cli.controller import Controller
    from cardtable.cli.plain import PlainClient
    from cardtable.cli.session import LocalSession
    from tests.cli.test_client_controller import solo_match

    for out, bell, rings in ((Terminal(), True, 1), (io.StringIO(), True, 0), (Terminal(), False, 0)):
        session = LocalSession(solo_match(["R7 G3", "R1 G1", "R2 B1", "R3 Y1"], turn=1), 0, "heuristic")
        client = PlainClient(Controller(session, bell=bell), out, io.StringIO(), bot_delay=0.0)
        for _ in range(5):  # cpu 1, 2 and 3 move, then it is your turn (and stays so)
            client.poll()
        assert "your turn (seat 0)" in out.getvalue()
        assert out.getvalue().count("\a") == rings, (bell, out.isatty())


def test_plain_view_shows_no_pending_penalty_once_the_match_is_over() -> None:
    from cardtable.cli.controller import Controller
    from cardtable.cli.plain import PlainClient
    from cardtable.cli.session import LocalSession
    from tests.cli.test_client_controller import solo_match

    for over in (False, True):
        match = solo_match(["" if over else "R7", "G1 G2", "B1 B3", "Y1"], discard="R5 Rd2 Gd2", penalty=4,
                           penalty_kind="d2", turn=1, winner=0 if over else None)
        match.totals = [0, 520, 480, 470]
        out = io.StringIO()
        controller = Controller(LocalSession(match, 0, "heuristic"))
        PlainClient(controller, out, io.StringIO(), bot_delay=None).view()
        assert ("penalty 4 pending" in out.getvalue()) == (not over), out.getvalue()
