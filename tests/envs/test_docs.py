"""docs/envs.md stays true: its encoding tables are the code's, and its examples run."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

pytest.importorskip("pyspiel", reason="needs the envs extra (pip install -e '.[envs]')")

from cardtable.envs import scout_codec, solo_codec  # noqa: E402

DOC = (Path(__file__).resolve().parents[2] / "docs" / "envs.md").read_text()


def test_the_observation_tables_are_the_layouts() -> None:
    assert solo_codec.LAYOUT.table() in DOC
    assert scout_codec.LAYOUT.table() in DOC
    assert f"SOLO: {solo_codec.LAYOUT.size} values" in DOC
    assert f"SOLO: {solo_codec.NUM_TOKENS} tokens" in DOC
    assert f"SCOUT: {scout_codec.NUM_TOKENS} tokens" in DOC


@pytest.mark.parametrize("index", [0, 1, 2, 3, 4, 5, 6])
def test_the_ten_line_examples_run(index: int, capsys: pytest.CaptureFixture[str]) -> None:
    examples = re.findall(r"```python\n(.*?)```", DOC, re.S)
    assert len(examples) == 7
    code = examples[index]
    assert len(code.strip().splitlines()) <= 16
    if "sb3_contrib" in code:  # the Stable-Baselines3 example: the train extra, not in CI
        pytest.importorskip("sb3_contrib", reason="needs the train extra (pip install -e '.[train]')")
    exec(compile(code, f"docs/envs.md example {index}", "exec"), {})
    assert capsys.readouterr().out.startswith("[")
