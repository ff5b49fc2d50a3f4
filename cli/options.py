"""Click options and argument checks shared by the commands (defined once)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from cardtable.engine.errors import ParseError
from cardtable.engine.games import GAME_NAMES

game_argument = click.argument("game", type=click.Choice(GAME_NAMES))
players_option = click.option("--players", "-p", type=click.IntRange(2, 10), default=4, show_default=True,
                              help="Players at the table (SOLO 2-10, SCOUT 2-5).")
edition_option = click.option("--edition", type=click.Choice(["classic", "anniversary"]), default=None,
                              help="SOLO edition preset [default: classic]; not for SCOUT.")
seed_option = click.option("--seed", type=click.IntRange(0, 2**63 - 1), default=None,
                           help="Master seed; one is chosen and printed when left out.")

# --- headless batches (match, tournament) --------------------------------------------------------
out_option = click.option("--out", type=click.Path(dir_okay=False, path_type=Path), default=None,
                          metavar="FILE.jsonl",
                          help="Stream every finished game to this file as it ends (a JSON line each).")
resume_option = click.option("--resume", is_flag=True,
                             help="Continue the run in --out: play only its missing games (same arguments).")
bot_time_option = click.option("--bot-time", type=click.FloatRange(0.01, 3600), default=5.0,
                               show_default=True, metavar="SECONDS",
                               help="Time budget a decision for cmd: bots (docs/bot-protocol.md).")
debug_bots_option = click.option("--debug-bots", type=click.Path(file_okay=False, path_type=Path),
                                 default=None, metavar="DIR",
                                 help="Keep every line sent to and received from each cmd: bot in DIR, a "
                                      "file a seat (and its stderr beside it; docs/bot-protocol.md).")
ray_option = click.option("--ray", "ray_address", is_flag=False, flag_value="", default=None,
                          metavar="[ADDRESS]",
                          help="Play the games as Ray tasks on the cluster at ADDRESS (a local one when "
                               "no address is given; needs 'cardtable[ray]').")


def make_config(game: str, players: int, edition: str | None, **options: Any) -> Any:
    """The rule set named on the command line, or a click error saying what is wrong.

    ``options`` override SOLO options (``pool``, ``threshold``); None values are left out.
    """
    options = {k: v for k, v in options.items() if v is not None}
    try:
        if game == "solo":
            from cardtable.engine.solo import Config as SoloConfig

            return SoloConfig.preset(edition or "classic", players, **options)
        if edition is not None:
            raise click.BadParameter("SCOUT has no editions", param_hint="--edition")
        from cardtable.engine.scout import Config as ScoutConfig
        from cardtable.engine.scout.config import OPTIONS

        unknown = sorted(set(options) - set(OPTIONS))
        if unknown:
            raise click.BadParameter(f"SCOUT has no option {unknown[0]!r} (it has {', '.join(OPTIONS)})",
                                     param_hint="--rule")
        return ScoutConfig(players=players, **options)
    except ParseError as err:
        raise click.BadParameter(str(err), param_hint="--players/--rule") from None


rule_option = click.option(
    "--rule", "rules", metavar="NAME=VALUE", multiple=True,
    help="Set one of the game's rule options (repeatable): e.g. --rule mixed_stacking=true, "
         "--rule voluntary_pass=true (SCOUT, 2 players); docs/rules-solo.md and docs/rules-scout.md "
         "list them.")


def parse_rules(pairs: tuple[str, ...]) -> dict[str, Any]:
    """``("gifts=true", "pool=200")`` → ``{"gifts": True, "pool": 200}``; the config checks the rest."""
    rules: dict[str, Any] = {}
    for pair in pairs:
        name, sep, text = pair.partition("=")
        if not sep or not name.strip() or not text.strip():
            raise click.BadParameter(f"{pair!r} is not NAME=VALUE", param_hint="--rule")
        rules[name.strip().replace("-", "_")] = rule_value(text.strip())
    return rules


def rule_value(text: str) -> bool | int | str:
    """A rule's value as typed: true/false (on/off, yes/no), a whole number, or a word."""
    flags = {"true": True, "on": True, "yes": True, "false": False, "off": False, "no": False}
    if text.lower() in flags:
        return flags[text.lower()]
    try:
        return int(text)
    except ValueError:
        return text


pool_option = click.option("--pool", type=click.IntRange(1, 10_000), default=None,
                           help="SOLO pool scoring (classic): the starting pool; a small pool is a short "
                                "match.")
threshold_option = click.option("--threshold", type=click.IntRange(1, 10_000), default=None,
                                help="SOLO penalty scoring (anniversary): the total that ends the match; "
                                     "a low one is a short match.")

rounds_option = click.option("--rounds", type=click.IntRange(1, 1000), default=None,
                             help="SOLO: end the match after this many rounds at the latest (a short "
                                  "evening).")


def scoring_overrides(game: str, edition: str | None, pool: int | None, threshold: int | None,
                      rounds: int | None = None) -> dict[str, int | None]:
    """The SOLO match-length options given on the command line (checked against the edition)."""
    if game != "solo" and (pool is not None or threshold is not None or rounds is not None):
        raise click.BadParameter("SCOUT has no match-length options (one round per player)",
                                 param_hint="--pool/--threshold/--rounds")
    anniversary = edition == "anniversary"
    if pool is not None and anniversary:
        raise click.BadParameter("the anniversary edition scores by penalty: use --threshold",
                                 param_hint="--pool")
    if threshold is not None and not anniversary:
        raise click.BadParameter("the classic edition scores by pool: use --pool", param_hint="--threshold")
    return {"pool": pool, "threshold": threshold, "rounds": rounds}


# --- the LAN commands (host, join, tables) -------------------------------------------------------
def _home_settings(ctx: click.Context, param: click.Parameter, home: Path | None) -> Path | None:
    """--home is eager: the settings kept in that config dir become this command's defaults
    before its other options are read (``cli/settings.py``), so each seat on one machine has its
    own name, theme and bots."""
    from cardtable.cli.settings import defaults, load

    ctx.default_map = defaults(load(home)).get(ctx.command.name or "")
    return home


home_option = click.option("--home", type=click.Path(file_okay=False, path_type=Path), default=None,
                           envvar="CARDTABLE_HOME", show_envvar=True, is_eager=True, callback=_home_settings,
                           help="Config dir with the settings ('cardtable config'), the identity key and the "
                                "table logs [default: the platform's config dir, e.g. ~/.config/cardtable].")


def again(command: str, home: Path | None) -> str:
    """``command`` as the user types it again, with the --home they gave (quoted for the shell;
    a home from $CARDTABLE_HOME is left out: that variable still says it)."""
    import shlex

    ctx = click.get_current_context(silent=True)
    if home is None or (ctx is not None and
                        ctx.get_parameter_source("home") == click.core.ParameterSource.ENVIRONMENT):
        return command
    return f"{command} --home {shlex.quote(str(home))}"


player_option = click.option("--player", default=None, metavar="NAME",
                             help="Your name at the table, for this run [default: the name setting "
                                  "('cardtable config name'), else your login name].")
passphrase_option = click.option("--passphrase", default=None, envvar="CARDTABLE_PASSPHRASE",
                                 show_envvar=True,
                                 help="Table passphrase (use several random words): it encrypts the table's "
                                      "traffic, so only peers that know it see, hear and join the table.")
auto_option = click.option("--auto", metavar="BOT", default=None,
                           help="Let this bot play your seat, headless (random, heuristic, ismcts:fast, "
                                "module:Class, cmd:COMMAND ...; docs/bots.md).")
port_option = click.option("--port", type=click.IntRange(0, 65535), default=0, show_default=True,
                           help="UDP port of this peer (0: any free port).")
seconds_option = click.option("--seconds", type=click.FloatRange(0.1, 600), default=2.5, show_default=True,
                              help="How long to listen for table beacons.")
join_seconds_option = click.option("--seconds", type=click.FloatRange(0.1, 600), default=8.0,
                                   show_default=True,
                                   help="How long to listen for the table's beacons at most (joining starts "
                                        "as soon as the table is heard, after 4 s at least).")
discovery_port_option = click.option("--discovery-port", type=click.IntRange(1, 65535), default=47474,
                                     show_default=True, envvar="CARDTABLE_DISCOVERY_PORT", show_envvar=True,
                                     help="UDP port where beacons are sent and heard.")
broadcast_option = click.option("--broadcast", metavar="ADDR", multiple=True, envvar="CARDTABLE_BROADCAST",
                                show_envvar=True,
                                help="Send beacons only to this broadcast address (repeatable) [default: "
                                     "every interface's, and 127.255.255.255].")
takeover_option = click.option("--takeover", type=click.FloatRange(0.5, 3600), default=30.0,
                               show_default=True,
                               help="Seconds of silence after which the sequencer lets a bot play a seat.")
BOT_DELAY = 1.5
"""The computer players' reaction time at a table, in seconds: about a person's."""
FORGET_CALLS = 0.15
"""How often computer players at a table forget a SOLO call (headless matches: never)."""
bot_delay_option = click.option("--bot-delay", type=click.FloatRange(0, 60), default=BOT_DELAY,
                                 show_default=True, metavar="SECONDS",
                                 help="The computer players' reaction time: seconds they wait after the last "
                                      "move before they play (time to jump in or catch; 0 for headless "
                                      "matches).")
forget_calls_option = click.option("--forget-calls", type=click.FloatRange(0, 1), default=FORGET_CALLS,
                                   show_default=True, metavar="RATE",
                                   help="How often the heuristic and ismcts computer players forget to call "
                                        "SOLO, as people do (0: never), so that catching them is possible.")
linger_option = click.option("--linger", type=click.FloatRange(0, 600), default=3.0, show_default=True,
                             help="Seconds to stay after the match ends, so every peer learns the end.")
fresh_option = click.option("--fresh", is_flag=True,
                            help="Do not resume the unfinished table kept in --home: archive it, start anew.")
verbose_option = click.option("--verbose", "-v", is_flag=True, help="Print every log entry applied (stderr).")


# --- the terminal client (play, and host/join without --auto) ------------------------------------
plain_option = click.option("--plain", is_flag=True,
                            help="Line mode instead of the full-screen table: type actions in the text "
                                 "notation (R7, wild:B, show:2-4 ...), read events line by line.")
bell_option = click.option("--bell/--no-bell", default=None,
                           help="Ring the terminal bell, and say so in the window title, when your turn "
                                "comes [default: the bell setting ('cardtable config bell'), else on at a "
                                "LAN table (host, join) and off for play].")
turn_clock_option = click.option("--turn-clock", type=click.FloatRange(1, 3600), default=None,
                                 metavar="SECONDS",
                                 help="Seconds you have for each move; when they run out, a computer player "
                                      "(heuristic) makes the move for you.")
