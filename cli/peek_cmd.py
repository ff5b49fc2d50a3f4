"""``cardtable peek``: what the machine that kept a table's log could see of the hidden cards."""

from __future__ import annotations

from pathlib import Path

import click

from cardtable.cli.words import plural

PEEK_EXAMPLES = """
\b
Examples:
  cardtable peek ~/.config/cardtable/table.log
  cardtable peek ~/.config/cardtable        (the table kept in a home)
"""


@click.command(epilog=PEEK_EXAMPLES)
@click.argument("log", type=click.Path(exists=True, path_type=Path))
def peek(log: Path) -> None:
    """Print what this machine could open of a hidden-hands table's cards, round by round.

    LOG is a table log (or the home that keeps one). The machine's store holds its own seeds and
    the keys the others sent it; a card opens only with every dealing member's key. Run it on
    your own log to check that your machine saw your hand, the computer players' hands if it
    played them (the first dealing machine in seat order that is still at the table, whoever is
    sequencer), and the cards shown to all: nothing else until the audit.
    """
    from cardtable.cli.table_logs import is_table_log, read_meta, read_table_log
    from cardtable.p2p.hidden.peek import peek as views

    path = log / "table.log" if log.is_dir() else log
    try:
        data = path.read_bytes()[:64]
    except OSError as err:
        raise click.ClickException(f"cannot read {path}: {err.strerror or err}") from None
    if not is_table_log(data):
        raise click.ClickException(f"{path}: not a table log (a match log shows every hand: use replay)")
    try:
        kept = read_table_log(path)
        meta = read_meta(path)
    except (OSError, ValueError) as err:
        raise click.ClickException(f"cannot read the table log {path}: {err}") from None
    table = kept.table
    if table.config is None:
        raise click.ClickException(f"{path}: a table log without its table (no committed entry)")
    if not table.hides():
        raise click.ClickException(f"{path}: this table deals open: every machine could read every hand")
    names = kept.names or [seat.name or f"seat {s}" for s, seat in enumerate(table.seats)]
    click.echo(f"table {table.name!r} · {table.config.describe()} · hidden hands")
    for view in views(table, meta):
        state = "audited: every card was revealed by the seeds at its end" if view.audited else "in play"
        click.echo(f"round {view.round_no + 1} ({state})")
        if view.member is None:
            click.echo("  this machine did not deal this round: it could open nothing")
        else:
            by_seat: dict[int | None, list[str]] = {}
            for slot, card in sorted(view.opened.items()):
                by_seat.setdefault(view.seat_of(slot), []).append(card)
            said = "could open" if view.audited else "can open"
            click.echo(f"  before the audit this machine {said} {plural(len(view.opened), 'card')}:")
            for seat, cards in by_seat.items():
                whose = "set aside" if seat is None else f"{names[seat]}'s hand as dealt"
                click.echo(f"    {whose}: {' '.join(cards)}")
        if any(seat.controller != "human" for seat in table.seats) and view.runners:
            owners = {seat.owner: seat.name for seat in table.seats if seat.owner is not None}
            who = ", then ".join(f"{owners.get(k, k.hex()[:8])}'s machine" for k in view.runners)
            click.echo(f"  the computer players' cards were seen by {who}")
        shown = " ".join(card for _, card in sorted(view.public.items())) or "none"
        click.echo(f"  shown to all: {shown}")
    if kept.error:
        raise click.ClickException(f"{path}: {kept.error}")
