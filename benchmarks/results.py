"""``benchmarks/RESULTS.md``: one section per benchmark, each rewritten
only by its own benchmark. Any Markdown page's block between
``<!-- begin NAME -->`` and ``<!-- end NAME -->`` is rewritten the same way
(the zoo's table, the reference pages' generated tables)."""

from __future__ import annotations

from pathlib import Path

RESULTS = Path(__file__).with_name("RESULTS.md")


def replaced(section: str, text: str, old: str) -> str:
    """``old`` with block ``section``'s text replaced by ``text`` (or the
    block appended)."""
    begin, end = f"<!-- begin {section} -->", f"<!-- end {section} -->"
    block = f"{begin}\n{text.strip()}\n{end}"
    if begin in old and end in old:
        return old[: old.index(begin)] + block + old[old.index(end) + len(end) :]
    return f"{old.rstrip()}\n\n{block}\n" if old.strip() else f"{block}\n"


def update(section: str, text: str, path: Path = RESULTS) -> None:
    """Replace benchmark ``section``'s text in RESULTS.md, or in the file at
    ``path`` (or append it)."""
    old = path.read_text() if path.exists() else ""
    path.write_text(replaced(section, text, old))
