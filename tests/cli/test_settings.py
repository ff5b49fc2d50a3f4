"""The settings kept in the config dir (``cardtable config``), which are the defaults of their
options, and ``cardtable stats`` over the kept games."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import tomllib
from pathlib import Path

import pytest

from cardtable.cli import settings
from tests.cli.test_match_cli import run
from tests.cli.test_plain_script import CARDTABLE, ROOT


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("CARDTABLE_HOME", str(tmp_path))
    return tmp_path


def test_config_sets_shows_and_unsets(capsys: pytest.CaptureFixture[str], home: Path) -> None:
    assert run(capsys, "config", "name", "bea")[0] == 0
    assert run(capsys, "config", "bot_delay", "0.8")[0] == 0
    assert run(capsys, "config", "theme", "nord")[0] == 0
    assert run(capsys, "config", "bots", "me=heuristic,strong,random")[0] == 0
    assert tomllib.loads((home / "settings.toml").read_text()) == {
        "name": "bea", "theme": "nord", "bots": "me=heuristic,strong,random", "bot_delay": 0.8}
    code, out, _ = run(capsys, "config")
    assert code == 0 and re.search(r"bot_delay\s+0.8\s", out) and str(home / "settings.toml") in out
    assert run(capsys, "config", "name")[1] == "bea\n"
    assert run(capsys, "config", "theme", "--unset")[0] == 0
    assert run(capsys, "config", "theme")[1] == "(not set)\n"
    assert "theme" not in tomllib.loads((home / "settings.toml").read_text())


@pytest.mark.parametrize("key, value, fragment", [
    ("bot_delay", "fast", "a number of seconds from 0 to 60"),
    ("theme", "neon", "no theme 'neon': choose from"),
    ("bots", "nosuchbot", "unknown bot 'nosuchbot'"),
    ("name", "x" * 33, "1 to 32 characters"),
    ("bell", "loud", "the bell is on or off"),
])
def test_a_bad_value_is_refused_in_one_line(capsys: pytest.CaptureFixture[str], home: Path, key: str,
                                            value: str, fragment: str) -> None:
    code, out, err = run(capsys, "config", key, value)
    assert code == 2 and fragment in err and len(err.strip().splitlines()) == 1
    assert not (home / "settings.toml").exists()


def test_the_settings_are_the_defaults_and_an_option_still_wins(capsys: pytest.CaptureFixture[str],
                                                                 home: Path) -> None:
    settings.save({"name": "bea", "bots": "heuristic,random", "bot_delay": 0.25})
    assert settings.defaults(settings.load()) == {
        "play": {"bots": "heuristic,random", "bot_delay": 0.25},
        "host": {"player": "bea", "bots": "heuristic,random", "bot_delay": 0.25},  # --name: the table
        "join": {"player": "bea", "bot_delay": 0.25}}
    code, _, err = run(capsys, "play", "solo", "--plain", "--players", "4")
    assert code == 2 and "not 2 (the bots setting: cardtable config bots)" in err
    code, _, err = run(capsys, "host", "solo", "--players", "4", "--cpu", "1")
    assert code == 2 and "Missing option '--name'" in err, "the name setting is the player's, not the table's"
    code, _, err = run(capsys, "host", "solo", "--name", "k", "--players", "4", "--cpu", "1", "--bots", "a,b")
    assert code == 2 and "not 2" in err and "the bots setting" not in err, "the option given wins"
    code, out, _ = run(capsys, "host", "--help")
    assert "[default: 0.25;" in " ".join(out.split())
    (home / "settings.toml").write_text("bot_delay = 'soon'\nname = 'ann'\n")  # a bad value is left out
    assert settings.load() == {"name": "ann"}


def test_the_table_takes_the_kept_theme(home: Path) -> None:
    from cardtable.cli.play_cmd import kept_theme

    assert kept_theme() is None
    settings.save({"theme": "gruvbox"})
    assert kept_theme() == "gruvbox"


def _host(home: Path, seed_port: int) -> str:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "CARDTABLE_HOME": str(home)}
    proc = subprocess.run([*CARDTABLE, "host", "solo", "--name", "t", "--players", "2", "--cpu", "1",
                           "--auto", "heuristic", "--pool", "30", "--bot-delay", "0", "--linger", "0",
                           "--discovery-port", str(seed_port)],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    return proc.stderr


def test_stats_counts_my_finished_games_by_game_and_edition(
        capsys: pytest.CaptureFixture[str], home: Path, tmp_path_factory: pytest.TempPathFactory) -> None:
    said = [_host(home, 47990 + k) for k in range(2)]
    mine_won = sum("won by seat(s) [0]" in s or "won by seat(s) [0, 1]" in s for s in said)
    other = tmp_path_factory.mktemp("other")
    _host(other, 47989)  # a game under another identity: not mine
    (home / "tables").mkdir(exist_ok=True)
    shutil.copy(other / "table.log", home / "tables" / "other.log")
    code, out, _ = run(capsys, "games")
    assert "other.log" in out and len(out.splitlines()) == 4, "three kept games, and the count"
    code, out, _ = run(capsys, "stats", "--json")
    assert code == 0
    (row,) = json.loads(out)["results"]
    assert row["game"] == "SOLO classic" and row["finished"] == 2 and row["unfinished"] == 0
    assert row["won"] == mine_won and row["win_rate"] == mine_won / 2
    code, out, _ = run(capsys, "stats")
    assert code == 0 and out.splitlines()[1].split()[:4] == ["SOLO", "classic", "2", str(mine_won)]


def test_stats_without_games_says_so(capsys: pytest.CaptureFixture[str], home: Path) -> None:
    code, out, _ = run(capsys, "stats")
    assert code == 0 and out.startswith("no games of yours kept in")


def test_the_bell_setting_is_every_commands_default_and_the_option_wins(capsys: pytest.CaptureFixture[str],
                                                                         home: Path) -> None:
    assert run(capsys, "config", "bell", "off")[0] == 0
    assert settings.load()["bell"] is False
    assert all(command.get("bell") is False for command in settings.defaults(settings.load()).values())
    for command in ("play", "host", "join"):
        code, out, _ = run(capsys, command, "--help")
        assert code == 0 and "--bell / --no-bell" in out, command
