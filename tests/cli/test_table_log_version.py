"""A table log says which wire version kept it (its store's meta ``wire``), and one kept before wire 7
at an open-hands SOLO table with a declined Protection window gets one line from ``replay`` and
``review``: those declines were played by the rules before docs/rules.md 1.8.18, and a table log has
no digests to catch the difference."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from cardtable.cli.table_logs import read_table_log, version_warning
from cardtable.engine import scout, solo
from cardtable.engine.log import BEFORE_1_8_18
from cardtable.p2p import wire
from cardtable.p2p.peer import Peer
from cardtable.p2p.simnet import SimNet
from cardtable.p2p.store import FileStore
from tests.cli.test_match_cli import run

ANNIVERSARY = solo.Config.preset("anniversary", 3)
LINE_END = ("at an open-hands SOLO table (hidden-hands tables played 1.8.18 already), written when declining "
            "a Protection window still closed the open windows; this release plays docs/rules.md 1.8.18, so "
            "a round with such a decline replays differently from there")

_played: dict[tuple[Any, str, str | None], bytes] = {}


def _acts(peer: Peer, word: str | None) -> Callable[[], bool]:
    """Whether ``peer`` has committed a ``word`` move (None: 40 moves), scanning each entry once."""
    seen = {"at": 0, "count": 0}

    def done() -> bool:
        for entry in peer.log[seen["at"]:peer.commit_index]:
            payload = entry.decoded.payload
            if payload[0] == "act" and (word is None or payload[-1] == word):
                seen["count"] += 1
        seen["at"] = max(seen["at"], peer.commit_index)
        return seen["count"] >= (1 if word else 40)
    return done


def host_log(tmp_path: Path, config: Any, deal: str = "open", until: str | None = None) -> Path:
    """The host's table log of a 3-seat table (two machines and a computer player) played until it
    committed an ``until`` move (None: 40 moves); each table is played once a run."""
    tmp_path.mkdir(parents=True, exist_ok=True)
    data = _played.get((config, deal, until))
    if data is None:
        net = SimNet(23)
        nodes = [net.node(f"p{i}", FileStore(tmp_path / f"p{i}.store", sync=False)) for i in range(2)]
        host = net.host(nodes[0], config, 1, auto="random", bots="random", deal=deal)
        assert host.table_id is not None
        net.join(nodes[1], host.table_id, nodes[0].addr, auto="random", bots="random")
        assert net.run(_acts(host, until), limit=1200)
        data = _played[(config, deal, until)] = (tmp_path / "p0.store").read_bytes()
    path = tmp_path / "table.log"
    path.write_bytes(data)
    return path


def without_wire(path: Path, value: int | None = None) -> Path:
    """The same store as a peer of wire 6 would have kept it: no ``wire`` (or ``value``), beside it."""
    stored = FileStore(path, sync=False).load()
    old = path.with_name(f"wire-{value}.log")
    store = FileStore(old, sync=False)
    store.set_term(stored.term, stored.vote)
    for name, v in stored.meta.items():
        if name != "wire":
            store.set_meta(name, v)
    if value is not None:
        store.set_meta("wire", value)
    store.append(stored.entries)
    return old


def warnings(err: str) -> list[str]:
    return [line for line in err.splitlines() if "1.8.18" in line]


def test_a_log_kept_with_this_wire_version_gets_no_line(capsys: pytest.CaptureFixture[str],
                                                        tmp_path: Path) -> None:
    path = host_log(tmp_path, ANNIVERSARY, until="decline")
    log = read_table_log(path)
    assert log.wire == wire.VERSION == 7 and not log.table.hides() and version_warning(log) is None
    code, out, err = run(capsys, "replay", str(path))
    assert code == 0 and out and warnings(err) == [], err


def test_an_open_solo_log_from_before_the_version_gets_one_line(capsys: pytest.CaptureFixture[str],
                                                                tmp_path: Path) -> None:
    old = without_wire(host_log(tmp_path, ANNIVERSARY, until="decline"))
    assert read_table_log(old).wire is None
    code, out, err = run(capsys, "replay", str(old))
    assert code == 0 and out, err
    assert warnings(err) == [f"cardtable: {old}: kept by wire 6 or older {LINE_END}"], err
    assert LINE_END.endswith(BEFORE_1_8_18.split(", ", 1)[1])  # one source for the explanation
    code, _, err = run(capsys, "review", str(old), "--round", "1", "--level", "200")
    assert len(warnings(err)) == 1, err
    six = without_wire(old, 6)
    code, _, err = run(capsys, "replay", str(six))
    assert code == 0 and warnings(err) == [f"cardtable: {six}: kept by wire 6 {LINE_END}"], err


def test_an_upgraded_peer_resuming_an_old_store_leaves_its_version(tmp_path: Path) -> None:
    path = host_log(tmp_path, ANNIVERSARY, until="decline")
    identity = SimNet(23).node("p0").identity  # the host's: SimNet derives it from the name
    for value in (None, 6):
        old = without_wire(path, value)
        back = Peer.resume(identity, FileStore(old, sync=False), now=0.0, seed=b"r" * 32)
        meta = FileStore(old, sync=False).load().meta
        assert back.commit_index > 0 and meta["incarnation"] == back.incarnation > 1
        assert meta.get("wire") == value and read_table_log(old).wire == value
        assert version_warning(read_table_log(old)) is not None


def test_logs_the_rule_did_not_touch_get_no_line(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    cases = {"SCOUT": host_log(tmp_path / "scout", scout.Config(players=3)),
             "classic SOLO, no Protection": host_log(tmp_path / "classic", solo.Config.preset("classic", 3)),
             "hidden hands": host_log(tmp_path / "hidden", ANNIVERSARY, "hidden", until="decline")}
    for what, path in cases.items():
        old = without_wire(path)
        log = read_table_log(old)
        assert log.wire is None and log.table.match is not None, what
        code, _, err = run(capsys, "replay", str(old))
        assert code == 0 and warnings(err) == [], (what, err)
