"""The game log: a match as its config, its seed and its ordered (seat, action) entries.

File format, version 2 (docs/log-format.md): a msgpack stream of one header map
``{"format": "cardtable-log", "version": 2, "config": {...}, "seed": <bytes>, "meta": {...}}``
followed by one array per entry ``[index, seat, action_text, digest8]``, where ``digest8``
is the first 8 bytes of ``Match.digest()`` after the entry was applied. Replaying the
entries reproduces every state; the digests prove it. Encoding and decoding are pure
(bytes in, bytes out); reading files is the caller's business.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import msgpack

from cardtable.engine.errors import IllegalAction, ParseError
from cardtable.engine.game import Event
from cardtable.engine.games import config_from_dict
from cardtable.engine.match import Match

FORMAT = "cardtable-log"
VERSION = 2
READS = (1, 2)
"""Version 2 plays SOLO with docs/rules.md 1.8.18 (a declined Protection window closes no window);
version 1 logs are read too, and replay as far as that rule did not matter."""
RULE_1_8_18_CHANGED = ("written when declining a Protection window still closed the open windows; "
                       "this release plays docs/rules.md 1.8.18, so a round with such a decline "
                       "replays differently from there")
"""Why a log kept before docs/rules.md 1.8.18 may not replay to its end (game and table logs)."""
BEFORE_1_8_18 = f"a version 1 log, {RULE_1_8_18_CHANGED}"
DIGEST_BYTES = 8


class LogError(ValueError):
    """A log that cannot be read or replayed any further; the message names where."""


@dataclass
class Entry:
    """One applied action: its place in the log, its author seat, its text, its digest."""

    index: int
    seat: int
    action: str
    digest: bytes


@dataclass
class Replay:
    """What replaying a log gave: the match as far as it got, and the first problem."""

    match: Match | None
    meta: dict[str, Any]
    entries: list[Entry] = field(default_factory=list)
    events: list[list[Event]] = field(default_factory=list)
    error: str | None = None


def encode_header(match: Match, meta: dict[str, Any] | None = None) -> bytes:
    """The header of the log of a match that has not started yet."""
    header = {"format": FORMAT, "version": VERSION, "config": match.config.to_dict(),
              "seed": match.seed, "meta": meta or {}}
    return bytes(msgpack.packb(header, use_bin_type=True))


def encode_entry(index: int, seat: int, action: str, digest_hex: str) -> bytes:
    """One entry, written right after it was applied to the match."""
    entry = [index, seat, action, bytes.fromhex(digest_hex)[:DIGEST_BYTES]]
    return bytes(msgpack.packb(entry, use_bin_type=True))


def encode_log(config: Any, seed: bytes, actions: Iterable[tuple[int, str]],
               meta: dict[str, Any] | None = None) -> bytes:
    """A whole log, by replaying ``actions`` on a fresh match (raises IllegalAction)."""
    match = Match(config, seed)
    parts = [encode_header(match, meta)]
    for index, (seat, action) in enumerate(actions):
        match.apply(seat, action)
        parts.append(encode_entry(index, seat, action, match.digest()))
    return b"".join(parts)


def replay(data: bytes) -> Replay:
    """Replay a log, checking every entry; stops at the first bad one and says why."""
    unpacker = msgpack.Unpacker(raw=False, strict_map_key=False, max_buffer_size=len(data) + 1)
    unpacker.feed(data)
    try:
        header = _unpack(unpacker, len(data), "the header")
        match = _match_from_header(header)
    except LogError as err:
        return Replay(None, {}, error=str(err))
    result = Replay(match, header.get("meta") or {})
    index = 0
    while True:
        where = f"entry {index}"
        try:
            raw = _unpack(unpacker, len(data), where)
            if raw is None:
                break
            entry = _entry(raw, index)
            events = match.apply(entry.seat, entry.action)
        except (LogError, ParseError, IllegalAction) as err:
            result.error = str(err) if isinstance(err, LogError) else f"{where}: {err}"
            return result
        if match.digest()[: 2 * DIGEST_BYTES] != entry.digest.hex():
            result.error = f"{where}: the replayed state does not match the recorded digest"
            if header.get("version") == 1 and match.config.game == "solo":
                result.error += f" ({BEFORE_1_8_18})"
            return result
        result.entries.append(entry)
        result.events.append(events)
        index += 1
    return result


def _unpack(unpacker: msgpack.Unpacker, total: int, where: str) -> Any:
    """The next object, or None at a clean end of the data."""
    try:
        return unpacker.unpack()
    except msgpack.OutOfData:
        if unpacker.tell() < total:
            raise LogError(f"{where}: the file is truncated") from None
        if where == "the header":
            raise LogError("the file is empty") from None
        return None
    except (ValueError, msgpack.UnpackException) as err:
        raise LogError(f"{where}: not valid msgpack ({type(err).__name__})") from None


def _match_from_header(header: Any) -> Match:
    if not isinstance(header, dict) or header.get("format") != FORMAT:
        raise LogError("the header: this is not a cardtable log")
    if header.get("version") not in READS:
        raise LogError(f"the header: log version {header.get('version')!r} is not supported "
                       f"(this release reads {' and '.join(map(str, READS))})")
    seed = header.get("seed")
    if not isinstance(seed, bytes):
        raise LogError("the header: the seed is missing")
    try:
        return Match(config_from_dict(header.get("config") or {}), seed)
    except ParseError as err:
        raise LogError(f"the header: {err}") from None


def _entry(raw: Any, index: int) -> Entry:
    ok = (isinstance(raw, list) and len(raw) == 4 and raw[0] == index and isinstance(raw[1], int)
          and isinstance(raw[2], str) and isinstance(raw[3], bytes) and len(raw[3]) == DIGEST_BYTES)
    if not ok:
        raise LogError(f"entry {index}: malformed (want [index, seat, action, digest])")
    return Entry(raw[0], raw[1], raw[2], raw[3])
