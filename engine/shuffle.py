"""The deterministic shuffle, as docs/rules-notes.md specifies it.

Every peer deals the same cards from the same seed on any platform and Python version,
so nothing here uses Python's ``random``.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator, Sequence
from typing import TypeVar

T = TypeVar("T")

_MOD = 2**64


def words(seed: bytes, label: str) -> Iterator[int]:
    """Yield the 64-bit words of the stream for ``(seed, label)``.

    Block ``i`` is ``SHA-256(seed || label || i as 8 bytes big-endian)``, read as four
    big-endian 64-bit words in order.
    """
    prefix = seed + label.encode("utf-8")
    i = 0
    while True:
        block = hashlib.sha256(prefix + i.to_bytes(8, "big")).digest()
        for k in range(0, 32, 8):
            yield int.from_bytes(block[k : k + 8], "big")
        i += 1


class Stream:
    """A labelled random stream: ``below(n)`` draws uniformly from ``0..n-1``."""

    __slots__ = ("_words",)

    def __init__(self, seed: bytes, label: str) -> None:
        self._words = words(seed, label)

    def below(self, n: int) -> int:
        """A uniform integer in ``[0, n)`` by rejection sampling of 64-bit words."""
        if n <= 0:
            raise ValueError(f"below(n) needs n >= 1, got {n}")
        limit = _MOD - (_MOD % n)
        while True:
            x = next(self._words)
            if x < limit:
                return x % n

    def shuffle(self, items: Sequence[T]) -> list[T]:
        """A shuffled copy of ``items`` (Fisher-Yates from the end)."""
        a = list(items)
        for i in range(len(a) - 1, 0, -1):
            j = self.below(i + 1)
            a[i], a[j] = a[j], a[i]
        return a


def below(n: int, seed: bytes, label: str) -> int:
    """The first ``below(n)`` draw of the stream ``(seed, label)``."""
    return Stream(seed, label).below(n)


def shuffle(items: Sequence[T], seed: bytes, label: str) -> list[T]:
    """A copy of ``items`` shuffled by the stream ``(seed, label)``."""
    return Stream(seed, label).shuffle(items)
