"""The game log: encoding, replay, verification, and damaged files."""

from __future__ import annotations

from pathlib import Path

import msgpack
import pytest

from cardtable.ai import make_bot, play_match
from cardtable.engine.errors import IllegalAction
from cardtable.engine.log import DIGEST_BYTES, encode_log, replay
from cardtable.engine.match import Match
from cardtable.engine.scout import Config as ScoutConfig
from cardtable.engine.solo import Config as SoloConfig

CONFIGS = [SoloConfig.preset("classic", 3), SoloConfig.preset("anniversary", 4), ScoutConfig(players=3),
           ScoutConfig(players=2, voluntary_pass=True)]


def played(config: object, seed: bytes) -> tuple[list[tuple[int, str]], str]:
    match = Match(config, seed)
    result = play_match(match, [make_bot("random", seed, s) for s in range(match.config.players)])
    return result.entries, result.digest


@pytest.mark.parametrize("config", CONFIGS, ids=lambda c: c.describe())
def test_replay_reproduces_the_match(config: object) -> None:
    entries, digest = played(config, b"log-test")
    result = replay(encode_log(config, b"log-test", entries, {"bots": "random"}))
    assert result.error is None
    assert result.match is not None and result.match.is_over()
    assert result.match.digest() == digest
    assert [(e.seat, e.action) for e in result.entries] == entries
    assert result.meta == {"bots": "random"}


def test_truncated_file_keeps_the_intact_part() -> None:
    config = CONFIGS[0]
    entries, _ = played(config, b"trunc")
    data = encode_log(config, b"trunc", entries)
    result = replay(data[:-3])
    assert result.error == f"entry {len(entries) - 1}: the file is truncated"
    assert len(result.entries) == len(entries) - 1


def test_corrupt_entry_is_named() -> None:
    config = CONFIGS[1]
    entries, _ = played(config, b"corrupt")
    good = encode_log(config, b"corrupt", entries[:10])
    bad = good + msgpack.packb([10, "seat", "R7", b"x" * DIGEST_BYTES]) + encode_log(config, b"corrupt", [])
    result = replay(bad)
    assert result.error is not None and result.error.startswith("entry 10: malformed")
    assert len(result.entries) == 10


def test_illegal_entry_is_refused_with_its_reason() -> None:
    config = CONFIGS[0]
    match = Match(config, b"illegal")
    waiting = match.to_move()
    assert waiting is not None
    other = (waiting + 1) % 3
    with pytest.raises(IllegalAction):
        encode_log(config, b"illegal", [(other, "draw")])
    header_only = encode_log(config, b"illegal", [])
    forged = header_only + msgpack.packb([0, other, "draw", b"\0" * DIGEST_BYTES])
    result = replay(forged)
    assert result.error is not None and result.error.startswith("entry 0: ") and "turn" in result.error


def test_tampered_digest_is_detected() -> None:
    config = CONFIGS[2]
    entries, _ = played(config, b"digest")
    data = bytearray(encode_log(config, b"digest", entries[:5]))
    data[-1] ^= 0x01  # last byte of the last entry's digest
    result = replay(bytes(data))
    assert result.error == "entry 4: the replayed state does not match the recorded digest"


@pytest.mark.parametrize("data, message", [
    (b"", "the file is empty"),
    (msgpack.packb({"format": "other"}), "the header: this is not a cardtable log"),
    (msgpack.packb({"format": "cardtable-log", "version": 99}),
     "the header: log version 99 is not supported"),
    (b"\xc1", "the header: not valid msgpack"),
    (msgpack.packb({"format": "cardtable-log", "version": 1, "seed": b"s", "config": {"game": "chess"}}),
     "the header: unknown game 'chess'"),
])
def test_bad_headers(data: bytes, message: str) -> None:
    result = replay(data)
    assert result.match is None
    assert result.error is not None and result.error.startswith(message)


DATA = Path(__file__).parent / "data"


def test_a_version_1_log_replays_where_rule_1_8_18_did_not_matter() -> None:
    """Written by the release before docs/rules.md 1.8.18 (a classic 3-seat match with Gifts and
    Protection, random play): every entry replays with its digest."""
    result = replay((DATA / "solo-v1-replays.ctlog").read_bytes())
    assert result.error is None and result.match is not None and result.match.is_over()
    assert len(result.entries) > 50


def test_a_version_1_log_stops_in_one_line_where_a_decline_closed_a_window() -> None:
    """The same release's log of an anniversary match: at entry 12 a decline had closed a window
    (docs/rules.md 1.8.18 says it does not); replay stops there and says why, with what came before."""
    result = replay((DATA / "solo-v1-decline.ctlog").read_bytes())
    assert result.error is not None and "\n" not in result.error
    assert result.error.startswith("entry 12: the replayed state does not match the recorded digest")
    assert "version 1 log" in result.error and "1.8.18" in result.error
    assert len(result.entries) == 12


def test_logs_are_written_as_version_2() -> None:
    entries, _ = played(SoloConfig.preset("anniversary", 3), b"v2")
    data = encode_log(SoloConfig.preset("anniversary", 3), b"v2", entries)
    unpacker = msgpack.Unpacker(raw=False)
    unpacker.feed(data)
    assert unpacker.unpack()["version"] == 2
    assert replay(data).error is None
