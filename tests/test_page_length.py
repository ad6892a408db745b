"""A guide page's main path stays short enough to finish (issue 25, "Pages a reader
can finish").

The main path is what a reader meets without a click: the page's prose outside the
blocks that pymdownx.details shows collapsed (``??? note "..."``; ``???+`` opens one,
so it counts), code excluded. Depth goes into those blocks or onto pages of its own.
Words are counted as ``wc -w`` counts them (whitespace-separated), outside the front
matter, HTML comments (``prose-values``, skip directives) and fenced code; the page's
height at 1280 px, where its code counts, is held by the browser tour
(tests/browser/test_pages.py).

Collapsed blocks must not hide code from the tests: a block inside ``??? note`` is
still collected and run, its skip directive still applies, and pymdownx still renders
its include.
"""

from __future__ import annotations

import re

import markdown
import pytest
from sybil import Document
from sybil.parsers.markdown import SkipParser

from ptdocs.downloads import guide_pages
from ptdocs.pages import Block, PageBlockParser, markdown_reader
from ptdocs.snippets import ROOT

MAX_WORDS = 3000
COMMENT = re.compile(r"<!--.*?-->", re.S)
FRONT_MATTER = re.compile(r"\A---\n.*?\n---\n", re.S)


def main_path(text: str) -> str:
    """The prose of a page a reader sees without opening a collapsed block."""
    text = COMMENT.sub("", FRONT_MATTER.sub("", text))
    hidden = set()  # fenced code and collapsed blocks, where markdown-it sees them
    for token in markdown_reader().parse(text):
        if token.type == "fence" or token.markup == "???" and token.nesting == 1:
            hidden.update(range(*token.map))
    lines = enumerate(text.split("\n"))
    return "\n".join(line for n, line in lines if n not in hidden)


def words(text: str) -> int:
    return len(main_path(text).split())


GUIDES = [
    page
    for page in guide_pages(ROOT)
    if page.parent.name in ("en", "es") and page.name != "index.md"
]


def test_there_are_guide_pages_in_both_languages():
    assert {page.parent.name for page in GUIDES} == {"en", "es"}
    assert len(GUIDES) >= 8, GUIDES


@pytest.mark.parametrize(
    "page", GUIDES, ids=lambda page: page.relative_to(ROOT).as_posix()
)
def test_the_main_path_of_a_guide_is_at_most_3000_words(page):
    count = words(page.read_text(encoding="utf-8"))
    assert count <= MAX_WORDS, (
        f"{page.relative_to(ROOT)}: {count} words on the main path, over {MAX_WORDS}: "
        "put depth "
        'that only some readers need into a collapsed block (??? note "...") or a '
        "page of its own"
    )


PAGE = """# A page

Seen.

??? example "Hidden"

    Hidden words here.

    <!-- skip: next if(True, reason="never here") -->
    ```python
    --8<-- "snippets/home/first_gradient.py"
    ```

    ```python
    --8<-- "snippets/home/first_gradient.py"
    ```

???+ note "Open"

    Open words.

Seen again.
"""


def test_the_main_path_leaves_out_collapsed_blocks_and_code():
    assert main_path(PAGE).split() == [
        "#",
        "A",
        "page",
        "Seen.",
        "???+",
        "note",
        '"Open"',
        "Open",
        "words.",
        "Seen",
        "again.",
    ]
    assert main_path("Seen.\n\n```text\nCode words.\n```\n").split() == ["Seen."]


def test_a_block_inside_a_collapsed_block_is_collected_skipped_and_rendered():
    document = Document(PAGE, str(ROOT / "docs" / "en" / "page.md"))
    skips = list(SkipParser()(document))
    blocks = list(PageBlockParser(ROOT)(document))
    assert len(skips) == 1 and len(blocks) == 2
    assert all(isinstance(block.parsed, Block) for block in blocks), [
        b.parsed for b in blocks
    ]
    assert skips[0].end <= blocks[0].start  # the skip is read before the block it skips
    assert blocks[0].parsed.includes[0].shown == blocks[1].parsed.includes[0].shown
    assert "x.grad" in "\n".join(blocks[0].parsed.includes[0].shown)
    html = markdown.markdown(
        PAGE,
        extensions=[
            "admonition",
            "pymdownx.details",
            "pymdownx.superfences",
            "pymdownx.highlight",
            "pymdownx.snippets",
        ],
        extension_configs={
            "pymdownx.snippets": {"base_path": [str(ROOT)], "check_paths": True}
        },
    )
    hidden = html.split("<details")[1].split("</details>")[0]
    assert "assert_close" in hidden and hidden.count('class="highlight"') == 2
    assert "--8&lt;--" not in html


def test_a_downloaded_notebook_shows_prose_after_a_collapsed_example_as_prose():
    from ptdocs.downloads import _admonitions

    after_example = "\n    Hidden words, continued.\n\n    More.\n\nSeen again.\n"
    shown = _admonitions(after_example, continued=True)
    assert shown.startswith("> Hidden words, continued.\n>\n> More.\n")
    assert "\nSeen again." in shown and "    " not in shown
    assert _admonitions("\nPlain prose.\n", continued=True) == "\nPlain prose.\n"
