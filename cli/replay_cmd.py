"""``cardtable replay``: replay a game log or a table log, verify it, and tell the game in words.

Two kinds of file: the match logs ``cardtable match --log-dir`` writes (docs/log-format.md), and
the table logs every table keeps in the config dir (``cardtable games`` lists them)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import click

from cardtable.cli.player_words import Note, words
from cardtable.cli.table_logs import is_table_log, log_warnings, read_log_file, read_table_log
from cardtable.engine.log import Replay
from cardtable.engine.log import replay as replay_log

EXAMPLES = """
\b
Examples:
  cardtable replay logs/game-0000.ctlog
  cardtable replay --verify logs/game-0000.ctlog
  cardtable replay ~/.config/cardtable/play/table.log     (see 'cardtable games')
  cardtable replay logs/game-0000.ctlog --view             (move by move in the table view)
"""


@click.command(epilog=EXAMPLES)
@click.argument("file", type=click.Path(path_type=Path))
@click.option("--verify", is_flag=True, help="Only verify: print one summary line, not the account.")
@click.option("--view", is_flag=True,
              help="Step through the game in the full-screen table, move by move, forward and back.")
def replay(file: Path, verify: bool, view: bool) -> None:
    """Replay FILE, check every entry against the rules (and its digest or signatures), and tell
    the game in words (or, with --view, show it move by move)."""
    if view:
        if verify:
            raise click.UsageError("--view and --verify: give one")
        view_log(file)
        return
    data = read_log_file(file)
    if is_table_log(data):
        _replay_table(file, verify)
        return
    result = replay_log(data)
    if not verify:
        _account(result)
    if result.error:
        raise click.ClickException(f"{file}: {result.error} ({_entries(len(result.entries))} intact)")
    match = result.match
    assert match is not None
    if not match.is_over():  # a match log is written for a finished match only
        raise click.ClickException(f"{file}: the log ends before the match does: it was cut short "
                                   f"({_entries(len(result.entries))} intact)")
    click.echo(f"verified: {_entries(len(result.entries))}, match over, totals {match.scores()}, "
               f"winners {match.winners()}, digest {match.digest()[:16]}")


def view_log(file: Path) -> None:
    """Step through the log ``file`` in the full-screen table (``replay --view``, ``watch LOG``)."""
    from cardtable.cli.play_cmd import need_terminal
    from cardtable.cli.replay_view import view as show

    data = read_log_file(file)
    need_terminal()
    show(file, data)


def _entries(n: int) -> str:
    return "1 entry" if n == 1 else f"{n} entries"


def tell(events: Sequence[Any], names: Sequence[str]) -> list[str]:
    """Engine events as sentences, seats by name (the client's words, in the third person)."""
    return [words(Note.of(e), None, names) for e in events]


def _account(result: Replay) -> None:
    match = result.match
    if match is None:
        return
    click.echo(f"{match.config.describe()} · seed {match.seed.hex()} · {result.meta}")
    names = [f"seat {s}" for s in range(match.config.players)]
    for entry, events in zip(result.entries, result.events, strict=True):
        click.echo(f"{entry.index:>6}  {entry.action:<16} " + "; ".join(tell(events, names)))


def _replay_table(file: Path, verify: bool) -> None:
    try:
        log = read_table_log(file)
    except (OSError, ValueError) as err:
        raise click.ClickException(f"cannot read the table log {file}: {err}") from None
    for warning in log_warnings(log):
        click.echo(warning, err=True)
    table = log.table
    if table.config is None:
        raise click.ClickException(f"{file}: a table log without its table (no committed entry)")
    names = log.names or [seat.name or f"seat {s}" for s, seat in enumerate(table.seats)]
    if not verify:
        click.echo(f"table {table.name!r} · {table.config.describe()} · "
                   f"{_entries(len(log.applied))} committed")
        for applied in log.applied:
            if applied.events:
                line = "; ".join(tell(applied.events, names))
            elif not applied.ok:
                line = f"refused ({applied.kind}): {applied.reason}"
            elif applied.line:  # talk
                line = applied.line
            elif applied.kind in SEAT_WORDS:
                line = _seat_line(applied.kind, applied.seat, applied.summary, names)
            else:
                continue
            click.echo(f"{applied.index:>6}  {line}")
    if log.error:
        raise click.ClickException(f"{file}: {log.error} ({_entries(len(log.applied))} intact)")
    match = table.match
    state = table.phase if match is None else "over" if match.is_over() else "unfinished"
    totals = "" if match is None else f", totals {match.scores()}, winners {match.winners()}"
    digest = "" if match is None else f", digest {table.digest()[:16]}"
    if not verify:
        for line in _hands_lines(file, log, names):
            click.echo(line)
        for n, past in enumerate(table.past, start=1):  # a rematch plays another match on the same log
            click.echo(f"match {n}: over, totals {past.scores()}, winners {past.winners()}")
    which = f"match {table.match_no + 1} " if table.past else "match "
    click.echo(f"verified: {_entries(len(log.applied))} signed and applied, {which}{state}{totals}{digest}")


def _hands_lines(file: Path, log: Any, names: Sequence[str]) -> list[str]:
    """The hands of a hidden-hands table's rounds: every hand of an audited round, as dealt; this
    machine's own of the round in play (its seeds and the keys it received open them)."""
    from cardtable.cli.table_logs import read_meta
    from cardtable.p2p.hidden.peek import round_view

    table, lines = log.table, []
    several = bool(table.past) or table.match is None and log.rounds and log.rounds[-1][0] > 0
    for match_no, h in log.rounds:
        where = (f"match {match_no + 1}, " if several else "") + f"round {h.round_no + 1}"
        if h.outcome is not None:
            hands = enumerate(h.dealt_hands())
            lines.append(f"{where}, as dealt (opened at the audit): "
                         + "; ".join(f"{names[s]} {' '.join(hand)}" for s, hand in hands))
        elif h is table.hidden and h.deal.complete:
            try:
                view = round_view(h, read_meta(file))
            except (OSError, ValueError):
                continue
            opened = view.opened
            seen = [(s, slots) for s, slots in enumerate(h.dealt_slots())
                    if slots and set(slots) <= opened.keys()]
            mine = "; ".join(f"{names[s]} {' '.join(opened[slot] for slot in slots)}" for s, slots in seen)
            lines.append(f"{where}, in play: this machine's hands as dealt: {mine or 'none'} "
                         "(the others' are opened at the round's audit)")
    return lines


SEAT_WORDS = {
    "join": "{who} sits down",
    "leave": "{who} leaves the table; a computer player takes the seat",
    "forfeit": "{who} gives no seed share: a computer player takes the seat",
    "takeover": "{who} is played by a computer player until its owner is back",
    "return": "{who} is back",
}
"""Entries that change who holds a seat, in words; the author's seat for join and leave, the
seat named in the entry for the sequencer's forfeit and takeover and the owner's return."""


def _seat_line(kind: str, author_seat: int | None, summary: str, names: list[str]) -> str:
    last = summary.split()[-1] if summary else ""
    seat = int(last) if kind in ("forfeit", "takeover", "return") and last.isdigit() else author_seat
    if seat is None:
        who = "someone"
    else:
        who = f"{names[seat]} (seat {seat})" if seat < len(names) else f"seat {seat}"
    return SEAT_WORDS[kind].format(who=who)

