"""Repository rules: the promises the README makes, kept true (its two commands are
the ones CI runs), how the suite hands out its files, the live preview's watch list,
and code style (ruff, 88 columns for every line a page shows). Line endings are
checked in tests/test_platforms.py."""

import re
import subprocess
from pathlib import Path

import pytest

from ptdocs.pages import headings, markdown_reader
from ptdocs.snippets import ROOT

SERVE = "python -m pip install -r requirements.txt && python -m mkdocs serve"
TEST = "python -m pip install -r requirements.txt && python -m pytest"


def _setup_commands(text):
    """Lines of the README that install and then run something."""
    return [
        line.strip()
        for line in text.splitlines()
        if line.strip().startswith("python -m pip install -r requirements.txt &&")
    ]


def test_readme_holds_exactly_the_two_set_up_included_commands():
    assert _setup_commands((ROOT / "README.md").read_text()) == [SERVE, TEST]


def test_the_readme_offers_ci_s_cpu_only_torch_before_its_first_command():
    """On Linux the first install would pull PyPI's CUDA build (several GB): the
    README's choice of build stands before its first set-up command, and it is the
    index CI's test job uses."""
    import yaml

    workflow = yaml.safe_load(
        (ROOT / ".github" / "workflows" / "site.yml").read_text(encoding="utf-8")
    )
    index = workflow["jobs"]["test"]["env"]["PIP_EXTRA_INDEX_URL"]
    choice = f"export PIP_EXTRA_INDEX_URL={index}"
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert choice in readme, f"README lacks `{choice}`"
    assert readme.index(choice) < readme.index(SERVE), (
        "README: the torch build is chosen after the first install"
    )


def test_contributing_names_the_supported_torch_releases_as_versions_py_does():
    from ptdocs.versions import SUPPORTED

    guide = " ".join((ROOT / "CONTRIBUTING.md").read_text(encoding="utf-8").split())
    assert f"today {SUPPORTED[0]} to {SUPPORTED[-1]})" in guide, (
        "CONTRIBUTING: 'Torch builds and releases' names another range"
    )


def test_contributing_says_where_each_test_file_goes():
    """ "Where a test goes" in CONTRIBUTING.md names every test file, and only files
    that exist."""
    guide = (ROOT / "CONTRIBUTING.md").read_text(encoding="utf-8")
    section = guide[guide.index("## Where a test goes") :]
    section = section[: section.index("\n## ")]
    named = set(re.findall(r"tests/browser/|\btest_\w+\.py\b", section))
    files = {path.name for path in (ROOT / "tests").glob("test_*.py")}
    browser = {path.name for path in (ROOT / "tests" / "browser").glob("test_*.py")}
    assert "tests/browser/" in named, "the browser tests have no row"
    assert not files - named, f"no row for {sorted(files - named)}"
    assert not named - files - browser - {"tests/browser/"}, (
        f"rows for missing files: {sorted(named - files - browser)}"
    )


def _anchors(text: str) -> set[str]:
    """GitHub's anchors for a Markdown file's headings: lower case, punctuation
    dropped, spaces as hyphens."""
    return {
        re.sub(r"[^\w\- ]", "", title.lower()).replace(" ", "-")
        for _, _, title in headings(markdown_reader().parse(text))
    }


@pytest.mark.parametrize("name", ["README.md", "CONTRIBUTING.md", "CONTRIBUTING.es.md"])
def test_every_relative_link_of_the_repository_guides_resolves(name):
    text = (ROOT / name).read_text(encoding="utf-8")
    links = re.findall(r"\]\(([^)\s]+)\)", re.sub(r"(?ms)^```.*?^```", "", text))
    broken = []
    for link in links:
        if re.match(r"[a-z]+:", link):
            continue  # an address outside the repository
        path, _, anchor = link.partition("#")
        target = ROOT / path if path else ROOT / name
        if not target.exists():
            broken.append(f"{link}: no such file")
        elif anchor and anchor not in _anchors(target.read_text(encoding="utf-8")):
            broken.append(f"{link}: no heading with that anchor in {target.name}")
    assert links, f"{name} has no link"
    assert not broken, f"{name}: " + "; ".join(broken)


def test_ci_runs_the_readme_test_command_and_the_strict_build():
    ci = (ROOT / ".ci" / "run").read_text()
    assert TEST in ci
    assert "mkdocs build --strict" in ci


def test_torch_is_pinned_so_a_bare_install_cannot_pull_another_build():
    lock = (ROOT / "requirements.txt").read_text()
    assert re.search(r"^torch==2\.13\.0$", lock, re.M)
    assert re.search(r"^mkdocs==1\.", lock, re.M), "mkdocs<2: MkDocs 2 drops plugins"


def test_a_write_interrupted_midway_leaves_only_a_file_git_ignores(
    tmp_path, monkeypatch
):
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


def test_the_live_preview_reloads_on_every_source_a_page_is_built_from():
    from mkdocs.config import load_config

    config = load_config(str(ROOT / "mkdocs.yml"))
    watched = {Path(path).resolve() for path in config.watch}
    for source in (
        "snippets",
        "notebooks",
        "ptdocs",
        "overrides",
        "CONTRIBUTING.md",
        "CONTRIBUTING.es.md",
    ):
        assert (ROOT / source).resolve() in watched, (
            f"mkdocs serve does not watch {source}"
        )


def test_the_browser_marker_is_on_the_browser_tests_and_nowhere_else(site_conftest):
    """`python -m pytest -m "not browser"` (README) leaves out exactly
    tests/browser/."""
    conftest = site_conftest

    class Item:
        def __init__(self, path):
            self.path, self.nodeid, self.marks = (
                path,
                path.relative_to(ROOT).as_posix() + "::t",
                [],
            )

        def add_marker(self, mark):
            self.marks.append(mark.name)

    items = [
        Item(ROOT / path)
        for path in (
            "tests/browser/test_pages.py",
            "tests/browser/sub/test_x.py",
            "tests/test_downloads.py",
            "docs/en/index.md",
        )
    ]
    conftest.pytest_collection_modifyitems(items)
    assert {item.path.relative_to(ROOT).as_posix(): item.marks for item in items} == {
        "tests/browser/test_pages.py": ["browser"],
        "tests/browser/sub/test_x.py": ["browser"],
        "tests/test_downloads.py": [],
        "docs/en/index.md": [],
    }


def test_the_longest_files_are_handed_out_first_and_the_rest_keep_their_order(
    site_conftest, pytestconfig
):
    conftest = site_conftest
    assert "--no-loadscope-reorder" in pytestconfig.getini("addopts"), (
        "pytest-xdist would reorder the files"
    )
    missing = [name for name in conftest.LONGEST_FIRST if not (ROOT / name).is_file()]
    assert not missing, f"LONGEST_FIRST names files that are gone: {missing}"

    class Item:
        def __init__(self, path, name):
            self.path, self.nodeid, self.name = ROOT / path, f"{path}::{name}", name

        def add_marker(self, mark):
            pass

    items = [
        Item("tests/test_a.py", "a1"),
        Item("tests/test_downloads.py", "d1"),
        Item("tests/test_a.py", "a2"),
        Item("docs/en/index.md", "i"),
        Item("tests/browser/test_pages.py", "p"),
        Item("tests/test_downloads.py", "d2"),
    ]
    conftest.pytest_collection_modifyitems(items)
    assert [item.name for item in items] == ["p", "d1", "d2", "a1", "a2", "i"]


# --- code style: ruff, and 88 columns for every line a page shows
# ------------------------------


def _ruff_settings() -> dict:
    import tomllib

    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"][
        "ruff"
    ]


def _ruff(*arguments: str) -> subprocess.CompletedProcess:
    import sys

    return subprocess.run(
        [sys.executable, "-m", "ruff", *arguments],
        cwd=ROOT,
        capture_output=True,
        text=True,
        encoding="utf-8",
    )


def test_ruff_finds_the_code_formatted_and_clean():
    """`ruff format --check` and `ruff check` over the repository, as pyproject.toml
    [tool.ruff] configures them (its excludes included): what a contributor runs
    before a commit."""
    for arguments in (("format", "--check"), ("check", "--output-format", "concise")):
        result = _ruff(*arguments, ".")
        assert result.returncode == 0, (
            f"ruff {' '.join(arguments)}: run `python -m ruff format . && "
            f"python -m ruff check .`\n{result.stdout}{result.stderr}"
        )


def test_every_line_a_page_shows_fits_the_line_length_in_every_language():
    """Each code include of every page, expanded as the English and each translated
    page show it (comments from the catalog), has no line longer than ruff's
    line-length: the code a reader sees does not scroll sideways. Files that
    pyproject.toml's extend-exclude leaves out of ruff are left out here too."""
    from ptdocs import catalog
    from ptdocs.snippets import expand, include_target

    settings = _ruff_settings()
    width = settings["line-length"]
    excluded = [pattern.rstrip("/") for pattern in settings.get("extend-exclude", [])]
    too_long, checked = [], 0
    for page in sorted((ROOT / "docs" / catalog.SOURCE).rglob("*.md")):
        for line in page.read_text(encoding="utf-8").split("\n"):
            target = include_target(line)
            if target is None:
                continue
            for language in (catalog.SOURCE, *catalog.LANGUAGES):
                include = expand(target, language=language, check=False)
                if not include.path.endswith(
                    catalog.SUFFIXES
                ):  # code, not an included text
                    continue
                if any(
                    include.path == pattern or include.path.startswith(pattern + "/")
                    for pattern in excluded
                ):
                    continue
                checked += 1
                too_long += [
                    f"{include.path}:{include.first_line + number} ({language}, "
                    f"{len(text)} columns): {text}"
                    for number, text in enumerate(include.shown)
                    if len(text) > width
                ]
    assert checked > 0
    assert not too_long, (
        f"{len(too_long)} shown lines over {width} columns (wrap the English "
        "comment so its translation fits too):\n" + "\n".join(sorted(set(too_long)))
    )
