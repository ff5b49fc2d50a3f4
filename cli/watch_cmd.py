"""``cardtable watch TARGET``: a kept log move by move (as ``replay --view``), or a table on the LAN
as a spectator: no seat, the public view only (``p2p/spectators.py``).

A table's sequencer that has no place for this spectator (its places are all taken, or its host
sent this machine away) says so at once: the command prints that in one line and exits with
status ``NO_PLACE``; one that does not answer in ``WATCH_WAIT`` seconds is named too."""

from __future__ import annotations

import os
import time
from collections.abc import Awaitable, Callable, Coroutine
from pathlib import Path
from typing import Any

import click

from cardtable.cli.options import (
    broadcast_option,
    discovery_port_option,
    join_seconds_option,
    passphrase_option,
    plain_option,
    port_option,
    verbose_option,
)

EXAMPLES = """
\b
Examples:
  cardtable watch kitchen                       (a table on the LAN, as a spectator)
  cardtable watch attic --passphrase hunter2 --plain
  cardtable watch logs/game-0000.ctlog          (a kept log, move by move: as replay --view)
  cardtable watch ~/.config/cardtable           (the table log kept there)
"""


NO_PLACE = 3
"""The exit status of a ``watch`` the table has no place for (usage errors exit 2, other failures 1)."""
WATCH_WAIT = 15.0
"""Seconds to wait for the log (or a refusal) from the table found."""

Client = Callable[[Any, Any, float], Awaitable[str | None]]
"""A terminal client: ``await client(node, peer, linger)`` (``cli/play_cmd.net_client``)."""
Run = Callable[[Any, Any, float], Coroutine[Any, Any, str | None]]


class NoPlace(click.ClickException):
    """The table's sequencer gives this spectator no place: one line, exit status ``NO_PLACE``."""

    exit_code = NO_PLACE


def refusal_line(label: str, reason: str) -> str:
    """What a spectator the sequencer refused is told (``label``: the table, as found)."""
    from cardtable.p2p.spectators import MAX_SPECTATORS, SENT_AWAY, SENT_AWAY_FOR

    if reason == SENT_AWAY:
        return (f"the host of {label} sent this machine's spectator away: it may not watch there for "
                f"{SENT_AWAY_FOR / 60:g} minutes")
    return f"the {MAX_SPECTATORS} spectator places of {label} are taken; ask the host to make room"


def spectator_client(client: Client, label: str, contact: tuple[str, int],
                     wait: float = WATCH_WAIT) -> Run:
    """``client`` (the table, or line mode) once the log comes; a refusal or no answer in ``wait``
    seconds ends the command in one line (a refusal while it watches, once the client is closed)."""

    async def run(node: Any, peer: Any, linger: float) -> str | None:
        if not await node.wait_for(lambda: bool(peer.log) or peer.left, wait) or not peer.log:
            refused(peer, label)
            where = f"{contact[0]}:{contact[1]}"
            raise click.ClickException(f"no answer from {label} at {where} in {wait:g} s: is it still "
                                       "running? (a passphrase table answers only its --passphrase)")
        from cardtable.cli.net_cmds import _say

        _say(f"watching {label} at {contact[0]}:{contact[1]}: no seat, the public view only")
        digest = await client(node, peer, linger)
        refused(peer, label)
        return digest

    return run


def refused(peer: Any, label: str) -> None:
    """Raise ``NoPlace`` if the sequencer refused ``peer`` (``Peer.watch_refused``)."""
    reason = peer.watch_refused
    if reason is not None:
        raise NoPlace(refusal_line(label, reason))


def kept_log(target: str) -> Path | None:
    """The log ``target`` names: a file, or a home dir holding a ``table.log``; None: a table name."""
    path = Path(target).expanduser()
    if path.is_file():
        return path
    if path.is_dir() and (path / "table.log").is_file():
        return path / "table.log"
    return None


@click.command(epilog=EXAMPLES)
@click.argument("target")
@click.option("--name", default="spectator", show_default=True, help="The name the sequencer knows you by.")
@passphrase_option
@join_seconds_option
@port_option
@discovery_port_option
@broadcast_option
@verbose_option
@plain_option
def watch(target: str, name: str, passphrase: str | None, seconds: float, port: int, discovery_port: int,
          broadcast: tuple[str, ...], verbose: bool, plain: bool) -> None:
    """Watch TARGET: a kept log (a file, or a config dir holding table.log) move by move, forward and
    back, in the full-screen table; else a table on the LAN (a name or id prefix, HOST:PORT, or
    ID@HOST:PORT, as for join) as a spectator: no seat, no say, only what every player sees (with
    hidden hands no card that was not shown to all). A table with a passphrase needs it. A table
    whose spectator places are all taken says so at once (exit status 3): its host can free one."""
    log = kept_log(target)
    if log is None and ("/" in target or target.endswith((".ctlog", ".log"))):
        raise click.ClickException(f"no log at {target} (a table's name has no '/' and no .log ending)")
    if log is not None:
        from cardtable.cli.replay_cmd import view_log

        view_log(log)
        return
    from cardtable.cli.net_cmds import NodeRunner, _check_name, _find_table
    from cardtable.cli.play_cmd import net_client
    from cardtable.p2p.identity import Identity
    from cardtable.p2p.peer import Peer
    from cardtable.p2p.store import MemoryStore

    _check_name(name)
    runner = NodeRunner(passphrase, 0.0, port, discovery_port, broadcast, verbose)
    client = net_client(plain, None)
    table_id, contact, label, sequencer, contacts = _find_table(target, discovery_port, passphrase, seconds,
                                                                lambda _table_id: True)  # any table not over
    runner.client = spectator_client(client, label, contact)
    peer = Peer.spectator(Identity.generate(), MemoryStore(), table_id, contact, name, now=time.monotonic(),
                          seed=os.urandom(32), passphrase=passphrase, sequencer=sequencer, contacts=contacts)
    runner.run(peer)
