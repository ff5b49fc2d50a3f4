"""``cardtable``: the command group; errors become one line on stderr, never a traceback."""

from __future__ import annotations

import sys

import click

from cardtable.cli.bot_cmd import bot
from cardtable.cli.config_cmd import config
from cardtable.cli.games_cmd import games
from cardtable.cli.ladder_cmd import ladder
from cardtable.cli.match_cmd import match
from cardtable.cli.net_cmds import host, join, tables
from cardtable.cli.peek_cmd import peek
from cardtable.cli.play_cmd import play
from cardtable.cli.replay_cmd import replay
from cardtable.cli.review_cmd import review
from cardtable.cli.stats_cmd import stats
from cardtable.cli.tournament_cmd import tournament
from cardtable.cli.watch_cmd import watch


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="cardtable", prog_name="cardtable", message="%(prog)s %(version)s")
@click.pass_context
def cli(ctx: click.Context) -> None:
    """SOLO and SCOUT on a LAN with no server, and headless matches between bots.

    The settings kept with 'cardtable config' are the defaults of the options they stand for."""
    from cardtable.cli.settings import defaults, load

    ctx.default_map = defaults(load())


cli.add_command(match)
cli.add_command(replay)
cli.add_command(review)
cli.add_command(tables)
cli.add_command(host)
cli.add_command(join)
cli.add_command(watch)
cli.add_command(play)
cli.add_command(tournament)
cli.add_command(games)
cli.add_command(ladder)
cli.add_command(peek)
cli.add_command(bot)
cli.add_command(config)
cli.add_command(stats)


def main(argv: list[str] | None = None) -> None:
    """The console script: usage errors exit 2, other failures 1, each as one line."""
    try:
        code = cli.main(args=argv, prog_name="cardtable", standalone_mode=False)
    except click.UsageError as err:
        name = err.ctx.command.name if err.ctx else None
        hint = f" (see 'cardtable {name} --help')" if name and name != "cli" else ""
        click.echo(f"cardtable: error: {err.format_message()}{hint}", err=True)
        sys.exit(2)
    except click.ClickException as err:
        click.echo(f"cardtable: error: {err.format_message()}", err=True)
        sys.exit(err.exit_code)
    except click.Abort:
        click.echo("cardtable: aborted", err=True)
        sys.exit(130)
    except KeyboardInterrupt:
        click.echo("cardtable: interrupted", err=True)
        sys.exit(130)
    sys.exit(code if isinstance(code, int) else 0)
