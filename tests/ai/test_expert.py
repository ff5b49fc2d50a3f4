"""Expert iteration (ai/expert.py) and the learned policy (ai/_policy.pxi): a tiny training run
writes a policy that loads and is the same with the same seed, on Ray too; the network only
ever picks among the legal moves; the search's PUCT prior follows it; the ``learned`` level plays
whole rounds; bad arguments are one line."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from cardtable.ai import expert
from cardtable.ai._search import POLICY_INPUTS, PolicyModel, policy_inputs, policy_move, search
from cardtable.ai.driver import play_match
from cardtable.ai.ismcts import IsmctsBot, parse_level
from cardtable.ai.policy_net import make_policy, read_policy
from cardtable.engine.match import Match
from cardtable.engine.scout import Config as ScoutConfig
from cardtable.engine.solo import Config as SoloConfig

TINY = ["--generations", "2", "--rounds", "3", "--iterations", "30", "--epochs", "2", "--hidden", "8"]


def tiny_run(tmp_path: Path, game: str, name: str, *extra: str) -> dict[str, Any]:
    out = tmp_path / name
    assert expert.main(["--game", game, *TINY, "--seed", "3", "--out", str(out), *extra]) == 0
    return json.loads(out.read_text())  # type: ignore[no-any-return]


@pytest.mark.parametrize("game", ["scout", "solo"])
def test_a_tiny_run_writes_a_policy_that_loads_and_repeats_with_its_seed(tmp_path: Path, game: str) -> None:
    first = tiny_run(tmp_path, game, "a.json")
    again = tiny_run(tmp_path, game, "b.json")
    assert first["w1"] == again["w1"] and first["w2"] == again["w2"]
    assert first["made"]["command"].startswith(f"python -m cardtable.ai.expert --game {game} ")
    assert [g["generation"] for g in first["made"]["generations"]] == [0, 1]
    assert all(g["decisions"] > 0 for g in first["made"]["generations"])
    assert read_policy(tmp_path / "a.json").game == game
    other = tiny_run(tmp_path, game, "c.json", "--seed", "4")
    assert other["w1"] != first["w1"]


def test_init_continues_a_policy_and_its_file_says_the_chain_of_commands(tmp_path: Path) -> None:
    first = tiny_run(tmp_path, "scout", "a.json")
    more = tiny_run(tmp_path, "scout", "b.json", "--generations", "1", "--init", str(tmp_path / "a.json"))
    rows = more["made"]["generations"]
    assert [g["generation"] for g in rows] == [0, 1, 2] and rows[:2] == first["made"]["generations"]
    assert rows[2]["prior_agreement"] is not None  # the first new generation searched with a.json's net
    command = more["made"]["command"]
    assert command.startswith(first["made"]["command"] + " && python -m cardtable.ai.expert --game scout ")
    assert command.endswith(f"--generations 1 --rounds 3 --iterations 30 --hidden 8 --epochs 2 --window 2 "
                            f"--seed 3 --init {tmp_path / 'a.json'}")
    assert more["w1"] != first["w1"]


def test_search_settings_reach_the_self_play_and_the_command(tmp_path: Path) -> None:
    level = expert.level_of("scout", 30, True, "reward_mode=1")
    assert level == "30+keys=cards+prior=net+policy_all=1+reward_mode=1"
    plain = tiny_run(tmp_path, "scout", "a.json", "--generations", "1")
    margin = tiny_run(tmp_path, "scout", "b.json", "--generations", "1", "--search", "reward_mode=1")
    assert margin["made"]["command"].endswith(" --seed 3 --search reward_mode=1")
    assert " --search" not in plain["made"]["command"]
    assert margin["made"]["generations"][0]["loss"] != plain["made"]["generations"][0]["loss"]


@pytest.mark.parametrize(("game", "hidden", "said"), [
    ("scout", "9", "is a scout policy of 8 hidden units, not scout with --hidden 9"),
    ("solo", "8", "is a scout policy of 8 hidden units, not solo with --hidden 8")])
def test_an_init_that_does_not_fit_is_one_line(capsys: pytest.CaptureFixture[str], tmp_path: Path, game: str,
                                               hidden: str, said: str) -> None:
    tiny_run(tmp_path, "scout", "a.json", "--generations", "1")
    capsys.readouterr()
    argv = ["--game", game, *TINY, "--hidden", hidden, "--init", str(tmp_path / "a.json"),
            "--out", str(tmp_path / "b.json")]
    assert expert.main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("expert: --init ") and said in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "b.json").exists()


def one_hot_policy(game: str, column: int, weight: float) -> Any:
    """A policy whose logit is ``weight`` x tanh(input ``column``)."""
    zero = [0.0] * POLICY_INPUTS
    row = [1.0 if i == column else 0.0 for i in range(POLICY_INPUTS)]
    return PolicyModel(game, zero, [1.0] * POLICY_INPUTS, [row], [0.0], [weight], 0.0)


REL = POLICY_INPUTS - 2  # the move's heuristic value below the best (the last inputs but one)


def positions(config: Any, seed: bytes, count: int) -> Iterator[tuple[Match, int]]:
    """Positions of a heuristic self-play round, with the seat to move."""
    from cardtable.ai.heuristic import HeuristicBot

    match = Match(config, seed)
    bots = [HeuristicBot(seed, s) for s in range(config.players)]
    for _ in range(count):
        if match.is_over():
            return
        seat = match.to_move()
        assert seat is not None
        yield match, seat
        legal = match.legal_actions(seat)
        match.apply(seat, bots[seat].choose(match.observation(seat), legal))


@pytest.mark.parametrize("config", [ScoutConfig(players=3), SoloConfig.preset("classic", 4)])
def test_the_network_only_picks_legal_moves_whatever_its_weights(config: Any) -> None:
    game = config.to_dict()["game"]
    for weight in (-50.0, 50.0):
        model = one_hot_policy(game, REL, weight)
        for match, seat in positions(config, b"legal", 40):
            obs = match.observation(seat)
            rows, texts = policy_inputs(game, obs, config.to_dict(), seat)
            assert rows.shape == (len(texts), POLICY_INPUTS)
            move = policy_move(model, game, obs, config.to_dict(), seat)
            assert move in {str(a) for a in match.legal_actions(seat)}


def test_the_search_prior_follows_the_policy() -> None:
    """A policy that prefers (or shuns) scouting draws PUCT's visits to a scout (or away)."""
    config = ScoutConfig(players=4)
    checked = 0
    for match, seat in positions(config, b"prior", 30):
        obs = match.observation(seat)
        _, texts = policy_inputs("scout", obs, config.to_dict(), seat)
        kinds = {is_scout(t) for t in texts}
        if kinds != {True, False}:
            continue
        for weight in (30.0, -30.0):
            _, stats = search("scout", obs, config.to_dict(), seat, iterations=60, seed=1, cpuct=20.0,
                              policy=one_hot_policy("scout", SCOUT_COLUMN, weight))
            assert is_scout(stats["children"][0][0]) == (weight > 0), stats["children"][:3]
        checked += 1
    assert checked >= 3


SCOUT_COLUMN = 16 + 3  # the move's inputs start at 16; kind SCOUT_SCOUT is 3


def is_scout(text: str) -> bool:
    return text.startswith("scout:") and "+" not in text


def test_the_learned_level_plays_rounds_of_both_games(tmp_path: Path) -> None:
    assert parse_level("learned") == (1, {"learned": True})
    for config, game in ((ScoutConfig(players=2), "scout"), (SoloConfig.preset("anniversary", 3), "solo")):
        model = make_policy(tiny_run(tmp_path, game, f"{game}.json"))
        bots = []
        for s in range(config.players):
            bot = IsmctsBot(f"learned/{s}".encode(), s, "learned")
            bot.policy = model
            bots.append(bot)
        result = play_match(Match(config, b"learned"), bots, rounds=1)
        assert result.rounds == 1 and len(result.entries) > 5


def test_a_policy_of_another_game_is_refused() -> None:
    config = ScoutConfig(players=2)
    match = Match(config, b"x")
    seat = match.to_move()
    assert seat is not None
    with pytest.raises(ValueError, match="a solo policy cannot play scout"):
        search("scout", match.observation(seat), config.to_dict(), seat, iterations=5,
               policy=one_hot_policy("solo", REL, 1.0))
    with pytest.raises(ValueError, match="policy takes 40 inputs"):
        PolicyModel("scout", [0.0], [1.0], [[0.0]], [0.0], [0.0], 0.0)


BAD = [["--players", "1"], ["--players", "x"], ["--rounds", "0"], ["--hidden", "65"],
       ["--init", "no-such-policy.json"], ["--init", "pyproject.toml"], ["--search", "reward_mod=1"],
       ["--search", "reward_mode=x"]]


@pytest.mark.parametrize("args", BAD)
def test_bad_arguments_are_one_line(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                    args: list[str]) -> None:
    assert expert.main(["--game", "scout", *args, "--out", str(tmp_path / "p.json")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("expert: ") and len(err.strip().splitlines()) == 1


def test_self_play_on_a_local_ray_cluster_gives_the_local_examples() -> None:
    ray = pytest.importorskip("ray", reason="the 'ray' extra is not installed")
    try:
        local = expert.self_play("scout", [2, 3], 5, 0, 2 * expert.CHUNK, 20, None)
        on_ray = expert.self_play("scout", [2, 3], 5, 0, 2 * expert.CHUNK, 20, None, ray="")
    finally:
        ray.shutdown()
    for mine, theirs in zip(local, on_ray, strict=True):
        assert mine.shape == theirs.shape and (mine == theirs).all()


@pytest.mark.parametrize("config", [ScoutConfig(players=4), SoloConfig.preset("classic", 2)])
def test_the_shipped_policy_says_how_it_was_made_and_plays(config: Any) -> None:
    from cardtable.ai.heuristic import HeuristicBot
    from cardtable.ai.policy_net import policy_path, shipped_policy

    game = config.to_dict()["game"]
    assert shipped_policy(game).game == game
    made = json.loads(policy_path(game).read_text())["made"]
    assert made["command"].startswith(f"python -m cardtable.ai.expert --game {game} ")
    assert "--seed" in made["command"]
    bots: list[Any] = [IsmctsBot(b"shipped", 0, "learned")]
    bots += [HeuristicBot(b"shipped", s) for s in range(1, config.players)]
    assert play_match(Match(config, b"shipped"), bots, rounds=1).rounds == 1


def test_the_forward_pass_is_the_network_s_formula() -> None:
    """The C pass (folded weights, sparse inputs, a rational tanh) against numpy's tanh."""
    import numpy as np

    rng = np.random.default_rng(5)
    shift, gain = rng.normal(size=POLICY_INPUTS), rng.uniform(0.5, 2.0, POLICY_INPUTS)
    w1, b1, w2 = rng.normal(size=(12, POLICY_INPUTS)), rng.normal(size=12), rng.normal(size=12)
    model = PolicyModel("scout", list(shift), list(gain), w1.tolist(), list(b1), list(w2), 0.25)
    rows = (rng.normal(size=(300, POLICY_INPUTS)) * 2).astype(np.float32)
    rows[rng.random(rows.shape) < 0.6] = 0.0  # the move's inputs are mostly 0 (one-hot)
    expected = np.tanh(((rows - shift) * gain) @ w1.T + b1) @ w2 + 0.25
    assert np.abs(np.array(model.logits(rows)) - expected).max() < 1e-4


def searched(obs: dict[str, Any], config: Any, seat: int, **options: Any) -> list[Any]:
    _, stats = search("scout", obs, config.to_dict(), seat, iterations=600, seed=3, opponents="policy",
                      keys="cards", **options)
    return list(stats["children"])


def test_policy_depth_keeps_the_learned_prior_to_a_seat_s_first_decisions() -> None:
    """``policy_depth=K``: the network at a seat's first K decisions on a path (the root the
    searcher's first), the heuristic's prior below. Halving does not use the root's prior, so
    there K = 1 searches exactly as without the network; a K deeper than the tree as K = 0;
    at a PUCT root K = 1 changes the search, the same way every time."""
    config = ScoutConfig(players=4)
    policy = one_hot_policy("scout", SCOUT_COLUMN, 30.0)
    changed = 0
    seen = [(match.observation(seat), seat) for match, seat in positions(config, b"depth", 24)]
    for obs, seat in seen[8::4]:
        plain = searched(obs, config, seat, root="halving")
        assert searched(obs, config, seat, root="halving", policy=policy, policy_depth=1) == plain
        full = searched(obs, config, seat, policy=policy)
        assert searched(obs, config, seat, policy=policy, policy_depth=60) == full
        first = searched(obs, config, seat, policy=policy, policy_depth=1)
        assert searched(obs, config, seat, policy=policy, policy_depth=1) == first
        changed += first != full
    assert changed >= 2
    with pytest.raises(ValueError, match="policy_depth must be at least 0"):
        search("scout", obs, config.to_dict(), seat, iterations=5, policy=policy, policy_depth=-1)


def test_the_policy_depth_setting_reaches_the_search() -> None:
    assert parse_level("strong+prior=net+policy_depth=2")[1]["policy_depth"] == 2
    config = ScoutConfig(players=4)
    match = Match(config, b"setting")
    seat = match.to_move()
    assert seat is not None
    options = IsmctsBot(b"s", seat, "strong+prior=net+policy_depth=2")._options(match.observation(seat))[0]
    assert options["policy_depth"] == 2 and options["policy"] is not None


@pytest.mark.parametrize(("level", "said"), [
    ("strong+prior=net+policy_depth=-1", "rollout_cap and policy_depth in .* must be at least 0"),
    ("strong+prior=net+policy_depth=two", "the search setting policy_depth needs a number, not 'two'"),
    ("strong+prior=net+policy_depth=1.5", "the search setting policy_depth needs a number, not '1.5'")])
def test_a_bad_policy_depth_is_one_line(level: str, said: str) -> None:
    from cardtable.engine.errors import ParseError

    with pytest.raises(ParseError, match=said) as err:
        parse_level(level)
    assert "\n" not in str(err.value)
