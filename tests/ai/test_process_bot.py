"""Process bots (docs/bot-protocol.md): the examples in two languages, and bots that crash,
hang, answer late, cheat or do not greet."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest

from cardtable.cli.match_cmd import summary_table
from tests.cli.test_match_cli import run

ROOT = Path(__file__).resolve().parents[2]
BAD = Path(__file__).with_name("bad_bot.py")


def bad(mode: str) -> str:
    return f"cmd:{sys.executable} {BAD} {mode}"


SOLO3 = ("match", "solo", "--players", "3", "--edition", "anniversary", "--games", "1", "--seed", "8")


def match(capsys: pytest.CaptureFixture[str], bots: str, *extra: str) -> dict:
    code, out, err = run(capsys, *SOLO3, "--bots", bots, "--json", *extra)
    assert code == 0, err
    return json.loads(out)


@pytest.mark.parametrize("language", ["python", "node"])
def test_the_example_programs_play_without_faults(capsys: pytest.CaptureFixture[str], language: str) -> None:
    if language == "node" and shutil.which("node") is None:
        pytest.skip("node is not installed: the JavaScript example cannot run here")
    command = {"python": f"{sys.executable} {ROOT / 'examples' / 'json_bot.py'}",
               "node": f"node {ROOT / 'examples' / 'json_bot.js'}"}[language]
    for game in ("solo", "scout"):
        argv = ("match", game, "--players", "3", "--games", "1", "--seed", "3",
                "--bots", f"me=cmd:{command},heuristic,heuristic", "--duplicate", "--json")
        code, out, err = run(capsys, *argv)
        assert code == 0, err
        report = json.loads(out)
        me = next(r for r in report["summary"]["bots"] if r["bot"] == "me")
        assert me["faults"] == {} and me["seat_games"] == 3
        assert sum(g["moves"][g["bots"].index("me")] for g in report["games"]) > 0
        again = json.loads(run(capsys, *argv)[1])
        assert [g["digest"] for g in again["games"]] == [g["digest"] for g in report["games"]]


@pytest.mark.parametrize("mode, kind", [("crash", "crash"), ("hang", "timeout"), ("cheat", "illegal")])
def test_a_bad_program_loses_decisions_to_the_fallback_and_the_match_goes_on(
        capsys: pytest.CaptureFixture[str], mode: str, kind: str) -> None:
    report = match(capsys, f"{mode}={bad(mode)},heuristic,heuristic", "--bot-time", "0.2")
    (game,) = report["games"]
    assert game["winners"], "the match ended"
    row = next(r for r in report["summary"]["bots"] if r["bot"] == mode)
    assert row["faults"][kind] >= 1 and row["faults"]["fallback_moves"] >= 1
    if mode == "hang":
        assert row["faults"]["timeout"] == 3, "stopped after three timeouts in a row"
    if mode == "crash":
        assert row["faults"]["crash"] == 1
    assert f"faults: {mode}: " in summary_table(report)


def test_a_late_answer_is_dropped_and_the_program_plays_on(capsys: pytest.CaptureFixture[str]) -> None:
    # The slow answer comes 0.6 s after its request: 0.2 s past the 0.4 s budget, and 0.2 s into
    # the next request's budget, which it must not spend (at 0.3 s the two margins were 0.3 s
    # and 0: the next answer sometimes timed out too on a busy machine).
    report = match(capsys, f"slow={bad('slow')},heuristic,heuristic", "--bot-time", "0.4")
    row = next(r for r in report["summary"]["bots"] if r["bot"] == "slow")
    assert row["faults"]["timeout"] == 1
    assert set(row["faults"]) <= {"timeout", "fallback_moves"}, "no illegal answer: the late one was dropped"
    assert row["faults"].get("fallback_moves", 0) <= 1


@pytest.mark.parametrize("spec, fragment", [
    (bad("garbage"), "fails the hello: it wrote a line that is not JSON"),
    (f"cmd:{sys.executable} -c pass", "fails the hello: it exited"),
    (bad("chess"), "(bad-chess) plays chess, not solo"),
])
def test_a_program_that_does_not_greet_is_refused_in_one_line(capsys: pytest.CaptureFixture[str], spec: str,
                                                              fragment: str) -> None:
    code, out, err = run(capsys, "match", "solo", "--bots", spec)
    assert code == 2 and out == "" and fragment in err and len(err.strip().splitlines()) == 1


def test_a_lan_seat_takes_a_program_bot_through_the_same_factory() -> None:
    import click

    from cardtable.ai.bots import make_bot
    from cardtable.cli.net_cmds import _auto
    from cardtable.engine.match import Match
    from cardtable.engine.solo import Config as SoloConfig

    spec = f"cmd:{sys.executable} {ROOT / 'examples' / 'json_bot.py'}"
    assert _auto(spec) == spec  # join/host --auto accept it
    with pytest.raises(click.BadParameter, match="'no-such-program-xyz' is not found"):
        _auto("cmd:no-such-program-xyz")
    match = Match(SoloConfig.preset("classic", 3), b"a table's seed")
    seat = match.to_move()
    assert seat is not None
    bot = make_bot(spec, match.seed, seat)  # as the table's peer builds its --auto bot
    legal = match.legal_actions(seat)
    assert bot.choose(match.observation(seat), legal) in legal
    assert bot.faults == {} and bot.name == "json-bot"
    bot.close()


def test_a_programs_cpu_time_after_it_exited_is_its_last_reading() -> None:
    """Once a program has exited its /proc entry is gone: the CPU time stays at the last reading,
    so the time a bot spent never comes out below zero (it read 0 there, and went negative)."""
    import subprocess
    import sys

    from cardtable.ai.process_bot import BotProcess

    bot = object.__new__(BotProcess)
    bot.cpu_seen = 0.0
    bot.proc = subprocess.Popen([sys.executable, "-c", "sum(range(20_000_000))"])
    read = 0.0
    while bot.proc.poll() is None:
        read = bot.cpu_seconds()
    bot.proc.wait()
    assert read > 0, "the program ended before it was read: give it more to do"
    assert bot.cpu_seconds() == read
