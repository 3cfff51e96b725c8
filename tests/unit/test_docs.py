"""The docs hold together: the generated tables are what the code gives,
every relative link resolves, no table is split by a blank line, and the
README keeps to its size and runs the commands CI runs."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tools import reference_pages
from torch_conformance.oracles.core.verdicts import ABOUT, VERDICTS

CHECKOUT = Path(__file__).resolve().parents[2]
PAGES = sorted(
    [
        CHECKOUT / "README.md",
        CHECKOUT / "CONTRIBUTING.md",
        CHECKOUT / "CHANGELOG.md",
        CHECKOUT / "src" / "torch_conformance" / "upstream" / "README.md",
        CHECKOUT / "benchmarks" / "RESULTS.md",
        *(CHECKOUT / "docs").rglob("*.md"),
    ]
)
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)")
FENCE = re.compile(r"^```.*?^```", re.M | re.S)
SPAN = re.compile(r"`[^`\n]*`")


def _prose(text: str) -> str:
    """``text`` without its code: fenced blocks become blank lines, so
    line numbers hold, and code spans go."""
    text = FENCE.sub(lambda m: "\n" * m.group(0).count("\n"), text)
    return SPAN.sub("", text)


def _anchors(page: Path) -> set[str]:
    """The anchors GitHub gives ``page``'s headings."""
    anchors: set[str] = set()
    for heading in re.findall(r"^#+ (.+)$", FENCE.sub("", page.read_text()), re.M):
        text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading).replace("`", "")
        slug = re.sub(r"[^\w\- ]", "", text.strip().lower()).replace(" ", "-")
        anchor, n = slug, 0
        while anchor in anchors:
            n += 1
            anchor = f"{slug}-{n}"
        anchors.add(anchor)
    return anchors


def test_the_generated_tables_are_current():
    stale = [str(page.relative_to(CHECKOUT)) for page in reference_pages.stale()]
    assert stale == [], f"{', '.join(stale)}: stale; run {reference_pages.COMMAND}"


def test_every_verdict_has_its_line_in_the_reference():
    assert set(ABOUT) == set(VERDICTS)
    text = (CHECKOUT / "docs" / "reference" / "verdicts.md").read_text()
    assert [v for v in VERDICTS if f"`[{v}]`" not in text] == []


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(CHECKOUT)))
def test_every_relative_link_resolves(page: Path):
    broken = []
    for target in LINK.findall(_prose(page.read_text())):
        if re.match(r"[a-z][a-z0-9+.-]*:", target):  # https:, mailto:
            continue
        path, _, anchor = target.partition("#")
        linked = (page.parent / path).resolve() if path else page
        if not linked.exists():
            broken.append(target)
        elif anchor and linked.suffix == ".md" and anchor not in _anchors(linked):
            broken.append(f"{target} (no such heading)")
    assert broken == [], f"{page.relative_to(CHECKOUT)}: {broken}"


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(CHECKOUT)))
def test_no_table_is_split_by_a_blank_line(page: Path):
    lines = _prose(page.read_text()).splitlines()
    split = [
        number + 1
        for number in range(1, len(lines) - 1)
        if not lines[number].strip()
        and lines[number - 1].startswith("|")
        and lines[number + 1].startswith("|")
    ]
    assert split == [], f"{page.relative_to(CHECKOUT)}: a blank line splits a table at {split}"


def test_the_readme_is_short_and_shows_both_routes_early():
    lines = (CHECKOUT / "README.md").read_text().splitlines()
    assert len(lines) <= 250
    first = "\n".join(lines[:120])
    assert "--specs-from=" in first and "--specs=" in first


def test_ci_runs_the_readmes_test_commands():
    readme = (CHECKOUT / "README.md").read_text()
    run = (CHECKOUT / ".ci" / "run").read_text()
    ci = re.findall(r"^\(?(?:cd \S+ && )?((?:torch-conformance check|pytest) [^)\n]*)", run, re.M)
    assert ci == [
        "torch-conformance check --hypothesis-profile=ci -n 2 --dist worksteal",
        "pytest tests -n 2 --dist worksteal",
    ]
    assert all(command in readme for command in ci)
