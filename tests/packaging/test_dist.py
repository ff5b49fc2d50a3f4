"""The distributions as a user gets them: an sdist, wheels built from it (with and without a C
compiler), a fresh venv outside the tree. Needs the package index (CI has it) and a C compiler.
The two wheels build at once and the venv is made while the compiled one builds (the compiler is
the slow part, on one core): about two minutes in all."""

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


class Build:
    """``pip wheel`` of the sdist into ``out``, running in the background until ``wheel()``."""

    def __init__(self, sdist: Path, out: Path, env: dict[str, str] | None = None) -> None:
        self.out, self.log = out, out / "build.log"
        self.cmd = [sys.executable, "-m", "pip", "wheel", "--no-deps", "--wheel-dir", str(out), str(sdist)]
        with open(self.log, "w") as log:
            self.proc = subprocess.Popen(self.cmd, cwd=out, env=env, stdout=log, stderr=subprocess.STDOUT)

    def wheel(self) -> Path:
        try:
            self.proc.wait(timeout=600)
        finally:
            self.stop()
        assert self.proc.returncode == 0, f"{self.cmd} failed:\n{self.log.read_text()[-6000:]}"
        (path,) = self.out.glob("cardtable-*.whl")
        return path

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()


class Dist:
    """The sdist, the wheel built from it, the wheel built from it with no C compiler, and a
    fresh venv that installed one of them with its dependencies from the index."""

    def __init__(self, sdist: Path, compiled: Path, pure: Path, venv: Path) -> None:
        self.sdist, self.compiled, self.pure, self.venv = sdist, compiled, pure, venv

    def installed(self, wheel: Path, where: Path) -> Path:
        """``cardtable`` of the venv with ``wheel`` (and only it) installed as the cardtable."""
        pip = self.venv / "bin" / "pip"
        checked(pip, "install", "-q", "--force-reinstall", "--no-deps", wheel, cwd=where)
        return self.venv / "bin" / "cardtable"


@pytest.fixture(scope="module")
def dist(tmp_path_factory: pytest.TempPathFactory) -> Dist:
    out = tmp_path_factory.mktemp("sdist")
    checked(sys.executable, "-m", "build", "--sdist", "--outdir", out, ROOT, cwd=out)
    (sdist,) = out.glob("cardtable-*.tar.gz")
    no_compiler = {**os.environ, "CC": "/bin/false", "LDSHARED": "/bin/false"}
    compiled = Build(sdist, tmp_path_factory.mktemp("compiled"))
    pure = Build(sdist, tmp_path_factory.mktemp("pure"), no_compiler)
    try:
        pure_wheel = pure.wheel()
        where = tmp_path_factory.mktemp("venv")
        checked(sys.executable, "-m", "venv", where / "venv", cwd=where)
        checked(where / "venv" / "bin" / "pip", "install", "-q", pure_wheel, cwd=where)  # and what it needs
        return Dist(sdist, compiled.wheel(), pure_wheel, where / "venv")
    finally:
        compiled.stop()
        pure.stop()


def test_sdist_carries_the_cython_sources_and_no_generated_c(dist: Dist) -> None:
    with tarfile.open(dist.sdist) as tar:
        names = {Path(n).relative_to(Path(n).parts[0]).as_posix() for n in tar.getnames() if "/" in n}
    assert {"ai/_search.pyx", "ai/_search.pxd", "ai/_ismcts.pxi", "ai/_solo.pxi", "ai/_scout.pxi"} <= names
    assert "docs/rules-notes.md" in names
    assert {"examples/json_bot.py", "examples/json_bot.js", "examples/python_bot.py"} <= names
    assert "ai/weights/scout-4p.json" in names
    assert not [n for n in names if n.endswith((".c", ".so"))]


def test_wheel_from_the_sdist_has_the_search_and_plays_outside_the_tree(dist: Dist, tmp_path: Path) -> None:
    names = zipfile.ZipFile(dist.compiled).namelist()
    assert [n for n in names if n.startswith("cardtable/ai/_search.") and n.endswith(".so")]
    assert not [n for n in names if n.endswith((".c", ".pyx", ".pxi", ".pxd"))]
    assert "cardtable/docs/rules-notes.md" in names
    assert {"cardtable/examples/json_bot.py", "cardtable/examples/json_bot.js"} <= set(names)
    assert "cardtable/ai/weights/scout-4p.json" in names
    tops = {n.split("/")[0] for n in names if not n.startswith("cardtable-")}
    assert tops == {"cardtable"}, f"installs beside cardtable/: {tops - {'cardtable'}}"

    cardtable = dist.installed(dist.compiled, tmp_path)
    out = checked(cardtable, "match", "solo", "--players", "3", "--games", "1", "--seed", "5",
                  "--bots", "ismcts:fast,heuristic,random", cwd=tmp_path)
    assert "ismcts:fast" in out
    checked(cardtable, "bot", "new", "python", tmp_path / "mine", cwd=tmp_path)  # copied from the wheel
    out = checked(cardtable, "match", "solo", "--players", "2", "--games", "1", "--seed", "5",
                  "--bots", f"me=cmd:{sys.executable} {tmp_path / 'mine' / 'bot.py'},heuristic", cwd=tmp_path)
    assert "faults" not in out


def test_without_a_c_compiler_it_installs_and_says_the_search_is_missing(dist: Dist, tmp_path: Path) -> None:
    assert not [n for n in zipfile.ZipFile(dist.pure).namelist() if n.endswith(".so")]

    cardtable = dist.installed(dist.pure, tmp_path)
    checked(cardtable, "match", "solo", "--players", "2", "--games", "1", "--seed", "5",
            "--bots", "heuristic,random", cwd=tmp_path)
    done = run(cardtable, "match", "solo", "--players", "2", "--games", "1", "--bots", "ismcts:fast,random",
               cwd=tmp_path)
    assert done.returncode != 0
    assert "Traceback" not in done.stderr
    (line,) = done.stderr.strip().splitlines()
    assert "compiled search" in line and "C compiler" in line
