"""``cardtable replay``: the account, verification, damaged and missing files."""

from __future__ import annotations

from pathlib import Path

import pytest

from cardtable.cli.main import main
from tests.cli.test_match_cli import run


@pytest.fixture
def log_file(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> Path:
    code, _, _ = run(capsys, "match", "scout", "--players", "3", "--games", "1", "--seed", "8",
                     "--log-dir", str(tmp_path))
    assert code == 0
    return tmp_path / "game-0000.ctlog"


def test_account_and_verification(capsys: pytest.CaptureFixture[str], log_file: Path) -> None:
    code, out, err = run(capsys, "replay", str(log_file))
    assert code == 0 and err == ""
    lines = out.splitlines()
    assert lines[0].startswith("SCOUT, 3 players")
    assert "seat" in lines[1] and ("flip" in lines[1] or "keep" in lines[1])
    assert lines[-1].startswith("verified: ") and "match over" in lines[-1]


def test_verify_prints_only_the_summary(capsys: pytest.CaptureFixture[str], log_file: Path) -> None:
    code, out, _ = run(capsys, "replay", "--verify", str(log_file))
    assert code == 0
    assert len(out.splitlines()) == 1 and out.startswith("verified: ")


def test_truncated_file_shows_the_intact_part_and_one_error_line(capsys: pytest.CaptureFixture[str],
                                                                  log_file: Path) -> None:
    data = log_file.read_bytes()
    log_file.write_bytes(data[:-1])  # the last entry cut short
    code, out, err = run(capsys, "replay", str(log_file))
    assert code == 1
    assert len(out.splitlines()) > 5
    assert len(err.strip().splitlines()) == 1
    assert "the file is truncated" in err and "entries intact" in err


def test_missing_file(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, _, err = run(capsys, "replay", str(tmp_path / "nope.ctlog"))
    assert code == 1
    missing = tmp_path / "nope.ctlog"
    assert err.strip() == f"cardtable: error: cannot read {missing}: No such file or directory"


def test_help_has_examples(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main(["replay", "--help"])
    assert info.value.code == 0
    assert "Examples:" in capsys.readouterr().out


def test_a_log_cut_between_two_entries_fails(capsys: pytest.CaptureFixture[str], log_file: Path) -> None:
    from cardtable.engine.log import replay as replay_log

    data = log_file.read_bytes()
    whole = replay_log(data)
    assert whole.error is None and len(whole.entries) > 10
    # find the byte offset where entry 10 starts: the header and 10 entries, re-encoded
    import msgpack

    unpacker = msgpack.Unpacker(raw=False, strict_map_key=False)
    unpacker.feed(data)
    for _ in range(11):
        unpacker.unpack()
    log_file.write_bytes(data[: unpacker.tell()])
    code, _, err = run(capsys, "replay", "--verify", str(log_file))
    assert code == 1
    assert "the log ends before the match does" in err and "10 entries intact" in err


def test_a_directory_is_a_bad_file(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, _, err = run(capsys, "replay", str(tmp_path))
    assert code == 1
    assert err.strip() == f"cardtable: error: {tmp_path} is a directory: give one log file " \
                          "('cardtable games' lists them)"


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    from importlib.metadata import version

    with pytest.raises(SystemExit) as done:
        main(["--version"])
    assert done.value.code == 0
    assert capsys.readouterr().out == f"cardtable {version('cardtable')}\n"


def test_shell_completion_as_the_readme_says() -> None:
    import os
    import subprocess
    import sys

    root = Path(__file__).resolve().parents[2]
    env = {**os.environ, "PYTHONPATH": str(root), "COMP_WORDS": "cardtable ga", "COMP_CWORD": "1",
           "_CARDTABLE_COMPLETE": "bash_complete"}
    done = subprocess.run([sys.executable, "-c", "from cardtable.cli.main import main; main()"], env=env,
                          cwd=root, capture_output=True, text=True, timeout=60)
    assert done.stdout.split() == ["plain,games"]
    assert '_CARDTABLE_COMPLETE=bash_source cardtable' in (root / "README.md").read_text(encoding="utf-8")
