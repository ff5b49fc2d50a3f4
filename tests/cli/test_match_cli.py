"""``cardtable match``: output, determinism, bad arguments, logs."""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path

import pytest

from cardtable.cli.main import main
from cardtable.engine.log import replay


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
    again = json.loads(run(capsys, *argv)[1])
    assert without_timing(again) == without_timing(report)


def without_timing(report: dict) -> dict:
    """The report minus the wall-clock figures, which alone may differ between runs."""
    for game in report["games"]:
        game.pop("seconds")
        game.pop("cpu")
    for row in report["summary"]["bots"]:
        row.pop("ms_per_move")
        row.pop("cpu_ms_per_move")
    return report


def test_duplicate_deals_rotate_the_bots_through_every_seat(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "match", "scout", "--players", "3", "--games", "2", "--seed", "5",
                       "--bots", "random,random,random", "--duplicate", "--json")
    assert code == 0
    games = json.loads(out)["games"]
    assert [(g["deal"], g["rotation"]) for g in games] == [(0, 0), (0, 1), (0, 2), (1, 0), (1, 1), (1, 2)]
    assert len({g["seed"] for g in games}) == 2


def test_workers_give_the_same_games(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ("match", "scout", "--players", "4", "--games", "4", "--seed", "9", "--json")
    one = without_timing(json.loads(run(capsys, *argv)[1]))
    two = without_timing(json.loads(run(capsys, *argv, "--workers", "2")[1]))
    assert one == two


def test_summary_per_bot_with_intervals(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "match", "solo", "--players", "2", "--games", "4", "--seed", "2",
                       "--bots", "random,random", "--json")
    assert code == 0
    rows = json.loads(out)["summary"]["bots"]
    assert [r["bot"] for r in rows] == ["random"] and rows[0]["seat_games"] == 8
    low, high = rows[0]["win_rate_ci"]
    assert 0 <= low <= rows[0]["win_rate"] <= high <= 1


def test_scout_table_for_people(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "match", "scout", "--players", "5", "--games", "2", "--seed", "4")
    assert code == 0
    assert out.splitlines()[0] == "SCOUT · 2 games · seed 4"
    assert len(out.splitlines()) == 3 and out.splitlines()[2].startswith("random ")


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
    (("match", "solo", "--bots", "tests.ai.plugin_bots:NeedsMore"), "cannot be built as Class(seed, seat): "
                                                                    "TypeError"),
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


def test_duplicate_summary_pairs_the_bots_by_deal_and_times_cpu(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "match", "scout", "--players", "3", "--games", "3", "--seed", "5",
                       "--bots", "heuristic,random,random", "--duplicate", "--json")
    assert code == 0
    summary = json.loads(out)["summary"]
    rows = {r["bot"]: r for r in summary["bots"]}
    assert rows["heuristic"]["advantage"]["deals"] == 3
    assert rows["heuristic"]["advantage"]["score"] == -rows["random"]["advantage"]["score"] > 0
    assert [p["bots"] for p in summary["pairs"]] == [["heuristic", "random"]]
    for paired in [row["advantage"] for row in rows.values()] + summary["pairs"]:
        assert -1 <= paired["win_rate_ci"][0] <= paired["win_rate_ci"][1] <= 1
        assert paired["verdict"] == "too few games to tell", "3 deals cannot tell"
    for row in rows.values():
        assert 0 < row["cpu_ms_per_move"] and 0 < row["ms_per_move"]
    code, out, _ = run(capsys, "match", "scout", "--players", "3", "--games", "3", "--seed", "5",
                       "--bots", "heuristic,random,random", "--duplicate")
    assert "paired by deal (3 deals in every rotation)" in out and "cpu ms" in out.splitlines()[1]
    assert [line.endswith("too few games to tell") for line in out.splitlines()[-2:]] == [True, True]


def test_the_table_gives_a_paired_verdict_only_from_enough_deals() -> None:
    from cardtable.ai.stats import MIN_DEALS, summarize
    from cardtable.cli.match_cmd import summary_table
    from tests.ai.test_stats import a_wins, duplicate_games

    def table(deals: int) -> list[str]:
        results = duplicate_games(deals, a_wins)
        report = {"game": "scout", "seed": 1, "summary": {"games": len(results), "bots": summarize(results)}}
        return summary_table(report).splitlines()

    few, enough = table(MIN_DEALS - 1), table(MIN_DEALS)
    assert f"({MIN_DEALS - 1} deals in every rotation)" in few[-5]
    assert all(line.endswith("too few games to tell") for line in few[-4:]), few
    assert few[-4].startswith("a ") and "+100.0 to +100.0" in few[-4], "the interval is shown all the same"
    assert enough[-4].startswith("a ") and enough[-4].endswith("ahead"), enough
    assert all(line.endswith("behind") for line in enough[-3:]), enough


def test_the_readmes_first_command_pits_the_search_against_other_bots_and_runs(
        capsys: pytest.CaptureFixture[str]) -> None:
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8").splitlines()
    at = next(k for k, line in enumerate(readme) if "bin/cardtable match " in line)
    first, heavier = (shlex.split(line.split("bin/cardtable ", 1)[1]) for line in readme[at:at + 2])
    fresh = "python3 -m venv .venv && .venv/bin/pip install -e . && .venv/bin/cardtable match "
    assert readme[at].startswith(fresh) and readme[at + 1].startswith(".venv/bin/cardtable match ")
    bots = first[first.index("--bots") + 1].split(",")
    assert "ismcts:strong" in bots and len(set(bots)) > 1 and "--duplicate" in first  # something worth seeing
    assert [a for a in first if a not in ("--rule", "threshold=200")] == heavier  # the same at full length
    first[first.index("--games") + 1] = "1"  # the same command, one deal, on both of CI's cores
    code, out, err = run(capsys, *first, "--workers", "2")  # same games: test_workers_give_the_same_games
    assert code == 0, err
    assert "ismcts:strong" in out and "paired by deal" in out
    assert "SOLO anniversary, 4 players: 4 of 4 games played" in err  # told as they end


def test_a_match_tells_its_progress_when_stderr_is_not_a_terminal(
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """A line a finished game (a terminal gets click's progress bar; elsewhere it showed nothing but
    its label), and the games a --resume found played."""
    from cardtable.cli import match_cmd

    monkeypatch.setattr(match_cmd, "LINE_EVERY", 0.0)  # every game told, however fast
    out = tmp_path / "run.jsonl"
    argv = ("match", "scout", "--players", "3", "--games", "4", "--seed", "3", "--out", str(out))
    code, _, err = run(capsys, *argv)
    assert code == 0
    told = [re.sub(r" \(\d+ s(, about \d+ s to go)?\)$", "", line) for line in err.splitlines()]
    played = [f"SCOUT, 3 players: {k} of 4 games played" for k in range(1, 5)]
    assert told == ["SCOUT, 3 players: 4 games to play", *played], err
    assert err.splitlines()[1].endswith(" s to go)") and err.splitlines()[-1].endswith(" s)")
    header, *games = out.read_text().splitlines()
    out.write_text("\n".join([header, *games[:2]]) + "\n")  # a run stopped after 2 games
    code, _, err = run(capsys, *argv, "--resume")
    told = [line.split(" (")[0] for line in err.splitlines()]
    assert code == 0 and told[1:] == ["SCOUT, 3 players: 2 of 4 played already", *played[2:]], err


def test_progress_lines_come_at_most_every_two_seconds_and_always_for_the_last_game() -> None:
    """A real process whose stderr is a pipe: fast games are not told one by one."""
    import subprocess
    import sys

    root = Path(__file__).resolve().parents[2]
    code = "from cardtable.cli.main import main; main()"
    argv = ["match", "scout", "--players", "3", "--games", "6", "--seed", "1"]
    done = subprocess.run([sys.executable, "-c", code, *argv], cwd=root, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    lines = done.stderr.splitlines()
    assert lines[0] == "SCOUT, 3 players: 6 games to play", lines
    last = re.fullmatch(r"SCOUT, 3 players: 6 of 6 games played \((\d+) s\)", lines[-1])
    assert last is not None, lines
    assert len(lines) <= 2 + int(last.group(1)) // 2, lines  # a line per game would be 7
