"""The logs tables keep in the config dir: reading one (read-only), and listing the kept games.

A table log is the peer's store (``p2p.store.FileStore``): the signed entries of the table, of
which the first ``commit`` are committed. ``host``/``join`` keep theirs in ``<home>/table.log``,
``play`` in ``<home>/play/table.log``; a finished or abandoned log moves to ``tables/`` beside it.
Its meta ``wire`` is the wire version of the peer that started it (none before wire 7).
"""

from __future__ import annotations

import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cardtable.cli.words import plural

PLAY_DIR = "play"
"""Where ``cardtable play`` keeps its table (a config dir of its own inside the main one)."""

OPEN_SOLO_1_8_18 = 7
"""The first wire version whose peers play docs/rules.md 1.8.18 at open SOLO tables (a declined
Protection window closes no window); hidden-hands tables played it before."""


@dataclass
class TableLog:
    """A table log replayed: the table as far as its committed entries go."""

    path: Path
    table: Any  # p2p.table.TableState
    applied: list[Any] = field(default_factory=list)  # p2p.table.Applied, one per committed entry
    entries: int = 0
    error: str | None = None
    torn: int = 0  # bytes of a torn tail (a write cut short) left out
    wire: int | None = None  # the wire version of the peer that kept it (None: wire 6 or older)
    names: list[str] = field(default_factory=list)  # the seats' names when the match started
    match_of: list[int] = field(default_factory=list)  # per applied entry: the table's match (0, 1, ...)
    rounds: list[tuple[int, Any]] = field(default_factory=list)  # (match, p2p.hidden.round.HiddenRound)
    """Every round the table dealt with hidden hands, in order (void ones, and deals begun again
    before their cards were dealt, too)."""

    @property
    def matches(self) -> list[Any]:
        """Every match played at the table, in order (a rematch plays another on the same log)."""
        table = self.table
        return [*table.past, *([table.match] if table.match is not None else [])]


def read_log_file(file: Path) -> bytes:
    """A log file's bytes, or a one-line error (a directory, an unreadable file)."""
    import click

    if file.is_dir():
        raise click.ClickException(f"{file} is a directory: give one log file ('cardtable games' lists them)")
    try:
        return file.read_bytes()
    except OSError as err:
        raise click.ClickException(f"cannot read {file}: {err.strerror}") from None


def is_table_log(data: bytes) -> bool:
    """Whether ``data`` starts like a peer's store (a msgpack array whose first item is a record
    kind), not like a match log (a header map)."""
    return bool(data) and (0x90 <= data[0] <= 0x9F or data[0] in (0xDC, 0xDD))


def read_table_log(path: Path) -> TableLog:
    """Replay the committed entries of the table log at ``path`` (the file is never changed);
    every entry's signatures are checked, and the first bad one stops the replay."""
    from cardtable.p2p import wire
    from cardtable.p2p.store import FileStore
    from cardtable.p2p.table import TableState

    with tempfile.TemporaryDirectory() as tmp:  # FileStore.load mends a torn tail: on a copy
        copy = Path(tmp) / "table.log"
        shutil.copyfile(path, copy)
        store = FileStore(copy, sync=False)
        stored = store.load()
    kept_by = stored.meta.get("wire")
    out = TableLog(path, TableState(), entries=len(stored.entries), torn=store.cut,
                   wire=kept_by if type(kept_by) is int else None)
    committed = min(int(stored.meta.get("commit", 0) or 0), len(stored.entries))
    prev = wire.GENESIS
    for n, raw in enumerate(stored.entries[:committed]):
        try:
            entry = wire.decode_entry(raw)
        except (ValueError, TypeError) as err:
            out.error = f"entry {n}: unreadable ({err})"
            return out
        table_id = out.table.table_id or entry.decoded.table_id
        if not entry.authentic(table_id, prev):  # the sequencer's signature covers the chain before it
            out.error = f"entry {n}: a signature does not verify"
            return out
        prev = entry.chain(table_id, prev)
        out.applied.append(out.table.apply(entry))
        out.match_of.append(out.table.match_no)
        hidden = out.table.hidden
        if hidden is not None and (not out.rounds or out.rounds[-1][1] is not hidden):
            out.rounds.append((out.table.match_no, hidden))
        if not out.names and out.table.match is not None:
            out.names = [seat.name or f"seat {s}" for s, seat in enumerate(out.table.seats)]
    return out


def torn_warning(log: TableLog) -> str | None:
    """The one line that says a table log's tail was torn (None: it was not)."""
    if not log.torn:
        return None
    return (f"cardtable: {log.path}: its last {log.torn} bytes are torn (a write cut short, say by a "
            f"crash): read up to there")


def version_warning(log: TableLog) -> str | None:
    """The one line that says a table log was kept by a wire version before docs/rules.md 1.8.18
    came to open SOLO tables, and a decline there may replay differently (None: it cannot). The
    entries carry no digests, so nothing else would say it."""
    from cardtable.engine.log import RULE_1_8_18_CHANGED

    if log.wire is not None and log.wire >= OPEN_SOLO_1_8_18:
        return None
    table = log.table
    if table.config is None or table.config.game != "solo" or table.hides():
        return None
    if not any(e.kind == "decline" for a in log.applied for e in a.events):
        return None  # no Protection window declined: the rule changed nothing
    kept = "6 or older" if log.wire is None else str(log.wire)
    return (f"cardtable: {log.path}: kept by wire {kept} at an open-hands SOLO table (hidden-hands tables "
            f"played 1.8.18 already), {RULE_1_8_18_CHANGED}")


def log_warnings(log: TableLog) -> list[str]:
    """The lines a command that reads ``log`` says on stderr before it goes on."""
    return [w for w in (torn_warning(log), version_warning(log)) if w]


@dataclass(frozen=True)
class KeptGame:
    """One game kept in the config dir."""

    path: Path
    mtime: float
    kind: str  # "play" or "table"
    current: bool  # the table a plain ``play --resume`` / ``host``/``join`` would resume
    log: TableLog


def kept_games(home: Path) -> list[KeptGame]:
    """Every table log kept under ``home``, newest first (unreadable files are left out)."""
    found = []
    for kind, base in (("table", home), ("play", home / PLAY_DIR)):
        paths = [base / "table.log", *sorted((base / "tables").glob("*.log"))]
        for path in paths:
            if not path.is_file():
                continue
            try:
                log = read_table_log(path)
            except (OSError, ValueError):
                continue
            if log.table.config is None:
                continue
            found.append(KeptGame(path, path.stat().st_mtime, kind, path.name == "table.log", log))
    return sorted(found, key=lambda g: g.mtime, reverse=True)


def describe(game: KeptGame, home: Path | None = None) -> str:
    """``describe_matches``, a line a match."""
    return "\n".join(describe_matches(game, home))


def describe_matches(game: KeptGame, home: Path | None = None) -> list[str]:
    """One line a match at the table (a rematch plays another on the same log): when, what, how
    far, and what to do with it (``home``: the --home given, which the command that resumes it
    needs too)."""
    import time

    table = game.log.table
    when = time.strftime("%Y-%m-%d %H:%M", time.localtime(game.mtime))
    what = table.config.describe()
    name = "play" if game.kind == "play" else repr(table.name)
    matches = game.log.matches
    count = len(table.past) + 1  # the match being played, or the next one not started yet
    lines = []
    for k in range(count):
        match = matches[k] if k < len(matches) else None
        if match is None:
            state = f"{table.phase}, not started"
        else:
            rounds = len(match.round_scores)
            state = ("over" if match.is_over() else "unfinished") + f", {plural(rounds, 'round')} played"
            state += f", totals {' '.join(str(t) for t in match.scores())}"
        which = f", match {k + 1} of {count}" if count > 1 else ""
        how = ""
        if k == count - 1 and game.current and resumable(table):
            from cardtable.cli.options import again

            command = "cardtable play --resume" if game.kind == "play" else "cardtable host/join"
            how = f"  (resume: {again(command, home)})"
        lines.append(f"{when}  {what} at {name}{which}: {state}  {game.path}{how}")
    return lines


def resumable(table: Any) -> bool:
    """Whether a kept table is unfinished and a person still holds a seat at it."""
    if table.match is not None and table.match.is_over():
        return False
    return any(seat.owner is not None and seat.controller != "cpu" for seat in table.seats)


def read_meta(path: Path) -> dict[str, Any]:
    """The store's meta records (this machine's own: its seeds and the keys it received)."""
    from cardtable.p2p.store import FileStore

    with tempfile.TemporaryDirectory() as tmp:
        copy = Path(tmp) / "table.log"
        shutil.copyfile(path, copy)
        return dict(FileStore(copy, sync=False).load().meta)
