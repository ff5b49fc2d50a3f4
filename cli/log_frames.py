"""The moves of a log, either kind (a match log or a table log), replayable move by move.

``load_frames`` reads either kind (``cli/replay_cmd.py`` tells them apart) into the moves played,
in order, with their words; ``Frames.at(k)`` is the match after ``k`` moves (from a snapshot taken
every ``CHECKPOINT`` moves). ``replay --view`` shows them (``cli/replay_view.py``); ``review``
searches them (``cli/review_cmd.py``).

A match log, and a table that deals from its seed, hold every card. A hidden-hands table's log
does not: its rounds are rebuilt from what the machine that kept it knows (``cli/hidden_rounds.py``:
every card of an audited round, its own cards of the round in play), and ``Frames.dealt`` holds
them; the frames then show a hand only where that machine knew it. A table that played a rematch
holds more than one match: the frames are its last one.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import click

from cardtable.cli.hidden_rounds import EVERY, Dealt
from cardtable.cli.player_words import Note, words
from cardtable.engine.game import Event
from cardtable.engine.match import Match

CHECKPOINT = 64
"""Moves between two snapshots: stepping back replays at most this many moves."""


@dataclass
class Frames:
    """A log's match, move by move: ``moves[k]`` is ``(seat, action)``; ``told[k]`` its words;
    ``rounds[k]`` the round (from 0) after ``k`` moves (``rounds[0]``: the deal). ``dealt``: the
    rounds a hidden-hands table dealt, as rebuilt (empty: the seed deals every round)."""

    title: str
    config: Any
    seed: bytes
    names: list[str]
    full_knowledge: bool
    moves: list[tuple[int, str]] = field(default_factory=list)
    told: list[list[str]] = field(default_factory=list)
    rounds: list[int] = field(default_factory=list)
    dealt: list[Dealt] = field(default_factory=list)
    deal_at: list[int] = field(default_factory=list)  # per step: the index in ``dealt`` of its round
    _snapshots: list[Any] = field(default_factory=list)
    _actions: list[Any] = field(default_factory=list)
    _closing: dict[int, list[int]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.dealt:
            self._plan()
        match = self._start()
        self.rounds = [match.round_no]
        self.deal_at = [self._opened(0)]
        self._snapshots = [self._save(match)]
        told = []
        for k in range(1, len(self.moves) + 1):
            events = self._step(match, k)
            told.append([words(Note.of(e), None, self.names) for e in events])
            self.rounds.append(match.round_no)
            self.deal_at.append(self.deal_at[-1] + self._opened(k))
            if k % CHECKPOINT == 0:
                self._snapshots.append(self._save(match))
        self.told = told

    def _plan(self) -> None:
        """The moves of every dealt round in order, and after which step each round closes."""
        self.moves, self._actions, self._closing = [], [], {}
        for i, d in enumerate(self.dealt):
            self.moves += [(seat, d.label(j)) for j, (seat, _) in enumerate(d.moves)]
            self._actions += d.actions
            if d.closed:
                self._closing.setdefault(len(self.moves), []).append(i)

    def _opened(self, k: int) -> int:
        """How many rounds are dealt after the ``k``-th move (hidden hands)."""
        return sum(1 for i in self._closing.get(k, []) if i + 1 < len(self.dealt))

    def _start(self) -> Match:
        if not self.dealt:
            return Match(self.config, self.seed)
        match = Match(self.config, self.seed, self.dealt[0].first())
        for i in self._closing.get(0, []):
            self._close(match, i)
        return match

    def _step(self, match: Match, k: int) -> list[Event]:
        """Apply move ``k`` (from 1), and close the round it ends (hidden hands)."""
        seat, action = self.moves[k - 1]
        if not self.dealt:
            return match.apply(seat, action)
        events = match.apply(seat, self._actions[k - 1])
        for i in self._closing.get(k, []):
            events += self._close(match, i)
        return events

    def _close(self, match: Match, i: int) -> list[Event]:
        """The table scored round ``i`` (or made it void) and dealt the next one."""
        d = self.dealt[i]
        events = match.finish_round(d.scores, d.why)
        if i + 1 < len(self.dealt) and not match.is_over():
            match.next_round(self.dealt[i + 1].first())
            events.append(Event("round_start", None, f"round {match.round_no + 1} dealt",
                                round=match.round_no + 1))
        return events

    def _save(self, match: Match) -> Any:
        return copy.deepcopy(match) if self.dealt else match.snapshot()  # a round on slots has no snapshot

    def _load(self, saved: Any) -> Match:
        return copy.deepcopy(saved) if self.dealt else Match.from_snapshot(saved)

    def __len__(self) -> int:
        return len(self.moves)

    def at(self, k: int) -> Match:
        """The match after the first ``k`` moves."""
        k = max(0, min(k, len(self.moves)))
        match = self._load(self._snapshots[k // CHECKPOINT])
        for j in range((k // CHECKPOINT) * CHECKPOINT + 1, k + 1):
            self._step(match, j)
        return match

    def shows(self, k: int, match: Match, seat: int) -> bool:
        """Whether the frames know ``seat``'s hand after ``k`` moves (``match``: ``at(k)``)."""
        if not self.dealt:
            return self.full_knowledge
        if self.dealt[self.deal_at[k]].known == EVERY:
            return True
        state: Any = match.state
        knows = getattr(state, "knows_hand", None)  # SOLO's round on slots
        if knows is not None:
            return bool(knows(seat))
        return all(str(c) != "?" for c in state.hands[seat])  # SCOUT: an unknown card is written ?

    def every_card(self, k: int) -> bool:
        """Whether every hand is known after ``k`` moves."""
        return self.full_knowledge if not self.dealt else self.dealt[self.deal_at[k]].known == EVERY

    def label(self, k: int) -> str:
        """Move ``k`` (from 1) in a few words; 0: the deal."""
        if k == 0:
            return "the deal"
        seat, action = self.moves[k - 1]
        return f"{k:>4}. {self.names[seat]} (seat {seat}): {action}"

    def round_starts(self) -> list[int]:
        """The steps at which a round starts (the deal, and the first step of every later round)."""
        return [k for k in range(len(self.rounds))
                if k == 0 or self.rounds[k] != self.rounds[k - 1] or self.deal_at[k] != self.deal_at[k - 1]]


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
    from cardtable.cli.hidden_rounds import dealt_rounds
    from cardtable.cli.table_logs import log_warnings, read_meta, read_table_log

    try:
        log = read_table_log(path)
        meta = read_meta(path) if log.table.hides() else {}
    except (OSError, ValueError) as err:
        raise click.ClickException(f"cannot read the table log {path}: {err}") from None
    table, matches = log.table, log.matches
    if not matches:
        raise click.ClickException(f"{path}: the match at this table never started: nothing to show")
    last = len(matches) - 1
    match = matches[last]
    if last:
        click.echo(f"cardtable: {path}: the table played {len(matches)} matches (a rematch): this is "
                   f"match {last + 1}", err=True)
    names = _unique(log.names or [f"seat {s}" for s in range(match.config.players)])
    title = f"{table.name or 'play'} ({path.name})"
    if match.dealt_by_table:  # hidden hands: the rounds as this machine can rebuild them
        current = table.hidden if table.match is match else None
        dealt = dealt_rounds([h for m, h in log.rounds if m == last], current, meta)
        if not dealt:
            raise click.ClickException(f"{path}: no round's cards were dealt at this table: nothing to show")
        frames = Frames(title, match.config, bytes(match.seed), names, False, dealt=dealt)
        end = frames.at(len(frames))
        same = (end.round_no, end.round_scores) == (match.round_no, match.round_scores)
    else:
        moves = table_moves([a for a, m in zip(log.applied, log.match_of, strict=True) if m == last])
        frames = Frames(title, match.config, bytes(match.seed), names, True, moves)
        same = frames.at(len(frames)).digest() == match.digest()
    if log.error:
        click.echo(f"cardtable: {path}: {log.error}: using the {len(frames)} moves before it", err=True)
    for warning in log_warnings(log):
        click.echo(warning, err=True)
    if not same:
        raise click.ClickException(f"{path}: its moves do not replay to its match (a damaged log?)")
    return frames


def match_moves(entries: Sequence[Any]) -> list[tuple[int, str]]:
    """The moves of the match being played at a table whose committed entries are ``entries``
    (``p2p.wire`` entries, in order): a rematch starts another match on the same log, so the
    moves of the matches before it are left out."""
    from cardtable.p2p.table import TableState

    table = TableState()
    applied = []
    for entry in entries:
        done = table.apply(entry)
        applied.append((table.match_no, done))
    return table_moves([done for match_no, done in applied if match_no == table.match_no])


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
