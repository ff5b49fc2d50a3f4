"""A fixed-size feature vector made of named blocks (the observation encodings)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


class Layout:
    """Named blocks laid end to end: ``(name, shape, meaning)`` in order."""

    def __init__(self, blocks: Sequence[tuple[str, tuple[int, ...], str]]) -> None:
        self.blocks = list(blocks)
        self.offsets: dict[str, tuple[int, tuple[int, ...]]] = {}
        start = 0
        for name, shape, _ in self.blocks:
            self.offsets[name] = (start, shape)
            start += int(np.prod(shape))
        self.size = start

    def new(self) -> tuple[np.ndarray, dict[str, np.ndarray]]:
        """A zero vector and a view of each block in its shape."""
        vector = np.zeros(self.size, np.float32)
        views = {name: vector[s : s + int(np.prod(shape))].reshape(shape)
                 for name, (s, shape) in self.offsets.items()}
        return vector, views

    def table(self) -> str:
        """The layout as a Markdown table (docs/envs.md is written from it)."""
        rows = ["| block | offset | shape | meaning |", "| --- | --- | --- | --- |"]
        for name, shape, meaning in self.blocks:
            start = self.offsets[name][0]
            rows.append(f"| `{name}` | {start} | {'x'.join(map(str, shape))} | {meaning} |")
        return "\n".join(rows)
