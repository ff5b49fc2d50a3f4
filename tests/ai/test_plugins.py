"""Bots from outside: every naming form, the guard, and the seed a bot is given."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from cardtable.ai.bots import bot_seed, make_bot, parse_bot_spec
from cardtable.ai.tournament import play_one, schedule
from cardtable.engine.errors import ParseError
from cardtable.engine.match import Match, match_seed
from cardtable.engine.solo import Config as SoloConfig
from tests.ai.plugin_bots import SpyBot

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "python_bot.py"
CONFIG = SoloConfig.preset("anniversary", 3, threshold=150)


def play(specs: list[str], deal: int = 0) -> dict[str, Any]:
    game = schedule(deal + 1, specs, duplicate=False, rotate=False)[deal]
    return play_one(CONFIG.to_dict(), 7, game, None)


@pytest.fixture
def entry_point(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """A distribution on sys.path that registers the example bot as ``shedding-ep``."""
    info = tmp_path / "shedding_plugin-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: shedding-plugin\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text("[cardtable.bots]\nshedding-ep = shedding_example:SheddingBot\n")
    (tmp_path / "shedding_example.py").write_text(EXAMPLE.read_text())
    monkeypatch.syspath_prepend(str(tmp_path))
    return "shedding-ep"


@pytest.mark.parametrize("form", ["module", "file", "entry point"])
def test_a_plugin_bot_by_each_naming_form_plays_whole_matches(form: str, entry_point: str) -> None:
    spec = {"module": "tests.ai.plugin_bots:SpyBot", "file": f"{EXAMPLE}:SheddingBot",
            "entry point": entry_point}[form]
    assert parse_bot_spec(spec) == ("plugin", spec)
    result = play([spec, "heuristic", "random"])
    assert result["actions"] > 0 and result["winners"]
    assert result["moves"][0] > 0 and result["faults"][0] == {}
    assert play([spec, "heuristic", "random"])["digest"] == result["digest"], "seeded: the same game again"


@pytest.mark.parametrize("spec, fragment", [
    ("no_such_module_xyz:Bot", "cannot import bot module 'no_such_module_xyz'"),
    ("tests.ai.plugin_bots:Nobody", "has no 'Nobody'"),
    ("missing/bot.py:Bot", "bot file 'missing/bot.py' does not exist"),
    ("deep-blue", "unknown bot 'deep-blue'"),
    ("cmd:", "cmd: needs a command"),
    ("cmd:no-such-program-xyz", "'no-such-program-xyz' is not found"),
])
def test_bad_plugin_specs_are_one_line_errors(spec: str, fragment: str) -> None:
    with pytest.raises(ParseError) as info:
        parse_bot_spec(spec)
    assert fragment in str(info.value) and "\n" not in str(info.value)


def test_a_plugin_that_raises_or_answers_illegal_moves_loses_those_decisions_only() -> None:
    result = play(["tests.ai.plugin_bots:RaisingBot", "tests.ai.plugin_bots:IllegalBot", "heuristic"])
    assert result["winners"], "the match went on to its end"
    raising, illegal, heuristic = result["faults"]
    assert raising["crash"] > 0 and raising["fallback_moves"] == raising["crash"]
    assert illegal["illegal"] > 0 and illegal["fallback_moves"] == illegal["illegal"]
    assert heuristic == {}


def test_a_bot_cannot_compute_the_deal_from_what_it_is_given() -> None:
    SpyBot.seen.clear()
    play(["tests.ai.plugin_bots:SpyBot"] * 3, deal=1)
    deal_seed = match_seed(7, 1)
    real = Match(CONFIG, deal_seed)
    hidden = [real.state.snapshot()["hands"][s] for s in range(3)]
    seeds = {seat: seed for seed, seat, _, _ in SpyBot.seen}
    assert sorted(seeds) == [0, 1, 2] and len(set(seeds.values())) == 3
    for seat, seed in seeds.items():
        assert seed == bot_seed(deal_seed, seat) != deal_seed
        # dealing from anything the bot holds gives other cards than the real deal
        for guess in (seed, seed.hex().encode(), seed + str(seat).encode()):
            assert Match(CONFIG, guess).state.snapshot()["hands"] != hidden
    for _, _, obs, _ in SpyBot.seen:  # the observations never carry the deal's seed
        text = json.dumps(obs)
        assert deal_seed.decode() not in text and deal_seed.hex() not in text
    # what the bot holds reproduces its own decisions, so the match is still deterministic
    draws = [make_bot("random", deal_seed, 1).rng.below(10**9) for _ in range(2)]
    assert draws[0] == draws[1]
