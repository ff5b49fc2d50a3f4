"""The computer players of a play/host table for a bot author: --bots in match's LABEL=ENTRY form,
one a computer seat; their names on the table; their faults told at the table; their stderr in a
file (the full-screen table would paint over it)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from cardtable.ai import bot_logs
from cardtable.cli.seat_bots import keep_logs, shown_names, table_spec, tell_faults
from cardtable.cli.session import LocalSession
from cardtable.engine.match import Match
from cardtable.engine.solo import Config as SoloConfig
from tests.ai.test_process_bot import ROOT, bad
from tests.cli.test_match_cli import run
from tests.cli.test_plain_script import CARDTABLE

EXAMPLE = f"cmd:{sys.executable} {ROOT / 'examples' / 'json_bot.py'}"


def test_one_bot_a_computer_seat_each_with_its_label() -> None:
    spec = table_spec(f"me={EXAMPLE},heuristic,strong", 4, [1, 2, 3], "solo", 0.0)
    session = LocalSession(Match(SoloConfig.preset("classic", 4), b"seed"), 0, spec)
    assert session.names() == ["you", "me", "heuristic", "ismcts:strong"]
    assert session.bots[1].name == "json-bot" and session.bots[2].name == "heuristic"
    assert type(session.bots[3]).__name__ == "IsmctsBot"
    session.bots[1].close()


def test_host_s_computer_seats_are_the_last_and_a_program_is_named_by_its_hello() -> None:
    spec = table_spec(f"{EXAMPLE},random", 4, [2, 3], "scout", 0.0)  # host --players 4 --cpu 2
    names = shown_names(["ann", "bea", "cpu 2", "cpu 3"], spec)
    assert names == ["ann", "bea", "json-bot", "random"]
    left = shown_names(["ann", "bea", "bea (cpu)", "cpu 3"], spec)
    assert left[2] == "bea (cpu)", "a person's seat keeps its name"


def test_one_bot_for_all_keeps_cpu_n_unless_labelled() -> None:
    assert shown_names(["you", "cpu 1", "cpu 2"], table_spec("heuristic", 3, [1, 2], "solo", 0.1)) == \
        ["you", "cpu 1", "cpu 2"]
    assert shown_names(["you", "cpu 1", "cpu 2"], table_spec("me=heuristic", 3, [1, 2], "solo", 0.1)) == \
        ["you", "me 1", "me 2"]


@pytest.mark.parametrize("argv, fragment", [
    (("play", "solo", "--plain", "--players", "4", "--bots", "heuristic,random"), "give 1 bot or 3"),
    (("play", "solo", "--plain", "--bots", "heuristic,nosuchbot,random"), "unknown bot 'nosuchbot'"),
    (("host", "solo", "--name", "t", "--players", "4", "--cpu", "1", "--auto", "random", "--bots", "a,b"),
     "give 1 bot or 1"),
])
def test_a_wrong_bots_list_is_one_line(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                       monkeypatch: pytest.MonkeyPatch, argv: tuple[str, ...],
                                       fragment: str) -> None:
    monkeypatch.setenv("CARDTABLE_HOME", str(tmp_path))
    code, out, err = run(capsys, *argv)
    assert code == 2 and fragment in err and "Traceback" not in err


def test_a_fault_is_told_at_the_table_once_and_the_stderr_file_named(tmp_path: Path) -> None:
    spec = table_spec(f"crash={bad('crash')},cheat={bad('cheat')}", 3, [1, 2], "solo", 0.0)
    said: list[str] = []
    keep_logs(tmp_path, None)
    try:
        session = LocalSession(Match(SoloConfig.preset("classic", 3), b"seed"), 0, spec)
        tell_faults(said.append, session.names, lambda: [1, 2], spec)
        for _ in range(30):
            session.run_bots()
            if session.is_over() or session.match().to_move() != 0:
                break
            session.propose(str(session.legal()[-1]))
    finally:
        bot_logs.configure(bot_logs.BotLogs())
        for bot in session.bots.values():
            bot.close()
    where = tmp_path / "bots"
    assert said[:2] == [f"seat 1 (crash) is a program: its stderr goes to {where / 'seat-1.stderr'}",
                        f"seat 2 (cheat) is a program: its stderr goes to {where / 'seat-2.stderr'}"]
    faults = said[2:]
    assert f"bot fault: crash's program stopped: it exited (code 3); the heuristic bot plays the seat from " \
           f"now on (its stderr: {where / 'seat-1.stderr'}, its last line: bad-crash: exit 3)" in faults
    illegal = [line for line in faults if line.startswith("bot fault: cheat's bot answered \"R99\"")]
    assert len(illegal) == 1, "told once, counted after"
    assert session.bots[2].faults["illegal"] > 1
    assert (where / "seat-1.stderr").read_text() == "bad-crash: exit 3\n"


def test_play_on_loopback_tells_a_crash_and_names_the_seats(tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "CARDTABLE_HOME": str(tmp_path / "home")}
    proc = subprocess.run(
        [*CARDTABLE, "play", "solo", "--plain", "--players", "3", "--seed", "3", "--bot-delay", "0.1",
         "--bots", f"{bad('crash')},calm=heuristic", "--debug-bots", str(tmp_path / "dbg")],
        cwd=ROOT, env=env, input="draw\n" * 12, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    stderr_file = tmp_path / "home" / "play" / "bots" / "seat-1.stderr"
    assert f"Seat 1 (bad-crash) is a program: its stderr goes to {stderr_file}" in out
    assert "bad-crash (seat 1) plays" in out and "calm (seat 2) plays" in out
    assert "Bot fault: bad-crash's program stopped: it exited (code 3)" in out
    assert stderr_file.read_text() == "bad-crash: exit 3\n", "its stderr, not the terminal's"
    assert "bad-crash: exit 3" not in proc.stderr
    transcript = (tmp_path / "dbg" / "seat-1.log").read_text()
    assert '> {"type":"hello","protocol":1}' in transcript
    assert "# its output closed (exit code 3)" in transcript
