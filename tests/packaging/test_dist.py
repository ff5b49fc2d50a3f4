"""The distributions as a user gets them: an sdist, a wheel built from it, a fresh venv outside
the tree. Needs the package index (CI has it) and a C compiler; takes about two minutes."""

from __future__ import annotations

import os
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def run(*cmd: str | Path, cwd: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(c) for c in cmd], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=600)


def checked(*cmd: str | Path, cwd: Path, env: dict[str, str] | None = None) -> str:
    done = run(*cmd, cwd=cwd, env=env)
    assert done.returncode == 0, f"{cmd} failed:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    return done.stdout


@pytest.fixture(scope="module")
def sdist(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("sdist")
    checked(sys.executable, "-m", "build", "--sdist", "--outdir", out, ROOT, cwd=out)
    (path,) = out.glob("cardtable-*.tar.gz")
    return path


def wheel_from(sdist: Path, out: Path, env: dict[str, str] | None = None) -> Path:
    checked(sys.executable, "-m", "pip", "wheel", "--no-deps", "--wheel-dir", out, sdist, cwd=out, env=env)
    (path,) = out.glob("cardtable-*.whl")
    return path


def fresh_venv(where: Path, wheel: Path) -> Path:
    checked(sys.executable, "-m", "venv", where / "venv", cwd=where)
    checked(where / "venv" / "bin" / "pip", "install", "-q", wheel, cwd=where)
    return where / "venv" / "bin" / "cardtable"


def test_sdist_carries_the_cython_sources_and_no_generated_c(sdist: Path) -> None:
    with tarfile.open(sdist) as tar:
        names = {Path(n).relative_to(Path(n).parts[0]).as_posix() for n in tar.getnames() if "/" in n}
    assert {"ai/_search.pyx", "ai/_search.pxd", "ai/_ismcts.pxi", "ai/_solo.pxi", "ai/_scout.pxi"} <= names
    assert "docs/rules-notes.md" in names
    assert {"examples/json_bot.py", "examples/json_bot.js", "examples/python_bot.py"} <= names
    assert "ai/weights/scout-4p.json" in names
    assert not [n for n in names if n.endswith((".c", ".so"))]


def test_wheel_from_the_sdist_has_the_search_and_plays_outside_the_tree(
        sdist: Path, tmp_path: Path) -> None:
    wheel = wheel_from(sdist, tmp_path)
    names = zipfile.ZipFile(wheel).namelist()
    assert [n for n in names if n.startswith("cardtable/ai/_search.") and n.endswith(".so")]
    assert not [n for n in names if n.endswith((".c", ".pyx", ".pxi", ".pxd"))]
    assert "cardtable/docs/rules-notes.md" in names
    assert {"cardtable/examples/json_bot.py", "cardtable/examples/json_bot.js"} <= set(names)
    assert "cardtable/ai/weights/scout-4p.json" in names
    tops = {n.split("/")[0] for n in names if not n.startswith("cardtable-")}
    assert tops == {"cardtable"}, f"installs beside cardtable/: {tops - {'cardtable'}}"

    cardtable = fresh_venv(tmp_path, wheel)
    out = checked(cardtable, "match", "solo", "--players", "3", "--games", "1", "--seed", "5",
                  "--bots", "ismcts:fast,heuristic,random", cwd=tmp_path)
    assert "ismcts:fast" in out
    checked(cardtable, "bot", "new", "python", tmp_path / "mine", cwd=tmp_path)  # copied from the wheel
    out = checked(cardtable, "match", "solo", "--players", "2", "--games", "1", "--seed", "5",
                  "--bots", f"me=cmd:{sys.executable} {tmp_path / 'mine' / 'bot.py'},heuristic", cwd=tmp_path)
    assert "faults" not in out


def test_without_a_c_compiler_it_installs_and_says_the_search_is_missing(
        sdist: Path, tmp_path: Path) -> None:
    env = {**os.environ, "CC": "/bin/false", "LDSHARED": "/bin/false"}
    wheel = wheel_from(sdist, tmp_path, env)
    assert not [n for n in zipfile.ZipFile(wheel).namelist() if n.endswith(".so")]

    cardtable = fresh_venv(tmp_path, wheel)
    checked(cardtable, "match", "solo", "--players", "2", "--games", "1", "--seed", "5",
            "--bots", "heuristic,random", cwd=tmp_path)
    done = run(cardtable, "match", "solo", "--players", "2", "--games", "1", "--bots", "ismcts:fast,random",
               cwd=tmp_path)
    assert done.returncode != 0
    assert "Traceback" not in done.stderr
    (line,) = done.stderr.strip().splitlines()
    assert "compiled search" in line and "C compiler" in line
