"""What a bot author gets when a bot misbehaves: the transcripts of --debug-bots, and each
fault kind's first example (the line, the illegal answer, the traceback, the exit code) in the
summary and the JSON."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from cardtable.cli.match_cmd import summary_table
from tests.ai.test_process_bot import ROOT, SOLO3, bad, match
from tests.cli.test_match_cli import run

EXAMPLE = f"cmd:{sys.executable} {ROOT / 'examples' / 'json_bot.py'}"


def test_debug_bots_keeps_every_line_sent_and_received_a_file_a_seat(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    report = match(capsys, f"me={EXAMPLE},heuristic,me={EXAMPLE}", "--debug-bots", str(tmp_path / "dbg"))
    assert report["summary"]["bots"][0]["faults"] == {}
    files = sorted(p.name for p in (tmp_path / "dbg").iterdir())
    assert files == ["game-0000-seat-0.log", "game-0000-seat-0.stderr",
                     "game-0000-seat-2.log", "game-0000-seat-2.stderr"]
    for seat in (0, 2):
        lines = (tmp_path / "dbg" / f"game-0000-seat-{seat}.log").read_text().splitlines()
        assert {line[:2] for line in lines} <= {"> ", "< ", "# "}
        sent = [json.loads(line[2:]) for line in lines if line.startswith("> ")]
        got = [json.loads(line[2:]) for line in lines if line.startswith("< ")]
        assert sent[0] == {"type": "hello", "protocol": 1} and got[0]["name"] == "json-bot"
        assert sent[1]["type"] == "match" and sent[1]["seat"] == seat
        asked = [m["id"] for m in sent if m["type"] in ("choose", "react")]
        assert len(asked) > 20 and [a["id"] for a in got[1:]] == asked, "every request and its answer"
        assert sent[-1] == {"type": "quit"}
        assert sum(g["moves"][seat] for g in report["games"]) <= len(asked)


def test_without_debug_bots_no_transcript_is_written(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    match(capsys, f"me={EXAMPLE},heuristic,heuristic")
    assert list(tmp_path.iterdir()) == []


def test_a_crash_gives_its_exit_code_and_an_illegal_answer_its_line(capsys: pytest.CaptureFixture[str],
                                                                    tmp_path: Path) -> None:
    report = match(capsys, f"crash={bad('crash')},cheat={bad('cheat')},heuristic", "--debug-bots",
                   str(tmp_path))
    rows = {row["bot"]: row for row in report["summary"]["bots"]}
    crash = rows["crash"]["fault_examples"]["crash"]
    assert crash["exit_code"] == 3 and crash["error"] == "it exited (code 3)" and crash["stopped"]
    assert crash["stderr"] == str(tmp_path / "game-0000-seat-0.stderr")
    illegal = rows["cheat"]["fault_examples"]["illegal"]
    assert illegal["answer"] == "R99" and json.loads(illegal["line"])["action"] == "R99"
    assert illegal["game"] == 0 and illegal["seat"] == 1
    assert 0 < len(illegal["legal"]) == illegal["legal_count"]
    assert illegal["count"] == 1, "the first one"
    assert "R99" in (tmp_path / "game-0000-seat-1.log").read_text()
    table = summary_table(report)
    assert "first crash (game 0, seat 0, round 1, " in table and "exit code 3" in table
    assert f"its stderr: {tmp_path / 'game-0000-seat-0.stderr'}, its last line: bad-crash: exit 3" in table
    assert 'it answered "R99", not one of the legal actions' in table
    assert '  it wrote: {"id": ' in table and "legal were: " in table


def test_a_python_bot_s_exception_gives_its_traceback(capsys: pytest.CaptureFixture[str]) -> None:
    bots = f"r={ROOT / 'tests' / 'ai' / 'plugin_bots.py'}:RaisingBot,heuristic,heuristic"
    code, out, err = run(capsys, *SOLO3, "--bots", bots)
    assert code == 0, err
    assert "RuntimeError: a bug in the bot" in out
    assert 'raise RuntimeError("a bug in the bot")' in out, "the traceback, from the bot's own frame"
    report = match(capsys, bots)
    example = report["summary"]["bots"][0]["fault_examples"]["crash"]
    assert example["traceback"].startswith("Traceback") and "plugin_bots.py" in example["traceback"]
    assert "fallback.py" not in example["traceback"]
