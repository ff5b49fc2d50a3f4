"""The durable part of a peer: its term and vote, its log, and a few named values.

``MemoryStore`` keeps them in memory (the simulated network); ``FileStore`` appends each
change as one msgpack record to a file, and on load replays the records and cuts a torn
or garbled tail. Records: ``["T", term, vote]``, ``["E", entry]``, ``["X", length]`` (keep
the first ``length`` entries), ``["M", name, value]``. Entries are the packed log entries.

Durability (``FileStore(sync=True)``): every write is handed to the OS before the call
returns, and every record but the ``LAZY`` values is on disk (fsync) before it returns too:
the term and vote, the entries and truncations (Raft answers only after they are stable),
the incarnation, the seed nonce. The commit index and the address list are not fsynced on
their own: the next fsynced record carries them to disk, and after a power cut they may be
older than they were, which Raft allows (a restarted peer learns the commit index again).
Records reach the file in order, so a lost lazy record is a torn or missing tail.
"""

from __future__ import annotations

import copy
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

import msgpack

LAZY = frozenset({"commit", "addrs", "stamp", "seen"})
"""Named values that are written but not fsynced on their own (see the module docstring)."""


@dataclass
class Stored:
    """What a store holds."""

    term: int = 0
    vote: bytes | None = None
    entries: list[bytes] = field(default_factory=list)
    meta: dict[str, Any] = field(default_factory=dict)

    def empty(self) -> bool:
        return not self.entries


class Store(Protocol):
    def load(self) -> Stored: ...

    def set_term(self, term: int, vote: bytes | None) -> None: ...

    def append(self, entries: Sequence[bytes]) -> None: ...

    def truncate(self, length: int) -> None: ...

    def set_meta(self, name: str, value: Any) -> None: ...


class MemoryStore:
    """A store in memory; survives the ``Peer`` that used it (a crash in the simulation)."""

    def __init__(self) -> None:
        self.state = Stored()

    def load(self) -> Stored:
        return copy.deepcopy(self.state)

    def set_term(self, term: int, vote: bytes | None) -> None:
        self.state.term, self.state.vote = term, vote

    def append(self, entries: Sequence[bytes]) -> None:
        self.state.entries.extend(entries)

    def truncate(self, length: int) -> None:
        del self.state.entries[length:]

    def set_meta(self, name: str, value: Any) -> None:
        self.state.meta[name] = value


class FileStore:
    """A store in one append-only file; ``sync`` makes the writes durable (fsync), all but the
    ``LAZY`` values, which ride to disk with the next durable one."""

    def __init__(self, path: Path | str, sync: bool = True) -> None:
        self.path = Path(path)
        self.sync = sync
        self.cut = 0  # bytes cut from a torn tail by the last load
        self._records = 0

    def load(self) -> Stored:
        state = Stored()
        if not self.path.exists():
            return state
        data = self.path.read_bytes()
        good = _replay(data, state, self)
        self.cut = len(data) - good
        if self.cut:
            with open(self.path, "r+b") as f:
                f.truncate(good)
        if self._records > 2 * (len(state.entries) + len(state.meta)) + 64:
            self._rewrite(state)
        return state

    def set_term(self, term: int, vote: bytes | None) -> None:
        self._write([["T", term, vote]])

    def append(self, entries: Sequence[bytes]) -> None:
        self._write([["E", e] for e in entries])

    def truncate(self, length: int) -> None:
        self._write([["X", length]])

    def set_meta(self, name: str, value: Any) -> None:
        self._write([["M", name, value]], durable=name not in LAZY)

    def _write(self, records: list[list[Any]], durable: bool = True) -> None:
        data = b"".join(msgpack.packb(r, use_bin_type=True) for r in records)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with open(self.path, "ab") as f:
            f.write(data)
            f.flush()
            if self.sync and durable:
                os.fsync(f.fileno())
        self._records += len(records)

    def _rewrite(self, state: Stored) -> None:
        """Compact the file to one record per entry and value (atomically, by rename)."""
        records: list[list[Any]] = [["T", state.term, state.vote]]
        records += [["M", k, v] for k, v in state.meta.items()]
        records += [["E", e] for e in state.entries]
        tmp = self.path.with_suffix(self.path.suffix + ".tmp")
        with open(tmp, "wb") as f:
            f.write(b"".join(msgpack.packb(r, use_bin_type=True) for r in records))
            f.flush()
            if self.sync:
                os.fsync(f.fileno())
        os.replace(tmp, self.path)
        self._records = len(records)


def _replay(data: bytes, state: Stored, store: FileStore) -> int:
    """Apply the records in ``data`` to ``state``; the length of the good prefix."""
    unpacker = msgpack.Unpacker(raw=False, strict_map_key=False, max_buffer_size=max(len(data), 1))
    unpacker.feed(data)
    good = 0
    store._records = 0
    while good < len(data):
        try:
            record = unpacker.unpack()
        except Exception:  # noqa: BLE001 - torn or garbled: cut here
            break
        if not _apply(record, state):
            break
        good = unpacker.tell()
        store._records += 1
    return good


def _apply(record: Any, state: Stored) -> bool:
    if not isinstance(record, list) or not record:
        return False
    kind = record[0]
    if kind == "T" and len(record) == 3 and type(record[1]) is int:
        vote = record[2]
        if vote is not None and not isinstance(vote, bytes):
            return False
        state.term, state.vote = record[1], vote
    elif kind == "E" and len(record) == 2 and isinstance(record[1], bytes):
        state.entries.append(record[1])
    elif kind == "X" and len(record) == 2 and type(record[1]) is int and record[1] >= 0:
        del state.entries[record[1]:]
    elif kind == "M" and len(record) == 3 and isinstance(record[1], str):
        state.meta[record[1]] = record[2]
    else:
        return False
    return True
