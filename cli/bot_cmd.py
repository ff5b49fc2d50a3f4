"""``cardtable bot new python|js DIR``: a working bot program to start from (docs/bot-protocol.md).

It writes a copy of the example the tests run (``examples/json_bot.py`` or ``examples/json_bot.js``,
shipped inside the package) as ``DIR/bot.py`` or ``DIR/bot.js``, never over an existing file, and
says how to play it.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import click

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
"""The example bots: the repository's examples/, or cardtable/examples/ in an installed wheel."""
LANGUAGES = {"python": ("json_bot.py", "bot.py", "python3"), "js": ("json_bot.js", "bot.js", "node")}


@click.group()
def bot() -> None:
    """Tools for bot authors."""


@bot.command(epilog="\b\nExamples:\n  cardtable bot new python mybot\n  cardtable bot new js mybot")
@click.argument("language", type=click.Choice(sorted(LANGUAGES)))
@click.argument("folder", type=click.Path(file_okay=False, path_type=Path))
def new(language: str, folder: Path) -> None:
    """Write a working example bot in LANGUAGE (a program speaking JSON lines) into FOLDER."""
    source, name, runner = LANGUAGES[language]
    target = folder / name
    if target.exists():
        raise click.ClickException(f"{target} exists already: give another folder")
    try:
        text = (EXAMPLES / source).read_text(encoding="utf-8")
    except OSError as err:
        problem = f"the example {source} is missing from this install: {err.strerror}"
        raise click.ClickException(problem) from None
    try:
        folder.mkdir(parents=True, exist_ok=True)
        target.write_text(text.replace(f"examples/{source}", str(target)), encoding="utf-8")
        target.chmod(0o755)
    except OSError as err:
        raise click.ClickException(f"cannot write {target}: {err.strerror}") from None
    command = f"{runner} {target}"
    if shutil.which(runner) is None:
        click.echo(f"cardtable: {runner} is not on PATH: install it to run this bot", err=True)
    click.echo(f"wrote {target}: a {language} bot for SOLO and SCOUT (docs/bot-protocol.md). Try it:")
    click.echo(f"  cardtable match solo --bots 'me=cmd:{command},heuristic,heuristic,heuristic' --duplicate")
    click.echo(f"  cardtable match solo --bots 'me=cmd:{command},heuristic,heuristic' --players 3 "
               f"--games 2 --debug-bots {folder / 'debug'}")
    click.echo(f"  cardtable play solo --bots 'me=cmd:{command},heuristic,heuristic'")
