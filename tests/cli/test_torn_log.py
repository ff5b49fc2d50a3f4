"""A table log whose last write was cut short (a crash, a full disk): ``replay`` and ``review``
say in one line that its tail is torn, and read it up to there."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.cli.test_match_cli import run
from tests.cli.test_peek_cli import hidden_logs


def test_a_torn_tail_is_said_and_the_log_is_read_up_to_it(capsys: pytest.CaptureFixture[str],
                                                          tmp_path: Path) -> None:
    log = hidden_logs(tmp_path)[0]
    whole = log.read_bytes()
    code, out, err = run(capsys, "replay", str(log))
    assert code == 0 and "torn" not in err, err
    log.write_bytes(whole[:-7])  # the last record cut short
    code, cut, err = run(capsys, "replay", str(log))
    lines = [line for line in err.splitlines() if "torn" in line]
    assert len(lines) == 1 and lines[0].startswith(f"cardtable: {log}: its last ") and \
        lines[0].endswith("bytes are torn (a write cut short, say by a crash): read up to there"), err
    assert code == 0 and cut.splitlines()[0].split(" · ")[0] == out.splitlines()[0].split(" · ")[0]
    code, _, err = run(capsys, "review", str(log), "--round", "1", "--level", "200")
    assert sum("bytes are torn" in line for line in err.splitlines()) == 1, err
