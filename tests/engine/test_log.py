"""The game log: encoding, replay, verification, and damaged files."""

from __future__ import annotations

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
