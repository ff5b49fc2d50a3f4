"""The ``cardtable`` command group (``cli/main.py`` runs it, each error as one line)."""

from __future__ import annotations

import click

from cardtable.cli.bot_cmd import bot
from cardtable.cli.config_cmd import config
from cardtable.cli.games_cmd import games
from cardtable.cli.ladder_cmd import ladder
from cardtable.cli.learn_cmd import learn
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

    The settings kept with 'cardtable config' are the defaults of the options they stand for
    (a command given --home DIR reads those kept in DIR)."""
    from cardtable.cli.settings import defaults, load

    ctx.default_map = defaults(load())  # a command's --home reads its own dir's (cli/options.py)


cli.add_command(match)
cli.add_command(replay)
cli.add_command(review)
cli.add_command(tables)
cli.add_command(host)
cli.add_command(join)
cli.add_command(watch)
cli.add_command(play)
cli.add_command(learn)
cli.add_command(tournament)
cli.add_command(games)
cli.add_command(ladder)
cli.add_command(peek)
cli.add_command(bot)
cli.add_command(config)
cli.add_command(stats)
