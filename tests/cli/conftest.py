"""Every CLI test gets its own config dir: nothing is written to the real one."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture(autouse=True)
def config_dir(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path_factory.mktemp("cardtable-home")
    monkeypatch.setenv("CARDTABLE_HOME", str(home))
    return home
