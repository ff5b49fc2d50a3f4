"""``--rule NAME=VALUE``: every engine option of either game is reachable from the command line."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from cardtable.cli.main import main
from tests.cli.test_match_cli import run


def test_a_scout_option_reaches_the_config_and_its_games(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "match", "scout", "--players", "2", "--rule", "voluntary_pass=true",
                       "--bots", "heuristic,random", "--games", "3", "--seed", "4", "--json")
    assert code == 0
    report = json.loads(out)
    assert report["config"]["voluntary_pass"] is True


def test_solo_options_take_words_and_numbers(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "match", "solo", "--players", "3", "--rule", "mixed_stacking=on",
                       "--rule", "false-catch-penalty=4", "--games", "1", "--seed", "4", "--json")
    assert code == 0
    config = json.loads(out)["config"]
    assert config["mixed_stacking"] is True and config["false_catch_penalty"] == 4


@pytest.mark.parametrize("argv,words", [
    (("scout", "--rule", "bogus=1"), "SCOUT has no option 'bogus'"),
    (("scout", "--players", "3", "--rule", "voluntary_pass=true"), "two-player option"),
    (("solo", "--rule", "gifts"), "'gifts' is not NAME=VALUE"),
    (("solo", "--rule", "gifts=maybe"), "gifts must be true or false"),
    (("solo", "--rule", "colour=red"), "unknown SOLO option 'colour'"),
])
def test_a_bad_rule_is_one_line_and_exit_2(capsys: pytest.CaptureFixture[str], argv: tuple[str, ...],
                                          words: str) -> None:
    code, out, err = run(capsys, "match", *argv, "--games", "1")
    assert code == 2 and not out
    assert len(err.strip().splitlines()) == 1 and words in err, err


def test_host_checks_its_rules_before_it_opens_a_table(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "host", "scout", "--name", "kitchen", "--players", "3",
                       "--rule", "voluntary_pass=on")
    assert code == 2 and "two-player option" in err and len(err.strip().splitlines()) == 1


class Hosted(Exception):
    """Raised by the stand-in ``Peer.host`` below, with the config the command built."""


def test_host_takes_rounds_as_play_does(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
                                        tmp_path: Path) -> None:
    from cardtable.p2p.peer import Peer

    def host(*args: Any, **kwargs: Any) -> None:
        raise Hosted(args[2])

    monkeypatch.setattr(Peer, "host", staticmethod(host))
    with pytest.raises(Hosted) as hosted:
        main(["host", "solo", "--name", "kitchen", "--rounds", "3", "--plain", "--home", str(tmp_path)])
    assert hosted.value.args[0].rounds == 3
    code, _, err = run(capsys, "host", "scout", "--name", "kitchen", "--rounds", "3", "--home", str(tmp_path))
    assert code == 2 and "SCOUT has no match-length options" in err


def test_host_with_another_name_names_the_unfinished_table_instead_of_resuming_it(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    from cardtable.engine.solo import Config as SoloConfig
    from cardtable.p2p.node import Home
    from cardtable.p2p.peer import Peer
    from cardtable.p2p.store import FileStore

    home = Home(tmp_path)
    Peer.host(home.identity(), FileStore(home.store_path), SoloConfig.preset("classic", 3), "alpha", 0,
              now=0.0, seed=b"a" * 32).timer(0.0)  # alpha's lobby, kept unfinished
    before = home.store_path.read_bytes()
    code, out, err = run(capsys, "host", "solo", "--name", "beta", "--plain", "--home", str(tmp_path))
    assert code == 1 and not out
    assert len(err.strip().splitlines()) == 1
    assert "holds the unfinished table 'alpha'" in err and "host it with --name alpha to resume it" in err
    assert home.store_path.read_bytes() == before  # alpha is neither resumed nor moved
