"""``cardtable games``: the games kept in the config dir, newest first, to replay or resume."""

from __future__ import annotations

from pathlib import Path

import click

from cardtable.cli.options import home_option
from cardtable.cli.table_logs import describe_matches, kept_games
from cardtable.cli.words import plural

EXAMPLES = """
\b
Examples:
  cardtable games
  cardtable replay ~/.config/cardtable/play/table.log
  cardtable play --resume
"""


@click.command(epilog=EXAMPLES)
@home_option
def games(home: Path | None) -> None:
    """List the games kept in the config dir (every table keeps its log there), newest first: a
    line a match (a rematch plays another match on the same table's log)."""
    from cardtable.p2p.identity import default_home

    where = home if home is not None else default_home()
    kept = kept_games(where)
    if not kept:
        click.echo(f"no games kept in {where} yet")
        return
    lines = [line for game in kept for line in describe_matches(game, home)]
    for line in lines:
        click.echo(line)
    logs = f" in {plural(len(kept), 'log')}" if len(lines) != len(kept) else ""
    click.echo(f"{plural(len(lines), 'game')}{logs}; 'cardtable replay FILE' tells one in words")
