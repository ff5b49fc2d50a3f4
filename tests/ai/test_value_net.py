"""The learned leaf value: its data, the C network against numpy, the shipped files, the search
with it, and the other seats played by the heuristic inside the tree (``opponents``)."""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from cardtable.ai import value_train
from cardtable.ai._search import (
    SEARCH_DEFAULTS,
    VALUE_INPUTS,
    ScoutMirror,
    SoloMirror,
    ValueModel,
    search,
    value_data,
    value_features,
)
from cardtable.ai.value_net import WEIGHTS, read_network, shipped_network, table_name
from cardtable.ai.value_train import dataset, fit, main, make_config, predict
from cardtable.engine.match import Match
from cardtable.engine.scout import Config as ScoutConfig
from cardtable.engine.solo import Config as SoloConfig
from tests.ai.test_ismcts import _swap_hidden, positions

CONFIGS = [ScoutConfig(players=4), SoloConfig.preset("anniversary", 4), SoloConfig.preset("classic", 3)]


def model(net: dict[str, Any], game: str) -> ValueModel:
    return ValueModel(game, net["shift"], net["gain"], net["w1"], net["b1"], net["w2"], net["b2"])


def rewards_of(points: list[float], scale: float, higher_better: bool) -> list[float]:
    n, sign = len(points), 1.0 if higher_better else -1.0
    return [math.tanh(sign * (p - (sum(points) - p) / (n - 1)) / scale) for p in points]


@pytest.mark.parametrize("config", CONFIGS, ids=lambda c: c.describe())
def test_each_row_is_a_seats_reward_at_the_end_of_the_heuristic_round(config: Any) -> None:
    game, n = config.game, config.players
    for k in range(3):
        snapshot = Match(config, f"rows/{k}".encode()).state.snapshot()
        features = np.zeros((2 * n, VALUE_INPUTS[game]), np.float32)
        rewards = np.zeros(2 * n, np.float32)
        assert value_data([snapshot], 100 + k, 2, SEARCH_DEFAULTS[game]["scale"], features, rewards) == 2 * n
        mirror = (ScoutMirror if game == "scout" else SoloMirror).from_snapshot(snapshot)
        mirror.rollout(100 + k)  # the same stream plays the same round
        higher = game == "scout" or snapshot["config"]["scoring"] == "pool"
        expected = rewards_of(mirror.points(), SEARCH_DEFAULTS[game]["scale"], higher)
        assert rewards.tolist() == pytest.approx(expected * 2, abs=1e-6)
        assert (features[:, 0 if game == "solo" else 4] > 0).all()  # every row is a position


def test_the_c_network_is_the_numpy_network() -> None:
    for config in CONFIGS:
        x, y, _ = dataset(config, 30, 5, 4)
        net = fit(x, y, hidden=7, epochs=2, seed=3)
        c_model = model(net, config.game)
        for match, _ in positions(config, 4):
            snapshot = match.state.snapshot()
            rows = np.array([value_features(snapshot, seat) for seat in range(config.players)])
            assert c_model.rewards(snapshot) == pytest.approx(predict(net, rows).tolist(), abs=1e-5)


def test_features_are_seen_from_each_seat() -> None:
    """Seat 1's row starts its seat block with seat 1, then seat 2 ...: the blocks rotate."""
    match, _ = positions(ScoutConfig(players=4), 3)[-1]
    snapshot = match.state.snapshot()
    rows = [value_features(snapshot, seat) for seat in range(4)]
    blocks = [[row[5 + 8 * r:13 + 8 * r] for r in range(4)] for row in rows]
    for seat in range(4):
        assert blocks[seat] == blocks[0][seat:] + blocks[0][:seat]
    assert len(set(map(tuple, (b[0] for b in blocks)))) > 1  # the seats differ somewhere


VALUE_FILES = sorted(p for p in WEIGHTS.glob("*.json") if not p.stem.startswith("policy-"))
"""The shipped value networks (ai/weights/policy-*.json are learned policies: tests/ai/test_expert.py)."""


@pytest.mark.parametrize("path", VALUE_FILES, ids=lambda p: p.stem)
def test_a_shipped_network_loads_and_says_how_it_was_made(path: Path) -> None:
    data = json.loads(path.read_text())
    assert path.stem == data["table"]
    assert data["made"]["command"].startswith("python -m cardtable.ai.value_train")
    assert data["made"]["held_out_mse"] < data["made"]["mean_predictor_mse"]
    game, players = data["game"], int(data["table"].rsplit("-", 1)[1][:-1])
    edition = data["table"].split("-")[1] if game == "solo" else "anniversary"
    config = make_config(game, players, edition)
    assert table_name(config.to_dict()) == path.stem
    net = shipped_network(path.stem)
    assert net is not None and net.game == game


def test_a_broken_network_file_is_refused_in_one_line(tmp_path: Path) -> None:
    for text, words in [("{not json", "cannot read"), ('{"format": 99}', "format"),
                        ('{"format": 1, "game": "scout"}', "lacks"),
                        ('{"format": 1, "game": "scout", "shift": [0], "gain": [1], "w1": [[0]], "b1": [0], '
                         '"w2": [0], "b2": 0}', "inputs")]:
        path = tmp_path / "net.json"
        path.write_text(text)
        with pytest.raises(ValueError, match=words) as err:
            read_network(path)
        assert "\n" not in str(err.value)


def test_value_train_writes_a_network_the_search_can_use(tmp_path: Path) -> None:
    out = tmp_path / "scout.json"
    small = ["--game", "scout", "--rounds", "40", "--epochs", "1", "--hidden", "4"]
    assert main([*small, "--out", str(out)]) == 0
    data = json.loads(out.read_text())
    assert data["table"] == "scout-4p" and data["made"]["rows"] == 40 * 8 * 4
    again = tmp_path / "again.json"
    main([*small, "--out", str(again)])
    assert json.loads(again.read_text())["w2"] == pytest.approx(data["w2"])  # same arguments, same net
    assert main(["--game", "scout", "--rounds", "3"]) == 2
    assert main([*small, "--out", str(tmp_path / "scout.json" / "inside")]) == 2  # a file is no folder


def test_the_rows_of_a_round_do_not_depend_on_the_others_or_on_where_they_are_played(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """In chunks of 10 rounds: 25 rounds begin with the rows of 20; a local Ray cluster plays
    the chunks as tasks and gives the same rows, in the same order."""
    ray = pytest.importorskip("ray", reason="the 'ray' extra is not installed")
    monkeypatch.setattr(value_train, "CHUNK", 10)
    config = ScoutConfig(players=4)
    local = dataset(config, 25, 3, 2)
    assert len(local[1]) == 25 * 2 * 4 and local[2][-1] == 24
    np.testing.assert_array_equal(dataset(config, 20, 3, 2)[0], local[0][:20 * 2 * 4])
    assert not np.array_equal(dataset(config, 25, 4, 2)[0], local[0])  # another seed, other rows
    try:
        on_ray = dataset(config, 25, 3, 2, ray="", cpus=2)
    finally:
        ray.shutdown()
    for mine, theirs in zip(local, on_ray, strict=True):
        np.testing.assert_array_equal(mine, theirs)


def test_value_train_without_ray_says_what_to_install(monkeypatch: pytest.MonkeyPatch,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)  # import ray now fails as if it were not installed
    assert main(["--game", "scout", "--rounds", "20", "--ray"]) == 2
    assert capsys.readouterr().err == "value_train: Ray is not installed: pip install 'cardtable[ray]'\n"


@pytest.mark.parametrize("config", [ScoutConfig(players=4), SoloConfig.preset("anniversary", 4)],
                         ids=lambda c: c.describe())
def test_a_search_with_a_network_values_leaves_with_it(config: Any) -> None:
    x, y, _ = dataset(config, 40, 9, 4)
    net = model(fit(x, y, hidden=6, epochs=2, seed=1), config.game)
    changed = 0
    for match, seat in positions(config, 3):
        obs = match.observation(seat)
        text, stats = search(config.game, obs, obs["config"], seat, iterations=300, seed=4, value=net,
                             rollout_cap=0)
        assert text in {str(a) for a in match.legal_actions(seat)}
        again = search(config.game, obs, obs["config"], seat, iterations=300, seed=4, value=net,
                       rollout_cap=0)
        assert (text, stats["children"]) == (again[0], again[1]["children"])
        plain = search(config.game, obs, obs["config"], seat, iterations=300, seed=4)
        changed += stats["children"] != plain[1]["children"]
    assert changed > 0
    other = "solo" if config.game == "scout" else "scout"
    with pytest.raises(ValueError, match="cannot value"):
        search(other, *_any_observation(other), iterations=10, value=net)


def _any_observation(game: str) -> tuple[dict[str, Any], dict[str, Any], int]:
    config = ScoutConfig(players=4) if game == "scout" else SoloConfig.preset("anniversary", 4)
    match, seat = positions(config, 2)[-1]
    obs = match.observation(seat)
    return obs, obs["config"], seat


@pytest.mark.parametrize("config", [ScoutConfig(players=4), SoloConfig.preset("anniversary", 4)],
                         ids=lambda c: c.describe())
def test_the_other_seats_tree_moves_follow_the_opponent_model(config: Any) -> None:
    """``opponents="policy"``: every other seat's move in the tree is one the heuristic values
    most; ``sample``: drawn from softmax(value / opp_temp), so some are not, unless the
    temperature is nearly 0; searched (the default), some are not (the control)."""
    off = {"policy": 0, "sample": 0, "sharp": 0, "search": 0}
    models = {"policy": {"opponents": "policy"}, "sample": {"opponents": "sample"},
              "sharp": {"opponents": "sample", "opp_temp": 1e-9}, "search": {}}
    for match, seat in positions(config, 4):
        obs = match.observation(seat)
        for name, options in models.items():
            text, stats = search(config.game, obs, obs["config"], seat, iterations=800, seed=6, **options)
            assert text in {str(a) for a in match.legal_actions(seat)} and stats["mean_depth"] > 1.0
            off[name] += stats["off_policy"]
    assert off["policy"] == off["sharp"] == 0 and off["sample"] > 0 and off["search"] > 0
    with pytest.raises(ValueError, match="opponents"):
        search(config.game, obs, obs["config"], seat, iterations=10, opponents="nobody")


def test_no_peeking_a_search_valued_by_the_shipped_network() -> None:
    """The network values sampled worlds only: hidden cards swapped, the same answer and root
    statistics (as tests/ai/test_ismcts.py checks for every other setting)."""
    net = shipped_network("scout-4p")
    assert net is not None
    checked = 0
    for match, seat in positions(ScoutConfig(players=4), 4):
        twin = _swap_hidden(match, seat)
        if twin is None:
            continue
        answers = [search("scout", m.observation(seat), m.observation(seat)["config"], seat, iterations=400,
                          seed=11, value=net, rollout_cap=2) for m in (match, twin)]
        assert answers[0][0] == answers[1][0]
        assert answers[0][1]["children"] == answers[1][1]["children"]
        checked += 1
    assert checked >= 2
