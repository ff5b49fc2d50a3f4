"""``--bot-delay``: the computer players' pause reaches the peer that paces them, and bad values
are usage errors."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from cardtable.cli.main import main
from cardtable.p2p.peer import Peer


class Built(Exception):
    """Raised in place of building the peer: the test has what it came for."""


def capture_timeouts(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    seen: list[Any] = []

    def host(*args: Any, **kw: Any) -> Peer:
        seen.append(kw["timeouts"])
        raise Built

    monkeypatch.setattr(Peer, "host", staticmethod(host))
    return seen


def run(*argv: str) -> int:
    with pytest.raises((SystemExit, Built)) as info:
        main(list(argv))
    return -1 if info.type is Built else int(info.value.code or 0)


@pytest.mark.parametrize("delay", ["0", "2.5"])
def test_host_passes_the_delay_to_its_peer(monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
                                           delay: str) -> None:
    seen = capture_timeouts(monkeypatch)
    assert run("host", "scout", "--name", "t", "--players", "3", "--auto", "random", "--home", str(tmp_path),
               "--bot-delay", delay) == -1
    assert seen[0].bot_delay == float(delay)


def test_play_passes_the_delay_to_its_peer(monkeypatch: pytest.MonkeyPatch) -> None:
    seen = capture_timeouts(monkeypatch)
    assert run("play", "scout", "--players", "3", "--plain", "--seed", "1", "--bot-delay", "0.2") == -1
    assert seen[0].bot_delay == 0.2


def test_the_default_is_the_documented_one(monkeypatch: pytest.MonkeyPatch) -> None:
    seen = capture_timeouts(monkeypatch)
    assert run("play", "scout", "--players", "3", "--plain", "--seed", "1") == -1
    assert seen[0].bot_delay == 1.5  # a person's reaction time (README, --help)


@pytest.mark.parametrize("bad", ["-1", "61", "soon"])
def test_a_bad_delay_is_a_usage_error(capsys: pytest.CaptureFixture[str], bad: str) -> None:
    assert run("play", "scout", "--plain", "--bot-delay", bad) == 2
    err = capsys.readouterr().err
    assert "--bot-delay" in err and "Traceback" not in err
