"""The moves of a log, either kind (a match log or a table log), replayable move by move.

``load_frames`` reads either kind (``cli/replay_cmd.py`` tells them apart) into the moves played,
in order, with their words; ``Frames.at(k)`` is the match after ``k`` moves (from a snapshot taken
every ``CHECKPOINT`` moves). ``replay --view`` shows them (``cli/replay_view.py``); ``review``
searches them (``cli/review_cmd.py``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import click

from cardtable.cli.controller import Note, words
from cardtable.engine.match import Match

CHECKPOINT = 64
"""Moves between two snapshots: stepping back replays at most this many moves."""


@dataclass
class Frames:
    """A log's match, move by move: ``moves[k]`` is ``(seat, action)``; ``told[k]`` its words;
    ``rounds[k]`` the round (from 0) after ``k`` moves (``rounds[0]``: the deal)."""

    title: str
    config: Any
    seed: bytes
    names: list[str]
    full_knowledge: bool
    moves: list[tuple[int, str]] = field(default_factory=list)
    told: list[list[str]] = field(default_factory=list)
    rounds: list[int] = field(default_factory=list)
    _snapshots: list[dict[str, Any]] = field(default_factory=list)

    def __post_init__(self) -> None:
        match = Match(self.config, self.seed)
        self.rounds = [match.round_no]
        self._snapshots = [match.snapshot()]
        told = []
        for k, (seat, action) in enumerate(self.moves, start=1):
            events = match.apply(seat, action)
            told.append([words(Note.of(e), None, self.names) for e in events])
            self.rounds.append(match.round_no)
            if k % CHECKPOINT == 0:
                self._snapshots.append(match.snapshot())
        self.told = told

    def __len__(self) -> int:
        return len(self.moves)

    def at(self, k: int) -> Match:
        """The match after the first ``k`` moves."""
        k = max(0, min(k, len(self.moves)))
        match = Match.from_snapshot(self._snapshots[k // CHECKPOINT])
        for seat, action in self.moves[(k // CHECKPOINT) * CHECKPOINT:k]:
            match.apply(seat, action)
        return match

    def label(self, k: int) -> str:
        """Move ``k`` (from 1) in a few words; 0: the deal."""
        if k == 0:
            return "the deal"
        seat, action = self.moves[k - 1]
        return f"{k:>4}. {self.names[seat]} (seat {seat}): {action}"

    def round_starts(self) -> list[int]:
        """The steps at which a round starts (the deal, and the first step of every later round)."""
        return [k for k in range(len(self.rounds)) if k == 0 or self.rounds[k] != self.rounds[k - 1]]


def load_frames(path: Path, data: bytes) -> Frames:
    """The frames of a match log or a table log, or a one-line click error."""
    from cardtable.cli.table_logs import is_table_log

    if is_table_log(data):
        return _table_frames(path)
    from cardtable.engine.log import replay as replay_log

    result = replay_log(data)
    if result.match is None:
        raise click.ClickException(f"{path}: {result.error}")
    match = result.match
    bots = result.meta.get("bots") if isinstance(result.meta, dict) else None
    n = match.config.players
    names = [str(b) for b in bots] if isinstance(bots, list) and len(bots) == n else []
    names = names or [f"seat {s}" for s in range(n)]
    moves = [(e.seat, str(e.action)) for e in result.entries]
    if result.error:
        click.echo(f"cardtable: {path}: {result.error}: using the {len(moves)} moves before it", err=True)
    return Frames(path.name, match.config, bytes(match.seed), _unique(names), True, moves)


def _table_frames(path: Path) -> Frames:
    from cardtable.cli.table_logs import read_table_log

    try:
        log = read_table_log(path)
    except (OSError, ValueError) as err:
        raise click.ClickException(f"cannot read the table log {path}: {err}") from None
    match = log.table.match
    if match is None:
        raise click.ClickException(f"{path}: the match at this table never started: nothing to show")
    if log.table.hides():
        raise click.ClickException(f"{path}: a hidden-hands table: its seed deals no card, so its moves "
                                   "cannot be replayed; 'cardtable replay LOG' tells it with every hand once "
                                   "audited")
    moves = table_moves(log.applied)
    if log.error:
        click.echo(f"cardtable: {path}: {log.error}: using the {len(moves)} moves before it", err=True)
    names = log.names or [f"seat {s}" for s in range(match.config.players)]
    frames = Frames(f"{log.table.name or 'play'} ({path.name})", match.config, bytes(match.seed),
                    _unique(names), True, moves)
    if frames.at(len(frames)).digest() != match.digest():
        raise click.ClickException(f"{path}: its moves do not replay to its match (a damaged log?)")
    return frames


def table_moves(applied: Sequence[Any]) -> list[tuple[int, str]]:
    """The moves of a table's committed entries (``p2p.table.Applied``), in order: (seat, action)."""
    moves = []
    for entry in applied:
        if entry.kind == "act" and entry.ok:
            _, seat, action = entry.summary.split(" ", 2)
            moves.append((int(seat), action))
    return moves


def _unique(names: list[str]) -> list[str]:
    """Seat names, one per seat, told apart by the seat number where two are the same."""
    return [f"{n} {s}" if names.count(n) > 1 else n for s, n in enumerate(names)]
