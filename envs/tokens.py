"""Engine actions as short paths of tokens over a small fixed action space.

Both games have decisions too rich for one flat action space (a SOLO Gift names a seat and
two cards; a SCOUT Scout & Show names an end, a value, an insertion point and a span), so
an agent says an engine action as a few tokens in a row: ``wild:B`` is ``play wild`` then
``colour B``. ``Trie`` holds the token paths of the legal actions of one decision; the
action mask at each step is the set of tokens that extend the path said so far.
No complete path is a proper prefix of another, so an action is applied the moment its
last token is said.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

PASS = object()
"""The sentinel for "not now" (an out-of-turn chance declined)."""


class Trie:
    """The token paths of one decision's actions (``PASS`` may be one of them)."""

    __slots__ = ("_actions", "_next")

    def __init__(self, actions: Sequence[Any], encode: Callable[[Any], tuple[int, ...]],
                 pass_token: int | None = None) -> None:
        self._next: dict[tuple[int, ...], set[int]] = {}
        self._actions: dict[tuple[int, ...], Any] = {}
        paths = [(encode(a), a) for a in actions]
        if pass_token is not None:
            paths.append(((pass_token,), PASS))
        for path, action in paths:
            if path in self._actions:
                raise ValueError(f"two actions share the token path {path}: {self._actions[path]}, {action}")
            self._actions[path] = action
            for k in range(len(path)):
                self._next.setdefault(path[:k], set()).add(path[k])
        for path in self._actions:
            if path in self._next:
                raise ValueError(f"the path of {self._actions[path]} is a prefix of another action's")

    def tokens(self, prefix: tuple[int, ...]) -> list[int]:
        """The tokens that may follow ``prefix``, ascending."""
        return sorted(self._next.get(prefix, ()))

    def action(self, path: tuple[int, ...]) -> Any | None:
        """The action (or ``PASS``) whose path is ``path``; None if the path is not complete."""
        return self._actions.get(path)
