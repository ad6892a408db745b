"""Promises the README makes, kept true."""

import re
import subprocess
from pathlib import Path

import pytest

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


def test_each_language_runs_the_same_number_of_examples_per_page(site_conftest):
    pages = site_conftest.pages  # the site's Sybil

    def count(path):
        return len(list(pages.parse(path).examples()))

    english = {p.relative_to(ROOT / "docs" / "en"): count(p) for p in (ROOT / "docs" / "en").rglob("*.md")}
    spanish = {p.relative_to(ROOT / "docs" / "es"): count(p) for p in (ROOT / "docs" / "es").rglob("*.md")}
    assert english == spanish
    assert sum(english.values()) > 0


def test_a_write_interrupted_midway_leaves_only_a_file_git_ignores(tmp_path, monkeypatch):
    import os

    from ptdocs import atomic

    left = []

    def interrupted(source, destination):
        left.append(Path(source))
        raise KeyboardInterrupt

    target = ROOT / "docs" / "en" / "index.md"
    monkeypatch.setattr(os, "replace", interrupted)
    folder = tmp_path / "docs"
    try:
        atomic.write_atomically(folder / "index.md", "text\r\n")
    except KeyboardInterrupt:
        pass
    assert left and not left[0].exists()  # cleaned up when it can be
    # and when it cannot (the process killed), its name is one git ignores
    name = target.parent / left[0].name
    ignored = subprocess.run(["git", "check-ignore", "-q", str(name)], cwd=ROOT)
    assert ignored.returncode == 0, f"{name.name} is not ignored by .gitignore"


def test_text_is_written_as_given_whatever_the_platform(tmp_path):
    from ptdocs.atomic import write_atomically

    write_atomically(tmp_path / "a.txt", "one\ntwo\r\n")
    assert (tmp_path / "a.txt").read_bytes() == b"one\ntwo\r\n"


def test_every_text_file_is_checked_out_with_lf():
    attributes = subprocess.run(["git", "check-attr", "eol", "--", "docs/es/index.md", "snippets/home/previews.py",
                                 "docs/es/exercises/derivatives.ipynb"], cwd=ROOT, capture_output=True, text=True)
    assert attributes.stdout.count("eol: lf") == 3, attributes.stdout


def test_the_live_preview_reloads_on_every_source_a_page_is_built_from():
    from mkdocs.config import load_config

    config = load_config(str(ROOT / "mkdocs.yml"))
    watched = {Path(path).resolve() for path in config.watch}
    for source in ("snippets", "notebooks", "ptdocs", "overrides", "CONTRIBUTING.md", "CONTRIBUTING.es.md"):
        assert (ROOT / source).resolve() in watched, f"mkdocs serve does not watch {source}"


def test_the_browser_marker_is_on_the_browser_tests_and_nowhere_else(site_conftest):
    """`python -m pytest -m "not browser"` (README) leaves out exactly tests/browser/."""
    conftest = site_conftest

    class Item:
        def __init__(self, path):
            self.path, self.marks = path, []

        def add_marker(self, mark):
            self.marks.append(mark.name)

    items = [Item(ROOT / path) for path in ("tests/browser/test_pages.py", "tests/browser/sub/test_x.py",
                                            "tests/test_downloads.py", "docs/en/index.md")]
    conftest.pytest_collection_modifyitems(items)
    assert [item.marks for item in items] == [["browser"], ["browser"], [], []]


@pytest.mark.parametrize("args, workers", [
    (["docs"], 3), (["docs/en/autograd.md::sybil:pages,line:52,column:1", "docs/es"], 3),
    (["docs", "tests"], 6), (["tests/test_downloads.py"], 6), ([str(ROOT)], 6),
])
def test_auto_starts_one_worker_per_core_for_pages_and_two_for_the_rest(site_conftest, pytestconfig,
                                                                        monkeypatch, args, workers):
    import xdist.plugin

    conftest = site_conftest
    monkeypatch.delenv("PYTEST_XDIST_AUTO_NUM_WORKERS", raising=False)
    monkeypatch.setattr(xdist.plugin, "pytest_xdist_auto_num_workers", lambda config: 3)  # 3 cores
    monkeypatch.chdir(ROOT)  # where the README's commands run

    class Config:  # what the hook reads of pytest's
        option = pytestconfig.option

    Config.args = args
    assert conftest.pytest_xdist_auto_num_workers(Config) == workers
    # A count given in PYTEST_XDIST_AUTO_NUM_WORKERS is the user's: never doubled.
    monkeypatch.setenv("PYTEST_XDIST_AUTO_NUM_WORKERS", "3")
    assert conftest.pytest_xdist_auto_num_workers(Config) == 3
