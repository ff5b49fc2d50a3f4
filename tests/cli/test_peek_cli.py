"""``cardtable peek``: what the machine that kept a hidden-hands table's log could open, round by round,
and ``replay`` of such a log showing every hand once audited."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from cardtable.engine import scout, solo
from cardtable.p2p.simnet import SimNet
from cardtable.p2p.store import FileStore
from tests.cli.test_match_cli import run
from tests.p2p import all_over

_played: dict[tuple[str, Any], dict[str, bytes]] = {}
"""The files of each table hidden_logs played (by deal and config): it plays each once a run."""


def hidden_logs(tmp_path: Path, deal: str = "hidden", config: Any = None) -> list[Path]:
    """A finished 3-seat table (two machines and a computer player; SCOUT unless ``config``), each
    machine's log on disk (in ``tmp_path``: the table is played once, its files copied after)."""
    paths = [tmp_path / f"p{i}.log" for i in range(2)]
    config = config or scout.Config(players=3)
    files = _played.get((deal, config))
    if files is None:
        before = set(tmp_path.iterdir())
        net = SimNet(21)
        nodes = [net.node(f"p{i}", FileStore(p, sync=False)) for i, p in enumerate(paths)]
        host = net.host(nodes[0], config, 1, auto="random", bots="random", deal=deal)
        assert host.table_id is not None
        net.join(nodes[1], host.table_id, nodes[0].addr, auto="random", bots="random")
        assert net.run(lambda: all_over(net), limit=600)
        files = _played[(deal, config)] = {f.name: f.read_bytes() for f in set(tmp_path.iterdir()) - before}
    else:
        for name, data in files.items():
            (tmp_path / name).write_bytes(data)
    return paths


def test_peek_shows_each_machine_its_own_seats_cards_and_the_shown_ones(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    host_log, joiner_log = hidden_logs(tmp_path)
    code, out, err = run(capsys, "peek", str(joiner_log))
    assert code == 0 and err == "", err
    assert out.startswith("table 'p0' · SCOUT, 3 players · hidden hands")
    rounds = out.split("\nround ")[1:]
    assert len(rounds) == 3 and all("audited" in r for r in rounds)
    for r in rounds:  # the joiner holds its own 12 cards, nobody else's
        assert "could open 12 cards" in r and re.search(r"p1's hand as dealt: (\d+/\d+ ){11}\d+/\d+", r)
        assert "p0's hand" not in r and "cpu 2's hand" not in r
    assert out.count("the computer players' cards were seen by p0's machine") == 3  # every round: whose
    code, out, _ = run(capsys, "peek", str(host_log))
    assert code == 0 and out.count("could open 24 cards") == 3  # its own and the computer player's
    assert out.count("cpu 2's hand as dealt") == 3


def test_replay_of_a_hidden_table_shows_every_hand_once_audited(capsys: pytest.CaptureFixture[str],
                                                                 tmp_path: Path) -> None:
    _, joiner_log = hidden_logs(tmp_path)
    code, out, _ = run(capsys, "replay", str(joiner_log))
    assert code == 0
    dealt = [line for line in out.splitlines() if "as dealt (opened at the audit)" in line]
    assert len(dealt) == 3 and all(re.search(r"cpu 2 (\d+/\d+ ){11}\d+/\d+$", line) for line in dealt)


def test_a_solo_table_peeks_and_replays_like_a_scout_one(capsys: pytest.CaptureFixture[str],
                                                         tmp_path: Path) -> None:
    """SOLO (one round): the joiner's machine could open its own hand as dealt (7 cards), and what it
    held later (draws; Pass hands hands it the others' cards, as at a real table: the view check of
    tests/p2p/test_hidden_solo_table.py holds that to what it held); replay shows every hand."""
    _, joiner_log = hidden_logs(tmp_path, config=solo.Config(players=3, rounds=1, hand_size=7))
    code, out, err = run(capsys, "peek", str(joiner_log))
    assert code == 0 and err == "", err
    assert "SOLO classic, 3 players" in out and "round 1 (audited" in out
    assert re.search(r"p1's hand as dealt: (\S+ ){6}\S+$", out, re.M), out
    code, out, _ = run(capsys, "replay", str(joiner_log))
    dealt = [line for line in out.splitlines() if "as dealt (opened at the audit)" in line]
    assert code == 0 and len(dealt) == 1 and re.search(r"cpu 2 (\S+ ){6}\S+$", dealt[0]), dealt


def test_peek_refuses_an_open_table_and_other_files_in_one_line(capsys: pytest.CaptureFixture[str],
                                                                 tmp_path: Path) -> None:
    open_log, _ = hidden_logs(tmp_path, deal="open")
    code, out, err = run(capsys, "peek", str(open_log))
    assert code == 1 and "deals open: every machine could read every hand" in err
    assert len(err.splitlines()) == 1
    other = tmp_path / "notes.txt"
    other.write_text("{hello}")
    code, _, err = run(capsys, "peek", str(other))
    assert code == 1 and "not a table log" in err and len(err.splitlines()) == 1


def test_replay_view_of_a_finished_hidden_table_shows_every_hand(tmp_path: Path) -> None:
    """Every round was audited: the view replays each with every card the audit opened
    (tests/cli/test_hidden_review.py: the view, watch and review of such logs)."""
    from cardtable.cli.replay_view import load_frames

    _, joiner_log = hidden_logs(tmp_path)
    frames = load_frames(joiner_log, joiner_log.read_bytes())
    assert [d.known for d in frames.dealt] == ["every"] * 3 and len(frames.round_starts()) == 3
    assert all(frames.shows(k, frames.at(k), seat) for k in frames.round_starts() for seat in range(3))
