"""Issue 38, "A LAN evening a newcomer enjoys": --home is the whole config dir (settings too) and
the commands it prints to run again name it; the table's name is not the player's; a Ctrl-C at
start-up, a language ``bot new`` does not know, a program given without ``cmd:``, ``tables``
with a wrong passphrase and a bare ``play`` each get the one line that is true."""

from __future__ import annotations

import os
import shlex
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from cardtable.cli import net_cmds, play_cmd
from tests.cli.test_match_cli import run
from tests.p2p.test_processes import Procs, free_udp_port, wait_until

ROOT = Path(__file__).resolve().parents[2]
CARDTABLE = [sys.executable, "-c", "from cardtable.cli.main import main; main()"]


def cardtable(*args: str, stdin: str = "", prefix: str = "") -> subprocess.CompletedProcess[str]:
    """``cardtable ARGS`` in a process (``prefix``: Python run before it, to stub a part)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    code = f"{prefix}from cardtable.cli.main import main; main()"
    return subprocess.run([sys.executable, "-c", code, *args], cwd=ROOT, env=env, input=stdin,
                          capture_output=True, text=True, timeout=120)


# --- (2) --home is the settings folder too ------------------------------------------------------------


def test_play_and_host_read_the_settings_of_their_home(capsys: pytest.CaptureFixture[str],
                                                       tmp_path: Path) -> None:
    seat = tmp_path / "seat 2"
    assert run(capsys, "config", "bots", "random,heuristic", "--home", str(seat))[0] == 0
    assert (seat / "settings.toml").is_file()
    code, _, err = run(capsys, "play", "solo", "--plain", "--players", "4", "--home", str(seat))
    assert code == 2 and "not 2 (the bots setting: cardtable config bots)" in err, err
    code, _, err = run(capsys, "host", "solo", "--name", "k", "--players", "4", "--cpu", "1",
                       "--home", str(seat))
    assert code == 2 and "not 2 (the bots setting: cardtable config bots)" in err, err
    code, out, _ = run(capsys, "host", "--home", str(seat), "--help")
    assert "[default: random,heuristic]" in " ".join(out.split())


def test_without_home_the_default_dirs_settings_are_not_those_of_another_home(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assert run(capsys, "config", "bots", "random,heuristic")[0] == 0  # the default dir (conftest)
    code, _, err = run(capsys, "host", "solo", "--name", "k", "--players", "4", "--cpu", "1",
                       "--home", str(tmp_path / "other"), "--auto", "nosuchbot")
    assert code == 2 and "--auto" in err and "bots setting" not in err, "the other home's bots: the default"


def test_the_table_takes_the_theme_of_its_home_and_the_resume_hint_names_the_home(
        capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from cardtable.cli.tui import TableApp

    seat = tmp_path / "it's mine"
    assert run(capsys, "config", "theme", "nord", "--home", str(seat))[0] == 0
    themes: list[str] = []

    async def shown(app: TableApp) -> None:  # the table is closed at once, without leaving
        themes.append(app.theme)

    monkeypatch.setattr(play_cmd, "need_terminal", lambda: None)
    monkeypatch.setattr(TableApp, "run_async", shown)
    code, _, err = run(capsys, "play", "solo", "--players", "3", "--bots", "random", "--home", str(seat))
    assert code == 0 and themes == ["nord"], (themes, err)
    assert f"cardtable play --resume --home {shlex.quote(str(seat))} resumes it" in err, err


def test_the_commands_printed_after_home_work_as_printed(tmp_path: Path) -> None:
    seat = tmp_path / "seat two"
    played = cardtable("play", "solo", "--plain", "--players", "3", "--bots", "random", "--bot-delay", "0",
                       "--home", str(seat))  # end of input: you leave, the match is kept
    assert played.returncode == 0, played.stderr
    resume = f"cardtable play --resume --home {shlex.quote(str(seat))}"
    assert f"the match is kept where it stands: {resume} takes it up again" in played.stdout, played.stdout

    listed = cardtable("games", "--home", str(seat))
    assert f"(resume: {resume})" in listed.stdout, listed.stdout

    bare = cardtable("play", "--home", str(seat))  # no terminal: it says how, in one line
    assert bare.returncode == 2 and len(bare.stderr.splitlines()) == 1, bare.stderr
    assert "an unfinished SOLO match is kept" in bare.stderr and f"{resume} resumes it" in bare.stderr

    printed = shlex.split(resume)[1:]
    again = cardtable(*printed, "--plain", "--bots", "random", "--bot-delay", "0")
    assert again.returncode == 0 and "resuming your SOLO match" in again.stderr, again.stderr


def test_a_bare_play_offers_the_kept_match(tmp_path: Path) -> None:
    seat = tmp_path / "seat"
    nothing = cardtable("play", "--plain", "--home", str(seat))
    assert nothing.returncode == 2
    assert "missing GAME: solo or scout (no unfinished play match" in nothing.stderr
    assert cardtable("play", "scout", "--plain", "--players", "3", "--bots", "random", "--bot-delay", "0",
                     "--home", str(seat)).returncode == 0
    asked = "import cardtable.cli.play_cmd as p; p.can_ask = lambda plain: True; "  # as in a terminal
    offered = cardtable("play", "--plain", "--bots", "random", "--bot-delay", "0", "--home", str(seat),
                        stdin="y\n", prefix=asked)
    assert offered.returncode == 0, offered.stderr
    assert "An unfinished SCOUT match is kept" in offered.stderr
    assert "resuming your SCOUT match" in offered.stderr
    declined = cardtable("play", "--plain", "--home", str(seat), stdin="n\n", prefix=asked)
    assert declined.returncode == 2 and "resuming" not in declined.stderr, declined.stderr
    assert "cardtable: error: missing GAME: solo or scout (see 'cardtable play --help')" in declined.stderr


# --- (3) the table's name and the player's; (11) tables with a wrong passphrase, join --debug-bots -----


def test_the_tables_name_is_not_the_players_and_a_wrong_passphrase_is_one_line(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assert run(capsys, "config", "name", "Quinn", "--home", str(tmp_path / "j"))[0] == 0
    env = {**os.environ, "PYTHONPATH": str(ROOT), "CARDTABLE_DISCOVERY_PORT": str(free_udp_port()),
           "CARDTABLE_BROADCAST": "127.255.255.255", "PYTHONUNBUFFERED": "1"}
    env.pop("CARDTABLE_HOME", None)
    env.pop("CARDTABLE_PASSPHRASE", None)
    procs = Procs(tmp_path, env)
    try:
        host = procs.cardtable("host", "host", "solo", "--name", "kitchen table", "--players", "2",
                               "--pool", "1", "--passphrase", "pw", "--auto", "heuristic", "--bot-delay", "0",
                               "--linger", "1", "--home", str(tmp_path / "h"))
        wait_until(lambda: "waiting for" in host.err or host.popen.poll() is not None, 30, "the table")
        assert "cardtable join 'kitchen table' --passphrase PASSPHRASE" in host.err, host.err

        wrong = procs.cardtable("wrong", "tables", "--passphrase", "pv", "--seconds", "3.5")
        assert wrong.wait(30) == 0 and wrong.out == ""
        assert wrong.err.splitlines() == ["1 table with a passphrase heard that this --passphrase does not "
                                          "open (a wrong passphrase?)"], wrong.err
        outsider = procs.cardtable("outsider", "tables", "--seconds", "3.5")
        assert outsider.wait(30) == 0 and outsider.err.splitlines() == [
            "1 table with a passphrase heard: give its --passphrase to see it"], outsider.err

        debug = tmp_path / "debug"
        program = f"cmd:{sys.executable} examples/json_bot.py"
        guest = procs.cardtable("join", "join", "kitchen table", "--passphrase", "pw",
                                "--home", str(tmp_path / "j"), "--auto", program, "--debug-bots", str(debug),
                                "--bot-delay", "0", "--linger", "1", "--seconds", "10")
        assert guest.wait(60) == 0 and host.wait(60) == 0, guest.err + host.err
        assert guest.digest() == host.digest()
        assert "joining table 'kitchen table'" in guest.err and "as 'Quinn'" in guest.err, guest.err
        assert [p.name for p in debug.iterdir()] == ["seat-1.log"], "join --auto keeps its program's lines"
    finally:
        procs.kill_all()


def test_join_takes_one_name(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, _, err = run(capsys, "join", "k", "--player", "bea", "--name", "cy", "--home", str(tmp_path))
    assert code == 2 and "give your name once: --player NAME" in err and len(err.splitlines()) == 1
    code, _, err = run(capsys, "join", "k", "--player", "x" * 33, "--home", str(tmp_path))
    assert code == 2 and "--player" in err and "1 to 32 characters" in err


# --- (11) one line for a Ctrl-C at start-up and for bad input --------------------------------------


@pytest.mark.parametrize("delay", [0.05, 0.15, 0.3, 0.6])
def test_a_ctrl_c_at_start_up_is_one_line(tmp_path: Path, delay: float) -> None:
    """SIGINT at start-up, as the console script runs: while the commands load, the home opens,
    the table is sought."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "CARDTABLE_DISCOVERY_PORT": str(free_udp_port()),
           "CARDTABLE_BROADCAST": "127.255.255.255"}
    code = "import sys; print('go', file=sys.stderr, flush=True); from cardtable.cli.main import main; main()"
    argv = [sys.executable, "-c", code, "join", "--plain", "--seconds", "8", "--home", str(tmp_path)]
    proc = subprocess.Popen(argv, cwd=ROOT, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    assert proc.stderr is not None
    try:
        assert proc.stderr.readline() == "go\n"
        time.sleep(delay)
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=30)
    finally:
        proc.kill()
    assert proc.returncode == 130 and out == "" and err.strip() == "cardtable: interrupted", err


def test_a_ctrl_c_while_the_commands_load_is_one_line() -> None:
    """The interrupt comes exactly while Python loads a command's module."""
    interrupt = ("import sys\n"
                 "class Interrupt:\n"
                 "    def find_spec(self, name, *_):\n"
                 "        if name == 'cardtable.cli.review_cmd':\n"
                 "            raise KeyboardInterrupt\n"
                 "sys.meta_path.insert(0, Interrupt())\n")
    done = cardtable("tables", prefix=interrupt)
    assert done.returncode == 130 and done.stdout == "" and done.stderr.strip() == "cardtable: interrupted", \
        done.stderr


def test_a_ctrl_c_while_a_table_is_sought_is_one_line(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    async def interrupted(*_: Any, **__: Any) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(net_cmds, "_listen", interrupted)
    for argv in (["join", "--plain", "--home", str(tmp_path)], ["tables"]):
        code, out, err = run(capsys, *argv)
        assert code == 130 and out == "" and err.strip() == "cardtable: interrupted", (argv, err)


def test_an_unknown_language_points_at_bot_new_help(capsys: pytest.CaptureFixture[str],
                                                    tmp_path: Path) -> None:
    code, _, err = run(capsys, "bot", "new", "rust", str(tmp_path / "b"))
    assert code == 2 and len(err.splitlines()) == 1
    assert "'rust' is not one of 'js', 'python'" in err
    assert err.rstrip().endswith("(see 'cardtable bot new --help')")
    assert not (tmp_path / "b").exists()


@pytest.mark.parametrize("argv, hint", [
    (["play", "solo", "--plain", "--bots", "python3", "bots/py/bot.py"],
     "--bots 'cmd:python3 bots/py/bot.py'"),
    (["match", "solo", "--bots", "node", "bot.js,heuristic"], "--bots 'cmd:node bot.js,heuristic'"),
    (["play", "solo", "--plain", "--bots", "bots/py/bot.py"], "give 'cmd:python3 bots/py/bot.py'"),
    (["play", "solo", "--plain", "--bots", "python3 bots/py/bot.py"], "give 'cmd:python3 bots/py/bot.py'"),
    (["match", "solo", "--bots", "me=bots/py/bot.py,heuristic,heuristic,heuristic"],
     "give 'cmd:python3 bots/py/bot.py'"),
    (["host", "solo", "--name", "k", "--auto", "./mybot"], "give 'cmd:./mybot'"),
    (["config", "bots", "heuristic,bots/js/bot.js"], "give 'cmd:node bots/js/bot.js'"),
])
def test_a_program_without_cmd_gets_the_spec_it_needs(capsys: pytest.CaptureFixture[str], argv: list[str],
                                                      hint: str) -> None:
    code, out, err = run(capsys, *argv)
    assert code == 2 and out == "" and len(err.splitlines()) == 1 and hint in err, err


def test_a_bot_name_gets_no_program_hint(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "play", "solo", "--plain", "--bots", "heuristc")
    assert code == 2 and "unknown bot 'heuristc'" in err and "cmd:" in err and "give 'cmd:" not in err
