"""``cardtable watch TARGET``: a kept log move by move (as ``replay --view``), or a table on the LAN
as a spectator: no seat, the public view only (``p2p/spectators.py``)."""

from __future__ import annotations

import os
import time
from pathlib import Path

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
    hidden hands no card that was not shown to all). A table with a passphrase needs it."""
    log = kept_log(target)
    if log is None and ("/" in target or target.endswith((".ctlog", ".log"))):
        raise click.ClickException(f"no log at {target} (a table's name has no '/' and no .log ending)")
    if log is not None:
        from cardtable.cli.replay_cmd import view_log

        view_log(log)
        return
    from cardtable.cli.net_cmds import NodeRunner, _check_name, _find_table, _say
    from cardtable.cli.play_cmd import net_client
    from cardtable.p2p.identity import Identity
    from cardtable.p2p.peer import Peer
    from cardtable.p2p.store import MemoryStore

    _check_name(name)
    runner = NodeRunner(passphrase, 0.0, port, discovery_port, broadcast, verbose)
    runner.client = net_client(plain, None)
    table_id, contact, label, sequencer, contacts = _find_table(target, discovery_port, passphrase, seconds,
                                                                lambda _table_id: True)  # any table not over
    _say(f"watching {label} at {contact[0]}:{contact[1]}: no seat, the public view only")
    peer = Peer.spectator(Identity.generate(), MemoryStore(), table_id, contact, name, now=time.monotonic(),
                          seed=os.urandom(32), passphrase=passphrase, sequencer=sequencer, contacts=contacts)
    runner.run(peer)
