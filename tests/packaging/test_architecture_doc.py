"""docs/architecture.md stays true: the files it names exist, its rooms table is the import
graph between the rooms, and each ``Class.method`` it names is defined in a file it names.

The graph is ``test_import_cycles``'s (compiled modules taken in as modules, so that an import of
``cardtable.ai._search`` counts); ``bench/``, outside the package, is read with its import scan.
"""

from __future__ import annotations

import ast
import re
from functools import cache
from pathlib import Path

from tests.packaging.test_import_cycles import (
    FOLDERS,
    ROOT,
    compiled,
    import_graph,
    import_statements,
    modules,
)

DOC = ROOT / "docs" / "architecture.md"
ROOMS = (*FOLDERS, "bench")
Imports = dict[str, dict[str, str]]  # room -> room it imports -> where first seen ("module line N")


def room_imports(root: Path) -> Imports:
    """Which rooms each room imports (itself left out), with one import that shows it."""
    found = modules(root, FOLDERS)
    for name in compiled(root, FOLDERS):
        found[name] = root.joinpath(*name.split(".")[1:]).with_suffix(".pyx")
    rooms: Imports = {room: {} for room in ROOMS}
    for name, targets in import_graph(found).items():
        for target, line in targets.items():
            if target.split(".")[1] != name.split(".")[1]:
                rooms[name.split(".")[1]].setdefault(target.split(".")[1], f"{name} line {line}")
    for path in sorted((root / "bench").rglob("*.py")):
        for node in import_statements(path.read_text()):
            if isinstance(node, ast.ImportFrom):
                names = [node.module or ""] if node.level == 0 else []
                if node.module == "cardtable":
                    names = [f"cardtable.{alias.name}" for alias in node.names]
            else:
                names = [alias.name for alias in node.names]
            for module in names:
                parts = module.split(".")
                if parts[0] == "cardtable" and len(parts) > 1:
                    rooms["bench"].setdefault(parts[1], f"{path.relative_to(root)} line {node.lineno}")
    return rooms


def section(text: str, title: str) -> str:
    return text.split(f"\n## {title}\n", 1)[1].split("\n## ", 1)[0]


def doc_rooms(text: str) -> dict[str, set[str]]:
    """The rooms table: each room's row and the rooms its last column names."""
    rows = re.findall(r"^\| `(\w+)/` \|.*\| ([^|]*) \|$", section(text, "The rooms"), re.M)
    return {room: set(re.findall(r"`(\w+)`", cell)) for room, cell in rows}


def table_problems(text: str, real: Imports) -> list[str]:
    table = doc_rooms(text)
    problems = [f"{room}/ has no row in the rooms table" for room in ROOMS if room not in table]
    for room, listed in table.items():
        if room not in real:
            problems.append(f"the rooms table has a row for {room}/, which is no room")
            continue
        problems += [f"{room} imports {other} ({where}), which the rooms table does not list"
                     for other, where in sorted(real[room].items()) if other not in listed]
        problems += [f"the rooms table says {room} imports {other}, but nothing in {room}/ does"
                     for other in sorted(listed - set(real[room]))]
    return problems


def named_paths(text: str) -> list[str]:
    """Every repository path the page names in backticks (``p2p/table.py``, ``p2p/hidden/``)."""
    return sorted(set(re.findall(r"`((?:[\w.-]+/)+[\w.-]*)`", text)))


def path_problems(text: str, root: Path) -> list[str]:
    return [f"{path} is named but does not exist" for path in named_paths(text) if not (root / path).exists()]


@cache
def defined_methods(path: Path) -> frozenset[str]:
    """``Class.method`` for every method defined in the body of a class of ``path``."""
    tree = ast.parse(path.read_text())
    return frozenset(f"{node.name}.{item.name}" for node in ast.walk(tree) if isinstance(node, ast.ClassDef)
                     for item in node.body if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef))


def method_problems(text: str, root: Path) -> list[str]:
    files = [root / p for p in named_paths(text) if p.endswith(".py") and (root / p).is_file()]
    defined = frozenset().union(*(defined_methods(f) for f in files))
    named = sorted(set(re.findall(r"`([A-Z]\w*\.\w+)`", text)))
    return [f"{name} is named, but no file the page names defines it"
            for name in named if name not in defined]


def test_the_rooms_table_is_the_import_graph_between_rooms() -> None:
    real = room_imports(ROOT)
    assert real["engine"] == {}  # the page says so in words too
    assert not table_problems(DOC.read_text(), real), "\n".join(table_problems(DOC.read_text(), real))


def test_every_path_the_page_names_exists() -> None:
    text = DOC.read_text()
    assert len(named_paths(text)) > 30
    assert not path_problems(text, ROOT), "\n".join(path_problems(text, ROOT))


def test_every_method_the_page_names_is_defined_where_it_says() -> None:
    text = DOC.read_text()
    assert len(re.findall(r"`([A-Z]\w*\.\w+)`", text)) > 20
    assert not method_problems(text, ROOT), "\n".join(method_problems(text, ROOT))


def test_the_checks_catch_a_page_that_drifts() -> None:
    text = DOC.read_text()
    real = room_imports(ROOT)
    p2p_row = next(line for line in text.splitlines() if line.startswith("| `p2p/` |"))
    engine_row = next(line for line in text.splitlines() if line.startswith("| `engine/` |"))
    drifted = text.replace(p2p_row, p2p_row.replace(", `ai` |", " |")) \
        .replace(engine_row, engine_row.replace("| none |", "| `cli` |"))
    assert table_problems(drifted, real) == [
        "the rooms table says engine imports cli, but nothing in engine/ does",
        f"p2p imports ai ({real['p2p']['ai']}), which the rooms table does not list"]
    no_bench = text.replace("| `bench/` |", "| bench |")
    assert table_problems(no_bench, real) == ["bench/ has no row in the rooms table"]
    gone = text.replace("`p2p/table.py`", "`p2p/tables.py`").replace("`Roster.admit`", "`Roster.admits`")
    assert path_problems(gone, ROOT) == ["p2p/tables.py is named but does not exist"]
    assert method_problems(gone, ROOT) == ["Roster.admits is named, but no file the page names defines it",
                                           "TableState._act is named, but no file the page names defines it",
                                           "TableState._keys is named, but no file the page names defines it",
                                           "TableState._move is named, but no file the page names defines it",
                                           "TableState.apply is named, but no file the page names defines it"]


def test_an_import_across_rooms_shows_in_the_room_graph(tmp_path: Path) -> None:
    for folder in FOLDERS:
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "__init__.py").write_text("")
    (tmp_path / "bench").mkdir()
    (tmp_path / "engine" / "rules.py").write_text("def f():\n    from cardtable.cli import tui\n")
    (tmp_path / "cli" / "tui.py").write_text("from cardtable.engine.rules import f\n")
    (tmp_path / "ai" / "_core.pyx").write_text("# cython\nimport math\n")
    (tmp_path / "envs" / "vec.py").write_text("def g():\n    from cardtable.ai._core import Core\n")
    (tmp_path / "bench" / "run.py").write_text("from cardtable import p2p\nimport cardtable.envs.vec\n")
    assert room_imports(tmp_path) == {
        "engine": {"cli": "cardtable.engine.rules line 2"}, "ai": {}, "p2p": {},
        "cli": {"engine": "cardtable.cli.tui line 1"}, "envs": {"ai": "cardtable.envs.vec line 2"},
        "bench": {"p2p": "bench/run.py line 1", "envs": "bench/run.py line 2"}}
