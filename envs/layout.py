"""A fixed-size feature vector made of named blocks (the observation encodings)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


class Layout:
    """Named blocks laid end to end: ``(name, shape, meaning)`` in order."""

    def __init__(self, blocks: Sequence[tuple[str, tuple[int, ...], str]]) -> None:
        self.blocks = list(blocks)
        self.offsets: dict[str, tuple[int, tuple[int, ...]]] = {}
        self._spans: list[tuple[str, int, int, tuple[int, ...] | None]] = []
        start = 0
        for name, shape, _ in self.blocks:
            size = int(np.prod(shape))
            self.offsets[name] = (start, shape)
            self._spans.append((name, start, start + size, shape if len(shape) > 1 else None))
            start += size
        self.size = start

    def new(self) -> tuple[np.ndarray, dict[str, np.ndarray]]:
        """A zero vector and a view of each block in its shape."""
        vector = np.zeros(self.size, np.float32)
        views = {name: vector[a:b] if shape is None else vector[a:b].reshape(shape)
                 for name, a, b, shape in self._spans}
        return vector, views

    def table(self) -> str:
        """The layout as a Markdown table (docs/envs.md is written from it)."""
        rows = ["| block | offset | shape | meaning |", "| --- | --- | --- | --- |"]
        for name, shape, meaning in self.blocks:
            start = self.offsets[name][0]
            rows.append(f"| `{name}` | {start} | {'x'.join(map(str, shape))} | {meaning} |")
        return "\n".join(rows)
