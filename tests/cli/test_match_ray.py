"""``--ray``: the games as Ray tasks on a local cluster give the same results as a local run,
and resume a run streamed to --out. Needs the 'ray' extra; without it, one line says so."""

from __future__ import annotations

import json
import socket
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.cli.test_match_cli import run, without_timing

ARGS = ("match", "scout", "--players", "3", "--games", "6", "--seed", "31",
        "--bots", "heuristic,random,random", "--json")


@pytest.fixture
def ray_cluster() -> Iterator[None]:
    ray = pytest.importorskip("ray", reason="the 'ray' extra is not installed")
    yield
    ray.shutdown()


def test_a_local_ray_cluster_resumes_a_run_and_gives_the_local_result(
        capsys: pytest.CaptureFixture[str], tmp_path: Path, ray_cluster: None) -> None:
    full = tmp_path / "full.jsonl"
    code, local, _ = run(capsys, *ARGS, "--out", str(full))
    assert code == 0
    partial = tmp_path / "partial.jsonl"
    partial.write_text("".join(full.read_text().splitlines(keepends=True)[:3]))  # the header and two games
    code, on_ray, err = run(capsys, *ARGS, "--out", str(partial), "--resume", "--ray", "--workers", "2")
    assert code == 0, err
    assert without_timing(json.loads(on_ray)) == without_timing(json.loads(local))
    assert len(partial.read_text().splitlines()) == 1 + 6


def test_without_ray_the_option_says_what_to_install(capsys: pytest.CaptureFixture[str],
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)  # import ray now fails as if it were not installed
    code, out, err = run(capsys, *ARGS, "--ray")
    assert code == 2 and out == ""
    assert err.startswith("cardtable: error: Invalid value for --ray: Ray is not installed: "
                          "pip install 'cardtable[ray]'")
    assert len(err.strip().splitlines()) == 1


def free_port() -> int:
    """A loopback port that nothing listens on (bound, then released)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.mark.parametrize("address", ["127.0.0.1:{port}", "ray://127.0.0.1:{port}", "127.0.0.1", "nowhere:x"])
def test_an_address_where_no_cluster_answers_is_one_line_before_any_game(
        capsys: pytest.CaptureFixture[str], address: str) -> None:
    pytest.importorskip("ray", reason="the 'ray' extra is not installed")
    code, out, err = run(capsys, *ARGS, "--ray", address.format(port=free_port()))
    assert code == 2 and out == ""
    assert err.startswith("cardtable: error: Invalid value for --ray: ")
    assert "no Ray cluster answers at " in err or "is not HOST:PORT" in err
    assert len(err.strip().splitlines()) == 1
