"""Everything imports the installed names (``cardtable.engine`` ...), never the repository's
folders: in the tree both would work, in a wheel only the first does."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FOLDERS = {"engine", "ai", "p2p", "cli", "envs"}


def top_level_imports(path: Path) -> list[str]:
    found = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found += [alias.name for alias in node.names if alias.name.split(".")[0] in FOLDERS]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            if node.module.split(".")[0] in FOLDERS:
                found.append(node.module)
    return found


def test_no_module_imports_a_folder_by_its_repository_name() -> None:
    sources = [p for folder in [*FOLDERS, "tests", "bench", "examples"]
               for p in sorted((ROOT / folder).rglob("*.py"))]
    assert len(sources) > 100
    wrong = {str(p.relative_to(ROOT)): names for p in sources if (names := top_level_imports(p))}
    assert not wrong, wrong
