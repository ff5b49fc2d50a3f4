"""Runs that survive: --out streams every game, --resume completes a killed run, Ctrl-C stops at once."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from tests.cli.test_match_cli import run, without_timing

ROOT = Path(__file__).resolve().parents[2]
ARGS = ("match", "scout", "--players", "3", "--games", "40", "--seed", "21", "--json")


def start(*argv: str) -> subprocess.Popen[bytes]:
    """``cardtable ARGV`` as a real process of its own, with Ctrl-C's default meaning (as in a
    terminal), even when the tests themselves run as a background job, which ignores SIGINT."""
    code = "from cardtable.cli.main import main; main()"
    return subprocess.Popen([sys.executable, "-c", code, *argv], cwd=ROOT, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))


def wait_for_games(path: Path, count: int, proc: subprocess.Popen[bytes], limit: float = 60) -> None:
    deadline = time.monotonic() + limit
    while not path.exists() or path.read_bytes().count(b"\n") < count + 1:
        assert proc.poll() is None, proc.stderr.read().decode() if proc.stderr else ""
        assert time.monotonic() < deadline, "the run streams no games"
        time.sleep(0.05)


def lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_resume_after_a_kill_plays_the_missing_games_and_gives_the_identical_json(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    out = tmp_path / "run.jsonl"
    proc = start(*ARGS, "--out", str(out))
    wait_for_games(out, 3, proc)
    proc.kill()
    proc.wait()
    with out.open("ab") as cut:
        cut.write(b'{"index": 39, "dea')  # a line cut short by the kill
    before = [json.loads(x)["index"] for x in out.read_bytes().split(b"\n")[1:-1]]
    assert 3 <= len(before) < 40
    code, resumed, _ = run(capsys, *ARGS[:-3], "--json", "--out", str(out), "--resume")
    assert code == 0
    entries = lines(out)
    assert entries[0]["kind"] == "cardtable-run" and entries[0]["seed"] == 21
    assert sorted(g["index"] for g in entries[1:]) == list(range(40)), "each missing game once, no more"
    assert [g["index"] for g in entries[1:len(before) + 1]] == before
    code, whole, _ = run(capsys, *ARGS)
    assert without_timing(json.loads(resumed)) == without_timing(json.loads(whole))


@pytest.mark.parametrize("workers", ["2", "1"])
def test_ctrl_c_stops_at_once_and_keeps_the_finished_games(tmp_path: Path, workers: str) -> None:
    out = tmp_path / "ctrl-c.jsonl"
    proc = start("match", "scout", "--players", "4", "--games", "500", "--seed", "4", "--bots", "heuristic",
                 "--workers", workers, "--json", "--out", str(out))
    wait_for_games(out, 2, proc)
    proc.send_signal(signal.SIGINT)
    sent = time.monotonic()
    stdout, stderr = proc.communicate(timeout=30)
    took = time.monotonic() - sent
    assert proc.returncode == 130, stderr.decode()
    assert took < 2.5, f"took {took:.1f} s to stop"
    report = json.loads(stdout)
    assert report["interrupted"] is True
    streamed = lines(out)[1:]
    assert 2 <= len(report["games"]) == len(streamed) < 500
    assert sorted(g["index"] for g in report["games"]) == sorted(g["index"] for g in streamed)
    assert report["summary"]["games"] == len(streamed)
    assert "--resume plays the" in stderr.decode().splitlines()[-1]
    time.sleep(0.2)
    left = [pid for pid in os.listdir("/proc") if pid.isdigit() and _cmdline_has(pid, str(out))]
    assert left == [], "the workers are gone"


def _cmdline_has(pid: str, text: str) -> bool:
    try:
        return text.encode() in Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return False


@pytest.mark.parametrize("extra, fragment", [
    ((), "exists: add --resume to continue that run"),
    (("--resume", "--seed", "22"), "is a different run (seed differ)"),
])
def test_out_never_overwrites_and_resume_checks_the_run(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                                       extra: tuple[str, ...], fragment: str) -> None:
    out = tmp_path / "run.jsonl"
    base = ("match", "scout", "--players", "2", "--games", "1", "--json", "--out", str(out))
    assert run(capsys, *base, "--seed", "21")[0] == 0
    code, stdout, err = run(capsys, *base, *(extra or ("--seed", "21")))
    assert code == 2 and stdout == "" and fragment in err and len(err.strip().splitlines()) == 1
