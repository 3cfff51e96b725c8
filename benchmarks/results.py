"""``benchmarks/RESULTS.md``: one section per benchmark, each rewritten
only by its own benchmark."""

from __future__ import annotations

from pathlib import Path

RESULTS = Path(__file__).with_name("RESULTS.md")


def update(section: str, text: str, path: Path = RESULTS) -> None:
    """Replace benchmark ``section``'s text in RESULTS.md, or in the file at
    ``path`` (or append it)."""
    begin, end = f"<!-- begin {section} -->", f"<!-- end {section} -->"
    old = path.read_text() if path.exists() else ""
    block = f"{begin}\n{text.strip()}\n{end}"
    if begin in old and end in old:
        new = old[: old.index(begin)] + block + old[old.index(end) + len(end) :]
    else:
        new = f"{old.rstrip()}\n\n{block}\n" if old.strip() else f"{block}\n"
    path.write_text(new)
