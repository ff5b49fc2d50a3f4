"""``cardtable games``: the games kept in the config dir, newest first, to replay or resume."""

from __future__ import annotations

from pathlib import Path

import click

from cardtable.cli.options import home_option
from cardtable.cli.table_logs import describe, kept_games

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
    """List the games kept in the config dir (every table keeps its log there), newest first."""
    from cardtable.p2p.identity import default_home

    where = home if home is not None else default_home()
    kept = kept_games(where)
    if not kept:
        click.echo(f"no games kept in {where} yet")
        return
    for game in kept:
        click.echo(describe(game, home))
    click.echo(f"{len(kept)} game{'s' if len(kept) != 1 else ''}; 'cardtable replay FILE' tells one in words")
