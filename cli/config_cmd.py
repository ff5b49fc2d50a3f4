"""``cardtable config``: show and set the settings kept in the config dir (``cli/settings.py``)."""

from __future__ import annotations

from pathlib import Path

import click

from cardtable.cli import settings as kept
from cardtable.cli.options import home_option

EXAMPLES = """
\b
Examples:
  cardtable config                       (every setting, and where they are kept)
  cardtable config name bea              (your name at a table you join)
  cardtable config name cy --home /tmp/seat2   (a second seat's dir, for join ... --home /tmp/seat2)
  cardtable config bots 'me=cmd:python3 mybot/bot.py,heuristic,strong'
  cardtable config bot_delay 0.8
  cardtable config theme nord
  cardtable config theme --unset
"""


@click.command(epilog=EXAMPLES)
@click.argument("key", required=False, type=click.Choice(sorted(kept.KEYS)))
@click.argument("value", required=False)
@click.option("--unset", is_flag=True, help="Forget KEY's setting (its option's own default applies again).")
@home_option
def config(key: str | None, value: str | None, unset: bool, home: Path | None) -> None:
    """Show the settings, show KEY's, or set KEY to VALUE. They are the defaults of the options
    they stand for (an option on the command line still wins) in the commands given the same
    --home (or none, for the default config dir)."""
    settings = kept.load(home)
    if key is None:
        if value is not None or unset:
            raise click.UsageError("give a KEY to set or --unset")
        click.echo(f"settings in {kept.path(home)}:")
        for name, (_, meaning) in kept.KEYS.items():
            shown = settings[name] if name in settings else "(not set)"
            click.echo(f"  {name:<10} {shown!s:<24} {meaning}")
        return
    if unset or value is not None:
        if unset and value is not None:
            raise click.UsageError("give a VALUE or --unset, not both")
        if unset:
            settings.pop(key, None)
        else:
            try:
                settings[key] = kept.KEYS[key][0](value or "")
            except ValueError as err:
                raise click.BadParameter(str(err), param_hint="VALUE") from None
        try:
            where = kept.save(settings, home)
        except OSError as err:
            raise click.ClickException(f"cannot write {kept.path(home)}: {err.strerror}") from None
        click.echo(f"{key} = {settings[key]}  ({where})" if key in settings else f"{key} unset  ({where})")
        return
    click.echo(settings[key] if key in settings else "(not set)")
