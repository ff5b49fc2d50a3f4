"""Click options and argument checks shared by the commands (defined once)."""

from __future__ import annotations

from typing import Any

import click

from engine.errors import ParseError
from engine.games import GAME_NAMES

game_argument = click.argument("game", type=click.Choice(GAME_NAMES))
players_option = click.option("--players", "-p", type=click.IntRange(2, 10), default=4, show_default=True,
                              help="Players at the table (SOLO 2-10, SCOUT 2-5).")
edition_option = click.option("--edition", type=click.Choice(["classic", "anniversary"]), default=None,
                              help="SOLO edition preset [default: classic]; not for SCOUT.")
seed_option = click.option("--seed", type=click.IntRange(0, 2**63 - 1), default=None,
                           help="Master seed; one is chosen and printed when left out.")


def make_config(game: str, players: int, edition: str | None) -> Any:
    """The rule set named on the command line, or a click error saying what is wrong."""
    try:
        if game == "solo":
            from engine.solo import Config as SoloConfig

            return SoloConfig.preset(edition or "classic", players)
        if edition is not None:
            raise click.BadParameter("SCOUT has no editions", param_hint="--edition")
        from engine.scout import Config as ScoutConfig

        return ScoutConfig(players=players)
    except ParseError as err:
        raise click.BadParameter(str(err), param_hint="--players") from None
