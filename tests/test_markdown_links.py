"""Every link between the repository's Markdown files leads somewhere.

Each Markdown file of the repository (README, CONTRIBUTING, docs/, benchmarks/...) is read;
every relative link or image (``[text](docs/audit.md#reports)``) must name a file or folder
that exists, and its ``#anchor`` a heading of the Markdown file it names (the site's
heading ids); every file name in a code span that reads as a path (``docs/audit.md``,
``DESIGN.md``) must exist too, beside the file or at the repository's root. Addresses on
other hosts are not fetched (the tests run offline).
"""

from __future__ import annotations

import re
import subprocess
from functools import cache
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
#: Folders that hold no Markdown of the project's own.
SKIPPED = {".git", ".venv", "venv", "site", "test-artifacts", "node_modules", ".mypy_cache"}
LINK = re.compile(r"!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
CODE_PATH = re.compile(r"`([\w./-]+\.md)(?:#[\w-]+)?`")
FENCE = re.compile(r"^(```|~~~).*?^\1", re.MULTILINE | re.DOTALL)


def markdown_files() -> list[Path]:
    """The repository's Markdown files (tracked by git when it can say, else found)."""
    try:
        listed = subprocess.run(
            ["git", "ls-files", "*.md"], cwd=REPO, capture_output=True, text=True, check=True
        ).stdout.split()
        found = [REPO / name for name in listed if (REPO / name).is_file()]
    except (OSError, subprocess.CalledProcessError):
        found = []
    if not found:
        found = [p for p in REPO.rglob("*.md") if not SKIPPED & set(p.relative_to(REPO).parts)]
    return sorted(found)


def slug(heading: str) -> str:
    """A heading's id as the site makes it (Python-Markdown's ``toc`` slugify).

    Examples
    --------
    >>> slug("Which rule set does my organization follow?")
    'which-rule-set-does-my-organization-follow'
    """
    text = re.sub(r"`|\*|_(?=\W)|(?<=\W)_", "", heading)
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)
    text = re.sub(r"[^\w\s-]", "", text).strip().lower()
    return re.sub(r"[-\s]+", "-", text)


@cache
def anchors(path: Path) -> frozenset[str]:
    """The heading ids of a Markdown file (and explicit ``{#id}`` / ``id="..."`` ones)."""
    text = FENCE.sub("", path.read_text(encoding="utf-8"))
    found = {slug(m.group(1)) for m in re.finditer(r"^#{1,6}\s+(.+?)\s*#*$", text, re.MULTILINE)}
    found |= set(re.findall(r"\{#([\w-]+)\}", text))
    found |= set(re.findall(r'id="([\w-]+)"', text))
    return frozenset(found)


def problems(path: Path) -> list[str]:
    """What is wrong with the links of one Markdown file."""
    text = FENCE.sub("", path.read_text(encoding="utf-8"))
    wrong = []
    for target in LINK.findall(text):
        if re.match(r"^[a-z][a-z0-9+.-]*:", target):  # http:, https:, mailto:
            continue
        name, _, anchor = target.partition("#")
        where = (path.parent / name).resolve() if name else path
        if not where.exists():
            wrong.append(f"{target}: no such file")
        elif anchor and where.suffix == ".md" and anchor not in anchors(where):
            wrong.append(f"{target}: no heading #{anchor} in {where.name}")
    for name in CODE_PATH.findall(text):
        if not ((path.parent / name).exists() or (REPO / name).exists()):
            wrong.append(f"`{name}`: no such file")
    return wrong


FILES = markdown_files()


def test_the_repository_has_its_markdown_files():
    names = {p.relative_to(REPO).as_posix() for p in FILES}
    assert {"README.md", "CONTRIBUTING.md", "docs/audit.md"} <= names


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.relative_to(REPO).as_posix())
def test_every_link_of_a_markdown_file_leads_somewhere(path):
    assert problems(path) == []


def test_a_broken_link_is_found(tmp_path):
    page = tmp_path / "page.md"
    (tmp_path / "other.md").write_text("# A heading\n", encoding="utf-8")
    page.write_text(
        "[ok](other.md#a-heading) [gone](missing.md) [anchor](other.md#nowhere) "
        "`DESIGN.md` [web](https://example.com/x)\n",
        encoding="utf-8",
    )
    assert problems(page) == [
        "missing.md: no such file",
        "other.md#nowhere: no heading #nowhere in other.md",
        "`DESIGN.md`: no such file",
    ]
