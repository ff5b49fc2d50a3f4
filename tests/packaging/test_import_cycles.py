"""No import circles between the project's modules: at run time or for types alike.

The graph has one edge per import of one project module by another, wherever the import
stands: at module level, inside a function or under ``if TYPE_CHECKING:``. Relative imports
are resolved, and ``from package import submodule`` is an edge to the submodule (the package's
``__init__`` runs first either way; it takes part only when a name is taken from it). The
compiled search (``ai/_search.pyx``) imports nothing of the project: a leaf. Any strongly
connected component of more than one module, or a module importing itself, fails the test,
which names a circle through it with the lines of its imports.

Imports are found line by line and each parsed by ``ast`` (``import_statements``), which keeps
the test well under a second; the whole syntax tree of a few modules checks that scan.
"""

from __future__ import annotations

import ast
import re
from collections import deque
from collections.abc import Callable, Iterator
from collections.abc import Set as AbstractSet
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FOLDERS = ("engine", "ai", "cli", "p2p", "envs")
Graph = dict[str, dict[str, int]]  # module -> module it imports -> the line of the first such import


def modules(root: Path, folders: tuple[str, ...], top: str = "cardtable") -> dict[str, Path]:
    """Every ``.py`` module under ``folders`` by its installed name (``cardtable.p2p.peer``)."""
    found = {}
    for folder in folders:
        for path in sorted((root / folder).rglob("*.py")):
            parts = path.relative_to(root).with_suffix("").parts
            if parts[-1] == "__init__":
                parts = parts[:-1]
            found[".".join((top, *parts))] = path
    return found


def compiled(root: Path, folders: tuple[str, ...], top: str = "cardtable") -> set[str]:
    """The compiled modules (``.pyx``) under ``folders`` by their installed names."""
    return {".".join((top, *p.relative_to(root).with_suffix("").parts))
            for folder in folders for p in (root / folder).rglob("*.pyx")}


STATEMENT = re.compile(r"^[ \t]*(?:from[ \t]+[\w.]+[ \t]+import|import)[ \t][^\n(]*(?:\([^)]*\))?", re.M)
Statement = ast.Import | ast.ImportFrom


def import_statements(text: str) -> Iterator[Statement]:
    """The imports of a module, quickly: each line that begins one (at any indentation: in a
    function, under ``if TYPE_CHECKING:``), with its parenthesised names, parsed by ``ast`` alone.
    A line of a string that reads as an import counts too: that can only add edges."""
    for match in STATEMENT.finditer(text):
        try:
            tree = ast.parse(match.group().strip())
        except SyntaxError:
            continue  # prose
        line = text.count("\n", 0, match.start())
        for node in tree.body:
            assert isinstance(node, Statement)
            node.lineno += line
            yield node


def parsed_statements(text: str) -> Iterator[Statement]:
    """The imports of a module from its whole syntax tree (the slow way, to check the quick one)."""
    return (node for node in ast.walk(ast.parse(text)) if isinstance(node, Statement))


def import_graph(found: dict[str, Path], leaves: AbstractSet[str] = frozenset(), top: str = "cardtable",
                 scan: Callable[[str], Iterator[Statement]] = import_statements) -> Graph:
    """The edges between ``found`` modules; an import under ``top`` that names none of them (nor
    one of ``leaves``) is an error, so that nothing escapes the graph unseen."""
    graph: Graph = {name: {} for name in found}
    for name, path in found.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        targets: list[tuple[str, int]] = []
        for node in scan(path.read_text()):
            if isinstance(node, ast.Import):
                targets += [(alias.name, node.lineno) for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    parts = package.split(".")
                    base = ".".join(parts[:len(parts) - node.level + 1] + ([base] if base else []))
                for alias in node.names:
                    sub = f"{base}.{alias.name}"
                    targets.append((sub if sub in found or sub in leaves else base, node.lineno))
        for target, line in targets:
            if target in found:
                graph[name].setdefault(target, line)
            elif target.split(".")[0] == top and target not in leaves:
                raise AssertionError(f"{path}:{line}: import of {target}, which is no module of the project")
    return graph


def components(graph: Graph) -> list[list[str]]:
    """Strongly connected components of more than one module, and modules importing themselves
    (Tarjan's algorithm, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found = []
    for start in graph:
        if start in index:
            continue
        work = [(start, iter(graph[start]))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, edges = work[-1]
            for nxt in edges:
                if nxt not in index:
                    index[nxt] = low[nxt] = len(index)
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, iter(graph[nxt])))
                    break
                if nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    part = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        part.append(member)
                        if member == node:
                            break
                    if len(part) > 1 or node in graph[node]:
                        found.append(sorted(part))
    return found


def circle(graph: Graph, part: list[str]) -> str:
    """A shortest circle through the component's first module, with the line of each import."""
    start, inside = part[0], set(part)
    came: dict[str, str] = {}
    queue = deque([start])
    while queue:
        node = queue.popleft()
        if start in graph[node]:
            path = [start]
            while node != start:
                path.insert(1, node)
                node = came[node]
            path.append(start)
            steps = [f"{a} (line {graph[a][b]})" for a, b in zip(path, path[1:], strict=False)]
            return " -> ".join([*steps, start])
        for nxt in graph[node]:
            if nxt in inside and nxt not in came:
                came[nxt] = node
                queue.append(nxt)
    raise AssertionError(f"no circle through {start}")  # not a component


def circles(root: Path, folders: tuple[str, ...]) -> list[str]:
    graph = import_graph(modules(root, folders), compiled(root, folders))
    return [f"{len(part)} modules ({', '.join(part)}): {circle(graph, part)}" for part in components(graph)]


def test_no_import_circle_between_the_project_modules() -> None:
    found = circles(ROOT, FOLDERS)
    assert not found, "import circles (give the lower module a narrow interface):\n" + "\n".join(found)


def test_the_graph_holds_the_project_imports() -> None:
    graph = import_graph(modules(ROOT, FOLDERS), compiled(ROOT, FOLDERS))
    assert len(graph) > 100
    assert "cardtable.p2p.replication" in graph["cardtable.p2p.peer"]  # module level
    assert "cardtable.ai.plugins" in graph["cardtable.ai.bots"]  # inside a function
    assert "cardtable.ai.heuristic_solo" in graph["cardtable.ai.heuristic"]  # from package import submodule
    assert "cardtable.ai" not in graph["cardtable.ai.heuristic"]


def test_the_quick_scan_finds_what_the_syntax_tree_holds() -> None:
    """On modules with imports at module level, in functions, under ``if TYPE_CHECKING:``, in
    parentheses over several lines, and relative ones."""
    for path in ("p2p/peer.py", "p2p/peer_state.py", "p2p/admission.py", "engine/scout/__init__.py",
                 "ai/bots.py", "ai/tournament.py", "envs/pettingzoo_env.py"):
        text = (ROOT / path).read_text()
        quick, slow = ([(n.lineno, ast.dump(n)) for n in scan(text)]
                       for scan in (import_statements, parsed_statements))
        assert quick and sorted(quick) == sorted(slow), path


def write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)


def test_a_circle_in_a_small_package_is_found_and_named(tmp_path: Path) -> None:
    write(tmp_path, {
        "pkg/__init__.py": "from cardtable.pkg.a import A\n",  # the package's face: no circle
        "pkg/a.py": "def f():\n    from cardtable.pkg import b\n    return b\nA = 1\n",
        "pkg/b.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .c import C\n",
        "pkg/c.py": "from ..pkg import a\nC = 1\n",
        "pkg/d.py": "from cardtable.pkg import a, b\nimport cardtable.pkg.c\n",  # uses the circle, not in it
        "pkg/e.py": "from cardtable.pkg import A\n",  # takes a name from the package: an edge to it
    })
    graph = import_graph(modules(tmp_path, ("pkg",)))
    assert graph["cardtable.pkg.c"] == {"cardtable.pkg.a": 1}
    assert graph["cardtable.pkg.e"] == {"cardtable.pkg": 1}
    assert components(graph) == [["cardtable.pkg.a", "cardtable.pkg.b", "cardtable.pkg.c"]]
    assert circles(tmp_path, ("pkg",)) == [
        "3 modules (cardtable.pkg.a, cardtable.pkg.b, cardtable.pkg.c): cardtable.pkg.a (line 2)"
        " -> cardtable.pkg.b (line 3) -> cardtable.pkg.c (line 1) -> cardtable.pkg.a"]


def test_a_module_importing_itself_or_the_package_face_is_a_circle(tmp_path: Path) -> None:
    write(tmp_path, {"pkg/__init__.py": "from .a import A\n",
                     "pkg/a.py": "from cardtable.pkg import a\nA = 1\n",
                     "pkg/b.py": "def g():\n    from cardtable.pkg import A\n    return A\n"})
    assert components(import_graph(modules(tmp_path, ("pkg",)))) == [["cardtable.pkg.a"]]
    write(tmp_path, {"pkg/a.py": "from .b import g\nA = 1\n"})  # a -> b -> the package -> a
    assert circles(tmp_path, ("pkg",)) == [
        "3 modules (cardtable.pkg, cardtable.pkg.a, cardtable.pkg.b): cardtable.pkg (line 1)"
        " -> cardtable.pkg.a (line 1) -> cardtable.pkg.b (line 2) -> cardtable.pkg"]


def test_an_import_of_no_module_fails(tmp_path: Path) -> None:
    write(tmp_path, {"pkg/__init__.py": "", "pkg/a.py": "from cardtable.pkg.gone import x\n"})
    try:
        import_graph(modules(tmp_path, ("pkg",)))
    except AssertionError as err:
        assert "a.py:1: import of cardtable.pkg.gone" in str(err)
    else:
        raise AssertionError("an import of a missing module passed")
