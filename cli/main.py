"""``cardtable``: the console script; errors become one line on stderr, never a traceback.

The command group (``cli/commands.py``) is imported inside ``main``, so that a Ctrl-C while
Python loads it is one line too, as at any other moment of start-up.
"""

from __future__ import annotations

import sys

INTERRUPTED = "cardtable: interrupted"


def main(argv: list[str] | None = None) -> None:
    """The console script: usage errors exit 2, other failures 1, each as one line; Ctrl-C 130."""
    try:
        _main(argv)
    except KeyboardInterrupt:
        sys.stderr.write(f"\n{INTERRUPTED}\n")  # the newline ends the terminal's ^C echo
        sys.exit(130)


def _main(argv: list[str] | None) -> None:
    import click

    from cardtable.cli.commands import cli

    try:
        code = cli.main(args=argv, prog_name="cardtable", standalone_mode=False)
    except click.UsageError as err:
        path = err.ctx.command_path if err.ctx else ""
        hint = f" (see '{path} --help')" if err.ctx and err.ctx.parent is not None else ""
        message, program = err.format_message(), _program_hint(sys.argv[1:] if argv is None else argv)
        if program:
            message = message.rstrip(".") + program
        click.echo(f"cardtable: error: {message}{hint}", err=True)
        sys.exit(2)
    except click.ClickException as err:
        click.echo(f"cardtable: error: {err.format_message()}", err=True)
        sys.exit(err.exit_code)
    except click.Abort as err:
        interrupted = isinstance(err.__cause__, KeyboardInterrupt)
        click.echo(INTERRUPTED if interrupted else "cardtable: aborted", err=True)  # click ended the ^C line
        sys.exit(130)
    sys.exit(code if isinstance(code, int) else 0)


def _program_hint(args: list[str]) -> str:
    """For a program bot given unquoted and without ``cmd:`` (``--bots python3 bots/py/bot.py``:
    the shell splits it, and click finds an extra argument), the option as it should be typed."""
    import shlex

    from cardtable.cli.seat_bots import as_program

    for i, word in enumerate(args[:-1]):
        if word not in ("--bots", "--auto"):
            continue
        words: list[str] = []
        for more in args[i + 1:]:
            if more.startswith("-"):
                break
            words.append(more)
        if len(words) < 2:
            continue
        meant = as_program(" ".join(words))
        if meant is not None:
            return f"; a program bot is one argument, cmd:COMMAND in quotes: {word} {shlex.quote(meant)}"
    return ""
