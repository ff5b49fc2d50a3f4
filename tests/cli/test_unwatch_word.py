"""``unwatch``: the host's word to free a spectator place (``--plain``), in one line each way."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from cardtable.cli.table_controls import WORDS, control


class Node:
    def __init__(self) -> None:
        self.calls: list[tuple[Any, ...]] = []

    def control(self, name: str, *args: Any) -> None:
        self.calls.append((name, *args))


def test_unwatch_lists_the_places_then_frees_the_one_named() -> None:
    node = Node()
    places = [("bea", ("h", 1)), ("x\u202ey", ("h", 2))]  # a name as a screen may show it
    peer = SimpleNamespace(table=SimpleNamespace(), watchers=lambda: places)
    assert "unwatch" in WORDS
    listed = control(node, peer, "unwatch", "  ")
    assert listed == "unwatch N (or NAME) frees a spectator place: 1 bea, 2 xy" and not node.calls
    assert control(node, peer, "unwatch", " 2 ") is None and node.calls == [("free_spectator", "2")]
    empty = SimpleNamespace(table=SimpleNamespace(), watchers=lambda: [])
    assert control(Node(), empty, "unwatch", "").endswith("nobody watches")  # type: ignore[union-attr]
