"""Games as Ray tasks, on an existing cluster or a local one (``--ray [ADDRESS]``).

Each game is one task running ``ai.tournament.play_task``: the same code and seeds as a
local run, so the same games. Ray is optional (``pip install 'cardtable[ray]'``); every
node needs cardtable installed, and the files or programs a plugin bot names.
"""

from __future__ import annotations

import argparse
import socket
from collections.abc import Callable, Iterator
from typing import Any, TypeVar

from cardtable.engine.errors import ParseError

T = TypeVar("T")
R = TypeVar("R")


class RayMissing(ParseError):
    """Ray is not installed."""


def require_ray() -> Any:
    """The ``ray`` module, or RayMissing saying what to install."""
    try:
        import ray
    except ImportError:
        raise RayMissing("Ray is not installed: pip install 'cardtable[ray]'") from None
    return ray


class RayUnreachable(ParseError):
    """No Ray cluster answers at the address given."""


PROBE_SECONDS = 3.0
"""How long ``require_cluster`` waits for the cluster's port to answer (Ray's own client
retries for minutes, logging a line every few seconds)."""


def require_cluster(address: str) -> None:
    """Raise RayUnreachable unless something accepts connections at ``address`` (HOST:PORT,
    optionally ``ray://``); "" (a local cluster) and "auto" (Ray finds one) are not probed."""
    bare = address.removeprefix("ray://")
    if not bare or bare == "auto":
        return
    host, _, port = bare.rpartition(":")
    if not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise RayUnreachable(f"{address!r} is not HOST:PORT (the cluster's address, e.g. 10.0.0.5:6379)")
    try:
        socket.create_connection((host.strip("[]"), int(port)), timeout=PROBE_SECONDS).close()
    except OSError as err:
        why = err.strerror or str(err) or type(err).__name__
        raise RayUnreachable(f"no Ray cluster answers at {address}: {why}") from None


def check_ray(address: str) -> None:
    """Raise RayMissing or RayUnreachable unless Ray is installed and ``address`` answers (what
    ``--ray`` checks before anything is played)."""
    require_ray()
    require_cluster(address)


def add_ray_argument(parser: argparse.ArgumentParser, what: str) -> None:
    """``--ray [ADDRESS]`` for a command line of ``argparse`` (``what`` runs as the Ray tasks)."""
    parser.add_argument("--ray", nargs="?", const="", metavar="ADDRESS",
                        help=f"{what} as Ray tasks on the cluster at ADDRESS (none: a local one)")


def connect(address: str, cpus: int | None = None) -> Any:
    """Join the cluster at ``address`` ("" starts a local one, with ``cpus`` CPUs if given)."""
    ray = require_ray()
    if not ray.is_initialized():
        require_cluster(address)
        local = {"num_cpus": cpus} if not address and cpus else {}
        ray.init(address=address or None, include_dashboard=False, log_to_driver=False,
                 configure_logging=False, **local)
    return ray


def map_on_ray(fn: Callable[..., Any], calls: list[tuple[Any, ...]], address: str,
               cpus: int | None = None) -> list[Any]:
    """``[fn(*call) for call in calls]``, each call a Ray task, the results in the calls' order."""
    ray = connect(address, cpus)
    remote = ray.remote(num_cpus=1, max_retries=2)(fn)
    try:
        return list(ray.get([remote.remote(*call) for call in calls]))
    finally:
        ray.shutdown()


def map_on_ray_unordered(fn: Callable[[T], R], items: list[T], address: str,
                         cpus: int | None = None) -> Iterator[R]:
    """``fn(item)`` for each item as a Ray task, each result as its task ends; closing the
    iterator (Ctrl-C) disconnects from the cluster, which ends the tasks not finished: they
    belong to this driver."""
    ray = connect(address, cpus)
    remote = ray.remote(num_cpus=1, max_retries=2)(fn)
    pending = [remote.remote(item) for item in items]
    try:
        while pending:
            done, pending = ray.wait(pending, num_returns=1)
            for ref in done:
                yield ray.get(ref)
    finally:
        if pending:
            ray.shutdown()
