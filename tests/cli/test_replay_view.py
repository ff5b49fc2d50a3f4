"""``cardtable replay LOG --view``: a match log or a kept table's log in the table view, move by
move, forward and back; every hand only for a full-knowledge log."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widgets import OptionList, Static

from cardtable.cli.replay_view import Frames, ReplayApp, load_frames
from cardtable.engine.match import Match
from tests.cli.test_match_cli import run
from tests.cli.test_plain_script import kept_play_log


@pytest.fixture(scope="module")
def match_log(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from cardtable.cli.main import main

    where = tmp_path_factory.mktemp("logs")
    with pytest.raises(SystemExit):
        main(["match", "solo", "--players", "3", "--games", "1", "--seed", "5", "--bots",
              "me=heuristic,random,heuristic", "--log-dir", str(where)])
    return where / "game-0000.ctlog"


def frames_of(path: Path) -> Frames:
    return load_frames(path, path.read_bytes())


def text(app: ReplayApp, widget: str) -> str:
    return str(app.query_one(widget, Static).render())


def run_view(frames: Frames, scenario: Callable[[Pilot[Any], ReplayApp], Awaitable[None]],
             size: tuple[int, int] = (160, 50)) -> None:
    app = ReplayApp(frames)

    async def main() -> None:
        async with app.run_test(size=size) as pilot:
            await pilot.pause()
            await scenario(pilot, app)

    asyncio.run(main())


def test_frames_step_forward_and_back_to_the_same_positions(match_log: Path) -> None:
    frames = frames_of(match_log)
    assert frames.names == ["me", "random", "heuristic"]
    assert len(frames) > 200
    walk = Match(frames.config, frames.seed)
    digests = [walk.digest()]
    for seat, action in frames.moves:
        walk.apply(seat, action)
        digests.append(walk.digest())
    for k in (len(frames), 150, 64, 65, 63, 1, 0, 129):
        assert frames.at(k).digest() == digests[k]
    starts = frames.round_starts()
    assert starts[0] == 0 and len(starts) == frames.at(len(frames)).round_no + 1
    assert all(frames.at(k).round_no == frames.at(k - 1).round_no + 1 for k in starts[1:])


def test_keys_step_through_the_match_and_the_footer_shows_them(match_log: Path) -> None:
    frames = frames_of(match_log)

    async def scenario(pilot: Pilot[Any], app: ReplayApp) -> None:
        keys = {b.binding.description for b in app.screen.active_bindings.values()}
        assert {"Back", "Next", "Round", "Start", "End", "Hands", "Quit"} <= keys
        assert "Move 0" not in text(app, "#status") and "The deal" in text(app, "#status")
        await pilot.press("right", "right", "right", "left")
        assert app.replay.step == 2
        assert f"move 2 of {len(frames)}" in text(app, "#title")
        seat, action = frames.moves[1]
        assert text(app, "#status").startswith(f"Move 2 of {len(frames)}: {frames.told[1][0]}")
        moves = app.query_one("#moves", OptionList)
        assert moves.highlighted == 2 and f": {action}" in str(moves.get_option_at_index(2).prompt)
        await pilot.press("pagedown")
        assert app.replay.step == frames.round_starts()[1]
        assert "round 2" in text(app, "#title")
        await pilot.press("pageup", "pageup")
        assert app.replay.step == 0
        await pilot.press("end")
        assert app.replay.step == len(frames) and "The match is over" in text(app, "#status")
        await pilot.press("home")
        assert app.replay.step == 0
        await pilot.press("q")

    run_view(frames, scenario)


def test_a_full_knowledge_log_shows_every_hand_and_v_one_at_a_time(match_log: Path) -> None:
    frames = frames_of(match_log)

    async def scenario(pilot: Pilot[Any], app: ReplayApp) -> None:
        await pilot.press(*["right"] * 5)
        hands = text(app, "#hand")
        for seat in range(3):
            cards = frames.at(5).observation(seat)["hand"]
            assert " ".join(cards) in re.sub(r"\s+", " ", hands.replace("▌", " ").replace("▐", " "))
        await pilot.press("v", "v")
        only = text(app, "#hand")
        assert "(seat 1)" in only and "(seat 0)" not in only and "(seat 2)" not in only
        await pilot.press("v", "v")
        assert all(f"(seat {s})" in text(app, "#hand") for s in range(3))

    run_view(frames, scenario)


def test_a_log_without_the_deal_shows_only_the_public_view(match_log: Path) -> None:
    full = frames_of(match_log)
    public = Frames("hidden", full.config, full.seed, full.names, False, full.moves)

    async def scenario(pilot: Pilot[Any], app: ReplayApp) -> None:
        await pilot.press(*["right"] * 5)
        hands = text(app, "#hand")
        assert "not in the log" in hands
        hidden = {c for s in range(3) for c in full.at(5).observation(s)["hand"]}
        assert not [c for c in hidden if re.search(rf"(?<![\w/]){re.escape(c)}(?!\w)", hands)], hands
        assert app.query_one("#hand", Static).border_title == "Hands (the public view)"

    run_view(public, scenario)


def test_a_kept_play_table_log_views_with_the_seat_names(tmp_path: Path) -> None:
    log, _ = kept_play_log(tmp_path)
    frames = frames_of(log)
    assert frames.names == ["you", "cpu 1", "cpu 2"] and frames.full_knowledge
    assert "draw" in [action for seat, action in frames.moves if seat == 0]

    async def scenario(pilot: Pilot[Any], app: ReplayApp) -> None:
        await pilot.press("end")
        assert f"move {len(frames)} of {len(frames)}" in text(app, "#title")

    run_view(frames, scenario, size=(80, 24))


@pytest.mark.parametrize("extra, fragment", [
    (("--view",), "the table needs a terminal"),
    (("--view", "--verify"), "--view and --verify: give one"),
])
def test_view_errors_are_one_line(capsys: pytest.CaptureFixture[str], match_log: Path,
                                  extra: tuple[str, ...], fragment: str) -> None:
    code, out, err = run(capsys, "replay", str(match_log), *extra)
    assert code == 2 and fragment in err and len(err.strip().splitlines()) == 1
