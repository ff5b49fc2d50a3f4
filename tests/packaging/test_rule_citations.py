"""The repository stands alone: rules are cited by the numbers of docs/rules.md, and no file cites
the rules or design pages the project was started from, which are not in the repository.

A citation is ``docs/rules.md`` and a number (``docs/rules.md 1.8.18``, ``docs/rules.md section 2``),
with any further numbers after a comma or "and" (``docs/rules.md 1.8.6, 1.8.14-16``). Each must be a
number the page defines: a section ``## N.``, a subsection ``### N.M``, or item ``K.`` of a numbered
list in subsection ``N.M`` (``N.M.K``). docs/rules-notes.md and docs/rules.md itself cite bare
numbers ("(1.8.17)"); every dotted number on those two pages is checked too. One form only: a short
"rules 1.8.18" is refused. The files are git's: tracked, or new and not ignored.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
RULES = ROOT / "docs" / "rules.md"
SELF = Path(__file__).resolve().relative_to(ROOT).as_posix()
BARE_NUMBER_PAGES = ("docs/rules.md", "docs/rules-notes.md")

OUTSIDE = re.compile(r"\b(?:RULES|DESIGN)(?:\.md\b| \d)")
NUMBER = r"\d+(?:\.\d+)*(?:-\d+)?"
CITATION = re.compile(rf"docs/rules\.md(?: section)? ({NUMBER})((?:(?:,| and) \d+\.\d+(?:\.\d+)*(?:-\d+)?)*)")
SHORT_FORM = re.compile(r"(?<![\w/.-])[Rr]ules? (?:section )?\d+(?:\.\d+)+")
BARE = re.compile(r"(?<![\w./-])\d+\.\d+(?:\.\d+)*(?:-\d+)?")


def defined_numbers(page: str) -> set[str]:
    """The numbers ``page`` defines: its sections, subsections and numbered items."""
    found: set[str] = set()
    subsection = ""
    for line in page.splitlines():
        if m := re.match(r"## (\d+)\. ", line):
            found.add(m[1])
            subsection = ""
        elif m := re.match(r"### (\d+\.\d+) ", line):
            found.add(m[1])
            subsection = m[1]
        elif subsection and (m := re.match(r"(\d+)\. ", line)):
            found.add(f"{subsection}.{m[1]}")
    return found


def expand(number: str) -> list[str]:
    """``1.8.14-16`` is 1.8.14, 1.8.15 and 1.8.16; a plain number is itself."""
    if "-" not in number:
        return [number]
    first, last = number.split("-")
    stem, low = first.rsplit(".", 1)
    return [f"{stem}.{k}" for k in range(int(low), int(last) + 1)] or [number]


def cited_numbers(text: str) -> list[tuple[int, str]]:
    """(line, number) for each number ``text`` cites as a rule of docs/rules.md."""
    cited = []
    for m in CITATION.finditer(text):
        line = text.count("\n", 0, m.start()) + 1
        for number in [m[1], *re.findall(NUMBER, m[2])]:
            cited += [(line, n) for n in expand(number)]
    return cited


def problems(name: str, text: str, defined: set[str]) -> list[str]:
    """What is wrong with the citations of one file, one line each."""
    found = [f"{name}:{text.count(chr(10), 0, m.start()) + 1}: cites {m[0]!r}, a page outside the "
             "repository (cite docs/rules.md, or the doc that holds the content)"
             for m in OUTSIDE.finditer(text)]
    found += [f"{name}:{text.count(chr(10), 0, m.start()) + 1}: {m[0]!r}: cite as 'docs/rules.md N'"
              for m in SHORT_FORM.finditer(text)]
    cited = cited_numbers(text)
    if name in BARE_NUMBER_PAGES:
        cited += [(text.count("\n", 0, m.start()) + 1, n) for m in BARE.finditer(text) for n in expand(m[0])]
    found += [f"{name}:{line}: {number} is no number of docs/rules.md"
              for line, number in cited if number not in defined]
    return found


def repository_files() -> list[str]:
    listed = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard"],
                            cwd=ROOT, capture_output=True, text=True, check=True).stdout
    return sorted(name for name in listed.splitlines() if (ROOT / name).is_file())


def text_of(name: str) -> str | None:
    try:
        return (ROOT / name).read_text(encoding="utf-8")
    except UnicodeDecodeError:  # model weights and other binary files
        return None


def test_no_file_cites_a_page_outside_the_repository_or_an_undefined_rule() -> None:
    defined = defined_numbers(RULES.read_text(encoding="utf-8"))
    files = [name for name in repository_files() if name != SELF]  # its examples are bad on purpose
    assert "engine/solo/state.py" in files and "docs/rules-notes.md" in files
    texts = {name: text for name in files if (text := text_of(name)) is not None}
    found = [problem for name, text in texts.items() for problem in problems(name, text, defined)]
    assert not found, "\n".join(found)


def test_the_rules_page_numbers_every_part_in_order() -> None:
    """The parser reads the page: both games, each subsection and each list counted 1, 2, ...
    without a gap, and the rules the code cites most are there."""
    defined = defined_numbers(RULES.read_text(encoding="utf-8"))
    assert {"1", "2", "1.2.1", "1.5.2", "1.8.1", "1.8.18", "2.3.3", "2.6.1", "2.7.5"} <= defined
    parts = [n.rpartition(".") for n in defined]
    for parent in {parent for parent, _, _ in parts}:
        children = sorted(int(last) for up, _, last in parts if up == parent)
        assert children == list(range(1, len(children) + 1)), (parent or "sections", children)


def test_the_checks_catch_bad_citations() -> None:
    defined = defined_numbers(RULES.read_text(encoding="utf-8"))
    old_page, design = "RUL" + "ES.md", "DESI" + "GN.md"  # spelt apart so this file does not cite them
    text = (f'"""A fine point ({old_page} 1.8.6), the shuffle of {design} section 4."""\n'
            "# docs/rules.md 1.8.6, 1.8.14-16, 2.6.1 and 2.7.4 resolve; docs/rules.md section 2 too\n"
            "# docs/rules.md 1.8.19 and docs/rules.md 1.8.17-20, and docs/rules.md section 3 do not\n"
            "# rules 1.8.18 is the short form\n")
    assert problems("engine/x.py", text, defined) == [
        f"engine/x.py:1: cites '{old_page}', a page outside the repository (cite docs/rules.md, or the doc "
        "that holds the content)",
        f"engine/x.py:1: cites '{design}', a page outside the repository (cite docs/rules.md, or the doc "
        "that holds the content)",
        "engine/x.py:4: 'rules 1.8.18': cite as 'docs/rules.md N'",
        "engine/x.py:3: 1.8.19 is no number of docs/rules.md",
        "engine/x.py:3: 1.8.19 is no number of docs/rules.md",
        "engine/x.py:3: 1.8.20 is no number of docs/rules.md",
        "engine/x.py:3: 3 is no number of docs/rules.md"]
    assert problems("docs/rules-notes.md", "read with (1.8.6, 1.8.30); 2.2.3 too\n", defined) == [
        "docs/rules-notes.md:1: 1.8.30 is no number of docs/rules.md"]
    assert problems("docs/other.md", "took 1.8.30 s\n", defined) == []
