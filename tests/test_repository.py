"""Promises the README makes, kept true."""

import re
from pathlib import Path

from ptdocs.snippets import ROOT

SERVE = "python -m pip install -r requirements.txt && python -m mkdocs serve"
TEST = "python -m pip install -r requirements.txt && python -m pytest"


def _setup_commands(text):
    """Lines of the README that install and then run something."""
    return [line.strip() for line in text.splitlines()
            if line.strip().startswith("python -m pip install -r requirements.txt &&")]


def test_readme_holds_exactly_the_two_set_up_included_commands():
    assert _setup_commands((ROOT / "README.md").read_text()) == [SERVE, TEST]


def test_ci_runs_the_readme_test_command_and_the_strict_build():
    ci = (ROOT / ".ci" / "run").read_text()
    assert TEST in ci
    assert "mkdocs build --strict" in ci


def test_torch_is_pinned_so_a_bare_install_cannot_pull_another_build():
    lock = (ROOT / "requirements.txt").read_text()
    assert re.search(r"^torch==2\.13\.0$", lock, re.M)
    assert re.search(r"^mkdocs==1\.", lock, re.M), "mkdocs<2: MkDocs 2 drops plugins"


def test_each_language_runs_the_same_number_of_examples_per_page():
    from conftest import pages

    def count(path):
        return len(list(pages.parse(path).examples()))

    english = {p.relative_to(ROOT / "docs" / "en"): count(p) for p in (ROOT / "docs" / "en").rglob("*.md")}
    spanish = {p.relative_to(ROOT / "docs" / "es"): count(p) for p in (ROOT / "docs" / "es").rglob("*.md")}
    assert english == spanish
    assert sum(english.values()) > 0
