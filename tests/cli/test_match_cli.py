"""``cardtable match``: output, determinism, bad arguments, logs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cli.main import main
from engine.log import replay


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as exit_info:
        main(list(argv))
    out, err = capsys.readouterr()
    return int(exit_info.value.code or 0), out, err


def test_json_has_the_promised_fields_and_is_deterministic(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ("match", "solo", "--players", "3", "--edition", "anniversary", "--games", "2", "--seed", "11",
            "--json")
    code, out, _ = run(capsys, *argv)
    assert code == 0
    report = json.loads(out)
    assert report["seed"] == 11
    assert report["config"]["edition"] == "anniversary" and report["config"]["players"] == 3
    assert len(report["games"]) == 2
    for game in report["games"]:
        assert {"seed", "rounds", "actions", "scores", "winners"} <= set(game)
        assert game["winners"] and game["actions"] > 0
    assert report["summary"]["games"] == 2
    assert run(capsys, *argv)[1] == out


def test_scout_table_for_people(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "match", "scout", "--players", "5", "--games", "2", "--seed", "4")
    assert code == 0
    assert out.splitlines()[0] == "SCOUT · 2 games · seed 4"
    assert len(out.splitlines()) == 2 + 5


def test_a_seed_is_chosen_and_printed(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "match", "scout", "--players", "2", "--games", "1", "--json")
    assert code == 0
    seed = json.loads(out)["seed"]
    assert f"seed: {seed}" in err


@pytest.mark.parametrize("argv, fragment", [
    (("match", "chess"), "'chess' is not one of"),
    (("match", "solo", "--players", "11"), "11 is not in the range"),
    (("match", "scout", "--players", "6"), "SCOUT is for 2 to 5 players, not 6"),
    (("match", "scout", "--edition", "classic"), "SCOUT has no editions"),
    (("match", "solo", "--bots", "random,random"), "give 1 bot or 4 bots"),
    (("match", "solo", "--bots", "deep-blue"), "unknown bot 'deep-blue'"),
    (("match", "solo", "--games", "0"), "0 is not in the range"),
    (("match", "solo", "--seed", "-3"), "-3 is not in the range"),
])
def test_bad_arguments_get_one_line_and_exit_2(capsys: pytest.CaptureFixture[str], argv: tuple[str, ...],
                                               fragment: str) -> None:
    code, out, err = run(capsys, *argv)
    assert code == 2
    assert out == ""
    assert len(err.strip().splitlines()) == 1
    assert err.startswith("cardtable: error: ") and fragment in err


def test_log_dir_writes_replayable_logs(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, out, _ = run(capsys, "match", "solo", "--games", "2", "--seed", "3", "--json",
                       "--log-dir", str(tmp_path / "logs"))
    assert code == 0
    games = json.loads(out)["games"]
    for game in games:
        result = replay((tmp_path / "logs" / f"game-{game['index']:04d}.ctlog").read_bytes())
        assert result.error is None and result.match is not None
        assert result.match.digest() == game["digest"]
        assert result.meta == {"bots": ["random"] * 4}
